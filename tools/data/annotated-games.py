"""Writes real games annotated by an engine in the shapes real collections carry (lichess's
`[%eval]`/`[%clk]` commands, Arena's and CCRL's `{+0.25/18 1.2s}`, TCEC's `{d=.., mt=.., wv=..}`),
with an expected TSV of what each annotation says: the test data of tabiya's annotation reader
and stored annotations (`src/input/annotations.rs`); the TSV is the oracle.

Usage (Debian's `stockfish` package and python-chess 1.11.2 installed):
    python3 tools/data/annotated-games.py ../shared/datasets/players.pgn.zst --shape lichess --games 40 \
        > tests/data/annotated-lichess.pgn
    python3 tools/data/annotated-games.py ../shared/datasets/players.pgn.zst --shape lichess --games 40 \
        --expect > tests/data/annotated-lichess.tsv
    python3 tools/data/annotated-games.py ../shared/datasets/players.pgn.zst --shape arena --games 12 \
        > tests/data/annotated-arena.pgn
    python3 tools/data/annotated-games.py ../shared/datasets/players.pgn.zst --shape arena --games 12 \
        --expect > tests/data/annotated-arena.tsv
    python3 tools/data/annotated-games.py ../shared/datasets/players.pgn.zst --shape tcec --games 12 \
        > tests/data/annotated-tcec.pgn
    python3 tools/data/annotated-games.py ../shared/datasets/players.pgn.zst --shape tcec --games 12 \
        --expect > tests/data/annotated-tcec.tsv
For benchmark files, the same with more games (and compressed), for example
    python3 tools/data/annotated-games.py ../shared/datasets/players.pgn.zst --shape lichess --games 3000 \
        | zstd -q -o target/annotated-lichess.pgn.zst
and with `--skip N` the games after the first N (each game keeps its index, so its seed): the
annotations code's priors are counted on such games (tools/data/annotation-priors.rs).

The input (`.pgn` or `.pgn.zst`) gives the first N games python-chess reads without errors, with
tag values in UTF-8, from the standard initial position and of at least 10 plies: their tags as
they are (TimeControl set for the shape), their mainline (variations and comments dropped), and
after each move a comment of the shape:
- lichess (TimeControl 180+2): `{ [%eval 0.25] [%clk 0:03:12] }`, the evaluation from White's
  view in pawns or `#N` (positive: White mates), the mover's clock after the move; games of even
  index carry evaluations and clocks, games of odd index clocks only, and about one move in 50
  of an evaluated game has no evaluation;
- arena (TimeControl 40/3600): `{+0.25/18 1.2s}`, the evaluation from the mover's view
  (`+M5`/`-M3` for mates), the engine's depth, the move's time;
- tcec (TimeControl 5400+10): `{d=.., sd=.., mt=.., tl=.., s=.., n=.., pv=.., tb=0, h=0.0,
  ph=0.0, wv=.., R50=.., Rd=.., Rr=.., mb=..,}`, `wv` from White's view in pawns or `M5`/`-M5`,
  `mt` the move's milliseconds, `tl` the mover's time left, `pv` the move and the engine's reply.
The evaluation is Stockfish's (Threads 1, Hash 16, `--nodes` nodes, `ucinewgame` before each
game) of the position after the move; a move that mates carries none (on Arena's shape no
comment at all), a stalemating move 0.00. Times and clocks come from a generator seeded with
the shape's seed plus the game's index.

With `--expect`, instead of the PGN, one line a move, tab-separated: the game's index, the ply
(0 for the first move), the move's SAN, the evaluation from White's view (`cp N`, `mate N` or
`-`), the mover's clock after the move in centiseconds (or `-`), the move's time in
centiseconds (or `-`: Arena's time, TCEC's `mt // 10`, lichess's the clock's fall plus the
increment). For lichess, evaluations and clocks are python-chess's reading of the PGN written;
python-chess reads neither other shape, so for those they are the values written (Arena's turned
to White's view). TCEC's `tl` is not taken for a clock.

The output is the same on every run with the same Stockfish, but another Stockfish version
evaluates otherwise: regenerate a shape's PGN and TSV together.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import IO, Iterator

import chess
import chess.engine
import chess.pgn

SHAPES = ("lichess", "arena", "tcec")
# Each shape's seed; a game's generator is seeded with it plus the game's index.
SEEDS = {"lichess": 57_000, "arena": 58_000, "tcec": 59_000}
TIME_CONTROLS = {"lichess": "180+2", "arena": "40/3600", "tcec": "5400+10"}
LICHESS_START, LICHESS_INCREMENT = 180, 2
TCEC_START_MS, TCEC_INCREMENT_MS = 5400 * 1000, 10 * 1000
MIN_PLIES = 10
COLUMNS = 80


@dataclass
class Ply:
    """One move with what its comment says."""

    san: str
    comment: str | None
    # The evaluation written, from White's view (None: none written).
    score: chess.engine.Score | None
    # The mover's clock after the move, in centiseconds, and the move's time, in centiseconds.
    clock: int | None
    spent: int | None


@dataclass
class Annotated:
    headers: list[tuple[str, str]]
    moves: list[chess.Move]
    plies: list[Ply]
    result: str


def engine_path(name: str) -> str:
    found = shutil.which(name, path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/games"]))
    if found is None:
        sys.exit(f"annotated-games: no engine {name!r} on PATH or in /usr/games (apt-get install stockfish)")
    return found


def open_text(path: str) -> tuple[IO[str], subprocess.Popen[bytes] | None]:
    """The PGN's text, and the decompressor run for it, if any."""
    if not path.endswith(".zst"):
        return open(path, encoding="utf-8", errors="replace", newline=None), None
    try:
        import zstandard  # type: ignore[import-not-found]
    except ImportError:
        process = subprocess.Popen(["zstd", "-dc", path], stdout=subprocess.PIPE)
        assert process.stdout is not None
        return io.TextIOWrapper(process.stdout, encoding="utf-8", errors="replace"), process
    raw = zstandard.ZstdDecompressor().stream_reader(open(path, "rb"))
    return io.TextIOWrapper(raw, encoding="utf-8", errors="replace"), None


def source_games(path: str, count: int) -> Iterator[chess.pgn.Game]:
    """The first `count` games read without errors, from the standard start, of 10 plies or more."""
    text, process = open_text(path)
    try:
        found = 0
        while found < count:
            game = chess.pgn.read_game(text)
            if game is None:
                break
            if game.errors or any("\ufffd" in f"{k}{v}" for k, v in game.headers.items()):
                continue
            board = game.board()
            if type(board) is not chess.Board or board.fen() != chess.STARTING_FEN:
                continue
            if sum(1 for _ in game.mainline_moves()) < MIN_PLIES:
                continue
            found += 1
            yield game
    finally:
        text.close()
        if process is not None:
            process.kill()
            process.wait()


def pawns(cp: int, plus: bool) -> str:
    """Centipawns as pawns with two decimals; `plus`: a sign on positive numbers too."""
    sign = "-" if cp < 0 else ("+" if plus and cp > 0 else "")
    return f"{sign}{abs(cp) // 100}.{abs(cp) % 100:02d}"


def signed_mate(mate: int, plus: str) -> str:
    """A mate in `mate` moves as engine archives write it: `+M5` (`plus` before positive ones), `-M3`."""
    return f"{plus}M{mate}" if mate > 0 else f"-M{-mate}"


def clock_text(seconds: int) -> str:
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def material(board: chess.Board) -> str:
    """TCEC's `mb`: White's material less Black's, pawns to queens."""
    counts = (
        len(board.pieces(piece, chess.WHITE)) - len(board.pieces(piece, chess.BLACK))
        for piece in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
    )
    return "".join(f"{n:+d}" for n in counts)


def lichess_seconds(rng: random.Random, clock: int) -> int:
    """Seconds a move takes with `clock` seconds left: mostly 1 to 15 (more often 5 or less),
    sometimes up to 40, little in time trouble, always leaving a second."""
    draw = rng.random()
    if clock < 20:
        spent = rng.randint(0, 3)
    elif draw < 0.6:
        spent = rng.randint(1, 5)
    elif draw < 0.95:
        spent = rng.randint(6, 15)
    else:
        spent = rng.randint(16, 40)
    return max(0, min(spent, clock - 1))


def annotate(game: chess.pgn.Game, index: int, shape: str, engine: chess.engine.SimpleEngine, nodes: int) -> Annotated:
    rng = random.Random(SEEDS[shape] + index)
    headers = dict(game.headers.items())
    headers["TimeControl"] = TIME_CONTROLS[shape]
    analysed = shape != "lichess" or index % 2 == 0
    key = object()  # A new game for the engine: `ucinewgame`.
    lichess_clocks = [LICHESS_START, LICHESS_START]
    tcec_clocks = [TCEC_START_MS, TCEC_START_MS]
    board = game.board()
    moves = list(game.mainline_moves())
    plies = []
    for move in moves:
        mover = board.turn
        before = board.copy(stack=False)
        san = board.san(move)
        board.push(move)
        mated = board.is_checkmate()
        info: chess.engine.InfoDict = {}
        if analysed and not mated:
            info = engine.analyse(board, chess.engine.Limit(nodes=nodes), game=key)
        pov = info.get("score")
        score = None if pov is None else pov.white()
        mover_score = None if pov is None else pov.pov(mover)
        if shape == "lichess":
            side = 0 if mover == chess.WHITE else 1
            seconds = lichess_seconds(rng, lichess_clocks[side])
            lichess_clocks[side] += LICHESS_INCREMENT - seconds
            if score is not None and rng.random() < 0.02:
                score = None  # A gap, as lichess's analyses have.
            parts = []
            if score is not None:
                mate = score.mate()
                parts.append(f"[%eval #{mate}]" if mate is not None else f"[%eval {pawns(score.score(), False)}]")
            parts.append(f"[%clk {clock_text(lichess_clocks[side])}]")
            comment = " ".join(parts)
            plies.append(Ply(san, comment, score, lichess_clocks[side] * 100, seconds * 100))
        elif shape == "arena":
            tenths = rng.randint(1, 80) if rng.random() < 0.7 else rng.randint(81, 300)
            if mover_score is None:
                plies.append(Ply(san, None, None, None, None))
                continue
            mate = mover_score.mate()
            value = signed_mate(mate, "+") if mate is not None else pawns(mover_score.score(), True)
            comment = f"{value}/{info.get('depth', 0)} {tenths // 10}.{tenths % 10}s"
            plies.append(Ply(san, comment, score, None, tenths * 10))
        else:
            side = 0 if mover == chess.WHITE else 1
            ms = rng.randint(100, 3000) if rng.random() < 0.1 else rng.randint(3000, 60000)
            ms = min(ms, tcec_clocks[side] - 1000)
            tcec_clocks[side] += TCEC_INCREMENT_MS - ms
            line = [before.san_and_push(move)]
            for reply in info.get("pv", [])[:3]:
                line.append(before.san_and_push(reply))
            # A mating move (no search) has its time, clock, move and counters only.
            pairs = [f"mt={ms}", f"tl={tcec_clocks[side]}", f"pv={' '.join(line)}", "tb=0"]
            if score is not None:
                depth, searched = info.get("depth", 0), info.get("nodes", 0)
                pairs[:0] = [f"d={depth}", f"sd={info.get('seldepth', depth)}"]
                pairs[4:4] = [f"s={searched * 1000 // max(ms, 1)}", f"n={searched}"]
                mate = score.mate()
                wv = signed_mate(mate, "") if mate is not None else pawns(score.score(), False)
                pairs += ["h=0.0", "ph=0.0", f"wv={wv}"]
            pairs += [f"R50={50 - board.halfmove_clock // 2}", "Rd=-11", "Rr=-1000", f"mb={material(board)}"]
            comment = ", ".join(pairs) + ","
            plies.append(Ply(san, comment, score, None, ms // 10))
    return Annotated(list(headers.items()), moves, plies, game.headers.get("Result", "*"))


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def pgn_text(game: Annotated, shape: str) -> str:
    """The game's PGN: tags, then movetext wrapped at 80 columns (comments kept whole)."""
    out = [f'[{name} "{escape(value)}"]' for name, value in game.headers]
    out.append("")
    tokens = []
    after_comment = False
    for ply_index, ply in enumerate(game.plies):
        number = ply_index // 2 + 1
        if ply_index % 2 == 0:
            tokens.append(f"{number}.")
        elif after_comment and shape == "lichess":
            tokens.append(f"{number}...")
        tokens.append(ply.san)
        after_comment = ply.comment is not None
        if ply.comment is not None:
            tokens.append(f"{{ {ply.comment} }}" if shape == "lichess" else f"{{{ply.comment}}}")
    tokens.append(game.result)
    lines, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > COLUMNS:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    out.extend(lines)
    return "\n".join(out) + "\n\n"


def score_text(score: chess.engine.Score | None) -> str:
    if score is None:
        return "-"
    mate = score.mate()
    return f"mate {mate}" if mate is not None else f"cp {score.score()}"


def optional(value: int | None) -> str:
    return "-" if value is None else str(value)


def expectations(games: list[Annotated], text: str, shape: str) -> Iterator[str]:
    """The oracle's lines; checks that python-chess reads the written PGN back as the games."""
    handle = io.StringIO(text)
    for index, game in enumerate(games):
        read = chess.pgn.read_game(handle)
        assert read is not None and not read.errors, f"game {index}: {read and read.errors}"
        assert list(read.mainline_moves()) == game.moves, f"game {index}: another mainline read back"
        clocks = [LICHESS_START * 100, LICHESS_START * 100]
        for ply_index, (node, ply) in enumerate(zip(read.mainline(), game.plies)):
            assert node.san() == ply.san and node.comment == (ply.comment or ""), f"game {index} ply {ply_index}"
            score, clock, spent = ply.score, ply.clock, ply.spent
            if shape == "lichess":
                pov = node.eval()
                score = None if pov is None else pov.white()
                seconds = node.clock()
                assert seconds is not None, f"game {index} ply {ply_index}: no clock read"
                clock = round(seconds * 100)
                side = ply_index % 2
                spent = clocks[side] - clock + LICHESS_INCREMENT * 100
                clocks[side] = clock
                assert (score, clock, spent) == (ply.score, ply.clock, ply.spent), f"game {index} ply {ply_index}"
            yield "\t".join([str(index), str(ply_index), ply.san, score_text(score), optional(clock), optional(spent)])
    assert chess.pgn.read_game(handle) is None, "more games read back than written"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="PGN games to annotate (.pgn or .pgn.zst)")
    parser.add_argument("--shape", choices=SHAPES, required=True)
    parser.add_argument("--games", type=int, default=40, help="how many games (default 40)")
    parser.add_argument(
        "--skip", type=int, default=0, help="games read to pass over first (their indexes still count)"
    )
    parser.add_argument("--nodes", type=int, default=2000, help="the engine's nodes a position (default 2000)")
    parser.add_argument(
        "--engine", default="stockfish", help="a UCI engine (default stockfish, on PATH or in /usr/games)"
    )
    parser.add_argument("--expect", action="store_true", help="write the expected TSV instead of the PGN")
    args = parser.parse_args()
    engine = chess.engine.SimpleEngine.popen_uci(engine_path(args.engine))
    try:
        engine.configure({"Threads": 1, "Hash": 16})
        games = [
            annotate(game, index, args.shape, engine, args.nodes)
            for index, game in enumerate(source_games(args.source, args.skip + args.games))
            if index >= args.skip
        ]
    finally:
        engine.quit()
    text = "".join(pgn_text(game, args.shape) for game in games)
    # Read back in either case: the PGN is written only if python-chess reads it as the games.
    lines = list(expectations(games, text, args.shape))
    out = "".join(f"{line}\n" for line in lines) if args.expect else text
    sys.stdout.buffer.write(out.encode("utf-8"))


if __name__ == "__main__":
    main()

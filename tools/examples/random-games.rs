//! Random legal games as PGN on standard output, for benchmarks whose input is Chess960 or
//! Antichess (or, beside them, standard chess from the same generator): `tools/bench/chess960.sh`
//! compares ingest against a plain replay on Chess960's and standard chess's.
//!
//! `cargo run --release --example random-games -- COUNT chess960|standard|antichess [SEED] > games.pgn`
//!
//! A Chess960 game starts from a start position drawn uniformly (its `FEN` in X-FEN, `Variant`
//! `Chess960`); a standard or Antichess one from the initial position (`Variant` `Antichess`).
//! Then 40 to 120 plies of legal moves drawn uniformly (until the game ends), castling whenever
//! it may half the time, and a random result.

use std::io::Write as _;

use shakmaty::{
    Color, EnPassantMode, Move, Position as _,
    fen::Epd,
    san::San,
    variant::{Variant, VariantPosition},
};

/// xorshift64: the same games for the same seed, without a dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: random-games COUNT chess960|standard|antichess [SEED]";
    let count: usize = args.first().and_then(|n| n.parse().ok()).ok_or_else(|| anyhow::anyhow!(usage))?;
    let kind = args.get(1).map(String::as_str);
    let (chess960, variant) = match kind {
        Some("chess960") => (true, Variant::Chess),
        Some("standard") => (false, Variant::Chess),
        Some("antichess") => (false, Variant::Antichess),
        _ => anyhow::bail!(usage),
    };
    let seed: u64 = args.get(2).map_or(Ok(960), |seed| seed.parse()).map_err(|_| anyhow::anyhow!(usage))?;
    let mut rng = Rng(seed | 1);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for round in 1..=count {
        let start = match chess960 {
            true => {
                let number = rng.below(960) as u16;
                let start = tabiya::Position::chess960_start(number)
                    .ok_or_else(|| anyhow::anyhow!("start {number}"))?
                    .as_chess()
                    .cloned()
                    .ok_or_else(|| anyhow::anyhow!("start {number}"))?;
                VariantPosition::Chess(start)
            }
            false => VariantPosition::new(variant),
        };
        let result = ["1-0", "0-1", "1/2-1/2"][rng.below(3)];
        write!(out, "[Event \"Random\"]\n[Round \"{round}\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"{result}\"]\n")?;
        if chess960 {
            let fen = Epd::from_position(&start, EnPassantMode::Legal);
            write!(out, "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen} 0 1\"]\n")?;
        }
        if variant == Variant::Antichess {
            writeln!(out, "[Variant \"Antichess\"]")?;
        }
        writeln!(out)?;
        let mut position = start;
        for _ in 0..40 + rng.below(81) {
            let legal = position.legal_moves();
            let castles: Vec<Move> = legal.iter().copied().filter(|m| m.is_castle()).collect();
            let m = match (legal.is_empty(), castles.is_empty()) {
                (true, _) => break,
                (false, false) if rng.below(2) == 0 => castles[rng.below(castles.len())],
                _ => legal[rng.below(legal.len())],
            };
            if position.turn() == Color::White {
                write!(out, "{}. ", position.fullmoves())?;
            }
            write!(out, "{} ", San::from_move(&position, m))?;
            position.play_unchecked(m);
        }
        write!(out, "{result}\n\n")?;
    }
    Ok(())
}

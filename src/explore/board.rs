//! What a board interface asks, so that it needs no chess rules of its own: a position's legal
//! moves with their SAN, the positions a line of moves leads to ([`play`]), and a stored game ply by ply
//! ([`GameView`]).

use serde::Serialize;
use shakmaty::{Move, Position as _, uci::UciMove};

use super::{GameSummary, QueryError, Target, summarize, target::MAX_MOVES};
use crate::{
    model::{GameId, replay_with_moves},
    position::Variant,
    store::Store,
};

/// A position as a board shows it, with the moves played to reach it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct BoardAnswer {
    /// The position (canonical FEN, without counters).
    pub fen: String,
    /// The moves played from the start asked for, each with the position after it.
    pub line: Vec<Ply>,
    /// `white` or `black`.
    pub turn: &'static str,
    /// Whether the side to move is in check.
    pub check: bool,
    /// Why the game is over there ([`tabiya_core::Position::game_over`]): `checkmate`,
    /// `stalemate`, `insufficient material`, or a variant's own end.
    pub outcome: Option<&'static str>,
    /// Who won when the game is over with a winner (`white` or `black`): the side checkmating,
    /// or the one a variant's own end favours; `None` while it goes on or in a draw.
    pub winner: Option<&'static str>,
    /// Every legal move, in UCI order.
    pub legal: Vec<LegalMove>,
}

/// A legal move: UCI (castling as the king's two-square move; in Chess960 the king taking its
/// rook) and SAN with check marks.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct LegalMove {
    /// `e2e4`, `e1g1`, `e7e8q`.
    pub uci: String,
    /// `e4`, `O-O`, `e8=Q+`.
    pub san: String,
}

impl LegalMove {
    fn of(position: &crate::Position, m: &Move) -> LegalMove {
        LegalMove { uci: m.to_uci(position.castles().mode()).to_string(), san: position.san_plus(*m).to_string() }
    }
}

/// The position `fen` (the initial one when `None`) after the UCI `moves` (comma-separated),
/// with each move's SAN and position, and the legal moves there, by `variant`'s rules.
///
/// ```
/// use tabiya::{explore::play, position::Variant};
///
/// let after = play(None, "e2e4,e7e5", Variant::Standard)?;
/// assert_eq!(after.line[1].san, "e5");
/// assert_eq!(after.legal.len(), 29);
/// let err = play(None, "e2e4,e2e4", Variant::Standard).unwrap_err();
/// assert!(err.to_string().starts_with("move 2 (e2e4) is not legal"), "{err}");
/// // Chess960: castling is the king taking its rook, SAN O-O.
/// let fen = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKR1 w GEge - 0 1";
/// let castled = play(Some(fen), "f1g1", Variant::Chess960)?;
/// assert_eq!(castled.line[0].san, "O-O");
/// # Ok::<_, tabiya::explore::QueryError>(())
/// ```
pub fn play(fen: Option<&str>, moves: &str, variant: Variant) -> Result<BoardAnswer, QueryError> {
    let mut position = Target::Fen(fen.unwrap_or_default().to_owned()).resolve_in(variant)?.position;
    let tokens: Vec<&str> = moves.split(',').map(str::trim).filter(|t| !t.is_empty()).collect();
    if tokens.len() > MAX_MOVES {
        return Err(QueryError::input(format!("too many moves ({}, at most {MAX_MOVES})", tokens.len())));
    }
    let mut line = Vec::with_capacity(tokens.len());
    for (index, text) in tokens.into_iter().enumerate() {
        let number = index + 1;
        let m = text
            .parse::<UciMove>()
            .map_err(|_| QueryError::input(format!("move {number} ({text}) is not a UCI move")))?
            .to_move(position.shakmaty())
            .ok()
            .filter(|m| position.is_legal(*m))
            .ok_or_else(|| QueryError::input(format!("move {number} ({text}) is not legal in {position}")))?;
        let LegalMove { uci, san } = LegalMove::of(&position, &m);
        position.play_legal(m);
        line.push(Ply { uci, san, fen: position.to_string() });
    }
    let outcome = position.game_over();
    let chess = position.shakmaty();
    let mut legal: Vec<LegalMove> = position.legal_moves().iter().map(|m| LegalMove::of(&position, m)).collect();
    legal.sort_by(|a, b| a.uci.cmp(&b.uci));
    Ok(BoardAnswer {
        fen: position.to_string(),
        line,
        turn: if chess.turn().is_white() { "white" } else { "black" },
        check: chess.is_check(),
        outcome,
        winner: chess.outcome().winner().map(|color| if color.is_white() { "white" } else { "black" }),
        legal,
    })
}

/// A stored game for a viewer: its headers, its start, and each ply's move and position.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameView {
    /// Players, ratings, date, event, result (as in explorer answers).
    #[serde(flatten)]
    pub summary: GameSummary,
    /// The start position (canonical FEN).
    pub start: String,
    /// Each ply: the move and the position after it.
    pub moves: Vec<Ply>,
}

/// A move and the position after it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Ply {
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN, with check marks.
    pub san: String,
    /// The position after it (canonical FEN).
    pub fen: String,
}

impl GameView {
    /// Game `id`, `None` when there is none; a stored game that does not replay is corrupt data.
    pub fn read(store: &Store, id: GameId) -> Result<Option<GameView>, QueryError> {
        let view = store.snapshot();
        let Some(record) = view.games().get(id)? else { return Ok(None) };
        let (positions, played) =
            replay_with_moves(&record).ok_or_else(|| view.corrupt(format!("game {id} does not replay")))?;
        let mut moves = Vec::with_capacity(played.len());
        for ((before, after), m) in positions.iter().zip(&positions[1..]).zip(played) {
            let LegalMove { uci, san } = LegalMove::of(before, &m);
            moves.push(Ply { uci, san, fen: after.to_string() });
        }
        Ok(Some(GameView { summary: summarize(id, &record, None), start: positions[0].to_string(), moves }))
    }
}

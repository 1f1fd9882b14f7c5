//! PGN games: pgn-reader parses, shakmaty replays the mainline.
//!
//! Every mainline position of a standard game is produced: the start position (or the
//! `FEN`/`SetUp` position), the position after each move, and so the final one. Variations and
//! comments are skipped. A game with an illegal move, a bad `FEN` tag, another variant or
//! Chess960 is reported and produces nothing (never part of a game).

use std::{io::Read, ops::ControlFlow};

use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{Chess, Position as _, fen::Fen};

use crate::position::Position;

/// A game that cannot be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: game {game}: {reason}")]
pub struct GameError {
    pub file: String,
    /// 1-based number of the game in its file.
    pub game: usize,
    pub reason: String,
}

/// Replays mainlines into position lists.
pub struct MainlineVisitor {
    file: String,
    games: usize,
}

/// Tag state: the start position, or why the game is unusable.
pub struct GameStart(Result<Position, String>);

/// Movetext state: positions so far, or why the game is unusable.
pub struct Mainline {
    current: Chess,
    positions: Vec<Position>,
    error: Option<String>,
}

impl MainlineVisitor {
    pub fn new(file: &str) -> MainlineVisitor {
        MainlineVisitor { file: file.to_owned(), games: 0 }
    }
}

impl Visitor for MainlineVisitor {
    type Tags = GameStart;
    type Movetext = Mainline;
    type Output = Result<Vec<Position>, GameError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, GameStart> {
        self.games += 1;
        ControlFlow::Continue(GameStart(Ok(Position::initial())))
    }

    fn tag(&mut self, tags: &mut GameStart, name: &[u8], value: RawTag<'_>) -> ControlFlow<Self::Output> {
        if tags.0.is_err() {
            return ControlFlow::Continue(());
        }
        if name == b"FEN" {
            let text = String::from_utf8_lossy(value.as_bytes()).into_owned();
            tags.0 = match Fen::from_ascii(text.trim().as_bytes()) {
                Err(err) => Err(format!("bad FEN tag {text:?}: {err}")),
                Ok(fen) => Position::from_setup(fen.into_setup(), &text).map_err(|err| format!("bad FEN tag: {err}")),
            };
        } else if name == b"Variant" {
            let variant = String::from_utf8_lossy(value.as_bytes()).to_ascii_lowercase();
            if !matches!(variant.trim(), "" | "standard" | "chess" | "from position" | "normal") {
                tags.0 = Err(format!("variant {:?} is not standard chess", variant.trim()));
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: GameStart) -> ControlFlow<Self::Output, Mainline> {
        let line = match tags.0 {
            Ok(start) => Mainline { current: start.chess().clone(), positions: vec![start], error: None },
            Err(reason) => Mainline { current: Chess::default(), positions: Vec::new(), error: Some(reason) },
        };
        ControlFlow::Continue(line)
    }

    fn san(&mut self, line: &mut Mainline, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if line.error.is_some() {
            return ControlFlow::Continue(());
        }
        match san_plus.san.to_move(&line.current) {
            Ok(m) => {
                line.current.play_unchecked(m);
                match Position::from_chess(line.current.clone()) {
                    Ok(position) => line.positions.push(position),
                    Err(err) => line.error = Some(err.to_string()),
                }
            }
            Err(err) => {
                let ply = line.positions.len();
                line.error = Some(format!("illegal move {san_plus} at ply {ply} ({err})"));
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _line: &mut Mainline) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn end_game(&mut self, line: Mainline) -> Self::Output {
        match line.error {
            None => Ok(line.positions),
            Some(reason) => Err(GameError { file: self.file.clone(), game: self.games, reason }),
        }
    }
}

/// Replays every game of `reader`, handing each game's positions (or its error) to `each`.
pub fn read_games(
    reader: impl Read,
    file: &str,
    mut each: impl FnMut(Result<Vec<Position>, GameError>),
) -> std::io::Result<()> {
    let mut reader = Reader::new(reader);
    let mut visitor = MainlineVisitor::new(file);
    while let Some(game) = reader.read_game(&mut visitor)? {
        each(game);
    }
    Ok(())
}

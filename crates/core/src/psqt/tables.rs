//! Twelve piece-square tables (pawn … king × middlegame, endgame) with their piece values, and
//! their CSV form: `phase,piece,value,a1,…,h8`, one row per table, squares from White's side.

use std::fmt::Write as _;

use serde::Serialize;
use shakmaty::{Color, Role, Square};

/// Number of tables: six piece kinds × two phases.
pub const TABLES: usize = 12;

/// The phase a table is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum GamePhase {
    /// Opening and middlegame (`mg`).
    Middlegame,
    /// Endgame (`eg`).
    Endgame,
}

impl GamePhase {
    /// Both phases, in table order.
    pub const ALL: [GamePhase; 2] = [GamePhase::Middlegame, GamePhase::Endgame];

    /// The CSV name: `mg` or `eg`.
    pub fn name(self) -> &'static str {
        match self {
            GamePhase::Middlegame => "mg",
            GamePhase::Endgame => "eg",
        }
    }
}

/// A table's index: tables are ordered by piece kind (pawn first), then phase (middlegame
/// first), as in PeSTO's published CSV.
pub fn table_index(role: Role, phase: GamePhase) -> usize {
    (role as usize - 1) * 2 + phase as usize
}

/// The piece kind and phase of table `index` (< [`TABLES`]).
pub fn table_of(index: usize) -> (Role, GamePhase) {
    (Role::ALL[(index / 2) % 6], GamePhase::ALL[index % 2])
}

/// A table's short label, e.g. `mg pawn`.
pub fn table_label(index: usize) -> String {
    let (role, phase) = table_of(index);
    format!("{} {}", phase.name(), role_name(role))
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// Cells the importance mask keeps: all but pawns' first and eighth ranks in the two pawn tables.
pub const KEPT_CELLS: usize = TABLES * 64 - 2 * 16;

/// A square as its owner sees it: White's as it is, Black's mirrored (rank 1 ↔ rank 8).
pub fn owner_square(square: Square, color: Color) -> Square {
    if color == Color::White { square } else { square.flip_vertical() }
}

/// Whether a table's square carries no information (a pawn on its first or eighth rank): the
/// factorisation's importance mask is zero there, so no error is counted.
pub fn is_masked(table: usize, square: usize) -> bool {
    table_of(table).0 == Role::Pawn && !(8..56).contains(&square)
}

/// Piece values and square bonuses; a piece's worth on a square is `values[t] + squares[t][sq]`
/// (squares indexed a1 = 0 … h8 = 63, from the owner's side: Black's pieces are mirrored).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PieceTables {
    /// Piece value per table.
    pub values: [i32; TABLES],
    /// Square bonuses per table.
    #[serde(serialize_with = "serialize_squares")]
    pub squares: [[i32; 64]; TABLES],
}

fn serialize_squares<S: serde::Serializer>(squares: &[[i32; 64]; TABLES], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(squares.iter().map(|t| t.as_slice()))
}

impl Default for PieceTables {
    fn default() -> PieceTables {
        PieceTables { values: [0; TABLES], squares: [[0; 64]; TABLES] }
    }
}

/// A malformed tables file.
#[derive(Debug, thiserror::Error)]
pub enum PsqtError {
    /// A line that is not a table row.
    #[error("line {line}: {message}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A table missing from the file.
    #[error("no row for {0}")]
    Missing(String),
}

impl PieceTables {
    /// The 768 full values (piece value plus square bonus), table by table.
    pub fn full_values(&self) -> Vec<i32> {
        (0..TABLES).flat_map(|t| self.squares[t].iter().map(move |&b| self.values[t] + b)).collect()
    }

    /// Reads the CSV shape: a header line naming `phase,piece,value,a1…h8` (optional), then
    /// twelve rows in any order, each table exactly once.
    pub fn from_csv(text: &str) -> Result<PieceTables, PsqtError> {
        let mut tables = PieceTables::default();
        let mut seen = [false; TABLES];
        for (number, line) in text.lines().enumerate() {
            let line_no = number + 1;
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            if fields.first().is_some_and(|f| f.eq_ignore_ascii_case("phase")) {
                continue;
            }
            let bad = |message: String| PsqtError::Line { line: line_no, message };
            if fields.len() != 67 {
                return Err(bad(format!("expected 67 fields (phase, piece, value, a1..h8), found {}", fields.len())));
            }
            let phase = match fields[0].to_ascii_lowercase().as_str() {
                "mg" | "middlegame" | "opening" => GamePhase::Middlegame,
                "eg" | "endgame" => GamePhase::Endgame,
                other => return Err(bad(format!("phase must be mg or eg, found {other:?}"))),
            };
            let role = Role::ALL
                .into_iter()
                .find(|&r| {
                    role_name(r).eq_ignore_ascii_case(fields[1]) || r.char().eq_ignore_ascii_case(&single(fields[1]))
                })
                .ok_or_else(|| bad(format!("unknown piece {:?}", fields[1])))?;
            let table = table_index(role, phase);
            if std::mem::replace(&mut seen[table], true) {
                return Err(bad(format!("{} appears twice", table_label(table))));
            }
            let number = |i: usize| {
                fields[i].parse::<i32>().ok().filter(|v| v.abs() <= 100_000).ok_or_else(|| {
                    let column = if i == 2 { "value".to_owned() } else { Square::new(i as u32 - 3).to_string() };
                    bad(format!("{column}: expected an integer within ±100000, found {:?}", fields[i]))
                })
            };
            tables.values[table] = number(2)?;
            for square in 0..64 {
                tables.squares[table][square] = number(square + 3)?;
            }
        }
        match seen.iter().position(|&s| !s) {
            Some(missing) => Err(PsqtError::Missing(table_label(missing))),
            None => Ok(tables),
        }
    }

    /// Writes the CSV shape, header first, tables in order.
    pub fn to_csv(&self) -> String {
        let mut out = String::from("phase,piece,value");
        for square in Square::ALL {
            let _ = write!(out, ",{square}");
        }
        out.push('\n');
        for t in 0..TABLES {
            let (role, phase) = table_of(t);
            let _ = write!(out, "{},{},{}", phase.name(), role_name(role), self.values[t]);
            for bonus in self.squares[t] {
                let _ = write!(out, ",{bonus}");
            }
            out.push('\n');
        }
        out
    }
}

fn single(text: &str) -> char {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => c,
        _ => '\0',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trip_and_errors() {
        let mut tables = PieceTables::default();
        for t in 0..TABLES {
            tables.values[t] = 100 * t as i32;
            for s in 0..64 {
                tables.squares[t][s] = (t * 64 + s) as i32 - 300;
            }
        }
        assert_eq!(PieceTables::from_csv(&tables.to_csv()).unwrap(), tables);
        let csv = tables.to_csv();
        let short: String = csv.lines().take(12).map(|l| format!("{l}\n")).collect();
        assert_eq!(PieceTables::from_csv(&short).unwrap_err().to_string(), "no row for eg king");
        let broken = csv.replacen(",-300,", ",x,", 1);
        assert_eq!(
            PieceTables::from_csv(&broken).unwrap_err().to_string(),
            "line 2: a1: expected an integer within ±100000, found \"x\""
        );
        let twice = format!("{csv}{}\n", csv.lines().nth(1).unwrap());
        assert!(PieceTables::from_csv(&twice).unwrap_err().to_string().contains("mg pawn appears twice"));
        assert!(is_masked(0, 0) && is_masked(1, 63) && !is_masked(0, 8) && !is_masked(2, 0));
        assert_eq!((0..TABLES * 64).filter(|&i| !is_masked(i / 64, i % 64)).count(), KEPT_CELLS);
    }
}

//! Chess960: the 960 start positions, and the castling configurations that name a Chess960
//! key's category (docs/FORMAT.md, "Chess960 keys").
//!
//! A standard category implies the rooks and kings its castling rights need, on the corners and
//! e1/e8. In Chess960 a right names a rook on any file of its back rank, with the king on the
//! same rank between the rooks it may castle with. Each colour is in one of
//! [`CastlingConfig::COUNT`] configurations:
//!
//! ```text
//! 0..4      no right; the corner rooks as a standard category sees them:
//!           0 = rooks on both corners, 1 = on the a-file corner only, 2 = on the h-file only, 3 = neither
//! 4..116    the king's file k, the file of the queen-side rook with a right (left of k, or none)
//!           and of the king-side one (right of k, or none), not both none; ordered by k, then
//!           the queen-side file (none first), then the king-side file (none first)
//! ```
//!
//! Inside a configuration the implied pieces (corner rooks without a right; the king and the
//! rooks with a right) take no digits, as in a standard category, and the placements of the
//! other pieces count exactly as in the standard category implying as many rooks and a king
//! ([`Chess960Category::representative`]): the key reuses its tables.

use shakmaty::{Bitboard, CastlingSide, Color, File, Piece, Rank, Role, Square};

use super::{Category, Layout, Position, category::side};

/// One colour's castling configuration in a Chess960 position (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CastlingConfig(u8);

/// The castling files of each configuration with a right, from index 4: (king, queen-side
/// rook, king-side rook), [`NO_FILE`] for none.
const RIGHTS: [(u8, u8, u8); 112] = rights_table();
const NO_FILE: u8 = 8;
/// `[king][queen-side rook][king-side rook]` (files, [`NO_FILE`] for none): the index in
/// [`RIGHTS`] plus 4, or 0 where no configuration with a right has those files. Keying looks
/// every Chess960 position's configurations up here.
static RIGHTS_INDEX: [[[u8; 9]; 9]; 8] = rights_index();

const fn rights_index() -> [[[u8; 9]; 9]; 8] {
    let mut index = [[[0; 9]; 9]; 8];
    let mut at = 0;
    while at < RIGHTS.len() {
        let (king, queen, king_side) = RIGHTS[at];
        index[king as usize][queen as usize][king_side as usize] = 4 + at as u8;
        at += 1;
    }
    index
}

const fn rights_table() -> [(u8, u8, u8); 112] {
    let mut table = [(0, 0, 0); 112];
    let (mut at, mut king) = (0, 0u8);
    while king < 8 {
        // The queen-side choices: none, then files a.. left of the king; likewise king side.
        let mut q = 0u8;
        while q <= king {
            let queen = if q == 0 { NO_FILE } else { q - 1 };
            let mut h = 0u8;
            while h < 8 - king {
                let king_side = if h == 0 { NO_FILE } else { king + h };
                if queen != NO_FILE || king_side != NO_FILE {
                    table[at] = (king, queen, king_side);
                    at += 1;
                }
                h += 1;
            }
            q += 1;
        }
        king += 1;
    }
    assert!(at == 112);
    table
}

impl CastlingConfig {
    /// Number of configurations of one colour.
    pub const COUNT: usize = 4 + RIGHTS.len();

    /// The configuration with this number, if it is below [`CastlingConfig::COUNT`].
    pub const fn new(index: u8) -> Option<CastlingConfig> {
        if (index as usize) < CastlingConfig::COUNT { Some(CastlingConfig(index)) } else { None }
    }

    /// The configuration's number.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// `color`'s configuration in a position.
    pub fn of(position: &Position, color: Color) -> CastlingConfig {
        let (board, castles) = (position.board(), position.castles());
        let file_of = |side| castles.rook(color, side).map_or(NO_FILE, |square: Square| square.file() as u8);
        let (queen, king_side) = (file_of(CastlingSide::QueenSide), file_of(CastlingSide::KingSide));
        if let Some(king) = board.king_of(color) {
            let at = RIGHTS_INDEX[king.file() as usize][usize::from(queen)][usize::from(king_side)];
            if at != 0 {
                return CastlingConfig(at);
            }
        }
        // No right (a right always has its configuration).
        let rook = Piece { color, role: Role::Rook };
        let absent = |file| board.piece_at(back_rank_square(color, file)) != Some(rook);
        CastlingConfig(2 * u8::from(absent(File::A)) + u8::from(absent(File::H)))
    }

    /// What the configuration implies, as an index of the key tables' implied sets (no piece,
    /// one rook, two rooks, a rook and the king, two rooks and the king).
    pub(crate) fn implied_type(self) -> usize {
        match self.rights() {
            None => usize::from(self.0 < 2) + usize::from(self.0.is_multiple_of(2)),
            Some(&(_, queen, king_side)) => 2 + usize::from(queen != NO_FILE) + usize::from(king_side != NO_FILE),
        }
    }

    fn rights(self) -> Option<&'static (u8, u8, u8)> {
        RIGHTS.get(usize::from(self.0).checked_sub(4)?)
    }

    /// Adds what the configuration implies of `color` to `layout`.
    fn imply(self, color: Color, layout: &mut Layout) {
        let at = |file: u8| Bitboard::from(back_rank_square(color, File::new(u32::from(file)))).0;
        let s = side(color);
        match self.rights() {
            None => {
                for (file, absent) in [(0, self.0 >= 2), (7, self.0 % 2 == 1)] {
                    if absent {
                        layout.rookless[s] |= at(file);
                    } else {
                        layout.home_rooks[s] |= at(file);
                    }
                }
            }
            Some(&(king, queen, king_side)) => {
                for file in [queen, king_side].into_iter().filter(|&file| file != NO_FILE) {
                    layout.home_rooks[s] |= at(file);
                    layout.rights |= at(file);
                }
                layout.kings[s] = at(king);
            }
        }
        layout.implied |= layout.home_rooks[s] | layout.kings[s];
    }

    /// The standard rook states (a-file corner, h-file corner) implying as much as this
    /// configuration: as many rooks, and the king when it has a right.
    fn standard_states(self) -> (u8, u8) {
        match self.rights() {
            None => (1 + u8::from(self.0 >= 2), 1 + u8::from(self.0 % 2 == 1)),
            Some(&(_, queen, king_side)) if queen != NO_FILE && king_side != NO_FILE => (0, 0),
            Some(_) => (0, 2),
        }
    }
}

fn back_rank_square(color: Color, file: File) -> Square {
    Square::from_coords(file, color.fold_wb(Rank::First, Rank::Eighth))
}

/// The category of a Chess960 position: both colours' [`CastlingConfig`]s.
///
/// ```
/// use tabiya_core::Position;
/// use tabiya_core::position::Chess960Category;
///
/// let start = Position::chess960_start(518).expect("518 is a start position");
/// let category = Chess960Category::of(&start).expect("a Chess960 position");
/// assert_eq!(start.to_string(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
/// // Both colours: the king on e, a right on a and on h; a standard key's category 0 counts it.
/// assert_eq!(category.white, category.black);
/// assert_eq!(category.representative().index(), 0);
/// assert!(Chess960Category::of(&Position::initial()).is_none(), "standard chess");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Chess960Category {
    /// White's configuration.
    pub white: CastlingConfig,
    /// Black's configuration.
    pub black: CastlingConfig,
}

impl Chess960Category {
    /// The category of a Chess960 position; `None` for a standard one.
    pub fn of(position: &Position) -> Option<Chess960Category> {
        position.is_chess960().then(|| Chess960Category {
            white: CastlingConfig::of(position, Color::White),
            black: CastlingConfig::of(position, Color::Black),
        })
    }

    /// What the category implies.
    pub(crate) fn layout(self) -> Layout {
        let mut layout = Layout::EMPTY;
        self.white.imply(Color::White, &mut layout);
        self.black.imply(Color::Black, &mut layout);
        layout
    }

    /// The standard category implying as many rooks and kings of each colour: its tables count
    /// this category's placements.
    pub fn representative(self) -> Category {
        let (wa, wh) = self.white.standard_states();
        let (ba, bh) = self.black.standard_states();
        match Category::new(27 * wa + 9 * wh + 3 * ba + bh) {
            Some(category) => category,
            None => unreachable!("states are below 3"),
        }
    }
}

/// The back rank of Chess960 start position `number` (0..960) in Scharnagl's numbering, which
/// lichess, python-chess and the FIDE rules use (518 is the standard setup), from the a-file.
pub(super) fn start_rank(number: u16) -> Option<[Role; 8]> {
    if number >= 960 {
        return None;
    }
    let mut rank: [Option<Role>; 8] = [None; 8];
    let n = usize::from(number);
    // Light-squared bishop on b, d, f or h; dark-squared on a, c, e or g.
    rank[2 * (n % 4) + 1] = Some(Role::Bishop);
    rank[2 * (n / 4 % 4)] = Some(Role::Bishop);
    let mut place_in_empty = |role: Role, mut skip: usize| {
        for slot in rank.iter_mut().filter(|slot| slot.is_none()) {
            if skip == 0 {
                *slot = Some(role);
                return;
            }
            skip -= 1;
        }
    };
    let n = n / 16;
    place_in_empty(Role::Queen, n % 6);
    // The knights on two of the five squares left, in the standard table's order.
    const KNIGHTS: [(usize, usize); 10] =
        [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
    let (first, second) = KNIGHTS[n / 6];
    place_in_empty(Role::Knight, second);
    place_in_empty(Role::Knight, first);
    // Rook, king, rook on the three squares left.
    for role in [Role::Rook, Role::King, Role::Rook] {
        place_in_empty(role, 0);
    }
    let mut roles = [Role::Pawn; 8];
    for (role, slot) in roles.iter_mut().zip(rank) {
        *role = slot?;
    }
    Some(roles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_count_the_kings_and_rooks_of_a_back_rank() {
        // With the king on file k: (k + 1)(8 − k) choices of rooks, one of them none.
        let expected: usize = (0..8).map(|k| (k + 1) * (8 - k) - 1).sum();
        assert_eq!(RIGHTS.len(), expected);
        for &(king, queen, king_side) in &RIGHTS {
            assert!(queen == NO_FILE || queen < king);
            assert!(king_side == NO_FILE || (king < king_side && king_side < 8));
        }
        let mut sorted = RIGHTS.to_vec();
        sorted.dedup();
        assert_eq!(sorted.len(), RIGHTS.len());
    }

    #[test]
    fn the_index_of_rights_and_the_implied_sets_agree_with_the_table() {
        for (at, &(king, queen, king_side)) in RIGHTS.iter().enumerate() {
            assert_eq!(RIGHTS_INDEX[king as usize][queen as usize][king_side as usize], 4 + at as u8);
        }
        let listed = RIGHTS_INDEX.iter().flatten().flatten().filter(|&&at| at != 0).count();
        assert_eq!(listed, RIGHTS.len());
        for index in 0..CastlingConfig::COUNT as u8 {
            let config = CastlingConfig(index);
            let mut layout = Layout::EMPTY;
            config.imply(Color::White, &mut layout);
            let (rooks, king) = (layout.home_rooks(Color::White).count(), layout.implied_king(Color::White).is_some());
            let expected = match (rooks, king) {
                (rooks, false) => rooks,
                (rooks, true) => 2 + rooks,
            };
            assert_eq!(config.implied_type(), expected, "{index}");
        }
    }

    #[test]
    fn start_ranks_are_the_960_legal_setups() {
        let mut seen = std::collections::HashSet::new();
        for number in 0..960 {
            let rank = start_rank(number).expect("a start position");
            let files = |role| (0..8).filter(move |&f| rank[f] == role);
            let bishops: Vec<usize> = files(Role::Bishop).collect();
            let rooks: Vec<usize> = files(Role::Rook).collect();
            let king = files(Role::King).next().expect("a king");
            assert_eq!(bishops.len(), 2);
            assert_ne!(bishops[0] % 2, bishops[1] % 2, "{number}: bishops on opposite colours");
            assert!(rooks[0] < king && king < rooks[1], "{number}: king between the rooks");
            assert_eq!(files(Role::Knight).count(), 2);
            assert_eq!(files(Role::Queen).count(), 1);
            assert!(seen.insert(rank), "{number} repeats a setup");
        }
        assert_eq!(start_rank(960), None);
        use Role::*;
        assert_eq!(start_rank(518), Some([Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook]));
        // Two more from the published table: 0 is BBQNNRKR, 959 is RKRNNQBB.
        assert_eq!(start_rank(0), Some([Bishop, Bishop, Queen, Knight, Knight, Rook, King, Rook]));
        assert_eq!(start_rank(959), Some([Rook, King, Rook, Knight, Knight, Queen, Bishop, Bishop]));
    }
}

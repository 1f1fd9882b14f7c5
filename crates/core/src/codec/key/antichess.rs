//! Antichess's keys (docs/FORMAT.md, "Antichess's keys"): kings are pieces like any other (none,
//! or several after promotions), no side ever castles, so the standard categories and their
//! tables do not hold its positions. They get an enumerative code of their own, under first
//! bytes 217 to 219, read with the rank as one number:
//!
//! ```text
//! number = (byte − 217) · 2^160 + rank            < 2^161.53 (three first bytes)
//!        = pair_start[white class, black class]   ← classes: pawns, excess, non-pawn defect
//!        + unit · ( M_before_w · ΣM_b             ← White's content inside its class
//!                 + M_w · M_before_b )            ← Black's content inside its class
//!        + pawn_index                             ← White's pawns, then Black's, on 48 squares
//!        + P · ( turn_ep                          ← 9·turn + (0 | 1 + en-passant file)
//!        + 18 · ( white_index                     ← White's pieces, kind by kind, on F squares
//!               + C(F, n_w) · M_w · black_index ))← Black's on the F − n_w left
//! ```
//!
//! with `P = C(48, p_w) · C(48 − p_w, p_b)` the pawn placements, `F = 64 − p_w − p_b`,
//! `unit = P · 18 · C(F, n_w) · C(F − n_w, n_b)`, `M` a content's multinomial (its piece kinds'
//! arrangements), `M_before` the sum of the multinomials before it in its class and `ΣM` its
//! class's sum. A side's content is its counts of kings, queens, rooks, bishops, knights and
//! pawns within the bounds of [`Material::check_antichess`]; a class gathers the contents of
//! equal pawns, excess and non-pawn defect (so equal pieces), and the class pairs the
//! cross-side bound allows follow each other, White's class the more significant. Every
//! material is one contiguous range of keys ([`material_range`]).

use std::{ops::Range, sync::OnceLock};

use rustc_hash::FxHashMap;
use shakmaty::{Bitboard, Board, ByColor, ByRole, Color, Piece, Rank, Role, Square};

use super::{
    Key, KeyBoard, KeyError, KeyRange,
    lichess::LAST_BYTE as LICHESS_LAST_BYTE,
    rank::{FREE_ROLES, Pieces, turn_of, unrank_pawns},
};
use crate::{
    codec::{
        combinatorics::{PAWN_SQUARES, binomial, rank_subset, unrank_subset},
        material::{Material, MaterialError, SideBound},
        tables::{TURN_EP_STATES, U192},
    },
    position::{Category, Position},
};

/// The first byte of Antichess's keys.
pub const FIRST_BYTE: u8 = LICHESS_LAST_BYTE + 1;
/// The last byte of Antichess's keys: its positions number about 2^161.53, three first bytes.
pub const LAST_BYTE: u8 = FIRST_BYTE + 2;

// Below the first bytes the database gives its other records (0xf0 and up).
const _: () = assert!(LAST_BYTE < 0xf0);

/// Most kings or queens a side can have (one, and eight promoted), and of rooks, bishops or
/// knights (two, and eight promoted).
const MAX_ONE: u8 = 9;
const MAX_TWO: u8 = 10;

/// One side's counts of kings, queens, rooks, bishops and knights ([`FREE_ROLES`]' order).
type Counts = [u8; 5];

/// A side's content: its pieces and pawns, in its class.
#[derive(Clone, Copy, Debug)]
struct Content {
    pieces: Counts,
    pawns: u8,
    /// Arrangements of its pieces on chosen squares: the multinomial of `pieces`.
    arrangements: u64,
    /// The arrangements of the contents before it in its class.
    before: u64,
}

/// The contents of equal pawns, excess and non-pawn defect: their pieces number alike.
#[derive(Clone, Debug)]
struct Class {
    pawns: u8,
    pieces: u8,
    bound: SideBound,
    /// Indices into [`Tables::contents`].
    contents: Range<usize>,
    /// The arrangements of all its contents.
    arrangements: u64,
}

/// The class pairs the cross-side bound allows, where their blocks start.
struct Tables {
    contents: Vec<Content>,
    classes: Vec<Class>,
    /// A content's index by its pieces and pawns.
    content_of: FxHashMap<(Counts, u8), usize>,
    /// The allowed pairs (White's class, Black's class) in key order, with their first number.
    pairs: Vec<(U192, u16, u16)>,
    /// Where a pair lies in `pairs`, by `white · classes + black` (`u32::MAX`: not allowed).
    pair_index: Vec<u32>,
    /// Numbers of all positions together.
    total: U192,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(Tables::build)
}

impl Tables {
    fn build() -> Tables {
        // Every content within the one-side bound, grouped by class.
        let mut grouped: std::collections::BTreeMap<(u8, i32, i32), Vec<Counts>> = Default::default();
        for pawns in 0..=8u8 {
            for pieces in every_counts() {
                let bound = SideBound::with_kings(&side_counts(pieces, pawns), true);
                if bound.pawn_defect >= 0 {
                    grouped.entry((pawns, bound.excess, bound.nonpawn_defect)).or_default().push(pieces);
                }
            }
        }
        let (mut contents, mut classes, mut content_of) = (Vec::new(), Vec::new(), FxHashMap::default());
        for ((pawns, _, _), members) in grouped {
            let start = contents.len();
            let mut before = 0u64;
            for pieces in &members {
                let arrangements = multinomial(*pieces);
                content_of.insert((*pieces, pawns), contents.len());
                contents.push(Content { pieces: *pieces, pawns, arrangements, before });
                before += arrangements;
            }
            let pieces = members[0].iter().sum();
            let bound = SideBound::with_kings(&side_counts(members[0], pawns), true);
            classes.push(Class { pawns, pieces, bound, contents: start..contents.len(), arrangements: before });
        }
        let mut pairs = Vec::new();
        let mut pair_index = vec![u32::MAX; classes.len() * classes.len()];
        let mut total = U192::ZERO;
        for (w, white) in classes.iter().enumerate() {
            for (b, black) in classes.iter().enumerate() {
                if white.bound.promotion_need() > black.bound.captures_available()
                    || black.bound.promotion_need() > white.bound.captures_available()
                {
                    continue;
                }
                pair_index[w * classes.len() + b] = pairs.len() as u32;
                pairs.push((total, w as u16, b as u16));
                let frame = PairFrame::new(white, black);
                total += frame.unit * U192::from(white.arrangements) * U192::from(black.arrangements);
            }
        }
        Tables { contents, classes, content_of, pairs, pair_index, total }
    }
}

/// Every side's pieces up to the most of each kind, in ascending order of (kings, queens,
/// rooks, bishops, knights): the order of a class's contents.
fn every_counts() -> impl Iterator<Item = Counts> {
    const MOST: Counts = [MAX_ONE, MAX_ONE, MAX_TWO, MAX_TWO, MAX_TWO];
    let all: usize = MOST.iter().map(|&most| usize::from(most) + 1).product();
    (0..all).map(|mut number| {
        let mut counts = [0; 5];
        for (count, most) in counts.iter_mut().zip(MOST).rev() {
            let radix = usize::from(most) + 1;
            *count = (number % radix) as u8;
            number /= radix;
        }
        counts
    })
}

/// A side's counts of every kind.
fn side_counts(pieces: Counts, pawns: u8) -> ByRole<u8> {
    let [king, queen, rook, bishop, knight] = pieces;
    ByRole { pawn: pawns, knight, bishop, rook, queen, king }
}

/// The arrangements of `pieces` on as many chosen squares.
fn multinomial(pieces: Counts) -> u64 {
    // Placed kind by kind: C(n, k)·C(n − k, q)·…, each factor exact.
    let mut left = u32::from(pieces.iter().sum::<u8>());
    let mut product = 1u64;
    for count in pieces {
        product *= binomial(left, u32::from(count));
        left -= u32::from(count);
    }
    product
}

/// The radices of one class pair's blocks.
#[derive(Clone, Copy)]
struct PairFrame {
    /// Pawn placements `P`.
    pawn_placements: u64,
    /// `C(F, n_w)`: the square sets of White's pieces.
    white_squares: u64,
    /// `P · 18 · C(F, n_w) · C(F − n_w, n_b)`.
    unit: U192,
}

impl PairFrame {
    fn new(white: &Class, black: &Class) -> PairFrame {
        let (pw, pb) = (u32::from(white.pawns), u32::from(black.pawns));
        let free = 64 - pw - pb;
        let pawn_placements = binomial(48, pw) * binomial(48 - pw, pb);
        let white_squares = binomial(free, u32::from(white.pieces));
        let black_squares = binomial(free - u32::from(white.pieces), u32::from(black.pieces));
        let unit = U192::from(pawn_placements)
            * U192::from(TURN_EP_STATES)
            * U192::from(white_squares)
            * U192::from(black_squares);
        PairFrame { pawn_placements, white_squares, unit }
    }
}

/// One material's block: its contents and where its numbers start.
#[derive(Clone, Copy)]
struct Block {
    white: Content,
    black: Content,
    frame: PairFrame,
    start: U192,
}

impl Block {
    /// The block of a material, or why Antichess's key cannot hold it.
    fn of(material: &Material) -> Result<Block, KeyError> {
        material.check_antichess()?;
        let t = tables();
        let content = |color: Color| {
            let side = material.side(color);
            let pieces = [side.king, side.queen, side.rook, side.bishop, side.knight];
            t.content_of
                .get(&(pieces, side.pawn))
                .copied()
                .ok_or(KeyError::Material(MaterialError::OneSide(color, *material)))
        };
        let (w, b) = (content(Color::White)?, content(Color::Black)?);
        let class_of = |content: usize| t.classes.partition_point(|class| class.contents.end <= content);
        let (wc, bc) = (class_of(w), class_of(b));
        let pair = t.pair_index[wc * t.classes.len() + bc];
        let &(pair_start, _, _) =
            t.pairs.get(pair as usize).ok_or(KeyError::Material(MaterialError::CrossSide(*material)))?;
        Ok(Block::in_pair(pair_start, wc, bc, t.contents[w], t.contents[b]))
    }

    fn in_pair(pair_start: U192, white_class: usize, black_class: usize, white: Content, black: Content) -> Block {
        let t = tables();
        let (wc, bc) = (&t.classes[white_class], &t.classes[black_class]);
        let frame = PairFrame::new(wc, bc);
        let start = pair_start
            + frame.unit
                * (U192::from(white.before) * U192::from(bc.arrangements)
                    + U192::from(white.arrangements) * U192::from(black.before));
        Block { white, black, frame, start }
    }

    fn size(&self) -> U192 {
        self.frame.unit * U192::from(self.white.arrangements) * U192::from(self.black.arrangements)
    }

    fn range(&self) -> KeyRange {
        KeyRange { first: key_of(self.start), last: key_of(self.start + self.size() - U192::from(1u8)) }
    }

    /// Placements of White's pieces: the radix of Black's.
    fn white_placements(&self) -> u128 {
        u128::from(self.frame.white_squares) * u128::from(self.white.arrangements)
    }

    fn material(&self) -> Material {
        let side = |content: &Content| side_counts(content.pieces, content.pawns);
        Material(ByColor { white: side(&self.white), black: side(&self.black) })
    }

    fn pawns(&self) -> ByColor<u32> {
        ByColor { white: u32::from(self.white.pawns), black: u32::from(self.black.pawns) }
    }
}

/// The content of `class` whose arrangements hold the `at`-th of the class's.
fn content_at(class: &Class, at: u64) -> Content {
    let contents = &tables().contents[class.contents.clone()];
    let index = contents.partition_point(|content| content.before + content.arrangements <= at);
    contents[index.min(contents.len() - 1)]
}

/// Whether a key lies under Antichess's first bytes.
pub(super) fn is_antichess(key: &Key) -> bool {
    (FIRST_BYTE..=LAST_BYTE).contains(&key.as_bytes()[0])
}

/// The number a key of Antichess's stands for: its first byte's share, then its rank.
fn number_of(key: &Key) -> U192 {
    (U192::from(key.as_bytes()[0].saturating_sub(FIRST_BYTE)) << super::RANK_BITS) + key.rank()
}

/// The key of a number below the tables' total.
fn key_of(number: U192) -> Key {
    let byte = FIRST_BYTE + (number >> super::RANK_BITS).to::<u8>();
    let rank = number & ((U192::from(1u8) << super::RANK_BITS) - U192::from(1u8));
    Key::from_byte_and_rank(byte, rank)
}

/// The block of the last Antichess position a [`KeyEncoder`](super::KeyEncoder) keyed: a
/// game's positions mostly share their material, and finding a block costs table look-ups and
/// wide multiplications.
#[derive(Default)]
pub(super) struct LastBlock(Option<(Material, Block)>);

/// The key of an Antichess position, with the block of the position before it kept in `last`.
pub(super) fn encode(position: &Position, last: &mut LastBlock) -> Result<Key, KeyError> {
    let board = position.board();
    let material = Material(board.material());
    let block = match last.0 {
        Some((kept, block)) if kept == material => block,
        _ => {
            let block = Block::of(&material)?;
            last.0 = Some((material, block));
            block
        }
    };
    let pawns = ByColor::new_with(|color| board.by_piece(Piece { color, role: Role::Pawn }));
    let pawn_index = rank_subset(pawns.white, PAWN_SQUARES)
        + binomial(48, u32::from(block.white.pawns)) * rank_subset(pawns.black, PAWN_SQUARES & !pawns.white);
    let mut holes = !(pawns.white | pawns.black);
    let white_index = place(board, Color::White, &mut holes);
    let black_index = place(board, Color::Black, &mut holes);
    let turn = position.turn();
    let turn_ep = 9 * u64::from(turn == Color::Black) + position.ep_square().map_or(0, |sq| 1 + u64::from(sq.file()));
    let pieces = U192::from(white_index) + U192::from(block.white_placements()) * U192::from(black_index);
    let number = block.start
        + U192::from(pawn_index)
        + U192::from(block.frame.pawn_placements) * (U192::from(turn_ep) + U192::from(TURN_EP_STATES) * pieces);
    Ok(key_of(number))
}

/// Mixed-radix index of one side's pieces placed kind by kind on `holes`; removes their
/// squares from `holes`.
fn place(board: &Board, color: Color, holes: &mut Bitboard) -> u128 {
    let (mut index, mut radix) = (0u128, 1u128);
    for role in FREE_ROLES {
        let squares = board.by_piece(Piece { color, role });
        index += radix * u128::from(rank_subset(squares, *holes));
        radix *= u128::from(binomial(holes.count() as u32, squares.count() as u32));
        *holes &= !squares;
    }
    index
}

/// Inverse of [`place`].
fn unplace(pieces: &mut Pieces, color: Color, counts: Counts, mut index: u128, holes: &mut Bitboard) {
    for (role, count) in FREE_ROLES.into_iter().zip(counts.map(u32::from)) {
        let radix = u128::from(binomial(holes.count() as u32, count));
        let digit = (index % radix) as u64;
        index /= radix;
        let squares = unrank_subset(digit, count, *holes);
        pieces.add(squares, color, role);
        *holes &= !squares;
    }
}

/// The material block of an Antichess key, and the key's number inside it.
fn block_of(key: &Key) -> Result<(Block, U192), KeyError> {
    let t = tables();
    let number = number_of(key);
    if !is_antichess(key) || number >= t.total {
        return Err(KeyError::OutOfRange(key.as_bytes()[0]));
    }
    let pair = t.pairs.partition_point(|(start, _, _)| *start <= number).saturating_sub(1);
    let (pair_start, w, b) = t.pairs[pair];
    let (white_class, black_class) = (&t.classes[usize::from(w)], &t.classes[usize::from(b)]);
    let unit = PairFrame::new(white_class, black_class).unit;
    let offset = number - pair_start;
    let white_stride = unit * U192::from(black_class.arrangements);
    let white = content_at(white_class, (offset / white_stride).to::<u64>());
    let rest = offset - white_stride * U192::from(white.before);
    let black = content_at(black_class, (rest / (unit * U192::from(white.arrangements))).to::<u64>());
    let block = Block::in_pair(pair_start, usize::from(w), usize::from(b), white, black);
    let inside = number - block.start;
    Ok((block, inside))
}

/// A key's number inside its block split into its digits: (pieces, pawn index, turn and
/// en passant).
fn digits(block: &Block, inside: U192) -> (U192, u64, u64) {
    let (high, pawn_index) = inside.div_rem(U192::from(block.frame.pawn_placements));
    let (pieces, turn_ep) = high.div_rem(U192::from(TURN_EP_STATES));
    (pieces, pawn_index.to::<u64>(), turn_ep.to::<u64>())
}

/// The material block of an Antichess key, its pawns and its side to move, without placing
/// its other pieces ([`KeyDecoder::pawns_and_turn`](super::KeyDecoder::pawns_and_turn)).
pub(super) fn pawns_and_turn(key: &Key) -> Result<(KeyRange, ByColor<Bitboard>, Color), KeyError> {
    let (block, inside) = block_of(key)?;
    let (_, pawn_index, turn_ep) = digits(&block, inside);
    Ok((block.range(), unrank_pawns(pawn_index, block.pawns()), turn_of(turn_ep)))
}

/// The board of an Antichess key, without validation ([`Key::decode_board`]).
pub(super) fn board(key: &Key) -> Result<KeyBoard, KeyError> {
    let (block, inside) = block_of(key)?;
    Ok(board_in(&block, inside))
}

/// [`Key::decode_board`] of an Antichess key: `accept` sees the block's material (and
/// [`block_category`]) before the pieces are placed.
pub(super) fn decode_board(
    key: &Key,
    accept: impl FnOnce(Category, &Material) -> bool,
) -> Result<Option<KeyBoard>, KeyError> {
    let (block, inside) = block_of(key)?;
    Ok(accept(block_category(), &block.material()).then(|| board_in(&block, inside)))
}

/// The board of the number `inside` its block.
fn board_in(block: &Block, inside: U192) -> KeyBoard {
    let (pieces, pawn_index, turn_ep) = digits(block, inside);
    let (black_index, white_index) = pieces.div_rem(U192::from(block.white_placements()));
    let pawns = unrank_pawns(pawn_index, block.pawns());
    let mut placed = Pieces::default();
    placed.add(pawns.white, Color::White, Role::Pawn);
    placed.add(pawns.black, Color::Black, Role::Pawn);
    let mut holes = !(pawns.white | pawns.black);
    unplace(&mut placed, Color::White, block.white.pieces, white_index.to::<u128>(), &mut holes);
    unplace(&mut placed, Color::Black, block.black.pieces, black_index.to::<u128>(), &mut holes);
    let turn = turn_of(turn_ep);
    let ep_square = match turn_ep % 9 {
        0 => None,
        file => Some(Square::from_coords(shakmaty::File::new(file as u32 - 1), turn.fold_wb(Rank::Sixth, Rank::Third))),
    };
    let rooks = ByColor::new_with(|color| placed.by_role.rook & *placed.by_color.get(color));
    KeyBoard {
        category: Category::without_rights(rooks),
        castling_rights: Bitboard::EMPTY,
        material: block.material(),
        by_role: placed.by_role,
        by_color: placed.by_color,
        turn,
        ep_square,
    }
}

/// The category a material search and a scan's `accept` see for every Antichess block: no
/// rights, no rook at home (a block holds every placement of its rooks).
pub fn block_category() -> Category {
    Category::without_rights(ByColor::new_with(|_| Bitboard::EMPTY))
}

/// The material block of an Antichess key, and its material.
pub(super) fn material_block(key: &Key) -> Result<(KeyRange, Material), KeyError> {
    let (block, _) = block_of(key)?;
    Ok((block.range(), block.material()))
}

/// The keys of Antichess's positions of `material` (kings counted like any piece).
///
/// ```
/// use tabiya_core::{Key, Material, position::Variant};
/// use tabiya_core::codec::antichess;
///
/// let start = Variant::Antichess.initial();
/// let range = antichess::material_range(&Material::of(&start))?;
/// assert!(range.contains(&Key::encode(&start)?));
/// assert!(antichess::material_range(&"QvRN".parse()?).is_ok());
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn material_range(material: &Material) -> Result<KeyRange, KeyError> {
    Block::of(material).map(|block| block.range())
}

/// All Antichess positions' numbers, for the tests of the bits the key needs.
#[cfg(test)]
pub(super) fn total() -> U192 {
    tables().total
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use shakmaty::{CastlingMode, FromSetup, Position as _, Setup, variant::Antichess};

    use super::*;
    use crate::position::Variant;

    #[test]
    fn the_positions_fill_three_first_bytes() {
        // Counted independently (a short script over the same bounds): every class pair the
        // cross-side bound allows, pawns on 48 squares, 18 turn and en-passant states.
        let design: U192 = "4219031805129851188072412771846233733972849003118".parse().expect("a number");
        assert_eq!(total(), design);
        let byte = U192::from(1u8) << super::super::RANK_BITS;
        assert!(total() > byte * U192::from(2u8) && total() <= byte * U192::from(3u8));
        assert_eq!((FIRST_BYTE, LAST_BYTE), (217, 219));
        assert_eq!(key_of(total() - U192::from(1u8)).as_bytes()[0], LAST_BYTE);
        assert_eq!(tables().classes.len(), 369);
    }

    /// Every number of a small material's block decodes to a position that keys back to it, or
    /// is refused; the positions decoded are exactly those an enumeration of every placement,
    /// side to move and en-passant square that shakmaty's Antichess accepts finds.
    #[test]
    fn small_blocks_hold_exactly_the_positions_an_enumeration_finds() {
        for signature in ["KvK", "PvP", "KPvN", "vKK"] {
            let material: Material = signature.parse().expect("a signature");
            let block = Block::of(&material).expect("a block");
            let mut decoded = HashSet::new();
            let mut number = block.start;
            while number < block.start + block.size() {
                let key = key_of(number);
                if let Ok(position) = key.decode() {
                    assert_eq!(Key::encode(&position), Ok(key), "{position}");
                    assert_eq!(Material::of(&position), material);
                    assert!(decoded.insert(position.to_string()));
                }
                number += U192::from(1u8);
            }
            let expected = enumerate(&material);
            assert_eq!(decoded.len(), expected.len(), "{signature}");
            assert_eq!(decoded, expected, "{signature}");
        }
    }

    /// Every Antichess position of `material` by brute force: each placement of its men, side
    /// to move and en-passant square that shakmaty's Antichess accepts (the square only where a
    /// capture uses it, as positions keep it).
    fn enumerate(material: &Material) -> HashSet<String> {
        let mut men = Vec::new();
        for color in Color::ALL {
            for role in Role::ALL {
                men.extend(std::iter::repeat_n(Piece { color, role }, usize::from(*material.side(color).get(role))));
            }
        }
        let mut boards = vec![Board::empty()];
        for piece in men {
            let mut next = Vec::new();
            for board in &boards {
                for square in Square::ALL.into_iter().filter(|&sq| board.piece_at(sq).is_none()) {
                    let mut placed = board.clone();
                    placed.set_piece_at(square, piece);
                    next.push(placed);
                }
            }
            boards = next;
        }
        let mut found = HashSet::new();
        for board in boards {
            for turn in Color::ALL {
                let eps = std::iter::once(None).chain(Square::ALL.into_iter().map(Some));
                for ep_square in eps {
                    let setup = Setup { board: board.clone(), turn, ep_square, ..Setup::empty() };
                    if let Ok(position) = Antichess::from_setup(setup, CastlingMode::Standard)
                        && position.ep_square(shakmaty::EnPassantMode::Legal) == ep_square
                        && let Ok(ours) = Position::from_setup_in(
                            Variant::Antichess,
                            position.to_setup(shakmaty::EnPassantMode::Legal),
                            "a board",
                        )
                    {
                        found.insert(ours.to_string());
                    }
                }
            }
        }
        found
    }

    #[test]
    fn materials_beyond_the_bounds_have_no_key() {
        for signature in ["KKKPPPPPPPPvN", "QQQQQQQQQQvK"] {
            let material: Material = signature.parse().expect("a signature");
            assert!(material_range(&material).is_err(), "{signature}");
        }
        // Nine kings, no pawns: eight promoted.
        assert!(material_range(&"KKKKKKKKKvKQRRBBNNPPPPPPPP".parse().expect("a signature")).is_err());
        assert!(material_range(&"KKKKKKKKKvK".parse().expect("a signature")).is_ok());
        // A set-up position may break the bounds: it has no key, and says why.
        let kings = Variant::Antichess.parse_fen("KKKKKKKK/KK6/8/8/8/8/8/7k w - - 0 1").expect("legal in Antichess");
        assert!(matches!(Key::encode(&kings), Err(KeyError::Material(_))));
    }
}

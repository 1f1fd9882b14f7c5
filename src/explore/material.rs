//! Material search: the distinct positions with a given material, most frequent first.
//!
//! Keys order positions by (category, material, ...), so every (category, material) pair is
//! one contiguous key range ([`material_range`]): a search is one range scan per pair, never a
//! scan of the database.
//!
//! Signature syntax: White's pieces, `v`, Black's pieces, each side a list of K, Q, R, B, N, P
//! (case-insensitive, any order, one king; in Antichess any number of kings, `K*` too). A letter
//! may be repeated (`PPP`), followed by a count (`P3`), or by `*` for any number of that piece
//! (`P*`: any pawns). `KRP*vKRP*` is every rook ending with pawns.

use serde::Serialize;
use shakmaty::{Bitboard, ByColor, ByRole, Color, File, Position as _, Rank, Role, Square};

use super::{Admission, Filter, PositionHit, QueryError, counting::kept_occurrences};
use crate::{
    Category, Key, Material, Position,
    codec::{KeyRange, antichess, lichess, material_range},
    model::{GameFacts, GameId},
    position::Variant,
    store::{Occurrences, ScanFilter, ScanPart, ScanProgress, Snapshot, Store, StoreError},
};

/// Most concrete materials one signature may expand to (bounded work per query).
pub const MAX_MATERIALS: usize = 4096;
/// Most positions a search returns.
pub const MAX_LIMIT: usize = 10_000;

/// Per piece kind of one side: an exact count, or any count (`None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SidePattern(ByRole<Option<u8>>);

/// A parsed material signature, possibly with wildcards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature(ByColor<SidePattern>);

impl std::str::FromStr for Signature {
    type Err = QueryError;

    fn from_str(text: &str) -> Result<Signature, QueryError> {
        let bad =
            |why: &str| QueryError::input(format!("bad material signature {text:?}: {why} (e.g. KRPPvKR, KRP*vKRP*)"));
        let (white, black) = text.trim().split_once(['v', 'V']).ok_or_else(|| bad("no 'v' between the sides"))?;
        let side = |letters: &str| -> Result<SidePattern, QueryError> {
            let mut counts = ByRole::<Option<u8>>::new_with(|_| Some(0));
            let mut chars = letters.chars().peekable();
            while let Some(ch) = chars.next() {
                let role = Role::from_char(ch.to_ascii_lowercase()).ok_or_else(|| bad("unknown piece letter"))?;
                let slot = counts.get_mut(role);
                match chars.peek() {
                    Some('*') => {
                        chars.next();
                        *slot = None;
                    }
                    Some(d) if d.is_ascii_digit() => {
                        let digit = d.to_digit(10).unwrap_or(0) as u8;
                        chars.next();
                        *slot = slot.map(|n| n + digit);
                    }
                    _ => *slot = slot.map(|n| n + 1),
                }
                if slot.is_some_and(|n| n > 16) {
                    return Err(bad("too many pieces"));
                }
            }
            Ok(SidePattern(counts))
        };
        Ok(Signature(ByColor { white: side(white)?, black: side(black)? }))
    }
}

/// The key ranges of `materials` in every category `keep` admits (categories whose implied
/// rooks a material lacks have no range): what a search restricted to materials scans.
pub(super) fn key_ranges(
    variant: Variant,
    materials: &[Material],
    keep: impl Fn(Category, &Material) -> bool,
) -> Vec<KeyRange> {
    let mut ranges = Vec::new();
    for material in materials {
        // Antichess's material is one block whatever the rooks: asked once, with no rights.
        if variant == Variant::Antichess {
            if keep(antichess::block_category(), material) {
                ranges.extend(antichess::material_range(material));
            }
            continue;
        }
        for category in Category::all().filter(|&category| keep(category, material)) {
            match variant {
                Variant::Standard => ranges.extend(material_range(category, material)),
                // A lichess variant's blocks: the standard ones, under its own first bytes.
                _ => ranges.extend(lichess::material_ranges(variant, category, material).unwrap_or_default()),
            }
        }
    }
    ranges
}

/// Whether a variant's material blocks are key ranges of their own (a Chess960 material is
/// spread over 13,456 categories instead).
fn has_material_ranges(variant: Variant) -> bool {
    variant != Variant::Chess960
}

/// The parts a scan over `variant`'s positions reads: with a standard signature, the key
/// ranges of its materials that `admits`; otherwise the variant's whole space in parts (a
/// Chess960 material is spread over 13,456 categories: the scan's material filter skips the
/// blocks of other materials with a seek each, [`Signature::admits`]).
pub(super) fn scan_parts(
    view: &Snapshot,
    variant: Variant,
    signature: Option<&Signature>,
    admits: impl Fn(&Material) -> bool,
) -> Result<Vec<ScanPart>, QueryError> {
    match signature {
        Some(signature) if has_material_ranges(variant) => {
            let materials: Vec<Material> = signature.materials_in(variant)?.into_iter().filter(|m| admits(m)).collect();
            Ok(ScanPart::of_materials(key_ranges(variant, &materials, |_, _| true)))
        }
        _ => {
            if let Some(signature) = signature {
                signature.check_kings(variant)?;
            }
            Ok(view.scanner().of_variant(variant).parts()?)
        }
    }
}

impl Signature {
    /// Whether `material` is one the signature stands for.
    ///
    /// ```
    /// use tabiya::explore::Signature;
    ///
    /// let rook_endings: Signature = "KRP*vKR".parse()?;
    /// assert!(rook_endings.admits(&"KRPPvKR".parse()?));
    /// assert!(!rook_endings.admits(&"KRvKRP".parse()?));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn admits(&self, material: &Material) -> bool {
        [shakmaty::Color::White, shakmaty::Color::Black].into_iter().all(|color| {
            let (wanted, counts) = (self.0.get(color).0, material.0.get(color));
            wanted.zip(*counts).into_iter().all(|(wanted, count)| wanted.is_none_or(|n| n == count))
        })
    }

    /// Refuses a signature without one king a side, but in Antichess, where kings are pieces
    /// like any other.
    pub fn check_kings(&self, variant: Variant) -> Result<(), QueryError> {
        let one_king = [&self.0.white, &self.0.black].iter().all(|side| side.0.king == Some(1));
        match one_king || variant == Variant::Antichess {
            true => Ok(()),
            false => Err(QueryError::input(
                "bad material signature: each side needs exactly one king (any number in antichess)",
            )),
        }
    }

    /// Every concrete material of standard chess the signature stands for that the key can
    /// express ([`Signature::materials_in`] standard chess).
    pub fn materials(&self) -> Result<Vec<Material>, QueryError> {
        self.materials_in(Variant::Standard)
    }

    /// Every concrete material the signature stands for that `variant`'s key can express: one
    /// king a side, but in Antichess, where kings are pieces like any other.
    ///
    /// ```
    /// use tabiya::{explore::Signature, position::Variant};
    ///
    /// let kings: Signature = "K*vQ".parse()?;
    /// assert_eq!(kings.materials_in(Variant::Antichess)?.len(), 10); // none to nine
    /// assert!(kings.materials_in(Variant::Standard).is_err());
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn materials_in(&self, variant: Variant) -> Result<Vec<Material>, QueryError> {
        self.check_kings(variant)?;
        let kings_are_pieces = variant == Variant::Antichess;
        let check = |material: &Material| match kings_are_pieces {
            true => material.check_antichess(),
            false => material.check(),
        };
        let exact = |side: &SidePattern| side.0.iter().all(|n| n.is_some());
        if exact(&self.0.white) && exact(&self.0.black) {
            let material = Material(ByColor::new_with(|color| self.0.get(color).0.map(|n| n.unwrap_or(0))));
            check(&material).map_err(|err| QueryError::input(err.to_string()))?;
            return Ok(vec![material]);
        }
        let sides = ByColor::new_with(|color| side_counts(self.0.get(color), kings_are_pieces));
        let mut materials = Vec::new();
        for white in &sides.white {
            for black in &sides.black {
                let material = Material(ByColor { white: *white, black: *black });
                if check(&material).is_ok() {
                    materials.push(material);
                    if materials.len() > MAX_MATERIALS {
                        return Err(QueryError::input(format!(
                            "material signature matches more than {MAX_MATERIALS} materials: make it narrower"
                        )));
                    }
                }
            }
        }
        Ok(materials)
    }
}

/// Concrete counts of one side within the one-side bound (promoted pieces + pawns ≤ 8), the
/// king a piece like any other when `kings_are_pieces` (one otherwise).
fn side_counts(pattern: &SidePattern, kings_are_pieces: bool) -> Vec<ByRole<u8>> {
    let range = |role: Role, max: u8| match *pattern.0.get(role) {
        Some(n) => n..=n,
        None => 0..=max,
    };
    let kings = if kings_are_pieces { range(Role::King, 9) } else { 1..=1 };
    let mut out = Vec::new();
    for king in kings {
        for queen in range(Role::Queen, 9) {
            for rook in range(Role::Rook, 10) {
                for bishop in range(Role::Bishop, 10) {
                    for knight in range(Role::Knight, 10) {
                        for pawn in range(Role::Pawn, 8) {
                            let counts = ByRole { pawn, knight, bishop, rook, queen, king };
                            let promoted = [(queen, 1), (rook, 2), (bishop, 2), (knight, 2), (king, 1)]
                                .iter()
                                .map(|&(n, initial): &(u8, u8)| u32::from(n.saturating_sub(initial)))
                                .sum::<u32>();
                            if promoted + u32::from(pawn) <= 8 {
                                out.push(counts);
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// What to search.
#[derive(Clone, Debug)]
pub struct MaterialQuery {
    /// The material, with wildcards.
    pub signature: Signature,
    /// Only positions with this side to move.
    pub side: Option<Color>,
    /// Only positions with exactly these castling rights (as rook squares).
    pub castling: Option<Bitboard>,
    /// Positions listed, at most [`MAX_LIMIT`].
    pub limit: usize,
    /// Which games count: a position is listed with the games the filter keeps, and left out
    /// when it keeps none.
    pub filter: Filter,
    /// The variant whose positions are searched.
    pub variant: Variant,
}

impl MaterialQuery {
    /// Parses a FEN castling field into rook squares: `KQkq` (a king-side or queen-side
    /// rook on its corner, as in standard chess), Shredder-FEN's rook files (`HAha`, `Bg`: a
    /// Chess960 rook on any file), or `-`.
    ///
    /// ```
    /// use shakmaty::Square;
    /// use tabiya::explore::MaterialQuery;
    ///
    /// assert_eq!(MaterialQuery::parse_castling("Kq")?, MaterialQuery::parse_castling("Ha")?);
    /// assert!(MaterialQuery::parse_castling("Bg")?.contains(Square::G8));
    /// assert!(MaterialQuery::parse_castling("-")?.is_empty());
    /// assert!(MaterialQuery::parse_castling("KK").is_err());
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse_castling(text: &str) -> Result<Bitboard, QueryError> {
        let bad = || QueryError::input(format!("bad castling rights {text:?}: expected e.g. KQkq, HAha or -"));
        let text = text.trim();
        let mut rights = Bitboard::EMPTY;
        if text == "-" {
            return Ok(rights);
        }
        for ch in text.chars() {
            let square = match ch {
                'K' => Square::H1,
                'Q' => Square::A1,
                'k' => Square::H8,
                'q' => Square::A8,
                'A'..='H' => {
                    Square::from_coords(File::from_char(ch.to_ascii_lowercase()).ok_or_else(bad)?, Rank::First)
                }
                'a'..='h' => Square::from_coords(File::from_char(ch).ok_or_else(bad)?, Rank::Eighth),
                _ => return Err(bad()),
            };
            if rights.contains(square) || (rights & Bitboard::from_rank(square.rank())).count() == 2 {
                return Err(bad());
            }
            rights.add(square);
        }
        if text.is_empty() {
            return Err(bad());
        }
        Ok(rights)
    }
}

/// A search's answer.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MaterialSearch {
    /// Distinct positions found (before the limit).
    pub positions: u64,
    /// Games summed over them (a game reaching several of them counts for each).
    pub occurrences: u64,
    /// Concrete materials the signature expanded to, and key ranges scanned.
    pub materials: usize,
    /// Key ranges scanned.
    pub ranges: usize,
    /// Most frequent first, at most the limit.
    pub hits: Vec<PositionHit>,
}

impl MaterialQuery {
    /// The positions, most frequent first.
    pub fn run(&self, store: &Store) -> Result<MaterialSearch, QueryError> {
        let materials = self.signature.materials_in(self.variant)?;
        // Short (the key ranges of one material): it does not give way to a waiting catch-up.
        let view = store.snapshot();
        let parts = match has_material_ranges(self.variant) {
            true => ScanPart::of_materials(key_ranges(self.variant, &materials, |category, _| {
                self.castling.is_none_or(|rights| rights == category.castling_rights())
            })),
            false => view.scanner().of_variant(self.variant).parts()?,
        };
        let admission = Admission::resolve(&view, &self.filter)?;
        let keep = |game: &GameFacts| admission.admits(game);
        let keep: Option<&(dyn Fn(&GameFacts) -> bool + Sync)> = match admission.is_everything() {
            true => None,
            false => Some(&keep),
        };
        let mut found: Vec<(Key, Occurrences)> = admission.checked(self.positions_in(&view, &parts, keep)?)?;
        if let Some(side) = self.side {
            found.retain(|(key, _)| key.decode().is_ok_and(|p| p.turn() == side));
        }
        let ranges = parts.iter().filter(|part| matches!(part, ScanPart::Family(_))).count();
        found.sort_by(|a, b| b.1.games.cmp(&a.1.games).then_with(|| a.0.cmp(&b.0)));
        let occurrences = found.iter().map(|(_, seen)| seen.games).sum();
        let hits = found
            .iter()
            .take(self.limit.min(MAX_LIMIT))
            .map(|(key, seen)| PositionHit::of(&view, key, [seen.games, seen.white, seen.draws, seen.black]))
            .collect::<Result<_, _>>()?;
        Ok(MaterialSearch { positions: found.len() as u64, occurrences, materials: materials.len(), ranges, hits })
    }

    /// Every stored position of `parts` with the signature's material (and castling rights)
    /// with its result counts, in key order (what a material search lists: a value's moves are
    /// not decoded). With `keep`, only the games it keeps count (a position none of them
    /// reaches is left out): the games of a position several games reach are read from its
    /// posting list.
    fn positions_in(
        &self,
        view: &Snapshot,
        parts: &[ScanPart],
        keep: Option<&(dyn Fn(&GameFacts) -> bool + Sync)>,
    ) -> Result<Vec<(Key, Occurrences)>, StoreError> {
        // A one-game value's result is its game's.
        let facts = view.facts().table()?;
        // A game without facts is replayed, to be refused as corrupt when visited.
        let game = |id: GameId| keep.is_none_or(|keep| facts.get(id).is_none_or(|g| keep(&g)));
        // A search by material ranges holds the castling rights asked for; Chess960's space is
        // scanned whole, its rights read on each board.
        let castling = self.castling.filter(|_| !has_material_ranges(self.variant));
        let board = |position: &Position, _: GameId| {
            let chess = position.shakmaty();
            self.signature.admits(&Material(chess.board().material()))
                && castling.is_none_or(|rights| rights == chess.castles().castling_rights())
        };
        let filter = ScanFilter { material: |material: &Material| self.signature.admits(material), board, game };
        let found: Vec<(Key, Occurrences)> = view.scanner().of_variant(self.variant).run(
            parts,
            &filter,
            &ScanProgress::default(),
            |found: &mut Vec<(Key, Occurrences)>, mut position| {
                if let Some(rights) = castling
                    && !position.board_tested
                    && position.board()?.castling_rights != rights
                {
                    return Ok(());
                }
                let seen = match keep {
                    None => position.results(&facts)?,
                    Some(keep) => kept_occurrences(&position, &facts, keep, |_| ())?,
                };
                if seen.games > 0 {
                    found.push((position.key, seen));
                }
                Ok::<_, StoreError>(())
            },
            |mut a, b| {
                a.extend(b);
                a
            },
        )?;
        // A game whose facts could not be read was let through.
        let mut found = facts.checked(found)?;
        found.sort_unstable_by_key(|a| a.0);
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_expand() {
        let exact: Signature = "KRPPvKR".parse().expect("signature");
        assert_eq!(exact.materials().expect("materials").len(), 1);
        let any_pawns: Signature = "KRP*vKR".parse().expect("signature");
        assert_eq!(any_pawns.materials().expect("materials").len(), 9);
        let counted: Signature = "KP3vKp2".parse().expect("signature");
        assert_eq!(counted.materials().expect("materials")[0].to_string(), "KPPPvKPP");
        // One king a side but in Antichess, where kings are pieces like any other.
        let kingless: Signature = "KRvR".parse().expect("syntax");
        assert!(kingless.materials().is_err());
        assert_eq!(kingless.materials_in(Variant::Antichess).expect("materials")[0].to_string(), "KRvR");
        let any_kings: Signature = "K*RvK*R".parse().expect("syntax");
        assert_eq!(any_kings.materials_in(Variant::Antichess).expect("materials").len(), 100);
        assert!(any_kings.materials_in(Variant::Atomic).is_err());
        assert!(kingless.check_kings(Variant::Chess960).is_err() && kingless.check_kings(Variant::Antichess).is_ok());
        assert!("KR".parse::<Signature>().is_err());
        assert!("KXvK".parse::<Signature>().is_err());
        assert!("KQ*R*B*N*P*vKQ*R*B*N*P*".parse::<Signature>().expect("syntax").materials().is_err());
        assert_eq!(MaterialQuery::parse_castling("Kq").expect("rights").count(), 2);
        assert!(MaterialQuery::parse_castling("X").is_err());
    }
}

//! The endgame frequency table without replaying a game: keys order positions by (category,
//! material), so one cursor visits every (category, material) block once, reads the blocks of
//! few men entry by entry and seeks past the others; each class's games are the union of its
//! positions' posting lists.

use std::collections::BTreeMap;

use crate::{
    Material, Position,
    codec::KeyRange,
    explore::QueryError,
    model::GameId,
    position::Variant,
    store::{ScanFilter, ScanPart, ScanProgress, ScannedPosition, Snapshot, StoreError},
};

/// Positions with at most this many men (kings included) are endgames here: the sizes
/// endgame tablebases cover.
pub const MAX_MEN: usize = 7;

/// One class's positions and games.
#[derive(Default)]
pub struct ClassGames {
    /// Men on the board, kings included.
    pub men: usize,
    /// Distinct positions.
    pub positions: u64,
    /// Games reaching them: ascending and once each from [`classes`] (repeated while a scan
    /// collects them).
    pub games: Vec<GameId>,
}

/// Shipped with its games as gaps between ascending ids (a byte or two each, where an id takes
/// up to five): a class of a large database lists millions of games.
impl bincode::Encode for ClassGames {
    fn encode<E: bincode::enc::Encoder>(&self, encoder: &mut E) -> Result<(), bincode::error::EncodeError> {
        let gaps: Vec<u64> =
            self.games.iter().scan(0, |last, id| Some(id.0.wrapping_sub(std::mem::replace(last, id.0)))).collect();
        (self.men as u64, self.positions, gaps).encode(encoder)
    }
}

/// Refuses games that are not ascending and once each: not what [`ClassGames`] ships.
impl<Context> bincode::Decode<Context> for ClassGames {
    fn decode<D: bincode::de::Decoder<Context = Context>>(
        decoder: &mut D,
    ) -> Result<Self, bincode::error::DecodeError> {
        let (men, positions, gaps): (u64, u64, Vec<u64>) = bincode::Decode::decode(decoder)?;
        let not_shipped = |what| bincode::error::DecodeError::Other(what);
        let mut id = 0u64;
        let mut games = Vec::with_capacity(gaps.len());
        for (at, gap) in gaps.into_iter().enumerate() {
            if at > 0 && gap == 0 {
                return Err(not_shipped("a class's games not ascending"));
            }
            id = id.checked_add(gap).ok_or(not_shipped("a class's game id beyond 64 bits"))?;
            games.push(GameId(id));
        }
        let men = usize::try_from(men).map_err(|_| not_shipped("a class's men"))?;
        Ok(ClassGames { men, positions, games })
    }
}

bincode::impl_borrow_decode!(ClassGames);

/// The class of a material: its signature with the stronger side first (by the usual piece
/// values, then by the signature's text), so that `KRvKRP` and `KRPvKR` are one class.
pub fn class_of(material: &Material) -> String {
    let mirrored = Material(shakmaty::ByColor { white: material.0.black, black: material.0.white });
    let value = |m: &Material, color: shakmaty::Color| -> u32 {
        let side = m.0.get(color);
        u32::from(side.queen) * 9
            + u32::from(side.rook) * 5
            + u32::from(side.bishop + side.knight) * 3
            + u32::from(side.pawn)
    };
    let (a, b) = (material.to_string(), mirrored.to_string());
    let white = value(material, shakmaty::Color::White);
    let black = value(material, shakmaty::Color::Black);
    if white > black || (white == black && a >= b) { a } else { b }
}

/// The endgame classes of the scan's `parts` (some of
/// [`Scanner::parts`](crate::store::read::Scanner::parts)) with their positions and games (ids
/// ascending, once), read from `view`.
pub fn classes(
    view: &Snapshot,
    parts: &[ScanPart],
    variant: Variant,
) -> Result<BTreeMap<String, ClassGames>, QueryError> {
    // Only endgames are classed: blocks of more men are skipped, tier positions not keyed.
    let filter = ScanFilter {
        material: |material: &Material| material.men() as usize <= MAX_MEN,
        board: |position: &Position, _| position.board().occupied().count() <= MAX_MEN,
        game: |_| true,
    };
    let scanner = view.scanner().of_variant(variant);
    let scanned = scanner.run(parts, &filter, &ScanProgress::default(), Classes::add, Classes::merge)?;
    let mut merged = scanned.found;
    for part in merged.values_mut() {
        part.games.sort_unstable();
        part.games.dedup();
    }
    Ok(merged)
}

/// The classes one part of a scan found.
#[derive(Default)]
struct Classes {
    found: BTreeMap<String, ClassGames>,
    /// The block being read (positions come in key order): its key range and class.
    block: Option<(KeyRange, String)>,
}

impl Classes {
    fn add(&mut self, position: ScannedPosition) -> Result<(), StoreError> {
        let key = position.key;
        if !self.block.as_ref().is_some_and(|(range, _)| range.contains(&key)) {
            let (range, material) = position.block()?;
            let class = class_of(&material);
            self.found.entry(class.clone()).or_default().men = material.men() as usize;
            self.block = Some((range, class));
        }
        let Some(entry) = self.block.as_ref().and_then(|(_, class)| self.found.get_mut(class)) else {
            return Ok(());
        };
        entry.positions += 1;
        match position.single_game() {
            Some(game) => entry.games.push(game),
            None => entry.games.extend(position.games()?.iter()),
        }
        Ok(())
    }

    fn merge(mut self, other: Classes) -> Classes {
        for (class, part) in other.found {
            let entry = self.found.entry(class).or_default();
            entry.men = part.men;
            entry.positions += part.positions;
            entry.games.extend(part.games);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_put_the_stronger_side_first() {
        let class = |text: &str| class_of(&text.parse::<Material>().expect("material"));
        assert_eq!(class("KRvKRP"), "KRPvKR");
        assert_eq!(class("KRPvKR"), "KRPvKR");
        assert_eq!(class("KBvKN"), class("KNvKB"));
        assert_eq!(class("KvKQ"), "KQvK");
        assert_eq!("KRPvKR".parse::<Material>().expect("material").men(), 5);
    }
}

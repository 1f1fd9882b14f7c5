//! The endgame frequency table without replaying a game: keys order positions by (category,
//! material), so one cursor visits every (category, material) block once, reads the blocks of
//! few men entry by entry and seeks past the others; each class's games are the union of its
//! positions' posting lists.

use std::collections::BTreeMap;

use crate::{
    Material,
    codec::KeyRange,
    explore::QueryError,
    model::GameId,
    store::{ScanFilter, ScanPart, ScanProgress, ScannedPosition, Snapshot, StoreError},
};

/// Positions with at most this many men (kings included) are endgames here: the sizes
/// endgame tablebases cover.
pub const MAX_MEN: usize = 7;

/// One class's positions and games.
#[derive(Default, bincode::Encode, bincode::Decode)]
pub struct ClassGames {
    /// Men on the board, kings included.
    pub men: usize,
    /// Distinct positions.
    pub positions: u64,
    /// Games reaching them: ascending and once each from [`classes`] (repeated while a scan
    /// collects them).
    pub games: Vec<GameId>,
}

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
pub fn classes(view: &Snapshot, parts: &[ScanPart]) -> Result<BTreeMap<String, ClassGames>, QueryError> {
    // Only endgames are classed: blocks of more men are skipped, tier positions not keyed.
    let filter = ScanFilter {
        material: |material: &Material| material.men() as usize <= MAX_MEN,
        board: |chess: &shakmaty::Chess, _| shakmaty::Position::board(chess).occupied().count() <= MAX_MEN,
        game: |_| true,
    };
    let scanned = view.scanner().run(parts, &filter, &ScanProgress::default(), Classes::add, Classes::merge)?;
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

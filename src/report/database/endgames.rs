//! The endgame frequency table without replaying a game: keys order positions by (category,
//! material), so one cursor visits every (category, material) block once, reads the blocks of
//! few men entry by entry and seeks past the others; each class's games are the union of its
//! positions' posting lists.

use std::collections::BTreeMap;

use rayon::prelude::*;

use crate::{
    Key, Material,
    codec::material_range,
    explore::QueryError,
    model::GameId,
    store::{ScanPart, Store, layout},
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

/// Every endgame class in the database with its positions and games (ids ascending, once).
/// The caller holds [`Store::steady`].
pub fn classes(store: &Store) -> Result<BTreeMap<String, ClassGames>, QueryError> {
    let parts = store.scan_parts()?;
    let partials: Vec<BTreeMap<String, ClassGames>> =
        parts.par_iter().map(|part| scan(store, part)).collect::<Result<_, _>>()?;
    let mut merged: BTreeMap<String, ClassGames> = BTreeMap::new();
    for partial in partials {
        for (class, part) in partial {
            let entry = merged.entry(class).or_default();
            entry.men = part.men;
            entry.positions += part.positions;
            entry.games.extend(part.games);
        }
    }
    for part in merged.values_mut() {
        part.games.sort_unstable();
        part.games.dedup();
    }
    Ok(merged)
}

fn scan(store: &Store, part: &ScanPart) -> Result<BTreeMap<String, ClassGames>, QueryError> {
    let mut found: BTreeMap<String, ClassGames> = BTreeMap::new();
    // Only endgames are classed: the tier's other positions are not keyed.
    let few_men = |chess: &shakmaty::Chess| shakmaty::Position::board(chess).occupied().count() <= MAX_MEN;
    let mut cursor = store.part_cursor_where(part, &few_men)?;
    // The block being read: its last key and its class.
    let mut block: Option<(Key, String)> = None;
    while let Some((key, value)) = cursor.entry() {
        let key = Key::try_from(key).map_err(|_| store.corrupt("position key"))?;
        let corrupt = || store.corrupt(format!("position {key}"));
        if block.as_ref().is_some_and(|(last, _)| key > *last) {
            block = None;
        }
        if block.is_none() {
            let (category, material) = key.category_and_material().map_err(|_| corrupt())?;
            let range = material_range(category, &material).map_err(|_| corrupt())?;
            if material.men() as usize > MAX_MEN {
                cursor.seek(&range.after_last());
                continue;
            }
            let class = class_of(&material);
            found.entry(class.clone()).or_default().men = material.men() as usize;
            block = Some((range.last, class));
        }
        let Some(entry) = block.as_ref().and_then(|(_, class)| found.get_mut(class)) else { continue };
        entry.positions += 1;
        match layout::stored_game(value) {
            Some(game) => entry.games.push(game.ok_or_else(corrupt)?.0),
            None => entry.games.extend(layout::postings(value).ok_or_else(corrupt)?.iter()),
        }
        cursor.next();
    }
    cursor.status()?;
    Ok(found)
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

//! [`Leading`]: the first games of a position in an order (best rated, most recent), kept while
//! its games are met one by one, however many there are.

use super::GameRef;

/// The first `limit` games in an order, kept while games are offered one by one: a max-heap of
/// the kept ones by order, so that most offers cost one comparison with its last.
pub(super) struct Leading<K: Ord> {
    limit: usize,
    order: fn(&GameRef) -> K,
    kept: std::collections::BinaryHeap<Ranked<K>>,
}

/// A game with its place in an order (keys are unique: they end with the id).
struct Ranked<K>(K, GameRef);

impl<K: Ord> PartialEq for Ranked<K> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<K: Ord> Eq for Ranked<K> {}

impl<K: Ord> PartialOrd for Ranked<K> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<K: Ord> Ord for Ranked<K> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }
}

impl<K: Ord> Leading<K> {
    pub(super) fn new(limit: usize, order: fn(&GameRef) -> K) -> Leading<K> {
        Leading { limit, order, kept: std::collections::BinaryHeap::with_capacity(limit + 1) }
    }

    /// Offers `game`; whether it is kept (for now).
    pub(super) fn offer(&mut self, game: GameRef) -> bool {
        let key = (self.order)(&game);
        if self.kept.len() < self.limit {
            self.kept.push(Ranked(key, game));
        } else if self.kept.peek().is_some_and(|last| key < last.0) {
            self.kept.pop();
            self.kept.push(Ranked(key, game));
        } else {
            return false;
        }
        true
    }

    /// Offers `games`, which are in this order already: they stop at the first one refused
    /// (none after it can be kept).
    pub(super) fn offer_ordered(&mut self, games: &[GameRef]) {
        for &game in games {
            if !self.offer(game) {
                break;
            }
        }
    }

    pub(super) fn into_sorted(self) -> Vec<GameRef> {
        self.kept.into_sorted_vec().into_iter().map(|Ranked(_, game)| game).collect()
    }
}

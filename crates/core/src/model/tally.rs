//! Counting games: a [`Tally`] of results and ratings, and a [`GameRef`], a game with what
//! ranks it among a position's games.

use std::cmp::Reverse;

use shakmaty::Color;

use super::{GameFacts, GameId, GameResult};

/// Game counts by result, with rating sums per colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct Tally {
    /// Games counted.
    pub games: u64,
    /// Of those, White won.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Black won.
    pub black: u64,
    /// Sum of White's ratings over the games where White was rated.
    pub white_rating_sum: u64,
    /// Games where White was rated.
    pub white_rated: u64,
    /// Sum of Black's ratings over the games where Black was rated.
    pub black_rating_sum: u64,
    /// Games where Black was rated.
    pub black_rated: u64,
}

impl Tally {
    /// One game's contribution.
    #[inline]
    pub fn game(result: GameResult, [white, black]: [Option<u16>; 2]) -> Tally {
        Tally {
            games: 1,
            white: u64::from(result == GameResult::WhiteWins),
            draws: u64::from(result == GameResult::Draw),
            black: u64::from(result == GameResult::BlackWins),
            white_rating_sum: white.map_or(0, u64::from),
            white_rated: u64::from(white.is_some()),
            black_rating_sum: black.map_or(0, u64::from),
            black_rated: u64::from(black.is_some()),
        }
    }

    /// The result of a one-game tally; `None` when it counts another number of games or is
    /// not one game's.
    pub fn single_result(&self) -> Option<GameResult> {
        match (self.games, self.white, self.draws, self.black) {
            (1, 1, 0, 0) => Some(GameResult::WhiteWins),
            (1, 0, 1, 0) => Some(GameResult::Draw),
            (1, 0, 0, 1) => Some(GameResult::BlackWins),
            (1, 0, 0, 0) => Some(GameResult::Unknown),
            _ => None,
        }
    }

    /// Adds `other`'s games.
    #[inline]
    pub fn add(&mut self, other: &Tally) {
        self.games += other.games;
        self.white += other.white;
        self.draws += other.draws;
        self.black += other.black;
        self.white_rating_sum += other.white_rating_sum;
        self.white_rated += other.white_rated;
        self.black_rating_sum += other.black_rating_sum;
        self.black_rated += other.black_rated;
    }

    /// Average player rating, when any player was rated.
    pub fn average_rating(&self) -> Option<u64> {
        average(self.white_rating_sum + self.black_rating_sum, self.white_rated + self.black_rated)
    }

    /// Average rating of `color`'s players.
    pub fn average_rating_of(&self, color: Color) -> Option<u64> {
        match color {
            Color::White => average(self.white_rating_sum, self.white_rated),
            Color::Black => average(self.black_rating_sum, self.black_rated),
        }
    }

    /// The performance rating of `mover` (the side to move, who chose the move): the average
    /// rating of its opponents plus 400 × log10(p / (1 − p)) for its score p, capped at ±800
    /// (so a 100 % score is opponents + 800), as Scid's tree computes it. The score is over the
    /// games with a result (an unfinished or unknown game is no loss); `None` without one.
    pub fn performance(&self, mover: Color) -> Option<i64> {
        let opponents = self.average_rating_of(!mover)? as f64;
        let decided = self.white + self.draws + self.black;
        if decided == 0 {
            return None;
        }
        let wins = match mover {
            Color::White => self.white,
            Color::Black => self.black,
        };
        let score = (wins as f64 + 0.5 * self.draws as f64) / decided as f64;
        let delta = if score <= 0.0 {
            -800.0
        } else if score >= 1.0 {
            800.0
        } else {
            (400.0 * (score / (1.0 - score)).log10()).clamp(-800.0, 800.0)
        };
        Some((opponents + delta).round() as i64)
    }
}

fn average(sum: u64, count: u64) -> Option<u64> {
    (count > 0).then(|| (sum + count / 2) / count)
}

/// A game reaching a position, with what ranks it among the position's games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRef {
    /// The game.
    pub id: GameId,
    /// Average rating of its players; 0 when unrated.
    pub rating: u16,
    /// The [`Month`](super::Month) code.
    pub month: u16,
}

impl GameRef {
    /// The reference of a game with these facts.
    pub fn of(facts: &GameFacts) -> GameRef {
        GameRef { id: facts.id, rating: facts.average_rating().unwrap_or(0), month: facts.month.0 }
    }

    /// Best rated first (then newest id): the order of top games.
    pub fn by_rating(&self) -> (Reverse<u16>, Reverse<GameId>) {
        (Reverse(self.rating), Reverse(self.id))
    }

    /// Latest month first (then newest id): the order of recent games.
    pub fn by_recency(&self) -> (Reverse<u16>, Reverse<GameId>) {
        (Reverse(self.month), Reverse(self.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn performance_follows_the_score() {
        let mut tally = Tally::default();
        for (result, black) in [(GameResult::WhiteWins, 2400), (GameResult::Draw, 2600)] {
            tally.add(&Tally::game(result, [Some(2500), Some(black)]));
        }
        // White scored 75 % against 2500 on average: 2500 + 400·log10(3) = 2691.
        assert_eq!(tally.performance(Color::White), Some(2691));
        assert_eq!(tally.performance(Color::Black), Some(2500 - 191));
        let won = Tally::game(GameResult::WhiteWins, [None, Some(2000)]);
        assert_eq!(won.performance(Color::White), Some(2800));
        assert_eq!(won.performance(Color::Black), None);
        // A game without a result counts for neither side.
        tally.add(&Tally::game(GameResult::Unknown, [Some(2500), Some(2500)]));
        assert_eq!(tally.performance(Color::White), Some(2691));
        assert_eq!(Tally::game(GameResult::Unknown, [Some(2500), Some(2500)]).performance(Color::White), None);
    }

    #[test]
    fn one_game_tallies_tell_their_result() {
        for result in [GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins, GameResult::Unknown] {
            assert_eq!(Tally::game(result, [None, None]).single_result(), Some(result));
        }
        let mut two = Tally::game(GameResult::Draw, [None, None]);
        two.add(&Tally::game(GameResult::Draw, [None, None]));
        assert_eq!(two.single_result(), None);
    }
}

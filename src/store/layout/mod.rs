//! Every byte tabiya stores, in one place: the keys and values of each column family, the
//! single-game tier's records and the staging area's sorted runs. docs/FORMAT.md describes them
//! for readers (see [`crate::format`]); this is the code that writes and reads them, and nothing
//! outside it takes stored bytes apart.
//!
//! - [`value`]: a position's value, typed ([`StoredValue`]);
//! - [`facts`]: a game's facts in eight bytes;
//! - [`headers`]: a game's header facts in twelve bytes, and the labels family's keys;
//! - [`keys`]: the keys of every family and record kind;
//! - [`notes`]: what annotated games say of a position (its notes' sums and entries);
//! - [`tier`]: the single-game tier's values (a game's marks, a tier map's header);
//! - [`run`]: a staged occurrence record;
//! - here: the bincode records (a game's tags and its mainline, the totals, the ingest runs)
//!   and the opening table's values.

pub mod facts;
pub mod headers;
pub mod keys;
pub mod notes;
pub mod run;
pub mod tier;
pub mod value;

pub use facts::{FACTS_LEN, RESULTS, decode_facts, encode_facts, result_code, unpack_facts};
pub use headers::{HEADERS_LEN, decode_headers, encode_headers, unpack_headers};
pub use value::{DERIVED_TOP_UP_TO, Detail, FactsNeeded, Occurrences, StoredValue, encode_general, encode_new};

use crate::model::{GameRecord, GameResult, Mainline, Tags};

/// Most bytes a bincode record may claim: a corrupt length prefix must not ask for more memory
/// than any record holds.
const RECORD_LIMIT: usize = 1 << 20;

/// Encodes a stored record (game tags, mainline, totals, run) with bincode's standard
/// configuration.
pub fn encode_record<T: bincode::Encode>(value: &T) -> Vec<u8> {
    // Encoding owned values into a Vec cannot fail.
    bincode::encode_to_vec(value, bincode::config::standard()).unwrap_or_default()
}

/// Decodes a stored record; `None` unless the bytes are exactly one valid value.
pub fn decode_record<T: bincode::Decode<()>>(bytes: &[u8]) -> Option<T> {
    let config = bincode::config::standard().with_limit::<RECORD_LIMIT>();
    let (value, used) = bincode::decode_from_slice(bytes, config).ok()?;
    (used == bytes.len()).then_some(value)
}

/// The games family's value of a game: its tags and result (its [`Mainline`] is stored apart,
/// in the mainlines family, with [`encode_record`]).
pub fn encode_game_head(record: &GameRecord) -> Vec<u8> {
    encode_record(&(&record.tags, &record.result))
}

/// A game's values in the games family (its tags and result) and in the mainlines family (its
/// start and mainline): what a writer stores for it.
pub fn game_values(record: &GameRecord) -> (Vec<u8>, Vec<u8>) {
    (encode_game_head(record), encode_record(record.line()))
}

/// A game from its games-family and mainlines-family values; `None` unless both are valid.
pub fn decode_game_record(head: &[u8], line: &[u8]) -> Option<GameRecord> {
    let (tags, result) = decode_record::<(Tags, GameResult)>(head)?;
    Some(GameRecord::from_parts(tags, result, decode_record::<Mainline>(line)?))
}

/// The openings family's value of a position: its ECO code and name.
pub fn encode_opening(eco: &str, name: &str) -> String {
    format!("{eco}\t{name}")
}

/// An openings-family value's ECO code and name; `None` without the tab between them.
pub fn decode_opening(bytes: &[u8]) -> Option<(String, String)> {
    let text = String::from_utf8_lossy(bytes);
    let (eco, name) = text.split_once('\t')?;
    Some((eco.to_owned(), name.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_records_round_trip_and_corrupt_bytes_are_refused() {
        let start: crate::Position = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1".parse().expect("a position");
        let start = start.as_chess().cloned().expect("a standard position");
        let mut chess = start.clone();
        let mut moves = Vec::new();
        for uci in ["a7a8q", "e8d7"] {
            let m = uci.parse::<shakmaty::uci::UciMove>().expect("uci").to_move(&chess).expect("legal");
            shakmaty::Position::play_unchecked(&mut chess, m);
            moves.push(m);
        }
        let tags = crate::model::Tags { white: "A".to_owned(), white_elo: Some(2700), ..Default::default() };
        let fen = Some("4k3/P7/8/8/8/8/8/4K3 w - - 0 1".to_owned());
        let record = GameRecord::new(tags, GameResult::WhiteWins, fen, crate::codec::mainline::encode(&start, &moves));
        let (head, line) = (encode_game_head(&record), encode_record(record.line()));
        assert_eq!(decode_game_record(&head, &line), Some(record.clone()));
        assert_eq!(decode_record::<Mainline>(&line).as_ref(), Some(record.line()));
        assert_eq!(crate::model::replay(&record).map(|p| p.len()), Some(3));
        assert_eq!(record.tags.white_elo, Some(2700));
        // Truncations, a trailing byte and a huge length prefix, in either part, never panic.
        for cut in 0..head.len() {
            assert_eq!(decode_game_record(&head[..cut], &line), None);
        }
        for cut in 0..line.len() {
            assert_eq!(decode_game_record(&head, &line[..cut]), None);
        }
        assert_eq!(decode_game_record(&[head.as_slice(), &[0]].concat(), &line), None);
        assert_eq!(decode_game_record(&head, &[line.as_slice(), &[0]].concat()), None);
        let huge = [0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
        assert_eq!(decode_game_record(&huge, &line), None);
        assert_eq!(decode_game_record(&head, &huge), None);
        // The parts are not interchangeable.
        assert_eq!(decode_game_record(&line, &head), None);
    }
}

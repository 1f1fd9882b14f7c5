//! Twins across a distributed build's batches, for a build that skips them as
//! `tabiya ingest --skip-twins` does: each batch's kept games become candidates
//! ([`PreparedBatch::twin_candidates`], with whether a game the database stores is a twin),
//! shuffled into parts ([`twin_parts`]) so that games that may be twins or copies of each other
//! meet; each part then decides its games in input order, as one machine's ingest does
//! ([`skipped_twins`]). The shuffle takes over the one of fingerprints
//! ([`later_twins`](super::later_twins)): whether a copy is a duplicate or a twin depends on
//! what became of the games before it.

use bincode::{Decode, Encode};
use rustc_hash::{FxHashMap, FxHashSet};

use super::PreparedBatch;
use crate::{
    codec::{KEY_LEN, Key},
    model::{
        GameRecord, GameResult, Mainline, Tags,
        twins::{KEY_PLIES, TwinKey, are_twins},
    },
    store::StoreError,
};

/// What the shuffle carries of a game: where it is in the input, what says it is a copy
/// (its fingerprint) or a twin (its twin key, the players, date and moves), and whether a
/// stored game is its twin.
#[derive(Encode, Decode)]
struct Candidate {
    /// Its batch's place in input order ([`twin_parts`] sets it).
    order: u64,
    /// Its place in its batch as read.
    read: u32,
    /// Its number in the batch (the order of its ids: what [`BatchIds`](super::BatchIds) drops).
    number: u32,
    fingerprint: [u8; 16],
    twin: u32,
    /// Whether the database the build goes into stores a twin of it.
    stored_twin: bool,
    /// White, Black and Date: what [`are_twins`] reads of the tags.
    white: String,
    black: String,
    date: String,
    result: GameResult,
    line: Mainline,
}

impl Candidate {
    fn record(&self) -> GameRecord {
        let tags =
            Tags { white: self.white.clone(), black: self.black.clone(), date: self.date.clone(), ..Tags::default() };
        GameRecord::from_parts(tags, self.result, self.line.clone())
    }

    /// The part it goes to: a hash of its date and first [`KEY_PLIES`] plies, which twins share
    /// ([`are_twins`] asks the same date, and the same moves or a prefix of at least that many
    /// plies) and so do copies, whose twin keys may differ (a `FEN` tag written with other move
    /// counters is the same game, and another twin key).
    fn part(&self, record: &GameRecord, parts: usize) -> usize {
        let mut bytes = self.date.trim().as_bytes().to_vec();
        bytes.push(0);
        for m in record.moves().take(KEY_PLIES).map_while(|m| m) {
            bytes.extend_from_slice(&m.bits().to_le_bytes());
        }
        (xxhash_rust::xxh3::xxh3_64(&bytes) % parts as u64) as usize
    }
}

impl PreparedBatch {
    /// The batch's kept games as candidates for [`twin_parts`] (bytes): `stored` gives the
    /// games the database stores under a twin key (none for a new database), of which a twin
    /// (of at least `min_prefix` plies when a prefix) makes a game skipped.
    pub fn twin_candidates(
        &self,
        min_prefix: usize,
        stored: impl Fn(TwinKey) -> Result<Vec<GameRecord>, StoreError>,
    ) -> Result<Vec<u8>, StoreError> {
        let mut candidates = Vec::with_capacity(self.games.len());
        for (number, (game, &read)) in self.games.iter().zip(&self.read_order).enumerate() {
            let twin = TwinKey::of(&game.record);
            let stored_twin = stored(twin)?.iter().any(|other| are_twins(&game.record, other, min_prefix));
            let tags = &game.record.tags;
            candidates.push(Candidate {
                order: 0,
                read,
                number: number as u32,
                fingerprint: game.fingerprint.0,
                twin: twin.0,
                stored_twin,
                white: tags.white.clone(),
                black: tags.black.clone(),
                date: tags.date.clone(),
                result: game.record.result,
                line: game.record.line().clone(),
            });
        }
        Ok(encode(&candidates))
    }

    /// The candidate bounds of key ranges ([`PreparedBatch::bound_keys`]) with the games that
    /// reach them, as bytes for [`kept_bound_keys`]: each distinct (key, game) as the key and
    /// the game's number in the batch (from 0, big-endian). A build that drops twins after its
    /// batches are prepared samples only what its kept games reach (a twin's positions past
    /// where it leaves the game it is a twin of can be no kept game's), as an ingest does.
    /// About one in a thousand of a game's positions is sampled: some 2 bytes a game.
    pub fn bound_games(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut previous = None;
        for (key, occurrence) in self.sorted.iter(&self.games).filter(|(key, _)| crate::store::is_range_bound(key)) {
            if previous != Some((key, occurrence.game)) {
                bytes.extend_from_slice(key.as_bytes());
                bytes.extend_from_slice(&(occurrence.game.0.saturating_sub(1) as u32).to_be_bytes());
            }
            previous = Some((key, occurrence.game));
        }
        bytes
    }
}

/// Bytes of a record of [`PreparedBatch::bound_games`].
const BOUND_GAME: usize = KEY_LEN + 4;

/// The keys of [`PreparedBatch::bound_games`] that a game not `dropped` (numbers in the batch,
/// ascending) reaches, distinct, in order; `None` for other bytes.
pub fn kept_bound_keys(bound_games: &[u8], dropped: &[u32]) -> Option<Vec<Key>> {
    if !bound_games.len().is_multiple_of(BOUND_GAME) {
        return None;
    }
    let mut keys: Vec<Key> = Vec::new();
    for record in bound_games.chunks_exact(BOUND_GAME) {
        let (key, number) = record.split_at(KEY_LEN);
        let number = u32::from_be_bytes(number.try_into().ok()?);
        let key = Key::from_bytes(key.try_into().ok()?);
        if dropped.binary_search(&number).is_err() && keys.last() != Some(&key) {
            keys.push(key);
        }
    }
    Some(keys)
}

/// Most bytes a candidate's decoding may claim: far more than a game of 65,535 plies and long
/// names takes, and a bound on what a length in damaged bytes makes it allocate.
const CANDIDATE_LIMIT: usize = 1 << 24;

/// Candidates as bytes, one after the other (each decoded on its own, under
/// [`CANDIDATE_LIMIT`]).
fn encode(candidates: &[Candidate]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for candidate in candidates {
        // Encoding into a vector fails on nothing a candidate holds.
        let _ = bincode::encode_into_std_write(candidate, &mut bytes, bincode::config::standard());
    }
    bytes
}

/// The candidates of bytes [`encode`] wrote; `None` for other bytes.
fn decode(mut bytes: &[u8]) -> Option<Vec<Candidate>> {
    let config = bincode::config::standard().with_limit::<CANDIDATE_LIMIT>();
    let mut candidates = Vec::new();
    while !bytes.is_empty() {
        let (candidate, read) = bincode::decode_from_slice(bytes, config).ok()?;
        candidates.push(candidate);
        bytes = bytes.get(read..)?;
    }
    Some(candidates)
}

/// A batch's twin candidates ([`PreparedBatch::twin_candidates`]) cut into `parts` parts, the
/// batch named by its place in input order (`order`): `(part, bytes)` for each part holding
/// some, for [`skipped_twins`]. `None` for other bytes, or no parts.
pub fn twin_parts(candidates: &[u8], order: u64, parts: usize) -> Option<Vec<(usize, Vec<u8>)>> {
    if parts == 0 {
        return None;
    }
    let mut cut: Vec<Vec<Candidate>> = (0..parts).map(|_| Vec::new()).collect();
    for mut candidate in decode(candidates)? {
        candidate.order = order;
        let part = candidate.part(&candidate.record(), parts);
        cut[part].push(candidate);
    }
    Some(
        cut.into_iter()
            .enumerate()
            .filter(|(_, part)| !part.is_empty())
            .map(|(at, part)| (at, encode(&part)))
            .collect(),
    )
}

/// What one part of the twins' shuffle drops: games as (their batch's place, their number in
/// it), ascending.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Copies of a game kept in an earlier batch (the first copy stays).
    pub duplicates: Vec<(u64, u32)>,
    /// Twins of a stored game or of one kept before them.
    pub twins: Vec<(u64, u32)>,
}

/// Of one part's candidates ([`twin_parts`] outputs of every batch), the games one machine's
/// ingest drops, deciding each in input order: a copy of a game kept before it is a
/// duplicate; else a twin (with prefixes of at least `min_prefix` plies) of a stored game or of
/// one kept before it is a twin; the others are kept. `None` for bytes that are not candidates.
pub fn skipped_twins(parts: &[&[u8]], min_prefix: usize) -> Option<Skipped> {
    let mut candidates = Vec::new();
    for bytes in parts {
        candidates.extend(decode(bytes)?);
    }
    candidates.sort_unstable_by_key(|candidate| (candidate.order, candidate.read));
    let mut kept_copies: FxHashSet<[u8; 16]> = FxHashSet::default();
    let mut kept: FxHashMap<u32, Vec<GameRecord>> = FxHashMap::default();
    let mut skipped = Skipped::default();
    for candidate in candidates {
        let place = (candidate.order, candidate.number);
        if kept_copies.contains(&candidate.fingerprint) {
            skipped.duplicates.push(place);
            continue;
        }
        let record = candidate.record();
        let earlier = kept.get(&candidate.twin).into_iter().flatten();
        if candidate.stored_twin || earlier.into_iter().any(|other| are_twins(&record, other, min_prefix)) {
            skipped.twins.push(place);
            continue;
        }
        kept_copies.insert(candidate.fingerprint);
        kept.entry(candidate.twin).or_default().push(record);
    }
    skipped.duplicates.sort_unstable();
    skipped.twins.sort_unstable();
    Some(skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::RawGame;

    fn batch(texts: &[&str]) -> PreparedBatch {
        let raw = texts
            .iter()
            .enumerate()
            .map(|(at, text)| RawGame { number: at as u64 + 1, line: 1, text: text.as_bytes().to_vec() })
            .collect();
        PreparedBatch::prepare(raw, |_| false)
    }

    #[test]
    fn twins_are_decided_in_the_order_read_and_other_bytes_are_refused_never_a_panic() {
        let moves =
            "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7";
        let game = |white: &str, round: &str, result: &str, moves: &str| {
            format!(
                "[White \"{white}\"]\n[Black \"Karpov, Anatoly\"]\n[Date \"1985.09.03\"]\n[Round \"{round}\"]\n[Result \"{result}\"]\n\n{moves} {result}\n"
            )
        };
        let whole = game("Kasparov, Garry", "1", "1-0", &format!("{moves} 11. c4 c6"));
        // Read second, the spelled copy is the twin; the shorter cut copy (a prefix of 20
        // plies with no result) sorts first by its moves, but is read last.
        let texts = [
            whole.as_str(),
            &game("Kasparov,G", "2", "1-0", &format!("{moves} 11. c4 c6")),
            &game("Kasparov, Garry", "3", "*", moves),
        ];
        let prepared = batch(&texts);
        assert_eq!(prepared.read_order, [2, 0, 1]);
        let candidates = prepared.twin_candidates(20, |_| Ok(Vec::new())).expect("candidates");
        let parts = twin_parts(&candidates, 7, 3).expect("parts");
        let records: Vec<&[u8]> = parts.iter().map(|(_, bytes)| bytes.as_slice()).collect();
        let skipped = skipped_twins(&records, 20).expect("decided");
        // Numbers in id order: the cut copy 0, the game 1, its spelled copy 2.
        assert_eq!(skipped, Skipped { duplicates: Vec::new(), twins: vec![(7, 0), (7, 2)] });
        // Prefixes of at least 21 plies only: the cut copy stays.
        let skipped = skipped_twins(&records, 21).expect("decided");
        assert_eq!(skipped.twins, [(7, 2)]);
        // A stored game the same: every game is a twin of it.
        let stored = prepared.games[1].record.clone();
        let candidates_stored = prepared.twin_candidates(20, |_| Ok(vec![stored.clone()])).expect("candidates");
        let parts = twin_parts(&candidates_stored, 7, 1).expect("parts");
        let skipped = skipped_twins(&[parts[0].1.as_slice()], 20).expect("decided");
        assert_eq!(skipped.twins, [(7, 0), (7, 1), (7, 2)]);
        // Cut short: refused, or the candidates before the cut (each is decoded on its own).
        for cut in 0..candidates.len() {
            assert!(decode(&candidates[..cut]).is_none_or(|decoded| decoded.len() < 3), "{cut}");
        }
        assert_eq!(decode(&candidates).map(|decoded| decoded.len()), Some(3));
        assert!(twin_parts(&candidates, 0, 0).is_none());
        // A candidate whose White claims a gigabyte: refused under the limit, not allocated.
        let claim = [&[0u8; 3][..], &[0; 16], &[0, 0], &[0xfc, 0, 0, 0, 0x40]].concat();
        assert!(twin_parts(&claim, 0, 3).is_none());
        for bytes in [&b"\xff\xff\xff\xff\xff\xff\xff\xff\x0f"[..], b"\x01\x00", b"\xfc\xff\xff\xff\x7f"] {
            assert!(twin_parts(bytes, 0, 3).is_none());
            assert!(skipped_twins(&[bytes], 20).is_none());
        }
        // Bounds reached by games 0 and 1, and by game 1 alone.
        let (a, b) = (Key::from_bytes([1; KEY_LEN]), Key::from_bytes([2; KEY_LEN]));
        let bound_games: Vec<u8> = [(a, 0u32), (a, 1), (b, 1)]
            .iter()
            .flat_map(|(key, number)| [&key.as_bytes()[..], &number.to_be_bytes()].concat())
            .collect();
        assert_eq!(kept_bound_keys(&bound_games, &[]), Some(vec![a, b]));
        assert_eq!(kept_bound_keys(&bound_games, &[1]), Some(vec![a]));
        assert_eq!(kept_bound_keys(&bound_games, &[0, 1]), Some(vec![]));
        assert_eq!(kept_bound_keys(&bound_games[1..], &[]), None);
    }
}

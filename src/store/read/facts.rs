//! The facts view: the facts and headers families and their in-memory tables, each game's
//! result, ratings, month and speed, eight bytes a game ([`layout::facts`]), and its day, ECO
//! code, length and label hashes, twelve bytes ([`layout::headers`]), each stored in runs of
//! consecutive games (one value a writer batch, under its first game's id), so that loading a
//! table reads a value per writer batch rather than one per game; and the event and site texts
//! behind the label hashes (the labels family).
//!
//! Filtered lookups need the facts of every game of a position: the month × speed × rating-band
//! slices are derived from them instead of being stored with each position. Readers hold the
//! committed games' facts in memory (8 MB per million games), loaded on first use and extended
//! when later commits add games; the header facts likewise, by the first filter on a header (12
//! MB per million games). Under a memory budget, a column larger than its share is read a page
//! at a time instead ([`records`](super::records)).

use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use super::records::{ColumnReader, FactsTable, GameColumn, GameRecords, HeadersTable, PAGE_GAMES, Pages};
use crate::{
    model::{GameFacts, GameId, LabelHash, LabelKind},
    store::{
        Store, StoreError,
        layout::{
            self, FACTS_LEN, HEADERS_LEN,
            headers::{label_prefix, parse_label_key},
        },
        memory::{memory_budget, scaled},
        options,
    },
};

/// Bytes of one column (the facts, the header facts) held in memory at the default budget,
/// scaled by `--memory` (16 MiB apiece at `--memory 256M`): a larger column is read in pages,
/// this many bytes of them kept. Without a budget, columns are held whole.
const COLUMN_BYTES: usize = 64 << 20;

/// Games' facts as the facts family stores them, one record a game, in order: what a build
/// spread over machines hands its ranges ([`GameColumn::from_packed`] reads them).
pub fn pack_facts<'a>(facts: impl IntoIterator<Item = &'a GameFacts>) -> Vec<u8> {
    facts.into_iter().flat_map(layout::encode_facts).collect()
}

/// The records of packed facts ([`pack_facts`]), one a game; `None` unless they are whole
/// records.
pub fn facts_records(packed: &[u8]) -> Option<&[[u8; FACTS_LEN]]> {
    let (records, rest) = packed.as_chunks::<FACTS_LEN>();
    rest.is_empty().then_some(records)
}

impl GameColumn<FACTS_LEN> {
    /// The facts of games `first..` from their stored bytes ([`layout::encode_facts`], one
    /// record a game, in id order); `None` unless every record is valid.
    pub fn from_packed(first: GameId, bytes: &[u8]) -> Option<GameColumn<FACTS_LEN>> {
        let records = facts_records(bytes)?;
        let valid =
            records.iter().enumerate().all(|(at, record)| FactsColumn::valid(GameId(first.0 + at as u64), record));
        valid.then(|| GameColumn { first, packed: records.to_vec() })
    }
}

/// A family of fixed-length game records stored in runs (the facts, the header facts).
trait Column<const N: usize> {
    const FAMILY: &'static str;
    /// Whether `bytes` are a valid record of game `id`.
    fn valid(id: GameId, bytes: &[u8; N]) -> bool;
}

struct FactsColumn;
struct HeadersColumn;

impl Column<FACTS_LEN> for FactsColumn {
    const FAMILY: &'static str = options::FACTS;
    fn valid(id: GameId, bytes: &[u8; FACTS_LEN]) -> bool {
        layout::decode_facts(id, bytes).is_some()
    }
}

impl Column<HEADERS_LEN> for HeadersColumn {
    const FAMILY: &'static str = options::HEADERS;
    fn valid(_: GameId, bytes: &[u8; HEADERS_LEN]) -> bool {
        layout::decode_headers(bytes).is_some()
    }
}

/// One stored value of a column: the records of games of consecutive ids from its key's.
struct Run<'a, const N: usize> {
    first: u64,
    bytes: &'a [u8],
}

impl<'a, const N: usize> Run<'a, N> {
    /// A stored run; `None` unless its key is a game id and its bytes whole records.
    fn read(key: &[u8], bytes: &'a [u8]) -> Option<Run<'a, N>> {
        let first = GameId::from_bytes(key)?.0;
        (first > 0 && !bytes.is_empty() && bytes.len().is_multiple_of(N)).then_some(Run { first, bytes })
    }

    /// The id after its last game.
    fn end(&self) -> u64 {
        self.first + (self.bytes.len() / N) as u64
    }

    fn holds(&self, id: GameId) -> bool {
        (self.first..self.end()).contains(&id.0)
    }

    /// The record of game `id`, unchecked; `None` outside the run.
    fn get(&self, id: GameId) -> Option<[u8; N]> {
        let at = usize::try_from(id.0.checked_sub(self.first)?).ok()? * N;
        self.bytes.get(at..at + N)?.try_into().ok()
    }
}

/// A column of the committed games' records a [`Store`] keeps: whole, or pages of it.
#[derive(Default)]
pub(in crate::store) struct SharedColumn<const N: usize> {
    whole: RwLock<Arc<GameColumn<N>>>,
    /// Set once the column is read in pages: from then on, always.
    pages: OnceLock<Arc<Pages<N>>>,
}

impl<const N: usize> SharedColumn<N> {
    /// Bytes of pages to keep when the records of `games` games are read in pages; `None`
    /// while they fit the budget's share of memory whole.
    fn paging(games: u64) -> Option<u64> {
        memory_budget()?;
        let share = scaled(COLUMN_BYTES) as u64;
        (games.saturating_mul(N as u64) > share).then_some(share)
    }

    /// Reads the column in pages of `games` games, keeping `bytes` of them, whatever its size.
    pub(in crate::store) fn read_in_pages(&self, games: u64, bytes: u64) {
        let _ = self.pages.set(Arc::new(Pages::new(games, bytes)));
    }
}

/// Reads games' facts ([`Snapshot::facts`](crate::store::Snapshot::facts)).
pub struct Facts<'a> {
    store: &'a Store,
    committed: u64,
}

impl<'a> Facts<'a> {
    pub(in crate::store) fn at(store: &'a Store, committed: u64) -> Facts<'a> {
        Facts { store, committed }
    }

    /// The facts of every game the snapshot sees: the store's table, with what it lacks
    /// loaded, or read a page at a time when a budget does not hold it whole.
    pub fn table(&self) -> Result<FactsTable<'a>, StoreError> {
        self.column::<FACTS_LEN, FactsColumn>(&self.store.facts)
    }

    /// The header facts of every game the snapshot sees, as [`Facts::table`]: loaded on first
    /// use by a header filter.
    pub fn headers(&self) -> Result<HeadersTable<'a>, StoreError> {
        self.column::<HEADERS_LEN, HeadersColumn>(&self.store.headers)
    }

    /// The facts of game `id`: from the in-memory table when loaded, else read alone (a lookup
    /// of a position one game reached need not load the table).
    pub fn of(&self, id: GameId) -> Result<GameFacts, StoreError> {
        let missing = || self.store.corrupt(format!("facts of game {id}"));
        let loaded = self.store.facts.whole.read().unwrap_or_else(PoisonError::into_inner).get(id);
        if let Some(facts) = loaded {
            return Ok(facts);
        }
        if id.0 >= self.committed {
            return Err(missing());
        }
        read_one(self.store, id)?.ok_or_else(missing)
    }

    /// Hands `visit` every distinct text of the `kind` tag the games give, with its hash, in
    /// hash order (texts of one hash one after another), streamed; texts of games an
    /// interrupted ingest did not commit may be among them.
    pub fn labels(&self, kind: LabelKind, mut visit: impl FnMut(LabelHash, &str)) -> Result<(), StoreError> {
        let store = self.store;
        let prefix = label_prefix(kind);
        let reads = options::sequential_reads(&[prefix[0] + 1]);
        let mut iter = store.db.raw_iterator_cf_opt(store.cf(options::LABELS), reads);
        iter.seek(prefix);
        while let Some(key) = iter.key() {
            if !key.starts_with(&prefix) {
                break;
            }
            let (hash, text) = parse_label_key(kind, key).ok_or_else(|| store.corrupt("label key"))?;
            visit(hash, &text);
            iter.next();
        }
        iter.status().map_err(|err| store.rocks(err))
    }

    /// The store's column, extended to the games the snapshot sees, or read in pages.
    fn column<const N: usize, C: Column<N>>(&self, shared: &SharedColumn<N>) -> Result<GameRecords<'a, N>, StoreError> {
        let games = self.committed.saturating_sub(1);
        // Once in pages, always: a snapshot older than the first to page does not load it whole.
        let pages = shared.pages.get().or_else(|| {
            let bytes = SharedColumn::<N>::paging(games)?;
            Some(shared.pages.get_or_init(|| Arc::new(Pages::new(PAGE_GAMES, bytes))))
        });
        if let Some(pages) = pages {
            // The whole column loaded while it fitted is no longer used.
            if !shared.whole.read().unwrap_or_else(PoisonError::into_inner).is_empty() {
                *shared.whole.write().unwrap_or_else(PoisonError::into_inner) = Arc::default();
            }
            return Ok(GameRecords::paged(self.store, pages.clone(), self.committed, column_reader::<N, C>()));
        }
        let current = shared.whole.read().unwrap_or_else(PoisonError::into_inner).clone();
        // The store's table starts at game 1.
        if current.len() >= games {
            return Ok(GameRecords::whole(current));
        }
        let mut guard = shared.whole.write().unwrap_or_else(PoisonError::into_inner);
        let loaded = guard.len();
        if loaded >= games {
            return Ok(GameRecords::whole(guard.clone()));
        }
        let mut packed = guard.packed.clone();
        load_runs::<N, C>(self.store, loaded + 1, self.committed, &mut packed)?;
        *guard = Arc::new(GameColumn { first: GameId(1), packed });
        Ok(GameRecords::whole(guard.clone()))
    }
}

/// The facts of the games `first..end` (a commit's new games, written, not committed yet).
pub(in crate::store) fn written_facts(
    store: &Store,
    first: GameId,
    end: GameId,
) -> Result<GameColumn<FACTS_LEN>, StoreError> {
    let mut packed = Vec::with_capacity(end.0.saturating_sub(first.0).min(1 << 24) as usize);
    load_runs::<FACTS_LEN, FactsColumn>(store, first.0, end.0, &mut packed)?;
    Ok(GameColumn { first, packed })
}

/// Appends to `packed` the records of games `first..end`, every one of them checked, in one
/// pass read ahead.
fn load_runs<const N: usize, C: Column<N>>(
    store: &Store,
    first: u64,
    end: u64,
    packed: &mut Vec<[u8; N]>,
) -> Result<(), StoreError> {
    let reads = options::sequential_reads(&GameId(end).to_bytes());
    read_runs::<N, C>(store, (first, end), reads, Some(C::valid), packed)
}

/// Appends to `packed` the records of a page, games `first..end`, through the block cache,
/// unchecked: each is checked when used ([`ColumnReader`]).
fn read_page<const N: usize, C: Column<N>>(
    store: &Store,
    first: u64,
    end: u64,
    packed: &mut Vec<[u8; N]>,
) -> Result<(), StoreError> {
    let reads = options::range_reads(&GameId(end).to_bytes());
    read_runs::<N, C>(store, (first, end), reads, None, packed)
}

/// How a column read in pages reads a page and checks a record.
fn column_reader<const N: usize, C: Column<N>>() -> ColumnReader<N> {
    ColumnReader { family: C::FAMILY, valid: C::valid, read: read_page::<N, C> }
}

/// Appends to `packed` the records of games `first..end` (`games`) read with `reads`, each
/// checked with `valid` when given.
fn read_runs<const N: usize, C: Column<N>>(
    store: &Store,
    (first, end): (u64, u64),
    reads: rocksdb::ReadOptions,
    valid: Option<fn(GameId, &[u8; N]) -> bool>,
    packed: &mut Vec<[u8; N]>,
) -> Result<(), StoreError> {
    let what = |id: u64| format!("{} of game {id}", C::FAMILY);
    let mut iter = store.db.raw_iterator_cf_opt(store.cf(C::FAMILY), reads);
    iter.seek_for_prev(GameId(first).to_bytes());
    let mut next = first;
    while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
        if next >= end {
            break;
        }
        let run = Run::<N>::read(key, value).ok_or_else(|| store.corrupt(what(next)))?;
        // Runs follow each other without a gap.
        if !run.holds(GameId(next)) {
            return Err(store.corrupt(format!("{}: missing", what(next))));
        }
        for id in next..run.end().min(end) {
            let record = run.get(GameId(id)).filter(|record| valid.is_none_or(|valid| valid(GameId(id), record)));
            packed.push(record.ok_or_else(|| store.corrupt(what(id)))?);
        }
        next = run.end().min(end);
        iter.next();
    }
    iter.status().map_err(|err| store.rocks(err))?;
    if next < end {
        return Err(store.corrupt(format!("{}: missing", what(next))));
    }
    Ok(())
}

/// The facts of game `id` read from the facts family (its run), unchecked for commitment.
pub(in crate::store) fn read_one(store: &Store, id: GameId) -> Result<Option<GameFacts>, StoreError> {
    let mut iter = store.db.raw_iterator_cf(store.cf(options::FACTS));
    iter.seek_for_prev(id.to_bytes());
    iter.status().map_err(|err| store.rocks(err))?;
    let (Some(key), Some(value)) = (iter.key(), iter.value()) else { return Ok(None) };
    let run = Run::<FACTS_LEN>::read(key, value).ok_or_else(|| store.corrupt(format!("facts of game {id}")))?;
    Ok(run.get(id).filter(|bytes| FactsColumn::valid(id, bytes)).and_then(|bytes| layout::unpack_facts(id, bytes)))
}

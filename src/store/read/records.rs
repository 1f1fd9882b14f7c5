//! Games' fixed-length records (the facts, the header facts) as a reader holds them: the
//! committed games' column whole in memory ([`GameColumn`]) while it fits the memory budget's
//! share, else pages of 1,024 games read on use and kept while they fit that share
//! ([`GameRecords`]). Without a budget, the column is whole (8 MB of facts and 12 MB of header
//! facts per million games).
//!
//! A page is read while a query runs, so reading it can fail (an I/O error, a damaged run or
//! record) where a whole column, checked when loaded, could not: the record is then missing,
//! and the handle keeps why, for the query to return ([`GameRecords::checked`],
//! [`GameRecords::missing`]) before it answers. A page's records are checked as they are used.

use std::{
    any::Any,
    cell::RefCell,
    sync::{
        Arc, Mutex, PoisonError, RwLock,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
};

use crate::{
    model::{GameFacts, GameHeaders, GameId},
    store::{
        Store, StoreError,
        layout::{self, FACTS_LEN, HEADERS_LEN},
    },
};

/// Games a page holds: 8 KB of facts, 12 KB of header facts. Read through the block cache,
/// pages of 1,024 answered filtered lookups faster than pages of 4,096 games when a quarter
/// of the pages were kept (docs/PERFORMANCE.md), and pages of 256 no faster.
pub(super) const PAGE_GAMES: u64 = 1024;

/// Pages read at once on a miss while there is room for them: 16,384 games, a writer batch's
/// run, whose block (64 KB or more, compressed) is read and decompressed once for all of them
/// rather than once a page.
const STRETCH_PAGES: u64 = 16;

/// Fixed-length records of games `first..first + len`, packed as their family stores them: a
/// store's column of committed games (from game 1), or a commit's new games.
#[derive(Debug)]
pub struct GameColumn<const N: usize> {
    pub(super) first: GameId,
    pub(super) packed: Vec<[u8; N]>,
}

impl<const N: usize> Default for GameColumn<N> {
    fn default() -> GameColumn<N> {
        GameColumn { first: GameId(1), packed: Vec::new() }
    }
}

impl<const N: usize> GameColumn<N> {
    fn bytes(&self, id: GameId) -> Option<[u8; N]> {
        let index = usize::try_from(id.0.checked_sub(self.first.0)?).ok()?;
        self.packed.get(index).copied()
    }

    /// Games loaded.
    pub fn len(&self) -> u64 {
        self.packed.len() as u64
    }

    /// Whether no game is loaded.
    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }
}

impl GameColumn<FACTS_LEN> {
    /// The facts of game `id`, if loaded.
    pub fn get(&self, id: GameId) -> Option<GameFacts> {
        // Checked when loaded.
        layout::unpack_facts(id, self.bytes(id)?)
    }
}

/// How a column read in pages reads a page and checks a record (its family's).
pub(super) struct ColumnReader<const N: usize> {
    /// The column family.
    pub(super) family: &'static str,
    /// Whether bytes are a valid record of a game.
    pub(super) valid: fn(GameId, &[u8; N]) -> bool,
    /// Appends the records of games `first..end` to a vector, every one of them, unchecked.
    pub(super) read: ReadRecords<N>,
}

/// Appends the records of games `first..end` to a vector.
pub(super) type ReadRecords<const N: usize> = fn(&Store, u64, u64, &mut Vec<[u8; N]>) -> Result<(), StoreError>;

/// The records of the games of one page the store had committed when it was read.
struct Page<const N: usize> {
    first: u64,
    records: Vec<[u8; N]>,
}

impl<const N: usize> Page<N> {
    /// The record of game `id`, if the page holds it.
    fn at(&self, id: GameId) -> Option<[u8; N]> {
        self.records.get(usize::try_from(id.0.checked_sub(self.first)?).ok()?).copied()
    }
}

/// A page a thread read last, of the pages numbered `pages` ([`Pages::number`]).
struct LastPage {
    pages: u64,
    number: u64,
    page: Arc<dyn Any + Send + Sync>,
}

thread_local! {
    /// The pages each thread read last, by their pages' number modulo 4 (a store's facts and
    /// header facts, made one after the other, mostly apart; sharing a slot costs only a
    /// lookup): games read in id order find theirs without a lookup in the kept pages.
    static LAST_PAGES: RefCell<[Option<LastPage>; 4]> = const { RefCell::new([None, None, None, None]) };
}

/// The number of the next [`Pages`] made.
static PAGES_MADE: AtomicU64 = AtomicU64::new(0);

/// The pages of one column kept in memory, by number (page `p` holds games `p × games..`).
///
/// Pages are kept while they fit, and then stay: a position's games spread over the whole
/// range of ids, so that the pages are used alike, and a query passes over them in id order
/// again and again (once a move), where evicting the page used longest ago would miss every
/// page of every pass. Only whole pages are kept: the last one grows with later commits.
pub(super) struct Pages<const N: usize> {
    /// Which pages these are, among those the process made: a thread's last page is theirs
    /// only with their number.
    number: u64,
    games: u64,
    /// Bytes of pages to keep at most.
    capacity: u64,
    /// Bytes of the pages kept.
    weight: AtomicU64,
    kept: RwLock<Vec<Option<Arc<Page<N>>>>>,
}

impl<const N: usize> Pages<N> {
    /// Pages of `games` games, up to `bytes` of them kept.
    pub(super) fn new(games: u64, bytes: u64) -> Pages<N> {
        let number = PAGES_MADE.fetch_add(1, Ordering::Relaxed);
        let kept = RwLock::new(Vec::new());
        Pages { number, games: games.max(1), capacity: bytes, weight: AtomicU64::new(0), kept }
    }

    /// The bytes of the pages kept.
    pub(super) fn weight(&self) -> u64 {
        self.weight.load(Ordering::Relaxed)
    }

    /// The record of game `id` in page `number` when it is the thread's last page, else kept.
    fn kept_record(&self, number: u64, id: GameId) -> Option<[u8; N]> {
        let slot = (self.number % 4) as usize;
        let last = LAST_PAGES.with_borrow(|last| {
            let last = last[slot].as_ref().filter(|last| last.pages == self.number && last.number == number)?;
            last.page.downcast_ref::<Page<N>>()?.at(id)
        });
        if last.is_some() {
            return last;
        }
        let kept = self.kept.read().unwrap_or_else(PoisonError::into_inner);
        let page = kept.get(usize::try_from(number).ok()?)?.clone()?;
        drop(kept);
        let record = page.at(id)?;
        self.remember(number, page);
        Some(record)
    }

    /// Whether there is room for more pages.
    fn has_room(&self) -> bool {
        self.weight() + Self::page_weight(self.games) <= self.capacity
    }

    /// The memory a page of `games` games takes.
    fn page_weight(games: u64) -> u64 {
        games * N as u64 + size_of::<Page<N>>() as u64 + 16
    }

    /// Keeps `page`, number `number`, if it is whole and there is room.
    fn keep(&self, number: u64, page: &Arc<Page<N>>) {
        let whole = page.records.len() as u64 + u64::from(number == 0) == self.games;
        let (Ok(at), true) = (usize::try_from(number), whole) else { return };
        let weight = Self::page_weight(self.games);
        if self.weight.fetch_add(weight, Ordering::Relaxed) + weight > self.capacity {
            self.weight.fetch_sub(weight, Ordering::Relaxed);
            return;
        }
        let mut kept = self.kept.write().unwrap_or_else(PoisonError::into_inner);
        if kept.len() <= at {
            kept.resize(at + 1, None);
        }
        match &kept[at] {
            Some(_) => drop(self.weight.fetch_sub(weight, Ordering::Relaxed)),
            None => kept[at] = Some(page.clone()),
        }
    }

    /// Reads page `number`, of the games before `end`, and keeps it if there is room: with
    /// room, the whole stretch of pages it lies in, in one pass (their runs' blocks read and
    /// decompressed once, not once a page).
    fn read(&self, store: &Store, column: &ColumnReader<N>, number: u64, end: u64) -> Result<Arc<Page<N>>, StoreError> {
        // The last page, part full, is never kept: read alone.
        let last = number == end.saturating_sub(1) / self.games;
        let stretch = match self.has_room() && !last {
            true => number - number % STRETCH_PAGES..(number - number % STRETCH_PAGES).saturating_add(STRETCH_PAGES),
            false => number..number.saturating_add(1),
        };
        let first = stretch.start.saturating_mul(self.games).max(1);
        let stretch_end = stretch.end.saturating_mul(self.games).min(end);
        let mut records = Vec::with_capacity(stretch_end.saturating_sub(first) as usize);
        (column.read)(store, first, stretch_end, &mut records)?;
        let mut wanted = None;
        let mut page_first = first;
        // Page 0 starts at game 1 (empty in pages of one game).
        for page_number in (first / self.games).max(stretch.start)..stretch.end {
            let page_end = (page_number + 1).saturating_mul(self.games).min(stretch_end);
            if page_first >= page_end {
                break;
            }
            let slice = records.get((page_first - first) as usize..(page_end - first) as usize).unwrap_or_default();
            let page = Arc::new(Page { first: page_first, records: slice.to_vec() });
            self.keep(page_number, &page);
            if page_number == number {
                wanted = Some(page);
            }
            page_first = page_end;
        }
        wanted.ok_or_else(|| store.invariant(format!("page {number} of {} is not in its stretch", column.family)))
    }

    /// Makes `page` the thread's last page of these pages.
    fn remember(&self, number: u64, page: Arc<Page<N>>) {
        let slot = (self.number % 4) as usize;
        LAST_PAGES.with_borrow_mut(|last| last[slot] = Some(LastPage { pages: self.number, number, page }));
    }
}

/// Where a handle's records come from.
enum Source<'s, const N: usize> {
    Whole(Arc<GameColumn<N>>),
    Paged { store: &'s Store, pages: Arc<Pages<N>>, end: u64, column: ColumnReader<N> },
}

/// The records of the games a snapshot sees, for one query: the column whole, or its pages read
/// on use ([`Facts::table`](super::Facts::table), [`Facts::headers`](super::Facts::headers)).
pub struct GameRecords<'s, const N: usize> {
    source: Source<'s, N>,
    /// Why a record could not be read, until [`GameRecords::checked`] returns it.
    failure: Mutex<Option<StoreError>>,
    /// Whether `failure` holds a reason: checked without a lock.
    failed: AtomicBool,
}

/// Each game's facts ([`GameFacts`]), eight bytes a game.
pub type FactsTable<'s> = GameRecords<'s, FACTS_LEN>;
/// Each game's header facts ([`GameHeaders`]), twelve bytes a game.
pub type HeadersTable<'s> = GameRecords<'s, HEADERS_LEN>;

impl<'s, const N: usize> GameRecords<'s, N> {
    pub(super) fn whole(column: Arc<GameColumn<N>>) -> GameRecords<'s, N> {
        GameRecords { source: Source::Whole(column), failure: Mutex::new(None), failed: AtomicBool::new(false) }
    }

    /// Games `1..end`'s records, read a page at a time as `column` reads them, kept in `pages`.
    pub(super) fn paged(
        store: &'s Store,
        pages: Arc<Pages<N>>,
        end: u64,
        column: ColumnReader<N>,
    ) -> GameRecords<'s, N> {
        let source = Source::Paged { store, pages, end, column };
        GameRecords { source, failure: Mutex::new(None), failed: AtomicBool::new(false) }
    }

    /// The bytes of pages kept in memory, when the records are read a page at a time.
    pub fn pages_kept(&self) -> Option<u64> {
        match &self.source {
            Source::Whole(_) => None,
            Source::Paged { pages, .. } => Some(pages.weight()),
        }
    }

    /// `value`, computed with these records, unless a record could not be read meanwhile (its
    /// page unreadable or the record damaged: the game was missing): then why.
    pub fn checked<T>(&self, value: T) -> Result<T, StoreError> {
        match self.take_failure() {
            Some(failure) => Err(failure),
            None => Ok(value),
        }
    }

    /// The error for a record found missing: why its page could not be read, else `otherwise`
    /// (stored data referring to a game without a record: corrupt).
    pub fn missing(&self, otherwise: impl FnOnce() -> StoreError) -> StoreError {
        self.take_failure().unwrap_or_else(otherwise)
    }

    /// Why a record could not be read, if one could not: every part of the query that asks is
    /// told (several threads may have met it).
    fn take_failure(&self) -> Option<StoreError> {
        if !self.failed.load(Ordering::Acquire) {
            return None;
        }
        self.failure.lock().unwrap_or_else(PoisonError::into_inner).as_ref().map(StoreError::again)
    }

    /// The ids of the games the records are of.
    pub fn ids(&self) -> impl Iterator<Item = GameId> + '_ {
        let (first, end) = match &self.source {
            Source::Whole(column) => (column.first.0, column.first.0 + column.len()),
            Source::Paged { end, .. } => (1, *end),
        };
        (first..end).map(GameId)
    }

    fn bytes(&self, id: GameId) -> Option<[u8; N]> {
        match &self.source {
            Source::Whole(column) => column.bytes(id),
            Source::Paged { store, pages, end, column } => {
                // After a failure the query fails: the records it reads no longer count.
                if id.0 == 0 || id.0 >= *end || self.failed.load(Ordering::Relaxed) {
                    return None;
                }
                let number = id.0 / pages.games;
                // A page read before a later commit may lack its newer games: read again.
                let record = match pages.kept_record(number, id) {
                    Some(record) => record,
                    None => match pages.read(store, column, number, *end) {
                        Ok(page) => {
                            let Some(record) = page.at(id) else {
                                self.fail(
                                    store.invariant(format!("game {id} is not in its page of {}", column.family)),
                                );
                                return None;
                            };
                            pages.remember(number, page);
                            record
                        }
                        Err(failure) => {
                            self.fail(failure);
                            return None;
                        }
                    },
                };
                // Pages are read unchecked: a record is checked when used.
                if !(column.valid)(id, &record) {
                    self.fail(store.corrupt(format!("{} of game {id}", column.family)));
                    return None;
                }
                Some(record)
            }
        }
    }

    /// Keeps why a record could not be read (the first reason), for [`GameRecords::checked`].
    fn fail(&self, failure: StoreError) {
        self.failure.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(failure);
        self.failed.store(true, Ordering::Release);
    }
}

impl GameRecords<'_, FACTS_LEN> {
    /// The facts of game `id`; `None` for a game not seen, or one whose page could not be read
    /// ([`GameRecords::checked`] then says why).
    pub fn get(&self, id: GameId) -> Option<GameFacts> {
        // Checked when read.
        layout::unpack_facts(id, self.bytes(id)?)
    }
}

impl GameRecords<'_, HEADERS_LEN> {
    /// The header facts of game `id`, as [`FactsTable::get`].
    pub fn get(&self, id: GameId) -> Option<GameHeaders> {
        // Checked when read.
        layout::unpack_headers(self.bytes(id)?)
    }
}

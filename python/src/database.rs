//! `tabiya.Database`: a database opened for reading (or for ingest), answering as the CLI's
//! `--json` does; game lists and position rows come through cursors read page by page
//! (`cursors.rs`).

use std::{
    path::PathBuf,
    sync::{Arc, Mutex, RwLock},
};

use pyo3::{prelude::*, types::PyDict};
use tabiya::{
    explore::{
        Filter, FilterSpec, GameSort, GameSource, GamesQuery, Limits, Lookup, MaterialQuery, PatternQuery,
        PositionRows, SequenceQuery, Signature, Target, parse_color,
    },
    indexer::{self, Observer, Progress},
    input::{self, InputError, Rejection, Wanted},
    pattern::GamePattern,
    render::json::{DatabaseTotals, IngestSummary},
    report::{
        database::{DatabaseOptions, DatabaseReport},
        opening::{OpeningOptions, OpeningReport, Theme},
        player::{PlayerOptions, PlayerReport},
    },
    store::Store,
};

use crate::{
    call,
    cursors::{GameCursor, PositionScan},
    errors::Error,
    values::to_python,
};

/// A tabiya database directory, open.
#[pyclass(frozen, module = "tabiya._native")]
pub struct Database {
    /// `None` once closed.
    store: RwLock<Option<Arc<Store>>>,
    path: PathBuf,
    read_only: bool,
    /// Held by a running ingest: a second one on the same database would discard the first
    /// one's uncommitted games and staging area (RocksDB's lock keeps other processes out).
    ingesting: Mutex<()>,
}

impl Database {
    pub(crate) fn store(&self) -> Result<Arc<Store>, Error> {
        let open = self.store.read().ok().and_then(|store| store.clone());
        open.ok_or_else(|| Error::Other(format!("{}: the database is closed", self.path.display())))
    }
}

/// Filters given as keyword arguments (`since`, `until`, `speed`, `min_rating`, `max_rating`,
/// `player`, `color`, `opponent`, `min_elo`, `max_elo`, `event`, `site`, `result`, `eco`,
/// `date_from`, `date_to`, `min_plies`), as the CLI's options of the same names.
pub fn filter_spec(filters: Option<&Bound<'_, PyDict>>) -> Result<FilterSpec, Error> {
    let mut spec = FilterSpec::default();
    let Some(filters) = filters else { return Ok(spec) };
    for (name, value) in filters.iter() {
        let name: String = name.extract().map_err(|_| Error::input("filter names are strings"))?;
        if value.is_none() {
            continue;
        }
        let text = || value.extract::<String>().map_err(|_| Error::input(format!("filter {name}: expected a string")));
        let rating = || {
            value.extract::<u16>().map_err(|_| Error::input(format!("filter {name}: expected a rating, 0 to 65535")))
        };
        match name.as_str() {
            "since" => spec.since = Some(text()?),
            "until" => spec.until = Some(text()?),
            "speed" => spec.speed = Some(text()?),
            "min_rating" => spec.min_rating = Some(rating()?),
            "max_rating" => spec.max_rating = Some(rating()?),
            "player" => spec.player = Some(text()?),
            "color" => spec.color = Some(text()?),
            "opponent" => spec.opponent = Some(text()?),
            "min_elo" => spec.min_elo = Some(rating()?),
            "max_elo" => spec.max_elo = Some(rating()?),
            "event" => spec.event = Some(text()?),
            "site" => spec.site = Some(text()?),
            "result" => spec.result = Some(text()?),
            "eco" => spec.eco = Some(text()?),
            "date_from" => spec.date_from = Some(text()?),
            "date_to" => spec.date_to = Some(text()?),
            "min_plies" => {
                spec.min_plies = Some(
                    value
                        .extract::<u32>()
                        .map_err(|_| Error::input(format!("filter {name}: expected a count of plies")))?,
                )
            }
            other => {
                return Err(Error::input(format!(
                    "unknown filter {other:?}: expected since, until, speed, min_rating, max_rating, player, color, \
                     opponent, min_elo, max_elo, event, site, result, eco, date_from, date_to or min_plies"
                )));
            }
        }
    }
    Ok(spec)
}

/// A document as the CLI's `--json` writes it (the benchmark's in-process reference).
fn json<T: serde::Serialize>(value: &T) -> Result<String, Error> {
    Ok(serde_json::to_string(value)?)
}

fn signature(text: Option<String>) -> Result<Option<Signature>, Error> {
    Ok(text.as_deref().map(str::parse::<Signature>).transpose()?)
}

fn side(text: Option<String>) -> Result<Option<shakmaty::Color>, Error> {
    Ok(text.as_deref().map(parse_color).transpose()?)
}

/// The pattern search of the arguments a Python call names.
pub(crate) struct PatternArgs {
    pub expression: String,
    pub material: Option<String>,
    pub side: Option<String>,
    pub flip_colours: bool,
    pub limit: usize,
    pub variant: Option<String>,
}

impl PatternArgs {
    pub(crate) fn query(self, filter: Filter) -> Result<PatternQuery, Error> {
        Ok(PatternQuery {
            pattern: pattern(&self.expression, self.flip_colours)?,
            material: signature(self.material)?,
            side: side(self.side)?,
            limit: self.limit,
            filter,
            variant: crate::pure::variant(self.variant.as_deref())?,
        })
    }
}

fn pattern(expression: &str, flip_colours: bool) -> Result<tabiya::pattern::Pattern, Error> {
    Ok(expression.parse::<tabiya::pattern::Pattern>()?.with_flip(flip_colours))
}

#[pymethods]
impl Database {
    #[new]
    #[pyo3(signature = (path, *, read_only = true))]
    fn new(py: Python<'_>, path: PathBuf, read_only: bool) -> PyResult<Database> {
        let store = call(py, || Ok(if read_only { Store::open_read_only(&path)? } else { Store::open(&path)? }))?;
        crate::memory::note_opened();
        Ok(Database { store: RwLock::new(Some(Arc::new(store))), path, read_only, ingesting: Mutex::new(()) })
    }

    /// Closes the database: later calls raise `TabiyaError`. A call still running, and a
    /// game or position iterator not yet exhausted, keep it open until they end.
    fn close(&self, py: Python<'_>) {
        let store = self.store.write().ok().and_then(|mut store| store.take());
        // Closing a writable database may wait for RocksDB's background work.
        py.detach(move || drop(store));
    }

    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    #[getter]
    fn read_only(&self) -> bool {
        self.read_only
    }

    fn stats(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let totals = call(py, || Ok(DatabaseTotals::of_store(&*self.store()?)?))?;
        to_python(py, &totals)
    }

    #[pyo3(signature = (fen = None, moves = None, uci = None, max_moves = 12, top = 4, recent = 4, filters = None, variant = None))]
    #[allow(clippy::too_many_arguments)]
    fn query(
        &self,
        py: Python<'_>,
        fen: Option<String>,
        moves: Option<String>,
        uci: Option<String>,
        max_moves: usize,
        top: usize,
        recent: usize,
        filters: Option<&Bound<'_, PyDict>>,
        variant: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let spec = filter_spec(filters).map_err(|err| err.into_py_err(py))?;
        let answer = call(py, || {
            let lookup = Lookup {
                target: Target::of(fen, moves, uci)?.resolve_in(crate::pure::variant(variant.as_deref())?)?,
                filter: spec.filter()?,
                limits: Limits { moves: max_moves, top, recent, history: false },
            };
            Ok(lookup.run(&*self.store()?)?)
        })?;
        crate::values::to_python(py, &answer)
    }

    /// Seconds per call of the lookup `query` runs, timed in Rust over `rounds` calls: the
    /// lookup alone, and the lookup with its JSON document written (what the binding's
    /// overhead is measured against; tools/bench/python.py).
    #[pyo3(signature = (fen, rounds))]
    fn _time_lookup(&self, py: Python<'_>, fen: String, rounds: u32) -> PyResult<(f64, f64)> {
        call(py, || {
            let store = self.store()?;
            // As `query` does: the position resolved, looked up, with the default limits.
            let lookup = || {
                let target = Target::fen(fen.clone()).resolve()?;
                let limits = Limits { moves: 12, top: 4, recent: 4, history: false };
                Ok::<_, Error>(Lookup { target, filter: Default::default(), limits }.run(&store)?)
            };
            let started = std::time::Instant::now();
            for _ in 0..rounds {
                std::hint::black_box(lookup()?);
            }
            let alone = started.elapsed().as_secs_f64() / f64::from(rounds.max(1));
            let started = std::time::Instant::now();
            for _ in 0..rounds {
                std::hint::black_box(json(&lookup()?)?);
            }
            Ok((alone, started.elapsed().as_secs_f64() / f64::from(rounds.max(1))))
        })
    }

    #[pyo3(signature = (signature, *, side = None, castling = None, limit = 20, variant = None, **filters))]
    #[allow(clippy::too_many_arguments)]
    fn search_material(
        &self,
        py: Python<'_>,
        signature: String,
        side: Option<String>,
        castling: Option<String>,
        limit: usize,
        variant: Option<String>,
        filters: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let spec = filter_spec(filters).map_err(|err| err.into_py_err(py))?;
        let found = call(py, || {
            let query = MaterialQuery {
                signature: signature.parse()?,
                side: self::side(side)?,
                castling: castling.as_deref().map(MaterialQuery::parse_castling).transpose()?,
                limit,
                filter: spec.filter()?,
                variant: crate::pure::variant(variant.as_deref())?,
            };
            Ok(query.run(&*self.store()?)?)
        })?;
        to_python(py, &found)
    }

    #[pyo3(signature = (expression, *, material = None, side = None, flip_colours = false, limit = 20, variant = None, **filters))]
    #[allow(clippy::too_many_arguments)]
    fn search_pattern(
        &self,
        py: Python<'_>,
        expression: String,
        material: Option<String>,
        side: Option<String>,
        flip_colours: bool,
        limit: usize,
        variant: Option<String>,
        filters: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let spec = filter_spec(filters).map_err(|err| err.into_py_err(py))?;
        let found = call(py, || {
            let args = PatternArgs { expression, material, side, flip_colours, limit, variant };
            Ok(args.query(spec.filter()?)?.run(&*self.store()?)?)
        })?;
        to_python(py, &found)
    }

    /// The games of a position or a pattern, resolved once, read page by page.
    #[pyo3(signature = (fen = None, moves = None, uci = None, *, pattern = None, flip_colours = false, material = None, side = None, and_ = Vec::new(), not_ = Vec::new(), sort = "id".to_owned(), variant = None, **filters))]
    #[allow(clippy::too_many_arguments)]
    fn games_cursor(
        &self,
        py: Python<'_>,
        fen: Option<String>,
        moves: Option<String>,
        uci: Option<String>,
        pattern: Option<String>,
        flip_colours: bool,
        material: Option<String>,
        side: Option<String>,
        and_: Vec<String>,
        not_: Vec<String>,
        sort: String,
        variant: Option<String>,
        filters: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<GameCursor> {
        let spec = filter_spec(filters).map_err(|err| err.into_py_err(py))?;
        call(py, || {
            let variant = crate::pure::variant(variant.as_deref())?;
            // The scans of a pattern or a sequence skip the games the filter refuses.
            let filter = spec.filter()?;
            let mut steps = None;
            let source = match pattern {
                Some(expression) if fen.is_none() && moves.is_none() && uci.is_none() => {
                    match expression.parse::<GamePattern>()? {
                        GamePattern::Position(pattern) => GameSource::Pattern(Box::new(PatternQuery {
                            pattern: pattern.with_flip(flip_colours),
                            material: signature(material)?,
                            side: self::side(side)?,
                            limit: 0,
                            filter: filter.clone(),
                            variant,
                        })),
                        GamePattern::Sequence(_) if material.is_some() || side.is_some() => {
                            return Err(Error::input("material and side go with a position pattern, not a sequence"));
                        }
                        GamePattern::Sequence(sequence) => {
                            let sequence = sequence.with_flip(flip_colours);
                            steps = Some(sequence.clone());
                            GameSource::Sequence(Box::new(SequenceQuery { sequence, filter: filter.clone(), variant }))
                        }
                    }
                }
                Some(_) => return Err(Error::input("give a position (fen, moves, uci) or a pattern, not both")),
                None if material.is_some() || side.is_some() || flip_colours => {
                    return Err(Error::input("material, side and flip_colours go with a pattern"));
                }
                None => GameSource::Position(Target::of(fen, moves, uci)?.resolve_in(variant)?),
            };
            let fens = |list: Vec<String>| {
                list.into_iter().map(|fen| Target::fen(fen).resolve_in(variant)).collect::<Result<Vec<_>, _>>()
            };
            let query = GamesQuery {
                source,
                and: fens(and_)?,
                not: fens(not_)?,
                sort: sort.parse::<GameSort>()?,
                offset: 0,
                limit: usize::MAX,
                max_sorted: usize::MAX,
                filter,
                steps: None,
            };
            let store = self.store()?;
            let ids = query.ordered_ids(&store)?;
            Ok(GameCursor { store, ids: ids.into(), steps })
        })
    }

    /// Every position of a material signature and/or matching a pattern, part by part.
    #[pyo3(signature = (*, material = None, pattern = None, flip_colours = false, side = None, variant = None))]
    fn position_scan(
        &self,
        py: Python<'_>,
        material: Option<String>,
        pattern: Option<String>,
        flip_colours: bool,
        side: Option<String>,
        variant: Option<String>,
    ) -> PyResult<PositionScan> {
        call(py, || {
            let rows = PositionRows {
                pattern: pattern.as_deref().map(|p| self::pattern(p, flip_colours)).transpose()?,
                material: signature(material)?,
                side: self::side(side)?,
                variant: crate::pure::variant(variant.as_deref())?,
            };
            let store = self.store()?;
            let parts = rows.parts(&store)?;
            Ok(PositionScan { store, rows, parts })
        })
    }

    #[pyo3(signature = (fen = None, moves = None, uci = None, *, versus = None, depth = 8, lines = 6, themes = Vec::new(), default_themes = true, theme_plies = 40, variant = None, filters = None))]
    #[allow(clippy::too_many_arguments)]
    fn report_opening(
        &self,
        py: Python<'_>,
        fen: Option<String>,
        moves: Option<String>,
        uci: Option<String>,
        versus: Option<&Bound<'_, PyDict>>,
        depth: usize,
        lines: usize,
        themes: Vec<String>,
        default_themes: bool,
        theme_plies: usize,
        variant: Option<String>,
        filters: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let spec = filter_spec(filters).map_err(|err| err.into_py_err(py))?;
        let versus = versus.map(|v| filter_spec(Some(v))).transpose().map_err(|err| err.into_py_err(py))?;
        let report = call(py, || {
            let mut options = OpeningOptions::new(spec.filter()?);
            options.label = spec.describe();
            if let Some(versus) = versus {
                options.versus = Some((versus.filter()?, versus.describe()));
            }
            options.depth = depth;
            options.lines = lines;
            options.within = theme_plies;
            if !default_themes {
                options.themes.clear();
            }
            for expression in &themes {
                let theme = Theme::parse(expression, expression)
                    .map_err(|err| Error::input(format!("theme {expression:?}: {err}")))?;
                options.themes.push(theme);
            }
            let target = Target::of(fen, moves, uci)?.resolve_in(crate::pure::variant(variant.as_deref())?)?;
            Ok(OpeningReport::build(&*self.store()?, &target, &options)?)
        })?;
        to_python(py, &report)
    }

    #[pyo3(signature = (name, *, color = None, depth = 8, min_share = 2.0, variant = None, filters = None))]
    #[allow(clippy::too_many_arguments)]
    fn report_player(
        &self,
        py: Python<'_>,
        name: String,
        color: Option<String>,
        depth: usize,
        min_share: f64,
        variant: Option<String>,
        filters: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let spec = filter_spec(filters).map_err(|err| err.into_py_err(py))?;
        let report = call(py, || {
            if spec.player.is_some() || spec.color.is_some() {
                return Err(Error::input("a player report takes the player as its name and color"));
            }
            if !(min_share.is_finite() && (0.0..=100.0).contains(&min_share)) {
                return Err(Error::input("min_share is a percent, 0 to 100"));
            }
            let mut options = PlayerOptions::new(spec.filter()?);
            options.color = self::side(color)?;
            options.depth = depth;
            options.min_share = min_share;
            options.label = spec.describe();
            options.variant = crate::pure::variant(variant.as_deref())?;
            Ok(PlayerReport::build(&*self.store()?, &name, &options)?)
        })?;
        to_python(py, &report)
    }

    #[pyo3(signature = (*, plies = 10, top = 30, variant = None))]
    fn report_database(
        &self,
        py: Python<'_>,
        plies: usize,
        top: usize,
        variant: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let report = call(py, || {
            let options = DatabaseOptions {
                plies,
                top,
                variant: crate::pure::variant(variant.as_deref())?,
                ..DatabaseOptions::default()
            };
            Ok(DatabaseReport::build(&*self.store()?, &options)?)
        })?;
        to_python(py, &report)
    }

    /// Ingests PGN files and directories; the CLI's summary, with the skipped games' messages.
    #[pyo3(signature = (paths, *, rejects = None))]
    fn ingest(&self, py: Python<'_>, paths: Vec<PathBuf>, rejects: Option<PathBuf>) -> PyResult<Py<PyAny>> {
        let answer = call(py, || {
            if self.read_only {
                return Err(Error::Other(format!(
                    "{}: opened read-only: open it with Database(path, read_only=False) to ingest",
                    self.path.display()
                )));
            }
            let Ok(_ingesting) = self.ingesting.try_lock() else {
                return Err(Error::Database(format!(
                    "{}: an ingest is running on this database already",
                    self.path.display()
                )));
            };
            let expansion = input::expand(&paths, Wanted::Pgn)?;
            let store = self.store()?;
            let mut observer = Collect::new(rejects.as_deref())?;
            observer.skipped.extend(expansion.passed_over_lines());
            let files = expansion.files;
            let summary = indexer::ingest(&store, &files, &mut observer)?;
            observer.finish()?;
            Ok(IngestAnswer { summary: IngestSummary::new(&summary, store.path()), skipped: observer.skipped })
        })?;
        to_python(py, &answer)
    }
}

/// What `ingest` returns: the CLI's summary, and the lines it prints on stderr.
#[derive(serde::Serialize)]
struct IngestAnswer {
    #[serde(flatten)]
    summary: IngestSummary,
    /// What the CLI prints on stderr for each skipped game and unreadable input.
    #[serde(rename = "skippedGames")]
    skipped: Vec<String>,
}

/// Collects what the CLI prints on stderr during an ingest, and writes the rejects file.
struct Collect {
    skipped: Vec<String>,
    rejects: Option<(PathBuf, std::io::BufWriter<std::fs::File>)>,
    write_error: Option<std::io::Error>,
}

impl Collect {
    fn new(rejects: Option<&std::path::Path>) -> Result<Collect, Error> {
        let rejects = rejects
            .map(|path| {
                let file = std::fs::File::create(path)
                    .map_err(|err| Error::Other(format!("cannot create {}: {err}", path.display())))?;
                Ok::<_, Error>((path.to_owned(), std::io::BufWriter::new(file)))
            })
            .transpose()?;
        Ok(Collect { skipped: Vec::new(), rejects, write_error: None })
    }

    fn finish(&mut self) -> Result<(), Error> {
        use std::io::Write as _;
        let Some((path, mut out)) = self.rejects.take() else { return Ok(()) };
        match self.write_error.take().map_or_else(|| out.flush(), Err) {
            Ok(()) => Ok(()),
            Err(err) => Err(Error::Other(format!("cannot write {}: {err}", path.display()))),
        }
    }
}

impl Observer for Collect {
    fn rejected(&mut self, file: &str, rejection: &Rejection, raw: &[u8]) {
        use std::io::Write as _;
        self.skipped.push(format!("{file}: {rejection}"));
        if let Some((_, out)) = &mut self.rejects
            && let Err(err) = out.write_all(raw).and_then(|()| out.write_all(b"\n\n"))
        {
            self.write_error.get_or_insert(err);
        }
    }

    fn read_error(&mut self, file: &str, error: &InputError) {
        self.skipped.push(format!("cannot read all of {file}: {error}"));
    }

    fn progress(&mut self, _: &Progress) {}
}

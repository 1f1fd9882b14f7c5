//! Whole-database scans spread over tasks (`tabiya.spark`): the pattern search, the
//! piece-square statistics of `psqt derive` and the database report, each a
//! [`DistributedScan`], driven by one path for all three. A scan is named by its kind and
//! options; its parts are counted once ([`scan_part_count`]), each task computes the partial
//! answer of some parts as bytes ([`scan_partial`]), and the driver merges them into the
//! command line's answer ([`scan_answer`]).

use std::time::Instant;

use pyo3::{
    prelude::*,
    types::{PyBytes, PyDict},
};
use tabiya::{
    explore::{
        DistributedScan, Filter,
        distributed::{from_bytes, to_bytes},
        psqt::DeriveOptions,
    },
    psqt::fit::FitOptions,
    report::database::DatabaseOptions,
    store::ScanProgress,
};

use crate::{
    call,
    database::{Database, PatternArgs, filter_spec},
    errors::Error,
    values::to_python,
};

/// A scan as Python names it.
enum Scan {
    Pattern(tabiya::explore::PatternQuery),
    Psqt(DeriveOptions),
    Report(DatabaseOptions),
}

/// A scan's answer, of whichever kind: serialised as the answer itself.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Answer {
    Pattern(tabiya::explore::PatternSearch),
    Psqt(Box<tabiya::explore::psqt::Derived>),
    Report(Box<tabiya::report::database::DatabaseReport>),
}

impl From<tabiya::explore::PatternSearch> for Answer {
    fn from(answer: tabiya::explore::PatternSearch) -> Answer {
        Answer::Pattern(answer)
    }
}

impl From<tabiya::explore::psqt::Derived> for Answer {
    fn from(answer: tabiya::explore::psqt::Derived) -> Answer {
        Answer::Psqt(Box::new(answer))
    }
}

impl From<tabiya::report::database::DatabaseReport> for Answer {
    fn from(answer: tabiya::report::database::DatabaseReport) -> Answer {
        Answer::Report(Box::new(answer))
    }
}

/// `$body` with `$scan` bound to the scan of whichever kind `$value` is.
macro_rules! with_scan {
    ($value:expr, $scan:ident => $body:expr) => {
        match $value {
            Scan::Pattern($scan) => $body,
            Scan::Psqt($scan) => $body,
            Scan::Report($scan) => $body,
        }
    };
}

/// The keyword options of a scan, each taken once: one left over is a mistake, refused.
struct Options<'a, 'py> {
    given: Option<&'a Bound<'py, PyDict>>,
}

impl<'py> Options<'_, 'py> {
    fn take<T: for<'a> FromPyObject<'a, 'py>>(&self, name: &str) -> Result<Option<T>, Error> {
        let Some(given) = self.given else { return Ok(None) };
        let value = given.get_item(name).map_err(|_| Error::input(format!("option {name}")))?;
        let _ = given.del_item(name);
        match value {
            Some(value) if !value.is_none() => {
                value.extract().map(Some).map_err(|_| Error::input(format!("option {name}: of the wrong type")))
            }
            _ => Ok(None),
        }
    }

    /// An option the scan cannot go without: its default is the caller's (`tabiya.spark.scan`
    /// passes the command line's), not a second copy here.
    fn need<T: for<'a> FromPyObject<'a, 'py>>(&self, kind: &str, name: &str) -> Result<T, Error> {
        self.take(name)?.ok_or_else(|| Error::input(format!("a {kind} scan needs {name}")))
    }

    fn filter(&self) -> Result<Filter, Error> {
        let filters = self.take::<Bound<'py, PyDict>>("filters")?;
        Ok(filter_spec(filters.as_ref())?.filter()?)
    }

    /// Refuses options no scan of this kind takes.
    fn done(&self, kind: &str) -> Result<(), Error> {
        let left: Vec<String> =
            self.given.into_iter().flat_map(|given| given.keys()).filter_map(|key| key.extract().ok()).collect();
        match left.is_empty() {
            true => Ok(()),
            false => Err(Error::input(format!("a {kind} scan takes no option {}", left.join(", ")))),
        }
    }
}

impl Scan {
    /// The scan of `kind` (`pattern`, `psqt` or `report`) with `options` (what the command
    /// line's options say, as keyword arguments; `filters` a dict of its filters).
    fn of(kind: &str, options: Option<&Bound<'_, PyDict>>) -> Result<Scan, Error> {
        // A copy, so that taking options leaves the caller's dict alone.
        let copied = options.map(|options| options.copy()).transpose().map_err(|_| Error::input("options"))?;
        let options = Options { given: copied.as_ref() };
        let scan = match kind {
            "pattern" => {
                let expression = options.need(kind, "expression")?;
                let material = options.take("material")?;
                let side = options.take("side")?;
                let flip_colours = options.take("flip_colours")?.unwrap_or(false);
                let limit = options.need(kind, "limit")?;
                let variant = options.take("variant")?;
                let args = PatternArgs { expression, material, side, flip_colours, limit, variant };
                Scan::Pattern(args.query(options.filter()?)?)
            }
            "psqt" => {
                let fit = FitOptions::default();
                let epochs = options.take("epochs")?.unwrap_or(fit.epochs);
                Scan::Psqt(DeriveOptions {
                    filter: options.filter()?,
                    sample: options.need(kind, "sample")?,
                    seed: options.need(kind, "seed")?,
                    fit: FitOptions { epochs, ..fit },
                    variant: crate::pure::variant(options.take::<String>("variant")?.as_deref())?,
                })
            }
            "report" => {
                let defaults = DatabaseOptions::default();
                Scan::Report(DatabaseOptions {
                    plies: options.take("plies")?.unwrap_or(defaults.plies),
                    top: options.take("top")?.unwrap_or(defaults.top),
                    variant: crate::pure::variant(options.take::<String>("variant")?.as_deref())?,
                    ..defaults
                })
            }
            _ => return Err(Error::input(format!("no scan {kind:?}: pattern, psqt or report"))),
        };
        options.done(kind)?;
        Ok(scan)
    }
}

/// scan_part_count(database, kind, **options) -> int: the number of parts the scan is split
/// in (the same for the same database and options), once the options are checked (before any
/// task starts).
#[pyfunction]
#[pyo3(signature = (database, kind, **options))]
pub fn scan_part_count(
    py: Python<'_>,
    database: &Database,
    kind: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<usize> {
    let scan = Scan::of(kind, options).map_err(|err| err.into_py_err(py))?;
    call(py, || {
        with_scan!(&scan, scan => {
            scan.check()?;
            Ok(scan.part_count(&database.store()?.scan_snapshot())?)
        })
    })
}

/// scan_partial(database, kind, parts, **options) -> bytes: what the parts numbered `parts`
/// hold, as bytes for scan_answer.
#[pyfunction]
#[pyo3(signature = (database, kind, parts, **options))]
pub fn scan_partial(
    py: Python<'_>,
    database: &Database,
    kind: &str,
    parts: Vec<usize>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyBytes>> {
    let scan = Scan::of(kind, options).map_err(|err| err.into_py_err(py))?;
    let bytes = call(py, || {
        let store = database.store()?;
        let view = store.scan_snapshot();
        with_scan!(&scan, scan => Ok(to_bytes(&scan.partial(&view, &parts, &ScanProgress::default())?)))
    })?;
    Ok(PyBytes::new(py, &bytes).unbind())
}

/// scan_answer(database, kind, partials, **options) -> dict: the scan's answer (the command
/// line's `--json`) from the partial answers of all its parts.
#[pyfunction]
#[pyo3(signature = (database, kind, partials, **options))]
pub fn scan_answer(
    py: Python<'_>,
    database: &Database,
    kind: &str,
    partials: Vec<Vec<u8>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let started = Instant::now();
    let scan = Scan::of(kind, options).map_err(|err| err.into_py_err(py))?;
    let answer = call(py, || {
        let store = database.store()?;
        with_scan!(&scan, scan => {
            let partials = partials
                .iter()
                .map(|bytes| from_bytes(bytes).ok_or_else(|| Error::input("not a partial answer of this scan")))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Answer::from(scan.answer(&store.snapshot(), partials, started)?))
        })
    })?;
    to_python(py, &answer)
}

//! The process's memory budget from Python, as the command line's `--memory` and
//! `TABIYA_MEMORY`: [`set_memory_budget`] before the first database is opened, or the variable,
//! read when the module is imported.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::{
    exceptions::PyTypeError,
    prelude::*,
    types::{PyBool, PyInt},
};

use crate::errors::Error;

/// Whether a database was opened: its store took the sizes of the budget of that time.
static OPENED: AtomicBool = AtomicBool::new(false);
/// Whether `TABIYA_MEMORY` set the budget (named when another is refused).
static FROM_ENV: AtomicBool = AtomicBool::new(false);

/// Notes that a database was opened.
pub fn note_opened() {
    OPENED.store(true, Ordering::Relaxed);
}

/// set_memory_budget(size): bounds the memory of the databases opened afterwards, of their
/// ingests and scans, as the command line's `--memory` does: `size` in bytes, or text such as
/// `"256M"` or `"2G"` (160M at the least). Set once in a process, before the first database is
/// opened; `TABIYA_MEMORY`, when set, is read when tabiya is imported. The process's resident
/// memory stays within about the budget plus 128 MiB (the Python interpreter's own aside).
/// For the whole process, as for the command line: glibc's malloc keeps two arenas and maps
/// blocks of 1 MiB and more apart, and threads started without a stack size afterwards (Python's
/// `threading` too: `threading.stack_size()` sets another) get 2 MiB stacks (docs/GUIDE.md,
/// "Memory").
#[pyfunction]
pub fn set_memory_budget(size: &Bound<'_, PyAny>) -> PyResult<()> {
    let bytes = if size.is_instance_of::<PyBool>() {
        None
    } else if let Ok(bytes) = size.extract::<u64>() {
        Some(Ok(bytes))
    } else if let Ok(text) = size.extract::<String>() {
        Some(tabiya::store::parse_size(&text))
    } else if size.is_instance_of::<PyInt>() {
        Some(Err("a memory budget is a number of bytes, 0 or more and below 2^64".to_owned()))
    } else {
        None
    };
    let Some(bytes) = bytes else {
        return Err(PyTypeError::new_err("a memory budget is a number of bytes (an int) or a size such as \"256M\""));
    };
    bytes.and_then(apply).map_err(|message| Error::input(message).into_py_err(size.py()))
}

/// memory_budget() -> int | None: the budget set, in bytes.
#[pyfunction]
pub fn memory_budget() -> Option<u64> {
    tabiya::store::memory_budget()
}

/// Sets the budget from `TABIYA_MEMORY`, when it is set.
pub fn budget_from_env() -> Result<(), Error> {
    let Some(text) = std::env::var_os("TABIYA_MEMORY") else { return Ok(()) };
    tabiya::store::parse_size(&text.to_string_lossy())
        .and_then(apply)
        .map_err(|message| Error::input(format!("TABIYA_MEMORY: {message}")))?;
    FROM_ENV.store(true, Ordering::Relaxed);
    Ok(())
}

fn apply(bytes: u64) -> Result<(), String> {
    if OPENED.load(Ordering::Relaxed) && tabiya::store::memory_budget() != Some(bytes) {
        return Err("set the memory budget before the first database is opened: a database takes the sizes of \
                    the budget set when it opens"
            .to_owned());
    }
    // Another budget than the variable's, one that could be met, is refused naming it.
    let by_env = FROM_ENV.load(Ordering::Relaxed)
        && bytes >= tabiya::store::MIN_MEMORY
        && tabiya::store::memory_budget().is_some_and(|set| set != bytes);
    tabiya::store::set_memory_budget(bytes).map_err(|message| match by_env {
        true => format!("{message} (by TABIYA_MEMORY)"),
        false => message,
    })
}

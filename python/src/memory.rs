//! The process's memory budget from Python, as the command line's `--memory` and
//! `TABIYA_MEMORY`: [`set_memory_budget`] before the first database is opened, or the variable,
//! read when the module is imported.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::prelude::*;

use crate::errors::Error;

/// Whether a `Database` was opened: its store took the sizes of the budget of that time.
static OPENED: AtomicBool = AtomicBool::new(false);

/// Notes that a database is being opened (before its store is).
pub fn note_opened() {
    OPENED.store(true, Ordering::Relaxed);
}

/// set_memory_budget(size): bounds the memory of the databases opened afterwards, of their
/// ingests and scans, as the command line's `--memory` does: `size` in bytes, or text such as
/// `"256M"` or `"2G"` (160M at the least). Set once in a process, before the first database is
/// opened; `TABIYA_MEMORY`, when set, is read when tabiya is imported. The process's resident
/// memory stays within about the budget plus 128 MiB (the Python interpreter's own aside), and
/// glibc's heap keeps its address space near what it uses (docs/GUIDE.md, "Memory").
#[pyfunction]
pub fn set_memory_budget(size: &Bound<'_, PyAny>) -> PyResult<()> {
    let bytes = match size.extract::<u64>() {
        Ok(bytes) => Ok(bytes),
        Err(_) => match size.extract::<String>() {
            Ok(text) => tabiya::store::parse_size(&text),
            Err(_) => Err("a memory budget is a number of bytes or a size such as \"256M\"".to_owned()),
        },
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
        .map_err(|message| Error::input(format!("TABIYA_MEMORY: {message}")))
}

fn apply(bytes: u64) -> Result<(), String> {
    if OPENED.load(Ordering::Relaxed) && tabiya::store::memory_budget() != Some(bytes) {
        return Err("set the memory budget before the first database is opened: a database takes the sizes of \
                    the budget set when it opens"
            .to_owned());
    }
    tabiya::store::set_memory_budget(bytes)
}

//! tabiya's Python binding: a thin layer over the library, as the command line is. Each call
//! that reads the database or parses PGN runs with the GIL released ([`call`]); answers cross as
//! the Python values of the CLI's JSON documents ([`values`]) or as Arrow column buffers
//! ([`columns`]); errors become the exceptions of `tabiya/errors.py` ([`errors`]).

mod chunk;
mod columns;
mod database;
mod distributed;
mod errors;
mod pure;
mod values;

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::prelude::*;

use errors::Error;

/// Runs `work` with the GIL released, so that other Python threads run meanwhile; a panic (a
/// bug in tabiya) becomes a `TabiyaError`, never a crash of the interpreter.
pub(crate) fn call<T: Send>(py: Python<'_>, work: impl FnOnce() -> Result<T, Error> + Send) -> PyResult<T> {
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(work)));
    match outcome {
        Ok(result) => result.map_err(|err| err.into_py_err(py)),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            Err(Error::Internal(what).into_py_err(py))
        }
    }
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add("FORMAT_VERSION", tabiya::store::meta::FORMAT_VERSION)?;
    module.add("RANGE_OCCURRENCES", tabiya::indexer::distributed::RANGE_OCCURRENCES)?;
    module.add_class::<database::Database>()?;
    module.add_class::<database::GameCursor>()?;
    module.add_class::<database::PositionScan>()?;
    module.add_class::<columns::Columns>()?;
    module.add_class::<pure::Pattern>()?;
    module.add_class::<chunk::ParsedChunk>()?;
    module.add_function(wrap_pyfunction!(pure::key, module)?)?;
    module.add_function(wrap_pyfunction!(pure::decode_key, module)?)?;
    module.add_function(wrap_pyfunction!(pure::material, module)?)?;
    module.add_function(wrap_pyfunction!(pure::normalize_fen, module)?)?;
    module.add_function(wrap_pyfunction!(chunk::parse_games, module)?)?;
    module.add_class::<distributed::BatchReader>()?;
    module.add_class::<distributed::Assembly>()?;
    module.add_class::<distributed::RangeWriter>()?;
    module.add_function(wrap_pyfunction!(distributed::read_batches, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::prepare_batch, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::occurrence_parts_of, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::commit_pivots, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::kept_facts, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::range_count, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::write_batch_games, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::next_game_id, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::expand_inputs, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::is_pgn_name, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::fingerprint_parts, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::later_twins, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::pattern_parts, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::pattern_partial, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::pattern_answer, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::psqt_parts, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::psqt_partial, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::psqt_answer, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::report_parts, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::report_partial, module)?)?;
    module.add_function(wrap_pyfunction!(distributed::report_answer, module)?)?;
    Ok(())
}

//! tabiya's Python binding: a thin layer over the library, as the command line is. Each call
//! that reads the database or parses PGN runs with the GIL released ([`call`]); answers cross as
//! the Python values of the CLI's JSON documents ([`values`]) or as Arrow column buffers
//! ([`columns`]); errors become the exceptions of `tabiya/errors.py` ([`errors`]).
//!
//! The files by role: `database.rs` (the `Database` class), `cursors.rs` (its game lists and
//! position listings read page by page), `pure.rs` and `chunk.rs` (functions with no database:
//! keys, materials, patterns, PGN chunks), `memory.rs` (the process's memory budget),
//! `build.rs` (the stages of a build spread over a cluster), `scans.rs` (whole-database scans
//! spread over a cluster).

mod build;
mod chunk;
mod columns;
mod cursors;
mod database;
mod errors;
mod memory;
mod pure;
mod scans;
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
    module.add("MIN_PREFIX_PLIES", tabiya::model::twins::MIN_PREFIX_PLIES)?;
    module.add("KEY_BYTES", tabiya::codec::KEY_LEN)?;
    module.add("FINGERPRINT_BYTES", tabiya::model::Fingerprint::LEN)?;
    memory::budget_from_env().map_err(|err| err.into_py_err(module.py()))?;
    module.add_function(wrap_pyfunction!(memory::set_memory_budget, module)?)?;
    module.add_function(wrap_pyfunction!(memory::memory_budget, module)?)?;
    module.add_class::<database::Database>()?;
    module.add_class::<cursors::GameCursor>()?;
    module.add_class::<cursors::PositionScan>()?;
    module.add_class::<cursors::PositionBatch>()?;
    module.add_class::<columns::Columns>()?;
    module.add_class::<pure::Pattern>()?;
    module.add_class::<chunk::ParsedChunk>()?;
    module.add_function(wrap_pyfunction!(pure::key, module)?)?;
    module.add_function(wrap_pyfunction!(pure::decode_key, module)?)?;
    module.add_function(wrap_pyfunction!(pure::key_variant, module)?)?;
    module.add_function(wrap_pyfunction!(pure::material, module)?)?;
    module.add_function(wrap_pyfunction!(pure::normalize_fen, module)?)?;
    module.add_function(wrap_pyfunction!(chunk::parse_games, module)?)?;
    module.add_class::<build::BatchReader>()?;
    module.add_class::<build::Assembly>()?;
    module.add_class::<build::RangeWriter>()?;
    module.add_function(wrap_pyfunction!(build::expand_inputs, module)?)?;
    module.add_function(wrap_pyfunction!(build::is_pgn_name, module)?)?;
    module.add_function(wrap_pyfunction!(build::read_batches, module)?)?;
    module.add_function(wrap_pyfunction!(build::batch_plan, module)?)?;
    module.add_function(wrap_pyfunction!(build::prepare_batch, module)?)?;
    module.add_function(wrap_pyfunction!(build::fingerprint_parts, module)?)?;
    module.add_function(wrap_pyfunction!(build::later_twins, module)?)?;
    module.add_function(wrap_pyfunction!(build::twin_parts, module)?)?;
    module.add_function(wrap_pyfunction!(build::skipped_twins, module)?)?;
    module.add_function(wrap_pyfunction!(build::kept_bound_keys, module)?)?;
    module.add_function(wrap_pyfunction!(build::commit_pivots, module)?)?;
    module.add_function(wrap_pyfunction!(build::range_count, module)?)?;
    module.add_function(wrap_pyfunction!(build::kept_facts, module)?)?;
    module.add_function(wrap_pyfunction!(build::write_batch_games, module)?)?;
    module.add_function(wrap_pyfunction!(build::next_game_id, module)?)?;
    module.add_function(wrap_pyfunction!(scans::scan_part_count, module)?)?;
    module.add_function(wrap_pyfunction!(scans::scan_partial, module)?)?;
    module.add_function(wrap_pyfunction!(scans::scan_answer, module)?)?;
    Ok(())
}

//! tabiya's errors as Python exceptions: the classes live in `tabiya/errors.py` (so that they
//! can also derive from `ValueError` and `FileNotFoundError`); each message is the one-line
//! message the CLI prints after `tabiya: `.

use pyo3::{prelude::*, sync::PyOnceLock, types::PyType};
use tabiya::{
    codec::{KeyError, MaterialError},
    explore::QueryError,
    indexer::IngestError,
    input::InputError,
    pattern::PatternError,
    position::PositionError,
    store::StoreError,
};

/// Why a call failed, by the exception it raises.
#[derive(Debug)]
pub enum Error {
    /// Bad input: a FEN, moves, a key, a pattern, a signature, a filter (`InvalidInput`).
    Input(String),
    /// No database at the path (`DatabaseNotFound`).
    NotFound(String),
    /// Stored bytes that do not decode, or RocksDB reporting corruption (`CorruptDatabase`).
    Corrupt(String),
    /// The database cannot be used otherwise: locked, of another format, an I/O error
    /// (`DatabaseError`).
    Database(String),
    /// Anything else that failed (`TabiyaError`), such as an input file that cannot be read.
    Other(String),
    /// A bug in tabiya (a panic caught at the boundary; `TabiyaError`), in words of its own.
    Internal(String),
}

/// An error's message as the CLI prints it (`{err:#}`): the error, then each of its sources
/// after `: `.
pub fn message(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        // Errors whose message names their source already (thiserror's `{source}`) say it once.
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

impl Error {
    /// The exception, raised as an instance of its class in `tabiya.errors`.
    pub fn into_py_err(self, py: Python<'_>) -> PyErr {
        let (class, message) = match self {
            Error::Input(m) => ("InvalidInput", m),
            Error::NotFound(m) => ("DatabaseNotFound", m),
            Error::Corrupt(m) => ("CorruptDatabase", m),
            Error::Database(m) => ("DatabaseError", m),
            Error::Other(m) => ("TabiyaError", m),
            Error::Internal(m) => ("TabiyaError", format!("internal error: {m} (a bug in tabiya: please report it)")),
        };
        match exception_class(py, class) {
            Ok(class) => PyErr::from_type(class, message),
            Err(err) => err,
        }
    }

    /// Bad input, in words.
    pub fn input(message: impl Into<String>) -> Error {
        Error::Input(message.into())
    }
}

fn exception_class<'py>(py: Python<'py>, name: &'static str) -> PyResult<Bound<'py, PyType>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let module = MODULE.get_or_try_init(py, || Ok::<_, PyErr>(py.import("tabiya.errors")?.unbind()))?;
    Ok(module.bind(py).getattr(name)?.cast_into::<PyType>()?)
}

impl From<StoreError> for Error {
    fn from(err: StoreError) -> Error {
        let message = message(&err);
        match &err {
            StoreError::Missing { .. } => Error::NotFound(message),
            StoreError::Refused { .. } => Error::Input(message),
            _ if err.is_corruption() => Error::Corrupt(message),
            // Its message says already that it is a bug in tabiya.
            StoreError::Invariant { .. } | StoreError::Tier { .. } => Error::Other(message),
            _ => Error::Database(message),
        }
    }
}

impl From<QueryError> for Error {
    fn from(err: QueryError) -> Error {
        match err {
            QueryError::Input(message) => Error::Input(message),
            QueryError::Store(err) => err.into(),
        }
    }
}

impl From<IngestError> for Error {
    fn from(err: IngestError) -> Error {
        match err {
            IngestError::Store(err) => err.into(),
            other => Error::Other(message(&other)),
        }
    }
}

impl From<InputError> for Error {
    fn from(err: InputError) -> Error {
        Error::Other(message(&err))
    }
}

/// Errors whose every case is the caller's input.
macro_rules! input_errors {
    ($($kind:ty),*) => {$(
        impl From<$kind> for Error {
            fn from(err: $kind) -> Error {
                Error::Input(message(&err))
            }
        }
    )*};
}
input_errors!(PatternError, PositionError, KeyError, MaterialError);

impl From<serde_json::Error> for Error {
    fn from(err: serde_json::Error) -> Error {
        Error::Internal(format!("cannot write JSON: {err}"))
    }
}

//! What needs no database: position keys both ways, material signatures, patterns.

use pyo3::{prelude::*, types::PyBytes};
use tabiya::{
    Key, Material, Position,
    codec::KEY_LEN,
    pattern::{self, Scene},
    position::Variant,
};

use crate::errors::Error;

/// A position from FEN or EPD text (four position fields at least; counters or EPD
/// operations after them are passed over).
pub fn position(fen: &str) -> Result<Position, Error> {
    Ok(Position::from_epd_line(fen)?)
}

/// A variant by its lichess name: `standard` (the default, also `chess`), `chess960`,
/// `kingOfTheHill`, `threeCheck`, `racingKings`, `atomic` or `antichess`.
pub fn variant(name: Option<&str>) -> Result<Variant, Error> {
    match name {
        None => Ok(Variant::Standard),
        Some(name) => name.parse().map_err(|err: tabiya::position::UnknownVariant| Error::input(err.to_string())),
    }
}

/// A key from its 21 bytes or its 42 hexadecimal digits.
pub fn parse_key(key: &Bound<'_, PyAny>) -> Result<Key, Error> {
    if let Ok(bytes) = key.cast::<PyBytes>() {
        let bytes: [u8; KEY_LEN] = bytes
            .as_bytes()
            .try_into()
            .map_err(|_| Error::input(format!("a key is {KEY_LEN} bytes, not {}", bytes.as_bytes().len())))?;
        return Ok(Key::from_bytes(bytes));
    }
    let text: String = key.extract().map_err(|_| Error::input("a key is bytes or a hexadecimal string"))?;
    text.parse::<Key>().map_err(|err| Error::input(format!("cannot decode {text:?}: {err}")))
}

/// key(fen, variant=None) -> bytes: the 21-byte key of a position (FEN or EPD; with
/// `variant="chess960"` a whole X-FEN or Shredder-FEN), as `tabiya key` prints in hexadecimal.
#[pyfunction]
#[pyo3(signature = (fen, variant = None))]
pub fn key<'py>(py: Python<'py>, fen: &str, variant: Option<&str>) -> PyResult<Bound<'py, PyBytes>> {
    let key = crate::call(py, || {
        let position = match self::variant(variant)? {
            Variant::Standard => position(fen)?,
            other => other.parse_fen(fen)?,
        };
        // As `tabiya key` says it.
        Key::encode(&position)
            .map_err(|err| Error::input(format!("no key for {fen:?}: {}", crate::errors::message(&err))))
    })?;
    Ok(PyBytes::new(py, key.as_bytes()))
}

/// decode_key(key) -> str: the position (FEN) of a key, given as bytes or hexadecimal.
#[pyfunction]
pub fn decode_key(py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<String> {
    let key = parse_key(key).map_err(|err| err.into_py_err(py))?;
    crate::call(py, || {
        let position =
            key.decode().map_err(|err| Error::input(format!("cannot decode {:?}: {err}", key.to_string())))?;
        Ok(position.to_string())
    })
}

/// key_variant(key) -> str: the variant whose space a key lies in, by its lichess name
/// (`standard`, `chess960`, `kingOfTheHill`, `threeCheck`, `racingKings`, `atomic`, `antichess`): what a FEN from
/// [`decode_key`] does not say.
#[pyfunction]
pub fn key_variant(py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    let key = parse_key(key).map_err(|err| err.into_py_err(py))?;
    crate::call(py, || {
        // Its first byte names the variant; a key that does not decode names none.
        key.decode().map_err(|err| Error::input(format!("cannot decode {:?}: {err}", key.to_string())))?;
        Ok(key.variant().unwrap_or_default().name())
    })
}

/// material(fen) -> str: the material signature of a position, White v Black (`KRPPvKR`).
#[pyfunction]
pub fn material(py: Python<'_>, fen: &str) -> PyResult<String> {
    crate::call(py, || Ok(Material::of(&position(fen)?).to_string()))
}

/// normalize_fen(fen) -> str: the position as tabiya stores it (en passant only when a
/// capture is legal, counters dropped).
#[pyfunction]
pub fn normalize_fen(py: Python<'_>, fen: &str) -> PyResult<String> {
    crate::call(py, || Ok(position(fen)?.to_string()))
}

/// A pattern expression (docs/GUIDE.md's grammar), parsed once, tested on positions.
#[pyclass(frozen, module = "tabiya._native")]
pub struct Pattern {
    pub(crate) pattern: pattern::Pattern,
    text: String,
}

#[pymethods]
impl Pattern {
    #[new]
    #[pyo3(signature = (expression, *, flip_colours = false))]
    fn new(py: Python<'_>, expression: &str, flip_colours: bool) -> PyResult<Pattern> {
        let pattern = crate::call(py, || Ok(expression.parse::<pattern::Pattern>()?.with_flip(flip_colours)))?;
        Ok(Pattern { pattern, text: expression.to_owned() })
    }

    /// Whether the position (FEN or EPD) matches.
    fn matches(&self, py: Python<'_>, fen: &str) -> PyResult<bool> {
        crate::call(py, || Ok(self.pattern.matches(&mut Scene::of_position(&position(fen)?))))
    }

    /// Whether the position of a key (bytes or hexadecimal) matches.
    fn matches_key(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let key = parse_key(key).map_err(|err| err.into_py_err(py))?;
        crate::call(py, || {
            let position =
                key.decode().map_err(|err| Error::input(format!("cannot decode {:?}: {err}", key.to_string())))?;
            Ok(self.pattern.matches(&mut Scene::of_position(&position)))
        })
    }

    /// The expression.
    #[getter]
    fn expression(&self) -> &str {
        &self.text
    }

    /// Whether the colour-flipped mirror matches too.
    #[getter]
    fn flip_colours(&self) -> bool {
        self.pattern.flip_colours
    }

    fn __repr__(&self) -> String {
        match self.pattern.flip_colours {
            true => format!("Pattern({:?}, flip_colours=True)", self.text),
            false => format!("Pattern({:?})", self.text),
        }
    }
}

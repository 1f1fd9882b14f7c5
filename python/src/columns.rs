//! Columns laid out as Arrow arrays (the columnar format's buffers: validity bitmap, offsets,
//! values), handed to Python as bytes: `tabiya/arrow.py` wraps them into pyarrow arrays with
//! `Array.from_buffers`, so a batch of a million rows costs a copy per buffer, not a million
//! Python objects, and the package needs no Arrow library on the Rust side.

use pyo3::{
    prelude::*,
    types::{PyBytes, PyList, PyString, PyTuple},
};

/// One column's values, kept as Arrow lays them out.
pub enum Column {
    /// Unsigned 64-bit integers.
    U64(Vec<u64>),
    /// Unsigned 32-bit integers.
    U32(Vec<u32>),
    /// Unsigned 16-bit integers, some absent.
    OptionalU16(Vec<Option<u16>>),
    /// 64-bit floats, some absent.
    OptionalF64(Vec<Option<f64>>),
    /// Byte strings of one width (keys, fingerprints): the values end to end.
    Fixed(usize, Vec<u8>),
    /// Strings (UTF-8 when `text`) or byte strings of any length: value `i` is
    /// `data[offsets[i]..offsets[i + 1]]`.
    Variable { text: bool, offsets: Vec<i64>, data: Vec<u8> },
}

impl Column {
    /// A column of strings.
    pub fn text<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> Column {
        Column::variable(true, values.into_iter().map(Utf8))
    }

    /// A column of byte strings.
    pub fn binary(values: impl IntoIterator<Item = Vec<u8>>) -> Column {
        Column::variable(false, values)
    }

    fn variable<B: AsRef<[u8]>>(text: bool, values: impl IntoIterator<Item = B>) -> Column {
        let mut offsets = vec![0];
        let mut data = Vec::new();
        for value in values {
            data.extend_from_slice(value.as_ref());
            // Arrow's 64-bit offsets (large_string): a batch may pass 2 GiB of values.
            offsets.push(data.len() as i64);
        }
        Column::Variable { text, offsets, data }
    }

    /// The Arrow type's name, as `tabiya/arrow.py` maps it.
    fn arrow_type(&self) -> String {
        match self {
            Column::U64(_) => "uint64".to_owned(),
            Column::U32(_) => "uint32".to_owned(),
            Column::OptionalU16(_) => "uint16".to_owned(),
            Column::OptionalF64(_) => "float64".to_owned(),
            Column::Fixed(width, _) => format!("fixed_size_binary[{width}]"),
            Column::Variable { text: true, .. } => "large_string".to_owned(),
            Column::Variable { text: false, .. } => "large_binary".to_owned(),
        }
    }

    /// The value of row `at` as a Python value.
    fn value<'py>(&self, py: Python<'py>, at: usize) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Column::U64(values) => values[at].into_pyobject(py)?.into_any(),
            Column::U32(values) => values[at].into_pyobject(py)?.into_any(),
            Column::OptionalU16(values) => values[at].into_pyobject(py)?.into_any(),
            Column::OptionalF64(values) => values[at].into_pyobject(py)?.into_any(),
            Column::Fixed(width, data) => PyBytes::new(py, &data[at * width..(at + 1) * width]).into_any(),
            Column::Variable { text, offsets, data } => {
                let value = &data[offsets[at] as usize..offsets[at + 1] as usize];
                match text {
                    true => PyString::new(py, &String::from_utf8_lossy(value)).into_any(),
                    false => PyBytes::new(py, value).into_any(),
                }
            }
        })
    }

    /// The Arrow buffers, each written once into Python bytes: validity (None when every value
    /// is present), then offsets for variable-length values, then the values.
    fn buffers<'py>(&self, py: Python<'py>) -> PyResult<Vec<Option<Bound<'py, PyBytes>>>> {
        Ok(match self {
            Column::U64(values) => vec![None, Some(little_endian(py, values, u64::to_le_bytes)?)],
            Column::U32(values) => vec![None, Some(little_endian(py, values, u32::to_le_bytes)?)],
            Column::OptionalU16(values) => {
                let present: Vec<u16> = values.iter().map(|v| v.unwrap_or(0)).collect();
                vec![validity(py, values)?, Some(little_endian(py, &present, u16::to_le_bytes)?)]
            }
            Column::OptionalF64(values) => {
                let present: Vec<f64> = values.iter().map(|v| v.unwrap_or(0.0)).collect();
                vec![validity(py, values)?, Some(little_endian(py, &present, f64::to_le_bytes)?)]
            }
            Column::Fixed(_, data) => vec![None, Some(PyBytes::new(py, data))],
            Column::Variable { offsets, data, .. } => {
                vec![None, Some(little_endian(py, offsets, i64::to_le_bytes)?), Some(PyBytes::new(py, data))]
            }
        })
    }
}

/// A string's bytes.
struct Utf8<S>(S);

impl<S: AsRef<str>> AsRef<[u8]> for Utf8<S> {
    fn as_ref(&self) -> &[u8] {
        self.0.as_ref().as_bytes()
    }
}

/// The validity bitmap of values some of which may be absent (`None` when none is).
fn validity<'py, T>(py: Python<'py>, values: &[Option<T>]) -> PyResult<Option<Bound<'py, PyBytes>>> {
    if values.iter().all(Option::is_some) {
        return Ok(None);
    }
    let bitmap = PyBytes::new_with(py, values.len().div_ceil(8), |bits| {
        for (at, value) in values.iter().enumerate() {
            if value.is_some() {
                bits[at / 8] |= 1 << (at % 8);
            }
        }
        Ok(())
    })?;
    Ok(Some(bitmap))
}

/// Numbers as Arrow stores them (little-endian), written straight into a Python bytes object.
fn little_endian<'py, T: Copy, const N: usize>(
    py: Python<'py>,
    values: &[T],
    bytes: fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, values.len() * N, |buffer| {
        for (slot, &value) in buffer.chunks_exact_mut(N).zip(values) {
            slot.copy_from_slice(&bytes(value));
        }
        Ok(())
    })
}

/// A batch of rows as named columns, to become a `pyarrow.RecordBatch` (`tabiya.arrow`).
#[pyclass(frozen, module = "tabiya._native")]
pub struct Columns {
    length: usize,
    columns: Vec<(&'static str, Column)>,
}

impl Columns {
    /// Named columns of `length` rows each.
    pub fn new(length: usize, columns: Vec<(&'static str, Column)>) -> Columns {
        Columns { length, columns }
    }
}

#[pymethods]
impl Columns {
    /// Rows in the batch.
    fn __len__(&self) -> usize {
        self.length
    }

    /// The columns as (name, Arrow type, buffers) triples; a buffer is bytes or None.
    fn arrow_buffers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for (name, column) in &self.columns {
            let buffers = PyList::new(py, column.buffers(py)?)?;
            list.append((*name, column.arrow_type(), buffers))?;
        }
        Ok(list)
    }

    /// The rows as tuples of Python values (bytes for binary columns, None for absent values).
    fn rows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut rows = Vec::with_capacity(self.length);
        for at in 0..self.length {
            let row: Vec<Bound<'py, PyAny>> =
                self.columns.iter().map(|(_, column)| column.value(py, at)).collect::<PyResult<_>>()?;
            rows.push(PyTuple::new(py, row)?);
        }
        PyList::new(py, rows)
    }

    /// The column names, in order.
    #[getter]
    fn names(&self) -> Vec<&'static str> {
        self.columns.iter().map(|(name, _)| *name).collect()
    }
}

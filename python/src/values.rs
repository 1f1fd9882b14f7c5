//! Rust values as Python values without JSON text between: a serde serializer that builds the
//! dicts, lists, numbers and strings the CLI's `--json` document would parse into (same field
//! names, same order), for the answers read often (an explorer lookup), where writing and
//! parsing the text cost more than the lookup's own tail.

use std::cell::RefCell;

use rustc_hash::FxHashMap;

use pyo3::{
    BoundObject,
    prelude::*,
    types::{PyDict, PyList, PyString},
};
use serde::ser::{self, Serialize};

/// `value` as Python values.
pub fn to_python<T: Serialize>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    NAMES.with(|names| {
        let names = &mut *names.borrow_mut();
        value.serialize(Serializer { py, names: &RefCell::new(names) }).map(Bound::unbind).map_err(|err| err.0)
    })
}

/// A failure of building a value: a Python error, or a shape JSON has no form for.
#[derive(Debug)]
pub struct Error(PyErr);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(message: T) -> Error {
        Error(pyo3::exceptions::PyValueError::new_err(message.to_string()))
    }
}

impl From<PyErr> for Error {
    fn from(err: PyErr) -> Error {
        Error(err)
    }
}

/// Field and variant names as Python strings, by the address and length of their `'static`
/// text.
type Names = FxHashMap<(usize, usize), Py<PyString>>;

thread_local! {
    /// The names made so far on this thread: each is made once.
    static NAMES: RefCell<Names> = RefCell::new(FxHashMap::default());
}

#[derive(Clone, Copy)]
struct Serializer<'py, 'n> {
    py: Python<'py>,
    names: &'n RefCell<&'n mut Names>,
}

impl<'py> Serializer<'py, '_> {
    fn name(self, name: &'static str) -> Bound<'py, PyString> {
        let mut names = self.names.borrow_mut();
        names
            .entry((name.as_ptr() as usize, name.len()))
            .or_insert_with(|| PyString::intern(self.py, name).unbind())
            .bind(self.py)
            .clone()
    }
}

type Value<'py> = Bound<'py, PyAny>;

impl<'py> Serializer<'py, '_> {
    fn any<T: IntoPyObject<'py>>(self, value: T) -> Result<Value<'py>, Error> {
        Ok(value.into_pyobject(self.py).map_err(Into::into)?.into_any().into_bound())
    }
}

/// A list's items being made (sequences, tuples).
struct Sequence<'py, 'n> {
    items: Vec<Value<'py>>,
    serializer: Serializer<'py, 'n>,
}

/// A dict being filled (maps, structs).
struct Map<'py, 'n> {
    dict: Bound<'py, PyDict>,
    key: Option<Value<'py>>,
    serializer: Serializer<'py, 'n>,
}

impl<'py, 'n> ser::Serializer for Serializer<'py, 'n> {
    type Ok = Value<'py>;
    type Error = Error;
    type SerializeSeq = Sequence<'py, 'n>;
    type SerializeTuple = Sequence<'py, 'n>;
    type SerializeTupleStruct = Sequence<'py, 'n>;
    type SerializeTupleVariant = ser::Impossible<Value<'py>, Error>;
    type SerializeMap = Map<'py, 'n>;
    type SerializeStruct = Map<'py, 'n>;
    type SerializeStructVariant = ser::Impossible<Value<'py>, Error>;

    fn serialize_bool(self, v: bool) -> Result<Value<'py>, Error> {
        Ok(pyo3::types::PyBool::new(self.py, v).to_owned().into_any())
    }
    fn serialize_i8(self, v: i8) -> Result<Value<'py>, Error> {
        self.any(v)
    }
    fn serialize_i16(self, v: i16) -> Result<Value<'py>, Error> {
        self.any(v)
    }
    fn serialize_i32(self, v: i32) -> Result<Value<'py>, Error> {
        self.any(v)
    }
    fn serialize_i64(self, v: i64) -> Result<Value<'py>, Error> {
        self.any(v)
    }
    fn serialize_u8(self, v: u8) -> Result<Value<'py>, Error> {
        self.any(v)
    }
    fn serialize_u16(self, v: u16) -> Result<Value<'py>, Error> {
        self.any(v)
    }
    fn serialize_u32(self, v: u32) -> Result<Value<'py>, Error> {
        self.any(v)
    }
    fn serialize_u64(self, v: u64) -> Result<Value<'py>, Error> {
        self.any(v)
    }
    fn serialize_f32(self, v: f32) -> Result<Value<'py>, Error> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Value<'py>, Error> {
        // As serde_json writes it: a number that is not finite becomes null.
        if v.is_finite() { self.any(v) } else { Ok(self.py.None().into_bound(self.py)) }
    }
    fn serialize_char(self, v: char) -> Result<Value<'py>, Error> {
        self.any(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<Value<'py>, Error> {
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value<'py>, Error> {
        // serde_json writes bytes as a list of numbers.
        let list = PyList::empty(self.py);
        for byte in v {
            list.append(*byte)?;
        }
        Ok(list.into_any())
    }
    fn serialize_none(self) -> Result<Value<'py>, Error> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Value<'py>, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value<'py>, Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value<'py>, Error> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<Value<'py>, Error> {
        Ok(self.name(variant).into_any())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<Value<'py>, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value<'py>, Error> {
        let dict = PyDict::new(self.py);
        dict.set_item(self.name(variant), value.serialize(self)?)?;
        Ok(dict.into_any())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Sequence<'py, 'n>, Error> {
        Ok(Sequence { items: Vec::new(), serializer: self })
    }
    fn serialize_tuple(self, len: usize) -> Result<Sequence<'py, 'n>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Sequence<'py, 'n>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(ser::Error::custom(format!("{name}: tuple variants have no Python form here")))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Map<'py, 'n>, Error> {
        Ok(Map { dict: PyDict::new(self.py), key: None, serializer: self })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Map<'py, 'n>, Error> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(ser::Error::custom(format!("{name}: struct variants have no Python form here")))
    }
}

impl<'py, 'n> ser::SerializeSeq for Sequence<'py, 'n> {
    type Ok = Value<'py>;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(self.serializer)?);
        Ok(())
    }
    fn end(self) -> Result<Value<'py>, Error> {
        Ok(PyList::new(self.serializer.py, self.items)?.into_any())
    }
}

impl<'py, 'n> ser::SerializeTuple for Sequence<'py, 'n> {
    type Ok = Value<'py>;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Value<'py>, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl<'py, 'n> ser::SerializeTupleStruct for Sequence<'py, 'n> {
    type Ok = Value<'py>;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Value<'py>, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl<'py, 'n> ser::SerializeMap for Map<'py, 'n> {
    type Ok = Value<'py>;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        let key = key.serialize(self.serializer)?;
        // JSON object keys are strings: numbers become their text, as serde_json writes them.
        self.key = Some(if key.is_instance_of::<PyString>() { key } else { key.str()?.into_any() });
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().ok_or_else(|| <Error as ser::Error>::custom("a map value without its key"))?;
        Ok(self.dict.set_item(key, value.serialize(self.serializer)?)?)
    }
    fn end(self) -> Result<Value<'py>, Error> {
        Ok(self.dict.into_any())
    }
}

impl<'py, 'n> ser::SerializeStruct for Map<'py, 'n> {
    type Ok = Value<'py>;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, name: &'static str, value: &T) -> Result<(), Error> {
        Ok(self.dict.set_item(self.serializer.name(name), value.serialize(self.serializer)?)?)
    }
    fn end(self) -> Result<Value<'py>, Error> {
        Ok(self.dict.into_any())
    }
}

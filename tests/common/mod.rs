//! Helpers shared by the integration tests.
#![allow(dead_code)]

use tabiya::{
    Category, Key, Material, Position,
    codec::{huffman, material_range},
};

/// Round-trips a position through both codecs and checks its key lies in its material range.
pub fn assert_round_trip(position: &Position) -> Key {
    let key = Key::encode(position).unwrap_or_else(|e| panic!("{position}: {e}"));
    assert_eq!(key.decode().as_ref(), Ok(position), "key {key}");
    let material = Material::of(position);
    let range = material_range(Category::of(position), &material).expect("material of a keyed position");
    assert!(range.contains(&key), "{position}: {key} outside {range:?}");
    let packed = huffman::encode(position);
    assert_eq!(huffman::decode(&packed.bytes).as_ref(), Ok(position), "packed {:?}", packed.bytes);
    key
}

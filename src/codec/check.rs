//! Round-trip verification of both codecs over real positions (`tabiya codec check`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Key, Material, huffman, material_range};
use crate::position::{Category, Position};

/// Totals of a check run.
#[derive(Debug, Default, Serialize)]
pub struct CheckReport {
    /// Positions checked.
    pub positions: u64,
    /// Positions whose round trip failed (wrong position back, decode error, key outside its
    /// material range).
    pub failed: u64,
    pub key_bytes: usize,
    pub huffman_bits_mean: f64,
    pub huffman_bits_max: usize,
    /// Inputs that are not keyable standard positions, by reason (not codec failures).
    pub rejected: BTreeMap<String, u64>,
    /// The first failures, described.
    pub failures: Vec<String>,
    #[serde(skip)]
    huffman_bits_sum: u64,
}

/// Failures kept for the report.
const FAILURES_KEPT: usize = 20;

impl CheckReport {
    /// Round-trips one position through the key and the Huffman code.
    pub fn check(&mut self, position: &Position) {
        self.key_bytes = super::KEY_LEN;
        match check_position(position) {
            Ok(Checked::Bits(bits)) => {
                self.positions += 1;
                self.huffman_bits_sum += bits as u64;
                self.huffman_bits_max = self.huffman_bits_max.max(bits);
            }
            Ok(Checked::Unencodable(reason)) => self.reject(reason),
            Err(failure) => {
                self.positions += 1;
                self.failed += 1;
                if self.failures.len() < FAILURES_KEPT {
                    self.failures.push(format!("{position}: {failure}"));
                }
            }
        }
        self.huffman_bits_mean = if self.positions > 0 {
            self.huffman_bits_sum as f64 / self.positions as f64
        } else {
            0.0
        };
    }

    /// Counts an input that is not a position.
    pub fn reject(&mut self, reason: String) {
        *self.rejected.entry(reason).or_default() += 1;
    }

    /// Adds another report's totals.
    pub fn merge(&mut self, other: CheckReport) {
        self.positions += other.positions;
        self.failed += other.failed;
        self.key_bytes = self.key_bytes.max(other.key_bytes);
        self.huffman_bits_sum += other.huffman_bits_sum;
        self.huffman_bits_max = self.huffman_bits_max.max(other.huffman_bits_max);
        for (reason, n) in other.rejected {
            *self.rejected.entry(reason).or_default() += n;
        }
        let room = FAILURES_KEPT.saturating_sub(self.failures.len());
        self.failures.extend(other.failures.into_iter().take(room));
        self.huffman_bits_mean = if self.positions > 0 {
            self.huffman_bits_sum as f64 / self.positions as f64
        } else {
            0.0
        };
    }
}

enum Checked {
    Bits(usize),
    Unencodable(String),
}

fn check_position(position: &Position) -> Result<Checked, String> {
    let key = match Key::encode(position) {
        Ok(key) => key,
        Err(err) => return Ok(Checked::Unencodable(format!("no key: {err}"))),
    };
    let decoded = key
        .decode()
        .map_err(|e| format!("key {key} does not decode: {e}"))?;
    if &decoded != position {
        return Err(format!("key {key} decodes to {decoded}"));
    }
    let range = material_range(Category::of(position), &Material::of(position))
        .map_err(|e| format!("no material range: {e}"))?;
    if !range.contains(&key) {
        return Err(format!(
            "key {key} outside its material range {}..={}",
            range.first, range.last
        ));
    }
    let packed = huffman::encode(position);
    let unpacked = huffman::decode(&packed.bytes)
        .map_err(|e| format!("packed position does not decode: {e}"))?;
    if &unpacked != position {
        return Err(format!("packed position decodes to {unpacked}"));
    }
    Ok(Checked::Bits(packed.bits))
}

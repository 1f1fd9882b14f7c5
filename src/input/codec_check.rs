//! Round-trip verification of both codecs over real positions (`tabiya codec check`): every
//! position of EPD/FEN lists and PGN collections goes through the key and the Huffman code and
//! must come back the same, its key inside its material range.

use std::{collections::BTreeMap, path::PathBuf};

use rayon::prelude::*;

use crate::{
    codec::{KEY_LEN, KeyEncoder, Material, huffman, material_range},
    input::{self, InputError, InputKind, Source, Wanted, read_games, read_position_lines},
    position::{Category, Position},
};

/// Totals of a check run.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// Positions checked.
    pub positions: u64,
    /// Positions whose round trip failed (wrong position back, decode error, key outside its
    /// material range).
    pub failed: u64,
    /// Bytes of a key.
    pub key_bytes: usize,
    /// Longest Huffman code seen, in bits.
    pub huffman_bits_max: usize,
    /// Inputs that are not keyable standard positions, by reason (not codec failures).
    pub rejected: BTreeMap<String, u64>,
    /// The first failures, described.
    pub failures: Vec<String>,
    huffman_bits_sum: u64,
    /// Positions through the Huffman code (standard chess's; Chess960 positions go through the
    /// key alone).
    huffman_positions: u64,
}

/// Failures kept for the report.
const FAILURES_KEPT: usize = 20;

impl CheckReport {
    /// Round-trips one position through the key and the Huffman code; `encoder` keys it (consecutive positions of a game share its
    /// cached material block, which this checks too).
    pub fn check(&mut self, encoder: &mut KeyEncoder, position: &Position) {
        self.key_bytes = KEY_LEN;
        match check_position(encoder, position) {
            Ok(Checked::Bits(bits)) => {
                self.positions += 1;
                if let Some(bits) = bits {
                    self.huffman_positions += 1;
                    self.huffman_bits_sum += bits as u64;
                    self.huffman_bits_max = self.huffman_bits_max.max(bits);
                }
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
    }

    /// Mean Huffman code length of the positions checked.
    pub fn huffman_bits_mean(&self) -> f64 {
        if self.huffman_positions > 0 { self.huffman_bits_sum as f64 / self.huffman_positions as f64 } else { 0.0 }
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
        self.huffman_positions += other.huffman_positions;
        self.huffman_bits_max = self.huffman_bits_max.max(other.huffman_bits_max);
        for (reason, n) in other.rejected {
            *self.rejected.entry(reason).or_default() += n;
        }
        let room = FAILURES_KEPT.saturating_sub(self.failures.len());
        self.failures.extend(other.failures.into_iter().take(room));
    }
}

enum Checked {
    /// Round-tripped; the Huffman code's length, for a standard position.
    Bits(Option<usize>),
    Unencodable(String),
}

fn check_position(encoder: &mut KeyEncoder, position: &Position) -> Result<Checked, String> {
    let key = match encoder.encode(position) {
        Ok(key) => key,
        Err(err) => return Ok(Checked::Unencodable(format!("no key: {err}"))),
    };
    let decoded = key.decode().map_err(|e| format!("key {key} does not decode: {e}"))?;
    if &decoded != position {
        return Err(format!("key {key} decodes to {decoded}"));
    }
    let (range, material) = key.material_block().map_err(|e| format!("no material block: {e}"))?;
    if !range.contains(&key) || material != Material::of(position) {
        return Err(format!("key {key} outside its material range {}..={}", range.first, range.last));
    }
    if position.variant() != crate::position::Variant::Standard {
        // The Huffman code is standard chess's export format.
        return Ok(Checked::Bits(None));
    }
    let standard = material_range(Category::of(position), &material).map_err(|e| format!("no material range: {e}"))?;
    if standard != range {
        return Err(format!("key {key}: its block {range:?} is not its category's material range {standard:?}"));
    }
    let packed = huffman::encode(position);
    let unpacked = huffman::decode(&packed.bytes).map_err(|e| format!("packed position does not decode: {e}"))?;
    if &unpacked != position {
        return Err(format!("packed position decodes to {unpacked}"));
    }
    Ok(Checked::Bits(Some(packed.bits)))
}

/// Positions checked per parallel batch.
const BATCH: usize = 1 << 16;

/// Checks every position of the given inputs (EPD/FEN lists, PGN collections, directories of
/// them), in parallel. `skipped` hears about every input that is not a keyable position.
pub fn check_paths(paths: &[PathBuf], mut skipped: impl FnMut(&str)) -> Result<CheckReport, InputError> {
    let mut report = CheckReport::default();
    let mut batch: Vec<Position> = Vec::with_capacity(BATCH);
    let expansion = input::expand(paths, Wanted::Any)?;
    for line in expansion.passed_over_lines() {
        skipped(&line);
    }
    for file in expansion.files {
        let source = Source::open(&file, None)?;
        let read = match source.kind {
            InputKind::Pgn => read_games(source.reader, |game| match game {
                Ok(game) => {
                    batch.extend(game.mainline().map(|(position, _)| position));
                    if batch.len() >= BATCH {
                        check_batch(&mut batch, &mut report);
                    }
                }
                Err(rejection) => {
                    skipped(&format!("{}: {rejection}", source.name));
                    report.reject(format!("game skipped: {}", rejection.reason));
                }
            }),
            InputKind::PositionLines => read_position_lines(source.reader, &source.name, |line| match line {
                Ok(line) => batch.push(line.position),
                Err(err) => {
                    skipped(&err.to_string());
                    report.reject(err.error.kind().to_owned());
                }
            }),
        };
        read.map_err(|source| InputError::Read { path: file.clone(), source })?;
    }
    check_batch(&mut batch, &mut report);
    Ok(report)
}

fn check_batch(batch: &mut Vec<Position>, report: &mut CheckReport) {
    let partial = batch
        .par_chunks(1024)
        .map(|chunk| {
            let mut partial = CheckReport::default();
            let mut encoder = KeyEncoder::default();
            chunk.iter().for_each(|p| partial.check(&mut encoder, p));
            partial
        })
        .reduce(CheckReport::default, |mut a, b| {
            a.merge(b);
            a
        });
    report.merge(partial);
    batch.clear();
}

//! Piece-square tables, derivations and factorisations as terminal text.

use std::fmt::Write as _;

use crate::{
    explore::psqt::Derived,
    psqt::{Factorisation, PackedTables, PieceTables, TABLES, table_label},
};

/// The tables as 8×8 grids, rank 8 at the top, two tables side by side.
pub fn tables(tables: &PieceTables) -> String {
    let mut out = String::new();
    for pair in (0..TABLES).collect::<Vec<_>>().chunks(2) {
        for &t in pair {
            let _ = write!(out, "{:<42}", format!("{} (value {})", table_label(t), tables.values[t]));
        }
        out.push('\n');
        for rank in (0..8).rev() {
            for &t in pair {
                let _ = write!(out, "{} ", rank + 1);
                for file in 0..8 {
                    let _ = write!(out, "{:>5}", tables.squares[t][rank * 8 + file]);
                }
                out.push_str("   ");
            }
            out.push('\n');
        }
        for _ in pair {
            out.push_str("      a    b    c    d    e    f    g    h   ");
        }
        out.push_str("\n\n");
    }
    out
}

/// A derivation: what it counted, the fit's figures and the fitted tables.
pub fn derived(derived: &Derived) -> String {
    let fit = &derived.fit;
    let mut out = format!(
        "{} distinct positions, {} position occurrences ({} middlegame, {} endgame) in {:.1} s\n\
         fit: {} positions, {} occurrences; loss {:.6} per game (material alone: {:.6})\n\n",
        derived.positions,
        derived.occurrences,
        derived.occupancy.positions[0],
        derived.occupancy.positions[1],
        derived.elapsed_ms as f64 / 1000.0,
        fit.positions,
        fit.occurrences,
        fit.loss,
        fit.material_loss,
    );
    out.push_str(&tables(&fit.tables));
    out
}

/// A component as an 8×8 diagram: `#` where it applies.
pub fn component_diagram(bits: u64) -> Vec<String> {
    (0..8)
        .rev()
        .map(|rank| (0..8).map(|file| if bits >> (rank * 8 + file) & 1 == 1 { '#' } else { '.' }).collect())
        .collect()
}

/// A factorisation: error per iteration, components, weights, piece values and sizes.
pub fn factorisation(found: &Factorisation) -> String {
    let mut out = String::from("components  masked RMS  rank-n floor  max error  generations  time\n");
    for it in &found.iterations {
        let _ = writeln!(
            out,
            "{:>10}  {:>10.2}  {:>12.2}  {:>9}  {:>11}  {:>5.1} s",
            it.components,
            it.masked_rms,
            it.rank_bound_rms,
            it.max_error,
            it.generations,
            it.elapsed_ms as f64 / 1000.0
        );
    }
    let packed = &found.packed;
    out.push_str("\ncomponents (bit 0 = a1), rank 8 at the top:\n");
    for (chunk_index, chunk) in packed.components.chunks(6).enumerate() {
        for (i, bits) in chunk.iter().enumerate() {
            let _ = write!(out, "{:<24}", format!("c{} {bits:#018x}", chunk_index * 6 + i + 1));
        }
        out.push('\n');
        let diagrams: Vec<Vec<String>> = chunk.iter().map(|&bits| component_diagram(bits)).collect();
        for row in 0..8 {
            for diagram in &diagrams {
                let _ = write!(out, "{:<24}", diagram[row]);
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str("weights (rows: components, then piece values / d; columns: tables)\n     ");
    for t in 0..TABLES {
        let _ = write!(out, "{:>10}", table_label(t));
    }
    out.push('\n');
    let n = packed.components.len();
    for (j, row) in packed.weights.iter().enumerate() {
        let label = if j == n { "q/d".to_owned() } else { format!("c{}", j + 1) };
        let _ = write!(out, "{label:<5}");
        for w in row {
            let _ = write!(out, "{w:>10}");
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "\nd = {}; {} literals, {} bytes (lossless: {} literals, {} bytes)",
        packed.divisor,
        packed.literals(),
        packed.bytes(),
        PackedTables::LOSSLESS_LITERALS,
        PackedTables::LOSSLESS_BYTES
    );
    out
}

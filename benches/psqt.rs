//! Piece-square factorisation speed: seed 003's genetic algorithm on PeSTO's published tables
//! (`../shared/datasets/psqt/pesto.csv`, or `TABIYA_DATASETS`), a few components with a fixed
//! number of generations, and unpacking the result. Skipped with a message when the tables are
//! absent. The whole-run figures (quality at 4..16 components, derive on a database) come from
//! `tools/bench/psqt.sh`.

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use tabiya::psqt::{FactoriseOptions, PieceTables, factorise};

fn pesto() -> Option<PieceTables> {
    let dir = std::env::var_os("TABIYA_DATASETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"));
    let text = std::fs::read_to_string(dir.join("psqt/pesto.csv")).ok()?;
    PieceTables::from_csv(&text).ok()
}

fn bench(c: &mut Criterion) {
    let Some(tables) = pesto() else {
        eprintln!("psqt bench: pesto.csv not found: skipped");
        return;
    };
    let mut group = c.benchmark_group("psqt");
    group.sample_size(10);
    for (name, directed) in [("seed mutations", false), ("with directed mutations", true)] {
        // Deterministic work: the same generations on every run (at most 4,000 an iteration).
        let options = FactoriseOptions {
            components: 4,
            generations: 4_000,
            directed,
            polished_children: 0,
            ..FactoriseOptions::default()
        };
        group.bench_function(format!("factorise PeSTO, 4 components, {name}"), |b| {
            b.iter(|| factorise(&tables, &options))
        });
    }
    let found = factorise(
        &tables,
        &FactoriseOptions { components: 12, generations: 2_000, polished_children: 0, ..FactoriseOptions::default() },
    );
    group.bench_function("unpack 12 components", |b| b.iter(|| found.packed.unpack()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Position search on a database of the players collection (built once under target/ when
//! `TABIYA_BENCH_DB` does not name one): explorer lookups (12 moves + 4 top games) over a
//! realistic mix of positions — openings (plies 2–8), middlegames (plies 20–40) and rare
//! positions (ply 60 on) of games spread over the collection — unfiltered and with a rating and
//! date filter; and material searches. Prints p50/p99 per class, then criterion's figures.
//!
//! `cargo bench --bench lookup`

mod common;

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use tabiya::{
    Key,
    explore::{Explorer, Filter, Limits, MaterialQuery, Signature, Target},
    ingest::read_games,
};

/// (class, target) pairs: one position per class from every 100th of the first 100k games.
fn mix() -> Vec<(&'static str, Target)> {
    let mut targets = Vec::new();
    let mut number = 0;
    let source = common::games_source();
    let _ = read_games(source.reader, |game| {
        number += 1;
        let Ok(game) = game else { return };
        if number % 100 != 0 || number > 100_000 {
            return;
        }
        let positions: Vec<_> = game.mainline().map(|(position, _)| position).collect();
        for (class, ply) in [("opening", 2 + number / 100 % 7), ("middlegame", 20 + number / 100 % 21), ("rare", 60)] {
            if let Some(position) = positions.get(ply) {
                let key = Key::encode(position).expect("keyable");
                targets.push((class, Target { position: position.clone(), key, line: Vec::new() }));
            }
        }
    });
    targets
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn lookup(c: &mut Criterion) {
    let store = common::players_db();
    let explorer = Explorer::new(&store);
    let targets = mix();
    let limits = Limits { moves: 12, top: 4, recent: 0 };
    let filtered = Filter::default()
        .with_rating_range(Some(2400), None)
        .and_then(|f| f.with_dates(Some("2000"), None))
        .expect("filter");
    for (name, filter) in [("unfiltered", Filter::default()), ("rating >= 2400, since 2000", filtered.clone())] {
        // One warm-up pass (block cache), then one timed pass.
        for (_, target) in &targets {
            explorer.lookup(target, &filter, &limits).expect("lookup");
        }
        let mut by_class: std::collections::BTreeMap<&str, Vec<Duration>> = Default::default();
        for (class, target) in &targets {
            let start = Instant::now();
            let answer = explorer.lookup(target, &filter, &limits).expect("lookup");
            let elapsed = start.elapsed();
            std::hint::black_box(answer);
            by_class.entry(class).or_default().push(elapsed);
            by_class.entry("all").or_default().push(elapsed);
        }
        for (class, mut times) in by_class {
            times.sort();
            println!(
                "lookup {name}, {class}: {} positions, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
                times.len(),
                percentile(&times, 0.5).as_secs_f64() * 1e3,
                percentile(&times, 0.99).as_secs_f64() * 1e3,
                times.last().map_or(0.0, |t| t.as_secs_f64() * 1e3)
            );
        }
    }
    let mut group = c.benchmark_group("lookup");
    group.measurement_time(Duration::from_secs(10));
    let mut cycle = targets.iter().cycle();
    group.bench_function("mix unfiltered", |b| {
        b.iter(|| explorer.lookup(&cycle.next().expect("targets").1, &Filter::default(), &limits).expect("lookup"))
    });
    group.bench_function("mix filtered", |b| {
        b.iter(|| explorer.lookup(&cycle.next().expect("targets").1, &filtered, &limits).expect("lookup"))
    });
    let start = Target::resolve(None, None, None).expect("initial position");
    group.bench_function("initial position filtered", |b| {
        b.iter(|| explorer.lookup(&start, &filtered, &limits).expect("lookup"))
    });
    group.finish();

    let mut group = c.benchmark_group("material");
    group.sample_size(10);
    for signature in ["KRPPPPvKRPPPP", "KRP*vKRP*", "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP"] {
        let query = MaterialQuery {
            signature: signature.parse::<Signature>().expect("signature"),
            side: None,
            castling: None,
            limit: 20,
        };
        let found = query.run(&store).expect("search");
        println!("material {signature}: {} positions, {} games", found.positions, found.occurrences);
        group.bench_function(signature, |b| b.iter(|| query.run(&store).expect("search")));
    }
    group.finish();
}

criterion_group!(benches, lookup);
criterion_main!(benches);

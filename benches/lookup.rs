//! Position search on a database of the players collection (built once under target/ when
//! `TABIYA_BENCH_DB` does not name one): explorer lookups (12 moves + 4 top games) over a
//! realistic mix of positions — openings (plies 2–8), middlegames (plies 20–40) and rare
//! positions (ply 60 on) of games spread over the collection — unfiltered and with a rating and
//! date filter; the initial position filtered from its summary, with the summary built anew, and
//! game by game; each header filter on the initial position and a rare one; and material
//! searches. Prints p50/p99 per class, then criterion's figures.
//!
//! `cargo bench --bench lookup`

mod common;

use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use tabiya::{
    explore::{Filter, FilterSpec, Limits, Lookup, MaterialQuery, ResolvedTarget, Signature, Target},
    store::{SUMMARY_BUDGET, SUMMARY_MIN_GAMES},
};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn lookup(c: &mut Criterion) {
    let store = common::players_db();
    let targets = common::mix();
    let limits = Limits { moves: 12, top: 4, recent: 0, history: false };
    let filtered = Filter::default()
        .with_rating_range(Some(2400), None)
        .and_then(|f| f.with_dates(Some("2000"), None))
        .expect("filter");
    let lookups = |filter: &Filter| -> Vec<(&str, Lookup)> {
        let lookup = |target: &ResolvedTarget| Lookup { target: target.clone(), filter: filter.clone(), limits };
        targets.iter().map(|(class, target)| (*class, lookup(target))).collect()
    };
    let (unfiltered, filtered) = (lookups(&Filter::default()), lookups(&filtered));
    for (name, lookups) in [("unfiltered", &unfiltered), ("rating >= 2400, since 2000", &filtered)] {
        // One warm-up pass (block cache), then one timed pass.
        for (_, lookup) in lookups {
            lookup.run(&store).expect("lookup");
        }
        let mut by_class: std::collections::BTreeMap<&str, Vec<Duration>> = Default::default();
        for (class, lookup) in lookups {
            let start = Instant::now();
            let answer = lookup.run(&store).expect("lookup");
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
    header_filters(&store, limits);
    let mut group = c.benchmark_group("lookup");
    group.measurement_time(Duration::from_secs(10));
    for (name, lookups) in [("mix unfiltered", &unfiltered), ("mix filtered", &filtered)] {
        let mut cycle = lookups.iter().cycle();
        group.bench_function(name, |b| b.iter(|| cycle.next().expect("lookups").1.run(&store).expect("lookup")));
    }
    let start = Target::initial().resolve().expect("initial position");
    let start = Lookup { target: start, filter: filtered[0].1.filter.clone(), limits };
    group.bench_function("initial position filtered", |b| b.iter(|| start.run(&store).expect("lookup")));
    // The same answer with the position's summary built anew each time, and with every game
    // counted on its own (no summaries), side by side.
    // (A summary is built the second time its position is asked for.)
    let fresh = || {
        store.snapshot().summaries().configure(SUMMARY_MIN_GAMES, SUMMARY_BUDGET);
        start.run(&store).expect("lookup");
    };
    group.bench_function("initial position filtered, its summary built", |b| {
        b.iter_batched(fresh, |()| start.run(&store).expect("lookup"), BatchSize::PerIteration)
    });
    store.snapshot().summaries().configure(u64::MAX, 0);
    group.bench_function("initial position filtered, game by game", |b| b.iter(|| start.run(&store).expect("lookup")));
    let mut cycle = filtered.iter().cycle();
    group.bench_function("mix filtered, game by game", |b| {
        b.iter(|| cycle.next().expect("lookups").1.run(&store).expect("lookup"))
    });
    fresh();
    group.finish();

    let mut group = c.benchmark_group("material");
    group.sample_size(10);
    for signature in ["KRPPPPvKRPPPP", "KRP*vKRP*", "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP"] {
        let query = MaterialQuery {
            signature: signature.parse::<Signature>().expect("signature"),
            side: None,
            castling: None,
            limit: 20,
            filter: Filter::default(),
            variant: Default::default(),
        };
        let found = query.run(&store).expect("search");
        println!("material {signature}: {} positions, {} games", found.positions, found.occurrences);
        group.bench_function(signature, |b| b.iter(|| query.run(&store).expect("search")));
    }
    group.finish();
}

/// Each header filter on the initial position (every game read) and on a rare position: the
/// median of 9 timed lookups after one warm-up (which loads the header facts once), and the
/// games kept.
fn header_filters(store: &tabiya::store::Store, limits: Limits) {
    let specs: [(&str, FilterSpec); 11] = [
        ("--min-elo 2600", FilterSpec { min_elo: Some(2600), ..FilterSpec::default() }),
        ("--max-elo 2200", FilterSpec { max_elo: Some(2200), ..FilterSpec::default() }),
        ("--event olympiad", FilterSpec { event: Some("olympiad".into()), ..FilterSpec::default() }),
        ("--site wijk", FilterSpec { site: Some("wijk".into()), ..FilterSpec::default() }),
        ("--result 1/2-1/2", FilterSpec { result: Some("1/2-1/2".into()), ..FilterSpec::default() }),
        ("--eco B20-B99", FilterSpec { eco: Some("B20-B99".into()), ..FilterSpec::default() }),
        (
            "--date-from 2000-06-15 --date-to 2010",
            FilterSpec { date_from: Some("2000-06-15".into()), date_to: Some("2010".into()), ..FilterSpec::default() },
        ),
        ("--min-plies 100", FilterSpec { min_plies: Some(100), ..FilterSpec::default() }),
        (
            "--player \"Carlsen, Magnus\" --opponent Anand",
            FilterSpec {
                player: Some("Carlsen, Magnus".into()),
                opponent: Some("Anand".into()),
                ..FilterSpec::default()
            },
        ),
        (
            "--player \"Carlsen, Magnus\"",
            FilterSpec { player: Some("Carlsen, Magnus".into()), ..FilterSpec::default() },
        ),
        (
            "--eco C00-C99 --min-elo 2500 --date-from 2005",
            FilterSpec {
                eco: Some("C00-C99".into()),
                min_elo: Some(2500),
                date_from: Some("2005".into()),
                ..FilterSpec::default()
            },
        ),
    ];
    let positions = [
        ("initial position", Target::initial()),
        (
            "after 1. e4 c5 2. Nf3 d6 3. g3 Nc6 4. Bg2 Nf6 5. d3",
            Target::san("1. e4 c5 2. Nf3 d6 3. g3 Nc6 4. Bg2 Nf6 5. d3"),
        ),
    ];
    for (where_, target) in positions {
        let target = target.resolve().expect("a position");
        for (name, spec) in &specs {
            let lookup = Lookup { target: target.clone(), filter: spec.filter().expect("a filter"), limits };
            let answer = lookup.run(store).expect("lookup");
            let mut times: Vec<Duration> = (0..9)
                .map(|_| {
                    let start = Instant::now();
                    std::hint::black_box(lookup.run(store).expect("lookup"));
                    start.elapsed()
                })
                .collect();
            times.sort();
            println!(
                "header filter {name}, {where_}: {} games kept, median {:.1} ms (with the 12 moves' reached)",
                answer.games,
                times[4].as_secs_f64() * 1e3
            );
        }
    }
}

criterion_group!(benches, lookup);
criterion_main!(benches);

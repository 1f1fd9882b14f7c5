//! The games' facts and header facts held whole against read a page at a time (as a memory
//! budget too small for them does), side by side in one run on one database (players, built
//! once under target/, or `TABIYA_BENCH_DB`) opened four times: whole; in pages of 1,024
//! games (a budget's), every page kept; in pages, a quarter of the facts' pages kept (most
//! reads miss); in pages of 4,096 games, a quarter kept.
//! Filtered lookups counted game by game (no summaries): the mix of positions, the initial
//! position, header filters on it; and a filtered material search. Prints medians per store and
//! their ratios to the whole store's, then criterion's figures.
//!
//! `cargo bench --bench game_records`

mod common;

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use tabiya::{
    explore::{Filter, FilterSpec, Limits, Lookup, MaterialQuery, Target},
    store::Store,
};

/// Games a page holds, as a budget reads them.
const PAGE_GAMES: u64 = 1024;

/// The stores: a name, and the games a page and bytes of pages kept (`None`: whole).
fn stores() -> Vec<(&'static str, Store)> {
    let path = common::players_db_path();
    let open = |pages: Option<(u64, u64)>| {
        let store = Store::open_read_only(&path).expect("benchmark database");
        if let Some((games, bytes)) = pages {
            store.read_game_records_in_pages(games, bytes);
        }
        // Every game counted on its own: the facts are what is measured.
        store.snapshot().summaries().configure(u64::MAX, 0);
        store
    };
    let whole = open(None);
    let quarter = whole.totals().expect("totals").next_game_id * 8 / 4;
    vec![
        ("whole", whole),
        ("pages, all kept", open(Some((PAGE_GAMES, 64 << 20)))),
        ("pages, a quarter kept", open(Some((PAGE_GAMES, quarter)))),
        ("pages of 4,096 games, a quarter kept", open(Some((4096, quarter)))),
    ]
}

/// A query timed, by name.
type Query = (String, Box<dyn Fn(&Store)>);

/// The queries timed: filtered lookups and a filtered material search.
fn queries() -> Vec<Query> {
    let limits = Limits { moves: 12, top: 4, recent: 0, history: false };
    let rated = Filter::default()
        .with_rating_range(Some(2400), None)
        .and_then(|f| f.with_dates(Some("2000"), None))
        .expect("filter");
    let mut queries: Vec<Query> = Vec::new();
    let mix: Vec<Lookup> =
        common::mix().into_iter().map(|(_, target)| Lookup { target, filter: rated.clone(), limits }).collect();
    queries.push((
        format!("mix of {} positions, rating >= 2400 since 2000", mix.len()),
        Box::new(move |store| {
            for lookup in &mix {
                std::hint::black_box(lookup.run(store).expect("lookup"));
            }
        }),
    ));
    let start = Target::initial().resolve().expect("initial position");
    let specs = [
        ("initial position, rating >= 2400 since 2000", rated.clone()),
        ("initial position, --eco B20-B99", spec(FilterSpec { eco: Some("B20-B99".into()), ..FilterSpec::default() })),
        (
            "initial position, --event olympiad",
            spec(FilterSpec { event: Some("olympiad".into()), ..FilterSpec::default() }),
        ),
        (
            "initial position, --date-from 2000-06-15 --date-to 2010",
            spec(FilterSpec {
                date_from: Some("2000-06-15".into()),
                date_to: Some("2010".into()),
                ..Default::default()
            }),
        ),
    ];
    for (name, filter) in specs {
        let lookup = Lookup { target: start.clone(), filter, limits };
        queries.push((name.to_owned(), Box::new(move |store| drop(std::hint::black_box(lookup.run(store))))));
    }
    let material = MaterialQuery {
        signature: "KRPPPPvKRPPPP".parse().expect("signature"),
        side: None,
        castling: None,
        limit: 20,
        filter: rated,
        variant: Default::default(),
    };
    queries.push((
        "material KRPPPPvKRPPPP, rating >= 2400 since 2000".to_owned(),
        Box::new(move |store| drop(std::hint::black_box(material.run(store).expect("search")))),
    ));
    queries
}

fn spec(spec: FilterSpec) -> Filter {
    spec.filter().expect("a filter")
}

fn game_records(c: &mut Criterion) {
    let stores = stores();
    let queries = queries();
    // Each query on each store in turn, 5 rounds after a warm-up: the stores share the machine's
    // noise.
    for (name, query) in &queries {
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); stores.len()];
        for round in 0..6 {
            for ((_, store), times) in stores.iter().zip(&mut times) {
                let start = Instant::now();
                query(store);
                if round > 0 {
                    times.push(start.elapsed());
                }
            }
        }
        let median = |times: &mut Vec<Duration>| {
            times.sort();
            times[times.len() / 2].as_secs_f64() * 1e3
        };
        let whole = median(&mut times[0].clone());
        for ((store, _), times) in stores.iter().zip(&mut times) {
            let ms = median(times);
            println!("{name}, {store}: median {ms:.2} ms, {:.2} times whole", ms / whole);
        }
    }
    for (store, opened) in &stores {
        let kept = opened.snapshot().facts().table().expect("facts").pages_kept();
        println!("{store}: facts pages kept {:?} bytes", kept);
    }
    let mut group = c.benchmark_group("game records");
    group.sample_size(10);
    for (name, query) in queries.iter().skip(1).take(1) {
        for (store, opened) in &stores {
            group.bench_function(format!("{name}, {store}"), |b| b.iter(|| query(opened)));
        }
    }
    group.finish();
}

criterion_group!(benches, game_records);
criterion_main!(benches);

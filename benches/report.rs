//! Reports on a database of the players collection (built once under target/ when
//! `TABIYA_BENCH_DB` does not name one): the opening report after 1. e4 c5 and after 1. e4 (every
//! game reaching the position read and replayed), the player report of Carlsen, the database
//! report (every game read, the endgame table from key ranges), each built and written as HTML.
//! Targets: 1 s, 3 s and 60 s for the opening reports and the database report.
//!
//! `cargo bench --bench report`

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use tabiya::{
    explore::{Filter, Target},
    render::report::Report,
    report::{
        database::{DatabaseOptions, DatabaseReport},
        opening::{OpeningOptions, OpeningReport},
        player::{PlayerOptions, PlayerReport},
    },
};

fn reports(c: &mut Criterion) {
    let store = common::players_db();
    let mut group = c.benchmark_group("report");
    group.sample_size(10);
    for moves in ["1. e4 c5", "1. e4"] {
        let target = Target::san(moves).resolve().expect("a legal line");
        let options = OpeningOptions::new(Filter::default());
        let games = OpeningReport::build(&store, &target, &options).expect("report").subsets[0].overview.games;
        println!("opening report after {moves}: {games} games");
        group.bench_function(format!("opening {moves} (html)"), |b| {
            b.iter(|| OpeningReport::build(&store, &target, &options).expect("report").html().len())
        });
    }
    let options = PlayerOptions::new(Filter::default());
    group.bench_function("player carlsen (html)", |b| {
        b.iter(|| PlayerReport::build(&store, "carlsen", &options).expect("report").html().len())
    });
    group.sample_size(10).measurement_time(std::time::Duration::from_secs(60));
    group.bench_function("database (html)", |b| {
        b.iter(|| DatabaseReport::build(&store, &DatabaseOptions::default()).expect("report").html().len())
    });
    group.finish();
}

criterion_group!(benches, reports);
criterion_main!(benches);

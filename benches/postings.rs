//! Decoding posting lists of a players database (see `common::players_db`), by density class:
//! tabiya's stored form (Leapfrog or delta varints, whichever is smaller), Leapfrog's full
//! decode, delta varints, and the `roaring` crate's bitmap iterated into the same vector; ids
//! per second. Sizes over every list of a database: `cargo run --release --example
//! postings-report -- DB_DIR`.
//!
//! `cargo bench --bench postings`

mod common;

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use roaring::RoaringTreemap;
use tabiya::postings::{DENSITY_CLASSES, Ids, PostingList, density_class, leapfrog, write_deltas};

/// Ids gathered per class (enough for stable timings, few enough to gather quickly).
const IDS_PER_CLASS: usize = 2_000_000;

struct Class {
    lists: Vec<PostingList>,
    leapfrog: Vec<(u64, Vec<u8>)>,
    deltas: Vec<Vec<u8>>,
    roaring: Vec<RoaringTreemap>,
    ids: usize,
}

fn postings(c: &mut Criterion) {
    let store = common::players_db();
    let mut classes: Vec<Class> = DENSITY_CLASSES
        .iter()
        .map(|_| Class { lists: vec![], leapfrog: vec![], deltas: vec![], roaring: vec![], ids: 0 })
        .collect();
    let view = store.scan_snapshot();
    for item in view.scanner().each(|position| position.games()) {
        let (_, list) = item.expect("readable database");
        let ids: Vec<u64> = list.iter().map(|id| id.0).collect();
        let class = &mut classes[density_class(&ids)];
        if class.ids >= IDS_PER_CLASS {
            if classes.iter().all(|c| c.ids >= IDS_PER_CLASS) {
                break;
            }
            continue;
        }
        class.ids += ids.len();
        let mut code = Vec::new();
        leapfrog::encode(&ids, ids[0], &mut code);
        class.leapfrog.push((ids[0], code));
        let mut deltas = Vec::new();
        write_deltas(&ids, &mut deltas);
        class.deltas.push(deltas);
        class.roaring.push(RoaringTreemap::from_sorted_iter(ids.iter().copied()).expect("sorted ids"));
        class.lists.push(list);
    }
    let mut group = c.benchmark_group("postings");
    group.measurement_time(Duration::from_secs(5)).sample_size(20);
    for (name, class) in DENSITY_CLASSES.iter().zip(&classes) {
        if class.ids == 0 {
            continue;
        }
        let bytes: usize = class.lists.iter().map(|l| l.as_bytes().len()).sum();
        let roaring: usize = class.roaring.iter().map(|r| r.serialized_size()).sum();
        println!(
            "{name}: {} lists, {} ids; bytes per id: stored {:.3}, roaring {:.3}",
            class.lists.len(),
            class.ids,
            bytes as f64 / class.ids as f64,
            roaring as f64 / class.ids as f64
        );
        group.throughput(Throughput::Elements(class.ids as u64));
        let mut out = Vec::with_capacity(class.ids);
        group.bench_function(format!("{name}/stored"), |b| {
            b.iter(|| {
                let mut n = 0;
                for list in &class.lists {
                    n += list.to_vec().len();
                }
                n
            })
        });
        group.bench_function(format!("{name}/leapfrog"), |b| {
            b.iter(|| {
                out.clear();
                for (first, code) in &class.leapfrog {
                    leapfrog::decode_into(code, *first, &mut out).expect("valid code");
                }
                out.len()
            })
        });
        group.bench_function(format!("{name}/delta varint"), |b| {
            b.iter(|| {
                out.clear();
                for bytes in &class.deltas {
                    out.extend(Ids::Deltas { bytes, previous: None });
                }
                out.len()
            })
        });
        group.bench_function(format!("{name}/roaring"), |b| {
            b.iter(|| {
                out.clear();
                for bitmap in &class.roaring {
                    out.extend(bitmap.iter());
                }
                out.len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, postings);
criterion_main!(benches);

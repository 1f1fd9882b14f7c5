//! Sizes of every posting list of a database, by density class: as tabiya stores them (Leapfrog
//! or delta varints, whichever is smaller; a one-game list is implied by its position's value and
//! costs nothing), Leapfrog alone, delta varints alone, and the `roaring` crate's serialized
//! bitmap of the same ids.
//!
//! `cargo run --release --example postings-report -- DB_DIR`

use roaring::RoaringTreemap;
use tabiya::{
    postings::{DENSITY_CLASSES, PostingList, deltas_len, density_class, leapfrog_len},
    store::Store,
};

#[derive(Default, Clone, Copy)]
struct Sizes {
    lists: u64,
    ids: u64,
    stored: u64,
    leapfrog: u64,
    deltas: u64,
    roaring: u64,
}

fn main() -> anyhow::Result<()> {
    let path = std::env::args_os().nth(1).ok_or_else(|| anyhow::anyhow!("usage: postings-report DB_DIR"))?;
    let store = Store::open_read_only(path.as_ref())?;
    let mut classes = [Sizes::default(); DENSITY_CLASSES.len()];
    let view = store.scan_snapshot();
    for item in view.scanner().each(|position| position.games()) {
        let (_, list) = item?;
        let ids: Vec<u64> = list.iter().map(|id| id.0).collect();
        let class = &mut classes[density_class(&ids)];
        class.lists += 1;
        class.ids += ids.len() as u64;
        class.stored += if ids.len() == 1 { 0 } else { list.as_bytes().len() as u64 };
        // Leapfrog as a stored form (with its tag); delta varints plain.
        class.leapfrog += 1 + leapfrog_len(&ids) as u64;
        class.deltas += deltas_len(&ids) as u64;
        class.roaring += RoaringTreemap::from_sorted_iter(ids.iter().copied())?.serialized_size() as u64;
        debug_assert_eq!(PostingList::encode(&list.to_vec()).as_bytes(), list.as_bytes());
    }
    println!(
        "{:<8} {:>10} {:>11} {:>10} {:>10} {:>10} {:>10}",
        "density", "lists", "ids", "stored", "leapfrog", "deltas", "roaring"
    );
    let mut total = Sizes::default();
    for (name, c) in DENSITY_CLASSES.iter().zip(&classes) {
        print_row(name, c);
        total.lists += c.lists;
        total.ids += c.ids;
        total.stored += c.stored;
        total.leapfrog += c.leapfrog;
        total.deltas += c.deltas;
        total.roaring += c.roaring;
    }
    print_row("all", &total);
    let multi = Sizes { lists: total.lists - classes[0].lists, ids: total.ids - classes[0].ids, ..total };
    let multi = Sizes {
        leapfrog: multi.leapfrog - classes[0].leapfrog,
        deltas: multi.deltas - classes[0].deltas,
        roaring: multi.roaring - classes[0].roaring,
        ..multi
    };
    print_row("2+ ids", &multi);
    println!(
        "bytes per id over lists of 2+ ids: stored {:.3}, roaring {:.3} (stored / roaring {:.3})",
        multi.stored as f64 / multi.ids as f64,
        multi.roaring as f64 / multi.ids as f64,
        multi.stored as f64 / multi.roaring as f64
    );
    Ok(())
}

fn print_row(name: &str, c: &Sizes) {
    println!(
        "{name:<8} {:>10} {:>11} {:>10} {:>10} {:>10} {:>10}",
        c.lists, c.ids, c.stored, c.leapfrog, c.deltas, c.roaring
    );
}

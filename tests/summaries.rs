//! Filtered lookups of popular positions answered from their games summed by slice (the
//! store's summaries) against the same lookups counting every game one by one, on real games.

use std::collections::BTreeSet;

use tabiya::{
    explore::{Filter, Limits, Lookup, ResolvedTarget, Target},
    indexer,
    model::GameId,
    store::Store,
};

use crate::datasets::players_head;

/// Every filter made of slices a user may send: years and months, either bound or both, rating
/// bands, speeds, and their combinations; and none.
fn filters() -> Vec<Filter> {
    let dates = [
        (None, None),
        (Some("2010"), None),
        (None, Some("1990")),
        (Some("1995"), Some("2005")),
        (Some("2003-04"), Some("2003-09")),
        (Some("1999-12"), None),
        (Some("1850"), Some("1900")),
        (Some("2030"), None),
    ];
    let ratings = [(None, None), (Some(2500), None), (Some(2200), Some(2600)), (None, Some(2400))];
    let speeds = [None, Some("classical"), Some("blitz,rapid"), Some("unknown,classical")];
    let mut filters = Vec::new();
    for (at, &(since, until)) in dates.iter().enumerate() {
        for (ratings_at, &(min, max)) in ratings.iter().enumerate() {
            // Every date with every rating range; speeds on a few of them.
            let speeds = if (at + ratings_at) % 3 == 0 { &speeds[..] } else { &speeds[..1] };
            for &speed in speeds {
                let filter = Filter::default()
                    .with_dates(since, until)
                    .and_then(|filter| filter.with_rating_range(min, max))
                    .and_then(|filter| filter.with_speeds(speed))
                    .unwrap();
                // Unfiltered too: its monthly history from the summaries.
                filters.push(filter);
            }
        }
    }
    filters
}

/// The positions of the first 8 plies of the first 400 games, each once.
fn opening_targets(store: &Store) -> Vec<ResolvedTarget> {
    let mut lines = BTreeSet::new();
    for id in 1..=400 {
        let record = store.snapshot().games().get(GameId(id)).unwrap().unwrap();
        let moves: Vec<String> = record.moves().take(8).map(|m| m.unwrap().to_string()).collect();
        for plies in 0..=moves.len() {
            lines.insert(moves[..plies].join(","));
        }
    }
    lines.into_iter().map(|line| Target::uci(&line).resolve().unwrap()).collect()
}

#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn filtered_lookups_of_summarised_positions_equal_the_games_counted_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = players_head(dir.path(), 20_000);
    let store = Store::open(&dir.path().join("db")).unwrap();
    indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver).unwrap();
    let targets = opening_targets(&store);
    let filters = filters();
    let limits = Limits { moves: 40, top: 15, recent: 8, history: true };
    let answer = |target: &ResolvedTarget, filter: &Filter| {
        let lookup = Lookup { target: target.clone(), filter: filter.clone(), limits };
        serde_json::to_string(&lookup.run(&store).unwrap()).unwrap()
    };
    // One by one: no position summarised.
    store.snapshot().summaries().configure(u64::MAX, 0);
    let mut counted = Vec::new();
    let mut popular = 0;
    for target in &targets {
        let games = store
            .snapshot()
            .positions()
            .get(&target.key, tabiya::store::Detail::Head)
            .unwrap()
            .map_or(0, |stats| stats.total.games);
        popular += usize::from(games >= 30);
        for filter in &filters {
            counted.push(answer(target, filter));
        }
    }
    assert!(popular >= 50, "only {popular} positions of 30 games or more");
    // Summarised from 30 games on (the initial position's summary has thousands of slices, in
    // three levels of sums): built on a position's second lookup, then read from memory; and
    // again with a budget so small that no summary is kept (each position then counted game
    // by game after the summary built once).
    for (min_games, budget) in [(30, 1 << 40), (30, 1 << 16)] {
        store.snapshot().summaries().configure(min_games, budget);
        for round in 0..2 {
            let mut expected = counted.iter();
            for target in &targets {
                for filter in &filters {
                    let got = answer(target, filter);
                    assert_eq!(
                        &got,
                        expected.next().unwrap(),
                        "{} {filter:?} (round {round}, budget {budget})",
                        target.key
                    );
                }
            }
        }
    }

    // A later commit: the summaries of the earlier games, all in memory, are not answered from.
    store.snapshot().summaries().configure(30, 1 << 40);
    for _ in 0..2 {
        targets.iter().for_each(|target| filters.iter().for_each(|filter| drop(answer(target, filter))));
    }
    let more = tempfile::tempdir().unwrap();
    let summary = indexer::ingest(&store, &[players_head(more.path(), 24_000)], &mut indexer::SilentObserver).unwrap();
    let added = summary.run.counts.indexed;
    assert!(added > 3_000, "{added} games added");
    let later: Vec<String> =
        targets.iter().flat_map(|target| filters.iter().map(|filter| answer(target, filter))).collect();
    store.snapshot().summaries().configure(u64::MAX, 0);
    let mut expected = Vec::new();
    for target in &targets {
        for filter in &filters {
            expected.push(answer(target, filter));
        }
    }
    assert_eq!(later, expected);
    assert_ne!(later, counted, "the later games count");
}

//! One subset's figures from its tallies: overview, years, bands, moves, move orders, endings,
//! lengths, players and notable games.

use std::collections::BTreeMap;

use rayon::prelude::*;
use shakmaty::{Color, Position as _};

use super::{
    BandRow, Ending, LengthRow, MAX_PLAYERS, MoveOrder, MoveStats, NOTABLE_GAMES, Notable, NotableGame, Overview,
    PlayerRow, Results, SpeedShare, Subset, YearRow, games::Tallies,
};
use crate::{
    codec::CompactMove,
    explore::{
        Admission, QueryError, ResolvedTarget, eval_answer, key_of, move_answers, next_keys, position_notes,
        position_slices, reached_by_moves, san, summarize,
    },
    model::{GameId, Month, RatingBand, Speed, Tally},
    position::Variant,
    report::results::{band_label, color_name, mover_score, percent},
    store::Snapshot,
};

/// Each year's games under the selection, in the whole database of `variant`: the games from
/// the standard start, from the initial position's slices when they answer the filter, else
/// from each of those games' facts; another variant's from every game's record (no start
/// stands for them all).
pub(super) fn year_games(
    view: &Snapshot,
    selection: &Admission,
    variant: Variant,
) -> Result<BTreeMap<u16, u64>, QueryError> {
    if variant != Variant::Standard {
        return variant_year_games(view, selection, variant);
    }
    let mut years = BTreeMap::new();
    let start = key_of(&crate::Position::initial())?;
    if !selection.filter.is_by_slices() {
        let facts = view.facts().table()?;
        for id in view.positions().game_ids(&start)? {
            if let Some(facts) = facts.get(id)
                && selection.admits(&facts)
            {
                *years.entry(facts.month.year().unwrap_or(0)).or_default() += 1;
            }
        }
        return Ok(selection.checked(facts.checked(years)?)?);
    }
    for slice in position_slices(view, &start)?.unwrap_or_default().slices {
        if selection.filter.matches_slice(&slice.key) {
            *years.entry(slice.key.month.year().unwrap_or(0)).or_default() += slice.total.games;
        }
    }
    Ok(years)
}

/// Each year's games of `variant` under the selection: the records of the games it admits
/// read, on every core, and their variant checked.
fn variant_year_games(
    view: &Snapshot,
    selection: &Admission,
    variant: Variant,
) -> Result<BTreeMap<u16, u64>, QueryError> {
    let facts = view.facts().table()?;
    let admitted: Vec<(GameId, u16)> = (0..view.totals()?.next_game_id)
        .filter_map(|id| facts.get(GameId(id)).map(|f| (GameId(id), f)))
        .filter(|(_, f)| selection.admits(f))
        .map(|(id, f)| (id, f.month.year().unwrap_or(0)))
        .collect();
    let admitted = selection.checked(facts.checked(admitted)?)?;
    let counted = admitted
        .par_chunks(4096)
        .map(|chunk| {
            let ids: Vec<GameId> = chunk.iter().map(|(id, _)| *id).collect();
            let mut years = BTreeMap::<u16, u64>::new();
            for ((_, year), record) in chunk.iter().zip(view.games().listed(&ids)?) {
                if record.variant() == variant {
                    *years.entry(*year).or_default() += 1;
                }
            }
            Ok(years)
        })
        .collect::<Result<Vec<_>, QueryError>>()?;
    let mut years = BTreeMap::new();
    for part in counted {
        for (year, n) in part {
            *years.entry(year).or_default() += n;
        }
    }
    Ok(years)
}

pub(super) fn subset(
    view: &Snapshot,
    target: &ResolvedTarget,
    (label, selection): (&str, &Admission),
    t: Tallies,
    year_games: &BTreeMap<u16, u64>,
) -> Result<Subset, QueryError> {
    let chess = target.position.shakmaty();
    let mover = chess.turn();
    let games = t.total.games;
    let total = Results::of(&t.total);
    let known_years = t.years.keys().copied().filter(|&y| y != 0);
    let notes = position_notes(view, &target.key, selection, mover)?;
    let overview = Overview {
        games,
        white: total.white,
        draws: total.draws,
        black: total.black,
        white_score: total.white_score(),
        white_rating: t.total.average_rating_of(Color::White),
        black_rating: t.total.average_rating_of(Color::Black),
        white_performance: t.total.performance(Color::White),
        black_performance: t.total.performance(Color::Black),
        first_year: known_years.clone().min(),
        last_year: known_years.max(),
        undated: t.years.get(&0).map_or(0, |t| t.games),
        speeds: Speed::ALL
            .iter()
            .zip(t.speeds)
            .filter(|(_, n)| *n > 0)
            .map(|(s, n)| SpeedShare { speed: s.name(), games: n, share: percent(n, games) })
            .collect(),
        unreplayable: t.unreplayable,
        eval: eval_answer(&notes.eval),
    };
    let years = t
        .years
        .iter()
        .filter(|(year, _)| **year != 0)
        .map(|(&year, tally)| {
            let all = year_games.get(&year).copied().unwrap_or(0);
            YearRow {
                year,
                results: Results::of(tally),
                year_games: all,
                share: (all > 0).then(|| percent(tally.games, all)),
            }
        })
        .collect();
    let bands = t
        .bands
        .iter()
        .map(|(&index, tally)| {
            let band = RatingBand::from_index(index).unwrap_or(RatingBand::UNRATED);
            let results = Results::of(tally);
            BandRow { floor: band.floor(), label: band_label(band), white_score: results.white_score(), results }
        })
        .collect();
    let played: Vec<(CompactMove, Tally)> = t.moves.iter().map(|(&m, mt)| (m, mt.tally)).collect();
    let keys = next_keys(view, target, &played)?;
    let reached = reached_by_moves(view, target, &played, &keys, selection)?;
    let mut moves: Vec<MoveStats> = t
        .moves
        .iter()
        .zip(reached)
        .map(|((&m, mt), reached)| {
            let results = Results::of(&mt.tally);
            let (eval, loss, time) = move_answers(notes.of_move(Some(m)));
            MoveStats {
                uci: m.to_string(),
                san: san(&target.position, m),
                share: percent(results.games, games),
                score: mover_score(&results, mover),
                draw_rate: percent(results.draws, results.games),
                average_rating: mt.tally.average_rating(),
                performance: mt.tally.performance(mover),
                average_year: (mt.dated > 0).then(|| mt.year_sum as f64 / mt.dated as f64),
                last_played: (mt.last != Month::UNKNOWN).then(|| mt.last.to_string()),
                results,
                reached,
                eval,
                loss,
                time,
            }
        })
        .collect();
    moves.sort_by(|a, b| b.results.games.cmp(&a.results.games).then_with(|| a.uci.cmp(&b.uci)));
    let mut move_orders = Vec::with_capacity(t.orders.len());
    for ((key, m), &count) in &t.orders {
        let before = view.positions().position(key)?;
        move_orders.push(MoveOrder {
            fen: before.to_string(),
            san: san(&before, *m),
            uci: m.to_string(),
            games: count,
        });
    }
    move_orders.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.fen.cmp(&b.fen)).then_with(|| a.uci.cmp(&b.uci)));
    let mut endings: Vec<Ending> = t
        .endings
        .iter()
        .map(|(material, tally)| Ending {
            material: material.to_string(),
            results: Results::of(tally),
            share: percent(tally.games, games),
        })
        .collect();
    endings.sort_by(|a, b| b.results.games.cmp(&a.results.games).then_with(|| a.material.cmp(&b.material)));
    let mut lengths: BTreeMap<u32, u64> = BTreeMap::new();
    let mut ply_sum = 0u64;
    for (&plies, &count) in &t.plies {
        // Full moves 1–10 are plies 1–20; a game of 0 plies falls in the first range.
        *lengths.entry(plies.saturating_sub(1) / 20).or_default() += count;
        ply_sum += u64::from(plies) * count;
    }
    let lengths = lengths
        .into_iter()
        .map(|(b, games)| LengthRow { from_move: b * 10 + 1, to_move: b * 10 + 10, games })
        .collect();
    let mut players = Vec::new();
    for (side, color) in Color::ALL.into_iter().enumerate() {
        let mut rows: Vec<PlayerRow> = t.players[side]
            .iter()
            .map(|(name, tally)| {
                let results = Results::of(tally);
                PlayerRow {
                    name: name.clone(),
                    color: color_name(color),
                    score: mover_score(&results, color),
                    rating: tally.average_rating_of(color),
                    performance: tally.performance(color),
                    results,
                }
            })
            .collect();
        rows.sort_by(|a, b| b.results.games.cmp(&a.results.games).then_with(|| a.name.cmp(&b.name)));
        rows.truncate(MAX_PLAYERS);
        players.extend(rows);
    }
    let notable = notable(view, target, t.rated, t.dated, t.wins)?;
    Ok(Subset {
        label: label.to_owned(),
        overview,
        years,
        bands,
        moves,
        move_orders,
        themes: t.themes.iter().map(Results::of).collect(),
        endings,
        lengths,
        average_plies: (games > 0).then(|| ply_sum as f64 / games as f64),
        players,
        notable,
    })
}

fn notable(
    view: &Snapshot,
    target: &ResolvedTarget,
    mut rated: Vec<(u16, GameId)>,
    mut dated: Vec<(Month, GameId)>,
    wins: [Vec<(u32, GameId)>; 2],
) -> Result<Notable, QueryError> {
    rated.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    dated.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let list = |ids: Vec<GameId>| -> Result<Vec<NotableGame>, QueryError> {
        let mut out = Vec::new();
        for (id, record) in ids.iter().zip(view.games().listed(&ids)?) {
            out.push(NotableGame { plies: record.plies() as u32, summary: summarize(*id, &record, Some(target)) });
        }
        Ok(out)
    };
    let first = |ids: Vec<GameId>| ids.into_iter().take(NOTABLE_GAMES).collect::<Vec<_>>();
    let [mut white, mut black] = wins;
    white.sort_unstable();
    black.sort_unstable();
    Ok(Notable {
        highest_rated: list(first(rated.into_iter().map(|g| g.1).collect()))?,
        most_recent: list(first(dated.into_iter().map(|g| g.1).collect()))?,
        shortest_white_wins: list(first(white.into_iter().map(|g| g.1).collect()))?,
        shortest_black_wins: list(first(black.into_iter().map(|g| g.1).collect()))?,
    })
}

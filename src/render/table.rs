//! Tables for a terminal: what the command line prints when not asked for JSON.

use std::fmt::Write as _;

use crate::{
    explore::{Answer, GamePage, MaterialSearch, PatternSearch},
    indexer::Summary,
    input::codec_check::CheckReport,
    model::Tally,
    store::{RunRecord, Totals},
};

/// An explorer answer: totals, the move table, top and recent games.
pub fn answer(answer: &Answer) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", answer.fen);
    if let Some(opening) = &answer.opening {
        let _ = writeln!(out, "{} {}", opening.eco, opening.name);
    }
    let years = match (answer.min_year, answer.max_year) {
        (Some(a), Some(b)) => format!(", {a}-{b}"),
        _ => String::new(),
    };
    let total = Tally {
        games: answer.games,
        white: answer.white,
        draws: answer.draws,
        black: answer.black,
        ..Tally::default()
    };
    let rating = answer.average_rating.map_or(String::new(), |r| format!(", average rating {r}"));
    let _ = writeln!(out, "{}{rating}{years}", describe(&total));
    if !answer.moves.is_empty() {
        let _ = writeln!(
            out,
            "\n  {:<8} {:>7}  {:>6} {:>6} {:>6}  {:>6}  {:>5}  {:>7}",
            "move", "games", "white", "draw", "black", "rating", "perf", "reached"
        );
        for row in &answer.moves {
            let pct = |n: u64| 100.0 * n as f64 / row.games.max(1) as f64;
            let number = |n: Option<i64>| n.map_or("-".to_owned(), |n| n.to_string());
            let _ = writeln!(
                out,
                "  {:<8} {:>7}  {:>5.1}% {:>5.1}% {:>5.1}%  {:>6}  {:>5}  {:>7}",
                row.san,
                row.games,
                pct(row.white),
                pct(row.draws),
                pct(row.black),
                number(row.average_rating.map(|r| r as i64)),
                number(row.performance),
                row.reached.games
            );
        }
    }
    let recent = answer.recent_games.as_deref().unwrap_or_default();
    for (title, games) in [("top games", answer.top_games.as_slice()), ("recent games", recent)] {
        if games.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title}:");
        for game in games {
            let row = game_row(
                &game.id,
                [(&game.white.name, game.white.rating), (&game.black.name, game.black.rating)],
                &game.result,
                &game.date,
                &game.event,
            );
            let _ = writeln!(out, "  {row}  {}", game.uci.as_deref().unwrap_or(""));
        }
    }
    out
}

/// One game on a line: `#id White (rating) - Black (rating)  result  date  event`.
pub fn game_row(
    id: &dyn std::fmt::Display,
    players: [(&str, Option<u16>); 2],
    result: &str,
    date: &str,
    event: &str,
) -> String {
    let rating = |r: Option<u16>| r.map_or(String::new(), |r| format!(" ({r})"));
    let [(white, white_rating), (black, black_rating)] = players;
    let id = format!("#{id}");
    format!("{id:<8} {white}{} - {black}{}  {result}  {date}  {event}", rating(white_rating), rating(black_rating))
}

/// A page of games: the count, then a line per game.
pub fn games(page: &GamePage) -> String {
    let mut out = format!("{} games\n", page.total);
    for game in &page.games {
        let players = [(game.white.as_str(), game.white_elo), (game.black.as_str(), game.black_elo)];
        let row = game_row(&game.id, players, game.result, &game.date, &game.event);
        match &game.steps {
            Some(steps) => {
                let plies: Vec<String> = steps.iter().map(usize::to_string).collect();
                let _ = writeln!(out, "{row}  steps at plies {}", plies.join(", "));
            }
            None => {
                let _ = writeln!(out, "{row}");
            }
        }
    }
    out
}

fn describe(t: &Tally) -> String {
    let pct = |n: u64| if t.games == 0 { 0.0 } else { 100.0 * n as f64 / t.games as f64 };
    format!("{} games: white {:.1}%, draws {:.1}%, black {:.1}%", t.games, pct(t.white), pct(t.draws), pct(t.black))
}

/// A material search: the counts, then a line per position.
pub fn material(found: &MaterialSearch) -> String {
    let mut out = format!(
        "{} positions, {} games in all ({} materials, {} key ranges scanned)\n",
        found.positions, found.occurrences, found.materials, found.ranges
    );
    for hit in &found.hits {
        let _ = writeln!(out, "{:>7}  {}", hit.games, hit.fen);
    }
    out
}

/// A pattern search: totals over the distinct games, then the positions most frequent first.
pub fn pattern(found: &PatternSearch) -> String {
    let mut out = format!(
        "{} positions ({} occurrences) in {} games: White won {}, drawn {}, Black won {}\n\
         {} distinct positions examined in {} ms\n",
        found.positions,
        found.occurrences,
        found.games,
        found.white,
        found.draws,
        found.black,
        found.scanned,
        found.elapsed_ms
    );
    if !found.hits.is_empty() {
        let _ = writeln!(out, "{:>7} {:>6} {:>6} {:>6}  position", "games", "white", "draws", "black");
    }
    for hit in &found.hits {
        let _ = writeln!(out, "{:>7} {:>6} {:>6} {:>6}  {}", hit.games, hit.white, hit.draws, hit.black, hit.fen);
    }
    out
}

/// What a database holds: totals, bytes per family, ingest runs.
pub fn database(
    path: &std::path::Path,
    totals: &Totals,
    tier: u64,
    families: &[(&str, u64)],
    runs: &[RunRecord],
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "database            {}", path.display());
    let _ = writeln!(out, "games               {:>12}", totals.games);
    let _ = writeln!(out, "plies               {:>12}", totals.plies);
    match (totals.distinct_positions, totals.single_game_positions) {
        (Some(n), Some(single)) => {
            let _ = writeln!(out, "distinct positions  {n:>12}");
            let share = 100.0 * single as f64 / n.max(1) as f64;
            let _ = writeln!(out, "  in one game only  {single:>12}  ({share:.1}%)");
            let _ = writeln!(out, "  in the tier       {tier:>12}  (kept as their games' plies)");
        }
        _ => {
            let _ = writeln!(out, "distinct positions  (not counted: no ingest has completed)");
        }
    }
    let _ = writeln!(out, "position occurrences{:>12}", totals.position_occurrences);
    for (name, bytes) in families {
        let _ = writeln!(out, "{:<20}{:>12}", format!("{name} bytes"), indicatif::HumanBytes(*bytes).to_string());
    }
    let sizes = super::json::Sizes::of(totals, families);
    let _ = writeln!(out, "{:<20}{:>12}", "all bytes", indicatif::HumanBytes(sizes.total).to_string());
    for (label, figure) in [
        ("  positions and tier per distinct position", sizes.positions_per_position),
        ("  a game (tags and mainline)", sizes.games_per_game),
        ("  all per game", sizes.total_per_game),
    ] {
        if let Some(bytes) = figure {
            let _ = writeln!(out, "{label}: {bytes:.1} B");
        }
    }
    for run in runs {
        let _ = writeln!(
            out,
            "run {} ({}, started {} unix): {} read, {} indexed, {} duplicates, {} skipped; {}",
            run.id,
            run.status.name(),
            run.started,
            run.counts.games_read,
            run.counts.indexed,
            run.counts.duplicates,
            run.counts.skipped_total(),
            run.inputs.join(" ")
        );
    }
    out
}

/// What an ingest run did; `bytes` is the database's size after it.
pub fn ingest(summary: &Summary, path: &std::path::Path, bytes: u64) -> String {
    let counts = &summary.run.counts;
    let (seconds, games_per_second) = (summary.elapsed.as_secs_f64(), summary.games_per_second());
    let mut out = String::new();
    let _ = writeln!(out, "games read          {:>12}", counts.games_read);
    let _ = writeln!(out, "indexed             {:>12}", counts.indexed);
    let _ = writeln!(out, "duplicates          {:>12}", counts.duplicates);
    if counts.twins > 0 {
        let _ = writeln!(out, "twins skipped       {:>12}", counts.twins);
    }
    let _ = writeln!(out, "skipped             {:>12}", counts.skipped_total());
    for (reason, n) in &counts.skipped {
        let _ = writeln!(out, "  {reason:<17} {n:>12}");
    }
    if summary.read_errors > 0 {
        let _ = writeln!(out, "unreadable inputs   {:>12}", summary.read_errors);
    }
    let _ = writeln!(out, "positions written   {:>12}", counts.positions_written);
    let notes = &counts.annotations;
    if notes.games > 0 || notes.malformed > 0 {
        let _ = writeln!(out, "annotated games     {:>12}", notes.games);
        let _ = writeln!(out, "  evaluations       {:>12}", notes.evaluations);
        let _ = writeln!(out, "  clocks            {:>12}", notes.clocks);
        let _ = writeln!(out, "  move times        {:>12}", notes.move_times);
        let _ = writeln!(out, "  passed over       {:>12}", notes.malformed);
    }
    let _ = writeln!(out, "elapsed             {:>11.1}s  ({games_per_second:.0} games/s)", seconds);
    let _ = writeln!(
        out,
        "database {}: {} games, {} distinct positions, {}",
        path.display(),
        summary.totals.games,
        summary.totals.distinct_positions.unwrap_or(0),
        indicatif::HumanBytes(bytes)
    );
    out
}

/// A codec check's totals.
pub fn check(report: &CheckReport) -> String {
    let mut out = String::new();
    for (reason, count) in &report.rejected {
        let _ = writeln!(out, "{count} inputs skipped: {reason}");
    }
    let _ = writeln!(
        out,
        "key {} bytes; huffman {:.1} bits mean, {} max",
        report.key_bytes,
        report.huffman_bits_mean(),
        report.huffman_bits_max
    );
    let _ = writeln!(out, "{} positions, {} failed", report.positions, report.failed);
    out
}

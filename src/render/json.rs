//! The JSON documents tabiya writes besides the explorer's own shapes, one type each, used by
//! the command line and the HTTP API alike. Field names are camelCase everywhere (the lichess
//! API's convention, which the explorer answers follow).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::{
    indexer::Summary,
    input::codec_check::CheckReport,
    store::{RunCounts, RunRecord, Store, StoreError, Totals},
};

/// The database's bytes, in all and per item (`tabiya stats`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sizes {
    /// Bytes of every family.
    pub total: u64,
    /// The positions family's bytes (full-key positions and the single-game tier) per distinct
    /// position (once positions are counted).
    pub positions_per_position: Option<f64>,
    /// A stored game's bytes: the games and mainlines families' bytes per game.
    pub games_per_game: Option<f64>,
    /// Every family's bytes per game.
    pub total_per_game: Option<f64>,
}

impl Sizes {
    /// The figures of `families` (name, bytes) for the database of `totals`.
    pub fn of(totals: &Totals, families: &[(&str, u64)]) -> Sizes {
        let family = |wanted: &str| families.iter().find(|(name, _)| *name == wanted).map_or(0, |(_, bytes)| *bytes);
        let per = |bytes: u64, count: Option<u64>| count.filter(|&n| n > 0).map(|n| bytes as f64 / n as f64);
        let total = families.iter().map(|(_, bytes)| bytes).sum();
        Sizes {
            total,
            positions_per_position: per(
                families
                    .iter()
                    .filter(|(name, _)| *name == "positions" || name.starts_with("tier "))
                    .map(|(_, bytes)| bytes)
                    .sum(),
                totals.distinct_positions,
            ),
            games_per_game: per(family("games") + family("mainlines"), Some(totals.games)),
            total_per_game: per(total, Some(totals.games)),
        }
    }
}

/// What the database holds (`tabiya stats --json`, `GET /stats`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseTotals {
    /// Games indexed.
    pub games: u64,
    /// Plies of those games.
    pub plies: u64,
    /// Position occurrences (per game, its distinct positions).
    pub position_occurrences: u64,
    /// Distinct positions, as counted by the last completed ingest.
    pub distinct_positions: Option<u64>,
    /// Of those, the positions reached by one game.
    pub single_game_positions: Option<u64>,
    /// Of those, the positions kept in the single-game tier (the others are full keys), when
    /// asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier_positions: Option<u64>,
    /// Bytes per column family, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<BTreeMap<String, u64>>,
    /// What the bytes come to per position and per game, with `bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Sizes>,
    /// The ingest runs, oldest first, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<Vec<Run>>,
}

impl DatabaseTotals {
    /// The totals alone.
    pub fn new(totals: &Totals) -> DatabaseTotals {
        DatabaseTotals {
            games: totals.games,
            plies: totals.plies,
            position_occurrences: totals.position_occurrences,
            distinct_positions: totals.distinct_positions,
            single_game_positions: totals.single_game_positions,
            tier_positions: None,
            bytes: None,
            sizes: None,
            runs: None,
        }
    }

    /// Everything `tabiya stats --json` prints: the totals, the positions in the tier, the
    /// bytes per family and per item, and the ingest runs.
    pub fn of_store(store: &Store) -> Result<DatabaseTotals, StoreError> {
        let view = store.snapshot();
        let totals = view.totals()?;
        let families = store.family_bytes()?;
        Ok(DatabaseTotals {
            tier_positions: Some(view.positions().in_tier()?),
            bytes: Some(families.iter().map(|(name, bytes)| (name.to_string(), *bytes)).collect()),
            sizes: Some(Sizes::of(&totals, &families)),
            runs: Some(store.runs()?.iter().map(Run::new).collect()),
            ..DatabaseTotals::new(&totals)
        })
    }
}

/// One ingest run.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    /// Its number.
    pub id: u64,
    /// Unix seconds.
    pub started: u64,
    /// Unix seconds, once finished.
    pub finished: Option<u64>,
    /// `running`, `completed` or `interrupted`.
    pub status: &'static str,
    /// The files it read.
    pub inputs: Vec<String>,
    /// Its counts.
    #[serde(flatten)]
    pub counts: Counts,
}

impl Run {
    /// The document of a run record.
    pub fn new(run: &RunRecord) -> Run {
        Run {
            id: run.id,
            started: run.started,
            finished: run.finished,
            status: run.status.name(),
            inputs: run.inputs.clone(),
            counts: Counts::new(&run.counts),
        }
    }
}

/// What a run did with the games it read.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Games read.
    pub games_read: u64,
    /// New games indexed.
    pub indexed: u64,
    /// Games stored already.
    pub duplicates: u64,
    /// Skipped games by reason (`illegal_move`, `syntax_error`, ...).
    pub skipped: BTreeMap<String, u64>,
    /// Position entries written.
    pub positions_written: u64,
    /// Games not indexed as twins of stored games (`--skip-twins`).
    pub twins: u64,
    /// What the indexed games' comments carried.
    pub annotations: Annotations,
}

/// Annotations of a run's indexed games ([`AnnotationCounts`](crate::store::AnnotationCounts)).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Games with an annotated move.
    pub games: u64,
    /// Moves with an evaluation.
    pub evaluations: u64,
    /// Moves with the mover's clock.
    pub clocks: u64,
    /// Moves with their time stated.
    pub move_times: u64,
    /// Annotations passed over: of a known shape, without a usable value.
    pub malformed: u64,
}

impl Counts {
    /// The document of a run's counts.
    pub fn new(counts: &RunCounts) -> Counts {
        Counts {
            games_read: counts.games_read,
            indexed: counts.indexed,
            duplicates: counts.duplicates,
            skipped: counts.skipped.iter().cloned().collect(),
            positions_written: counts.positions_written,
            twins: counts.twins,
            annotations: Annotations {
                games: counts.annotations.games,
                evaluations: counts.annotations.evaluations,
                clocks: counts.annotations.clocks,
                move_times: counts.annotations.move_times,
                malformed: counts.annotations.malformed,
            },
        }
    }
}

/// What `tabiya ingest --json` prints.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestSummary {
    /// The run's number.
    pub run: u64,
    /// Its counts.
    #[serde(flatten)]
    pub counts: Counts,
    /// Skipped games in all.
    pub skipped_total: u64,
    /// Inputs that could not be read to their end.
    pub read_errors: u64,
    /// Wall time.
    pub elapsed_seconds: f64,
    /// Games read per second.
    pub games_per_second: f64,
    /// The database after the run.
    pub database: IngestedDatabase,
}

/// The database after an ingest run.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestedDatabase {
    /// Its directory.
    pub path: String,
    /// Games indexed.
    pub games: u64,
    /// Distinct positions.
    pub distinct_positions: u64,
    /// Position occurrences.
    pub position_occurrences: u64,
}

impl IngestSummary {
    /// The document of a run's summary; `path` is the database's directory.
    pub fn new(summary: &Summary, path: &std::path::Path) -> IngestSummary {
        let counts = &summary.run.counts;
        IngestSummary {
            run: summary.run.id,
            counts: Counts::new(counts),
            skipped_total: counts.skipped_total(),
            read_errors: summary.read_errors,
            elapsed_seconds: summary.elapsed.as_secs_f64(),
            games_per_second: summary.games_per_second(),
            database: IngestedDatabase {
                path: path.display().to_string(),
                games: summary.totals.games,
                distinct_positions: summary.totals.distinct_positions.unwrap_or(0),
                position_occurrences: summary.totals.position_occurrences,
            },
        }
    }
}

/// What `tabiya codec check --json` prints.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// Positions checked.
    pub positions: u64,
    /// Of those, round trips that failed.
    pub failed: u64,
    /// Bytes of a key.
    pub key_bytes: usize,
    /// Mean Huffman code length, bits.
    pub huffman_bits_mean: f64,
    /// Longest Huffman code, bits.
    pub huffman_bits_max: usize,
    /// Inputs that are not keyable positions, by reason.
    pub rejected: BTreeMap<String, u64>,
}

impl Check {
    /// The document of a check report.
    pub fn new(report: &CheckReport) -> Check {
        Check {
            positions: report.positions,
            failed: report.failed,
            key_bytes: report.key_bytes,
            huffman_bits_mean: report.huffman_bits_mean(),
            huffman_bits_max: report.huffman_bits_max,
            rejected: report.rejected.clone(),
        }
    }
}

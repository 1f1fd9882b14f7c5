//! Theory lines: from the position, each most played move followed by the most played
//! continuation, read from the stored statistics.

use shakmaty::Position as _;

use super::{Results, TheoryLine, TheoryNode};
use crate::{
    codec::CompactMove,
    explore::{Admission, QueryError, key_of, stats_of_games},
    model::Tally,
    position::Position,
    report::results::mover_score,
    store::Snapshot,
};

/// Main lines: the `lines` most played moves from the position, each followed by the most
/// played continuation until `depth` plies or no game goes on.
pub(super) fn theory(
    view: &Snapshot,
    root: &Position,
    selection: &Admission,
    depth: usize,
    lines: usize,
) -> Result<Vec<TheoryLine>, QueryError> {
    let ranked = |position: &Position| -> Result<Vec<(CompactMove, Tally)>, QueryError> {
        let stats = stats_of_games(view, &key_of(position)?, selection, false)?;
        Ok(stats.moves_by_games())
    };
    let mut out = Vec::new();
    if depth == 0 {
        return Ok(out);
    }
    for (first, tally) in ranked(root)?.into_iter().take(lines) {
        let mut position = root.clone();
        let mut nodes = Vec::new();
        let mut step = Some((first, tally));
        while let Some((m, tally)) = step {
            let chess = position.shakmaty();
            let Some(legal) = m.to_move(chess) else { break };
            let results = Results::of(&tally);
            nodes.push(TheoryNode {
                san: position.san_plus(legal).san.to_string(),
                uci: m.to_string(),
                ply: nodes.len() + 1,
                score: mover_score(&results, chess.turn()),
                results,
            });
            position.play_legal(legal);
            step = if nodes.len() < depth { ranked(&position)?.into_iter().next() } else { None };
        }
        out.push(TheoryLine { nodes, end_fen: position.to_string() });
    }
    Ok(out)
}

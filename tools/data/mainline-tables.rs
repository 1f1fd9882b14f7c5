//! Writes `crates/core/src/codec/mainline/tables.rs`: the Huffman code lengths of every context
//! of the mainline code (`tabiya::codec::mainline::model`), counted on the moves of PGN files.
//!
//! Each symbol's count is one more than it was seen, so that every possible move has a code.
//! Changing the tables changes every stored mainline: bump the format version with them.
//!
//! `cargo run --release --example mainline-tables -- GAMES.pgn.zst... > crates/core/src/codec/mainline/tables.rs`

use std::{collections::HashMap, fmt::Write as _};

use shakmaty::Position as _;
use tabiya::codec::mainline::{
    code::huffman_lengths,
    model::{Table, contexts, symbols},
};

fn main() -> anyhow::Result<()> {
    let files: Vec<_> = std::env::args_os().skip(1).collect();
    anyhow::ensure!(!files.is_empty(), "usage: mainline-tables GAMES.pgn[.zst]...");
    let mut counts: HashMap<(Table, usize, u16), u64> = HashMap::new();
    let (mut games, mut plies) = (0u64, 0u64);
    for path in &files {
        let source = tabiya::input::Source::open(path.as_ref(), None)?;
        // Games tabiya would index (a game it skips counts nothing).
        tabiya::input::read_games(source.reader, |game| {
            let Ok(game) = game else { return };
            games += 1;
            let mut position = game.start.shakmaty().clone();
            for m in &game.moves {
                for symbol in symbols(&position, m, tabiya_core::codec::mainline::model::Promotions::Standard)
                    .iter()
                    .flat_map(|symbols| symbols.coded())
                {
                    *counts.entry((symbol.table, symbol.context, symbol.symbol)).or_default() += 1;
                }
                plies += 1;
                position.play_unchecked(*m);
            }
        })?;
    }
    let mut out = String::new();
    writeln!(out, "//! The Huffman code lengths of the mainline code's contexts ([`super::model::contexts`] gives")?;
    writeln!(out, "//! their order and sizes), counted on {games} games ({plies} plies).")?;
    writeln!(out, "//!")?;
    writeln!(out, "//! Written by `tools/data/mainline-tables.rs`; part of the format (docs/FORMAT.md).")?;
    let tables = [
        (Table::Role, "ROLE", "the moving piece's role, by the set of roles the side has"),
        (Table::Piece, "PIECE", "which piece of its role, by the role and the side's count of it"),
        (Table::Target, "TARGET", "the target square and promotion, by role, number of squares and promotion"),
    ];
    for (table, name, what) in tables {
        let mut lengths = Vec::new();
        for (context, size) in contexts(table).into_iter().enumerate() {
            let counts: Vec<u64> = (0..size as u16)
                .map(|symbol| 1 + counts.get(&(table, context, symbol)).copied().unwrap_or(0))
                .collect();
            lengths.extend(huffman_lengths(&counts));
        }
        writeln!(out)?;
        writeln!(out, "/// Code lengths of {what}.")?;
        writeln!(out, "#[rustfmt::skip]")?;
        writeln!(out, "pub static {name}: &[u8] = &[")?;
        for line in lengths.chunks(32) {
            let numbers: Vec<String> = line.iter().map(u8::to_string).collect();
            writeln!(out, "    {},", numbers.join(", "))?;
        }
        writeln!(out, "];")?;
    }
    print!("{out}");
    Ok(())
}

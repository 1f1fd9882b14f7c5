//! The one-pass PGN reader (`input::parse_game`) against the reading it replaced (a syntax pass,
//! then pgn-reader: `common::oracle`), game by game: every game accepted alike (the same
//! record, start and moves) or rejected alike (the same number, line, reason and detail), on
//! random text made of PGN's pieces, on the robustness corpus and on the players collection.

use crate::common;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use tabiya::input::{GameSplitter, RawGame, parse_game};

/// The two readings of `raw`, compared; `Err` says how they differ.
fn compare(raw: &RawGame) -> Result<(), String> {
    let new = parse_game(raw);
    let old = common::oracle::parse_game(raw);
    let same = match (&new, &old) {
        (Ok(a), Ok(b)) => a.record == b.record && a.start == b.start && a.moves == b.moves,
        (Err(a), Err(b)) => a == b,
        _ => false,
    };
    match same {
        true => Ok(()),
        false => Err(format!(
            "game {} at line {}:\n  one pass: {}\n  before:   {}\n  text: {:?}",
            raw.number,
            raw.line,
            outcome(&new),
            outcome(&old),
            String::from_utf8_lossy(&raw.text[..raw.text.len().min(600)])
        )),
    }
}

fn outcome(read: &Result<tabiya::input::Game, tabiya::input::Rejection>) -> String {
    match read {
        Ok(game) => format!("{} plies, {:?}, {:?}", game.moves.len(), game.record.result, game.record.tags),
        Err(rejection) => format!("{rejection} ({})", rejection.reason),
    }
}

/// Every game of every PGN file of `paths`, compared; the differences found (at most 20).
fn differences(paths: &[PathBuf]) -> (usize, Vec<String>) {
    let (mut games, mut found) = (0, Vec::new());
    for path in paths {
        let source = tabiya::input::Source::open(path, None).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        for raw in GameSplitter::new(source.reader) {
            let raw = raw.unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            games += 1;
            if let Err(difference) = compare(&raw)
                && found.len() < 20
            {
                found.push(format!("{}: {difference}", path.display()));
            }
        }
    }
    (games, found)
}

/// Tag pairs, well formed and not, and what may stand between them.
fn tag_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "[Event \"x\"]",
        "[White \"A, B\"]",
        "[Black \"C \\\"D\\\"\"]",
        "[Result \"1-0\"]",
        "[Result \"*\"]",
        "[ Date  \"2020.01.02\"]",
        "[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]",
        "[FEN \"bad fen\"]",
        "[Variant \"Chess960\"]",
        "[Variant \"antichess\"]",
        "[Variant \"crazyhouse\"]",
        "[Site]",
        "[Round \"1",
        " ",
        "\n",
        "\r\n",
        "\n\n",
        "\n% escape\n",
    ])
}

/// Pieces of movetext, well formed and not: move numbers, moves (legal, illegal, ambiguous,
/// castling in both spellings), annotations, NAGs, glyphs, comments across lines, variations,
/// escape lines, markers (glued too), a tag line (which ends the game), line ends of every
/// kind, stray words.
fn movetext_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "1.",
        "1...",
        "12.",
        "e4",
        "e5",
        "1.e4",
        "d4",
        "Nf3",
        "Nc6",
        "Bb5",
        "a6",
        "O-O",
        "0-0",
        "0-0-0",
        "Qh5+",
        "exd5",
        "e8=Q",
        "Ke7",
        "Nbd2",
        "e4!?",
        "Nf3$1",
        "h6*",
        "$3",
        "!!",
        "+-",
        "=",
        "N",
        "1-0",
        "0-1",
        "1/2-1/2",
        "*",
        "{a comment}",
        "{over\ntwo lines}",
        "{[%clk 0:01:02]}",
        "(",
        ")",
        "(1... c5)",
        "; to the end",
        "\n% escape",
        "\n[Event \"y\"]",
        "{unclosed",
        "}",
        "pawn",
        "e9",
        "--",
        " ",
        " ",
        " ",
        "\n",
        "\n",
        "\r\n",
        "\r",
        "\n\n",
        "\t",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_text_reads_as_it_read_before(
        tags in prop::collection::vec(tag_piece(), 0..8),
        movetext in prop::collection::vec(movetext_piece(), 0..40),
    ) {
        let text = [tags.concat(), movetext.concat()].concat();
        let raw = RawGame { number: 1, line: 1, text: text.into_bytes() };
        prop_assert!(compare(&raw).is_ok(), "{}", compare(&raw).unwrap_err());
    }
}

/// The one reading that differs from the one before: a tag pair after the movetext began, on a
/// line of movetext. pgn-reader read its text as movetext, skipping it word by word, and a
/// move glued to its closing bracket vanished with it; the one-pass reader passes the tag pairs
/// over and reads what follows.
#[test]
fn a_tag_pair_on_a_movetext_line_is_passed_over() {
    let raw = RawGame { number: 1, line: 1, text: b"{a comment}[Event \"x\"]d4 1-0".to_vec() };
    let game = parse_game(&raw).expect("a game");
    assert_eq!((game.moves.len(), game.record.tags.event.as_str()), (1, ""));
    assert!(common::oracle::parse_game(&raw).is_ok_and(|game| game.moves.is_empty()));
}

#[test]
fn hand_made_games_read_as_they_read_before() {
    for text in [
        "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0",
        "{before the tags}\n[Event \"x\"]\n1. e4 *",
        "[Event \"x\"] {c}\n[Site \"y\"]\n1. e4 *",
        "1. e4 1-0 e5 0-1",
        "1. e4 e5\n\n\n2. Nf3 *",
        "% escape\n[Event \"x\"]\n1. e4 *",
        "",
        "   \n\n",
        "12.",
        "[Event \"x\"]",
        "[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 *",
        "[Variant \"fischerandom\"]\n1. e4 *",
        "1. e4 e5 2. Ke3 *",
        "1. e4 (1. d4 d5 (1... Nf6)) 1... e5 *",
        "[Event \"x\"]{over\ntwo lines}\n\ne4 *",
        "[Event \"x\"]{over\n[two lines]}\n\ne4 *",
        "\n% escape\r1. e4 *",
    ] {
        let raw = RawGame { number: 3, line: 10, text: text.as_bytes().to_vec() };
        assert_eq!(compare(&raw), Ok(()), "{text:?}");
    }
}

#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn the_robustness_corpus_reads_as_it_read_before() {
    let mut paths = Vec::new();
    collect(&common::datasets().join("robustness"), &mut paths);
    paths.sort();
    let (games, found) = differences(&paths);
    assert!(games > 1000, "{games} games");
    assert!(found.is_empty(), "{} of {games} games read otherwise:\n{}", found.len(), found.join("\n"));
}

#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn the_players_collection_reads_as_it_read_before() {
    let (games, found) = differences(&[common::datasets().join("players.pgn.zst")]);
    assert_eq!(games, 403_033);
    assert!(found.is_empty(), "{} of {games} games read otherwise:\n{}", found.len(), found.join("\n"));
}

/// The PGN files under `dir`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "pgn") {
            out.push(path);
        }
    }
}

//! Player names by any spelling, on a constructed collection whose every game's tags are known:
//! the spellings a name matches and their games against a count of the tags themselves, the
//! ambiguity a player filter refuses, and the same through the command line and HTTP.

use std::collections::BTreeSet;

use tabiya::{
    explore::{Filter, FilteredStats, Target, find_players, player_games, suggest_players},
    indexer,
    store::Store,
};

use crate::common::{server, tabiya};

/// The spellings of the collection, each with how many games it plays White in (and as many
/// Black, against the next spelling).
const SPELLINGS: [(&str, usize); 17] = [
    ("Kasparov, Garry", 5),
    ("Kasparov,G", 4),
    ("Garry Kasparov", 3),
    ("KASPAROV Garry", 2),
    ("Kásparov, Gary", 2),
    ("Kasparov, Sergey", 3),
    ("Kasparov, Garry:Crumiller, Jon", 1),
    ("Polgar, Judit", 4),
    ("Polgar,Ju", 2),
    ("Polgar, Susan", 3),
    ("Polgar,Zsuzsa", 2),
    ("Polgar,S", 1),
    ("Müller, Jürgen", 2),
    ("Muller, J", 1),
    ("Kasparov, Georgy", 1),
    ("van der Wiel, John", 2),
    ("Vanderwiel J", 1),
];

/// The games: spelling i with White against spelling i+1 with Black, `count` times each.
fn collection() -> (Vec<(String, String)>, String) {
    let mut games = Vec::new();
    let mut pgn = String::new();
    for (at, &(white, count)) in SPELLINGS.iter().enumerate() {
        let black = SPELLINGS[(at + 1) % SPELLINGS.len()].0;
        for round in 0..count {
            let moves = ["1. e4 e5", "1. d4 d5", "1. c4 c5"][round % 3];
            pgn += &format!(
                "[Event \"Names\"]\n[Round \"{at}.{round}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"1-0\"]\n\n{moves} 1-0\n\n"
            );
            games.push((white.to_owned(), black.to_owned()));
        }
    }
    (games, pgn)
}

/// The games where `spellings` play (with White when `white` says so), counted from the tags.
fn naive_games(games: &[(String, String)], spellings: &[&str], white: Option<bool>) -> usize {
    games
        .iter()
        .filter(|(w, b)| match white {
            Some(true) => spellings.contains(&w.as_str()),
            Some(false) => spellings.contains(&b.as_str()),
            None => spellings.contains(&w.as_str()) || spellings.contains(&b.as_str()),
        })
        .count()
}

#[test]
fn names_match_every_spelling_of_one_player_and_refuse_ambiguity() {
    let (games, pgn) = collection();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("names.pgn");
    std::fs::write(&path, pgn).unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    indexer::ingest(&store, &[path], &mut indexer::SilentObserver).unwrap();

    let garry = ["Kasparov, Garry", "Kasparov,G", "Garry Kasparov", "KASPAROV Garry", "Kásparov, Gary"];
    for query in ["Kasparov, Garry", "garry kasparov", "KASPAROV, Garry.", "Kasparov Gary", "kásparov garry"] {
        let found = find_players(&store.snapshot(), query).unwrap();
        let chosen = found.chosen().unwrap_or_else(|| panic!("{query}: {found:?}"));
        let names: BTreeSet<&str> = chosen.spellings.iter().map(|s| s.name.as_str()).collect();
        // "KASPAROV Garry" is "Kasparov, Garry" to the players index (case, commas): one spelling,
        // named by its first game.
        assert_eq!(names, garry.into_iter().filter(|s| *s != "KASPAROV Garry").collect(), "{query}");
        assert_eq!(
            chosen.games as usize,
            naive_games(&games, &garry, Some(true)) + naive_games(&games, &garry, Some(false))
        );
        for (color, white) in
            [(None, None), (Some(shakmaty::Color::White), Some(true)), (Some(shakmaty::Color::Black), Some(false))]
        {
            assert_eq!(
                player_games(&store, query, color).unwrap().len(),
                naive_games(&games, &garry, white),
                "{query}"
            );
        }
    }
    // The filter counts those games in a lookup.
    let filter = Filter::default().with_player(Some("Garry Kasparov"), None).unwrap();
    let start = Target::initial().resolve().unwrap().key;
    let stats = FilteredStats { key: start, filter }.run(&store).unwrap();
    assert_eq!(stats.total.games as usize, naive_games(&games, &garry, None));

    // A surname three players share: refused, all listed; the initial two could be is unsure.
    let err = player_games(&store, "Kasparov", None).unwrap_err().to_string();
    assert!(err.contains("matches 3 players") && err.contains("Kasparov, Sergey"), "{err}");
    assert!(player_games(&store, "Kasparov, G.", None).unwrap_err().to_string().contains("matches 2 players"));
    let found = find_players(&store.snapshot(), "Kasparov").unwrap();
    assert_eq!(found.unsure.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["Kasparov,G"]);
    // The team is no one's.
    assert!(found.players.iter().flat_map(|p| &p.spellings).all(|s| !s.name.contains(':')));
    let polgars = find_players(&store.snapshot(), "Polgar").unwrap();
    let leads: BTreeSet<&str> = polgars.players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(leads, ["Polgar, Judit", "Polgar, Susan", "Polgar,Zsuzsa"].into_iter().collect());
    let judit = find_players(&store.snapshot(), "Polgar, Judit").unwrap();
    let names: Vec<&str> = judit.chosen().unwrap().spellings.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Polgar, Judit", "Polgar,Ju"]);
    // Accents either way.
    let muller = find_players(&store.snapshot(), "Jurgen Muller").unwrap();
    assert_eq!(muller.chosen().unwrap().spellings.len(), 2);
    assert!(find_players(&store.snapshot(), "Nobody, At All").unwrap().players.is_empty());
    // A surname of several words, written apart or together.
    for query in ["Vanderwiel, J", "John van der Wiel", "van der Wiel, J."] {
        let found = find_players(&store.snapshot(), query).unwrap();
        assert_eq!(found.chosen().map(|p| p.spellings.len()), Some(2), "{query}: {found:?}");
    }
    assert!(find_players(&store.snapshot(), " ,. ").is_err());
    // Suggestions as a name is typed.
    let suggested = suggest_players(&store, "kasp", 10).unwrap();
    assert!(garry.contains(&suggested[0].name.as_str()) && suggested.len() == 3, "{suggested:?}");
    assert!(suggest_players(&store, "pol", 10).unwrap().iter().any(|p| p.name == "Polgar, Susan"));
    assert!(suggest_players(&store, "zzz", 10).unwrap().is_empty());
    drop(store);

    // The command line and HTTP say the same.
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let out = tabiya(&["players", "search", "--db", db, "kasparov", "--json"]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["players"].as_array().unwrap().len(), 3);
    let out = tabiya(&["query", "--db", db, "--player", "Kasparov", "--json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("matches 3 players"));
    let out = tabiya(&["query", "--db", db, "--player", "Garry Kasparov", "--color", "white", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["games"].as_u64().unwrap() as usize, naive_games(&games, &garry, Some(true)));
    assert_eq!(json["player"]["players"][0]["spellings"].as_array().unwrap().len(), 4);
    let server = server::start(dir.path().join("db").as_path());
    let (status, json) = server::json(&server, "/players?name=Polgar,%20Judit");
    let judit = ["Polgar, Judit", "Polgar,Ju"];
    let judit_games = naive_games(&games, &judit, Some(true)) + naive_games(&games, &judit, Some(false));
    assert_eq!((status, json["players"][0]["games"].as_u64()), (200, Some(judit_games as u64)));
    let (status, json) = server::json(&server, "/players?prefix=pol&limit=2");
    assert_eq!((status, json.as_array().map(Vec::len)), (200, Some(2)));
    let (status, _) = server::json(&server, "/players");
    assert_eq!(status, 400);
    let (status, body, _) = server::get(&server, "/player?player=Kasparov&color=white");
    assert_eq!(status, 400, "{body}");
    let (status, _, body) = server::get(&server, "/player?player=Kasparov,Garry&color=black");
    assert_eq!(status, 200);
    let answer: serde_json::Value = serde_json::from_str(body.trim()).unwrap();
    let total = answer["white"].as_u64().unwrap() + answer["black"].as_u64().unwrap();
    assert_eq!(total as usize, naive_games(&games, &garry, Some(false)));
    assert!(garry.contains(&answer["player"]["players"][0]["name"].as_str().unwrap()));
}

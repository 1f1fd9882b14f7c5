//! The HTTP API as a client sees it: `tabiya serve` over a database of the embedded sample,
//! status codes, JSON shapes and the lichess explorer's field names, and bad input.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::{
    games::{build, generate, players, ratings, year},
    server::{get, json, sample_db, start, start_with_temp},
    tabiya,
};
use serde_json::Value;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _, fen::Epd};

const ITALIAN_PLAY: &str = "e2e4,e7e5,g1f3,b8c6,f1c4,f8c5";

#[test]
fn explorer_endpoints_answer_in_the_lichess_shape() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let server = start(&db);

    let (status, body) = json(&server, "/health");
    assert_eq!((status, body["status"].as_str()), (200, Some("ok")));

    let (status, masters) = json(&server, &format!("/masters?play={ITALIAN_PLAY}"));
    assert_eq!(status, 200);
    for field in ["white", "draws", "black", "moves", "topGames", "opening"] {
        assert!(masters.get(field).is_some(), "masters has {field}: {masters}");
    }
    assert!(masters.get("recentGames").is_none(), "the masters API has no recent games");

    // The sample's games are dated 1851-06, 1852, 1858, 2026-01 and 2026-01: the history runs
    // over every month from 1851-06 to 2026-01, the year-only games apart.
    let (_, initial) = json(&server, "/masters?history=true");
    let history = initial["history"].as_array().unwrap();
    assert_eq!(history.len(), (2026 - 1851) * 12 + 1 - 5);
    assert_eq!(
        (history[0]["month"].as_str(), history[history.len() - 1]["month"].as_str()),
        (Some("1851-06"), Some("2026-01"))
    );
    let year_only: Vec<&str> =
        initial["historyYearOnly"].as_array().unwrap().iter().map(|e| e["month"].as_str().unwrap()).collect();
    assert_eq!(year_only, ["1852", "1858"]);
    let counted: u64 = history
        .iter()
        .chain(initial["historyYearOnly"].as_array().unwrap())
        .map(|e| ["white", "draws", "black"].iter().map(|k| e[k].as_u64().unwrap()).sum::<u64>())
        .sum();
    let decided: u64 = ["white", "draws", "black"].iter().map(|k| initial[k].as_u64().unwrap()).sum();
    assert_eq!(counted, decided);
    assert_eq!(
        (masters["white"].as_u64(), masters["draws"].as_u64(), masters["black"].as_u64()),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(masters["opening"]["eco"], "C50");
    assert_eq!(masters["opening"]["name"], "Italian Game: Giuoco Piano");
    let moves = masters["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2);
    for m in moves {
        for field in ["uci", "san", "white", "draws", "black", "averageRating", "game", "opening", "reached"] {
            assert!(m.get(field).is_some(), "move has {field}: {m}");
        }
    }
    // Each move row names the opening it leads to, as the table names the position after it
    // (none after 4. Nc3 in the sample's table).
    let names = |answer: &Value| -> Vec<(String, String)> {
        let rows = answer["moves"].as_array().unwrap().iter();
        rows.map(|m| (m["san"].as_str().unwrap().to_owned(), m["opening"]["name"].as_str().unwrap_or("-").to_owned()))
            .collect()
    };
    let mut piano = names(&masters);
    piano.sort();
    let expected = [("Nc3", "-"), ("b4", "Italian Game: Evans Gambit")];
    assert_eq!(piano, expected.map(|(san, name)| (san.to_owned(), name.to_owned())));
    assert_eq!(
        masters["moves"].as_array().unwrap().iter().find(|m| m["san"] == "b4").unwrap()["opening"]["eco"],
        "C51"
    );
    let (_, knights) = json(&server, "/masters?play=e2e4,e7e5,g1f3,b8c6");
    assert_eq!(names(&knights), [("Bc4".to_owned(), "Italian Game".to_owned())]);
    let top = &masters["topGames"][0];
    for field in ["id", "uci", "winner", "white", "black", "year"] {
        assert!(top.get(field).is_some(), "top game has {field}: {top}");
    }
    assert!(top["white"]["name"].is_string());

    // The same position by FEN; the lichess endpoint adds recent games.
    let fen = masters["fen"].as_str().unwrap().replace(' ', "%20").replace('/', "%2F");
    let (status, lichess) = json(&server, &format!("/lichess?variant=standard&fen={fen}&recentGames=1&topGames=1"));
    assert_eq!(status, 200);
    assert_eq!(lichess["white"], masters["white"]);
    assert_eq!(lichess["recentGames"].as_array().map(Vec::len), Some(1));
    assert_eq!(lichess["topGames"].as_array().map(Vec::len), Some(1));

    // Filters: the 19th-century game only; then a speed no sample game has.
    let (_, old) = json(&server, &format!("/masters?play={ITALIAN_PLAY}&until=1900"));
    assert_eq!((old["white"].as_u64(), old["draws"].as_u64()), (Some(1), Some(0)));
    let (_, none) = json(&server, &format!("/lichess?play={ITALIAN_PLAY}&speeds=blitz"));
    assert_eq!(none["white"].as_u64(), Some(0));
    assert_eq!(none["moves"].as_array().map(Vec::len), Some(0));

    // A game as PGN, which tabiya reads back.
    let id = top["id"].as_str().unwrap();
    let (status, content_type, pgn) = get(&server, &format!("/masters/pgn/{id}"));
    assert_eq!(status, 200);
    assert!(content_type.starts_with("application/x-chess-pgn"), "{content_type}");
    assert!(pgn.contains("[White \"Sample A\"]") && pgn.contains("1. Nf3 Nc6 2. e4 e5"), "{pgn}");
    assert!(pgn.lines().all(|l| l.len() <= 80 && !l.ends_with('.')), "{pgn}");
    let reread = dir.path().join("reread.pgn");
    std::fs::write(&reread, &pgn).unwrap();
    let out =
        tabiya(&["ingest", "--json", "--db", dir.path().join("reread-db").to_str().unwrap(), reread.to_str().unwrap()]);
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["indexed"], 1);

    let (status, material) = json(&server, "/material?material=KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP&limit=3");
    assert_eq!(status, 200);
    assert!(material["positions"].as_u64().unwrap() > 10);
    assert_eq!(material["hits"].as_array().map(Vec::len), Some(3));
    assert_eq!(material["hits"][0]["games"], 4, "the initial position: four sample games start there");

    // The games reaching a position, paged, and as PGN.
    let (status, games) = json(&server, "/games?play=e2e4&perPage=2&page=2");
    assert_eq!(status, 200);
    assert_eq!(games["total"], 3);
    let listed = games["games"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "page 2 of 2-game pages holds the third game");
    for field in ["id", "white", "black", "whiteElo", "blackElo", "date", "event", "site", "round", "result"] {
        assert!(listed[0].get(field).is_some(), "game has {field}: {games}");
    }
    let italian = masters["fen"].as_str().unwrap().replace(' ', "%20").replace('/', "%2F");
    let (_, not) = json(&server, &format!("/games?play=e2e4&not={italian}&sort=date"));
    assert_eq!(not["total"], 2, "the Opera game and the Immortal");
    let (status, content_type, pgn) = get(&server, &format!("/games.pgn?play=e2e4&not={italian}"));
    assert_eq!(status, 200);
    assert!(content_type.starts_with("application/x-chess-pgn"), "{content_type}");
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");

    // Pattern search and the games it reaches.
    let (status, mates) = json(&server, "/pattern?q=mate&limit=5");
    assert_eq!(status, 200, "{mates}");
    for field in ["positions", "occurrences", "games", "white", "draws", "black", "scanned", "elapsedMs", "hits"] {
        assert!(mates.get(field).is_some(), "{field}");
    }
    assert!(mates["games"].as_u64() >= Some(1));
    let (status, games) = json(&server, "/games?pattern=mate&perPage=100");
    assert_eq!(status, 200);
    assert_eq!(games["total"], mates["games"]);
    // Spellings of one search share a kept list; pages put together are the whole list.
    let (_, spaced) = json(&server, "/games?pattern=%20mate%20&flip=false&perPage=100");
    assert_eq!(spaced["games"], games["games"]);
    let mut paged = Vec::new();
    for page in 1..=games["total"].as_u64().unwrap() {
        let (_, one) = json(&server, &format!("/games?pattern=mate&perPage=1&page={page}"));
        assert_eq!(one["total"], games["total"]);
        paged.push(one["games"][0]["id"].clone());
    }
    let all: Vec<_> = games["games"].as_array().unwrap().iter().map(|g| g["id"].clone()).collect();
    assert_eq!(paged, all);
    // A sequence: each game with the ply of each step, the same as the command line's.
    let (status, sequence) = json(&server, "/games?pattern=seq(check%2C%20mate%2C%203)&perPage=100");
    assert_eq!(status, 200, "{sequence}");
    assert!(sequence["total"].as_u64() >= Some(1), "{sequence}");
    for game in sequence["games"].as_array().unwrap() {
        let steps: Vec<u64> = game["steps"].as_array().unwrap().iter().map(|p| p.as_u64().unwrap()).collect();
        assert!(steps.len() == 2 && steps[0] < steps[1] && steps[1] <= steps[0] + 3, "{game}");
    }
    let cli = common::tabiya(&[
        "games",
        "--db",
        db.to_str().unwrap(),
        "--pattern",
        "seq(check, mate, 3)",
        "--json",
        "--limit",
        "100",
    ]);
    let cli: Value = serde_json::from_slice(&cli.stdout).unwrap();
    assert_eq!(cli["games"], sequence["games"]);
    let (_, flipped) = json(&server, "/pattern?q=Pa-h7%20and%20wtm&flip=true&material=KQRRBBNNP*vKQRRBBNNP*");
    assert!(flipped.get("positions").is_some(), "{flipped}");

    let (status, stats) = json(&server, "/stats");
    assert_eq!((status, stats["games"].as_u64()), (200, Some(5)));
}

#[test]
fn bad_requests_are_400_with_a_json_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&sample_db(dir.path()));
    let long = "e2e4,".repeat(1000);
    for path in [
        "/masters?fen=not%20a%20fen",
        "/masters?play=e2e5",
        "/masters?play=zzzz",
        "/masters?since=20x0",
        "/masters?moves=-1",
        "/masters?topGames=many",
        "/lichess?speeds=hyperbullet",
        "/lichess?ratings=1234",
        "/lichess?variant=crazyhouse",
        "/masters?fen=8%2F8%2F8%2F8%2F8%2F8%2F8%2F8%20w%20-%20-",
        "/material",
        "/material?material=KQQQQQQQQQQvK",
        "/material?material=KvK&side=x",
        "/masters/pgn/abc",
        &format!("/masters?play={long}"),
        "/masters?fen=%FF",
        "/masters/pgn/%FF%FE",
        "/game/%C3%28",
        "/page/%FF.js",
        "/games?sort=oldest",
        "/games?page=x",
        "/games?and=not%20a%20fen",
        "/pattern",
        "/pattern?q=attacks(Q%2C%20k",
        "/pattern?q=Ke1&flip=maybe",
        "/pattern?q=Ke1&side=x",
        "/pattern?q=Ke1&material=KvQ",
        "/games?pattern=Kz9",
        "/games?pattern=mate&play=e2e4",
        "/games?pattern=seq(check%2C%20mate%2C%200)",
        "/games?pattern=seq(check%2C%20mate)%20and%20check",
        "/games?pattern=seq(check%2C%20mate)&material=KvK",
        "/pattern?q=seq(check%2C%20mate)",
        "/games?eco=C50-B20",
        "/masters?dateFrom=2001-13",
        "/masters?result=2-0",
        "/masters?opponent=Tal",
        "/report/opening?format=pdf",
        "/report/opening?format=csv",
        "/report/opening?format=csv&table=nothing",
        "/report/opening?theme=count(Q",
        "/report/opening?play=e2e5",
        "/report/opening?color=white",
        "/report/opening?depth=x",
        "/report/opening?versus=since%3D20x0",
        "/report/opening?player=%2C",
        "/report/player",
        "/report/player?name=anderssen&color=purple",
        "/report/player?name=anderssen&minShare=200",
        "/report/player?name=anderssen&format=csv&table=nothing",
        "/report/database?plies=x",
        "/report/database?format=xml",
        "/masters?history=yes",
        "/move?fen=not%20a%20fen",
        "/move?uci=e2e5",
        "/move?play=e2e4,zz",
        "/game/x",
        "/player",
        "/player?player=anderssen",
        "/player?player=anderssen&color=green",
        "/player?player=%2C&color=white",
        "/player?player=anderssen&color=white&modes=blitz",
        "/player?player=anderssen&color=white&play=e2e5",
        "/player?player=anderssen&color=white&variant=crazyhouse",
        "/players",
        "/players?name=%2C",
        "/players?name=a&prefix=b",
        "/players?prefix=ab&limit=x",
        "/book.bin?minGames=0",
        "/book.bin?minGames=x",
        "/book.bin?maxPly=-1",
        "/book.bin?weight=heavy",
        "/book.bin?only=red",
        "/book.bin?minScore=200",
        "/book.bin?minScore=nan",
        "/book.bin?play=e2e5",
        "/book.bin?player=%2C",
        // Strict parameters: a FEN is whole, moves are not empty, numbers are digits alone.
        "/masters?fen=rnbqkbnr%2Fpppppppp%2F8%2F8%2F8%2F8%2FPPPPPPPP%2FRNBQKBNR",
        "/masters?fen=rnbqkbnr%2Fpppppppp%2F8%2F8%2F8%2F8%2FPPPPPPPP%2FRNBQKBNR%20w%20KQkq%20-%200%201%00",
        "/masters?fen=rnbqkbnr%2Fpppppppp%2F8%2F8%2F8%2F8%2FPPPPPPPP%2FRNBQKBNR%20w%20KQkq%20-%200%201%20junk",
        "/masters?fen=rnbqkbnr%2Fpppppppp%2F8%2F8%2F8%2F8%2FPPPPPPPP%2FRNBQKBNR%20w%20KQkqKQ%20-",
        "/masters?play=e2e4,,e7e5",
        "/masters?play=e2e4,",
        "/masters?since=%2B5",
        "/masters?moves=%2B5",
        "/masters?minElo=-0",
        "/games?page=0",
        "/book.bin?maxPly=%2B3",
    ] {
        let (status, body) = json(&server, path);
        assert_eq!(status, 400, "{path}: {body}");
        assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{path}: {body}");
    }
    let (status, body) = json(&server, "/masters/pgn/999999");
    assert_eq!(status, 404, "{body}");
    let (status, body) = json(&server, "/game/999999");
    assert_eq!(status, 404, "{body}");
    let too_long = vec!["g1f3,g8f6,f3g1,f6g8"; 151].join(",");
    let (status, body) = json(&server, &format!("/move?play={too_long}"));
    assert_eq!(status, 400, "{body}");
    let (status, body) = json(&server, "/no/such/endpoint");
    assert_eq!(status, 404, "{body}");
    // Counts above the API's maxima are clamped, as lichess does.
    let (status, body) = json(&server, "/masters?topGames=1000&moves=100000");
    assert_eq!(status, 200);
    assert!(body["topGames"].as_array().unwrap().len() <= 15);
}

#[test]
fn a_running_server_sees_what_a_later_ingest_flushed() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let server = start(&db);
    let (_, before) = json(&server, "/stats");
    let (_, none) = json(&server, "/games?pattern=Ph4%20and%20pa5");
    assert_eq!(none["total"], 0, "{none}");
    let more = dir.path().join("more.pgn");
    std::fs::write(&more, "[White \"x\"]\n[Black \"y\"]\n[Result \"1-0\"]\n\n1. h4 a5 1-0\n").unwrap();
    let out = tabiya(&["ingest", "--db", db.to_str().unwrap(), more.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The server catches up every 0.2 s here; a loaded machine may take longer.
    let mut games = 0;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
        games = json(&server, "/stats").1["games"].as_u64().unwrap();
        if games == before["games"].as_u64().unwrap() + 1 {
            break;
        }
    }
    assert_eq!(games, 6);
    let (_, h4) = json(&server, "/masters?play=h2h4");
    assert_eq!(h4["white"], 1);
    // A pattern's game list kept from before the ingest is not served after it.
    let (_, after) = json(&server, "/games?pattern=Ph4%20and%20pa5");
    assert_eq!(after["total"], 1, "{after}");
}

#[test]
fn a_stopped_or_killed_server_leaves_no_directory_behind() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let temp = dir.path().join("temp");
    std::fs::create_dir(&temp).unwrap();
    let leftovers = || -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(&temp).unwrap().map(|entry| entry.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    };
    // SIGTERM (a service manager's stop): the server ends cleanly and removes its directory.
    let server = start_with_temp(&db, &temp);
    assert_eq!(json(&server, "/stats").0, 200);
    assert_eq!(leftovers().len(), 1, "{:?}", leftovers());
    let status = server.stop_with(libc::SIGTERM);
    assert!(status.success(), "{status}");
    assert_eq!(leftovers(), Vec::<String>::new());
    // SIGKILL leaves the directory; the next server removes it, since its process is gone.
    let killed = start_with_temp(&db, &temp);
    let killed_dirs = leftovers();
    assert_eq!(killed_dirs.len(), 1);
    killed.stop_with(libc::SIGKILL);
    assert_eq!(leftovers(), killed_dirs);
    // Another server's directory, whose process still runs, stays.
    let running = start_with_temp(&db, &temp);
    let next = start_with_temp(&db, &temp);
    let now = leftovers();
    assert_eq!(now.len(), 2, "{now:?}");
    assert!(!now.contains(&killed_dirs[0]), "{now:?}");
    assert_eq!(json(&next, "/stats").0, 200);
    assert_eq!(json(&running, "/stats").0, 200);
    // Unrelated names are never touched.
    drop((running, next));
    std::fs::create_dir(temp.join("tabiya-secondary-notapid-1")).unwrap();
    std::fs::write(temp.join("other"), "x").unwrap();
    let last = start_with_temp(&db, &temp);
    assert!(leftovers().contains(&"tabiya-secondary-notapid-1".to_owned()));
    assert!(leftovers().contains(&"other".to_owned()));
    let status = last.stop_with(libc::SIGINT);
    assert!(status.success(), "{status}");
    assert_eq!(leftovers(), vec!["other".to_owned(), "tabiya-secondary-notapid-1".to_owned()]);
}

/// What a naive replay of the generated games says about one position: for each game reaching
/// it, the distinct moves it played from there.
fn naive_next_moves(games: &[common::games::Game], epd: &str) -> BTreeMap<usize, BTreeSet<String>> {
    let mut reaching = BTreeMap::new();
    for (index, game) in games.iter().enumerate() {
        let mut position = Chess::default();
        for ply in 0..=game.moves.len() {
            if Epd::from_position(&position, EnPassantMode::Legal).to_string() == epd {
                let next: &mut BTreeSet<String> = reaching.entry(index).or_default();
                if let Some(m) = game.moves.get(ply) {
                    next.insert(m.to_uci(CastlingMode::Standard).to_string());
                }
            }
            if let Some(m) = game.moves.get(ply) {
                position.play_unchecked(*m);
            }
        }
    }
    reaching
}

/// White wins, draws, Black wins of the games `indices`.
/// An answer's `history`: every month from the first year of the `counted` games to the last,
/// each with the results of its games (generated games are dated January).
fn assert_history(
    answer: &Value,
    games: &[common::games::Game],
    counted: impl Iterator<Item = usize> + Clone,
    context: &str,
) {
    let history = answer["history"].as_array().expect("a history array");
    let years: BTreeSet<usize> = counted.clone().map(year).collect();
    let (first, last) = (*years.first().unwrap(), *years.last().unwrap());
    assert_eq!(history.len(), (last - first) * 12 + 1, "{context}: every month from the first to the last");
    for (offset, entry) in history.iter().enumerate() {
        let (y, m) = (first + offset / 12, offset % 12 + 1);
        assert_eq!(entry["month"], format!("{y}-{m:02}"), "{context}");
        let counts = if m == 1 { results(games, counted.clone().filter(|&i| year(i) == y)) } else { [0; 3] };
        assert_eq!(
            [&entry["white"], &entry["draws"], &entry["black"]],
            counts.map(Value::from).each_ref(),
            "{context}: {y}-{m}"
        );
    }
}

fn results(games: &[common::games::Game], indices: impl Iterator<Item = usize>) -> [u64; 3] {
    let mut counts = [0; 3];
    for index in indices {
        match games[index].result {
            "1-0" => counts[0] += 1,
            "1/2-1/2" => counts[1] += 1,
            "0-1" => counts[2] += 1,
            _ => {}
        }
    }
    counts
}

#[test]
fn history_and_the_player_explorer_answer_a_lichess_client_exactly() {
    let games = generate(400);
    let (dir, store) = build(&games);
    drop(store);
    let server = start(&dir.path().join("db"));
    // The initial position and the position after game 0's first two moves.
    let first_two: Vec<String> =
        games[0].moves[..2].iter().map(|m| m.to_uci(CastlingMode::Standard).to_string()).collect();
    for play in [String::new(), first_two.join(",")] {
        let mut position = Chess::default();
        for m in &games[0].moves[..if play.is_empty() { 0 } else { 2 }] {
            position.play_unchecked(*m);
        }
        let epd = Epd::from_position(&position, EnPassantMode::Legal).to_string();
        let reaching = naive_next_moves(&games, &epd);
        assert!(reaching.len() > 40, "{play}: {} games", reaching.len());

        // history=true, as a lichess client asks for it (generated games are dated January).
        let (status, answer) = json(&server, &format!("/lichess?variant=standard&play={play}&history=true"));
        assert_eq!(status, 200, "{answer}");
        assert_history(&answer, &games, reaching.keys().copied(), &play);
        // A filter applies to the history too.
        // Python clients (berserk) send `True`.
        let (_, since) = json(&server, &format!("/lichess?play={play}&history=True&since=2005-01"));
        let total: u64 = since["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| ["white", "draws", "black"].iter().map(|k| e[k].as_u64().unwrap()).sum::<u64>())
            .sum();
        assert_eq!(total, results(&games, reaching.keys().copied().filter(|&i| year(i) >= 2005)).iter().sum::<u64>());
        // Without history=true there is none.
        assert!(json(&server, &format!("/lichess?play={play}")).1.get("history").is_none());

        // The player explorer, with the parameters a lichess client sends.
        for (color, name, side) in [("white", "Doe, Player 3", 0), ("black", "Roe, Player 2", 1)] {
            // The dates keep some of the player's games out (the generated years are 2000–2009).
            let path = format!(
                "/player?player={}&color={color}&play={play}&modes=rated,casual&since=2002-01&until=2006-12",
                name.replace(' ', "%20").replace(',', "%2C")
            );
            let (status, content_type, body) = get(&server, &path);
            assert_eq!(status, 200, "{path}: {body}");
            assert_eq!(content_type, "application/x-ndjson");
            let lines: Vec<&str> = body.lines().collect();
            assert_eq!(lines.len(), 1, "one final line");
            let answer: Value = serde_json::from_str(lines[0]).unwrap();
            let mine: BTreeMap<usize, &BTreeSet<String>> = reaching
                .iter()
                .filter(|(i, _)| players(**i)[side] == name && (2002..=2006).contains(&year(**i)))
                .map(|(i, m)| (*i, m))
                .collect();
            assert!(!mine.is_empty());
            let [white, draws, black] = results(&games, mine.keys().copied());
            assert_eq!(
                (&answer["white"], &answer["draws"], &answer["black"]),
                (&white.into(), &draws.into(), &black.into()),
                "{path}"
            );
            assert_eq!(answer["queuePosition"], 0);
            let mut naive_moves: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
            for (index, next) in &mine {
                for uci in *next {
                    naive_moves.entry(uci.as_str()).or_default().push(*index);
                }
            }
            let moves = answer["moves"].as_array().unwrap();
            assert_eq!(moves.len(), naive_moves.len().min(12), "{path}");
            for row in moves {
                let indices = &naive_moves[row["uci"].as_str().unwrap()];
                let [w, d, b] = results(&games, indices.iter().copied());
                assert_eq!(
                    [&row["white"], &row["draws"], &row["black"]],
                    [w, d, b].map(Value::from).each_ref(),
                    "{path}"
                );
                let opponents: Vec<u64> = indices.iter().filter_map(|&i| ratings(i)[1 - side]).map(u64::from).collect();
                let average = (!opponents.is_empty())
                    .then(|| (opponents.iter().sum::<u64>() + opponents.len() as u64 / 2) / opponents.len() as u64);
                assert_eq!(row["averageOpponentRating"].as_u64(), average, "{path}: {row}");
            }
            // lichess's default: 8 recent games.
            let recent = answer["recentGames"].as_array().unwrap();
            assert_eq!(recent.len(), mine.len().min(8));
            for game in recent {
                // Ids follow ingest order; the Round tag is the generated index + 1.
                let index = game["round"].as_str().unwrap().parse::<usize>().unwrap() - 1;
                assert!(mine.contains_key(&index), "{game}");
            }
            // The history under the player filter: the player's games, month by month.
            let (status, content_type, body) = get(&server, &format!("{path}&history=true"));
            assert_eq!((status, content_type), (200, "application/x-ndjson".to_owned()), "{body}");
            let answer: Value = serde_json::from_str(body.lines().next().unwrap()).unwrap();
            assert_history(&answer, &games, mine.keys().copied(), &path);
        }
    }
}

#[test]
fn the_board_endpoints_play_moves_and_replay_games_as_the_pgn_says() {
    let games = generate(30);
    let (dir, store) = build(&games);
    drop(store);
    let server = start(&dir.path().join("db"));
    for id in 1..=10 {
        let (status, view) = json(&server, &format!("/game/{id}"));
        assert_eq!(status, 200, "{view}");
        // Ids follow ingest order; the Round tag is the generated index + 1.
        let index = view["round"].as_str().unwrap().parse::<usize>().unwrap() - 1;
        let game = &games[index];
        assert_eq!(view["white"]["name"], players(index)[0]);
        let mut position = Chess::default();
        let plies = view["moves"].as_array().unwrap();
        assert_eq!(plies.len(), game.moves.len());
        let ucis: Vec<String> = game.moves.iter().map(|m| m.to_uci(CastlingMode::Standard).to_string()).collect();
        for (ply, m) in plies.iter().zip(&game.moves) {
            let san = shakmaty::san::SanPlus::from_move(position.clone(), *m).to_string();
            position.play_unchecked(*m);
            assert_eq!(ply["uci"], m.to_uci(CastlingMode::Standard).to_string());
            assert_eq!(ply["san"], san);
            assert_eq!(ply["fen"], Epd::from_position(&position, EnPassantMode::Legal).to_string());
        }
        // /move plays the same line and lists the legal moves at its end.
        let (status, board) = json(&server, &format!("/move?play={}", ucis.join(",")));
        assert_eq!(status, 200, "{board}");
        assert_eq!(board["line"], view["moves"]);
        let mut legal: Vec<String> =
            position.legal_moves().iter().map(|m| m.to_uci(CastlingMode::Standard).to_string()).collect();
        legal.sort();
        let listed: Vec<&str> = board["legal"].as_array().unwrap().iter().map(|m| m["uci"].as_str().unwrap()).collect();
        assert_eq!(listed, legal);
        assert_eq!(board["check"], position.is_check());
        assert_eq!(
            board["outcome"].is_null(),
            !(position.is_checkmate() || position.is_stalemate() || position.is_insufficient_material())
        );
        // One more move with uci=, from the FEN the line reached.
        if let Some(m) = position.legal_moves().first() {
            let uci = m.to_uci(CastlingMode::Standard).to_string();
            let fen = board["fen"].as_str().unwrap().replace(' ', "%20");
            let (status, next) = json(&server, &format!("/move?fen={fen}&uci={uci}"));
            assert_eq!(status, 200, "{next}");
            position.play_unchecked(*m);
            assert_eq!(next["fen"], Epd::from_position(&position, EnPassantMode::Legal).to_string());
        }
    }
    // A promotion must name its piece, castling is the king's two-square move.
    let fen = "8/P6k/8/8/8/8/8/K7%20w%20-%20-";
    let (_, board) = json(&server, &format!("/move?fen={fen}"));
    let promotions: Vec<&str> = board["legal"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["uci"].as_str())
        .filter(|u| u.starts_with("a7a8"))
        .collect();
    assert_eq!(promotions, ["a7a8b", "a7a8n", "a7a8q", "a7a8r"]);
    assert_eq!(json(&server, &format!("/move?fen={fen}&uci=a7a8")).0, 400);
    let (_, promoted) = json(&server, &format!("/move?fen={fen}&uci=a7a8n"));
    assert_eq!(promoted["line"][0]["san"], "a8=N");
    let (_, castled) = json(&server, "/move?fen=r3k2r/8/8/8/8/8/8/R3K2R%20w%20KQkq%20-&uci=e1g1");
    assert_eq!(castled["line"][0]["san"], "O-O");
}

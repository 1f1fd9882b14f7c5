//! Player names as people spell them: "Kasparov, Garry", "Kasparov, Gary", "Kasparov,G",
//! "Kasparov, G.", "Garry Kasparov", "KASPAROV Garry", "Kásparov". One folding for the index
//! and for every lookup ([`fold`]: accents transliterated, ASCII lower case, tokens split at
//! anything not a letter or digit), the readings of a spelling as a surname and given names
//! ([`readings`]), whether two spellings may name one player ([`NameQuery::matches`]), and how
//! the spellings a query matched group into players ([`group`]), ambiguity kept apart rather
//! than guessed.
//!
//! A spelling of a team (a consultation game's "Kasparov, Garry:Crumiller, Jon", an engine
//! beside a player's "Anand,V / FRITZ7") is no one player's: it has no reading and matches no
//! query.
//!
//! ```
//! use tabiya_core::model::NameQuery;
//!
//! let query = NameQuery::new("Kasparov, Garry");
//! assert!(query.matches("kasparov g").is_some());
//! assert!(query.matches("garry kasparov").is_some());
//! assert!(query.matches("kasparov sergey").is_none());
//! ```

/// A spelling folded into tokens, and how many came before its first comma (`None`: no comma).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Folded {
    /// ASCII lower-case letters and digits.
    pub tokens: Vec<String>,
    /// Tokens before the first comma, when the spelling has one after a token.
    pub comma: Option<usize>,
}

/// What joins the players of a team spelling.
const TEAM_MARKS: [char; 5] = [':', '/', '&', '+', ';'];
/// Most words a spelling has to be read as a name: a longer one (no player's) has no reading,
/// which keeps the readings' work small whatever a tag or a query holds.
pub const MAX_WORDS: usize = 8;
/// Longest word compared letter by letter ([`given_fit`]); longer ones fit only when equal.
const MAX_FUZZY_LETTERS: usize = 32;

/// Folds a spelling: accents and other scripts transliterated to ASCII (`Müller` → `muller`,
/// `Østergaard` → `ostergaard`), lower case, tokens split at anything else; a digit typed into
/// a name (`Anand,V2`) dropped, a number alone (`Player 3`) kept.
pub fn fold(name: &str) -> Folded {
    let mut tokens = Vec::new();
    let mut comma = None;
    for (at, part) in name.split(',').enumerate() {
        if at == 1 && !tokens.is_empty() {
            comma = Some(tokens.len());
        }
        let ascii = deunicode::deunicode(part).to_ascii_lowercase();
        for token in ascii.split(|c: char| !c.is_ascii_alphanumeric()).filter(|t| !t.is_empty()) {
            match token.bytes().any(|b| b.is_ascii_alphabetic()) {
                true => tokens.push(token.chars().filter(char::is_ascii_alphabetic).collect()),
                false => tokens.push(token.to_owned()),
            }
        }
    }
    if comma == Some(tokens.len()) {
        comma = None;
    }
    Folded { tokens, comma }
}

/// One way of reading a spelling: a surname (its tokens joined without spaces, so that
/// "van der Wiel" is "Vanderwiel") and given names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The surname's tokens, joined.
    pub surname: String,
    /// The surname's last token.
    pub last: String,
    /// The given names or initials, in order.
    pub given: Vec<String>,
}

/// Whether a spelling names a team rather than a player.
pub fn is_team(name: &str) -> bool {
    name.contains(TEAM_MARKS)
}

/// The readings of a spelling, likeliest first. With a comma: the tokens before it are the
/// surname. Without: the last token as the surname ("Garry Kasparov"), then the first
/// ("Kasparov G", "Ding Liren"), then the other splits; one letter is never a surname.
pub fn readings(folded: &Folded) -> Vec<Reading> {
    let tokens = &folded.tokens;
    let read = |surname: &[String], given: &[String]| Reading {
        surname: surname.concat(),
        last: surname.last().cloned().unwrap_or_default(),
        given: given.to_vec(),
    };
    let mut found = Vec::new();
    match folded.comma {
        _ if tokens.is_empty() || tokens.len() > MAX_WORDS => {}
        Some(at) => found.push(read(&tokens[..at], &tokens[at..])),
        None if tokens.len() == 1 => found.push(read(tokens, &[])),
        None => {
            let n = tokens.len();
            found.push(read(&tokens[n - 1..], &tokens[..n - 1]));
            found.push(read(&tokens[..1], &tokens[1..]));
            for at in 2..n {
                found.push(read(&tokens[at - 1..], &tokens[..at - 1]));
                found.push(read(&tokens[..at], &tokens[at..]));
            }
            found.push(read(tokens, &[]));
        }
    }
    found.retain(|reading| reading.surname.len() > 1 || tokens.len() == 1);
    found.dedup();
    found
}

/// Whether two lists of given names may be one person's: token by token over the shorter,
/// each pair equal, an initial or an abbreviation of up to three letters and a name it starts
/// ("G" or "Ju" and "Judit"), or two names of four letters or more one letter apart ("Gary"
/// and "Garry", "Sergey" and "Sergei"); an absent list (surname only) fits any.
pub fn given_fit(a: &[String], b: &[String]) -> bool {
    a.iter().zip(b).all(|(x, y)| {
        let (short, long) = if x.len() <= y.len() { (x, y) } else { (y, x) };
        (short.len() <= 3 && long.starts_with(short.as_str()))
            || (short.len() >= 4
                && long.len() - short.len() <= 1
                && long.len() <= MAX_FUZZY_LETTERS
                && strsim::damerau_levenshtein(x, y) <= 1)
            || x == y
    })
}

/// The words a spelling is indexed under: its folded tokens, and the joined words of each
/// surname of more than one word it may have (`van der Wiel, John` under `vanderwiel` too), so
/// that a lookup by either form finds it.
pub fn index_words(name: &str) -> Vec<String> {
    let folded = fold(name);
    let mut words: Vec<String> = readings(&folded)
        .into_iter()
        .filter(|reading| reading.surname != reading.last)
        .map(|reading| reading.surname)
        .chain(folded.tokens)
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// Whether given names say who a player is: a first given name of two letters or more.
fn definite(given: &[String]) -> bool {
    given.first().is_some_and(|name| name.len() > 1)
}

/// A player name asked for, folded once, with its readings.
#[derive(Clone, Debug)]
pub struct NameQuery {
    /// As given.
    pub text: String,
    /// Its readings ([`readings`]).
    pub readings: Vec<Reading>,
}

impl NameQuery {
    /// The query for `text`.
    pub fn new(text: &str) -> NameQuery {
        NameQuery { text: text.to_owned(), readings: readings(&fold(text)) }
    }

    /// Whether the query has anything to match (a name of letters or digits).
    pub fn is_empty(&self) -> bool {
        self.readings.is_empty()
    }

    /// The words the names index is searched by: each reading's surname's last word and its
    /// words joined ([`index_words`] indexes both), one letter never.
    pub fn surname_tokens(&self) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        for word in self.readings.iter().flat_map(|r| [&r.last, &r.surname]) {
            if word.len() > 1 && !found.contains(word) {
                found.push(word.clone());
            }
        }
        found
    }

    /// How a spelling matches: its readings that fit one of the query's (same surname, given
    /// names that fit), likeliest first; `None` when none does (or it names a team).
    pub fn matches(&self, spelling: &str) -> Option<Vec<Reading>> {
        if is_team(spelling) {
            return None;
        }
        let fitting: Vec<Reading> = readings(&fold(spelling))
            .into_iter()
            .filter(|theirs| {
                self.readings.iter().any(|ours| theirs.surname == ours.surname && given_fit(&ours.given, &theirs.given))
            })
            .collect();
        (!fitting.is_empty()).then_some(fitting)
    }
}

/// A spelling matched, with how it reads and its games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matched<T> {
    /// How it may read ([`NameQuery::matches`]), likeliest first: never empty.
    pub readings: Vec<Reading>,
    /// Its games, by which the most played spelling names a group.
    pub games: u64,
    /// What the caller keeps with it.
    pub item: T,
}

/// Spellings grouped into players: each group's spellings may all be one player's, the most
/// played first; `unsure` holds the spellings that fit several groups (an initial or a surname
/// alone where two players share it), which no group takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grouped<T> {
    /// The players, most played first.
    pub groups: Vec<Vec<Matched<T>>>,
    /// Spellings that fit more than one player.
    pub unsure: Vec<Matched<T>>,
}

/// Groups matched spellings into players. Spellings with a first given name of two letters or
/// more, the fullest first ("Judit" before "Ju") then the most played, join the first group of
/// the same surname whose leading spelling's given names fit theirs, or start one; then each
/// other spelling (initials, surname alone), most played first, joins the one group it fits,
/// starts a group when it fits none, and is unsure when it fits several.
pub fn group<T>(mut matched: Vec<Matched<T>>) -> Grouped<T> {
    matched.retain(|m| !m.readings.is_empty());
    let first_given = |m: &Matched<T>| m.readings[0].given.first().map_or(0, String::len);
    matched.sort_by(|a, b| first_given(b).cmp(&first_given(a)).then(b.games.cmp(&a.games)));
    let (sure, mut vague): (Vec<_>, Vec<_>) = matched.into_iter().partition(|m| definite(&m.readings[0].given));
    vague.sort_by_key(|m| std::cmp::Reverse(m.games));
    let mut groups: Vec<Vec<Matched<T>>> = Vec::new();
    let fits = |group: &Vec<Matched<T>>, m: &Matched<T>| {
        group[0]
            .readings
            .iter()
            .any(|lead| m.readings.iter().any(|r| lead.surname == r.surname && given_fit(&lead.given, &r.given)))
    };
    for m in sure {
        match groups.iter_mut().find(|group| fits(group, &m)) {
            Some(group) => group.push(m),
            None => groups.push(vec![m]),
        }
    }
    let definite_groups = groups.len();
    let mut unsure = Vec::new();
    for m in vague {
        let fitting: Vec<usize> = (0..groups.len()).filter(|&at| fits(&groups[at], &m)).collect();
        match fitting[..] {
            [only] => groups[only].push(m),
            [] => groups.push(vec![m]),
            // Fits only groups of spellings as vague as itself: the first of them.
            [first, ..] if first >= definite_groups => groups[first].push(m),
            _ => unsure.push(m),
        }
    }
    groups.sort_by_key(|group| std::cmp::Reverse(total(group)));
    Grouped { groups, unsure }
}

fn total<T>(group: &[Matched<T>]) -> u64 {
    group.iter().map(|m| m.games).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grouped(query: &str, spellings: &[(&str, u64)]) -> (Vec<Vec<String>>, Vec<String>) {
        let query = NameQuery::new(query);
        let matched: Vec<Matched<String>> = spellings
            .iter()
            .filter_map(|&(s, games)| query.matches(s).map(|readings| Matched { readings, games, item: s.to_owned() }))
            .collect();
        let found = group(matched);
        let items = |group: &[Matched<String>]| group.iter().map(|m| m.item.clone()).collect::<Vec<_>>();
        (found.groups.iter().map(|g| items(g)).collect(), items(&found.unsure))
    }

    #[test]
    fn folding_reads_the_common_spellings() {
        assert_eq!(fold("Kasparov, G.").tokens, ["kasparov", "g"]);
        assert_eq!(fold("Kasparov,G").comma, Some(1));
        assert_eq!(fold("Müller, Jürgen").tokens, ["muller", "jurgen"]);
        assert_eq!(fold("Østergaard, Søren").tokens, ["ostergaard", "soren"]);
        assert_eq!(fold("  ,Carlsen").comma, None);
        assert_eq!(fold("Carlsen,").comma, None);
        assert_eq!(fold("?").tokens, Vec::<String>::new());
        assert!(NameQuery::new(" , . ").is_empty());
    }

    #[test]
    fn one_player_spelled_every_way_matches() {
        let query = NameQuery::new("Kasparov, Garry");
        for spelling in [
            "kasparov garry",
            "kasparov g",
            "kasparov, g.",
            "garry kasparov",
            "KASPAROV Garry",
            "Kásparov, Garry",
            "kasparov",
        ] {
            assert!(query.matches(spelling).is_some(), "{spelling}");
        }
        assert!(query.matches("Kasparov, Gary").is_some() && query.matches("Kasparov, G.K.").is_some());
        for spelling in ["kasparov sergey", "karpov anatoly", "kasparova garry", "Kasparov, Garry:Crumiller, Jon"] {
            assert!(query.matches(spelling).is_none(), "{spelling}");
        }
        let liren = NameQuery::new("Ding Liren");
        assert!(liren.matches("ding liren").is_some() && liren.matches("Liren Ding").is_some());
        assert!(NameQuery::new("Anand").matches("Anand,V2").is_some_and(|r| r[0].given == ["v"]));
        assert!(NameQuery::new("Anand").matches("Pranav,Anand").is_none());
        assert!(NameQuery::new("van der Wiel, John").matches("Vanderwiel J").is_some());
        assert_eq!(NameQuery::new("Garry Kasparov").surname_tokens(), ["kasparov", "garry", "garrykasparov"]);
        assert_eq!(NameQuery::new("Firouzja, A").surname_tokens(), ["firouzja"]);
        assert_eq!(NameQuery::new("Kasparov G").surname_tokens(), ["kasparov", "kasparovg"]);
        assert!(index_words("van der Wiel, John").contains(&"vanderwiel".to_owned()));
        assert!(NameQuery::new("Vanderwiel J").surname_tokens().contains(&"vanderwiel".to_owned()));
        assert!(NameQuery::new(&"a ".repeat(5000)).is_empty());
        assert!(!given_fit(&["x".repeat(20_000)], &["x".repeat(19_999)]));
    }

    #[test]
    fn ambiguity_is_kept_apart() {
        let polgars = [
            ("Polgar, Judit", 900),
            ("Polgar, J", 50),
            ("Polgar, Susan", 400),
            ("Polgar, Zsuzsa", 300),
            ("Polgar, Sofia", 200),
            ("Polgar, S", 10),
            ("Polgar", 5),
            ("Judit Polgar", 1),
        ];
        let (groups, unsure) = grouped("Polgar", &polgars);
        assert_eq!(groups.len(), 4, "{groups:?}");
        assert_eq!(groups[0], ["Polgar, Judit", "Judit Polgar", "Polgar, J"]);
        assert!(NameQuery::new("Polgar, Judit").matches("Polgar,Ju").is_some());
        assert!(NameQuery::new("Polgar, Judit").matches("Polgar,Zsu").is_none());
        assert_eq!(unsure, ["Polgar, S", "Polgar"]);
        let (groups, unsure) = grouped("Polgar, Judit", &polgars);
        assert_eq!(groups, [["Polgar, Judit", "Judit Polgar", "Polgar, J", "Polgar"]]);
        assert!(unsure.is_empty());
        // Numbered players of one surname and first name are told apart by the number.
        let (groups, _) = grouped("Doe, Player 3", &[("Doe, Player 3", 5), ("Doe, Player 0", 9), ("doe player 3", 1)]);
        assert_eq!(groups, [vec!["Doe, Player 3", "doe player 3"]]);
        // Initials alone, one player: one group.
        let (groups, unsure) = grouped("Kasparov", &[("Kasparov,G", 40), ("Kasparov, G.", 3)]);
        assert_eq!((groups.len(), unsure.len()), (1, 0));
        // A spelling read either way joins the one read the other.
        let (groups, _) = grouped("Ding Liren", &[("Ding Liren", 40), ("Ding,L", 3), ("Liren, Ding", 1)]);
        assert_eq!(groups, [["Ding Liren", "Liren, Ding", "Ding,L"]]);
    }

    proptest::proptest! {
        /// Any text folds, reads and matches without a panic, and a name matches itself.
        #[test]
        fn any_text_is_read_safely(a in "\\PC{0,24}", b in "[A-Za-z ,.:éø-]{0,24}") {
            let query = NameQuery::new(&a);
            let _ = (query.matches(&b), query.surname_tokens(), NameQuery::new(&b).matches(&a));
            if !query.is_empty() && !is_team(&a) {
                proptest::prop_assert!(query.matches(&a).is_some());
            }
        }
    }
}

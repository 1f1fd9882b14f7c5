//! One module per subcommand: argument struct + `run`.

pub mod args;
pub mod check;
pub mod checkpoint;
pub mod demo;
pub mod export;
pub mod games;
pub mod ingest;
pub mod key;
pub mod openings;
pub mod players;
pub mod progress;
pub mod psqt;
pub mod query;
pub mod report;
pub mod search;
pub mod serve;
pub mod stats;
pub mod twins;
pub mod verify;

/// `err` as one line: its message, then each cause the message does not say already (most of
/// tabiya's errors name their cause in their own message).
pub fn message(err: &anyhow::Error) -> String {
    let mut text = err.to_string();
    for cause in err.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

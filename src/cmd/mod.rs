//! One module per subcommand: argument struct + `run`.

pub mod check;
pub mod demo;
pub mod key;

//! Statistics reports, as data: the opening report of a position ([`opening`]), the player
//! report ([`player`]), the database report ([`database`]) and the piece-square report
//! ([`psqt`]). Each is built in one pass over the games or positions it covers and counts every
//! one of them; [`crate::render::report`] turns it into HTML, JSON or CSV.

pub mod database;
pub mod opening;
pub mod player;
pub mod psqt;
pub mod results;

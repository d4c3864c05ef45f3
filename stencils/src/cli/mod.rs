//! Subcommands of the `gt4rs` command-line tool.

pub mod cache;
pub mod config;
pub mod cuda;
pub mod grid;
pub mod run;
pub mod stdout;
pub mod time;
pub mod verify;

//! Subcommands of the `gt4rs` command-line tool.

pub mod cache;

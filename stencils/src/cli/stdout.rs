//! Standard output for the subcommands: a reader that closes the pipe early (`gt4rs grid info
//! … | head`) ends the program quietly, as it would a C tool, where `print!` would panic.

use std::fmt::Arguments;
use std::io::{ErrorKind, Write};

/// Writes `text` to standard output. Exits with status 0 where the reader has gone (a broken
/// pipe), and with status 2 and a message on any other write error.
pub fn write(text: Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(text).and_then(|()| out.flush()) {
        if e.kind() == ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("gt4rs: writing to standard output: {e}");
        std::process::exit(2);
    }
}

/// `print!` through [`write`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format_args!($($arg)*))
    };
}

/// `println!` through [`write`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};

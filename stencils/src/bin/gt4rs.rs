//! The gt4rs command-line tool.

fn main() {
    eprintln!("gt4rs: no subcommands yet");
    std::process::exit(2);
}

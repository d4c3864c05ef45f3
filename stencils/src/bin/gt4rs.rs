//! The gt4rs command-line tool.

use clap::{Parser, Subcommand};

use gt4rs::cache::KernelCache;
use gt4rs_stencils::cli;

#[derive(Parser)]
#[command(name = "gt4rs", version, about = "gt4rs stencil tools")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The persistent cache of compiled CUDA kernels.
    Cache {
        #[command(subcommand)]
        command: CacheCommand,
    },
}

#[derive(Subcommand)]
enum CacheCommand {
    /// List the cached kernels (label, size, key, integrity).
    List,
    /// Remove every cached kernel.
    Clear,
}

fn main() {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Cache { command } => KernelCache::open_default().and_then(|cache| {
            let mut out = std::io::stdout();
            match command {
                CacheCommand::List => cli::cache::list(&cache, &mut out),
                CacheCommand::Clear => cli::cache::clear(&cache, &mut out),
            }
        }),
    };
    if let Err(e) = outcome {
        eprintln!("gt4rs: {e}");
        std::process::exit(1);
    }
}

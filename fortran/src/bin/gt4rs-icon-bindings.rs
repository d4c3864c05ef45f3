//! Writes the C header, the Fortran module and the pkg-config file of the gt4rs-icon library:
//! `gt4rs-icon-bindings OUT_DIR [LIB_DIR]` (LIB_DIR, where `libgt4rs_icon.a` lies, defaults to
//! OUT_DIR).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(out) = args.next().map(PathBuf::from) else {
        eprintln!("usage: gt4rs-icon-bindings OUT_DIR [LIB_DIR]");
        return ExitCode::from(2);
    };
    let lib = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| out.clone());
    match gt4rs_icon::gt4rs_icon::LIBRARY.write(&out, &lib, env!("CARGO_PKG_VERSION")) {
        Ok(files) => {
            for file in files {
                println!("{}", file.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gt4rs-icon-bindings: {e}");
            ExitCode::FAILURE
        }
    }
}

//! `gt4rs config show PROGRAM`: the resolved options of a program and where each comes from.
//!
//! The command knows the programs of this crate only: a program of a model's own crate is
//! compiled into that crate, and what it runs with depends on the `Options` the model's code
//! builds, which no outside binary can see. A model shows its programs from its own binary with
//! the library call this command uses, `<program>::options(&options)` (docs/guide.md, §5).

use crate::cli::stdout::out;
use std::path::Path;

use gt4rs::{Config, Error, Options};

use crate::programs;

/// Prints the options `program` runs with (file from `config`, else `GT4RS_CONFIG`).
pub fn show(program: &str, config: Option<&Path>, arch: Option<&str>) -> Result<bool, Error> {
    if programs::find(program).is_none() {
        return Err(Error::Config(format!(
            "unknown program `{program}`: this command knows the programs of gt4rs-stencils \
             (see `gt4rs verify --list`); for a program of your own crate, print \
             `{program}::options(&options)?` from your binary (docs/guide.md, section 5)"
        )));
    }
    let options = match config {
        Some(path) => Options::default().with_config(Config::load(path)?),
        None => Options::default().with_config_from_env()?,
    }
    .with_programs(&programs::names());
    let shown = match arch {
        // An architecture asked for explicitly: that device's sections, with or without one.
        Some(arch) => {
            options.check_program_names(program)?;
            options.resolve(program, Some(arch))
        }
        None => options.program_options(program)?,
    };
    out!("{shown}");
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_programs_and_bad_files_are_errors() {
        let err = show("no_such_program", None, None).unwrap_err().to_string();
        assert!(err.contains("no_such_program::options(&options)"), "{err}");
        let dir = std::env::temp_dir().join(format!("gt4rs-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("gt4rs.toml");
        std::fs::write(&file, "[program.calculate_nabla4]\ncpu.chunkk = 4\n").expect("write");
        let err = show("calculate_nabla4", Some(&file), None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("program.calculate_nabla4.cpu.chunkk") && err.contains("gt4rs.toml"),
            "{err}"
        );
        std::fs::write(&file, "[program.calculate_nabla4]\ncpu.chunk = 4\n").expect("write");
        assert!(show("calculate_nabla4", Some(&file), Some("sm_90")).expect("valid"));
        // A section for a misspelt program fails even where another program is shown.
        std::fs::write(&file, "[program.calculate_nabla44]\ncpu.chunk = 4\n").expect("write");
        let err = show("scale_k", Some(&file), None).unwrap_err().to_string();
        assert!(
            err.contains("[program.calculate_nabla44]")
                && err.contains("did you mean `calculate_nabla4`?"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}

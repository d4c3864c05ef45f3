//! `gt4rs config show PROGRAM`: the resolved options of a program and where each comes from.

use std::path::Path;

use gt4rs::{Config, Error, Options};

use crate::programs;

/// Prints the options `program` runs with (file from `config`, else `GT4RS_CONFIG`).
pub fn show(program: &str, config: Option<&Path>, arch: Option<&str>) -> Result<bool, Error> {
    if programs::find(program).is_none() {
        return Err(Error::Config(format!(
            "unknown program `{program}` (see `gt4rs verify --list`)"
        )));
    }
    let options = match config {
        Some(path) => Options::default().with_config(Config::load(path)?),
        None => Options::default().with_config_from_env()?,
    };
    options.check_programs(&programs::names())?;
    print!("{}", options.resolve(program, arch));
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_programs_and_bad_files_are_errors() {
        assert!(show("no_such_program", None, None).is_err());
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

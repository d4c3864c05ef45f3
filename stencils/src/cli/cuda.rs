//! `gt4rs cuda ptx [PROGRAM…] --arch sm_90 [--out DIR]`: every registered program's kernels
//! compiled by NVRTC as `compile()` would compile them for a device of that architecture, with
//! no device or driver, and, where `ptxas` is found (`GT4RS_PTXAS` or `PATH`), assembled with the
//! registers, spills and PTX size of every kernel.

use std::io::Write;
use std::path::Path;

use gt4rs::__private::ir::{ScalarType, ScalarValue, Type};
use gt4rs::cuda::offline::{self, CompiledVariant, OfflineTarget};
use gt4rs::{Config, Error, Options};

use crate::programs::{self, ProgramEntry};

/// The programs `names` pick: every registered one for none or `all`, else each by name.
pub fn pick(names: &[String]) -> Result<Vec<&'static ProgramEntry>, Error> {
    if names.is_empty() || names.iter().any(|n| n == "all") {
        return Ok(programs::ALL.iter().collect());
    }
    names
        .iter()
        .map(|n| {
            programs::find(n).ok_or_else(|| {
                Error::Config(format!("unknown program `{n}` (see `gt4rs verify --list`)"))
            })
        })
        .collect()
}

/// A real architecture NVRTC and ptxas both take, `sm_` and a number (`sm_90`, `sm_90a`).
pub fn check_arch(arch: &str) -> Result<(), Error> {
    let digits = arch.strip_prefix("sm_").unwrap_or_default();
    let number: String = digits.chars().take_while(char::is_ascii_digit).collect();
    let suffix = &digits[number.len()..];
    if number.is_empty() || !(suffix.is_empty() || suffix == "a" || suffix == "f") {
        return Err(Error::Config(format!(
            "--arch {arch:?}: expected a real architecture such as sm_80 or sm_90"
        )));
    }
    Ok(())
}

/// `value` as the type of static parameter `name` of `program`, `None` where `program` has no
/// static parameter of that name.
fn static_value(
    program: &ProgramEntry,
    name: &str,
    value: &str,
) -> Result<Option<ScalarValue>, Error> {
    let translation = (program.translation)();
    let Some(param) = translation
        .program
        .params
        .iter()
        .find(|p| p.is_static && p.name == name)
    else {
        return Ok(None);
    };
    let bad = |what: &str| {
        Error::Config(format!(
            "--static {name}={value}: `{}` takes {what}",
            program.name
        ))
    };
    let parsed = match &param.ty {
        Type::Scalar(ScalarType::Bool) => value
            .parse()
            .map(ScalarValue::Bool)
            .map_err(|_| bad("true or false"))?,
        Type::Scalar(ScalarType::I32) => value
            .parse()
            .map(ScalarValue::I32)
            .map_err(|_| bad("a 32-bit integer"))?,
        Type::Scalar(ScalarType::I64) => value
            .parse()
            .map(ScalarValue::I64)
            .map_err(|_| bad("a 64-bit integer"))?,
        Type::Scalar(ScalarType::F32) => value
            .parse()
            .map(ScalarValue::F32)
            .map_err(|_| bad("a number"))?,
        Type::Scalar(ScalarType::F64) => value
            .parse()
            .map(ScalarValue::F64)
            .map_err(|_| bad("a number"))?,
        other => return Err(bad(&format!("a {other}"))),
    };
    Ok(Some(parsed))
}

/// The options of the compilation: the options file (`config`, else `GT4RS_CONFIG`), and each
/// `NAME=VALUE` of `statics` listed as the single value of static argument NAME of every picked
/// program that has one (so its variant with the value compiled in is compiled too).
pub fn options(
    picked: &[&'static ProgramEntry],
    config: Option<&Path>,
    statics: &[String],
) -> Result<Options, Error> {
    let mut options = match config {
        Some(path) => Options::default().with_config(Config::load(path)?),
        None => Options::default().with_config_from_env()?,
    };
    for given in statics {
        let (name, value) = given
            .split_once('=')
            .ok_or_else(|| Error::Config(format!("--static {given:?}: expected NAME=VALUE")))?;
        let mut used = false;
        for program in picked {
            if let Some(v) = static_value(program, name, value)? {
                options
                    .static_args
                    .entry(program.name.to_string())
                    .or_default()
                    .insert(name.to_string(), vec![v]);
                used = true;
            }
        }
        if !used {
            return Err(Error::Config(format!(
                "--static {given}: no picked program has a static argument `{name}`"
            )));
        }
    }
    Ok(options)
}

/// Writes one variant's kernels as table rows.
pub fn write_report(v: &CompiledVariant, out: &mut dyn Write) -> std::io::Result<()> {
    let file = v
        .ptx_path
        .as_ref()
        .map(|p| format!("  {}", p.display()))
        .unwrap_or_default();
    writeln!(out, "{} ({}) {}{file}", v.program, v.variant.label, v.arch)?;
    for k in &v.kernels {
        match &k.resources {
            Some(r) => writeln!(
                out,
                "  {:<78} {:>4} registers  {:>5} B spill stores  {:>5} B spill loads  {:>5} B stack  {:>7} B PTX",
                k.kernel, r.registers, r.spill_store_bytes, r.spill_load_bytes, r.stack_bytes, k.ptx_bytes
            )?,
            None => writeln!(out, "  {:<78} {:>7} B PTX", k.kernel, k.ptx_bytes)?,
        }
    }
    for line in v.nvrtc_log.lines() {
        writeln!(out, "  NVRTC: {line}")?;
    }
    for line in &v.ptxas_warnings {
        writeln!(out, "  ptxas: {line}")?;
    }
    Ok(())
}

/// Compiles every variant of every picked program for `arch`, writes each source and its PTX
/// under `out_dir` (when given), assembles it where ptxas is found and prints a report. `Ok(false)` when a
/// program failed (each failure is printed; the others still run).
pub fn ptx(
    names: &[String],
    arch: &str,
    out_dir: Option<&Path>,
    config: Option<&Path>,
    statics: &[String],
    out: &mut dyn Write,
) -> Result<bool, Error> {
    check_arch(arch)?;
    let picked = pick(names)?;
    let options = options(&picked, config, statics)?;
    if let Some(dir) = out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
    }
    let ptxas = offline::find_ptxas()?;
    let io = |e: std::io::Error| Error::Io(e.to_string());
    match &ptxas {
        Some(p) => writeln!(out, "ptxas: {}", p.display()).map_err(io)?,
        None => writeln!(
            out,
            "ptxas: not found (set {} or put it on PATH): PTX only, no registers",
            offline::PTXAS_ENV
        )
        .map_err(io)?,
    }
    let target = OfflineTarget {
        arch,
        out: out_dir,
        ptxas: ptxas.as_deref(),
    };
    let mut all_ok = true;
    for program in picked {
        let translation = (program.translation)();
        if let Some(dir) = out_dir {
            // The source beside its PTX, to read the lines NVRTC's messages point at.
            let path = dir.join(format!("{}.cu", program.name));
            std::fs::write(&path, translation.source)
                .map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))?;
        }
        match offline::compile_variants(&translation, &options, &target) {
            Ok(variants) => {
                for v in &variants {
                    write_report(v, out).map_err(io)?;
                }
            }
            Err(e) => {
                all_ok = false;
                writeln!(out, "{}: {e}", program.name).map_err(io)?;
            }
        }
    }
    Ok(all_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_architectures_and_static_values_are_checked() {
        assert_eq!(pick(&[]).expect("all").len(), programs::ALL.len());
        assert_eq!(
            pick(&["all".into()]).expect("all").len(),
            programs::ALL.len()
        );
        assert_eq!(pick(&["lap".into()]).expect("lap")[0].name, "lap");
        assert!(pick(&["no_such_program".into()]).is_err());
        for good in ["sm_80", "sm_90", "sm_90a", "sm_100f"] {
            check_arch(good).expect(good);
        }
        for bad in ["90", "sm_", "compute_90", "sm_9x", "sm_90b"] {
            assert!(check_arch(bad).is_err(), "{bad}");
        }
        let picked = pick(&["apply_diffusion_to_vn".into(), "lap".into()]).expect("picks");
        let options = options(&picked, None, &["limited_area=true".into()]).expect("valid");
        assert_eq!(
            options.static_args["apply_diffusion_to_vn"]["limited_area"],
            vec![ScalarValue::Bool(true)]
        );
        assert!(!options.static_args.contains_key("lap"));
        for bad in ["limited_area", "limited_area=2", "no_such_static=1"] {
            assert!(options_err(&picked, bad), "{bad}");
        }
    }

    fn options_err(picked: &[&'static ProgramEntry], given: &str) -> bool {
        options(picked, None, &[given.to_string()]).is_err()
    }

    #[test]
    fn without_nvrtc_or_the_feature_the_error_says_what_is_missing() {
        // NVRTC is absent from a default test run (and the `cuda` feature may be off): the
        // command must fail with a message naming what to provide, never panic.
        if std::env::var_os("GT4RS_REQUIRE_NVRTC").is_some() {
            return;
        }
        let mut text = Vec::new();
        let ok = ptx(&["lap".into()], "sm_90", None, None, &[], &mut text);
        let text = String::from_utf8_lossy(&text);
        match ok {
            Ok(true) => assert!(text.contains("lap_stage0"), "{text}"),
            Ok(false) => assert!(
                text.contains("enable the cargo feature `cuda`")
                    || text.contains("LD_LIBRARY_PATH"),
                "{text}"
            ),
            Err(e) => panic!("{e}"),
        }
    }
}

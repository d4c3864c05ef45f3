//! A program's kernels compiled without a device: the launcher's own NVRTC path (the same
//! options, source and `-D` defines `compile()` would give NVRTC for an architecture) run with
//! no driver, and, where NVIDIA's `ptxas` is found, each PTX assembled for the architecture
//! with the resources of every kernel (registers, spills, stack) read from `ptxas -v`.
//!
//! NVRTC is the cargo feature `cuda`; without it [`compile_variants`] is a clear error. The
//! variants, the `ptxas` driver and its parser build everywhere.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::backend::cuda::launch::{nvrtc_options, resolve_statics, static_defines};
use crate::backend::cuda::source::Translation;
use crate::config::CudaOptions;
use crate::error::Error;
use crate::options::{static_variants, Backend, Options};

/// The environment variable naming the `ptxas` to run (else `ptxas` is looked for on `PATH`).
pub const PTXAS_ENV: &str = "GT4RS_PTXAS";

/// One compilation the launcher may make of a program: its `-D` defines beyond the tuning ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// `dynamic` (no static value compiled in) or `static` (the single listed values).
    pub label: String,
    /// The static values and the domain bounds they fix, as `-D` options.
    pub defines: Vec<String>,
}

/// The compilations of `translation` the launcher may make with `options`: always the one with
/// no static value compiled in (what a program whose options list no value, or several, gets),
/// and, where the options list a single value for some static argument, the one with those
/// values and the domain bounds they fix compiled in (what `compile()` gives NVRTC).
pub fn variants(translation: &Translation, options: &Options) -> Result<Vec<Variant>, Error> {
    let kernels = translation.kernel_program()?;
    let mut out = vec![Variant {
        label: "dynamic".into(),
        defines: Vec::new(),
    }];
    let singles = static_variants::single_values(options, translation.name);
    if !singles.is_empty() {
        let statics = resolve_statics(translation.name, translation.program, Some(&singles))?;
        out.push(Variant {
            label: "static".into(),
            defines: static_defines(&kernels.stages.stages, &statics),
        });
    }
    Ok(out)
}

/// The CUDA options `program` gets on a device of architecture `arch` (per-architecture
/// sections of the options file apply), whatever backend `options` pick.
pub fn cuda_options_for(options: &Options, program: &str, arch: &str) -> CudaOptions {
    let mut cuda = options.clone();
    cuda.settings.backend = Some(Backend::Cuda);
    for settings in cuda.per_program.values_mut() {
        settings.backend = Some(Backend::Cuda);
    }
    cuda.resolve(program, Some(arch)).cuda
}

/// What `ptxas -v` reports about one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelResources {
    /// The kernel's name.
    pub kernel: String,
    /// Registers per thread.
    pub registers: u32,
    /// Bytes of stack frame per thread.
    pub stack_bytes: u64,
    /// Bytes of spill stores per thread (0 is the aim).
    pub spill_store_bytes: u64,
    /// Bytes of spill loads per thread (0 is the aim).
    pub spill_load_bytes: u64,
}

impl KernelResources {
    /// Whether the kernel spills registers to local memory.
    pub fn spills(&self) -> bool {
        self.spill_store_bytes > 0 || self.spill_load_bytes > 0
    }
}

/// The number before `unit` in `line` (`"0 bytes spill stores"` → 0 for `" bytes spill stores"`).
fn number_before(line: &str, unit: &str) -> Option<u64> {
    let head = &line[..line.find(unit)?];
    let digits: String = head
        .trim_end()
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().ok()
}

/// The kernels of `ptxas -v` output, in the order ptxas compiled them. A kernel ptxas named
/// but whose register count is missing is an error (a format this parser does not know).
pub fn parse_ptxas_verbose(text: &str) -> Result<Vec<KernelResources>, String> {
    let mut out: Vec<(KernelResources, bool)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            out.push((
                KernelResources {
                    kernel: name,
                    ..KernelResources::default()
                },
                false,
            ));
            continue;
        }
        let Some((current, seen)) = out.last_mut() else {
            continue;
        };
        if line.contains("bytes stack frame") {
            current.stack_bytes = number_before(line, " bytes stack frame").unwrap_or(0);
            current.spill_store_bytes = number_before(line, " bytes spill stores").unwrap_or(0);
            current.spill_load_bytes = number_before(line, " bytes spill loads").unwrap_or(0);
        } else if line.contains("Used ") && line.contains(" registers") {
            let after = &line[line.find("Used ").unwrap_or(0)..];
            current.registers = number_before(after, " registers")
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| format!("ptxas -v: cannot read the registers of `{line}`"))?;
            *seen = true;
        }
    }
    out.into_iter()
        .map(|(k, seen)| {
            if seen {
                Ok(k)
            } else {
                Err(format!("ptxas -v: no register count for `{}`", k.kernel))
            }
        })
        .collect()
}

/// The `ptxas` to run: the file [`PTXAS_ENV`] names (an error when it does not exist), else
/// `ptxas` on `PATH`, else `None`.
pub fn find_ptxas() -> Result<Option<PathBuf>, Error> {
    if let Some(path) = std::env::var_os(PTXAS_ENV) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(Some(path))
        } else {
            Err(Error::Config(format!(
                "{PTXAS_ENV}={} names no file",
                path.display()
            )))
        };
    }
    Ok(std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("ptxas"))
            .find(|p| p.is_file())
    }))
}

/// What `ptxas` made of one PTX file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assembled {
    /// What it reports per kernel.
    pub kernels: Vec<KernelResources>,
    /// Lines of `ptxas` output that are warnings.
    pub warnings: Vec<String>,
}

/// Assembles `ptx` for `arch` with `ptxas -v` (the cubin next to it, `.cubin`), returning what
/// it reports per kernel; a failure is an error with ptxas' output.
pub fn assemble(ptxas: &Path, ptx: &Path, arch: &str) -> Result<Assembled, Error> {
    let cubin = ptx.with_extension("cubin");
    let output = Command::new(ptxas)
        .arg("-v")
        .arg(format!("--gpu-name={arch}"))
        .arg("-o")
        .arg(&cubin)
        .arg(ptx)
        .output()
        .map_err(|e| Error::Io(format!("cannot run {}: {e}", ptxas.display())))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if !output.status.success() {
        return Err(Error::Execution {
            program: ptx.display().to_string(),
            message: format!("ptxas failed ({}):\n{text}", output.status),
        });
    }
    let kernels = parse_ptxas_verbose(&text).map_err(|m| Error::Execution {
        program: ptx.display().to_string(),
        message: m,
    })?;
    let warnings = text
        .lines()
        .filter(|l| l.contains("warning"))
        .map(str::to_string)
        .collect();
    Ok(Assembled { kernels, warnings })
}

/// The bytes of `ptx` that define entry `kernel` (from its `.entry` line to the closing brace
/// of its body), 0 when the PTX has no such entry.
pub fn ptx_entry_size(ptx: &str, kernel: &str) -> usize {
    let header = format!(".entry {kernel}(");
    let Some(start) = ptx.find(&header) else {
        return 0;
    };
    let line_start = ptx[..start].rfind('\n').map_or(0, |i| i + 1);
    let end = ptx[start..]
        .find("\n}\n")
        .map_or(ptx.len(), |i| start + i + 3);
    end - line_start
}

/// One kernel of a compiled variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelReport {
    /// The kernel's name.
    pub kernel: String,
    /// Bytes of PTX defining the kernel.
    pub ptx_bytes: usize,
    /// What `ptxas -v` reported (`None` when no ptxas ran).
    pub resources: Option<KernelResources>,
}

/// One variant of a program compiled for one architecture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledVariant {
    /// The program's name.
    pub program: String,
    /// Which static values were compiled in.
    pub variant: Variant,
    /// The architecture (`sm_XY`).
    pub arch: String,
    /// Every option NVRTC got.
    pub nvrtc_options: Vec<String>,
    /// The PTX NVRTC produced.
    pub ptx: String,
    /// NVRTC's warnings (its log), empty when none.
    pub nvrtc_log: String,
    /// Where the PTX was written, when an output folder was given or ptxas ran.
    pub ptx_path: Option<PathBuf>,
    /// ptxas' warnings.
    pub ptxas_warnings: Vec<String>,
    /// Each kernel of the variant.
    pub kernels: Vec<KernelReport>,
}

/// Where [`compile_variants`] writes and what it runs.
#[derive(Clone, Debug, Default)]
pub struct OfflineTarget<'a> {
    /// e.g. `sm_90`.
    pub arch: &'a str,
    /// Folder for the PTX files (`PROGRAM.VARIANT.ARCH.ptx`, and `.cubin` where ptxas ran);
    /// a temporary folder when `None` and ptxas runs.
    pub out: Option<&'a Path>,
    /// The `ptxas` to assemble each PTX with, if any.
    pub ptxas: Option<&'a Path>,
}

#[cfg(feature = "cuda")]
fn nvrtc_ptx(name: &str, source: &str, options: &[String]) -> Result<(String, String), Error> {
    let out = super::nvrtc::compile(name, source, options, super::nvrtc::Output::Ptx)?;
    Ok((String::from_utf8_lossy(&out.image).into_owned(), out.log))
}

#[cfg(not(feature = "cuda"))]
fn nvrtc_ptx(name: &str, _source: &str, _options: &[String]) -> Result<(String, String), Error> {
    Err(Error::BackendUnavailable {
        backend: "cuda".into(),
        reason: format!(
            "program `{name}`: this build of gt4rs has no NVRTC (enable the cargo feature `cuda`)"
        ),
    })
}

/// Whether NVRTC can be loaded here: `Ok`, or an error saying which library was looked for (or
/// that this build has no NVRTC).
pub fn nvrtc_available() -> Result<(), Error> {
    #[cfg(feature = "cuda")]
    return super::nvrtc::probe();
    #[cfg(not(feature = "cuda"))]
    return nvrtc_ptx("gt4rs", "", &[]).map(|_| ());
}

/// Compiles every variant of `translation` the launcher may make with `options` (see
/// [`variants`]) for `target.arch`, each with [`compile_variant`].
pub fn compile_variants(
    translation: &Translation,
    options: &Options,
    target: &OfflineTarget<'_>,
) -> Result<Vec<CompiledVariant>, Error> {
    variants(translation, options)?
        .into_iter()
        .map(|v| compile_variant(translation, v, options, target))
        .collect()
}

/// Compiles `variant` of `translation` for `target.arch` with NVRTC, with exactly the options
/// `compile()` would give it on a device of that architecture (tuning from `options`), writes
/// the PTX and assembles it where `target` names a ptxas.
pub fn compile_variant(
    translation: &Translation,
    variant: Variant,
    options: &Options,
    target: &OfflineTarget<'_>,
) -> Result<CompiledVariant, Error> {
    let name = translation.name;
    let cuda = cuda_options_for(options, name, target.arch);
    let temporary = match (target.out, target.ptxas) {
        (None, Some(_)) => Some(tempfile_dir()?),
        _ => None,
    };
    let folder = target.out.or(temporary.as_ref().map(|t| t.0.as_path()));
    let mut opts = nvrtc_options(target.arch, &cuda);
    opts.extend(variant.defines.iter().cloned());
    let (ptx, log) = nvrtc_ptx(name, translation.source, &opts)?;
    let ptx_path = match folder {
        Some(dir) => {
            let path = dir.join(format!("{name}.{}.{}.ptx", variant.label, target.arch));
            std::fs::write(&path, &ptx)
                .map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))?;
            Some(path)
        }
        None => None,
    };
    let assembled = match (target.ptxas, &ptx_path) {
        (Some(ptxas), Some(path)) => Some(assemble(ptxas, path, target.arch)?),
        _ => None,
    };
    let kernels = translation
        .kernels()
        .iter()
        .map(|k| KernelReport {
            kernel: k.name.clone(),
            ptx_bytes: ptx_entry_size(&ptx, &k.name),
            resources: assembled
                .as_ref()
                .and_then(|a| a.kernels.iter().find(|r| r.kernel == k.name).cloned()),
        })
        .collect();
    Ok(CompiledVariant {
        program: name.to_string(),
        variant,
        arch: target.arch.to_string(),
        nvrtc_options: opts,
        ptx,
        nvrtc_log: log,
        ptx_path: if temporary.is_some() { None } else { ptx_path },
        ptxas_warnings: assembled.map(|a| a.warnings).unwrap_or_default(),
        kernels,
    })
}

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempfile_dir() -> Result<TempDir, Error> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "gt4rs-ptx-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
    Ok(TempDir(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTXAS_V: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'lap_stage0' for 'sm_90'
ptxas info    : Function properties for lap_stage0
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 38 registers, used 0 barriers, 432 bytes cmem[0]
ptxas info    : Compiling entry function 'lap_stage1' for 'sm_90'
ptxas info    : Function properties for lap_stage1
    40 bytes stack frame, 32 bytes spill stores, 24 bytes spill loads
ptxas info    : Used 255 registers, 432 bytes cmem[0]
";

    #[test]
    fn ptxas_verbose_output_gives_registers_and_spills_per_kernel() {
        let kernels = parse_ptxas_verbose(PTXAS_V).expect("parses");
        assert_eq!(
            kernels,
            vec![
                KernelResources {
                    kernel: "lap_stage0".into(),
                    registers: 38,
                    ..KernelResources::default()
                },
                KernelResources {
                    kernel: "lap_stage1".into(),
                    registers: 255,
                    stack_bytes: 40,
                    spill_store_bytes: 32,
                    spill_load_bytes: 24,
                },
            ]
        );
        assert!(!kernels[0].spills());
        assert!(kernels[1].spills());
    }

    #[test]
    fn a_kernel_without_a_register_count_is_an_error() {
        let cut = PTXAS_V.replace("Used 38 registers", "Used many registers");
        let err = parse_ptxas_verbose(&cut).expect_err("must not guess");
        assert!(err.contains("Used many registers"), "{err}");
        let missing: String = PTXAS_V.lines().take(4).collect::<Vec<_>>().join("\n");
        let err = parse_ptxas_verbose(&missing).expect_err("no count");
        assert!(err.contains("lap_stage0"), "{err}");
    }

    #[test]
    fn entry_sizes_cover_each_kernel_body() {
        let ptx = ".version 9.0\n.visible .entry a(\n.param .u64 p\n)\n{\nret;\n}\n\
                   .visible .entry b(\n)\n{\nmov;\nret;\n}\n";
        let a = ".visible .entry a(\n.param .u64 p\n)\n{\nret;\n}\n".len();
        assert_eq!(ptx_entry_size(ptx, "a"), a);
        assert_eq!(
            ptx_entry_size(ptx, "b"),
            ".visible .entry b(\n)\n{\nmov;\nret;\n}\n".len()
        );
        assert_eq!(ptx_entry_size(ptx, "c"), 0);
    }
}

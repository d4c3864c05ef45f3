//! Per-program backend options, from code and from a TOML file.
//!
//! ```toml
//! [default]                                   # every program, every architecture
//! cpu.chunk = 256
//! [arch.sm_90]                                # every program on sm_90
//! cuda.block_size = 128
//! [program.apply_diffusion_to_vn]             # one program, any architecture
//! backend = "cpu"
//! cpu.parallel_threshold = 4096
//! cpu.k_block = 16                            # split columns into blocks of 16 levels
//! cpu.stage_group_chunk = 0                   # no stages run tile by tile together
//! cpu.vectors = "avx2"                        # at most the AVX2 copy of the kernels
//! [program.apply_diffusion_to_vn.arch.sm_90]  # one program on one architecture
//! cuda.k_block = 4
//! ```
//!
//! Precedence, highest first: an explicit option set in code for the program, an explicit
//! option set in code for all programs, the file's `program.P.arch.A`, `program.P`, `arch.A`,
//! `default`, then the built-in default. The architecture is `cpu` for the CPU and embedded
//! backends and `sm_XY` for CUDA devices.
//!
//! A `[program.NAME]` section naming no program is an error wherever the known programs are
//! given (`Options::with_programs` at `compile()`, [`Config::check_programs`], `gt4rs config
//! show`), naming the nearest known program: the file alone cannot tell a misspelt name from a
//! program it has not heard of.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::options::{Backend, CpuOptions, Vectors};

/// Options of the CUDA backend (used by the `cuda` feature).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CudaOptions {
    /// Threads per block.
    pub block_size: u32,
    /// Vertical levels each thread walks.
    pub k_block: u32,
    /// Register cap passed to NVRTC (`0`: none).
    pub max_registers: u32,
    /// Lets NVRTC contract a multiply and an add into one fused multiply-add (`--fmad=true`).
    /// Off by default: each operation is then rounded as on the CPU backends, so the kernels
    /// give the CPU's bits wherever no math function is involved.
    pub fma_contraction: bool,
    /// Keeps every kernel's column work (neighbour rows and entries, their checks,
    /// horizontal-only loads) live across the thread's block of levels. Off by default: a
    /// kernel whose level body is large redoes that work at every level instead, within fewer
    /// registers. Measured on an H200, neither wins everywhere (docs/cuda.md, *Registers*):
    /// `compute_diagnostics_from_normal_wind` runs faster hoisted, `hdiff` per level.
    pub hoist_column_work: bool,
}

impl Default for CudaOptions {
    fn default() -> Self {
        CudaOptions {
            block_size: 128,
            k_block: 8,
            max_registers: 0,
            fma_contraction: false,
            hoist_column_work: false,
        }
    }
}

/// A partial set of options: what one layer (code or a file section) sets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// `backend = "cpu"`: the backend (`embedded`, `cpu`, `cuda` or `auto`).
    pub backend: Option<Backend>,
    /// `cpu.parallel_threshold`: see [`CpuOptions::parallel_threshold`].
    pub cpu_parallel_threshold: Option<usize>,
    /// `cpu.chunk`: see [`CpuOptions::chunk`].
    pub cpu_chunk: Option<usize>,
    /// `cpu.k_block`: see [`CpuOptions::k_block`].
    pub cpu_k_block: Option<usize>,
    /// `cpu.stage_group_chunk`: see [`CpuOptions::stage_group_chunk`].
    pub cpu_stage_group_chunk: Option<usize>,
    /// `cpu.vectors`: see [`CpuOptions::vectors`].
    pub cpu_vectors: Option<Vectors>,
    /// `cuda.block_size`: see [`CudaOptions::block_size`].
    pub cuda_block_size: Option<u32>,
    /// `cuda.k_block`: see [`CudaOptions::k_block`].
    pub cuda_k_block: Option<u32>,
    /// `cuda.max_registers`: see [`CudaOptions::max_registers`].
    pub cuda_max_registers: Option<u32>,
    /// `cuda.fma_contraction`: see [`CudaOptions::fma_contraction`].
    pub cuda_fma_contraction: Option<bool>,
    /// `cuda.hoist_column_work`: see [`CudaOptions::hoist_column_work`].
    pub cuda_hoist_column_work: Option<bool>,
}

/// Every key a layer may set, as written in the file.
pub const KEYS: &[&str] = &[
    "backend",
    "cpu.parallel_threshold",
    "cpu.chunk",
    "cpu.k_block",
    "cpu.stage_group_chunk",
    "cpu.vectors",
    "cuda.block_size",
    "cuda.k_block",
    "cuda.max_registers",
    "cuda.fma_contraction",
    "cuda.hoist_column_work",
];

/// Where a resolved value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// No layer set it: gt4rs's default.
    BuiltIn,
    /// Set in code for every program ([`Options::new`](crate::Options::new), `with_cpu`, …).
    Explicit,
    /// Set in code for this program ([`Options::with_program`](crate::Options::with_program)).
    ExplicitForProgram,
    /// A section of an options file.
    File {
        /// The options file.
        path: PathBuf,
        /// The section that set the value (`program.NAME`, `arch.sm_90`, `default`, …).
        section: String,
    },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::BuiltIn => write!(f, "built-in default"),
            Source::Explicit => write!(f, "set in code (all programs)"),
            Source::ExplicitForProgram => write!(f, "set in code (this program)"),
            Source::File { path, section } => write!(f, "{} [{}]", path.display(), section),
        }
    }
}

/// The options one program runs with, and where each came from.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramOptions {
    /// The program's name.
    pub program: String,
    /// The architecture the file's `arch.A` sections were matched with: `cpu` for the CPU and
    /// embedded backends, the device's `sm_XY` for CUDA.
    pub arch: String,
    /// The backend asked for (`Auto` is resolved by `compile()`: CUDA where a device is usable, else
    /// CPU).
    pub backend: Backend,
    /// The CPU kernels' tuning.
    pub cpu: CpuOptions,
    /// The CUDA kernels' tuning.
    pub cuda: CudaOptions,
    /// `(key, value as text, source)` for every key of [`KEYS`].
    pub sources: Vec<(String, String, Source)>,
}

impl fmt::Display for ProgramOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "program {} on {}", self.program, self.arch)?;
        for (key, value, source) in &self.sources {
            writeln!(f, "  {key:<24} = {value:<10} ({source})")?;
        }
        Ok(())
    }
}

/// A parsed options file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Config {
    path: PathBuf,
    default: Settings,
    arch: BTreeMap<String, Settings>,
    program: BTreeMap<String, Settings>,
    program_arch: BTreeMap<(String, String), Settings>,
}

impl Config {
    /// Reads `path`. A malformed file or an unknown key is an error naming the key and the file.
    pub fn load(path: &Path) -> Result<Config, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Config(format!("cannot read {}: {e}", path.display())))?;
        Self::parse(&text, path)
    }

    /// Reads the file named by `GT4RS_CONFIG`, if set.
    pub fn from_env() -> Result<Option<Config>, Error> {
        match std::env::var_os("GT4RS_CONFIG") {
            Some(p) if !p.is_empty() => Self::load(Path::new(&p)).map(Some),
            _ => Ok(None),
        }
    }

    /// Parses `text`; `path` is used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Config, Error> {
        let file = path.display();
        let root: toml::Table = text
            .parse()
            .map_err(|e| Error::Config(format!("{file}: not valid TOML: {e}")))?;
        let mut config = Config {
            path: path.to_path_buf(),
            ..Config::default()
        };
        for (key, value) in &root {
            match key.as_str() {
                "default" => config.default = settings(value, "default", path)?,
                "arch" => {
                    for (arch, v) in table(value, "arch", path)? {
                        config
                            .arch
                            .insert(arch.clone(), settings(v, &format!("arch.{arch}"), path)?);
                    }
                }
                "program" => {
                    for (prog, v) in table(value, "program", path)? {
                        let section = format!("program.{prog}");
                        let mut own = v.clone();
                        if let Some(t) = own.as_table_mut() {
                            if let Some(arches) = t.remove("arch") {
                                for (arch, av) in table(&arches, &format!("{section}.arch"), path)?
                                {
                                    let s = settings(av, &format!("{section}.arch.{arch}"), path)?;
                                    config.program_arch.insert((prog.clone(), arch.clone()), s);
                                }
                            }
                        }
                        config
                            .program
                            .insert(prog.clone(), settings(&own, &section, path)?);
                    }
                }
                other => {
                    return Err(Error::Config(format!(
                    "{file}: unknown section `{other}` (expected `default`, `arch` or `program`)"
                )))
                }
            }
        }
        Ok(config)
    }

    /// The file this configuration was read from (named in its error messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The programs the file's `[program.NAME]` and `[program.NAME.arch.A]` sections name.
    pub fn program_names(&self) -> BTreeSet<&str> {
        self.program
            .keys()
            .map(String::as_str)
            .chain(
                self.program_arch
                    .keys()
                    .map(|(program, _)| program.as_str()),
            )
            .collect()
    }

    /// Fails on a `[program.NAME]` section naming none of `known`, with the nearest known name:
    /// the file cannot tell a misspelt program from one it does not know of, so the caller
    /// hands it every program it may configure.
    pub fn check_programs(&self, known: &[&str]) -> Result<(), Error> {
        for name in self.program_names() {
            if let Some(hint) = unknown_program(name, known) {
                return Err(Error::Config(format!(
                    "{}: section `[program.{name}]` names no program{hint}",
                    self.path.display()
                )));
            }
        }
        Ok(())
    }

    /// The file layers that apply to `program` on `arch`, highest precedence first.
    fn layers(&self, program: &str, arch: Option<&str>) -> Vec<(String, &Settings)> {
        let mut out = Vec::new();
        if let Some(arch) = arch {
            if let Some(s) = self
                .program_arch
                .get(&(program.to_string(), arch.to_string()))
            {
                out.push((format!("program.{program}.arch.{arch}"), s));
            }
        }
        if let Some(s) = self.program.get(program) {
            out.push((format!("program.{program}"), s));
        }
        if let Some(arch) = arch {
            if let Some(s) = self.arch.get(arch) {
                out.push((format!("arch.{arch}"), s));
            }
        }
        out.push(("default".to_string(), &self.default));
        out
    }
}

/// `None` where `name` is one of `known`; else what to add to the error: the nearest known
/// name (fewest single-character edits) and the whole list.
pub(crate) fn unknown_program(name: &str, known: &[&str]) -> Option<String> {
    if known.contains(&name) {
        return None;
    }
    let nearest = known
        .iter()
        .min_by_key(|candidate| (edit_distance(name, candidate), **candidate));
    Some(match nearest {
        Some(nearest) => format!(
            "; did you mean `{nearest}`? (known programs: {})",
            known.join(", ")
        ),
        None => " (no programs are known)".to_string(),
    })
}

/// The Levenshtein distance between `a` and `b`, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

fn table<'a>(value: &'a toml::Value, section: &str, path: &Path) -> Result<&'a toml::Table, Error> {
    value
        .as_table()
        .ok_or_else(|| Error::Config(format!("{}: `{section}` must be a table", path.display())))
}

fn settings(value: &toml::Value, section: &str, path: &Path) -> Result<Settings, Error> {
    let file = path.display();
    let mut s = Settings::default();
    let mut flat = Vec::new();
    for (k, v) in table(value, section, path)? {
        match v.as_table() {
            Some(inner) if k == "cpu" || k == "cuda" => {
                for (ik, iv) in inner {
                    flat.push((format!("{k}.{ik}"), iv));
                }
            }
            _ => flat.push((k.clone(), v)),
        }
    }
    for (key, v) in flat {
        let int = |v: &toml::Value| -> Result<u64, Error> {
            v.as_integer()
                .filter(|i| *i >= 0)
                .map(|i| i as u64)
                .ok_or_else(|| {
                    Error::Config(format!(
                        "{file}: `{section}.{key}` must be a non-negative integer, found {v}"
                    ))
                })
        };
        let boolean = |v: &toml::Value| -> Result<bool, Error> {
            v.as_bool().ok_or_else(|| {
                Error::Config(format!(
                    "{file}: `{section}.{key}` must be true or false, found {v}"
                ))
            })
        };
        match key.as_str() {
            "backend" => {
                let name = v.as_str().ok_or_else(|| {
                    Error::Config(format!("{file}: `{section}.backend` must be a string"))
                })?;
                s.backend = Some(name.parse().map_err(|e: Error| {
                    Error::Config(format!("{file}: `{section}.backend`: {e}"))
                })?);
            }
            "cpu.parallel_threshold" => s.cpu_parallel_threshold = Some(int(v)? as usize),
            "cpu.chunk" => s.cpu_chunk = Some(int(v)?.max(1) as usize),
            "cpu.k_block" => s.cpu_k_block = Some(int(v)? as usize),
            "cpu.stage_group_chunk" => s.cpu_stage_group_chunk = Some(int(v)? as usize),
            "cpu.vectors" => {
                let name = v.as_str().ok_or_else(|| {
                    Error::Config(format!("{file}: `{section}.cpu.vectors` must be a string"))
                })?;
                s.cpu_vectors = Some(name.parse().map_err(|e: Error| {
                    Error::Config(format!("{file}: `{section}.cpu.vectors`: {e}"))
                })?);
            }
            "cuda.block_size" => s.cuda_block_size = Some(int(v)? as u32),
            "cuda.k_block" => s.cuda_k_block = Some(int(v)?.max(1) as u32),
            "cuda.max_registers" => s.cuda_max_registers = Some(int(v)? as u32),
            "cuda.fma_contraction" => s.cuda_fma_contraction = Some(boolean(v)?),
            "cuda.hoist_column_work" => s.cuda_hoist_column_work = Some(boolean(v)?),
            other => {
                return Err(Error::Config(format!(
                    "{file}: unknown key `{section}.{other}` (known keys: {})",
                    KEYS.join(", ")
                )))
            }
        }
    }
    Ok(s)
}

/// Resolves every option for `program`, given explicit settings (for all programs and for this
/// program) and an optional file. `device_arch` is the CUDA architecture used when the backend
/// resolves to CUDA.
pub fn resolve(
    program: &str,
    explicit: &Settings,
    explicit_for_program: Option<&Settings>,
    config: Option<&Config>,
    device_arch: Option<&str>,
) -> ProgramOptions {
    // The backend decides the architecture, so it is resolved from the arch-free layers.
    let pick = |arch: Option<&str>,
                get: &dyn Fn(&Settings) -> Option<String>|
     -> Option<(String, Source)> {
        if let Some(v) = explicit_for_program.and_then(get) {
            return Some((v, Source::ExplicitForProgram));
        }
        if let Some(v) = get(explicit) {
            return Some((v, Source::Explicit));
        }
        let config = config?;
        config
            .layers(program, arch)
            .into_iter()
            .find_map(|(section, s)| {
                get(s).map(|v| {
                    (
                        v,
                        Source::File {
                            path: config.path.clone(),
                            section,
                        },
                    )
                })
            })
    };
    let (backend_text, backend_source) = pick(None, &|s| s.backend.map(|b| b.name().to_string()))
        .unwrap_or_else(|| (Backend::Cpu.name().to_string(), Source::BuiltIn));
    let backend: Backend = backend_text.parse().unwrap_or(Backend::Cpu);
    let arch = match backend {
        Backend::Cuda | Backend::Auto => device_arch.unwrap_or("cpu").to_string(),
        Backend::Cpu | Backend::Embedded => "cpu".to_string(),
    };
    let mut sources = vec![("backend".to_string(), backend_text, backend_source)];
    let mut num = |key: &str, default: u64, get: &dyn Fn(&Settings) -> Option<u64>| -> u64 {
        let (text, source) = pick(Some(&arch), &|s| get(s).map(|v| v.to_string()))
            .unwrap_or_else(|| (default.to_string(), Source::BuiltIn));
        let value = text.parse().unwrap_or(default);
        sources.push((key.to_string(), text, source));
        value
    };
    let cpu_default = CpuOptions::default();
    let cuda_default = CudaOptions::default();
    let cpu = CpuOptions {
        parallel_threshold: num(
            "cpu.parallel_threshold",
            cpu_default.parallel_threshold as u64,
            &|s| s.cpu_parallel_threshold.map(|v| v as u64),
        ) as usize,
        chunk: num("cpu.chunk", cpu_default.chunk as u64, &|s| {
            s.cpu_chunk.map(|v| v as u64)
        }) as usize,
        k_block: num("cpu.k_block", cpu_default.k_block as u64, &|s| {
            s.cpu_k_block.map(|v| v as u64)
        }) as usize,
        stage_group_chunk: num(
            "cpu.stage_group_chunk",
            cpu_default.stage_group_chunk as u64,
            &|s| s.cpu_stage_group_chunk.map(|v| v as u64),
        ) as usize,
        vectors: cpu_default.vectors,
    };
    let cuda = CudaOptions {
        block_size: num("cuda.block_size", cuda_default.block_size as u64, &|s| {
            s.cuda_block_size.map(u64::from)
        }) as u32,
        k_block: num("cuda.k_block", cuda_default.k_block as u64, &|s| {
            s.cuda_k_block.map(u64::from)
        }) as u32,
        max_registers: num(
            "cuda.max_registers",
            cuda_default.max_registers as u64,
            &|s| s.cuda_max_registers.map(u64::from),
        ) as u32,
        fma_contraction: cuda_default.fma_contraction,
        hoist_column_work: cuda_default.hoist_column_work,
    };
    let mut flag = |key: &str, default: bool, get: &dyn Fn(&Settings) -> Option<bool>| {
        let (text, source) = pick(Some(&arch), &|s| get(s).map(|v| v.to_string()))
            .unwrap_or_else(|| (default.to_string(), Source::BuiltIn));
        let value = text == "true";
        sources.push((key.to_string(), text, source));
        value
    };
    let cuda = CudaOptions {
        fma_contraction: flag("cuda.fma_contraction", cuda_default.fma_contraction, &|s| {
            s.cuda_fma_contraction
        }),
        hoist_column_work: flag(
            "cuda.hoist_column_work",
            cuda_default.hoist_column_work,
            &|s| s.cuda_hoist_column_work,
        ),
        ..cuda
    };
    let (text, source) = pick(Some(&arch), &|s| s.cpu_vectors.map(|v| v.to_string()))
        .unwrap_or_else(|| (cpu_default.vectors.to_string(), Source::BuiltIn));
    // `text` is a name `Vectors` wrote (from a parsed value or the default).
    let vectors = text.parse().unwrap_or(cpu_default.vectors);
    sources.push(("cpu.vectors".to_string(), text, source));
    let cpu = CpuOptions { vectors, ..cpu };
    ProgramOptions {
        program: program.to_string(),
        arch,
        backend,
        cpu,
        cuda,
        sources,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
        [default]
        cpu.chunk = 100
        [arch.sm_90]
        cuda.block_size = 256
        [program.p]
        backend = "embedded"
        cpu.parallel_threshold = 7
        cpu.k_block = 16
        cpu.stage_group_chunk = 0
        [program.q]
        backend = "cuda"
        [program.q.arch.sm_90]
        cuda.k_block = 2
    "#;

    fn config() -> Config {
        Config::parse(FILE, Path::new("gt4rs.toml")).expect("valid test file")
    }

    #[test]
    fn precedence_follows_the_documented_order() {
        let c = config();
        let p = resolve("p", &Settings::default(), None, Some(&c), None);
        assert_eq!(p.backend, Backend::Embedded);
        assert_eq!(p.cpu.parallel_threshold, 7);
        assert_eq!(p.cpu.chunk, 100);
        assert_eq!(p.cpu.k_block, 16);
        assert_eq!(p.cpu.stage_group_chunk, 0, "stages one after the other");
        let explicit = Settings {
            cpu_chunk: Some(5),
            ..Settings::default()
        };
        let p = resolve("p", &explicit, None, Some(&c), None);
        assert_eq!(p.cpu.chunk, 5);
        let per_program = Settings {
            cpu_chunk: Some(9),
            ..Settings::default()
        };
        let p = resolve("p", &explicit, Some(&per_program), Some(&c), None);
        assert_eq!(p.cpu.chunk, 9);
        let q = resolve("q", &Settings::default(), None, Some(&c), Some("sm_90"));
        assert_eq!(q.arch, "sm_90");
        assert_eq!(q.cuda.k_block, 2);
        assert_eq!(q.cuda.block_size, 256);
        let q80 = resolve("q", &Settings::default(), None, Some(&c), Some("sm_80"));
        assert_eq!(q80.cuda.k_block, CudaOptions::default().k_block);
        assert_eq!(q80.cuda.block_size, CudaOptions::default().block_size);
        let other = resolve("r", &Settings::default(), None, None, None);
        assert_eq!(other.backend, Backend::Cpu);
        assert_eq!(other.cpu.k_block, 0, "whole columns unless asked");
        assert_eq!(
            other.cpu.stage_group_chunk,
            CpuOptions::default().stage_group_chunk
        );
        assert!(other.sources.iter().all(|(_, _, s)| *s == Source::BuiltIn));
    }

    #[test]
    fn sources_name_the_section() {
        let p = resolve("p", &Settings::default(), None, Some(&config()), None);
        let (_, _, src) = p
            .sources
            .iter()
            .find(|(k, _, _)| k == "cpu.chunk")
            .expect("listed");
        assert_eq!(src.to_string(), "gt4rs.toml [default]");
        assert!(p.to_string().contains("cpu.parallel_threshold"));
    }

    #[test]
    fn fma_contraction_is_off_unless_a_layer_turns_it_on() {
        let file = "[program.p]\nbackend = \"cuda\"\n[program.p.arch.sm_90]\ncuda.fma_contraction = true\n";
        let c = Config::parse(file, Path::new("x.toml")).expect("valid");
        let on = resolve("p", &Settings::default(), None, Some(&c), Some("sm_90"));
        assert!(on.cuda.fma_contraction);
        let (_, text, src) = on
            .sources
            .iter()
            .find(|(k, _, _)| k == "cuda.fma_contraction")
            .expect("listed");
        assert_eq!(text, "true");
        assert_eq!(src.to_string(), "x.toml [program.p.arch.sm_90]");
        let elsewhere = resolve("p", &Settings::default(), None, Some(&c), Some("sm_80"));
        assert!(!elsewhere.cuda.fma_contraction);
        let explicit = Settings {
            cuda_fma_contraction: Some(false),
            ..Settings::default()
        };
        let off = resolve(
            "p",
            &Settings::default(),
            Some(&explicit),
            Some(&c),
            Some("sm_90"),
        );
        assert!(!off.cuda.fma_contraction, "code overrides the file");
        let err = Config::parse("[default]\ncuda.fma_contraction = 1\n", Path::new("x.toml"))
            .unwrap_err();
        assert!(err.to_string().contains("true or false"), "{err}");
    }

    #[test]
    fn column_work_is_hoisted_only_where_a_layer_asks() {
        let file = "[program.p]\ncuda.hoist_column_work = true\n";
        let c = Config::parse(file, Path::new("x.toml")).expect("valid");
        let on = resolve("p", &Settings::default(), None, Some(&c), None);
        assert!(on.cuda.hoist_column_work);
        assert!(!on.cuda.fma_contraction, "one flag does not set the other");
        let (_, text, src) = on
            .sources
            .iter()
            .find(|(k, _, _)| k == "cuda.hoist_column_work")
            .expect("listed");
        assert_eq!(
            (text.as_str(), src.to_string()),
            ("true", "x.toml [program.p]".into())
        );
        let other = resolve("q", &Settings::default(), None, Some(&c), None);
        assert!(!other.cuda.hoist_column_work);
        let err = Config::parse(
            "[default]\ncuda.hoist_column_work = \"yes\"\n",
            Path::new("x.toml"),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("cuda.hoist_column_work` must be true or false"),
            "{err}"
        );
    }

    #[test]
    fn vectors_come_from_the_file_by_name() {
        let file = "[default]\ncpu.vectors = \"avx2\"\n[program.p]\ncpu.vectors = \"baseline\"\n";
        let c = Config::parse(file, Path::new("x.toml")).expect("valid");
        let p = resolve("p", &Settings::default(), None, Some(&c), None);
        assert_eq!(p.cpu.vectors, Vectors::Baseline);
        let q = resolve("q", &Settings::default(), None, Some(&c), None);
        assert_eq!(q.cpu.vectors, Vectors::Avx2);
        let (_, text, src) = q
            .sources
            .iter()
            .find(|(k, _, _)| k == "cpu.vectors")
            .expect("listed");
        assert_eq!(
            (text.as_str(), src.to_string()),
            ("avx2", "x.toml [default]".into())
        );
        let built_in = resolve("q", &Settings::default(), None, None, None);
        assert_eq!(built_in.cpu.vectors, CpuOptions::default().vectors);
        for (bad, says) in [
            (
                "\"avx\"",
                "unknown vector instructions `avx` (expected baseline, avx2 or avx512)",
            ),
            ("true", "`default.cpu.vectors` must be a string"),
        ] {
            let err = Config::parse(
                &format!("[default]\ncpu.vectors = {bad}\n"),
                Path::new("x.toml"),
            )
            .unwrap_err();
            assert!(err.to_string().contains(says), "{err}");
        }
    }

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("scale_k", "scale_k"), 0);
        assert_eq!(edit_distance("scale_kk", "scale_k"), 1);
        assert_eq!(edit_distance("sclae_k", "scale_k"), 2);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_section_naming_no_program_is_an_error_with_the_nearest_name() {
        let c = config();
        c.check_programs(&["p", "q", "r"])
            .expect("p and q are known");
        let err = c.check_programs(&["p", "zzzz"]).unwrap_err().to_string();
        assert!(
            err.contains("gt4rs.toml")
                && err.contains("[program.q]")
                && err.contains("did you mean `p`?"),
            "{err}"
        );
        let arch_only = Config::parse(
            "[program.scale_kk.arch.sm_90]\ncuda.k_block = 2\n",
            Path::new("x.toml"),
        )
        .expect("valid");
        let err = arch_only
            .check_programs(&["scale_k", "calculate_nabla4"])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("[program.scale_kk]") && err.contains("did you mean `scale_k`?"),
            "{err}"
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named() {
        let err = Config::parse("[default]\ncpu.chunks = 3\n", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("`default.cpu.chunks`"), "{err}");
        assert!(err.to_string().contains("x.toml"), "{err}");
        let err =
            Config::parse("[program.p]\nbackend = \"gpu\"\n", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("program.p.backend"), "{err}");
        let err = Config::parse("[defaults]\n", Path::new("x.toml")).unwrap_err();
        assert!(
            err.to_string().contains("unknown section `defaults`"),
            "{err}"
        );
        let err = Config::parse("[default]\ncpu.chunk = -1\n", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("non-negative"), "{err}");
        let err = Config::parse("not toml [", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("not valid TOML"), "{err}");
    }
}

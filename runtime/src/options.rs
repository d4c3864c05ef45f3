//! Options for `compile()`.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::args::ScalarValue;
use crate::backend::cuda::emulator::CudaEmulator;
use crate::config::{Config, CudaOptions, ProgramOptions, Settings};
use crate::connectivity::Connectivities;
use crate::debug::DebugChecks;
use crate::field::Scalar;

/// Which backend runs a compiled program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Backend {
    /// Op-by-op over whole fields: the semantic reference. Slow, simple, independent of fusion.
    Embedded,
    /// One fused kernel per stage, parallel over horizontal blocks with rayon.
    #[default]
    Cpu,
    /// Generated CUDA kernels (cargo feature `cuda`).
    Cuda,
    /// CUDA where a GPU is present, else CPU.
    Auto,
}

impl Backend {
    /// The name used in options files, `GT4RS_*` variables and messages (`"cpu"`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Embedded => "embedded",
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
            Backend::Auto => "auto",
        }
    }
}

impl std::str::FromStr for Backend {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "embedded" => Backend::Embedded,
            "cpu" => Backend::Cpu,
            "cuda" => Backend::Cuda,
            "auto" => Backend::Auto,
            other => {
                return Err(crate::Error::Config(format!(
                    "unknown backend `{other}` (expected embedded, cpu, cuda or auto)"
                )))
            }
        })
    }
}

/// The widest vector instructions the CPU kernels may use. On x86-64 every loop nest is
/// compiled once for the build's target and once for each wider set above it; a program runs
/// the widest copy its options allow and the CPU has (`compile()` detects the CPU once). All
/// copies give the same results bit for bit: none multiplies and adds in one rounding (Rust
/// fuses no multiply-add the code does not ask for), and the vector operations round as the
/// scalar ones. Elsewhere, and below the build's target, only the build's target applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Vectors {
    /// The build's target only (x86-64's baseline: SSE2, two doubles an instruction).
    Baseline,
    /// AVX2 and FMA: four doubles an instruction, sixteen registers.
    Avx2,
    /// AVX-512 (F, VL, BW, DQ, CD) with AVX2 and FMA: eight doubles an instruction, 32
    /// registers, masked loads and gathers.
    Avx512,
}

impl Vectors {
    /// The name used in options files (`"avx2"`).
    pub fn name(self) -> &'static str {
        match self {
            Vectors::Baseline => "baseline",
            Vectors::Avx2 => "avx2",
            Vectors::Avx512 => "avx512",
        }
    }
}

impl std::fmt::Display for Vectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Vectors {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "baseline" => Vectors::Baseline,
            "avx2" => Vectors::Avx2,
            "avx512" => Vectors::Avx512,
            other => {
                return Err(crate::Error::Config(format!(
                    "unknown vector instructions `{other}` (expected baseline, avx2 or avx512)"
                )))
            }
        })
    }
}

/// Tuning of the fused CPU kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuOptions {
    /// Below this many points (horizontal × vertical) a stage runs on the calling thread, so
    /// small calls stay cheap.
    pub parallel_threshold: usize,
    /// Horizontal points per rayon task.
    pub chunk: usize,
    /// The fewest levels a rayon task walks when columns are split (`0`: never split).
    /// Columns are split only where a stage's horizontal range gives fewer tasks than rayon
    /// has threads (a boundary zone, a small regional grid), into as many blocks as keep
    /// every thread busy; stages that carry a value from level to level (scans) always walk
    /// whole columns.
    pub k_block: usize,
    /// Horizontal points per tile where consecutive stages of a program run tile by tile
    /// together (`gt4rs_ir::tile_groups`: every stage of the group over a tile before the next
    /// tile, so what a stage reads of another's fields and inputs is still in cache); `0`: each
    /// stage over its whole domain before the next.
    pub stage_group_chunk: usize,
    /// The widest vector instructions the kernels may use (see [`Vectors`]); `compile()`
    /// lowers it to what the CPU has and to the widest copy the program's crate compiled (a
    /// crate built with one copy, for its own unit tests or with `GT4RS_KERNEL_COPIES=portable`
    /// in its build's environment, holds only the build target's), so a compiled program's
    /// options name the copy it runs.
    pub vectors: Vectors,
}

impl CpuOptions {
    /// These options with [`CpuOptions::vectors`] at most `widest`.
    pub fn with_vectors_at_most(self, widest: Vectors) -> Self {
        CpuOptions {
            vectors: self.vectors.min(widest),
            ..self
        }
    }
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions {
            parallel_threshold: 32 * 1024,
            chunk: 256,
            k_block: 0,
            stage_group_chunk: 256,
            vectors: Vectors::Avx512,
        }
    }
}

/// A shared [`CudaEmulator`]; options compare equal when they name the same one.
#[derive(Clone)]
pub struct CudaEmulatorRef(pub Arc<dyn CudaEmulator>);

impl PartialEq for CudaEmulatorRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for CudaEmulatorRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CudaEmulator({})", self.0.name())
    }
}

/// What `compile()` needs to know: explicit settings (for all programs, or per program), an
/// optional options file, and the neighbour tables. See [`crate::config`] for precedence.
///
/// Settings come from three layers, highest first: code (per program, then for every
/// program), the options file, the built-in defaults. [`Options::new`] sets the backend in
/// code, so a file cannot change it; start from [`Options::default`] to let the file decide.
/// One `Options` usually serves every program of a model: build it once, at initialisation.
///
/// ```
/// use std::path::Path;
///
/// use gt4rs::config::Config;
/// use gt4rs::prelude::*;
/// use gt4rs::{CpuOptions, Settings};
///
/// gt4rs::dimensions! { pub Cell, Edge: horizontal; }
/// gt4rs::offsets! { pub E2C: Edge => Cell [2]; }
///
/// # fn main() -> Result<(), gt4rs::Error> {
/// let e2c = Connectivity::<E2C>::from_vec(vec![0, 1, 1, 0], 2, 2)?;
///
/// // Every program on the CPU with small parallel chunks, one program on the reference
/// // backend, and the tables the programs read.
/// let options = Options::new(Backend::Cpu)
///     .with_cpu(CpuOptions { chunk: 64, ..CpuOptions::default() })
///     .with_program("check_me", Settings { backend: Some(Backend::Embedded), ..Settings::default() })
///     .with_connectivities(Connectivities::new().with(&e2c));
/// assert_eq!(options.resolve("any", None).cpu.chunk, 64);
/// assert_eq!(options.resolve("check_me", None).backend, Backend::Embedded);
///
/// // Let an options file (here parsed from text; `GT4RS_CONFIG` names one) pick the backend.
/// let file = Config::parse("[default]\nbackend = \"embedded\"\n", Path::new("gt4rs.toml"))?;
/// let from_file = Options::default().with_config(file.clone());
/// assert_eq!(from_file.resolve("any", None).backend, Backend::Embedded);
/// // Set in code, the backend wins over the file.
/// let from_code = Options::new(Backend::Cpu).with_config(file);
/// assert_eq!(from_code.resolve("any", None).backend, Backend::Cpu);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// Set in code, for every program.
    pub settings: Settings,
    /// Set in code, per program name (wins over `settings`).
    pub per_program: BTreeMap<String, Settings>,
    /// An options file (`GT4RS_CONFIG` or an explicit path).
    pub config: Option<Arc<Config>>,
    /// Neighbour tables, bound by offset name at `compile()`.
    pub connectivities: Connectivities,
    /// The values each static argument may take (its variants), per program and parameter
    /// name, known at `compile()`. A call with a value not listed is an error unless
    /// `allow_unlisted_static_values` is set. The CUDA backend compiles a single listed value
    /// (and the domain bounds it fixes) in as a constant.
    pub static_args: BTreeMap<String, BTreeMap<String, Vec<ScalarValue>>>,
    /// Lets calls use static values that were not listed: the CPU and embedded backends take
    /// the value at run time; CUDA cannot compile a variant on demand and reports so.
    pub allow_unlisted_static_values: bool,
    /// Runs `Backend::Cuda` programs on this emulator instead of a CUDA device (the test
    /// suite's host emulation of the kernels): the whole CUDA path but the device itself.
    pub cuda_emulator: Option<CudaEmulatorRef>,
    /// Checks after every call (`None`: from `GT4RS_DEBUG` at `compile()`).
    pub debug: Option<DebugChecks>,
    /// Every program these options may configure (`None`: not given). Where given,
    /// `compile()` rejects a program name in `per_program`, `static_args` or the options file
    /// that is none of them (nor the program being compiled), naming the nearest one.
    pub known_programs: Option<Vec<String>>,
}

impl Options {
    /// Options that run every program on `backend`.
    pub fn new(backend: Backend) -> Self {
        let mut options = Options::default();
        options.settings.backend = Some(backend);
        options
    }
    /// Binds these neighbour tables: every program compiled with these options takes the tables of
    /// the offsets it uses from them (a table it needs and does not find is a `compile()` error).
    pub fn with_connectivities(mut self, connectivities: Connectivities) -> Self {
        self.connectivities = connectivities;
        self
    }
    /// Sets the CUDA options of every program explicitly.
    pub fn with_cuda(mut self, cuda: CudaOptions) -> Self {
        self.settings.cuda_block_size = Some(cuda.block_size);
        self.settings.cuda_k_block = Some(cuda.k_block);
        self.settings.cuda_max_registers = Some(cuda.max_registers);
        self.settings.cuda_fma_contraction = Some(cuda.fma_contraction);
        self.settings.cuda_hoist_column_work = Some(cuda.hoist_column_work);
        self
    }
    /// Runs the CUDA backend's kernels on `emulator` instead of a device.
    pub fn with_cuda_emulator(mut self, emulator: Arc<dyn CudaEmulator>) -> Self {
        self.cuda_emulator = Some(CudaEmulatorRef(emulator));
        self
    }
    /// Runs `checks` after every call of the programs compiled with these options (instead of
    /// those `GT4RS_DEBUG` names).
    pub fn with_debug(mut self, checks: DebugChecks) -> Self {
        self.debug = Some(checks);
        self
    }
    /// The checks calls run: set in code, else from `GT4RS_DEBUG` (an unknown check is an
    /// error naming it).
    pub fn debug_checks(&self) -> Result<DebugChecks, crate::Error> {
        match &self.debug {
            Some(checks) => Ok(checks.clone()),
            None => DebugChecks::from_env(),
        }
    }
    /// Sets the CPU options of every program explicitly.
    pub fn with_cpu(mut self, cpu: CpuOptions) -> Self {
        self.settings.cpu_parallel_threshold = Some(cpu.parallel_threshold);
        self.settings.cpu_chunk = Some(cpu.chunk);
        self.settings.cpu_k_block = Some(cpu.k_block);
        self.settings.cpu_stage_group_chunk = Some(cpu.stage_group_chunk);
        self.settings.cpu_vectors = Some(cpu.vectors);
        self
    }
    /// Fixes static argument `name` of `program` to `value` at `compile()` (one variant).
    pub fn with_static_arg(self, program: &str, name: &str, value: impl Scalar) -> Self {
        self.with_static_variants(program, name, [value])
    }
    /// Compiles static argument `name` of `program` for each of `values` (its variants); a
    /// call with another value is an error unless on-demand variants are allowed.
    pub fn with_static_variants<V: Scalar>(
        mut self,
        program: &str,
        name: &str,
        values: impl IntoIterator<Item = V>,
    ) -> Self {
        let values = values.into_iter().map(Scalar::into_value).collect();
        self.static_args
            .entry(program.to_string())
            .or_default()
            .insert(name.to_string(), values);
        self
    }
    /// Lets calls use static values that were not listed at `compile()` (see
    /// [`Options::allow_unlisted_static_values`]).
    pub fn with_unlisted_static_values(mut self, allow: bool) -> Self {
        self.allow_unlisted_static_values = allow;
        self
    }
    /// Overrides settings for one program (e.g. "this program on CPU, that one on CUDA").
    pub fn with_program(mut self, program: &str, settings: Settings) -> Self {
        self.per_program.insert(program.to_string(), settings);
        self
    }
    /// Reads options from `config` (a file loaded with [`Config::load`]); settings made in code win
    /// over it.
    pub fn with_config(mut self, config: Config) -> Self {
        self.config = Some(Arc::new(config));
        self
    }
    /// Reads the file named by `GT4RS_CONFIG`, if that variable is set.
    pub fn with_config_from_env(mut self) -> Result<Self, crate::Error> {
        if let Some(config) = Config::from_env()? {
            self.config = Some(Arc::new(config));
        }
        Ok(self)
    }
    /// Names every program these options may configure: from then on `compile()` rejects
    /// options keyed by any other program name (a misspelt name would otherwise be ignored).
    /// Each program module has its name as `NAME` (`calculate_nabla4::NAME`).
    pub fn with_programs(mut self, known: &[&str]) -> Self {
        self.known_programs = Some(known.iter().map(|name| name.to_string()).collect());
        self
    }

    /// Fails on a program name in these options (set in code per program, static argument
    /// variants, `[program.NAME]` sections of the options file) that is none of `known`,
    /// naming the nearest known one.
    pub fn check_programs(&self, known: &[&str]) -> Result<(), crate::Error> {
        let keyed_in_code = self
            .per_program
            .keys()
            .map(|name| ("Options::with_program", name))
            .chain(
                self.static_args
                    .keys()
                    .map(|name| ("Options::with_static_variants", name)),
            );
        for (setter, name) in keyed_in_code {
            if let Some(hint) = crate::config::unknown_program(name, known) {
                return Err(crate::Error::Config(format!(
                    "`{setter}` names program `{name}`, which is no program{hint}"
                )));
            }
        }
        match &self.config {
            Some(config) => config.check_programs(known),
            None => Ok(()),
        }
    }

    /// What `compile()` of `program` checks: where [`Options::known_programs`] is given, every
    /// program name in these options is one of them or `program` itself.
    pub fn check_program_names(&self, program: &str) -> Result<(), crate::Error> {
        let Some(known) = &self.known_programs else {
            return Ok(());
        };
        let mut names: Vec<&str> = known.iter().map(String::as_str).collect();
        if !names.contains(&program) {
            names.push(program);
        }
        self.check_programs(&names)
    }

    /// The options `program` runs with on a device of architecture `device_arch` (`None`:
    /// no device, the `cpu` sections), and where each came from; see [`crate::config`] for the
    /// precedence. [`Options::program_options`] answers for this machine, as `compile()` does.
    pub fn resolve(&self, program: &str, device_arch: Option<&str>) -> ProgramOptions {
        crate::config::resolve(
            program,
            &self.settings,
            self.per_program.get(program),
            self.config.as_deref(),
            device_arch,
        )
    }

    /// The options `program` runs with on this machine, resolved as its `compile()` resolves
    /// them, and where each setting came from. Its `Display` is what `gt4rs config show`
    /// prints; each program module has it as `options(&Options)`, so a model's binary can show
    /// any of its programs:
    ///
    /// ```
    /// use std::path::Path;
    ///
    /// use gt4rs::config::Config;
    /// use gt4rs::{Backend, Options, Settings};
    ///
    /// # fn main() -> Result<(), gt4rs::Error> {
    /// let file = Config::parse("[program.smooth]\ncpu.chunk = 64\n", Path::new("model.toml"))?;
    /// let settings = Settings { backend: Some(Backend::Embedded), ..Settings::default() };
    /// let options = Options::default().with_config(file).with_program("smooth", settings);
    /// let shown = options.program_options("smooth")?;
    /// assert_eq!((shown.backend, shown.cpu.chunk), (Backend::Embedded, 64));
    /// let text = shown.to_string();
    /// assert!(text.contains("set in code (this program)"), "{text}");
    /// assert!(text.contains("model.toml [program.smooth]"), "{text}");
    ///
    /// // Where the programs are named, a section for a misspelt one is an error, as at
    /// // `compile()`.
    /// let file = Config::parse("[program.smoth]\ncpu.chunk = 64\n", Path::new("model.toml"))?;
    /// let options = Options::default().with_config(file).with_programs(&["smooth"]);
    /// assert!(options.program_options("smooth").is_err());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// A CUDA program (or `Auto` where a device is usable) takes the `arch.sm_XY` sections of
    /// the device it would run on; the CPU and embedded backends take `cpu`'s.
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) for a program name in these options that
    /// [`Options::with_programs`] does not list (nor `program`).
    pub fn program_options(&self, program: &str) -> Result<ProgramOptions, crate::Error> {
        self.check_program_names(program)?;
        let without_device = self.resolve(program, None);
        let on_device = matches!(without_device.backend, Backend::Cuda | Backend::Auto)
            && self.cuda_emulator.is_none();
        // Only a program that may run on a device asks the driver for one.
        let arch = on_device.then(crate::backend::cuda::device_arch).flatten();
        Ok(match arch {
            Some(arch) => self.resolve(program, Some(&arch)),
            None => without_device,
        })
    }
}

/// What generated `compile()`/`call()` code uses to read and check static variants.
pub mod static_variants {
    use std::collections::BTreeMap;

    use super::Options;
    use crate::args::ScalarValue;
    use crate::dynamic::DynScalar;
    use crate::Error;

    /// Fails if `options` lists variants for a parameter of `program` that is not one of its
    /// static arguments (a misspelt name would otherwise be ignored silently).
    pub fn check_names(options: &Options, program: &str, statics: &[&str]) -> Result<(), Error> {
        for name in options
            .static_args
            .get(program)
            .into_iter()
            .flat_map(|m| m.keys())
        {
            if !statics.contains(&name.as_str()) {
                return Err(Error::Argument {
                    program: program.to_string(),
                    arg: name.clone(),
                    message: format!(
                        "no static argument of this name (static arguments: {})",
                        list(statics.iter())
                    ),
                });
            }
        }
        Ok(())
    }

    /// The variants listed for static argument `name` of `program`, typed; `None` when none
    /// were listed (any value runs).
    pub fn read<T: DynScalar>(
        options: &Options,
        program: &str,
        name: &str,
    ) -> Result<Option<Vec<T>>, Error> {
        let Some(values) = options.static_args.get(program).and_then(|m| m.get(name)) else {
            return Ok(None);
        };
        values
            .iter()
            .map(|v| {
                T::from_value(*v).ok_or_else(|| Error::Argument {
                    program: program.to_string(),
                    arg: name.to_string(),
                    message: format!("static value {v:?} is not a {}", T::DTYPE.rust_name()),
                })
            })
            .collect::<Result<Vec<T>, Error>>()
            .map(Some)
    }

    /// The static arguments with exactly one listed value: what the CUDA backend compiles in.
    pub fn single_values(options: &Options, program: &str) -> BTreeMap<String, ScalarValue> {
        options
            .static_args
            .get(program)
            .into_iter()
            .flatten()
            .filter_map(|(name, values)| match values.as_slice() {
                [one] => Some((name.clone(), *one)),
                _ => None,
            })
            .collect()
    }

    /// The error of a call whose static value was not compiled.
    pub fn unlisted<T: std::fmt::Debug>(
        program: &str,
        name: &str,
        value: T,
        compiled: &[T],
        on_demand_cuda: bool,
    ) -> Error {
        let why = if on_demand_cuda {
            "; the CUDA backend cannot compile a variant on demand"
        } else {
            " (list it with `Options::with_static_variants` or allow unlisted values)"
        };
        Error::Argument {
            program: program.to_string(),
            arg: name.to_string(),
            message: format!(
                "static value {value:?} was not compiled (compiled values: {}){why}",
                list(compiled.iter().map(|v| format!("{v:?}")))
            ),
        }
    }

    fn list<S: std::fmt::Display>(items: impl Iterator<Item = S>) -> String {
        items.map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
    }
}

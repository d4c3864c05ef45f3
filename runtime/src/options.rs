//! Options for `compile()`.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::backend::embedded::{IntoScalarValue, ScalarValue};
use crate::config::{Config, ProgramOptions, Settings};
use crate::connectivity::Connectivities;

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

/// Tuning of the fused CPU kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuOptions {
    /// Below this many points (horizontal × vertical) a stage runs on the calling thread, so
    /// small calls stay cheap.
    pub parallel_threshold: usize,
    /// Horizontal points per rayon task.
    pub chunk: usize,
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions {
            parallel_threshold: 32 * 1024,
            chunk: 256,
        }
    }
}

/// What `compile()` needs to know: explicit settings (for all programs, or per program), an
/// optional options file, and the neighbour tables. See [`crate::config`] for precedence.
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
    /// Values of static arguments known at `compile()`, per program and parameter name. The
    /// CUDA backend compiles them (and the domain bounds they fix) in as constants; a call
    /// with another value is an error.
    pub static_args: BTreeMap<String, BTreeMap<String, ScalarValue>>,
}

impl Options {
    /// Options that run every program on `backend`.
    pub fn new(backend: Backend) -> Self {
        let mut options = Options::default();
        options.settings.backend = Some(backend);
        options
    }
    pub fn with_connectivities(mut self, connectivities: Connectivities) -> Self {
        self.connectivities = connectivities;
        self
    }
    /// Sets the CPU options of every program explicitly.
    pub fn with_cpu(mut self, cpu: CpuOptions) -> Self {
        self.settings.cpu_parallel_threshold = Some(cpu.parallel_threshold);
        self.settings.cpu_chunk = Some(cpu.chunk);
        self
    }
    /// Fixes static argument `name` of `program` to `value` at `compile()`.
    pub fn with_static_arg(
        mut self,
        program: &str,
        name: &str,
        value: impl IntoScalarValue,
    ) -> Self {
        self.static_args
            .entry(program.to_string())
            .or_default()
            .insert(name.to_string(), value.into_value());
        self
    }
    /// Overrides settings for one program (e.g. "this program on CPU, that one on CUDA").
    pub fn with_program(mut self, program: &str, settings: Settings) -> Self {
        self.per_program.insert(program.to_string(), settings);
        self
    }
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
    /// The options `program` runs with.
    pub fn resolve(&self, program: &str, device_arch: Option<&str>) -> ProgramOptions {
        crate::config::resolve(
            program,
            &self.settings,
            self.per_program.get(program),
            self.config.as_deref(),
            device_arch,
        )
    }
}

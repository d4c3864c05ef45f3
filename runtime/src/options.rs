//! Options for `compile()`.

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

/// What `compile()` needs to know.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    pub backend: Backend,
    pub cpu: CpuOptions,
    /// Neighbour tables, bound by offset name at `compile()`.
    pub connectivities: Connectivities,
}

impl Options {
    pub fn new(backend: Backend) -> Self {
        Options {
            backend,
            ..Options::default()
        }
    }
    pub fn with_connectivities(mut self, connectivities: Connectivities) -> Self {
        self.connectivities = connectivities;
        self
    }
}

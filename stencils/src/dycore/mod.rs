//! The dynamical core as one component: ICON's nonhydrostatic solver (`solve_nonhydro`, predictor
//! and corrector) with velocity advection, on the library's programs, with the metric and
//! interpolation fields it needs on the generated grid over the diffusion job's terrain.

mod bound;
pub mod coefficients;
pub mod config;
pub mod fields;
pub mod geometry;
pub mod granule;
pub mod initial;
pub mod interpolation;
pub mod job;
pub mod metrics;
mod pressure_gradient;
pub mod reference_atmosphere;
pub mod state;

pub use config::{NonHydrostaticConfig, NonHydrostaticParams};
pub use geometry::{CellParams, EdgeParams};
pub use granule::{RunOptions, SolveNonhydro, Substep, VerticalParams};
pub use interpolation::{InterpolationConfig, InterpolationState};
pub use metrics::{MetricState, MetricsConfig, VerticalIndices};
pub use state::{DiagnosticState, PredictorCorrector, PrepAdvection, PrognosticState};

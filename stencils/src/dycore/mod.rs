//! The dynamical core as one component: ICON's nonhydrostatic solver (`solve_nonhydro`, predictor
//! and corrector) with velocity advection, on the library's programs, with the metric and
//! interpolation fields it needs on the generated grid over the diffusion job's terrain.

pub mod coefficients;
pub mod geometry;
pub mod interpolation;
pub mod metrics;

pub use geometry::{CellParams, EdgeParams};
pub use interpolation::{InterpolationConfig, InterpolationState};
pub use metrics::MetricState;

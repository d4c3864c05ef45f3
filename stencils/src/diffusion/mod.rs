//! The diffusion granule: ICON's horizontal diffusion of vn, w and θ_v as one component, with
//! its configuration, vertical grid, state, and a physically meaningful initial state.

mod bound;
pub mod config;
pub mod distributed;
pub mod granule;
pub mod halo;
pub mod initial;
pub mod job;
#[cfg(feature = "mpi")]
mod job_ranks;
pub mod metrics;
pub mod plot;
pub mod state;
pub mod steep_spans;
pub mod terrain;
pub mod vertical;

pub use config::{DiffusionConfig, DiffusionParams, DiffusionType, TurbulenceShearForcing};
pub use granule::{connectivities, Bounds, Diffusion, GranuleGrid, RunOptions};
pub use halo::{ExchangeStats, HaloExchange, SingleRank};
pub use state::{
    CellParams, DiagnosticState, DiagnosticViews, EdgeParams, InterpolationState, MetricState,
    PrognosticState, PrognosticViews, ZDiffusionFields,
};
pub use terrain::{Terrain, TerrainKind};
pub use vertical::VerticalGrid;

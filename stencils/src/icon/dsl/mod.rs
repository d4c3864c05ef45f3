//! ICON4Py's programs in the gt4rs DSL (see `README.md`: programs, constructs, precision).
//!
//! Precision: ICON's `wpfloat` is f64 and `vpfloat` f64 (`double`) or f32 (`mixed`). Every
//! program is written once against the two names, in `source/*.rs`, with ICON4Py's `astype`
//! casts as `x as vpfloat` / `x as wpfloat` (no-ops in double mode), and included in two modules
//! that declare the aliases with `gt4rs::scalar_types!`: `interpolation`, `diffusion`,
//! `velocity_advection`, `solver`, `implicit_solver`, `vertically_implicit_dycore_solver`,
//! `compute_cell_diagnostics_for_dycore`, `compute_edge_diagnostics_for_dycore_and_update_vn`,
//! `compute_horizontal_velocity_quantities`, `compute_advection_in_horizontal_momentum_equation`,
//! `compute_advection_in_vertical_momentum_equation`, `boundary_and_halo_updates`,
//! `diffusion_utils` and `dycore_utils` each have `double` and `mixed` submodules
//! (`diffusion_utils` and `dycore_utils` are f64 in both, as ICON4Py's `float`). Each parent
//! module re-exports `double`, so the usual paths name the double version.

pub mod boundary_and_halo_updates;
pub mod compute_advection_in_horizontal_momentum_equation;
pub mod compute_advection_in_vertical_momentum_equation;
pub mod compute_cell_diagnostics_for_dycore;
pub mod compute_edge_diagnostics_for_dycore_and_update_vn;
pub mod compute_horizontal_velocity_quantities;
pub mod diffusion;
pub mod diffusion_utils;
pub mod dycore_utils;
pub mod implicit_solver;
pub mod interpolation;
pub mod solver;
pub mod velocity_advection;
pub mod vertically_implicit_dycore_solver;

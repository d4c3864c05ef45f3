//! ICON4Py's programs in the gt4rs DSL (pending the checker: see `README.md`).
//!
//! Precision: ICON's `wpfloat` is f64 and `vpfloat` f64 (`double`) or f32 (`mixed`). Programs
//! converted so far are written once against the two names, in `source/*.rs`, with ICON4Py's
//! `astype` casts as `x as vpfloat` / `x as wpfloat` (no-ops in double mode), and included in two
//! modules that declare the aliases with `gt4rs::scalar_types!`: `interpolation::{double, mixed}`
//! and `diffusion::{double, mixed}` (every diffusion stencil: ∇⁴, the vn updates and Smagorinsky
//! coefficients, turbulence diagnostics, the w diffusion, cold pools, ∇²θ and the θ/exner
//! updates) and
//! `velocity_advection::{double, mixed}` (`compute_tangential_wind`,
//! `compute_horizontal_kinetic_energy`,
//! `interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges`,
//! `compute_diagnostics_from_normal_wind`), `solver::{double, mixed}`
//! (`solve_tridiagonal_matrix_for_w_forward_sweep`,
//! `solve_tridiagonal_matrix_for_w_back_substitution`) and `diffusion_utils::{double, mixed}`
//! (`setup_fields_for_initial_step`, `scale_k`, `init_diffusion_local_fields_for_regular_timestep`,
//! `init_nabla2_factor_in_upper_damping_zone`, `copy_field`: f64 in both, as ICON4Py's `float`).
//! The parent module re-exports `double`, so the usual paths name the double version. The other
//! programs are still written in f64 (double mode only).

pub mod diffusion;
pub mod diffusion_utils;
pub mod interpolation;
pub mod solver;
pub mod velocity_advection;

//! ICON's calls of every ICON program of this crate on a grid, with seeded random arguments:
//! what the tests run each program on (`stencils/tests/support`) and what the roofline
//! benchmark times (`benches/benches/roofline.rs`).
//!
//! [`icon_calls`] gives a program's domains, static values and the value ranges its inputs
//! need ([`Draw`]); [`random_call`] draws a [`Call`] (the program's parameters by name, and
//! every neighbour table of the grid) for one of them; [`CallArgs`] hands a call's arguments
//! to a compiled program's dynamic interface and collects the outputs it hands back.

use std::collections::BTreeMap;

use gt4rs::__private::args::ScalarValue;
use gt4rs::__private::dynamic::{ArgSource, DynArray, DynField};
use gt4rs::__private::ir::fieldview::Role;
use gt4rs::grid::{Grid, GridDim, Zone, TABLE_WIDTHS};
use gt4rs::{Connectivities, Error, ParamKind, ScalarType, Signature};
use ndarray::{ArrayD, IxDyn};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::icon::connectivities::{insert_by_name, target_dim};
use crate::icon::reference::Call;
use crate::reference_data::{NeighborTable, RefArray};

/// The four domain bounds of an ICON program.
pub const DOMAIN_BOUNDS: [&str; 4] = [
    "horizontal_start",
    "horizontal_end",
    "vertical_start",
    "vertical_end",
];

/// Why a call could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("no ICON call is known for program `{0}`")]
    UnknownProgram(String),
    #[error("{program}: no value for parameter `{param}` in the call's setup")]
    NoValue { program: String, param: String },
    #[error("{program}: parameter `{param}` of a kind the calls do not draw ({kind})")]
    UnexpectedParameter {
        program: String,
        param: String,
        kind: String,
    },
    #[error("{program}: `{param}` is drawn from level {level} of `{field}`, which is not drawn before it")]
    LevelOfMissing {
        program: String,
        param: String,
        field: String,
        level: usize,
    },
    #[error(transparent)]
    Grid(#[from] Error),
}

/// How the value(s) of one f64 or f32 parameter are drawn; parameters a [`Setup`] does not
/// name get uniform values in [-1, 1).
#[derive(Clone, Copy, Debug)]
pub enum Draw {
    /// Uniform in `[low, high)`.
    Uniform(f64, f64),
    /// This value everywhere.
    Fixed(f64),
    /// Half-level heights falling from the model top: level `i` of `n + 1` is
    /// `spacing · (n − i)` plus a uniform jitter in `[0, jitter)`.
    FallingHeights { spacing: f64, jitter: f64 },
    /// Level `level` of the 1-D field parameter `field` drawn before this one.
    LevelOf { field: &'static str, level: usize },
}

/// Index ranges, scalars and value ranges of one program call on one grid.
#[derive(Clone, Debug)]
pub struct Setup {
    pub horizontal: (usize, usize),
    pub vertical: (usize, usize),
    /// Full levels of the call; the fields in `half_levels` have one more.
    pub nlev: usize,
    /// Field parameters with `nlev + 1` levels.
    pub half_levels: &'static [&'static str],
    pub ints: Vec<(&'static str, i32)>,
    pub flags: Vec<(&'static str, bool)>,
    /// Parameters whose values need a range of their own ([`Draw`]).
    pub values: Vec<(&'static str, Draw)>,
}

impl Setup {
    fn new(horizontal: (usize, usize), vertical: (usize, usize), nlev: usize) -> Self {
        Setup {
            horizontal,
            vertical,
            nlev,
            half_levels: &[],
            ints: vec![],
            flags: vec![],
            values: vec![],
        }
    }

    fn with_values(self, values: &[(&'static str, Draw)]) -> Self {
        Setup {
            values: values.to_vec(),
            ..self
        }
    }
}

/// The Smagorinsky coefficient's inputs: limits below some coefficients and an offset above
/// others, so that both its bounds (`max(0, ·)` and `smag_limit`) are reached.
const SMAGORINSKY_VALUES: &[(&str, Draw)] = &[
    ("diff_multfac_smag", Draw::Uniform(0.5, 1.5)),
    ("smag_limit", Draw::Uniform(0.2, 1.2)),
    ("smag_offset", Draw::Fixed(0.5)),
];

/// The θ/exner updates divide by θ: potential temperatures and Exner pressures of the
/// atmosphere, positive cell areas, and ICON's `R_d / c_vd`.
const THETA_AND_EXNER_VALUES: &[(&str, Draw)] = &[
    ("theta_v", Draw::Uniform(250.0, 350.0)),
    ("theta_v_in", Draw::Uniform(250.0, 350.0)),
    ("exner", Draw::Uniform(0.5, 1.0)),
    ("area", Draw::Uniform(0.5, 1.5)),
    ("rd_o_cvd", Draw::Fixed(287.04 / 717.6)),
];

/// The forward sweep's inputs in the ranges of a real column (see `mixed_precision.rs`:
/// the tridiagonal matrix is strictly diagonally dominant, so f32 errors do not grow).
const FORWARD_SWEEP_VALUES: &[(&str, Draw)] = &[
    ("vwind_impl_wgt", Draw::Uniform(0.5, 1.0)),
    ("theta_v_ic", Draw::Uniform(0.5, 1.0)),
    ("ddqz_z_half", Draw::Uniform(0.5, 1.0)),
    ("z_alpha", Draw::Uniform(0.1, 1.0)),
    ("z_beta", Draw::Uniform(0.1, 1.0)),
    ("dtime", Draw::Fixed(0.1)),
    ("cpd", Draw::Fixed(1.0)),
];

/// The solver's coefficients divide by ρ·θ_v: positive ρ, θ_v, exner and layer thicknesses,
/// a dynamics substep's time step and ICON's gas constants.
const SOLVER_COEFFICIENTS_VALUES: &[(&str, Draw)] = &[
    ("exner_nnow", Draw::Uniform(0.5, 1.5)),
    ("rho_nnow", Draw::Uniform(0.5, 1.5)),
    ("theta_v_nnow", Draw::Uniform(0.5, 1.5)),
    ("inv_ddqz_z_full", Draw::Uniform(0.5, 1.5)),
    ("vwind_impl_wgt", Draw::Uniform(0.5, 1.0)),
    ("dtime", Draw::Fixed(0.1)),
    ("rd", Draw::Fixed(287.04)),
    ("cvd", Draw::Fixed(1004.64 - 287.04)),
];

/// The new ρ divides θ_v: an explicit part in [1, 2) and an implicit correction below 0.2 keep
/// it positive; exner and ρ of the current time level positive.
const THERMODYNAMIC_RESULTS_VALUES: &[(&str, Draw)] = &[
    ("z_rho_expl", Draw::Uniform(1.0, 2.0)),
    ("vwind_impl_wgt", Draw::Uniform(0.5, 1.0)),
    ("inv_ddqz_z_full", Draw::Uniform(0.5, 1.0)),
    ("rho_now", Draw::Uniform(0.5, 1.5)),
    ("theta_v_now", Draw::Uniform(0.5, 1.5)),
    ("exner_now", Draw::Uniform(0.5, 1.5)),
    ("dtime", Draw::Fixed(0.1)),
];

/// The predictor step's divisions (by ρ·θ_v, exner and the new ρ) need positive states, and
/// its tridiagonal system positive weights and layer thicknesses; a small buoyancy keeps the
/// explicit w of the size of the current one.
const PREDICTOR_VALUES: &[(&str, Draw)] = &[
    ("current_exner", Draw::Uniform(0.5, 1.0)),
    ("current_rho", Draw::Uniform(0.5, 1.5)),
    ("current_theta_v", Draw::Uniform(0.5, 1.5)),
    ("theta_v_at_cells_on_half_levels", Draw::Uniform(0.5, 1.5)),
    ("rho_at_cells_on_half_levels", Draw::Uniform(0.5, 1.5)),
    ("inv_ddqz_z_full", Draw::Uniform(0.5, 1.5)),
    ("ddqz_z_half", Draw::Uniform(0.5, 1.5)),
    ("exner_w_implicit_weight_parameter", Draw::Uniform(0.5, 1.0)),
    ("exner_w_explicit_weight_parameter", Draw::Uniform(0.0, 0.5)),
    (
        "nonhydro_buoy_at_cells_on_half_levels",
        Draw::Uniform(-1.0e-3, 1.0e-3),
    ),
    ("rayleigh_damping_factor", Draw::Uniform(0.5, 1.0)),
    ("dtime", Draw::Fixed(0.1)),
];

/// The cell diagnostics' buoyancy divides by the half levels' thickness; the explicit weight
/// of exner and w is ICON's `1 − vwind_impl_wgt`.
const CELL_DIAGNOSTICS_VALUES: &[(&str, Draw)] = &[
    ("ddqz_z_half", Draw::Uniform(0.5, 1.5)),
    ("exner_w_explicit_weight_parameter", Draw::Uniform(0.0, 0.5)),
];

/// The advection of vn divides by the full levels' thickness on edges; ICON's `cfl_w_limit`
/// and `scalfac_exdiff` for a 0.1 s substep (`VelocityAdvection._scale_factors_by_dtime`:
/// 0.65 / dtime and 0.05 / (dtime · (0.85 − 0.65))), thin layers, linear interpolation weights
/// near ½ and a contravariant w of up to 2 m/s, so that the vertical wind at some edges exceeds
/// the CFL limit and at others does not.
const HORIZONTAL_MOMENTUM_VALUES: &[(&str, Draw)] = &[
    ("dtime", Draw::Fixed(0.1)),
    ("cfl_w_limit", Draw::Fixed(6.5)),
    ("scalfac_exdiff", Draw::Fixed(2.5)),
    ("ddqz_z_full_e", Draw::Uniform(0.1, 0.5)),
    ("c_lin_e", Draw::Uniform(0.4, 0.6)),
    (
        "contravariant_corrected_w_at_cells_on_model_levels",
        Draw::Uniform(-2.0, 2.0),
    ),
];

/// The advection of w divides by the half levels' thickness; ICON's `cfl_w_limit` and
/// `scalfac_exdiff` for a 0.1 s substep, thin layers and a w of up to 2 m/s, so that the CFL
/// clipping happens at some cells (and clips to ±0.85 at some of those) and not at others;
/// positive cell areas.
const VERTICAL_MOMENTUM_VALUES: &[(&str, Draw)] = &[
    ("dtime", Draw::Fixed(0.1)),
    ("cfl_w_limit", Draw::Fixed(6.5)),
    ("scalfac_exdiff", Draw::Fixed(2.5)),
    ("ddqz_z_half", Draw::Uniform(0.1, 0.5)),
    ("w", Draw::Uniform(-2.0, 2.0)),
    ("area", Draw::Uniform(0.5, 1.5)),
];

/// The hydrostatic correction divides by the sum of θ_v at an edge's two cells: potential
/// temperatures of the atmosphere, positive layer thicknesses, ICON's `g / c_pd`.
const HYDROSTATIC_CORRECTION_VALUES: &[(&str, Draw)] = &[
    ("theta_v", Draw::Uniform(250.0, 350.0)),
    ("theta_v_ic", Draw::Uniform(250.0, 350.0)),
    ("inv_ddqz_z_full", Draw::Uniform(0.5, 1.5)),
    ("grav_o_cpd", Draw::Fixed(9.80665 / 1004.64)),
];

/// The corrector's vn update: a substep's time step, ICON's weights of the advective
/// tendencies, a fourth-order factor on both sides of the combined damping's `max(0, ·)`,
/// positive cell areas, ICON4Py's largest nudging coefficient (5 · 0.02; the damping divides by
/// it).
const DIVERGENCE_DAMPING_VALUES: &[(&str, Draw)] = &[
    ("dtime", Draw::Fixed(0.1)),
    ("advection_explicit_weight_parameter", Draw::Fixed(0.25)),
    ("advection_implicit_weight_parameter", Draw::Fixed(0.75)),
    (
        "interpolated_fourth_order_divdamp_factor",
        Draw::Uniform(0.0, 0.05),
    ),
    ("second_order_divdamp_factor", Draw::Fixed(0.1)),
    ("mean_cell_area", Draw::Uniform(0.5, 1.5)),
    ("max_nudging_coefficient", Draw::Fixed(0.1)),
    ("dbl_eps", Draw::Fixed(f64::EPSILON)),
];

/// Half-level heights of a column falling from the model top (`12 km` a level) to 0–3 km.
const HEIGHTS: Draw = Draw::FallingHeights {
    spacing: 12_000.0,
    jitter: 3_000.0,
};

/// ICON's calls of `program` on `grid` (`limited_area` says whether ICON runs it as a
/// limited-area model) with `nlev` full levels: the domains of ICON4Py's stencil tests (§2 of
/// the reference) and of the diffusion granule, once per value of each static argument, with
/// the value ranges the inputs need where [-1, 1) does not serve (see [`Draw`]). `nlev` is at
/// least 4 (the damping layer and the cold-pool levels lie inside it).
pub fn icon_calls(
    program: &str,
    grid: &Grid,
    limited_area: bool,
    nlev: usize,
) -> Result<Vec<Setup>, CallError> {
    use GridDim::{Cell, Edge, Vertex};
    let (nc, ne) = (grid.num_cells, grid.num_edges);
    let full_k = (0, nlev);
    let start = |dim, zone| grid.start(dim, zone);
    let from = |dim, zone| -> Result<(usize, usize), Error> {
        Ok((grid.start(dim, zone)?, grid.end(dim, Zone::Local)?))
    };
    let setup = |horizontal, vertical| Setup::new(horizontal, vertical, nlev);
    // The edges `SolveNonhydro`'s edge fluxes cover, and the cells its lateral-boundary
    // updates do.
    let edges_lb5_to_halo_2 = || -> Result<(usize, usize), Error> {
        Ok((
            grid.start(Edge, Zone::LateralBoundaryLevel5)?,
            grid.end(Edge, Zone::HaloLevel2)?,
        ))
    };
    // Every cell of a global grid, which has no lateral boundary (ICON does not call these
    // there, but the call still checks the program).
    let cells_lb_to_lb4 = || -> Result<(usize, usize), Error> {
        if !limited_area {
            return Ok((0, nc));
        }
        Ok((
            grid.start(Cell, Zone::LateralBoundaryLevel1)?,
            grid.end(Cell, Zone::LateralBoundaryLevel4)?,
        ))
    };
    // Where w is diffused: from the nudging zone on a limited-area grid, the interior
    // otherwise (the granule's `cell_start_w_diffusion`).
    let w_diffusion = if limited_area {
        from(Cell, Zone::Nudging)?
    } else {
        from(Cell, Zone::Interior)?
    };
    Ok(match program {
        "mo_intp_rbf_rbf_vec_interpol_vertex" => {
            vec![setup(from(Vertex, Zone::LateralBoundaryLevel2)?, full_k)]
        }
        // The diffusion setup programs write every level (no bounds) or a K range.
        "setup_fields_for_initial_step" => vec![setup((0, 0), full_k).with_values(&[
            ("k4", Draw::Uniform(0.01, 0.1)),
            ("hdiff_efdt_ratio", Draw::Uniform(10.0, 40.0)),
        ])],
        "scale_k" | "copy_field" => vec![setup((0, 0), full_k)],
        // The diffusion granule's calls: every full level, from the `nlev + 1` half-level
        // heights `vct_a`, with ICON's Smagorinsky heights within them.
        "init_diffusion_local_fields_for_regular_timestep" => vec![Setup {
            half_levels: &["vect_a"],
            ..setup((0, 0), full_k).with_values(&[
                ("k4", Draw::Uniform(0.01, 0.1)),
                ("dyn_substeps", Draw::Fixed(5.0)),
                ("hdiff_smag_fac", Draw::Uniform(0.015, 0.025)),
                ("hdiff_smag_fac2", Draw::Uniform(0.03, 0.04)),
                ("hdiff_smag_fac3", Draw::Uniform(0.0, 0.01)),
                ("hdiff_smag_fac4", Draw::Uniform(1.0, 1.01)),
                ("hdiff_smag_z", Draw::Uniform(20_000.0, 25_000.0)),
                ("hdiff_smag_z2", Draw::Uniform(40_000.0, 45_000.0)),
                ("hdiff_smag_z3", Draw::Uniform(60_000.0, 65_000.0)),
                ("hdiff_smag_z4", Draw::Uniform(80_000.0, 85_000.0)),
                ("vect_a", HEIGHTS),
            ])
        }],
        "init_nabla2_factor_in_upper_damping_zone" => vec![Setup {
            half_levels: &["physical_heights"],
            ints: vec![("nrdmax", 3)],
            ..setup((0, 0), full_k).with_values(&[
                ("physical_heights", HEIGHTS),
                (
                    "heights_nrd_shift",
                    Draw::LevelOf {
                        field: "physical_heights",
                        level: 4,
                    },
                ),
                (
                    "heights_1",
                    Draw::LevelOf {
                        field: "physical_heights",
                        level: 1,
                    },
                ),
            ])
        }],
        "calculate_nabla4" => vec![setup(from(Edge, Zone::LateralBoundaryLevel5)?, full_k)],
        "calculate_nabla2_and_smag_coefficients_for_vn" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel5)?, full_k)
                .with_values(SMAGORINSKY_VALUES)]
        }
        "apply_nabla2_and_nabla4_to_vn" | "apply_nabla2_and_nabla4_global_to_vn" => {
            vec![setup(from(Edge, Zone::NudgingLevel2)?, full_k)]
        }
        "apply_nabla2_to_vn_in_lateral_boundary" => {
            let lo = start(Edge, Zone::LateralBoundaryLevel5)?;
            let hi = start(Edge, Zone::NudgingLevel2)?;
            // A global grid has no lateral boundary; run the stencil on every edge there.
            let horizontal = if hi > lo { (lo, hi) } else { (0, ne) };
            vec![setup(horizontal, full_k)]
        }
        "apply_diffusion_to_vn" => {
            let horizontal = from(Edge, Zone::LateralBoundaryLevel5)?;
            let nudge = start(Edge, Zone::NudgingLevel2)?;
            [true, false]
                .into_iter()
                .map(|limited| Setup {
                    ints: vec![("start_2nd_nudge_line_idx_e", nudge as i32)],
                    flags: vec![("limited_area", limited)],
                    ..setup(horizontal, full_k)
                })
                .collect()
        }
        "temporary_fields_for_turbulence_diagnostics" => {
            vec![setup(from(Cell, Zone::Nudging)?, full_k)
                .with_values(&[("diff_multfac_smag", Draw::Uniform(0.5, 1.5))])]
        }
        "calculate_diagnostic_quantities_for_turbulence" => vec![Setup {
            half_levels: &["wgtfac_c", "div_ic", "hdef_ic"],
            ..setup(from(Cell, Zone::Nudging)?, (1, nlev))
                .with_values(&[("diff_multfac_smag", Draw::Uniform(0.5, 1.5))])
        }],
        "calculate_nabla2_for_w" => vec![Setup {
            half_levels: &["w", "z_nabla2_c"],
            ..setup(w_diffusion, (0, nlev + 1))
        }],
        "apply_nabla2_to_w" => vec![setup(from(Cell, Zone::Interior)?, full_k)],
        "apply_nabla2_to_w_in_upper_damping_layer" => {
            vec![setup(from(Cell, Zone::Interior)?, (1, 3))]
        }
        "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence" => {
            let interior = start(Cell, Zone::Interior)? as i32;
            let halo = grid.end(Cell, Zone::Local)? as i32;
            [1, 2]
                .into_iter()
                .map(|type_shear| Setup {
                    ints: vec![
                        ("type_shear", type_shear),
                        ("nrdmax", 3),
                        ("interior_idx", interior),
                        ("halo_idx", halo),
                    ],
                    half_levels: &["w_old", "w", "dwdx", "dwdy"],
                    ..setup(w_diffusion, full_k)
                })
                .collect()
        }
        // Coefficients of the enhancements' size, so that both sides of its `max` win
        // somewhere; ICON's smallest vpfloat as the floor.
        "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools" => {
            vec![
                setup(from(Edge, Zone::Nudging)?, (nlev - 2, nlev)).with_values(&[
                    ("kh_smag_e", Draw::Uniform(0.0, 1.0e-3)),
                    ("thresh_tdiff", Draw::Fixed(0.5)),
                    ("smallest_vpfloat", Draw::Fixed(-1.0e30)),
                ]),
            ]
        }
        "calculate_nabla2_for_z" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel2)?, full_k)]
        }
        "calculate_nabla2_of_theta"
        | "calculate_nabla2_for_theta"
        | "truly_horizontal_diffusion_nabla_of_theta_over_steep_points" => {
            vec![setup(from(Cell, Zone::Nudging)?, full_k)]
        }
        "update_theta_and_exner" => {
            vec![setup(from(Cell, Zone::Nudging)?, full_k).with_values(THETA_AND_EXNER_VALUES)]
        }
        "apply_diffusion_to_theta_and_exner" => {
            let cells = from(Cell, Zone::Nudging)?;
            [true, false]
                .into_iter()
                .map(|apply| Setup {
                    flags: vec![("apply_zdiffusion_t", apply)],
                    ..setup(cells, full_k).with_values(THETA_AND_EXNER_VALUES)
                })
                .collect()
        }
        "compute_tangential_wind" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel5)?, full_k)]
        }
        "interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel5)?, (1, nlev))]
        }
        "compute_horizontal_kinetic_energy" => vec![Setup {
            half_levels: &["vn_ie", "z_vt_ie"],
            ..setup(from(Edge, Zone::LateralBoundaryLevel5)?, full_k)
        }],
        "compute_diagnostics_from_normal_wind" => {
            let edges = from(Edge, Zone::LateralBoundaryLevel5)?;
            [false, true]
                .into_iter()
                .map(|skip| Setup {
                    half_levels: &["vn_on_half_levels", "w", "wgtfac_e", "wgtfacq_e"],
                    ints: vec![("nflatlev", 2)],
                    flags: vec![("skip_compute_predictor_vertical_advection", skip)],
                    ..setup(edges, (0, nlev + 1))
                })
                .collect()
        }
        "solve_tridiagonal_matrix_for_w_forward_sweep" => vec![Setup {
            half_levels: &["z_alpha", "z_w_expl"],
            ..setup((0, nc), (1, nlev)).with_values(FORWARD_SWEEP_VALUES)
        }],
        "solve_tridiagonal_matrix_for_w_back_substitution" => {
            vec![setup((0, nc), (1, nlev))]
        }
        // The vertically implicit solver's pieces as `solve_nonhydro` calls them: the
        // prognostic cells (from the nudging zone), the contravariant correction from lateral
        // boundary level 3 on the half levels below the top and, for its lower boundary, on
        // the surface half level.
        "compute_contravariant_correction_of_w" => {
            vec![setup(from(Cell, Zone::LateralBoundaryLevel3)?, (1, nlev))]
        }
        "compute_contravariant_correction_of_w_for_lower_boundary" => vec![Setup {
            half_levels: &["w_concorr_c"],
            ..setup(from(Cell, Zone::LateralBoundaryLevel3)?, (nlev, nlev + 1))
        }],
        "compute_divergence_of_fluxes_of_rho_and_theta"
        | "add_analysis_increments_from_data_assimilation" => {
            vec![setup(from(Cell, Zone::Nudging)?, full_k)]
        }
        "compute_dwdz_for_divergence_damping" => vec![Setup {
            half_levels: &["w", "w_concorr_c"],
            ..setup(from(Cell, Zone::Nudging)?, full_k)
        }],
        "compute_solver_coefficients_matrix" => vec![Setup {
            half_levels: &["theta_v_ic", "rho_ic"],
            ..setup(from(Cell, Zone::Nudging)?, full_k).with_values(SOLVER_COEFFICIENTS_VALUES)
        }],
        "compute_explicit_part_for_rho_and_exner" => vec![Setup {
            half_levels: &["z_contr_w_fl_l", "theta_v_ic"],
            ..setup(from(Cell, Zone::Nudging)?, full_k).with_values(&[("dtime", Draw::Fixed(0.1))])
        }],
        "apply_rayleigh_damping_mechanism" => vec![Setup {
            half_levels: &["w"],
            ..setup(from(Cell, Zone::Nudging)?, (1, 3))
                .with_values(&[("z_raylfac", Draw::Uniform(0.5, 1.0))])
        }],
        "compute_results_for_thermodynamic_variables" => vec![Setup {
            half_levels: &["rho_ic", "w", "z_alpha"],
            ..setup(from(Cell, Zone::Nudging)?, full_k).with_values(THERMODYNAMIC_RESULTS_VALUES)
        }],
        "update_mass_volume_flux" => vec![Setup {
            half_levels: &["z_contr_w_fl_l", "rho_ic", "w", "mass_flx_ic", "vol_flx_ic"],
            ..setup(from(Cell, Zone::Nudging)?, (1, nlev)).with_values(&[
                ("rho_ic", Draw::Uniform(0.5, 1.5)),
                ("vwind_impl_wgt", Draw::Uniform(0.5, 1.0)),
                ("r_nsubsteps", Draw::Fixed(0.2)),
            ])
        }],
        "update_dynamical_exner_time_increment" => {
            vec![setup(from(Cell, Zone::Nudging)?, full_k).with_values(&[
                ("ndyn_substeps_var", Draw::Fixed(5.0)),
                ("dtime", Draw::Fixed(0.1)),
            ])]
        }
        // The fused predictor step as `SolveNonhydro` calls it: the contravariant correction
        // from lateral boundary level 3 below the flat level nflatlev = 1, the solver on the
        // prognostic cells, Rayleigh damping down to level 1, the moist levels from level 1;
        // once with Klemp damping, 3-D divergence damping, IAU and the first substep, once with
        // every static value the other way.
        "vertically_implicit_solver_at_predictor_step" => {
            let cells = (
                start(Cell, Zone::Nudging)? as i32,
                grid.end(Cell, Zone::Local)? as i32,
            );
            let lateral = (
                start(Cell, Zone::LateralBoundaryLevel3)? as i32,
                grid.end(Cell, Zone::Halo)? as i32,
            );
            [(true, 2, 3), (false, 1, 2)]
                .into_iter()
                .map(|(on, rayleigh_type, divdamp_type)| Setup {
                    half_levels: &[
                        "contravariant_correction_at_cells_on_half_levels",
                        "next_w",
                        "current_w",
                        "predictor_vertical_wind_advective_tendency",
                        "nonhydro_buoy_at_cells_on_half_levels",
                        "rho_at_cells_on_half_levels",
                        "theta_v_at_cells_on_half_levels",
                        "ddqz_z_half",
                        "wgtfac_c",
                        "wgtfacq_c",
                    ],
                    ints: vec![
                        ("rayleigh_type", rayleigh_type),
                        ("divdamp_type", divdamp_type),
                        ("end_index_of_damping_layer", 1),
                        ("kstart_moist", 1),
                        ("flat_level_index_plus1", 2),
                        ("start_cell_index_nudging", cells.0),
                        ("end_cell_index_local", cells.1),
                        ("start_cell_index_lateral_lvl3", lateral.0),
                        ("end_cell_index_halo_lvl1", lateral.1),
                        ("vertical_start_index_model_top", 0),
                        ("vertical_end_index_model_surface", nlev as i32 + 1),
                    ],
                    flags: vec![("is_iau_active", on), ("at_first_substep", on)],
                    ..setup((0, 0), full_k).with_values(PREDICTOR_VALUES)
                })
                .collect()
        }
        // The fused corrector step: the solver on the prognostic cells, Klemp damping down to
        // level 1, the moist levels from level 1; once with the fluxes for tracer advection,
        // IAU, the first and the last substep, once with every static value the other way.
        "vertically_implicit_solver_at_corrector_step" => {
            let cells = (
                start(Cell, Zone::Nudging)? as i32,
                grid.end(Cell, Zone::Local)? as i32,
            );
            [(true, 2), (false, 1)]
                .into_iter()
                .map(|(on, rayleigh_type)| Setup {
                    half_levels: &[
                        "next_w",
                        "dynamical_vertical_mass_flux_at_cells_on_half_levels",
                        "dynamical_vertical_volumetric_flux_at_cells_on_half_levels",
                        "current_w",
                        "predictor_vertical_wind_advective_tendency",
                        "corrector_vertical_wind_advective_tendency",
                        "nonhydro_buoy_at_cells_on_half_levels",
                        "rho_at_cells_on_half_levels",
                        "contravariant_correction_at_cells_on_half_levels",
                        "theta_v_at_cells_on_half_levels",
                        "ddqz_z_half",
                    ],
                    ints: vec![
                        ("rayleigh_type", rayleigh_type),
                        ("end_index_of_damping_layer", 1),
                        ("kstart_moist", 1),
                        ("start_cell_index_nudging", cells.0),
                        ("end_cell_index_local", cells.1),
                        ("vertical_start_index_model_top", 0),
                        ("vertical_end_index_model_surface", nlev as i32 + 1),
                    ],
                    flags: vec![
                        ("lprep_adv", on),
                        ("is_iau_active", on),
                        ("at_first_substep", on),
                        ("at_last_substep", on),
                    ],
                    values: [
                        PREDICTOR_VALUES,
                        &[
                            ("advection_explicit_weight_parameter", Draw::Fixed(0.25)),
                            ("advection_implicit_weight_parameter", Draw::Fixed(0.75)),
                            ("r_nsubsteps", Draw::Fixed(0.2)),
                            ("ndyn_substeps_var", Draw::Fixed(5.0)),
                        ],
                    ]
                    .concat(),
                    ..setup((0, 0), full_k)
                })
                .collect()
        }
        // The predictor step's cell diagnostics as `SolveNonhydro` calls them: cells from
        // lateral boundary level 3 to the ends ICON4Py gives each output (local, first or
        // second halo line), the flat levels from nflatlev = 0 (so that the derivative's
        // `max(1, nflatlev)` decides) and nflat_gradp = 2; once with the Taylor-hydrostatic
        // pressure gradient (igradp_method 3), which computes exner's vertical derivatives,
        // once with the conventional one (1), which leaves them as they are.
        "compute_perturbed_quantities_and_interpolation" => {
            let lateral = start(Cell, Zone::LateralBoundaryLevel3)? as i32;
            let local = grid.end(Cell, Zone::Local)? as i32;
            let halo = grid.end(Cell, Zone::Halo)? as i32;
            let halo_level_2 = grid.end(Cell, Zone::HaloLevel2)? as i32;
            [3, 1]
                .into_iter()
                .map(|igradp_method| Setup {
                    half_levels: &[
                        "rho_at_cells_on_half_levels",
                        "theta_v_at_cells_on_half_levels",
                        "reference_theta_at_cells_on_half_levels",
                        "wgtfacq_c",
                        "wgtfac_c",
                        "ddz_of_reference_exner_at_cells_on_half_levels",
                        "ddqz_z_half",
                        "nonhydro_buoy_at_cells_on_half_levels",
                    ],
                    ints: vec![
                        ("igradp_method", igradp_method),
                        ("nflatlev", 0),
                        ("nflat_gradp", 2),
                        ("start_cell_lateral_boundary_level_3", lateral),
                        ("end_cell_local", local),
                        ("end_cell_halo", halo),
                        ("end_cell_halo_level_2", halo_level_2),
                        ("model_top", 0),
                        ("surface_level", nlev as i32 + 1),
                    ],
                    ..setup((0, 0), full_k).with_values(CELL_DIAGNOSTICS_VALUES)
                })
                .collect()
        }
        // The corrector step's cell diagnostics: cells from lateral boundary level 3 to the
        // local ones, the half levels below the top above the surface, ICON's default
        // off-centring of ρ and θ_v (`rhotheta_offctr = −0.1`).
        "compute_interpolation_and_nonhydro_buoy" => vec![Setup {
            half_levels: &[
                "rho_at_cells_on_half_levels",
                "theta_v_at_cells_on_half_levels",
                "nonhydro_buoy_at_cells_on_half_levels",
                "w",
                "contravariant_correction_at_cells_on_half_levels",
                "ddz_of_reference_exner_at_cells_on_half_levels",
                "ddqz_z_half",
                "wgtfac_c",
            ],
            values: [
                CELL_DIAGNOSTICS_VALUES,
                &[
                    ("dtime", Draw::Fixed(0.1)),
                    ("rhotheta_explicit_weight_parameter", Draw::Fixed(0.6)),
                    ("rhotheta_implicit_weight_parameter", Draw::Fixed(0.4)),
                ],
            ]
            .concat(),
            ..setup(from(Cell, Zone::LateralBoundaryLevel3)?, (1, nlev))
        }],
        // The predictor step's edge quantities from the new normal wind as `SolveNonhydro`
        // calls them: edges from lateral boundary level 5 to the second halo line, the full
        // levels and the surface half level, the contravariant correction below the flat
        // level nflatlev = 2.
        "compute_horizontal_velocity_quantities_and_fluxes" => vec![Setup {
            half_levels: &[
                "tangential_wind_on_half_levels",
                "vn_on_half_levels",
                "wgtfacq_e",
            ],
            ints: vec![("nflatlev", 2)],
            ..setup(edges_lb5_to_halo_2()?, (0, nlev + 1))
        }],
        // The corrector step's averaged wind and fluxes on the same edges: the sums for
        // tracer advection started (the first substep), grown (a later one), or left alone.
        "compute_averaged_vn_and_fluxes" => {
            let edges = edges_lb5_to_halo_2()?;
            [(true, true), (true, false), (false, false)]
                .into_iter()
                .map(|(prepare_advection, at_first_substep)| Setup {
                    flags: vec![
                        ("prepare_advection", prepare_advection),
                        ("at_first_substep", at_first_substep),
                    ],
                    ..setup(edges, full_k).with_values(&[("r_nsubsteps", Draw::Fixed(0.2))])
                })
                .collect()
        }
        // θ_v and exner of the halo's cells after a step: every cell (ICON calls it on the
        // halo, and a grid of one rank has none); the logarithm and the divisions need
        // positive states.
        "update_theta_and_exner_in_halo" => vec![setup((0, nc), full_k).with_values(&[
            ("rho_now", Draw::Uniform(0.5, 1.5)),
            ("rho_new", Draw::Uniform(0.5, 1.5)),
            ("theta_v_now", Draw::Uniform(0.5, 1.5)),
            ("exner_now", Draw::Uniform(0.5, 1.5)),
            ("exner_new", Draw::Uniform(0.5, 1.5)),
        ])],
        // The lateral boundary's cells (to its fourth line; see `cells_lb_to_lb4`): exner from ρ·θ_v with ICON's
        // constants, the tracer mass flux on the half levels below the top, the zeroed flux
        // and the boundary tendencies on every half level.
        "compute_exner_from_rhotheta" => vec![setup(cells_lb_to_lb4()?, full_k).with_values(&[
            ("rho", Draw::Uniform(0.5, 1.5)),
            ("exner", Draw::Uniform(0.5, 1.5)),
            ("rd_o_cvd", Draw::Fixed(287.04 / (1004.64 - 287.04))),
            ("rd_o_p0ref", Draw::Fixed(287.04 / 100_000.0)),
        ])],
        "update_mass_flux_weighted" => vec![Setup {
            half_levels: &["rho_ic", "w_now", "w_new", "w_concorr_c", "mass_flx_ic"],
            ..setup(cells_lb_to_lb4()?, (1, nlev)).with_values(&[
                ("vwind_impl_wgt", Draw::Uniform(0.5, 1.0)),
                ("r_nsubsteps", Draw::Fixed(0.2)),
            ])
        }],
        "init_cell_kdim_field_with_zero_wp" => vec![Setup {
            half_levels: &["field_with_zero_wp"],
            ..setup(cells_lb_to_lb4()?, (0, nlev + 1))
        }],
        "stencils_61_62" => vec![Setup {
            half_levels: &["w_now", "grf_tend_w", "w_new"],
            ..setup(cells_lb_to_lb4()?, (0, nlev + 1)).with_values(&[("dtime", Draw::Fixed(0.1))])
        }],
        // The dycore's K-field helpers write every level: the divergence damping's
        // coefficients with the combined damping (divdamp_order 24) and the fourth-order one
        // alone, the Rayleigh damping factor of a substep's time step.
        "calculate_divdamp_fields" => [24, 4]
            .into_iter()
            .map(|divdamp_order| Setup {
                ints: vec![("divdamp_order", divdamp_order)],
                ..setup((0, 0), full_k).with_values(&[
                    ("mean_cell_area", Draw::Uniform(1.0e6, 1.0e9)),
                    ("second_order_divdamp_factor", Draw::Uniform(0.0, 1.0)),
                    ("max_nudging_coefficient", Draw::Uniform(0.1, 0.5)),
                    ("dbl_eps", Draw::Fixed(f64::EPSILON)),
                ])
            })
            .collect(),
        "compute_rayleigh_damping_factor" => vec![setup((0, 0), full_k).with_values(&[
            ("rayleigh_w", Draw::Uniform(0.0, 1.0)),
            ("dtime", Draw::Fixed(0.1)),
        ])],
        // The advection of vn as `VelocityAdvection` calls it in both steps: edges from the
        // second nudging line to the local ones, every full level of at least 10 (so that the
        // extra diffusion's levels `[max(2, end_index_of_damping_layer − 2), nlev − 4)` hold
        // some), the damping layer down to level 5; once with the extra diffusion near the CFL
        // limit (ICON's choice), once without.
        "compute_advection_in_horizontal_momentum" => {
            let levels = nlev.max(10);
            let edges = from(Edge, Zone::NudgingLevel2)?;
            [true, false]
                .into_iter()
                .map(|extra_diffusion| Setup {
                    half_levels: &["vn_on_half_levels"],
                    ints: vec![("end_index_of_damping_layer", 5)],
                    flags: vec![("apply_extra_diffusion_on_vn", extra_diffusion)],
                    ..Setup::new(edges, (0, levels), levels).with_values(HORIZONTAL_MOMENTUM_VALUES)
                })
                .collect()
        }
        // The predictor step's advection of w as `VelocityAdvection` calls it: cells from
        // lateral boundary level 4 to the first halo line, every full level of at least 10 (so
        // that the CFL clipping's levels `[max(2, end_index_of_damping_layer − 2), nlev − 3)`
        // hold some), the damping layer down to level 5, the contravariant correction below
        // the flat level nflatlev = 3; once computing the advective tendency, once skipping it.
        "compute_advection_in_predictor_vertical_momentum" => {
            let levels = nlev.max(10);
            let cells = (
                start(Cell, Zone::LateralBoundaryLevel4)?,
                grid.end(Cell, Zone::Halo)?,
            );
            [false, true]
                .into_iter()
                .map(|skip| Setup {
                    half_levels: &[
                        "w",
                        "contravariant_correction_at_cells_on_half_levels",
                        "vertical_wind_advective_tendency",
                        "ddqz_z_half",
                        "wgtfac_c",
                    ],
                    ints: vec![("nflatlev", 3), ("end_index_of_damping_layer", 5)],
                    flags: vec![("skip_compute_predictor_vertical_advection", skip)],
                    ..Setup::new(cells, (0, levels), levels).with_values(VERTICAL_MOMENTUM_VALUES)
                })
                .collect()
        }
        // The corrector step's advection of w, on the predictor's cells and levels.
        "compute_advection_in_corrector_vertical_momentum" => {
            let levels = nlev.max(10);
            let cells = (
                start(Cell, Zone::LateralBoundaryLevel4)?,
                grid.end(Cell, Zone::Halo)?,
            );
            vec![Setup {
                half_levels: &[
                    "w",
                    "contravariant_correction_at_cells_on_half_levels",
                    "vertical_wind_advective_tendency",
                    "ddqz_z_half",
                    "vn_on_half_levels",
                    "tangential_wind_on_half_levels",
                ],
                ints: vec![("end_index_of_damping_layer", 5)],
                ..Setup::new(cells, (0, levels), levels).with_values(VERTICAL_MOMENTUM_VALUES)
            }]
        }
        // The predictor's hydrostatic correction as `SolveNonhydro` calls it: the edges from
        // nudging level 2 to the local ones, on the lowest level.
        "compute_hydrostatic_correction_term" => vec![Setup {
            half_levels: &["theta_v_ic"],
            ..setup(from(Edge, Zone::NudgingLevel2)?, (nlev - 1, nlev))
                .with_values(HYDROSTATIC_CORRECTION_VALUES)
        }],
        // The predictor's edge diagnostics as `SolveNonhydro` calls them: every edge to the
        // second halo line, ICON4Py's zones for each output and branch, every level, the flat
        // levels above nflatlev = 1 and the pressure gradient over multiple levels from
        // nflat_gradp + 1 = 3; once with IAU on a limited-area grid, once with both static
        // values the other way.
        "compute_rho_theta_pgrad_and_update_vn" => {
            let zones = [
                (
                    "start_edge_lateral_boundary",
                    start(Edge, Zone::LateralBoundaryLevel1)?,
                ),
                (
                    "start_edge_lateral_boundary_level_7",
                    start(Edge, Zone::LateralBoundaryLevel7)?,
                ),
                (
                    "start_edge_nudging_level_2",
                    start(Edge, Zone::NudgingLevel2)?,
                ),
                ("end_edge_nudging", grid.end(Edge, Zone::Nudging)?),
                ("end_edge_local", grid.end(Edge, Zone::Local)?),
                ("end_edge_halo", grid.end(Edge, Zone::Halo)?),
            ];
            let edges = (0, grid.end(Edge, Zone::HaloLevel2)?);
            [true, false]
                .into_iter()
                .map(|on| Setup {
                    ints: [("nflatlev", 1), ("nflat_gradp", 2)]
                        .into_iter()
                        .chain(zones.iter().map(|&(name, index)| (name, index as i32)))
                        .collect(),
                    flags: vec![("is_iau_active", on), ("limited_area", on)],
                    ..setup(edges, full_k).with_values(&[("dtime", Draw::Fixed(0.1))])
                })
                .collect()
        }
        // The corrector's vn update as `SolveNonhydro` calls it: the edges from nudging level 2
        // to the local ones, every level; ICON's weights of the advective tendencies
        // (`veladv_offctr = 0.25`), a fourth-order factor on both sides of the combined
        // damping's `max(0, ·)`. Combined damping (divdamp_order 24) with IAU and the nest
        // boundary's enhancement; fourth order alone; no damping and no IAU.
        "apply_divergence_damping_and_update_vn" => {
            let edges = from(Edge, Zone::NudgingLevel2)?;
            [
                (true, true, true, true, 24),
                (false, false, false, true, 4),
                (false, false, false, false, 4),
            ]
            .into_iter()
            .map(|(iau, limited, second, fourth, order)| Setup {
                ints: vec![("divdamp_order", order)],
                flags: vec![
                    ("is_iau_active", iau),
                    ("limited_area", limited),
                    ("apply_2nd_order_divergence_damping", second),
                    ("apply_4th_order_divergence_damping", fourth),
                ],
                ..setup(edges, full_k).with_values(DIVERGENCE_DAMPING_VALUES)
            })
            .collect()
        }
        other => return Err(CallError::UnknownProgram(other.to_string())),
    })
}

/// The neighbour tables of `grid`, as the references read them.
pub fn neighbor_tables(grid: &Grid) -> Result<BTreeMap<String, NeighborTable>, CallError> {
    TABLE_WIDTHS
        .iter()
        .map(|(offset, _)| {
            let table = grid.table(offset)?.to_owned();
            let t = NeighborTable::new(*offset, table).map_err(|e| Error::Connectivity {
                offset: offset.to_string(),
                message: e.to_string(),
            })?;
            Ok((offset.to_string(), t))
        })
        .collect()
}

/// Every ICON connectivity of `grid`, as the compiled programs take them.
pub fn connectivities(grid: &Grid) -> Result<Connectivities, Error> {
    let mut conns = Connectivities::new();
    for (offset, _) in TABLE_WIDTHS {
        let unknown = || Error::Connectivity {
            offset: offset.to_string(),
            message: "not an ICON offset".to_string(),
        };
        let to = target_dim(offset).ok_or_else(unknown)?;
        let target = grid.size(GridDim::from_name(to)?);
        insert_by_name(&mut conns, offset, grid.table(offset)?.to_owned(), target)?;
    }
    Ok(conns)
}

/// The extent of dimension `dim` on `grid`, with `nlev` levels for K.
pub fn extent(grid: &Grid, dim: &str, nlev: usize) -> Result<usize, CallError> {
    Ok(match dim {
        "K" => nlev,
        "Cell" => grid.num_cells,
        "Edge" => grid.num_edges,
        "Vertex" => grid.num_vertices,
        sparse => TABLE_WIDTHS
            .iter()
            .find(|(o, _)| *o == sparse)
            .map(|(_, w)| *w)
            .ok_or_else(|| {
                CallError::Grid(Error::Connectivity {
                    offset: sparse.to_string(),
                    message: "not a dimension of an ICON grid".to_string(),
                })
            })?,
    })
}

/// The int32 fields of offsets along K (GT4Py's `as_offset`): diffusion's `zd_vertoffset`
/// (Cell, C2E2C, K) and the pressure gradient's `ikoffset` (Edge, E2C, K).
const VERTICAL_OFFSETS: &[&str] = &["zd_vertoffset", "ikoffset"];

/// Offsets along K (`zd_vertoffset`, `ikoffset`): ICON's offsets point down the column (0, 1
/// or 2 levels) where both levels read, `k + off` and `k + off + 1`, stay inside it; on the
/// lowest level, where no such offset exists, one that points up (as ICON4Py's stencil test
/// draws them).
fn vertical_offsets(shape: &[usize], rng: &mut ChaCha8Rng) -> ArrayD<i32> {
    let nlev = shape[2] as i32;
    ArrayD::from_shape_fn(IxDyn(shape), |ix| {
        let k = ix[2] as i32;
        let deepest = 2.min(nlev - 2 - k);
        if deepest >= 0 {
            rng.random_range(0..=deepest)
        } else {
            rng.random_range(-k..=-1)
        }
    })
}

/// Rounded to f32 where the parameter is f32, so that an f64 reference sees exactly the value
/// the program gets.
fn as_stored(value: f64, dtype: ScalarType) -> f64 {
    match dtype {
        ScalarType::F32 => f64::from(value as f32),
        _ => value,
    }
}

fn draw_array(
    rng: &mut ChaCha8Rng,
    call: &Call,
    (program, param): (&str, &str),
    shape: &[usize],
    draw: Draw,
    dtype: ScalarType,
) -> Result<ArrayD<f64>, CallError> {
    let array = match draw {
        Draw::Uniform(low, high) => {
            ArrayD::from_shape_fn(IxDyn(shape), |_| rng.random_range(low..high))
        }
        Draw::Fixed(value) => ArrayD::from_elem(IxDyn(shape), value),
        Draw::FallingHeights { spacing, jitter } => {
            let n = shape.first().map_or(0, |&s| s.saturating_sub(1));
            ArrayD::from_shape_fn(IxDyn(shape), |ix| {
                spacing * (n - ix[0]) as f64 + rng.random_range(0.0..jitter)
            })
        }
        Draw::LevelOf { field, level } => {
            let value = call
                .params
                .float64(field, 1)
                .ok()
                .and_then(|source| source.get(IxDyn(&[level])).copied())
                .ok_or_else(|| CallError::LevelOfMissing {
                    program: program.to_string(),
                    param: param.to_string(),
                    field: field.to_string(),
                    level,
                })?;
            ArrayD::from_elem(IxDyn(shape), value)
        }
    };
    Ok(array.mapv(|x| as_stored(x, dtype)))
}

/// A call of a program with `signature` on `grid`: seeded random inputs (uniform in [-1, 1)
/// unless the setup's [`Draw`] says otherwise, rounded to f32 for f32 parameters), NaN in pure
/// outputs, the setup's domain and scalars, and every neighbour table of the grid; input masks
/// true at three points in four. `zd_diffcoef` is 0 at some points, so that both sides of the steep-point selection run.
pub fn random_call(
    signature: &Signature,
    grid: &Grid,
    setup: &Setup,
    seed: u64,
) -> Result<Call, CallError> {
    let program = signature.program.as_str();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut call = Call::new();
    call.tables = neighbor_tables(grid)?;
    let domain = [
        ("horizontal_start", setup.horizontal.0 as i32),
        ("horizontal_end", setup.horizontal.1 as i32),
        ("vertical_start", setup.vertical.0 as i32),
        ("vertical_end", setup.vertical.1 as i32),
    ];
    let draw_of = |name: &str| {
        setup
            .values
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(Draw::Uniform(-1.0, 1.0), |(_, d)| *d)
    };
    let no_value = |name: &str| CallError::NoValue {
        program: program.to_string(),
        param: name.to_string(),
    };
    for p in &signature.params {
        let name = p.name.as_str();
        match (&p.kind, p.dtype) {
            (ParamKind::Field { dims }, Some(dtype @ (ScalarType::F64 | ScalarType::F32))) => {
                let nlev = setup.nlev + usize::from(setup.half_levels.contains(&name));
                let shape = dims
                    .iter()
                    .map(|d| extent(grid, d, nlev))
                    .collect::<Result<Vec<usize>, _>>()?;
                let array = if p.role == Role::Out {
                    ArrayD::from_elem(IxDyn(&shape), f64::NAN)
                } else {
                    let draw = draw_of(name);
                    draw_array(&mut rng, &call, (program, name), &shape, draw, dtype)?
                };
                call.params.insert(name, RefArray::Float64(array));
            }
            (ParamKind::Field { dims }, Some(ScalarType::I32))
                if VERTICAL_OFFSETS.contains(&name) =>
            {
                let shape = dims
                    .iter()
                    .map(|d| extent(grid, d, setup.nlev))
                    .collect::<Result<Vec<usize>, _>>()?;
                call = call.with_int_field(name, vertical_offsets(&shape, &mut rng));
            }
            // A mask: `owner_mask` true at most points, as on the cells a rank owns, others
            // (`mask_prog_halo_c`) at half of them, so that both branches of the program run.
            (ParamKind::Field { dims }, Some(ScalarType::Bool)) if p.role == Role::In => {
                let shape = dims
                    .iter()
                    .map(|d| extent(grid, d, setup.nlev))
                    .collect::<Result<Vec<usize>, _>>()?;
                let share = if name == "owner_mask" { 0.75 } else { 0.5 };
                let mask = ArrayD::from_shape_fn(IxDyn(&shape), |_| rng.random_bool(share));
                call.params.insert(name, RefArray::Bool(mask));
            }
            (ParamKind::Scalar, Some(dtype @ (ScalarType::F64 | ScalarType::F32))) => {
                let draw = draw_of(name);
                let value = draw_array(&mut rng, &call, (program, name), &[], draw, dtype)?;
                call.params.insert(name, RefArray::Float64(value));
            }
            (ParamKind::Scalar, Some(ScalarType::I32)) => {
                let value = domain
                    .iter()
                    .chain(&setup.ints)
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| *v)
                    .ok_or_else(|| no_value(name))?;
                call = call.with_int(name, value);
            }
            (ParamKind::Scalar, Some(ScalarType::Bool)) => {
                let value = setup
                    .flags
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| *v)
                    .ok_or_else(|| no_value(name))?;
                call = call.with_flag(name, value);
            }
            other => {
                return Err(CallError::UnexpectedParameter {
                    program: program.to_string(),
                    param: name.to_string(),
                    kind: format!("{other:?}"),
                })
            }
        }
    }
    // ICON's list of edges whose pressure gradient is corrected hydrostatically: a field zero
    // elsewhere, here at two of every three points, so that both sides of `!= 0` run.
    if let Ok(RefArray::Float64(distance)) = call.params.get("pg_exdist") {
        let mut distance = distance.clone();
        for (i, value) in distance.iter_mut().enumerate() {
            if i % 3 != 0 {
                *value = 0.0;
            }
        }
        call = call.with_field("pg_exdist", distance);
    }
    if let Ok(RefArray::Float64(coef)) = call.params.get("zd_diffcoef") {
        let mut coef = coef.clone();
        let nlev = coef.shape()[1];
        for c in (0..coef.shape()[0]).step_by(3) {
            coef[[c, c % nlev]] = 0.0;
        }
        call = call.with_field("zd_diffcoef", coef);
    }
    Ok(call)
}

/// Arguments for `call_dynamic` (and `Bound::from_source`) from a [`Call`]: f64 values go to
/// f32 parameters rounded (exactly, when [`random_call`] drew them); the outputs handed back
/// are collected.
pub struct CallArgs<'a> {
    pub program: &'a str,
    pub call: &'a Call,
    pub outputs: BTreeMap<String, DynArray>,
}

impl<'a> CallArgs<'a> {
    pub fn new(program: &'a str, call: &'a Call) -> Self {
        CallArgs {
            program,
            call,
            outputs: BTreeMap::new(),
        }
    }

    /// An argument error of this call's program naming parameter `name`.
    pub fn error(&self, name: &str, message: String) -> Error {
        Error::Argument {
            program: self.program.to_string(),
            arg: name.to_string(),
            message,
        }
    }

    fn get(&self, name: &str) -> Result<&RefArray, Error> {
        self.call
            .params
            .get(name)
            .map_err(|e| self.error(name, e.to_string()))
    }
}

impl ArgSource for CallArgs<'_> {
    fn field(&mut self, name: &str, dims: &[&str], dtype: ScalarType) -> Result<DynField, Error> {
        let data = match (self.get(name)?, dtype) {
            (RefArray::Float64(a), ScalarType::F64) => DynArray::F64(a.clone()),
            (RefArray::Float64(a), ScalarType::F32) => DynArray::F32(a.mapv(|x| x as f32)),
            (RefArray::Int32(a), ScalarType::I32) => DynArray::I32(a.clone()),
            (RefArray::Bool(a), ScalarType::Bool) => DynArray::Bool(a.clone()),
            (a, t) => {
                let message = format!("holds {}, expected {}", a.dtype(), t.rust_name());
                return Err(self.error(name, message));
            }
        };
        Ok(DynField {
            data,
            origin: vec![0; dims.len()],
        })
    }

    fn scalar(&mut self, name: &str, dtype: ScalarType) -> Result<ScalarValue, Error> {
        let array = self.get(name)?;
        let value = match (array, dtype) {
            (RefArray::Float64(a), ScalarType::F64) => a.first().map(|&x| ScalarValue::F64(x)),
            (RefArray::Float64(a), ScalarType::F32) => {
                a.first().map(|&x| ScalarValue::F32(x as f32))
            }
            (RefArray::Int32(a), ScalarType::I32) => a.first().map(|&x| ScalarValue::I32(x)),
            (RefArray::Bool(a), ScalarType::Bool) => a.first().map(|&x| ScalarValue::Bool(x)),
            _ => None,
        };
        value.ok_or_else(|| {
            let message = format!("holds {}, expected {}", array.dtype(), dtype.rust_name());
            self.error(name, message)
        })
    }

    fn output(&mut self, name: &str, value: DynField) -> Result<(), Error> {
        self.outputs.insert(name.to_string(), value.data);
        Ok(())
    }
}

/// The parameters `signature` writes.
pub fn written_by(signature: &Signature) -> Vec<String> {
    signature
        .params
        .iter()
        .filter(|p| p.role != Role::In)
        .map(|p| p.name.clone())
        .collect()
}

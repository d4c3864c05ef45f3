//! The dynamical core's state: the prognostic variables of one time level, the diagnostic
//! state the solver carries between substeps (ICON4Py's `DiagnosticStateNonHydro`), and the
//! fields it prepares for tracer advection (`PrepAdvection`). Fields on half levels have
//! `nlev + 1` levels.

use gt4rs::{Error, Field};

use crate::diffusion::state::zeros;
use crate::icon::dims::{Cell, Edge, K};

/// The prognostic variables of one time level (ICON4Py's `PrognosticState`).
#[derive(Clone, Debug, PartialEq)]
pub struct PrognosticState {
    /// Normal wind at edges (m/s).
    pub vn: Field<(Edge, K), f64>,
    /// Vertical wind on half levels (m/s).
    pub w: Field<(Cell, K), f64>,
    /// Density (kg/m³).
    pub rho: Field<(Cell, K), f64>,
    /// Exner function.
    pub exner: Field<(Cell, K), f64>,
    /// Virtual potential temperature (K).
    pub theta_v: Field<(Cell, K), f64>,
}

impl PrognosticState {
    /// Every field zero, on `cells` × `edges` × `nlev` levels.
    pub fn zeros(cells: usize, edges: usize, nlev: usize) -> Result<Self, Error> {
        Ok(PrognosticState {
            vn: zeros(&[edges, nlev])?,
            w: zeros(&[cells, nlev + 1])?,
            rho: zeros(&[cells, nlev])?,
            exner: zeros(&[cells, nlev])?,
            theta_v: zeros(&[cells, nlev])?,
        })
    }
}

/// A field of the predictor and one of the corrector.
#[derive(Clone, Debug, PartialEq)]
pub struct PredictorCorrector<T> {
    pub predictor: T,
    pub corrector: T,
}

/// ICON4Py's `DiagnosticStateNonHydro`: what the solver keeps between its steps and substeps,
/// and the tendencies other components hand it (zero when nothing else runs).
#[derive(Clone, Debug, PartialEq)]
pub struct DiagnosticState {
    /// The largest vertical CFL number velocity advection has seen.
    pub max_vertical_cfl: f64,
    pub tangential_wind: Field<(Edge, K), f64>,
    pub vn_on_half_levels: Field<(Edge, K), f64>,
    pub contravariant_correction_at_cells_on_half_levels: Field<(Cell, K), f64>,
    pub theta_v_at_cells_on_half_levels: Field<(Cell, K), f64>,
    pub perturbed_exner_at_cells_on_model_levels: Field<(Cell, K), f64>,
    pub rho_at_cells_on_half_levels: Field<(Cell, K), f64>,
    pub exner_tendency_due_to_slow_physics: Field<(Cell, K), f64>,
    pub grf_tend_rho: Field<(Cell, K), f64>,
    pub grf_tend_thv: Field<(Cell, K), f64>,
    pub grf_tend_w: Field<(Cell, K), f64>,
    pub mass_flux_at_edges_on_model_levels: Field<(Edge, K), f64>,
    pub normal_wind_tendency_due_to_slow_physics_process: Field<(Edge, K), f64>,
    pub grf_tend_vn: Field<(Edge, K), f64>,
    pub normal_wind_advective_tendency: PredictorCorrector<Field<(Edge, K), f64>>,
    pub vertical_wind_advective_tendency: PredictorCorrector<Field<(Cell, K), f64>>,
    pub rho_iau_increment: Field<(Cell, K), f64>,
    pub normal_wind_iau_increment: Field<(Edge, K), f64>,
    pub exner_iau_increment: Field<(Cell, K), f64>,
    pub exner_dynamical_increment: Field<(Cell, K), f64>,
}

impl DiagnosticState {
    /// Every field zero (ICON4Py's `initialize_solve_nonhydro_diagnostic_state`); the initial
    /// condition sets the perturbed Exner function.
    pub fn zeros(cells: usize, edges: usize, nlev: usize) -> Result<Self, Error> {
        let cell = || zeros::<(Cell, K)>(&[cells, nlev]);
        let cell_half = || zeros::<(Cell, K)>(&[cells, nlev + 1]);
        let edge = || zeros::<(Edge, K)>(&[edges, nlev]);
        Ok(DiagnosticState {
            max_vertical_cfl: 0.0,
            tangential_wind: edge()?,
            vn_on_half_levels: zeros(&[edges, nlev + 1])?,
            contravariant_correction_at_cells_on_half_levels: cell_half()?,
            theta_v_at_cells_on_half_levels: cell_half()?,
            perturbed_exner_at_cells_on_model_levels: cell()?,
            rho_at_cells_on_half_levels: cell_half()?,
            exner_tendency_due_to_slow_physics: cell()?,
            grf_tend_rho: cell()?,
            grf_tend_thv: cell()?,
            grf_tend_w: cell_half()?,
            mass_flux_at_edges_on_model_levels: edge()?,
            normal_wind_tendency_due_to_slow_physics_process: edge()?,
            grf_tend_vn: edge()?,
            normal_wind_advective_tendency: PredictorCorrector {
                predictor: edge()?,
                corrector: edge()?,
            },
            vertical_wind_advective_tendency: PredictorCorrector {
                predictor: cell_half()?,
                corrector: cell_half()?,
            },
            rho_iau_increment: cell()?,
            normal_wind_iau_increment: edge()?,
            exner_iau_increment: cell()?,
            exner_dynamical_increment: cell()?,
        })
    }
}

/// What the substeps prepare for tracer advection (ICON4Py's `PrepAdvection`).
#[derive(Clone, Debug, PartialEq)]
pub struct PrepAdvection {
    pub vn_traj: Field<(Edge, K), f64>,
    pub mass_flx_me: Field<(Edge, K), f64>,
    pub dynamical_vertical_mass_flux_at_cells_on_half_levels: Field<(Cell, K), f64>,
    pub dynamical_vertical_volumetric_flux_at_cells_on_half_levels: Field<(Cell, K), f64>,
}

impl PrepAdvection {
    pub fn zeros(cells: usize, edges: usize, nlev: usize) -> Result<Self, Error> {
        Ok(PrepAdvection {
            vn_traj: zeros(&[edges, nlev])?,
            mass_flx_me: zeros(&[edges, nlev])?,
            dynamical_vertical_mass_flux_at_cells_on_half_levels: zeros(&[cells, nlev + 1])?,
            dynamical_vertical_volumetric_flux_at_cells_on_half_levels: zeros(&[cells, nlev + 1])?,
        })
    }
}

/// The solver's own fields between its programs (ICON4Py's `IntermediateFields` and the
/// locals `SolveNonhydro` and `VelocityAdvection` allocate), in the order they are written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Workspace {
    // velocity advection
    pub horizontal_advection_of_w_at_edges_on_half_levels: Field<(Edge, K), f64>,
    pub contravariant_corrected_w_at_cells_on_model_levels: Field<(Cell, K), f64>,
    pub vertical_cfl: Field<(Cell, K), f64>,
    pub contravariant_correction_at_edges_on_model_levels: Field<(Edge, K), f64>,
    pub horizontal_kinetic_energy_at_edges_on_model_levels: Field<(Edge, K), f64>,
    pub tangential_wind_on_half_levels: Field<(Edge, K), f64>,
    // cell diagnostics
    pub temporal_extrapolation_of_perturbed_exner: Field<(Cell, K), f64>,
    pub ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: Field<(Cell, K), f64>,
    pub d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: Field<(Cell, K), f64>,
    pub perturbed_rho_at_cells_on_model_levels: Field<(Cell, K), f64>,
    pub perturbed_theta_v_at_cells_on_model_levels: Field<(Cell, K), f64>,
    pub nonhydro_buoy_at_cells_on_half_levels: Field<(Cell, K), f64>,
    // edge diagnostics
    /// ICON's `z_hydro_corr`: written on the lowest level only.
    pub hydrostatic_correction: Field<(Edge, K), f64>,
    pub hydrostatic_correction_on_lowest_level: Field<Edge, f64>,
    pub rho_at_edges_on_model_levels: Field<(Edge, K), f64>,
    pub theta_v_at_edges_on_model_levels: Field<(Edge, K), f64>,
    pub horizontal_pressure_gradient: Field<(Edge, K), f64>,
    pub horizontal_gradient_of_normal_wind_divergence: Field<(Edge, K), f64>,
    pub spatially_averaged_vn: Field<(Edge, K), f64>,
    pub theta_v_flux_at_edges_on_model_levels: Field<(Edge, K), f64>,
    // vertical solver
    pub dwdz_at_cells_on_model_levels: Field<(Cell, K), f64>,
    /// ICON's `z_raylfac` for the current substep length.
    pub rayleigh_damping_factor: Field<K, f64>,
    /// ICON's `enh_divdamp_fac`.
    pub interpolated_fourth_order_divdamp_factor: Field<K, f64>,
}

impl Workspace {
    pub fn zeros(cells: usize, edges: usize, nlev: usize) -> Result<Self, Error> {
        let cell = || zeros::<(Cell, K)>(&[cells, nlev]);
        let edge = || zeros::<(Edge, K)>(&[edges, nlev]);
        Ok(Workspace {
            horizontal_advection_of_w_at_edges_on_half_levels: edge()?,
            contravariant_corrected_w_at_cells_on_model_levels: cell()?,
            vertical_cfl: cell()?,
            contravariant_correction_at_edges_on_model_levels: edge()?,
            horizontal_kinetic_energy_at_edges_on_model_levels: edge()?,
            tangential_wind_on_half_levels: edge()?,
            temporal_extrapolation_of_perturbed_exner: zeros(&[cells, nlev + 1])?,
            ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: cell()?,
            d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: cell()?,
            perturbed_rho_at_cells_on_model_levels: cell()?,
            perturbed_theta_v_at_cells_on_model_levels: cell()?,
            nonhydro_buoy_at_cells_on_half_levels: cell()?,
            hydrostatic_correction: edge()?,
            hydrostatic_correction_on_lowest_level: zeros(&[edges])?,
            rho_at_edges_on_model_levels: edge()?,
            theta_v_at_edges_on_model_levels: edge()?,
            horizontal_pressure_gradient: edge()?,
            horizontal_gradient_of_normal_wind_divergence: edge()?,
            spatially_averaged_vn: edge()?,
            theta_v_flux_at_edges_on_model_levels: edge()?,
            dwdz_at_cells_on_model_levels: cell()?,
            rayleigh_damping_factor: zeros(&[nlev])?,
            interpolated_fourth_order_divdamp_factor: zeros(&[nlev])?,
        })
    }
}

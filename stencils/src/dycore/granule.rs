//! ICON's nonhydrostatic solver as one component (ICON4Py's `SolveNonhydro` with its
//! `VelocityAdvection`): every program is compiled once at [`SolveNonhydro::init`] with its
//! domain bounds and vertical indices bound (`super::bound`); [`SolveNonhydro::time_step`]
//! runs one dynamical substep, predictor and corrector, in ICON4Py's order.

use std::time::Instant;

use gt4rs::debug::DebugChecks;
use gt4rs::grid::{GridDim, Zone, Zones};
use gt4rs::profiling::{Phase, Profiler};
use gt4rs::{Backend, Connectivities, Error, Field, Options};

use super::bound;
use super::config::{NonHydrostaticConfig, NonHydrostaticParams, GRAV_O_CPD, P0REF};
use super::geometry::{CellParams, EdgeParams};
use super::interpolation::InterpolationState;
use super::metrics::MetricState;
use super::state::{DiagnosticState, PrepAdvection, PrognosticState, Workspace};
use crate::diffusion::config::{CPD, RD};
use crate::diffusion::state::k_field;
use crate::icon::dims::{Cell, Edge, K};
use crate::icon::dsl::{diffusion_utils, dycore_utils};

/// ICON's limit of the vertical CFL number above which velocity advection adds diffusion
/// (`cfl_w_limit`, before dividing by the substep).
const CFL_W_LIMIT: f64 = 0.65;
/// ICON's scaling of that extra diffusion (`scalfac_exdiff`).
const SCALFAC_EXDIFF: f64 = 0.05;

/// How the granule runs.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOptions {
    pub backend: Backend,
    /// Keep every timed event for [`Profiler::write_chrome_trace`].
    pub trace: bool,
}

/// The vertical indices the solver's programs are bound with (ICON4Py's `VerticalGrid`):
/// 0-based levels.
#[derive(Clone, Debug, PartialEq)]
pub struct VerticalParams {
    pub nlev: usize,
    /// The first level that is flat (no terrain following) everywhere below the model top.
    pub nflatlev: i32,
    /// The first level below the Rayleigh damping layer (ICON4Py's
    /// `end_index_of_damping_layer`).
    pub end_index_of_damping_layer: i32,
    /// The first level below the height where moist physics starts (`kstart_moist`).
    pub kstart_moist: i32,
    /// Heights of the half levels over flat ground, top down (`vct_a`, m).
    pub vct_a: Vec<f64>,
}

/// What one call of [`SolveNonhydro::time_step`] is within a model step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Substep {
    /// Length of the substep (s).
    pub dtime: f64,
    /// Substeps per model step (`ndyn_substeps_var`).
    pub substeps: usize,
    /// The first step of the run: velocity advection computes the vertical advection of w
    /// in the predictor too.
    pub at_initial_timestep: bool,
    pub at_first_substep: bool,
    pub at_last_substep: bool,
    /// Prepare the fluxes of tracer advection (`lprep_adv`).
    pub prepare_advection: bool,
    /// Second-order divergence damping factor (`divdamp_fac_o2`).
    pub second_order_divdamp_factor: f64,
}

/// The horizontal index bounds of the solver's domains (ICON4Py's names), from the zones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Domains {
    start_cell_lateral_boundary: i32,
    start_cell_lateral_boundary_level_3: i32,
    start_cell_lateral_boundary_level_4: i32,
    start_cell_nudging: i32,
    start_cell_halo: i32,
    end_cell_lateral_boundary_level_4: i32,
    end_cell_local: i32,
    end_cell_halo: i32,
    end_cell_halo_level_2: i32,
    end_cell_end: i32,
    start_edge_lateral_boundary: i32,
    start_edge_lateral_boundary_level_5: i32,
    start_edge_lateral_boundary_level_7: i32,
    start_edge_nudging_level_2: i32,
    end_edge_nudging: i32,
    end_edge_local: i32,
    end_edge_halo: i32,
    end_edge_halo_level_2: i32,
}

impl Domains {
    fn of(zones: &Zones) -> Result<Self, Error> {
        let index = |v: usize| {
            i32::try_from(v).map_err(|_| Error::Config(format!("grid index {v} exceeds i32")))
        };
        let range = |dim: GridDim, zone| zones.of(dim).range(dim, zone);
        let cs = |z| range(GridDim::Cell, z).and_then(|r| index(r.0));
        let ce = |z| range(GridDim::Cell, z).and_then(|r| index(r.1));
        let es = |z| range(GridDim::Edge, z).and_then(|r| index(r.0));
        let ee = |z| range(GridDim::Edge, z).and_then(|r| index(r.1));
        Ok(Domains {
            start_cell_lateral_boundary: cs(Zone::LateralBoundaryLevel1)?,
            start_cell_lateral_boundary_level_3: cs(Zone::LateralBoundaryLevel3)?,
            start_cell_lateral_boundary_level_4: cs(Zone::LateralBoundaryLevel4)?,
            start_cell_nudging: cs(Zone::Nudging)?,
            start_cell_halo: cs(Zone::Halo)?,
            end_cell_lateral_boundary_level_4: ce(Zone::LateralBoundaryLevel4)?,
            end_cell_local: ce(Zone::Local)?,
            end_cell_halo: ce(Zone::Halo)?,
            end_cell_halo_level_2: ce(Zone::HaloLevel2)?,
            end_cell_end: ce(Zone::End)?,
            start_edge_lateral_boundary: es(Zone::LateralBoundaryLevel1)?,
            start_edge_lateral_boundary_level_5: es(Zone::LateralBoundaryLevel5)?,
            start_edge_lateral_boundary_level_7: es(Zone::LateralBoundaryLevel7)?,
            start_edge_nudging_level_2: es(Zone::NudgingLevel2)?,
            end_edge_nudging: ee(Zone::Nudging)?,
            end_edge_local: ee(Zone::Local)?,
            end_edge_halo: ee(Zone::Halo)?,
            end_edge_halo_level_2: ee(Zone::HaloLevel2)?,
        })
    }
}

/// Compiles a `super::bound` module with `$options` and its bound values, timed as its init.
macro_rules! compile {
    ($profiler:expr, $options:expr, $module:ident, $bound:expr) => {{
        let start = Instant::now();
        let compiled = bound::$module::compile($options, $bound)?;
        $profiler.record(bound::$module::NAME, Phase::Init, start, start.elapsed());
        compiled
    }};
}

/// One program call of a substep, timed under the program's name, with the progress line of
/// `GT4RS_DEBUG=progress`.
macro_rules! run {
    ($self:ident, $module:ident, $args:expr) => {{
        let name = bound::$module::NAME;
        let start = Instant::now();
        let result = $self.programs.$module.call($args);
        $self
            .profiler
            .record(name, Phase::Run, start, start.elapsed());
        result?;
        $self.debug.progress($self.substeps_run, name);
    }};
}

/// The compiled programs, with their domains bound.
struct Programs {
    diagnostics_from_normal_wind: bound::diagnostics_from_normal_wind::Compiled,
    advection_in_predictor_vertical_momentum:
        bound::advection_in_predictor_vertical_momentum::Compiled,
    advection_in_corrector_vertical_momentum:
        bound::advection_in_corrector_vertical_momentum::Compiled,
    advection_in_horizontal_momentum: bound::advection_in_horizontal_momentum::Compiled,
    perturbed_quantities_and_interpolation: bound::perturbed_quantities_and_interpolation::Compiled,
    interpolation_and_nonhydro_buoy: bound::interpolation_and_nonhydro_buoy::Compiled,
    hydrostatic_correction_term: bound::hydrostatic_correction_term::Compiled,
    rho_theta_pgrad_and_update_vn: bound::rho_theta_pgrad_and_update_vn::Compiled,
    divergence_damping_and_update_vn: bound::divergence_damping_and_update_vn::Compiled,
    horizontal_velocity_quantities_and_fluxes:
        bound::horizontal_velocity_quantities_and_fluxes::Compiled,
    averaged_vn_and_fluxes: bound::averaged_vn_and_fluxes::Compiled,
    solver_at_predictor_step: bound::solver_at_predictor_step::Compiled,
    solver_at_corrector_step: bound::solver_at_corrector_step::Compiled,
    theta_and_exner_in_halo: bound::theta_and_exner_in_halo::Compiled,
    exner_from_rhotheta: bound::exner_from_rhotheta::Compiled,
    boundary_tendencies: bound::boundary_tendencies::Compiled,
    dwdz_for_divergence_damping: bound::dwdz_for_divergence_damping::Compiled,
    zero_mass_flux: bound::zero_mass_flux::Compiled,
    mass_flux_weighted: bound::mass_flux_weighted::Compiled,
    rayleigh_damping_factor: dycore_utils::compute_rayleigh_damping_factor::Compiled,
}

impl Programs {
    fn compile(
        profiler: &Profiler,
        o: &Options,
        d: &Domains,
        vertical: &VerticalParams,
        metric: &MetricState,
        cell: &CellParams,
        config: &NonHydrostaticConfig,
    ) -> Result<Self, Error> {
        let nlev = level(vertical.nlev)?;
        let nflatlev = vertical.nflatlev;
        let damping = vertical.end_index_of_damping_layer;
        let rayleigh_start = Instant::now();
        let rayleigh_damping_factor = dycore_utils::compute_rayleigh_damping_factor::compile(o)?;
        profiler.record(
            dycore_utils::compute_rayleigh_damping_factor::NAME,
            Phase::Init,
            rayleigh_start,
            rayleigh_start.elapsed(),
        );
        Ok(Programs {
            diagnostics_from_normal_wind: compile!(
                profiler,
                o,
                diagnostics_from_normal_wind,
                bound::diagnostics_from_normal_wind::Bound {
                    nflatlev,
                    horizontal_start: d.start_edge_lateral_boundary_level_5,
                    horizontal_end: d.end_edge_halo_level_2,
                    vertical_start: 0,
                    vertical_end: nlev + 1,
                }
            ),
            advection_in_predictor_vertical_momentum: compile!(
                profiler,
                o,
                advection_in_predictor_vertical_momentum,
                bound::advection_in_predictor_vertical_momentum::Bound {
                    nflatlev,
                    end_index_of_damping_layer: damping,
                    horizontal_start: d.start_cell_lateral_boundary_level_4,
                    horizontal_end: d.end_cell_halo,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            advection_in_corrector_vertical_momentum: compile!(
                profiler,
                o,
                advection_in_corrector_vertical_momentum,
                bound::advection_in_corrector_vertical_momentum::Bound {
                    end_index_of_damping_layer: damping,
                    horizontal_start: d.start_cell_lateral_boundary_level_4,
                    horizontal_end: d.end_cell_halo,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            advection_in_horizontal_momentum: compile!(
                profiler,
                o,
                advection_in_horizontal_momentum,
                bound::advection_in_horizontal_momentum::Bound {
                    end_index_of_damping_layer: damping,
                    horizontal_start: d.start_edge_nudging_level_2,
                    horizontal_end: d.end_edge_local,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            perturbed_quantities_and_interpolation: compile!(
                profiler,
                o,
                perturbed_quantities_and_interpolation,
                bound::perturbed_quantities_and_interpolation::Bound {
                    nflatlev,
                    nflat_gradp: metric.nflat_gradp,
                    start_cell_lateral_boundary_level_3: d.start_cell_lateral_boundary_level_3,
                    end_cell_local: d.end_cell_local,
                    end_cell_halo: d.end_cell_halo,
                    end_cell_halo_level_2: d.end_cell_halo_level_2,
                    model_top: 0,
                    surface_level: nlev + 1,
                }
            ),
            interpolation_and_nonhydro_buoy: compile!(
                profiler,
                o,
                interpolation_and_nonhydro_buoy,
                bound::interpolation_and_nonhydro_buoy::Bound {
                    horizontal_start: d.start_cell_lateral_boundary_level_3,
                    horizontal_end: d.end_cell_local,
                    vertical_start: 1,
                    vertical_end: nlev,
                }
            ),
            hydrostatic_correction_term: compile!(
                profiler,
                o,
                hydrostatic_correction_term,
                bound::hydrostatic_correction_term::Bound {
                    grav_o_cpd: GRAV_O_CPD,
                    horizontal_start: d.start_edge_nudging_level_2,
                    horizontal_end: d.end_edge_local,
                    vertical_start: nlev - 1,
                    vertical_end: nlev,
                }
            ),
            rho_theta_pgrad_and_update_vn: compile!(
                profiler,
                o,
                rho_theta_pgrad_and_update_vn,
                bound::rho_theta_pgrad_and_update_vn::Bound {
                    nflatlev,
                    nflat_gradp: metric.nflat_gradp,
                    start_edge_lateral_boundary: d.start_edge_lateral_boundary,
                    start_edge_lateral_boundary_level_7: d.start_edge_lateral_boundary_level_7,
                    start_edge_nudging_level_2: d.start_edge_nudging_level_2,
                    end_edge_nudging: d.end_edge_nudging,
                    end_edge_local: d.end_edge_local,
                    end_edge_halo: d.end_edge_halo,
                    horizontal_start: 0,
                    horizontal_end: d.end_edge_halo_level_2,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            divergence_damping_and_update_vn: compile!(
                profiler,
                o,
                divergence_damping_and_update_vn,
                bound::divergence_damping_and_update_vn::Bound {
                    mean_cell_area: cell.mean_cell_area,
                    max_nudging_coefficient: config.max_nudging_coefficient,
                    dbl_eps: f64::EPSILON,
                    horizontal_start: d.start_edge_nudging_level_2,
                    horizontal_end: d.end_edge_local,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            horizontal_velocity_quantities_and_fluxes: compile!(
                profiler,
                o,
                horizontal_velocity_quantities_and_fluxes,
                bound::horizontal_velocity_quantities_and_fluxes::Bound {
                    nflatlev,
                    horizontal_start: d.start_edge_lateral_boundary_level_5,
                    horizontal_end: d.end_edge_halo_level_2,
                    vertical_start: 0,
                    vertical_end: nlev + 1,
                }
            ),
            averaged_vn_and_fluxes: compile!(
                profiler,
                o,
                averaged_vn_and_fluxes,
                bound::averaged_vn_and_fluxes::Bound {
                    horizontal_start: d.start_edge_lateral_boundary_level_5,
                    horizontal_end: d.end_edge_halo_level_2,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            solver_at_predictor_step: compile!(
                profiler,
                o,
                solver_at_predictor_step,
                bound::solver_at_predictor_step::Bound {
                    end_index_of_damping_layer: damping,
                    kstart_moist: vertical.kstart_moist,
                    flat_level_index_plus1: nflatlev + 1,
                    start_cell_index_nudging: d.start_cell_nudging,
                    end_cell_index_local: d.end_cell_local,
                    start_cell_index_lateral_lvl3: d.start_cell_lateral_boundary_level_3,
                    end_cell_index_halo_lvl1: d.end_cell_halo,
                    vertical_start_index_model_top: 0,
                    vertical_end_index_model_surface: nlev + 1,
                }
            ),
            solver_at_corrector_step: compile!(
                profiler,
                o,
                solver_at_corrector_step,
                bound::solver_at_corrector_step::Bound {
                    end_index_of_damping_layer: damping,
                    kstart_moist: vertical.kstart_moist,
                    start_cell_index_nudging: d.start_cell_nudging,
                    end_cell_index_local: d.end_cell_local,
                    vertical_start_index_model_top: 0,
                    vertical_end_index_model_surface: nlev + 1,
                }
            ),
            theta_and_exner_in_halo: compile!(
                profiler,
                o,
                theta_and_exner_in_halo,
                bound::theta_and_exner_in_halo::Bound {
                    horizontal_start: d.start_cell_halo,
                    horizontal_end: d.end_cell_end,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            exner_from_rhotheta: compile!(
                profiler,
                o,
                exner_from_rhotheta,
                bound::exner_from_rhotheta::Bound {
                    rd_o_cvd: RD / (CPD - RD),
                    rd_o_p0ref: RD / P0REF,
                    horizontal_start: d.start_cell_lateral_boundary,
                    horizontal_end: d.end_cell_lateral_boundary_level_4,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            boundary_tendencies: compile!(
                profiler,
                o,
                boundary_tendencies,
                bound::boundary_tendencies::Bound {
                    horizontal_start: d.start_cell_lateral_boundary,
                    horizontal_end: d.end_cell_lateral_boundary_level_4,
                    vertical_start: 0,
                    vertical_end: nlev + 1,
                }
            ),
            dwdz_for_divergence_damping: compile!(
                profiler,
                o,
                dwdz_for_divergence_damping,
                bound::dwdz_for_divergence_damping::Bound {
                    horizontal_start: d.start_cell_lateral_boundary,
                    horizontal_end: d.end_cell_lateral_boundary_level_4,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            zero_mass_flux: compile!(
                profiler,
                o,
                zero_mass_flux,
                bound::zero_mass_flux::Bound {
                    horizontal_start: d.start_cell_lateral_boundary,
                    horizontal_end: d.end_cell_lateral_boundary_level_4,
                    vertical_start: 0,
                    vertical_end: nlev + 1,
                }
            ),
            mass_flux_weighted: compile!(
                profiler,
                o,
                mass_flux_weighted,
                bound::mass_flux_weighted::Bound {
                    horizontal_start: d.start_cell_lateral_boundary,
                    horizontal_end: d.end_cell_lateral_boundary_level_4,
                    vertical_start: 1,
                    vertical_end: nlev,
                }
            ),
            rayleigh_damping_factor,
        })
    }
}

/// A level count as the programs' `i32` bounds.
fn level(n: usize) -> Result<i32, Error> {
    i32::try_from(n).map_err(|_| Error::Config(format!("{n} levels exceed i32")))
}

/// The nonhydrostatic solver with velocity advection.
pub struct SolveNonhydro {
    config: NonHydrostaticConfig,
    params: NonHydrostaticParams,
    vertical: VerticalParams,
    metric: MetricState,
    interpolation: InterpolationState,
    edge: EdgeParams,
    cell: CellParams,
    /// Every cell is owned on one rank.
    owner_mask: Field<Cell, bool>,
    domains: Domains,
    programs: Programs,
    work: Workspace,
    profiler: Profiler,
    debug: DebugChecks,
    /// The substep length `rayleigh_damping_factor` was computed for.
    rayleigh_dtime: Option<f64>,
    /// Substeps run so far (for progress lines).
    substeps_run: usize,
}

impl SolveNonhydro {
    /// Sets the solver up (ICON4Py `SolveNonhydro.__init__`): checks the configuration and the
    /// fields' level counts, compiles every program once with its domains bound, and computes
    /// the fourth-order divergence-damping profile.
    #[allow(clippy::too_many_arguments)]
    pub fn init(
        zones: &Zones,
        connectivities: Connectivities,
        vertical: VerticalParams,
        config: NonHydrostaticConfig,
        metric: MetricState,
        interpolation: InterpolationState,
        edge: EdgeParams,
        cell: CellParams,
        options: RunOptions,
    ) -> Result<Self, Error> {
        config.validate()?;
        let nlev = vertical.nlev;
        if nlev < 3 {
            return Err(Error::Config(format!(
                "the nonhydrostatic solver needs at least 3 levels, not {nlev}"
            )));
        }
        if vertical.vct_a.len() != nlev + 1 {
            return Err(Error::Config(format!(
                "the vertical grid has {} half levels; {nlev} levels need {}",
                vertical.vct_a.len(),
                nlev + 1
            )));
        }
        let (cells, edges) = (metric.wgtfac_c.shape()[0], metric.wgtfac_e.shape()[0]);
        for (name, shape, want) in [
            ("wgtfac_c", metric.wgtfac_c.shape(), [cells, nlev + 1]),
            ("ddqz_z_half", metric.ddqz_z_half.shape(), [cells, nlev + 1]),
            (
                "inv_ddqz_z_full",
                metric.inv_ddqz_z_full.shape(),
                [cells, nlev],
            ),
            ("ddxn_z_full", metric.ddxn_z_full.shape(), [edges, nlev]),
        ] {
            if shape != want {
                return Err(Error::Shape(format!(
                    "metric field `{name}` has shape {shape:?}; {nlev} levels need {want:?}"
                )));
            }
        }
        let params = NonHydrostaticParams::new(&config);
        let profiler = Profiler::new(options.trace);
        // An options file (`GT4RS_CONFIG`) tunes the programs as it would any program's; the
        // backend stays the one asked for.
        let compile_options = Options::new(options.backend)
            .with_config_from_env()?
            .with_connectivities(connectivities);
        let domains = Domains::of(zones)?;
        let programs = Programs::compile(
            &profiler,
            &compile_options,
            &domains,
            &vertical,
            &metric,
            &cell,
            &config,
        )?;
        let mut work = Workspace::zeros(cells, edges, nlev)?;
        work.interpolated_fourth_order_divdamp_factor =
            divdamp_profile(&profiler, &compile_options, &config, &vertical)?;
        Ok(SolveNonhydro {
            config,
            params,
            vertical,
            metric,
            interpolation,
            edge,
            cell,
            owner_mask: Field::from_array_zero_origin(
                ndarray::Array1::from_elem(cells, true).into_dyn(),
            )?,
            domains,
            programs,
            work,
            profiler,
            debug: DebugChecks::from_env()?,
            rayleigh_dtime: None,
            substeps_run: 0,
        })
    }

    pub fn config(&self) -> &NonHydrostaticConfig {
        &self.config
    }
    pub fn params(&self) -> &NonHydrostaticParams {
        &self.params
    }
    pub fn vertical(&self) -> &VerticalParams {
        &self.vertical
    }
    /// Per-program init and run times.
    pub fn profiler(&self) -> &Profiler {
        &self.profiler
    }
    /// Substeps run so far.
    pub fn substeps_run(&self) -> usize {
        self.substeps_run
    }
    /// ICON's `enh_divdamp_fac`: the fourth-order divergence-damping factor per level.
    pub fn interpolated_fourth_order_divdamp_factor(&self) -> &Field<K, f64> {
        &self.work.interpolated_fourth_order_divdamp_factor
    }
    /// ICON's `z_raylfac`: the Rayleigh damping factor per level for the last substep's length.
    pub fn rayleigh_damping_factor(&self) -> &Field<K, f64> {
        &self.work.rayleigh_damping_factor
    }

    /// One dynamical substep (ICON4Py `SolveNonhydro.time_step`): the predictor from
    /// `current` into `next`, then the corrector, then the halo and boundary updates of
    /// θ and the Exner function.
    pub fn time_step(
        &mut self,
        diagnostic: &mut DiagnosticState,
        current: &PrognosticState,
        next: &mut PrognosticState,
        prep_adv: &mut PrepAdvection,
        substep: &Substep,
    ) -> Result<(), Error> {
        if !(substep.dtime > 0.0 && substep.dtime.is_finite()) || substep.substeps == 0 {
            return Err(Error::Config(format!(
                "a substep needs a positive time step and substep count, not {} s and {}",
                substep.dtime, substep.substeps
            )));
        }
        self.update_rayleigh_damping_factor(substep.dtime)?;
        self.run_predictor_step(diagnostic, current, next, substep)?;
        self.run_corrector_step(diagnostic, current, next, prep_adv, substep)?;
        if self.config.limited_area {
            run!(
                self,
                exner_from_rhotheta,
                bound::exner_from_rhotheta::Args {
                    rho: &next.rho,
                    theta_v: &mut next.theta_v,
                    exner: &mut next.exner,
                }
            );
        }
        run!(
            self,
            theta_and_exner_in_halo,
            bound::theta_and_exner_in_halo::Args {
                mask_prog_halo_c: &self.metric.mask_prog_halo_c,
                rho_now: &current.rho,
                rho_new: &next.rho,
                theta_v_now: &current.theta_v,
                theta_v_new: &mut next.theta_v,
                exner_new: &mut next.exner,
                exner_now: &current.exner,
            }
        );
        self.substeps_run += 1;
        Ok(())
    }

    /// ICON's `z_raylfac`, recomputed when the substep length changes.
    fn update_rayleigh_damping_factor(&mut self, dtime: f64) -> Result<(), Error> {
        if self.rayleigh_dtime == Some(dtime) {
            return Ok(());
        }
        let name = dycore_utils::compute_rayleigh_damping_factor::NAME;
        let start = Instant::now();
        let result = self.programs.rayleigh_damping_factor.call(
            dycore_utils::compute_rayleigh_damping_factor::Args {
                rayleigh_w: &self.metric.rayleigh_w,
                dtime,
                rayleigh_damping_factor: &mut self.work.rayleigh_damping_factor,
            },
        );
        self.profiler
            .record(name, Phase::Run, start, start.elapsed());
        result?;
        self.rayleigh_dtime = Some(dtime);
        Ok(())
    }

    fn scale_factors(dtime: f64) -> (f64, f64) {
        let cfl_w_limit = CFL_W_LIMIT / dtime;
        let scalfac_exdiff = SCALFAC_EXDIFF / (dtime * (0.85 - cfl_w_limit * dtime));
        (cfl_w_limit, scalfac_exdiff)
    }

    /// Velocity advection of the predictor (ICON4Py `VelocityAdvection.run_predictor_step`).
    fn velocity_advection_predictor(
        &mut self,
        diagnostic: &mut DiagnosticState,
        current: &PrognosticState,
        substep: &Substep,
    ) -> Result<(), Error> {
        let dtime = substep.dtime;
        let (cfl_w_limit, scalfac_exdiff) = Self::scale_factors(dtime);
        // itime_scheme 4 recomputes only the vn tendency after the first step of the run.
        let skip = !(substep.at_initial_timestep && substep.at_first_substep);
        let w = &mut self.work;
        run!(
            self,
            diagnostics_from_normal_wind,
            bound::diagnostics_from_normal_wind::Args {
                tangential_wind: &mut diagnostic.tangential_wind,
                tangential_wind_on_half_levels: &mut w.tangential_wind_on_half_levels,
                vn_on_half_levels: &mut diagnostic.vn_on_half_levels,
                horizontal_kinetic_energy_at_edges_on_model_levels: &mut w
                    .horizontal_kinetic_energy_at_edges_on_model_levels,
                contravariant_correction_at_edges_on_model_levels: &mut w
                    .contravariant_correction_at_edges_on_model_levels,
                horizontal_advection_of_w_at_edges_on_half_levels: &mut w
                    .horizontal_advection_of_w_at_edges_on_half_levels,
                vn: &current.vn,
                w: &current.w,
                rbf_vec_coeff_e: &self.interpolation.rbf_vec_coeff_e,
                wgtfac_e: &self.metric.wgtfac_e,
                ddxn_z_full: &self.metric.ddxn_z_full,
                ddxt_z_full: &self.metric.ddxt_z_full,
                wgtfacq_e: &self.metric.wgtfacq_e,
                c_intp: &self.interpolation.c_intp,
                inv_dual_edge_length: &self.edge.inverse_dual_edge_lengths,
                inv_primal_edge_length: &self.edge.inverse_primal_edge_lengths,
                tangent_orientation: &self.edge.tangent_orientation,
                skip_compute_predictor_vertical_advection: skip,
            }
        );
        let w = &mut self.work;
        run!(
            self,
            advection_in_predictor_vertical_momentum,
            bound::advection_in_predictor_vertical_momentum::Args {
                contravariant_correction_at_cells_on_half_levels: &mut diagnostic
                    .contravariant_correction_at_cells_on_half_levels,
                vertical_wind_advective_tendency: &mut diagnostic
                    .vertical_wind_advective_tendency
                    .predictor,
                contravariant_corrected_w_at_cells_on_model_levels: &mut w
                    .contravariant_corrected_w_at_cells_on_model_levels,
                vertical_cfl: &mut w.vertical_cfl,
                w: &current.w,
                horizontal_advection_of_w_at_edges_on_half_levels: &w
                    .horizontal_advection_of_w_at_edges_on_half_levels,
                contravariant_correction_at_edges_on_model_levels: &w
                    .contravariant_correction_at_edges_on_model_levels,
                coeff1_dwdz: &self.metric.coeff1_dwdz,
                coeff2_dwdz: &self.metric.coeff2_dwdz,
                e_bln_c_s: &self.interpolation.e_bln_c_s,
                wgtfac_c: &self.metric.wgtfac_c,
                ddqz_z_half: &self.metric.ddqz_z_half,
                area: &self.cell.area,
                geofac_n2s: &self.interpolation.geofac_n2s,
                owner_mask: &self.owner_mask,
                scalfac_exdiff,
                cfl_w_limit,
                dtime,
                skip_compute_predictor_vertical_advection: skip,
            }
        );
        self.note_vertical_cfl(diagnostic);
        self.advection_in_horizontal_momentum(diagnostic, &current.vn, dtime, true)
    }

    /// Velocity advection of the corrector (ICON4Py `VelocityAdvection.run_corrector_step`).
    fn velocity_advection_corrector(
        &mut self,
        diagnostic: &mut DiagnosticState,
        next: &PrognosticState,
        dtime: f64,
    ) -> Result<(), Error> {
        let (cfl_w_limit, scalfac_exdiff) = Self::scale_factors(dtime);
        let w = &mut self.work;
        run!(
            self,
            advection_in_corrector_vertical_momentum,
            bound::advection_in_corrector_vertical_momentum::Args {
                vertical_wind_advective_tendency: &mut diagnostic
                    .vertical_wind_advective_tendency
                    .corrector,
                contravariant_corrected_w_at_cells_on_model_levels: &mut w
                    .contravariant_corrected_w_at_cells_on_model_levels,
                vertical_cfl: &mut w.vertical_cfl,
                w: &next.w,
                tangential_wind_on_half_levels: &w.tangential_wind_on_half_levels,
                vn_on_half_levels: &diagnostic.vn_on_half_levels,
                contravariant_correction_at_cells_on_half_levels: &diagnostic
                    .contravariant_correction_at_cells_on_half_levels,
                coeff1_dwdz: &self.metric.coeff1_dwdz,
                coeff2_dwdz: &self.metric.coeff2_dwdz,
                c_intp: &self.interpolation.c_intp,
                inv_dual_edge_length: &self.edge.inverse_dual_edge_lengths,
                inv_primal_edge_length: &self.edge.inverse_primal_edge_lengths,
                tangent_orientation: &self.edge.tangent_orientation,
                e_bln_c_s: &self.interpolation.e_bln_c_s,
                ddqz_z_half: &self.metric.ddqz_z_half,
                area: &self.cell.area,
                geofac_n2s: &self.interpolation.geofac_n2s,
                owner_mask: &self.owner_mask,
                scalfac_exdiff,
                cfl_w_limit,
                dtime,
            }
        );
        self.note_vertical_cfl(diagnostic);
        self.advection_in_horizontal_momentum(diagnostic, &next.vn, dtime, false)
    }

    /// The advective tendency of vn, into the predictor's or the corrector's field.
    fn advection_in_horizontal_momentum(
        &mut self,
        diagnostic: &mut DiagnosticState,
        vn: &Field<(Edge, K), f64>,
        dtime: f64,
        predictor: bool,
    ) -> Result<(), Error> {
        let (cfl_w_limit, scalfac_exdiff) = Self::scale_factors(dtime);
        let tendency = if predictor {
            &mut diagnostic.normal_wind_advective_tendency.predictor
        } else {
            &mut diagnostic.normal_wind_advective_tendency.corrector
        };
        let w = &self.work;
        run!(
            self,
            advection_in_horizontal_momentum,
            bound::advection_in_horizontal_momentum::Args {
                normal_wind_advective_tendency: tendency,
                vn,
                horizontal_kinetic_energy_at_edges_on_model_levels: &w
                    .horizontal_kinetic_energy_at_edges_on_model_levels,
                tangential_wind: &diagnostic.tangential_wind,
                coriolis_frequency: &self.edge.coriolis_frequency,
                contravariant_corrected_w_at_cells_on_model_levels: &w
                    .contravariant_corrected_w_at_cells_on_model_levels,
                vn_on_half_levels: &diagnostic.vn_on_half_levels,
                e_bln_c_s: &self.interpolation.e_bln_c_s,
                geofac_rot: &self.interpolation.geofac_rot,
                coeff_gradekin: &self.metric.coeff_gradekin,
                c_lin_e: &self.interpolation.c_lin_e,
                ddqz_z_full_e: &self.metric.ddqz_z_full_e,
                area_edge: &self.edge.edge_areas,
                tangent_orientation: &self.edge.tangent_orientation,
                inv_primal_edge_length: &self.edge.inverse_primal_edge_lengths,
                geofac_grdiv: &self.interpolation.geofac_grdiv,
                cfl_w_limit,
                scalfac_exdiff,
                dtime,
                // ICON4Py always applies it (it would need the CFL maximum on the host first).
                apply_extra_diffusion_on_vn: true,
            }
        );
        Ok(())
    }

    /// The largest vertical CFL number of the cells velocity advection ran on, kept in the
    /// diagnostic state (ICON4Py's `max_vertical_cfl`).
    fn note_vertical_cfl(&self, diagnostic: &mut DiagnosticState) {
        let cells = self.domains.start_cell_lateral_boundary_level_4 as usize
            ..self.domains.end_cell_halo as usize;
        let cfl = self.work.vertical_cfl.as_array();
        let largest = cfl
            .slice_axis(ndarray::Axis(0), cells.into())
            .iter()
            .copied()
            .fold(0.0_f64, f64::max);
        diagnostic.max_vertical_cfl = diagnostic.max_vertical_cfl.max(largest);
    }

    /// ICON4Py `SolveNonhydro.run_predictor_step`.
    fn run_predictor_step(
        &mut self,
        diagnostic: &mut DiagnosticState,
        current: &PrognosticState,
        next: &mut PrognosticState,
        substep: &Substep,
    ) -> Result<(), Error> {
        let dtime = substep.dtime;
        if substep.at_first_substep {
            self.velocity_advection_predictor(diagnostic, current, substep)?;
        }
        let w = &mut self.work;
        run!(
            self,
            perturbed_quantities_and_interpolation,
            bound::perturbed_quantities_and_interpolation::Args {
                temporal_extrapolation_of_perturbed_exner: &mut w
                    .temporal_extrapolation_of_perturbed_exner,
                ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: &mut w
                    .ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
                d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: &mut w
                    .d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
                perturbed_exner_at_cells_on_model_levels: &mut diagnostic
                    .perturbed_exner_at_cells_on_model_levels,
                perturbed_rho_at_cells_on_model_levels: &mut w
                    .perturbed_rho_at_cells_on_model_levels,
                perturbed_theta_v_at_cells_on_model_levels: &mut w
                    .perturbed_theta_v_at_cells_on_model_levels,
                rho_at_cells_on_half_levels: &mut diagnostic.rho_at_cells_on_half_levels,
                theta_v_at_cells_on_half_levels: &mut diagnostic.theta_v_at_cells_on_half_levels,
                current_rho: &current.rho,
                reference_rho_at_cells_on_model_levels: &self
                    .metric
                    .reference_rho_at_cells_on_model_levels,
                current_theta_v: &current.theta_v,
                reference_theta_at_cells_on_model_levels: &self
                    .metric
                    .reference_theta_at_cells_on_model_levels,
                reference_theta_at_cells_on_half_levels: &self
                    .metric
                    .reference_theta_at_cells_on_half_levels,
                wgtfacq_c: &self.metric.wgtfacq_c,
                wgtfac_c: &self.metric.wgtfac_c,
                exner_w_explicit_weight_parameter: &self.metric.exner_w_explicit_weight_parameter,
                ddz_of_reference_exner_at_cells_on_half_levels: &self
                    .metric
                    .ddz_of_reference_exner_at_cells_on_half_levels,
                ddqz_z_half: &self.metric.ddqz_z_half,
                nonhydro_buoy_at_cells_on_half_levels: &mut w.nonhydro_buoy_at_cells_on_half_levels,
                time_extrapolation_parameter_for_exner: &self
                    .metric
                    .time_extrapolation_parameter_for_exner,
                current_exner: &current.exner,
                reference_exner_at_cells_on_model_levels: &self
                    .metric
                    .reference_exner_at_cells_on_model_levels,
                inv_ddqz_z_full: &self.metric.inv_ddqz_z_full,
                d2dexdz2_fac1_mc: &self.metric.d2dexdz2_fac1_mc,
                d2dexdz2_fac2_mc: &self.metric.d2dexdz2_fac2_mc,
                igradp_method: self.config.igradp_method,
            }
        );
        let w = &mut self.work;
        run!(
            self,
            hydrostatic_correction_term,
            bound::hydrostatic_correction_term::Args {
                theta_v: &current.theta_v,
                ikoffset: &self.metric.vertoffset_gradp,
                zdiff_gradp: &self.metric.zdiff_gradp,
                theta_v_ic: &diagnostic.theta_v_at_cells_on_half_levels,
                inv_ddqz_z_full: &self.metric.inv_ddqz_z_full,
                inv_dual_edge_length: &self.edge.inverse_dual_edge_lengths,
                z_hydro_corr: &mut w.hydrostatic_correction,
            }
        );
        // ICON4Py reads the lowest level of `z_hydro_corr` as an edge field (a view there).
        let nlev = self.vertical.nlev;
        let lowest = self
            .work
            .hydrostatic_correction
            .as_array()
            .index_axis(ndarray::Axis(1), nlev - 1)
            .to_owned();
        self.work
            .hydrostatic_correction_on_lowest_level
            .as_array_mut()
            .assign(&lowest);
        let w = &mut self.work;
        run!(
            self,
            rho_theta_pgrad_and_update_vn,
            bound::rho_theta_pgrad_and_update_vn::Args {
                rho_at_edges_on_model_levels: &mut w.rho_at_edges_on_model_levels,
                theta_v_at_edges_on_model_levels: &mut w.theta_v_at_edges_on_model_levels,
                horizontal_pressure_gradient: &mut w.horizontal_pressure_gradient,
                next_vn: &mut next.vn,
                current_vn: &current.vn,
                tangential_wind: &diagnostic.tangential_wind,
                reference_rho_at_edges_on_model_levels: &self
                    .metric
                    .reference_rho_at_edges_on_model_levels,
                reference_theta_at_edges_on_model_levels: &self
                    .metric
                    .reference_theta_at_edges_on_model_levels,
                perturbed_rho_at_cells_on_model_levels: &w.perturbed_rho_at_cells_on_model_levels,
                perturbed_theta_v_at_cells_on_model_levels: &w
                    .perturbed_theta_v_at_cells_on_model_levels,
                temporal_extrapolation_of_perturbed_exner: &w
                    .temporal_extrapolation_of_perturbed_exner,
                ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: &w
                    .ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
                d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: &w
                    .d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
                hydrostatic_correction_on_lowest_level: &w.hydrostatic_correction_on_lowest_level,
                predictor_normal_wind_advective_tendency: &diagnostic
                    .normal_wind_advective_tendency
                    .predictor,
                normal_wind_tendency_due_to_slow_physics_process: &diagnostic
                    .normal_wind_tendency_due_to_slow_physics_process,
                normal_wind_iau_increment: &diagnostic.normal_wind_iau_increment,
                grf_tend_vn: &diagnostic.grf_tend_vn,
                geofac_grg_x: &self.interpolation.geofac_grg_x,
                geofac_grg_y: &self.interpolation.geofac_grg_y,
                pos_on_tplane_e_x: &self.interpolation.pos_on_tplane_e_1,
                pos_on_tplane_e_y: &self.interpolation.pos_on_tplane_e_2,
                primal_normal_cell_x: &self.edge.primal_normal_cell_x,
                dual_normal_cell_x: &self.edge.dual_normal_cell_x,
                primal_normal_cell_y: &self.edge.primal_normal_cell_y,
                dual_normal_cell_y: &self.edge.dual_normal_cell_y,
                ddxn_z_full: &self.metric.ddxn_z_full,
                c_lin_e: &self.interpolation.c_lin_e,
                ikoffset: &self.metric.vertoffset_gradp,
                zdiff_gradp: &self.metric.zdiff_gradp,
                pg_exdist: &self.metric.pg_exdist,
                inv_dual_edge_length: &self.edge.inverse_dual_edge_lengths,
                dtime,
                is_iau_active: false,
                iau_wgt_dyn: 0.0,
                limited_area: self.config.limited_area,
            }
        );
        let w = &mut self.work;
        run!(
            self,
            horizontal_velocity_quantities_and_fluxes,
            bound::horizontal_velocity_quantities_and_fluxes::Args {
                spatially_averaged_vn: &mut w.spatially_averaged_vn,
                horizontal_gradient_of_normal_wind_divergence: &mut w
                    .horizontal_gradient_of_normal_wind_divergence,
                tangential_wind: &mut diagnostic.tangential_wind,
                mass_flux_at_edges_on_model_levels: &mut diagnostic
                    .mass_flux_at_edges_on_model_levels,
                theta_v_flux_at_edges_on_model_levels: &mut w.theta_v_flux_at_edges_on_model_levels,
                tangential_wind_on_half_levels: &mut w.tangential_wind_on_half_levels,
                vn_on_half_levels: &mut diagnostic.vn_on_half_levels,
                horizontal_kinetic_energy_at_edges_on_model_levels: &mut w
                    .horizontal_kinetic_energy_at_edges_on_model_levels,
                contravariant_correction_at_edges_on_model_levels: &mut w
                    .contravariant_correction_at_edges_on_model_levels,
                vn: &next.vn,
                e_flx_avg: &self.interpolation.e_flx_avg,
                geofac_grdiv: &self.interpolation.geofac_grdiv,
                rbf_vec_coeff_e: &self.interpolation.rbf_vec_coeff_e,
                rho_at_edges_on_model_levels: &w.rho_at_edges_on_model_levels,
                theta_v_at_edges_on_model_levels: &w.theta_v_at_edges_on_model_levels,
                ddqz_z_full_e: &self.metric.ddqz_z_full_e,
                ddxn_z_full: &self.metric.ddxn_z_full,
                ddxt_z_full: &self.metric.ddxt_z_full,
                wgtfac_e: &self.metric.wgtfac_e,
                wgtfacq_e: &self.metric.wgtfacq_e,
            }
        );
        let w = &mut self.work;
        run!(
            self,
            solver_at_predictor_step,
            bound::solver_at_predictor_step::Args {
                contravariant_correction_at_cells_on_half_levels: &mut diagnostic
                    .contravariant_correction_at_cells_on_half_levels,
                next_w: &mut next.w,
                next_rho: &mut next.rho,
                next_exner: &mut next.exner,
                next_theta_v: &mut next.theta_v,
                dwdz_at_cells_on_model_levels: &mut w.dwdz_at_cells_on_model_levels,
                exner_dynamical_increment: &mut diagnostic.exner_dynamical_increment,
                geofac_div: &self.interpolation.geofac_div,
                mass_flux_at_edges_on_model_levels: &diagnostic.mass_flux_at_edges_on_model_levels,
                theta_v_flux_at_edges_on_model_levels: &w.theta_v_flux_at_edges_on_model_levels,
                predictor_vertical_wind_advective_tendency: &diagnostic
                    .vertical_wind_advective_tendency
                    .predictor,
                nonhydro_buoy_at_cells_on_half_levels: &w.nonhydro_buoy_at_cells_on_half_levels,
                rho_at_cells_on_half_levels: &diagnostic.rho_at_cells_on_half_levels,
                contravariant_correction_at_edges_on_model_levels: &w
                    .contravariant_correction_at_edges_on_model_levels,
                exner_w_explicit_weight_parameter: &self.metric.exner_w_explicit_weight_parameter,
                current_exner: &current.exner,
                current_rho: &current.rho,
                current_theta_v: &current.theta_v,
                current_w: &current.w,
                inv_ddqz_z_full: &self.metric.inv_ddqz_z_full,
                exner_w_implicit_weight_parameter: &self.metric.exner_w_implicit_weight_parameter,
                theta_v_at_cells_on_half_levels: &diagnostic.theta_v_at_cells_on_half_levels,
                perturbed_exner_at_cells_on_model_levels: &diagnostic
                    .perturbed_exner_at_cells_on_model_levels,
                exner_tendency_due_to_slow_physics: &diagnostic.exner_tendency_due_to_slow_physics,
                rho_iau_increment: &diagnostic.rho_iau_increment,
                exner_iau_increment: &diagnostic.exner_iau_increment,
                ddqz_z_half: &self.metric.ddqz_z_half,
                rayleigh_damping_factor: &w.rayleigh_damping_factor,
                reference_exner_at_cells_on_model_levels: &self
                    .metric
                    .reference_exner_at_cells_on_model_levels,
                e_bln_c_s: &self.interpolation.e_bln_c_s,
                wgtfac_c: &self.metric.wgtfac_c,
                wgtfacq_c: &self.metric.wgtfacq_c,
                iau_wgt_dyn: 0.0,
                dtime,
                is_iau_active: false,
                rayleigh_type: self.config.rayleigh_type,
                divdamp_type: self.config.divdamp_type,
                at_first_substep: substep.at_first_substep,
            }
        );
        if self.config.limited_area {
            run!(
                self,
                boundary_tendencies,
                bound::boundary_tendencies::Args {
                    rho_now: &current.rho,
                    grf_tend_rho: &diagnostic.grf_tend_rho,
                    theta_v_now: &current.theta_v,
                    grf_tend_thv: &diagnostic.grf_tend_thv,
                    w_now: &current.w,
                    grf_tend_w: &diagnostic.grf_tend_w,
                    rho_new: &mut next.rho,
                    exner_new: &mut next.exner,
                    w_new: &mut next.w,
                    dtime,
                }
            );
            if self.config.divdamp_type >= 3 {
                let w = &mut self.work;
                run!(
                    self,
                    dwdz_for_divergence_damping,
                    bound::dwdz_for_divergence_damping::Args {
                        inv_ddqz_z_full: &self.metric.inv_ddqz_z_full,
                        w: &next.w,
                        w_concorr_c: &diagnostic.contravariant_correction_at_cells_on_half_levels,
                        z_dwdz_dd: &mut w.dwdz_at_cells_on_model_levels,
                    }
                );
            }
        }
        Ok(())
    }

    /// ICON4Py `SolveNonhydro.run_corrector_step`.
    fn run_corrector_step(
        &mut self,
        diagnostic: &mut DiagnosticState,
        current: &PrognosticState,
        next: &mut PrognosticState,
        prep_adv: &mut PrepAdvection,
        substep: &Substep,
    ) -> Result<(), Error> {
        let dtime = substep.dtime;
        let r_nsubsteps = 1.0 / substep.substeps as f64;
        let second_order_divdamp_scaling_coeff =
            substep.second_order_divdamp_factor * self.cell.mean_cell_area;
        self.velocity_advection_corrector(diagnostic, next, dtime)?;
        let w = &mut self.work;
        run!(
            self,
            interpolation_and_nonhydro_buoy,
            bound::interpolation_and_nonhydro_buoy::Args {
                rho_at_cells_on_half_levels: &mut diagnostic.rho_at_cells_on_half_levels,
                theta_v_at_cells_on_half_levels: &mut diagnostic.theta_v_at_cells_on_half_levels,
                nonhydro_buoy_at_cells_on_half_levels: &mut w.nonhydro_buoy_at_cells_on_half_levels,
                w: &next.w,
                contravariant_correction_at_cells_on_half_levels: &diagnostic
                    .contravariant_correction_at_cells_on_half_levels,
                current_rho: &current.rho,
                next_rho: &next.rho,
                current_theta_v: &current.theta_v,
                next_theta_v: &next.theta_v,
                perturbed_exner_at_cells_on_model_levels: &diagnostic
                    .perturbed_exner_at_cells_on_model_levels,
                reference_theta_at_cells_on_model_levels: &self
                    .metric
                    .reference_theta_at_cells_on_model_levels,
                ddz_of_reference_exner_at_cells_on_half_levels: &self
                    .metric
                    .ddz_of_reference_exner_at_cells_on_half_levels,
                ddqz_z_half: &self.metric.ddqz_z_half,
                wgtfac_c: &self.metric.wgtfac_c,
                exner_w_explicit_weight_parameter: &self.metric.exner_w_explicit_weight_parameter,
                dtime,
                rhotheta_explicit_weight_parameter: self.params.rhotheta_explicit_weight_parameter,
                rhotheta_implicit_weight_parameter: self.params.rhotheta_implicit_weight_parameter,
            }
        );
        let order = self.config.divdamp_order;
        let apply_2nd_order_divergence_damping =
            order == 2 || (order == 24 && second_order_divdamp_scaling_coeff > 1.0e-6);
        let apply_4th_order_divergence_damping = order == 4
            || (order == 24
                && substep.second_order_divdamp_factor
                    <= 4.0 * self.config.fourth_order_divdamp_factor[0]);
        let w = &mut self.work;
        run!(
            self,
            divergence_damping_and_update_vn,
            bound::divergence_damping_and_update_vn::Args {
                horizontal_gradient_of_normal_wind_divergence: &w
                    .horizontal_gradient_of_normal_wind_divergence,
                next_vn: &mut next.vn,
                current_vn: &current.vn,
                dwdz_at_cells_on_model_levels: &w.dwdz_at_cells_on_model_levels,
                predictor_normal_wind_advective_tendency: &diagnostic
                    .normal_wind_advective_tendency
                    .predictor,
                corrector_normal_wind_advective_tendency: &diagnostic
                    .normal_wind_advective_tendency
                    .corrector,
                normal_wind_tendency_due_to_slow_physics_process: &diagnostic
                    .normal_wind_tendency_due_to_slow_physics_process,
                normal_wind_iau_increment: &diagnostic.normal_wind_iau_increment,
                second_order_divdamp_scaling_coeff,
                theta_v_at_edges_on_model_levels: &w.theta_v_at_edges_on_model_levels,
                horizontal_pressure_gradient: &w.horizontal_pressure_gradient,
                horizontal_mask_for_3d_divdamp: &self.metric.horizontal_mask_for_3d_divdamp,
                scaling_factor_for_3d_divdamp: &self.metric.scaling_factor_for_3d_divdamp,
                inv_dual_edge_length: &self.edge.inverse_dual_edge_lengths,
                nudgecoeff_e: &self.interpolation.nudgecoeff_e,
                geofac_grdiv: &self.interpolation.geofac_grdiv,
                interpolated_fourth_order_divdamp_factor: &w
                    .interpolated_fourth_order_divdamp_factor,
                advection_explicit_weight_parameter: self
                    .params
                    .advection_explicit_weight_parameter,
                advection_implicit_weight_parameter: self
                    .params
                    .advection_implicit_weight_parameter,
                dtime,
                is_iau_active: false,
                iau_wgt_dyn: 0.0,
                limited_area: self.config.limited_area,
                apply_2nd_order_divergence_damping,
                apply_4th_order_divergence_damping,
                divdamp_order: order,
                second_order_divdamp_factor: substep.second_order_divdamp_factor,
            }
        );
        let w = &mut self.work;
        run!(
            self,
            averaged_vn_and_fluxes,
            bound::averaged_vn_and_fluxes::Args {
                spatially_averaged_vn: &mut w.spatially_averaged_vn,
                mass_flux_at_edges_on_model_levels: &mut diagnostic
                    .mass_flux_at_edges_on_model_levels,
                theta_v_flux_at_edges_on_model_levels: &mut w.theta_v_flux_at_edges_on_model_levels,
                substep_and_spatially_averaged_vn: &mut prep_adv.vn_traj,
                substep_averaged_mass_flux: &mut prep_adv.mass_flx_me,
                e_flx_avg: &self.interpolation.e_flx_avg,
                vn: &next.vn,
                rho_at_edges_on_model_levels: &w.rho_at_edges_on_model_levels,
                ddqz_z_full_e: &self.metric.ddqz_z_full_e,
                theta_v_at_edges_on_model_levels: &w.theta_v_at_edges_on_model_levels,
                prepare_advection: substep.prepare_advection,
                at_first_substep: substep.at_first_substep,
                r_nsubsteps,
            }
        );
        let w = &mut self.work;
        run!(
            self,
            solver_at_corrector_step,
            bound::solver_at_corrector_step::Args {
                next_w: &mut next.w,
                next_rho: &mut next.rho,
                next_exner: &mut next.exner,
                next_theta_v: &mut next.theta_v,
                dynamical_vertical_mass_flux_at_cells_on_half_levels: &mut prep_adv
                    .dynamical_vertical_mass_flux_at_cells_on_half_levels,
                dynamical_vertical_volumetric_flux_at_cells_on_half_levels: &mut prep_adv
                    .dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
                exner_dynamical_increment: &mut diagnostic.exner_dynamical_increment,
                geofac_div: &self.interpolation.geofac_div,
                mass_flux_at_edges_on_model_levels: &diagnostic.mass_flux_at_edges_on_model_levels,
                theta_v_flux_at_edges_on_model_levels: &w.theta_v_flux_at_edges_on_model_levels,
                predictor_vertical_wind_advective_tendency: &diagnostic
                    .vertical_wind_advective_tendency
                    .predictor,
                corrector_vertical_wind_advective_tendency: &diagnostic
                    .vertical_wind_advective_tendency
                    .corrector,
                nonhydro_buoy_at_cells_on_half_levels: &w.nonhydro_buoy_at_cells_on_half_levels,
                rho_at_cells_on_half_levels: &diagnostic.rho_at_cells_on_half_levels,
                contravariant_correction_at_cells_on_half_levels: &diagnostic
                    .contravariant_correction_at_cells_on_half_levels,
                exner_w_explicit_weight_parameter: &self.metric.exner_w_explicit_weight_parameter,
                current_exner: &current.exner,
                current_rho: &current.rho,
                current_theta_v: &current.theta_v,
                current_w: &current.w,
                inv_ddqz_z_full: &self.metric.inv_ddqz_z_full,
                exner_w_implicit_weight_parameter: &self.metric.exner_w_implicit_weight_parameter,
                theta_v_at_cells_on_half_levels: &diagnostic.theta_v_at_cells_on_half_levels,
                perturbed_exner_at_cells_on_model_levels: &diagnostic
                    .perturbed_exner_at_cells_on_model_levels,
                exner_tendency_due_to_slow_physics: &diagnostic.exner_tendency_due_to_slow_physics,
                rho_iau_increment: &diagnostic.rho_iau_increment,
                exner_iau_increment: &diagnostic.exner_iau_increment,
                ddqz_z_half: &self.metric.ddqz_z_half,
                rayleigh_damping_factor: &w.rayleigh_damping_factor,
                reference_exner_at_cells_on_model_levels: &self
                    .metric
                    .reference_exner_at_cells_on_model_levels,
                advection_explicit_weight_parameter: self
                    .params
                    .advection_explicit_weight_parameter,
                advection_implicit_weight_parameter: self
                    .params
                    .advection_implicit_weight_parameter,
                lprep_adv: substep.prepare_advection,
                r_nsubsteps,
                ndyn_substeps_var: substep.substeps as f64,
                iau_wgt_dyn: 0.0,
                dtime,
                is_iau_active: false,
                rayleigh_type: self.config.rayleigh_type,
                at_first_substep: substep.at_first_substep,
                at_last_substep: substep.at_last_substep,
            }
        );
        if self.config.limited_area && substep.prepare_advection {
            if substep.at_first_substep {
                run!(
                    self,
                    zero_mass_flux,
                    bound::zero_mass_flux::Args {
                        field_with_zero_wp: &mut prep_adv
                            .dynamical_vertical_mass_flux_at_cells_on_half_levels,
                    }
                );
            }
            run!(
                self,
                mass_flux_weighted,
                bound::mass_flux_weighted::Args {
                    rho_ic: &diagnostic.rho_at_cells_on_half_levels,
                    vwind_expl_wgt: &self.metric.exner_w_explicit_weight_parameter,
                    vwind_impl_wgt: &self.metric.exner_w_implicit_weight_parameter,
                    w_now: &current.w,
                    w_new: &next.w,
                    w_concorr_c: &diagnostic.contravariant_correction_at_cells_on_half_levels,
                    mass_flx_ic: &mut prep_adv.dynamical_vertical_mass_flux_at_cells_on_half_levels,
                    r_nsubsteps,
                }
            );
        }
        Ok(())
    }
}

/// ICON's `enh_divdamp_fac`: the fourth-order divergence-damping factors interpolated to the
/// full levels, by ICON4Py's `en_smag_fac_for_zero_nshift` (the library computes it in
/// `init_diffusion_local_fields_for_regular_timestep`, whose other outputs are not needed).
fn divdamp_profile(
    profiler: &Profiler,
    options: &Options,
    config: &NonHydrostaticConfig,
    vertical: &VerticalParams,
) -> Result<Field<K, f64>, Error> {
    use diffusion_utils::init_diffusion_local_fields_for_regular_timestep as profile;
    let nlev = vertical.nlev;
    let compiled = profile::compile(options)?;
    let vct_a = k_field(&vertical.vct_a)?;
    let mut unused_multfac = k_field(&vec![0.0; nlev])?;
    let mut unused_limit = k_field(&vec![0.0; nlev])?;
    let mut factor = k_field(&vec![0.0; nlev])?;
    let [fac, fac2, fac3, fac4] = config.fourth_order_divdamp_factor;
    let [z, z2, z3, z4] = config.fourth_order_divdamp_z;
    profiler.time(profile::NAME, Phase::Init, || {
        compiled.call(profile::Args {
            k4: 0.0,
            dyn_substeps: 1.0,
            hdiff_smag_fac: fac,
            hdiff_smag_fac2: fac2,
            hdiff_smag_fac3: fac3,
            hdiff_smag_fac4: fac4,
            hdiff_smag_z: z,
            hdiff_smag_z2: z2,
            hdiff_smag_z3: z3,
            hdiff_smag_z4: z4,
            vect_a: &vct_a,
            diff_multfac_vn: &mut unused_multfac,
            smag_limit: &mut unused_limit,
            enh_smag_fac: &mut factor,
            vertical_start: 0,
            vertical_end: level(nlev)?,
        })
    })?;
    Ok(factor)
}

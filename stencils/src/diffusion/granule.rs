//! The diffusion granule (ICON4Py `Diffusion`, ICON `mo_nh_diffusion`): every program is
//! compiled once at [`Diffusion::init`], with its domain bounds and run constants bound
//! (`super::bound`) and its static arguments fixed from the configuration;
//! [`Diffusion::run`] executes one diffusion step, passing only fields and per-step values.

use std::time::{Duration, Instant};

use gt4rs::debug::DebugChecks;
use gt4rs::grid::{Grid, GridDim, Zone, Zones};
use gt4rs::profiling::{Phase, Profiler};
use gt4rs::{Backend, Connectivities, Error, Field, FieldRef, Layout, Options};

use super::bound;
use super::config::{DiffusionConfig, DiffusionParams, TurbulenceShearForcing};
use super::halo::{HaloExchange, SingleRank};
use super::state::{
    k_field, zeros, zeros_in, CellParams, DiagnosticState, DiagnosticViews, EdgeParams,
    InterpolationState, MetricState, PrognosticState, PrognosticViews,
};
use super::steep_spans::{steep_spans, SteepSpan};
use super::vertical::{rd_o_cvd, VerticalGrid};
use crate::icon::dims::{Cell, Edge, Vertex, C2E, C2E2C, C2E2CO, E2C, E2C2V, K, V2E};
use crate::icon::dsl::diffusion as diffusion_dsl;
use crate::icon::dsl::diffusion_utils as utils;

/// ICON's threshold of the temperature deviation from the neighbours (K) that enables extra
/// diffusion against runaway cooling in cold pools.
const THRESH_TDIFF: f64 = -5.0;

/// How the granule runs: backend, debug checks and whether the profiler keeps a trace. Its
/// programs' other options come from the file `GT4RS_CONFIG` names, if set.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOptions {
    pub backend: Backend,
    pub debug: DebugChecks,
    /// Keep every timed event for [`Profiler::write_chrome_trace`].
    pub trace: bool,
}

impl RunOptions {
    /// `backend`, with the debug checks of `GT4RS_DEBUG` (off when unset).
    pub fn new(backend: Backend) -> Result<Self, Error> {
        Ok(RunOptions {
            backend,
            debug: DebugChecks::from_env()?,
            trace: false,
        })
    }
}

/// Index bounds of the horizontal domains of the step (ICON4Py's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub cell_start_interior: i32,
    pub cell_start_nudging: i32,
    pub cell_end_local: i32,
    pub cell_end_halo: i32,
    pub cell_start_w_diffusion: i32,
    pub edge_start_nudging_plus_one: i32,
    pub edge_start_nudging: i32,
    pub edge_start_lb_plus4: i32,
    pub edge_end_local: i32,
    /// End of ∇²vn and the Smagorinsky coefficient: ICON's `end_index(local - 2)` covers two
    /// halo rows of edges; here the owned edges, whose results are exchanged (the same on one
    /// rank).
    pub edge_end_local_minus2: i32,
    pub edge_end_halo: i32,
    /// The first edge with two cells (ICON's `lateral_boundary + 1`).
    pub edge_start_lb_plus1: i32,
    pub vertex_start_lb_plus1: i32,
    pub vertex_end_local: i32,
}

impl Bounds {
    fn of(zones: &Zones, limited_area: bool) -> Result<Self, Error> {
        let idx = |v: usize| {
            i32::try_from(v).map_err(|_| Error::Config(format!("grid index {v} exceeds i32")))
        };
        let range = |dim: GridDim, zone| zones.of(dim).range(dim, zone);
        let start = |dim, zone| range(dim, zone).and_then(|r| idx(r.0));
        let end = |dim, zone| range(dim, zone).and_then(|r| idx(r.1));
        let cs = |z| start(GridDim::Cell, z);
        let ce = |z| end(GridDim::Cell, z);
        let es = |z| start(GridDim::Edge, z);
        let ee = |z| end(GridDim::Edge, z);
        Ok(Bounds {
            cell_start_interior: cs(Zone::Interior)?,
            cell_start_nudging: cs(Zone::Nudging)?,
            cell_end_local: ce(Zone::Local)?,
            cell_end_halo: ce(Zone::Halo)?,
            cell_start_w_diffusion: if limited_area {
                cs(Zone::Nudging)?
            } else {
                cs(Zone::Interior)?
            },
            edge_start_nudging_plus_one: es(Zone::NudgingLevel2)?,
            edge_start_nudging: es(Zone::Nudging)?,
            edge_start_lb_plus4: es(Zone::LateralBoundaryLevel5)?,
            edge_end_local: ee(Zone::Local)?,
            edge_end_local_minus2: ee(Zone::Local)?,
            edge_end_halo: ee(Zone::Halo)?,
            edge_start_lb_plus1: es(Zone::LateralBoundaryLevel2)?,
            vertex_start_lb_plus1: start(GridDim::Vertex, Zone::LateralBoundaryLevel2)?,
            vertex_end_local: end(GridDim::Vertex, Zone::Local)?,
        })
    }
}

/// Compiles `$module` with `$options` (and the values to bind, for a `super::bound` module),
/// timed as its init under the program's name.
macro_rules! compile {
    ($profiler:expr, $options:expr, $($module:ident)::+ $(, $bound:expr)?) => {{
        let start = Instant::now();
        let compiled = $($module)::+::compile($options $(, $bound)?)?;
        $profiler.record($($module)::+::NAME, Phase::Init, start, start.elapsed());
        compiled
    }};
}

/// The compiled programs, one handle each; those with domains have their bounds and
/// granule-constant scalars bound (`super::bound`).
struct Programs {
    scale_k: utils::scale_k::Compiled,
    setup_fields_for_initial_step: utils::setup_fields_for_initial_step::Compiled,
    copy_field: utils::copy_field::Compiled,
    rbf_vertex: bound::rbf_vertex::Compiled,
    nabla2_and_smag: bound::nabla2_and_smag::Compiled,
    turbulence_diagnostics: bound::turbulence_diagnostics::Compiled,
    apply_to_vn: bound::apply_to_vn::Compiled,
    apply_to_w: bound::apply_to_w::Compiled,
    cold_pools: bound::cold_pools::Compiled,
    nabla2_for_theta: bound::nabla2_for_theta::Compiled,
    nabla2_for_z: bound::nabla2_for_z::Compiled,
    nabla2_of_theta: bound::nabla2_of_theta::Compiled,
    /// Called once per span of steep columns, with the span's domain.
    zdiffusion:
        diffusion_dsl::truly_horizontal_diffusion_nabla_of_theta_over_steep_points::Compiled,
    update_theta_and_exner: bound::update_theta_and_exner::Compiled,
}

/// The values the granule fixes for a whole run, bound into its programs at init.
struct Constants {
    nudgezone_diff: f64,
    fac_bdydiff_v: f64,
    diff_multfac_w: f64,
    rd_o_cvd: f64,
    /// ICON's 1-based, inclusive damping-layer bound.
    nrdmax: i32,
    nlev: i32,
}

impl Programs {
    /// Compiles every program of a step once, binding the domain bounds of `b` and the
    /// `constants`.
    fn compile(
        profiler: &Profiler,
        o: &Options,
        b: &Bounds,
        constants: &Constants,
    ) -> Result<Self, Error> {
        let nlev = constants.nlev;
        Ok(Programs {
            scale_k: compile!(profiler, o, utils::scale_k),
            setup_fields_for_initial_step: compile!(
                profiler,
                o,
                utils::setup_fields_for_initial_step
            ),
            copy_field: compile!(profiler, o, utils::copy_field),
            rbf_vertex: compile!(
                profiler,
                o,
                bound::rbf_vertex,
                bound::rbf_vertex::Bound {
                    horizontal_start: b.vertex_start_lb_plus1,
                    horizontal_end: b.vertex_end_local,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            nabla2_and_smag: compile!(
                profiler,
                o,
                bound::nabla2_and_smag,
                bound::nabla2_and_smag::Bound {
                    horizontal_start: b.edge_start_lb_plus4,
                    horizontal_end: b.edge_end_local_minus2,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            turbulence_diagnostics: compile!(
                profiler,
                o,
                bound::turbulence_diagnostics,
                bound::turbulence_diagnostics::Bound {
                    horizontal_start: b.cell_start_nudging,
                    horizontal_end: b.cell_end_local,
                    vertical_start: 1,
                    vertical_end: nlev,
                }
            ),
            apply_to_vn: compile!(
                profiler,
                o,
                bound::apply_to_vn,
                bound::apply_to_vn::Bound {
                    nudgezone_diff: constants.nudgezone_diff,
                    fac_bdydiff_v: constants.fac_bdydiff_v,
                    start_2nd_nudge_line_idx_e: b.edge_start_nudging_plus_one,
                    horizontal_start: b.edge_start_lb_plus4,
                    horizontal_end: b.edge_end_local,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            apply_to_w: compile!(
                profiler,
                o,
                bound::apply_to_w,
                bound::apply_to_w::Bound {
                    diff_multfac_w: constants.diff_multfac_w,
                    nrdmax: constants.nrdmax,
                    interior_idx: b.cell_start_interior,
                    halo_idx: b.cell_end_local,
                    horizontal_start: b.cell_start_w_diffusion,
                    horizontal_end: b.cell_end_halo,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            cold_pools: compile!(
                profiler,
                o,
                bound::cold_pools,
                bound::cold_pools::Bound {
                    thresh_tdiff: THRESH_TDIFF,
                    smallest_vpfloat: f64::EPSILON,
                    horizontal_start: b.edge_start_nudging,
                    horizontal_end: b.edge_end_halo,
                    vertical_start: nlev - 2,
                    vertical_end: nlev,
                }
            ),
            nabla2_for_theta: compile!(
                profiler,
                o,
                bound::nabla2_for_theta,
                bound::nabla2_for_theta::Bound {
                    horizontal_start: b.cell_start_nudging,
                    horizontal_end: b.cell_end_local,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            nabla2_for_z: compile!(
                profiler,
                o,
                bound::nabla2_for_z,
                bound::nabla2_for_z::Bound {
                    horizontal_start: b.edge_start_lb_plus1,
                    horizontal_end: b.edge_end_local,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            nabla2_of_theta: compile!(
                profiler,
                o,
                bound::nabla2_of_theta,
                bound::nabla2_of_theta::Bound {
                    horizontal_start: b.cell_start_nudging,
                    horizontal_end: b.cell_end_local,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
            zdiffusion: compile!(
                profiler,
                o,
                diffusion_dsl::truly_horizontal_diffusion_nabla_of_theta_over_steep_points
            ),
            update_theta_and_exner: compile!(
                profiler,
                o,
                bound::update_theta_and_exner,
                bound::update_theta_and_exner::Bound {
                    rd_o_cvd: constants.rd_o_cvd,
                    horizontal_start: b.cell_start_nudging,
                    horizontal_end: b.cell_end_local,
                    vertical_start: 0,
                    vertical_end: nlev,
                }
            ),
        })
    }
}

/// One program call of a step: timed under `$name`, then each named output checked
/// (`GT4RS_DEBUG`) and the step's progress reported under the same name.
macro_rules! step_call {
    (
        $self:ident, $step:expr, $name:expr, $call:expr,
        [$($output:literal => $field:expr),* $(,)?]
    ) => {{
        let name = $name;
        let start = Instant::now();
        let result = $call;
        let took = start.elapsed();
        $self.profiler.record(name, Phase::Run, start, took);
        $self.time_in_programs += took;
        result?;
        $( $self.debug.check_view(name, $output, $field)?; )*
        $self.debug.progress($step, name);
    }};
}

/// A halo exchange of `$dim` fields, timed under its own name (one per dimension) and kept
/// apart from the programs' time.
macro_rules! exchange {
    ($self:ident, $dim:expr, [$($field:expr),+ $(,)?]) => {{
        let dim = $dim;
        let start = Instant::now();
        let result = $self.halo.exchange_and_wait(dim, &mut [$($field.as_array_mut()),+]);
        let took = start.elapsed();
        $self.profiler.record(exchange_timer(dim), Phase::Run, start, took);
        $self.time_in_exchanges += took;
        result?;
    }};
}

/// The profiler's name of the exchanges of one dimension.
pub fn exchange_timer(dim: GridDim) -> &'static str {
    match dim {
        GridDim::Cell => "halo exchange (cells)",
        GridDim::Edge => "halo exchange (edges)",
        GridDim::Vertex => "halo exchange (vertices)",
    }
}

/// What the vertex reconstruction reads: the prognostic vn, or the granule's own ∇²vn.
enum Input<'a> {
    Vn(FieldRef<'a, (Edge, K), f64>),
    Nabla2,
}

/// The diffusion granule.
pub struct Diffusion {
    config: DiffusionConfig,
    params: DiffusionParams,
    nlev: usize,
    bounds: Bounds,
    interpolation: InterpolationState,
    metric: MetricState,
    /// Where the truly horizontal θ diffusion runs.
    zdiffusion_spans: Vec<SteepSpan>,
    edge: EdgeParams,
    cell: CellParams,
    programs: Programs,
    halo: Box<dyn HaloExchange>,
    profiler: Profiler,
    debug: DebugChecks,
    /// Steps run so far (for progress lines).
    steps: usize,
    /// Time spent in the programs and in halo exchanges since init.
    time_in_programs: Duration,
    time_in_exchanges: Duration,

    bdy_diff: f64,
    smag_offset: f64,

    diff_multfac_vn: Field<K, f64>,
    smag_limit: Field<K, f64>,
    enh_smag_fac: Field<K, f64>,
    diff_multfac_n2w: Field<K, f64>,
    diff_multfac_smag: Field<K, f64>,
    initial_diff_multfac_vn: Field<K, f64>,
    initial_smag_limit: Field<K, f64>,
    u_vert: Field<(Vertex, K), f64>,
    v_vert: Field<(Vertex, K), f64>,
    kh_smag_e: Field<(Edge, K), f64>,
    kh_smag_ec: Field<(Edge, K), f64>,
    z_nabla2_e: Field<(Edge, K), f64>,
    z_temp: Field<(Cell, K), f64>,
    w_tmp: Field<(Cell, K), f64>,
}

/// The neighbour tables the granule's programs use.
/// The horizontal grid as the granule needs it: sizes, the neighbour tables of its programs,
/// the zones its domains come from, and the memory order of the fields it allocates itself
/// (the model's order, so that every program of a step sees one layout).
#[derive(Clone, Debug)]
pub struct GranuleGrid {
    pub num_cells: usize,
    pub num_edges: usize,
    pub num_vertices: usize,
    pub connectivities: Connectivities,
    pub zones: Zones,
    pub layout: Layout,
}

impl GranuleGrid {
    /// From a whole [`Grid`], with gt4rs's default layout.
    pub fn of(grid: &Grid) -> Result<Self, Error> {
        Ok(GranuleGrid {
            num_cells: grid.num_cells,
            num_edges: grid.num_edges,
            num_vertices: grid.num_vertices,
            connectivities: connectivities(grid)?,
            zones: grid.zones.clone(),
            layout: Layout::default(),
        })
    }
}

pub fn connectivities(grid: &Grid) -> Result<Connectivities, Error> {
    Ok(Connectivities::new()
        .with(&grid.connectivity::<V2E>()?)
        .with(&grid.connectivity::<E2C2V>()?)
        .with(&grid.connectivity::<C2E>()?)
        .with(&grid.connectivity::<E2C>()?)
        .with(&grid.connectivity::<C2E2CO>()?)
        .with(&grid.connectivity::<C2E2C>()?))
}

impl Diffusion {
    /// Steps 1-2 and 6-7: RBF reconstruction of an edge-normal field at the vertices
    /// (`u_vert`, `v_vert`), checks, and the vertex exchange.
    fn reconstruct_at_vertices(&mut self, step: usize, input: Input<'_>) -> Result<(), Error> {
        let p_e_in = match input {
            Input::Vn(vn) => vn,
            Input::Nabla2 => self.z_nabla2_e.view(),
        };
        step_call!(
            self,
            step,
            bound::rbf_vertex::NAME,
            self.programs.rbf_vertex.call_views(bound::rbf_vertex::Views {
                p_e_in,
                ptr_coeff_1: self.interpolation.rbf_coeff_1.view(),
                ptr_coeff_2: self.interpolation.rbf_coeff_2.view(),
                p_u_out: self.u_vert.view_mut(),
                p_v_out: self.v_vert.view_mut(),
            }),
            ["u_vert" => self.u_vert.view(), "v_vert" => self.v_vert.view()]
        );
        exchange!(self, GridDim::Vertex, [self.u_vert, self.v_vert]);
        Ok(())
    }

    /// Sets the granule up on `grid` and `vertical` (ICON4Py `Diffusion.init`): derives the
    /// constants, compiles every program once, and computes the K fields of the regular step.
    #[allow(clippy::too_many_arguments)]
    pub fn init(
        grid: &Grid,
        vertical: &VerticalGrid,
        config: DiffusionConfig,
        metric: MetricState,
        interpolation: InterpolationState,
        edge: EdgeParams,
        cell: CellParams,
        options: RunOptions,
    ) -> Result<Self, Error> {
        let grid = GranuleGrid::of(grid)?;
        Self::init_on(
            &grid,
            vertical,
            config,
            metric,
            interpolation,
            edge,
            cell,
            options,
        )
    }

    /// [`init`](Self::init) on a grid given by its tables and zones (a model's grid, from
    /// ICON's arrays), allocating the granule's own fields in `grid.layout`.
    #[allow(clippy::too_many_arguments)]
    pub fn init_on(
        grid: &GranuleGrid,
        vertical: &VerticalGrid,
        config: DiffusionConfig,
        metric: MetricState,
        interpolation: InterpolationState,
        edge: EdgeParams,
        cell: CellParams,
        options: RunOptions,
    ) -> Result<Self, Error> {
        config.validate()?;
        let params = DiffusionParams::new(&config);
        let nlev = vertical.nlev;
        // The fields are public: a hand-built grid may disagree with its own level count.
        if vertical.vct_a.len() != nlev + 1 {
            return Err(Error::Config(format!(
                "the vertical grid has {} half levels; {nlev} levels need {}",
                vertical.vct_a.len(),
                nlev + 1
            )));
        }
        let profiler = Profiler::new(options.trace);
        // An options file (`GT4RS_CONFIG`) tunes the programs as it would any program's; the
        // backend stays the one asked for.
        let compile_options = Options::new(options.backend)
            .with_config_from_env()?
            .with_connectivities(grid.connectivities.clone());
        let o = &compile_options;
        let substeps = config.substeps();
        let nudgezone_diff = 0.04 / (params.scaled_nudge_max_coeff + f64::EPSILON);
        let bdy_diff = 0.015 / (params.scaled_nudge_max_coeff + f64::EPSILON);
        let fac_bdydiff_v = if config.lhdiff_rcf {
            substeps.sqrt() / config.velocity_boundary_diffusion_denominator
        } else {
            1.0 / config.velocity_boundary_diffusion_denominator
        };
        let smag_offset = 0.25 * params.k4 * substeps;
        let diff_multfac_w = (1.0 / 48.0_f64).min(params.k4w * substeps);

        let nlev_i32 =
            i32::try_from(nlev).map_err(|_| Error::Config(format!("{nlev} levels exceed i32")))?;
        let mut diff_multfac_vn = zeros(&[nlev])?;
        let mut smag_limit = zeros(&[nlev])?;
        let mut enh_smag_fac = zeros(&[nlev])?;
        let vct_a = k_field(&vertical.vct_a)?;
        let [fac, fac2, fac3, fac4] = params.smagorinski_factor;
        let [z, z2, z3, z4] = params.smagorinski_height;
        let regular = compile!(
            profiler,
            o,
            utils::init_diffusion_local_fields_for_regular_timestep
        );
        profiler.time(
            utils::init_diffusion_local_fields_for_regular_timestep::NAME,
            Phase::Init,
            || {
                regular.call(
                    utils::init_diffusion_local_fields_for_regular_timestep::Args {
                        k4: params.k4,
                        dyn_substeps: substeps,
                        hdiff_smag_fac: fac,
                        hdiff_smag_fac2: fac2,
                        hdiff_smag_fac3: fac3,
                        hdiff_smag_fac4: fac4,
                        hdiff_smag_z: z,
                        hdiff_smag_z2: z2,
                        hdiff_smag_z3: z3,
                        hdiff_smag_z4: z4,
                        vect_a: &vct_a,
                        diff_multfac_vn: &mut diff_multfac_vn,
                        smag_limit: &mut smag_limit,
                        enh_smag_fac: &mut enh_smag_fac,
                        vertical_start: 0,
                        vertical_end: nlev_i32,
                    },
                )
            },
        )?;

        let nrdmax = vertical.nrdmax;
        if nrdmax + 1 > nlev {
            return Err(Error::Config(format!(
                "the damping layer (nrdmax = {nrdmax}) must lie above the lowest level ({nlev} levels)"
            )));
        }
        let mut diff_multfac_n2w = zeros(&[nlev])?;
        let n2w = compile!(profiler, o, utils::init_nabla2_factor_in_upper_damping_zone);
        profiler.time(
            utils::init_nabla2_factor_in_upper_damping_zone::NAME,
            Phase::Init,
            || {
                n2w.call(utils::init_nabla2_factor_in_upper_damping_zone::Args {
                    physical_heights: &vct_a,
                    nrdmax: nrdmax as i32,
                    heights_nrd_shift: vertical.vct_a[nrdmax + 1],
                    heights_1: vertical.vct_a[1],
                    diff_multfac_n2w: &mut diff_multfac_n2w,
                    vertical_start: 0,
                    vertical_end: nlev_i32,
                })
            },
        )?;

        let bounds = Bounds::of(&grid.zones, config.limited_area)?;
        let zdiffusion_spans =
            steep_spans(&metric, (bounds.cell_start_nudging, bounds.cell_end_local));
        let constants = Constants {
            nudgezone_diff,
            fac_bdydiff_v,
            diff_multfac_w,
            rd_o_cvd: rd_o_cvd(),
            // ICON's nrdmax counts from 1 and includes its bound.
            nrdmax: nrdmax as i32 + 1,
            nlev: nlev_i32,
        };
        // The static arguments are fixed by the configuration: a call with another value is
        // an error, and the CUDA backend compiles the value into the kernel.
        let static_options = compile_options
            .clone()
            .with_static_arg(
                bound::apply_to_vn::NAME,
                "limited_area",
                config.limited_area,
            )
            .with_static_arg(
                bound::apply_to_w::NAME,
                "type_shear",
                config.shear_type as i32,
            );
        let programs = Programs::compile(&profiler, &static_options, &bounds, &constants)?;

        let (nc, ne, nv) = (grid.num_cells, grid.num_edges, grid.num_vertices);
        Ok(Diffusion {
            bounds,
            config,
            params,
            nlev,
            interpolation,
            metric,
            zdiffusion_spans,
            edge,
            cell,
            programs,
            halo: Box::new(SingleRank),
            profiler,
            debug: options.debug,
            steps: 0,
            time_in_programs: Duration::ZERO,
            time_in_exchanges: Duration::ZERO,
            bdy_diff,
            smag_offset,
            diff_multfac_vn,
            smag_limit,
            enh_smag_fac,
            diff_multfac_n2w,
            diff_multfac_smag: zeros(&[nlev])?,
            initial_diff_multfac_vn: zeros(&[nlev])?,
            initial_smag_limit: zeros(&[nlev])?,
            u_vert: zeros_in(&[nv, nlev], grid.layout)?,
            v_vert: zeros_in(&[nv, nlev], grid.layout)?,
            kh_smag_e: zeros_in(&[ne, nlev], grid.layout)?,
            kh_smag_ec: zeros_in(&[ne, nlev], grid.layout)?,
            z_nabla2_e: zeros_in(&[ne, nlev], grid.layout)?,
            z_temp: zeros_in(&[nc, nlev], grid.layout)?,
            w_tmp: zeros_in(&[nc, nlev + 1], grid.layout)?,
        })
    }

    /// Replaces the halo exchange (default: [`SingleRank`]).
    pub fn with_halo_exchange(mut self, halo: Box<dyn HaloExchange>) -> Self {
        self.halo = halo;
        self
    }

    pub fn config(&self) -> &DiffusionConfig {
        &self.config
    }
    pub fn params(&self) -> &DiffusionParams {
        &self.params
    }
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }
    /// Per-program init and run times.
    pub fn profiler(&self) -> &Profiler {
        &self.profiler
    }
    /// Time spent in the programs and in halo exchanges by the steps run so far.
    pub fn time_split(&self) -> (Duration, Duration) {
        (self.time_in_programs, self.time_in_exchanges)
    }
    /// What the halo exchange has sent so far.
    pub fn exchange_stats(&self) -> super::halo::ExchangeStats {
        self.halo.stats()
    }
    /// `bdy_diff`, ICON's boundary diffusion factor of θ on limited-area grids.
    pub fn bdy_diff(&self) -> f64 {
        self.bdy_diff
    }
    /// The K fields of the regular step: `(diff_multfac_vn, smag_limit, enh_smag_fac,
    /// diff_multfac_n2w)`.
    pub fn k_fields(&self) -> [&Field<K, f64>; 4] {
        [
            &self.diff_multfac_vn,
            &self.smag_limit,
            &self.enh_smag_fac,
            &self.diff_multfac_n2w,
        ]
    }
    /// The metric fields the granule reads.
    pub fn metric(&self) -> &MetricState {
        &self.metric
    }
    /// The runs of cells and their levels the truly horizontal θ diffusion runs over, one call
    /// each (none where no point is steep).
    pub fn zdiffusion_spans(&self) -> &[SteepSpan] {
        &self.zdiffusion_spans
    }

    /// Whether the truly horizontal θ diffusion runs: configured and the terrain has steep
    /// points.
    pub fn zdiffusion_active(&self) -> bool {
        self.config.apply_zdiffusion_t && self.metric.zdiffusion.is_some()
    }

    /// The first step of a run (ICON's `linit`): a stronger ∇⁴ background and no Smagorinsky
    /// offset, then an exchange of the cell fields.
    pub fn initial_run(
        &mut self,
        dtime: f64,
        prognostic: &mut PrognosticState,
        diagnostic: &mut DiagnosticState,
    ) -> Result<(), Error> {
        self.initial_run_views(dtime, &mut prognostic.views(), &mut diagnostic.views())
    }

    /// One diffusion step of the regular time loop.
    pub fn run(
        &mut self,
        dtime: f64,
        prognostic: &mut PrognosticState,
        diagnostic: &mut DiagnosticState,
    ) -> Result<(), Error> {
        self.run_views(dtime, &mut prognostic.views(), &mut diagnostic.views())
    }

    /// [`initial_run`](Self::initial_run) on views: the state in memory the caller owns (a
    /// Fortran model's arrays), updated in place.
    pub fn initial_run_views(
        &mut self,
        dtime: f64,
        prognostic: &mut PrognosticViews<'_>,
        diagnostic: &mut DiagnosticViews<'_>,
    ) -> Result<(), Error> {
        step_call!(
            self,
            self.steps,
            utils::setup_fields_for_initial_step::NAME,
            self.programs.setup_fields_for_initial_step.call(
                utils::setup_fields_for_initial_step::Args {
                    k4: self.params.k4,
                    hdiff_efdt_ratio: self.config.hdiff_efdt_ratio,
                    diff_multfac_vn: &mut self.initial_diff_multfac_vn,
                    smag_limit: &mut self.initial_smag_limit,
                }
            ),
            [
                "diff_multfac_vn" => self.initial_diff_multfac_vn.view(),
                "smag_limit" => self.initial_smag_limit.view(),
            ]
        );
        self.step(dtime, prognostic, diagnostic, true)?;
        self.sync_cell_fields(prognostic)
    }

    /// [`run`](Self::run) on views: the state in memory the caller owns, updated in place.
    pub fn run_views(
        &mut self,
        dtime: f64,
        prognostic: &mut PrognosticViews<'_>,
        diagnostic: &mut DiagnosticViews<'_>,
    ) -> Result<(), Error> {
        self.step(dtime, prognostic, diagnostic, false)?;
        // ICON's condition: with lhdiff_rcf the physics that follows exchanges these fields.
        if !self.config.lhdiff_rcf || !self.config.physics_forcing {
            self.sync_cell_fields(prognostic)?;
        }
        Ok(())
    }

    fn sync_cell_fields(&mut self, prognostic: &mut PrognosticViews<'_>) -> Result<(), Error> {
        exchange!(
            self,
            GridDim::Cell,
            [prognostic.w, prognostic.theta_v, prognostic.exner]
        );
        Ok(())
    }

    fn check_shapes(
        &self,
        prognostic: &PrognosticViews<'_>,
        diagnostic: &DiagnosticViews<'_>,
    ) -> Result<(), Error> {
        let (nc, ne, nlev) = (
            self.cell.area.shape()[0],
            self.edge.edge_areas.shape()[0],
            self.nlev,
        );
        let expect = |name: &str, shape: &[usize], want: [usize; 2]| {
            if shape == want {
                Ok(())
            } else {
                Err(Error::Shape(format!(
                    "diffusion: `{name}` has shape {shape:?}, the granule needs {want:?}"
                )))
            }
        };
        expect("vn", prognostic.vn.shape(), [ne, nlev])?;
        expect("w", prognostic.w.shape(), [nc, nlev + 1])?;
        expect("theta_v", prognostic.theta_v.shape(), [nc, nlev])?;
        expect("exner", prognostic.exner.shape(), [nc, nlev])?;
        for (name, f) in [
            ("hdef_ic", &diagnostic.hdef_ic),
            ("div_ic", &diagnostic.div_ic),
            ("dwdx", &diagnostic.dwdx),
            ("dwdy", &diagnostic.dwdy),
        ] {
            expect(name, f.shape(), [nc, nlev + 1])?;
        }
        Ok(())
    }

    /// ICON4Py `_do_diffusion_step`, in its order.
    fn step(
        &mut self,
        dtime: f64,
        prognostic: &mut PrognosticViews<'_>,
        diagnostic: &mut DiagnosticViews<'_>,
        initial: bool,
    ) -> Result<(), Error> {
        self.check_shapes(prognostic, diagnostic)?;
        let step = self.steps;

        // The Smagorinsky factor depends on dtime.
        step_call!(
            self,
            step,
            utils::scale_k::NAME,
            self.programs.scale_k.call(utils::scale_k::Args {
                field: &self.enh_smag_fac,
                factor: dtime,
                scaled_field: &mut self.diff_multfac_smag,
            }),
            ["diff_multfac_smag" => self.diff_multfac_smag.view()]
        );

        // 1-2. RBF reconstruction of the full wind at vertices, then their exchange.
        self.reconstruct_at_vertices(step, Input::Vn(prognostic.vn.as_ref()))?;
        // The initial step uses its own K fields and no Smagorinsky offset.
        let smag_limit = if initial {
            self.initial_smag_limit.view()
        } else {
            self.smag_limit.view()
        };
        let smag_offset = if initial { 0.0 } else { self.smag_offset };

        // 3. ∇²vn and the Smagorinsky coefficient.
        step_call!(
            self,
            step,
            bound::nabla2_and_smag::NAME,
            self.programs
                .nabla2_and_smag
                .call_views(bound::nabla2_and_smag::Views {
                    diff_multfac_smag: self.diff_multfac_smag.view(),
                    tangent_orientation: self.edge.tangent_orientation.view(),
                    inv_primal_edge_length: self.edge.inverse_primal_edge_lengths.view(),
                    inv_vert_vert_length: self.edge.inverse_vertex_vertex_lengths.view(),
                    u_vert: self.u_vert.view(),
                    v_vert: self.v_vert.view(),
                    primal_normal_vert_x: self.edge.primal_normal_vert_x.view(),
                    primal_normal_vert_y: self.edge.primal_normal_vert_y.view(),
                    dual_normal_vert_x: self.edge.dual_normal_vert_x.view(),
                    dual_normal_vert_y: self.edge.dual_normal_vert_y.view(),
                    vn: prognostic.vn.as_ref(),
                    smag_limit,
                    kh_smag_e: self.kh_smag_e.view_mut(),
                    kh_smag_ec: self.kh_smag_ec.view_mut(),
                    z_nabla2_e: self.z_nabla2_e.view_mut(),
                    smag_offset,
                }),
            [
                "kh_smag_e" => self.kh_smag_e.view(),
                "kh_smag_ec" => self.kh_smag_ec.view(),
                "z_nabla2_e" => self.z_nabla2_e.view(),
            ]
        );

        // 5 (before 4). Exchange the edge fields read across the halo: ∇²vn (the second RBF
        // reconstruction at every vertex of an owned edge), the Smagorinsky coefficient (cold
        // pools on the first halo row, then ∇²θ on a global grid) and, for the turbulence
        // diagnostics, its value at cells. ICON computes these on two halo rows of edges
        // instead and exchanges ∇²vn only for itype_vn_diffu > 1; here the program runs on
        // owned edges only, so that the halo never needs a third row.
        let turbulence = self.config.shear_type as i32
            >= TurbulenceShearForcing::VerticalHorizontalOfHorizontalWind as i32;
        let theta_reads_kh = self.config.apply_to_temperature && !self.config.limited_area;
        match (theta_reads_kh, turbulence) {
            (true, true) => exchange!(
                self,
                GridDim::Edge,
                [self.z_nabla2_e, self.kh_smag_e, self.kh_smag_ec]
            ),
            (true, false) => exchange!(self, GridDim::Edge, [self.z_nabla2_e, self.kh_smag_e]),
            (false, true) => exchange!(self, GridDim::Edge, [self.z_nabla2_e, self.kh_smag_ec]),
            (false, false) => exchange!(self, GridDim::Edge, [self.z_nabla2_e]),
        }

        // 4. Turbulence diagnostics (shear types with horizontal shear only).
        if turbulence {
            step_call!(
                self,
                step,
                bound::turbulence_diagnostics::NAME,
                self.programs
                    .turbulence_diagnostics
                    .call_views(bound::turbulence_diagnostics::Views {
                        kh_smag_ec: self.kh_smag_ec.view(),
                        vn: prognostic.vn.as_ref(),
                        e_bln_c_s: self.interpolation.e_bln_c_s.view(),
                        geofac_div: self.interpolation.geofac_div.view(),
                        diff_multfac_smag: self.diff_multfac_smag.view(),
                        wgtfac_c: self.metric.wgtfac_c.view(),
                        div_ic: diagnostic.div_ic.reborrow(),
                        hdef_ic: diagnostic.hdef_ic.reborrow(),
                    }),
                ["div_ic" => diagnostic.div_ic.as_ref(), "hdef_ic" => diagnostic.hdef_ic.as_ref()]
            );
        }

        // 6-7. RBF reconstruction of ∇²vn at vertices, then their exchange.
        self.reconstruct_at_vertices(step, Input::Nabla2)?;
        let diff_multfac_vn = if initial {
            self.initial_diff_multfac_vn.view()
        } else {
            self.diff_multfac_vn.view()
        };

        // 8-9. The vn update: ∇² Smagorinsky and ∇⁴ background diffusion (∇⁴ fused inside).
        step_call!(
            self,
            step,
            bound::apply_to_vn::NAME,
            self.programs.apply_to_vn.call_views(bound::apply_to_vn::Views {
                u_vert: self.u_vert.view(),
                v_vert: self.v_vert.view(),
                primal_normal_vert_v1: self.edge.primal_normal_vert_x.view(),
                primal_normal_vert_v2: self.edge.primal_normal_vert_y.view(),
                z_nabla2_e: self.z_nabla2_e.view(),
                inv_vert_vert_length: self.edge.inverse_vertex_vertex_lengths.view(),
                inv_primal_edge_length: self.edge.inverse_primal_edge_lengths.view(),
                area_edge: self.edge.edge_areas.view(),
                kh_smag_e: self.kh_smag_e.view(),
                diff_multfac_vn,
                nudgecoeff_e: self.interpolation.nudgecoeff_e.view(),
                vn: prognostic.vn.reborrow(),
                limited_area: self.config.limited_area,
            }),
            ["vn" => prognostic.vn.as_ref()]
        );

        // 10. w: ∇⁴ everywhere, extra ∇² in the damping layer, and the w gradients.
        if self.config.apply_to_vertical_wind {
            step_call!(
                self,
                step,
                utils::copy_field::NAME,
                self.programs.copy_field.call_views(utils::copy_field::Views {
                    old_f: prognostic.w.as_ref(),
                    new_f: self.w_tmp.view_mut(),
                }),
                ["w_tmp" => self.w_tmp.view()]
            );

            step_call!(
                self,
                step,
                bound::apply_to_w::NAME,
                self.programs.apply_to_w.call_views(bound::apply_to_w::Views {
                    area: self.cell.area.view(),
                    geofac_n2s: self.interpolation.geofac_n2s.view(),
                    geofac_grg_x: self.interpolation.geofac_grg_x.view(),
                    geofac_grg_y: self.interpolation.geofac_grg_y.view(),
                    w_old: self.w_tmp.view(),
                    w: prognostic.w.reborrow(),
                    type_shear: self.config.shear_type as i32,
                    dwdx: diagnostic.dwdx.reborrow(),
                    dwdy: diagnostic.dwdy.reborrow(),
                    diff_multfac_n2w: self.diff_multfac_n2w.view(),
                }),
                [
                    "w" => prognostic.w.as_ref(),
                    "dwdx" => diagnostic.dwdx.as_ref(),
                    "dwdy" => diagnostic.dwdy.as_ref(),
                ]
            );
        }

        if self.config.apply_to_temperature {
            // 11. Cold pools: more diffusion where a cell is much colder than its neighbours.
            step_call!(
                self,
                step,
                bound::cold_pools::NAME,
                self.programs.cold_pools.call_views(bound::cold_pools::Views {
                    theta_v: prognostic.theta_v.as_ref(),
                    theta_ref_mc: self.metric.theta_ref_mc.view(),
                    kh_smag_e: self.kh_smag_e.view_mut(),
                }),
                ["kh_smag_e" => self.kh_smag_e.view()]
            );

            // 12. ∇²θ. On a limited-area grid the edge part runs on its own, from the first
            // edge with two cells: the fused program would evaluate the edge gradient on the
            // outermost edges, which have one cell only.
            if self.config.limited_area {
                step_call!(
                    self,
                    step,
                    bound::nabla2_for_z::NAME,
                    self.programs.nabla2_for_z.call_views(bound::nabla2_for_z::Views {
                        kh_smag_e: self.kh_smag_e.view(),
                        inv_dual_edge_length: self.edge.inverse_dual_edge_lengths.view(),
                        theta_v: prognostic.theta_v.as_ref(),
                        z_nabla2_e: self.z_nabla2_e.view_mut(),
                    }),
                    ["z_nabla2_e" => self.z_nabla2_e.view()]
                );
                // ICON computes this gradient on the first halo row of edges too; its
                // outermost edges have one cell only, which a rank's halo may hold anywhere in
                // its numbering, so the owned edges compute and exchange.
                exchange!(self, GridDim::Edge, [self.z_nabla2_e]);
                step_call!(
                    self,
                    step,
                    bound::nabla2_of_theta::NAME,
                    self.programs
                        .nabla2_of_theta
                        .call_views(bound::nabla2_of_theta::Views {
                            z_nabla2_e: self.z_nabla2_e.view(),
                            geofac_div: self.interpolation.geofac_div.view(),
                            z_temp: self.z_temp.view_mut(),
                        }),
                    ["z_temp" => self.z_temp.view()]
                );
            } else {
                step_call!(
                    self,
                    step,
                    bound::nabla2_for_theta::NAME,
                    self.programs
                        .nabla2_for_theta
                        .call_views(bound::nabla2_for_theta::Views {
                            kh_smag_e: self.kh_smag_e.view(),
                            inv_dual_edge_length: self.edge.inverse_dual_edge_lengths.view(),
                            theta_v: prognostic.theta_v.as_ref(),
                            geofac_div: self.interpolation.geofac_div.view(),
                            z_temp: self.z_temp.view_mut(),
                        }),
                    ["z_temp" => self.z_temp.view()]
                );
            }

            // 13. Truly horizontal diffusion over steep points.
            if let (true, Some(zd)) = (self.config.apply_zdiffusion_t, &self.metric.zdiffusion) {
                use diffusion_dsl::truly_horizontal_diffusion_nabla_of_theta_over_steep_points as zdiffusion;
                // ICON's loop over the steep points: one call per span, timed as one.
                step_call!(
                    self,
                    step,
                    zdiffusion::NAME,
                    self.zdiffusion_spans.iter().try_for_each(|span| {
                        self.programs.zdiffusion.call_views(zdiffusion::Views {
                            zd_vertoffset: zd.zd_vertoffset.view(),
                            zd_diffcoef: zd.zd_diffcoef.view(),
                            geofac_n2s_c: self.interpolation.geofac_n2s_c.view(),
                            geofac_n2s_nbh: self.interpolation.geofac_n2s_nbh.view(),
                            vcoef: zd.zd_intcoef.view(),
                            theta_v: prognostic.theta_v.as_ref(),
                            z_temp: self.z_temp.view_mut(),
                            horizontal_start: span.cells.0,
                            horizontal_end: span.cells.1,
                            vertical_start: span.levels.0,
                            vertical_end: span.levels.1,
                        })
                    }),
                    ["z_temp" => self.z_temp.view()]
                );
            }

            // 14. θ_v and exner.
            step_call!(
                self,
                step,
                bound::update_theta_and_exner::NAME,
                self.programs
                    .update_theta_and_exner
                    .call_views(bound::update_theta_and_exner::Views {
                        z_temp: self.z_temp.view(),
                        area: self.cell.area.view(),
                        theta_v: prognostic.theta_v.reborrow(),
                        exner: prognostic.exner.reborrow(),
                    }),
                [
                    "theta_v" => prognostic.theta_v.as_ref(),
                    "exner" => prognostic.exner.as_ref(),
                ]
            );
        }

        // 15. ICON starts the vn exchange after the vn update and waits here.
        exchange!(self, GridDim::Edge, [prognostic.vn]);
        self.steps += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use gt4rs::grid::IcosahedralGrid;

    use super::*;

    /// A vertical grid whose half levels disagree with its level count is a configuration
    /// error, not an index out of bounds.
    #[test]
    fn half_levels_that_disagree_with_the_level_count_are_an_error() {
        use crate::diffusion::initial::diffusion_over;
        use crate::diffusion::terrain::{Terrain, TerrainKind};
        let grid = IcosahedralGrid::generate(2, 2).expect("R2B2 generates");
        let mut vertical = VerticalGrid::default_for(5).expect("5 levels");
        let terrain = Terrain::of_kind(TerrainKind::Flat, &grid, &vertical).expect("terrain");
        vertical.vct_a.pop();
        let options = RunOptions::new(Backend::Cpu).expect("options");
        let result = diffusion_over(
            &grid,
            &vertical,
            &terrain,
            DiffusionConfig::default(),
            options,
        );
        let message = result.err().expect("a short vct_a").to_string();
        assert!(message.contains("half levels"), "{message}");
    }

    /// The truly horizontal θ diffusion over its spans of steep columns gives the steps one
    /// call over every cell and level gives (elsewhere it adds 0): fails where a span misses a
    /// steep point.
    #[test]
    fn steps_over_the_steep_spans_equal_steps_over_every_cell() {
        use crate::diffusion::initial::{diffusion_over, jet_state_over, JetSpec};
        use crate::diffusion::terrain::{Terrain, TerrainKind};
        let grid = IcosahedralGrid::generate(2, 4).expect("R2B4 generates");
        let vertical = VerticalGrid::default_for(65).expect("65 levels");
        let terrain = Terrain::of_kind(TerrainKind::Mountains, &grid, &vertical).expect("terrain");
        let granule = || {
            let options = RunOptions::new(Backend::Cpu).expect("options");
            diffusion_over(
                &grid,
                &vertical,
                &terrain,
                DiffusionConfig::default(),
                options,
            )
            .expect("a granule")
        };
        let ((mut spans, mut spans_diagnostic), (mut whole, mut whole_diagnostic)) =
            (granule(), granule());
        let every_point = SteepSpan {
            cells: (whole.bounds.cell_start_nudging, whole.bounds.cell_end_local),
            levels: (0, whole.nlev as i32),
        };
        let spanned: usize = spans.zdiffusion_spans().iter().map(SteepSpan::points).sum();
        assert!(
            spans.zdiffusion_spans().len() > 1 && spanned * 20 < every_point.points(),
            "the mountains' steep columns make several small spans: {:?}",
            spans.zdiffusion_spans()
        );
        whole.zdiffusion_spans = vec![every_point];
        let state =
            jet_state_over(&grid, &vertical, &terrain, &JetSpec::default()).expect("a state");
        // The initial step and two regular ones.
        let steps = |granule: &mut Diffusion, diagnostic: &mut DiagnosticState| {
            let mut prognostic = state.clone();
            granule
                .initial_run(300.0, &mut prognostic, diagnostic)
                .expect("runs");
            for _ in 0..2 {
                granule
                    .run(300.0, &mut prognostic, diagnostic)
                    .expect("runs");
            }
            prognostic
        };
        let over_spans = steps(&mut spans, &mut spans_diagnostic);
        let over_all = steps(&mut whole, &mut whole_diagnostic);
        assert!(
            over_spans == over_all,
            "the steps over the steep spans differ from those over every cell"
        );
    }

    /// A bound program compiled with `limited_area` fixed rejects a call with the other value
    /// before it touches any field, and names the parameter.
    #[test]
    fn static_argument_fixed_at_compile_rejects_another_value() {
        let grid = IcosahedralGrid::generate(2, 2).expect("R2B2 generates");
        let (ne, nv, nlev) = (grid.num_edges, grid.num_vertices, 3);
        let options = Options::new(Backend::Cpu)
            .with_connectivities(connectivities(&grid).expect("connectivities"))
            .with_static_arg(bound::apply_to_vn::NAME, "limited_area", false);
        let program = bound::apply_to_vn::compile(
            &options,
            bound::apply_to_vn::Bound {
                nudgezone_diff: 0.5,
                fac_bdydiff_v: 0.25,
                start_2nd_nudge_line_idx_e: 0,
                horizontal_start: 0,
                horizontal_end: ne as i32,
                vertical_start: 0,
                vertical_end: nlev as i32,
            },
        )
        .expect("compiles");
        let vertex_k: Field<(Vertex, K), f64> = zeros(&[nv, nlev]).expect("field");
        let edge_e2c2v: Field<(Edge, E2C2V), f64> = zeros(&[ne, 4]).expect("field");
        let edge_k: Field<(Edge, K), f64> = zeros(&[ne, nlev]).expect("field");
        let edge: Field<Edge, f64> = zeros(&[ne]).expect("field");
        let k: Field<K, f64> = zeros(&[nlev]).expect("field");
        let mut vn: Field<(Edge, K), f64> = zeros(&[ne, nlev]).expect("field");
        vn.as_array_mut().fill(f64::NAN);
        let result = program.call(bound::apply_to_vn::Args {
            u_vert: &vertex_k,
            v_vert: &vertex_k,
            primal_normal_vert_v1: &edge_e2c2v,
            primal_normal_vert_v2: &edge_e2c2v,
            z_nabla2_e: &edge_k,
            inv_vert_vert_length: &edge,
            inv_primal_edge_length: &edge,
            area_edge: &edge,
            kh_smag_e: &edge_k,
            diff_multfac_vn: &k,
            nudgecoeff_e: &edge,
            vn: &mut vn,
            limited_area: true,
        });
        let message = result.expect_err("an unlisted static value").to_string();
        assert!(message.contains("limited_area"), "{message}");
        assert!(
            vn.as_array().iter().all(|v| v.is_nan()),
            "a rejected call wrote vn"
        );
    }
}

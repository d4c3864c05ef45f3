//! The diffusion granule as ICON calls it: [`grid_init`] (ICON's neighbour tables, zone
//! indices and geometry), [`diffusion_init`] (configuration, vertical grid, metric and
//! interpolation fields) and [`diffusion_run`] (the model's prognostic and diagnostic arrays,
//! updated in place), plus [`finalize`].
//!
//! Init converts what stays fixed for a run once: the 1-based tables into gt4rs tables, the
//! zone indices into domains, and the constant fields into the granule's own fields, K
//! contiguous (the granule keeps them between calls; the model may free its arrays after
//! init). A step never copies: `diffusion_run` runs on views of the model's arrays.
//!
//! The granule lives on the thread that initialised it (ICON calls the dynamical core from one
//! thread; the programs run in parallel inside): a call from another thread is refused.

use std::cell::RefCell;
use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::Instant;

use gt4rs::ffi::icon::{zero_based, Nblks, Neighbours, Nproma, TableSpec};
use gt4rs::ffi::{Failure, Status};
use gt4rs::field::Scalar;
use gt4rs::grid::{DimZones, GridDim, Zones};
use gt4rs::{Connectivities, Connectivity, Dims, Field, FieldMut, FieldRef, Layout, Offset};
use gt4rs_stencils::diffusion::{
    CellParams, DiagnosticState, DiagnosticViews, Diffusion, DiffusionConfig, DiffusionType,
    EdgeParams, GranuleGrid, InterpolationState, MetricState, PrognosticViews, RunOptions,
    TurbulenceShearForcing, VerticalGrid, ZDiffusionFields,
};
use gt4rs_stencils::icon::dims::{Cell, Edge, Vertex, C2E, C2E2C, C2E2CO, E2C, E2C2V, K, V2E};

use crate::{RefinLevel, Step};

/// The memory order of the fields the granule allocates and copies at init: gt4rs's, K
/// contiguous, which its CPU kernels run fastest. The model's state stays in the model's
/// order. Measured (`cargo bench -p gt4rs-icon --bench layouts`, docs/performance.md): with the
/// state in ICON's order a step takes 1.26-1.47x the all-gt4rs step this way, 1.79-1.94x with
/// every field in ICON's order.
const OWN_LAYOUT: Layout = Layout::LastContiguous;

/// The horizontal grid from `grid_init`.
struct IconGrid {
    grid: GranuleGrid,
    edge: EdgeParams,
    cell: CellParams,
}

/// The granule from `diffusion_init`, with diagnostics to use where the model passes none.
struct Granule {
    diffusion: Diffusion,
    nlev: usize,
    diagnostic: DiagnosticState,
}

#[derive(Default)]
struct State {
    grid: Option<IconGrid>,
    granule: Option<Granule>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// The thread holding the granule, for the message of a call from another one.
static OWNER: Mutex<Option<ThreadId>> = Mutex::new(None);

fn not_initialised(function: &str, what: &str) -> Failure {
    let here = std::thread::current().id();
    let owner = OWNER.lock().map(|o| *o).unwrap_or(None);
    let message = match owner {
        Some(owner) if owner != here => format!(
            "{function}: called on another thread than the one that ran grid_init ({owner:?}, this is {here:?}); the granule lives on that thread"
        ),
        _ => format!("{function}: called before {what}"),
    };
    Failure::new(Status::NotInitialised, message)
}

fn config_error(function: &str, message: String) -> Failure {
    Failure::new(Status::Config, format!("{function}: {message}"))
}

/// The gt4rs table of `O` from ICON's `idx`/`blk` pair.
fn table<O: Offset>(
    idx: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    blk: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    rows: usize,
    target: usize,
) -> Result<Connectivity<O>, Failure> {
    let spec = TableSpec {
        function: "grid_init",
        offset: O::NAME,
        rows: rows as i64,
        neighbours: O::COUNT,
        target_size: target as i64,
        skip_values: O::SKIP_VALUES,
    };
    let entries = zero_based(spec, idx, blk)?;
    Ok(Connectivity::from_vec(entries, rows, target)?)
}

/// A copy of the first `rows` points (along the first dimension) of a model's array, in the
/// granule's order.
fn owned<D: Dims, T: Scalar>(
    function: &str,
    name: &str,
    view: FieldRef<'_, D, T>,
    rows: usize,
) -> Result<Field<D, T>, Failure> {
    let mut shape = vec![0usize; D::RANK];
    let view = view
        .narrow(0, 0..rows as i64, &mut shape)
        .map_err(|e| gt4rs::ffi::bad_view(function, name, e))?;
    let domain: Vec<std::ops::Range<i64>> = view.shape().iter().map(|&n| 0..n as i64).collect();
    let mut field = Field::filled(&domain, T::default(), OWN_LAYOUT)?;
    field.as_array_mut().assign(&view.as_array());
    Ok(field)
}

/// Checks that an array has `want` along its dimensions after the first (levels, neighbours).
fn expect_inner(
    function: &str,
    name: &str,
    shape: &[usize],
    want: &[usize],
) -> Result<(), Failure> {
    if &shape[1..] != want {
        return Err(Failure::new(
            Status::Shape,
            format!("{function}: `{name}` has sizes {shape:?}; after the points it needs {want:?}"),
        ));
    }
    Ok(())
}

/// ICON's `grid_init`: the neighbour tables (`idx`/`blk`, 1-based, `(nproma, nblks, n)`: cells'
/// edges and neighbours, edges' cells and four vertices, vertices' edges), the start and end
/// indices of the zones (1-based, `(min_rl:max_rl)` as ICON stores them), the edge and cell
/// geometry (`(nproma)`, `(nproma, 4)`), the numbers of points and whether the grid is a
/// limited area. Converted once; a second call is an error until `finalize`.
#[gt4rs::export_c_fn(gt4rs_icon)]
#[allow(clippy::too_many_arguments)]
pub fn grid_init(
    c2e_idx: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    c2e_blk: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    e2c_idx: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    e2c_blk: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    c2e2c_idx: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    c2e2c_blk: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    v2e_idx: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    v2e_blk: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    e2c2v_idx: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    e2c2v_blk: FieldRef<'_, (Nproma, Nblks, Neighbours), i32>,
    cell_start_index: FieldRef<'_, RefinLevel, i32>,
    cell_end_index: FieldRef<'_, RefinLevel, i32>,
    edge_start_index: FieldRef<'_, RefinLevel, i32>,
    edge_end_index: FieldRef<'_, RefinLevel, i32>,
    vertex_start_index: FieldRef<'_, RefinLevel, i32>,
    vertex_end_index: FieldRef<'_, RefinLevel, i32>,
    tangent_orientation: FieldRef<'_, Edge, f64>,
    inverse_primal_edge_lengths: FieldRef<'_, Edge, f64>,
    inverse_dual_edge_lengths: FieldRef<'_, Edge, f64>,
    inverse_vertex_vertex_lengths: FieldRef<'_, Edge, f64>,
    edge_areas: FieldRef<'_, Edge, f64>,
    primal_normal_vert_x: FieldRef<'_, (Edge, E2C2V), f64>,
    primal_normal_vert_y: FieldRef<'_, (Edge, E2C2V), f64>,
    dual_normal_vert_x: FieldRef<'_, (Edge, E2C2V), f64>,
    dual_normal_vert_y: FieldRef<'_, (Edge, E2C2V), f64>,
    cell_areas: FieldRef<'_, Cell, f64>,
    num_cells: i32,
    num_edges: i32,
    num_vertices: i32,
) -> Result<(), Failure> {
    const F: &str = "grid_init";
    let count =
        |n: i32, what: &str| usize::try_from(n).map_err(|_| config_error(F, format!("{n} {what}")));
    let (nc, ne, nv) = (
        count(num_cells, "cells")?,
        count(num_edges, "edges")?,
        count(num_vertices, "vertices")?,
    );
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        if state.grid.is_some() {
            return Err(Failure::new(
                Status::AlreadyInitialised,
                format!("{F}: the grid is initialised already (call finalize first)"),
            ));
        }
        let zones = |dim,
                     start: FieldRef<'_, RefinLevel, i32>,
                     end: FieldRef<'_, RefinLevel, i32>,
                     size| {
            let (start, end): (Vec<i32>, Vec<i32>) = (
                start.as_array().iter().copied().collect(),
                end.as_array().iter().copied().collect(),
            );
            DimZones::from_icon_indices(dim, &start, &end, size).map_err(Failure::from)
        };
        let zones = Zones {
            cell: zones(GridDim::Cell, cell_start_index, cell_end_index, nc)?,
            edge: zones(GridDim::Edge, edge_start_index, edge_end_index, ne)?,
            vertex: zones(GridDim::Vertex, vertex_start_index, vertex_end_index, nv)?,
        };
        let c2e2c = table::<C2E2C>(c2e2c_idx, c2e2c_blk, nc, nc)?;
        // ICON4Py's C2E2CO: the cell itself, then its neighbours.
        let c2e2co: Vec<i32> = c2e2c
            .as_slice()
            .chunks(3)
            .enumerate()
            .flat_map(|(c, n)| [c as i32, n[0], n[1], n[2]])
            .collect();
        let connectivities = Connectivities::new()
            .with(&table::<V2E>(v2e_idx, v2e_blk, nv, ne)?)
            .with(&table::<E2C2V>(e2c2v_idx, e2c2v_blk, ne, nv)?)
            .with(&table::<C2E>(c2e_idx, c2e_blk, nc, ne)?)
            .with(&table::<E2C>(e2c_idx, e2c_blk, ne, nc)?)
            .with(&Connectivity::<C2E2CO>::from_vec(c2e2co, nc, nc)?)
            .with(&c2e2c);
        for (name, view) in [
            ("primal_normal_vert_x", primal_normal_vert_x),
            ("primal_normal_vert_y", primal_normal_vert_y),
            ("dual_normal_vert_x", dual_normal_vert_x),
            ("dual_normal_vert_y", dual_normal_vert_y),
        ] {
            expect_inner(F, name, view.shape(), &[4])?;
        }
        let edge = EdgeParams {
            tangent_orientation: owned(F, "tangent_orientation", tangent_orientation, ne)?,
            inverse_primal_edge_lengths: owned(
                F,
                "inverse_primal_edge_lengths",
                inverse_primal_edge_lengths,
                ne,
            )?,
            inverse_dual_edge_lengths: owned(
                F,
                "inverse_dual_edge_lengths",
                inverse_dual_edge_lengths,
                ne,
            )?,
            inverse_vertex_vertex_lengths: owned(
                F,
                "inverse_vertex_vertex_lengths",
                inverse_vertex_vertex_lengths,
                ne,
            )?,
            primal_normal_vert_x: owned(F, "primal_normal_vert_x", primal_normal_vert_x, ne)?,
            primal_normal_vert_y: owned(F, "primal_normal_vert_y", primal_normal_vert_y, ne)?,
            dual_normal_vert_x: owned(F, "dual_normal_vert_x", dual_normal_vert_x, ne)?,
            dual_normal_vert_y: owned(F, "dual_normal_vert_y", dual_normal_vert_y, ne)?,
            edge_areas: owned(F, "edge_areas", edge_areas, ne)?,
        };
        let cell = CellParams {
            area: owned(F, "cell_areas", cell_areas, nc)?,
        };
        state.grid = Some(IconGrid {
            grid: GranuleGrid {
                num_cells: nc,
                num_edges: ne,
                num_vertices: nv,
                connectivities,
                zones,
                layout: OWN_LAYOUT,
            },
            edge,
            cell,
        });
        if let Ok(mut owner) = OWNER.lock() {
            *owner = Some(std::thread::current().id());
        }
        Ok(())
    })
}

/// An enum from ICON's integer, or a configuration error naming it.
fn from_code<T: Copy>(
    function: &str,
    name: &str,
    code: i32,
    values: &[(i32, T)],
) -> Result<T, Failure> {
    values
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            config_error(
                function,
                format!(
                    "{name} = {code} is not one of {:?}",
                    values.iter().map(|(c, _)| c).collect::<Vec<_>>()
                ),
            )
        })
}

/// ICON's `diffusion_init`: the half-level heights `vct_a` (top down, nlev + 1) and the
/// Rayleigh damping height, the metric fields (`theta_ref_mc`, `wgtfac_c` on half levels,
/// and, where the terrain has steep points, the four `zd_*` fields of the truly horizontal
/// temperature diffusion, absent otherwise; `zd_vertoffset` relative to the level as in
/// ICON4Py), the interpolation coefficients, the `diffusion_nml` settings and the backend
/// (GT4RS_BACKEND_*). Needs `grid_init` first; a second call is an error until `finalize`.
#[gt4rs::export_c_fn(gt4rs_icon)]
#[allow(clippy::too_many_arguments)]
pub fn diffusion_init(
    vct_a: FieldRef<'_, K, f64>,
    rayleigh_damping_height: f64,
    theta_ref_mc: FieldRef<'_, (Cell, K), f64>,
    wgtfac_c: FieldRef<'_, (Cell, K), f64>,
    e_bln_c_s: FieldRef<'_, (Cell, C2E), f64>,
    geofac_div: FieldRef<'_, (Cell, C2E), f64>,
    geofac_grg_x: FieldRef<'_, (Cell, C2E2CO), f64>,
    geofac_grg_y: FieldRef<'_, (Cell, C2E2CO), f64>,
    geofac_n2s: FieldRef<'_, (Cell, C2E2CO), f64>,
    nudgecoeff_e: FieldRef<'_, Edge, f64>,
    rbf_coeff_1: FieldRef<'_, (Vertex, V2E), f64>,
    rbf_coeff_2: FieldRef<'_, (Vertex, V2E), f64>,
    mask_hdiff: Option<FieldRef<'_, (Cell, K), bool>>,
    zd_diffcoef: Option<FieldRef<'_, (Cell, K), f64>>,
    zd_vertoffset: Option<FieldRef<'_, (Cell, C2E2C, K), i32>>,
    zd_intcoef: Option<FieldRef<'_, (Cell, C2E2C, K), f64>>,
    ndyn_substeps: i32,
    diffusion_type: i32,
    hdiff_w: bool,
    hdiff_vn: bool,
    hdiff_temp: bool,
    zdiffu_t: bool,
    type_t_diffu: i32,
    type_vn_diffu: i32,
    hdiff_efdt_ratio: f64,
    hdiff_w_efdt_ratio: f64,
    smagorinski_scaling_factor: f64,
    thslp_zdiffu: f64,
    thhgtd_zdiffu: f64,
    denom_diffu_v: f64,
    denom_diffu_t: f64,
    nudge_max_coeff: f64,
    nudge_efold_width: f64,
    itype_sher: i32,
    lhdiff_rcf: bool,
    physics_forcing: bool,
    limited_area: bool,
    backend: i32,
) -> Result<(), Failure> {
    const F: &str = "diffusion_init";
    let backend = gt4rs::ffi::backend(F, backend)?;
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        if state.granule.is_some() {
            return Err(Failure::new(
                Status::AlreadyInitialised,
                format!("{F}: the granule is initialised already (call finalize first)"),
            ));
        }
        let Some(icon) = &state.grid else {
            return Err(not_initialised(F, "grid_init"));
        };
        let (nc, ne, nv) = (icon.grid.num_cells, icon.grid.num_edges, icon.grid.num_vertices);
        let vct_a: Vec<f64> = vct_a.as_array().iter().copied().collect();
        let vertical = VerticalGrid::from_vct_a(vct_a, rayleigh_damping_height)?;
        let nlev = vertical.nlev;
        let config = DiffusionConfig {
            diffusion_type: from_code(F, "diffusion_type", diffusion_type, &[
                (-1, DiffusionType::NoDiffusion),
                (2, DiffusionType::Linear2ndOrder),
                (3, DiffusionType::SmagorinskyNoBackground),
                (4, DiffusionType::Linear4thOrder),
                (5, DiffusionType::Smagorinsky4thOrder),
            ])?,
            apply_to_vertical_wind: hdiff_w,
            apply_to_horizontal_wind: hdiff_vn,
            apply_to_temperature: hdiff_temp,
            type_vn_diffu,
            type_t_diffu,
            hdiff_efdt_ratio,
            hdiff_w_efdt_ratio,
            smagorinski_scaling_factor,
            ndyn_substeps: u32::try_from(ndyn_substeps)
                .map_err(|_| config_error(F, format!("ndyn_substeps = {ndyn_substeps}")))?,
            apply_zdiffusion_t: zdiffu_t,
            thslp_zdiffu,
            thhgtd_zdiffu,
            lhdiff_rcf,
            physics_forcing,
            velocity_boundary_diffusion_denominator: denom_diffu_v,
            temperature_boundary_diffusion_denominator: denom_diffu_t,
            nudge_max_coeff,
            nudge_efold_width,
            shear_type: from_code(F, "itype_sher", itype_sher, &[
                (0, TurbulenceShearForcing::VerticalOfHorizontalWind),
                (1, TurbulenceShearForcing::VerticalHorizontalOfHorizontalWind),
                (2, TurbulenceShearForcing::VerticalHorizontalOfHorizontalVerticalWind),
                (3, TurbulenceShearForcing::VerticalHorizontalOfHorizontalWindLthesh),
            ])?,
            limited_area,
        };
        expect_inner(F, "theta_ref_mc", theta_ref_mc.shape(), &[nlev])?;
        expect_inner(F, "wgtfac_c", wgtfac_c.shape(), &[nlev + 1])?;
        let zdiffusion = match (mask_hdiff, zd_diffcoef, zd_vertoffset, zd_intcoef) {
            (Some(mask), Some(diffcoef), Some(vertoffset), Some(intcoef)) => {
                expect_inner(F, "mask_hdiff", mask.shape(), &[nlev])?;
                expect_inner(F, "zd_diffcoef", diffcoef.shape(), &[nlev])?;
                expect_inner(F, "zd_vertoffset", vertoffset.shape(), &[3, nlev])?;
                expect_inner(F, "zd_intcoef", intcoef.shape(), &[3, nlev])?;
                Some(ZDiffusionFields {
                    mask_hdiff: owned(F, "mask_hdiff", mask, nc)?,
                    zd_vertoffset: owned(F, "zd_vertoffset", vertoffset, nc)?,
                    zd_diffcoef: owned(F, "zd_diffcoef", diffcoef, nc)?,
                    zd_intcoef: owned(F, "zd_intcoef", intcoef, nc)?,
                })
            }
            (None, None, None, None) => None,
            _ => {
                return Err(config_error(
                    F,
                    "mask_hdiff, zd_diffcoef, zd_vertoffset and zd_intcoef come together (steep points) or not at all".into(),
                ))
            }
        };
        let metric = MetricState {
            wgtfac_c: owned(F, "wgtfac_c", wgtfac_c, nc)?,
            theta_ref_mc: owned(F, "theta_ref_mc", theta_ref_mc, nc)?,
            zdiffusion,
        };
        for (name, shape, want) in [
            ("e_bln_c_s", e_bln_c_s.shape(), 3),
            ("geofac_div", geofac_div.shape(), 3),
            ("geofac_grg_x", geofac_grg_x.shape(), 4),
            ("geofac_grg_y", geofac_grg_y.shape(), 4),
            ("geofac_n2s", geofac_n2s.shape(), 4),
            ("rbf_coeff_1", rbf_coeff_1.shape(), 6),
            ("rbf_coeff_2", rbf_coeff_2.shape(), 6),
        ] {
            expect_inner(F, name, shape, &[want])?;
        }
        let geofac_n2s = owned(F, "geofac_n2s", geofac_n2s, nc)?;
        let n2s = geofac_n2s.as_array();
        let geofac_n2s_c = Field::from_fn(&[0..nc as i64], OWN_LAYOUT, |i| n2s[[i[0] as usize, 0]])?;
        let geofac_n2s_nbh = Field::from_fn(&[0..nc as i64, 0..3], OWN_LAYOUT, |i| n2s[[i[0] as usize, i[1] as usize + 1]])?;
        let interpolation = InterpolationState {
            e_bln_c_s: owned(F, "e_bln_c_s", e_bln_c_s, nc)?,
            rbf_coeff_1: owned(F, "rbf_coeff_1", rbf_coeff_1, nv)?,
            rbf_coeff_2: owned(F, "rbf_coeff_2", rbf_coeff_2, nv)?,
            geofac_div: owned(F, "geofac_div", geofac_div, nc)?,
            geofac_grg_x: owned(F, "geofac_grg_x", geofac_grg_x, nc)?,
            geofac_grg_y: owned(F, "geofac_grg_y", geofac_grg_y, nc)?,
            nudgecoeff_e: owned(F, "nudgecoeff_e", nudgecoeff_e, ne)?,
            geofac_n2s_c,
            geofac_n2s_nbh,
            geofac_n2s,
        };
        let options = RunOptions::new(backend)?;
        let diffusion = Diffusion::init_on(
            &icon.grid,
            &vertical,
            config,
            metric,
            interpolation,
            icon.edge.clone(),
            icon.cell.clone(),
            options,
        )?;
        let diagnostic = DiagnosticState::zeros(nc, nlev)?;
        state.granule = Some(Granule {
            diffusion,
            nlev,
            diagnostic,
        });
        Ok(())
    })
}

/// The model's diagnostic array narrowed to the grid's cells, or the granule's own.
fn diagnostic_view<'a>(
    function: &str,
    name: &str,
    given: Option<FieldMut<'a, (Cell, K), f64>>,
    own: FieldMut<'a, (Cell, K), f64>,
    cells: i64,
    shape: &'a mut [usize; 2],
) -> Result<FieldMut<'a, (Cell, K), f64>, Failure> {
    match given {
        Some(view) => view
            .narrow(0, 0..cells, shape)
            .map_err(|e| gt4rs::ffi::bad_view(function, name, e)),
        None => Ok(own),
    }
}

/// Runs `body` with the granule and the model's state as views of the grid's points (the
/// model's arrays may be longer: `nproma` rows).
#[allow(clippy::too_many_arguments)]
fn with_state(
    function: &str,
    w: FieldMut<'_, (Cell, K), f64>,
    vn: FieldMut<'_, (Edge, K), f64>,
    exner: FieldMut<'_, (Cell, K), f64>,
    theta_v: FieldMut<'_, (Cell, K), f64>,
    diagnostics: [Option<FieldMut<'_, (Cell, K), f64>>; 4],
    body: impl FnOnce(
        &mut Diffusion,
        &mut PrognosticViews<'_>,
        &mut DiagnosticViews<'_>,
    ) -> Result<(), Failure>,
) -> Result<(), Failure> {
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        let State { grid, granule } = &mut *state;
        let (Some(icon), Some(granule)) = (grid.as_ref(), granule.as_mut()) else {
            return Err(not_initialised(function, "grid_init and diffusion_init"));
        };
        let (nc, ne) = (icon.grid.num_cells as i64, icon.grid.num_edges as i64);
        let bad = |name: &'static str| move |e| gt4rs::ffi::bad_view(function, name, e);
        let mut shapes = [[0usize; 2]; 8];
        let [s_w, s_vn, s_exner, s_theta, s_hdef, s_div, s_dwdx, s_dwdy] = &mut shapes;
        let mut prognostic = PrognosticViews {
            w: w.narrow(0, 0..nc, s_w).map_err(bad("w"))?,
            vn: vn.narrow(0, 0..ne, s_vn).map_err(bad("vn"))?,
            exner: exner.narrow(0, 0..nc, s_exner).map_err(bad("exner"))?,
            theta_v: theta_v.narrow(0, 0..nc, s_theta).map_err(bad("theta_v"))?,
        };
        let Granule {
            diffusion,
            diagnostic,
            ..
        } = granule;
        let own = diagnostic.views();
        let [hdef_ic, div_ic, dwdx, dwdy] = diagnostics;
        let mut diagnostic = DiagnosticViews {
            hdef_ic: diagnostic_view(function, "hdef_ic", hdef_ic, own.hdef_ic, nc, s_hdef)?,
            div_ic: diagnostic_view(function, "div_ic", div_ic, own.div_ic, nc, s_div)?,
            dwdx: diagnostic_view(function, "dwdx", dwdx, own.dwdx, nc, s_dwdx)?,
            dwdy: diagnostic_view(function, "dwdy", dwdy, own.dwdy, nc, s_dwdy)?,
        };
        body(diffusion, &mut prognostic, &mut diagnostic)
    })
}

/// ICON's `diffusion_run`: one diffusion step on the model's arrays, in place: `w` on half
/// levels, `vn`, `exner`, `theta_v` (each `(nproma, nlev[+1])`, the first points used), the
/// turbulence diagnostics on half levels (absent: the granule keeps its own), the time step
/// and whether it is the first step of the run (ICON's `linit`).
#[gt4rs::export_c_fn(gt4rs_icon)]
#[allow(clippy::too_many_arguments)]
pub fn diffusion_run(
    w: FieldMut<'_, (Cell, K), f64>,
    vn: FieldMut<'_, (Edge, K), f64>,
    exner: FieldMut<'_, (Cell, K), f64>,
    theta_v: FieldMut<'_, (Cell, K), f64>,
    hdef_ic: Option<FieldMut<'_, (Cell, K), f64>>,
    div_ic: Option<FieldMut<'_, (Cell, K), f64>>,
    dwdx: Option<FieldMut<'_, (Cell, K), f64>>,
    dwdy: Option<FieldMut<'_, (Cell, K), f64>>,
    dtime: f64,
    linit: bool,
) -> Result<(), Failure> {
    with_state(
        "diffusion_run",
        w,
        vn,
        exner,
        theta_v,
        [hdef_ic, div_ic, dwdx, dwdy],
        |diffusion, prognostic, diagnostic| {
            if linit {
                diffusion.initial_run_views(dtime, prognostic, diagnostic)?;
            } else {
                diffusion.run_views(dtime, prognostic, diagnostic)?;
            }
            Ok(())
        },
    )
}

/// Regular steps of the granule run from Rust on the same arrays as `diffusion_run` takes,
/// one per element of `seconds`, which receives each step's wall time: the reference for the
/// cost of calling `diffusion_run` from Fortran (the same granule, arrays and step, without
/// the boundary).
#[gt4rs::export_c_fn(gt4rs_icon)]
#[allow(clippy::too_many_arguments)]
pub fn diffusion_run_timed_in_rust(
    w: FieldMut<'_, (Cell, K), f64>,
    vn: FieldMut<'_, (Edge, K), f64>,
    exner: FieldMut<'_, (Cell, K), f64>,
    theta_v: FieldMut<'_, (Cell, K), f64>,
    hdef_ic: Option<FieldMut<'_, (Cell, K), f64>>,
    div_ic: Option<FieldMut<'_, (Cell, K), f64>>,
    dwdx: Option<FieldMut<'_, (Cell, K), f64>>,
    dwdy: Option<FieldMut<'_, (Cell, K), f64>>,
    dtime: f64,
    seconds: FieldMut<'_, Step, f64>,
) -> Result<(), Failure> {
    let mut seconds = seconds;
    with_state(
        "diffusion_run_timed_in_rust",
        w,
        vn,
        exner,
        theta_v,
        [hdef_ic, div_ic, dwdx, dwdy],
        |diffusion, prognostic, diagnostic| {
            for time in seconds.as_array_mut().iter_mut() {
                let start = Instant::now();
                diffusion.run_views(dtime, prognostic, diagnostic)?;
                *time = start.elapsed().as_secs_f64();
            }
            Ok(())
        },
    )
}

/// Drops the granule and the grid (a model's `finalize`); `grid_init` may follow again.
#[gt4rs::export_c_fn(gt4rs_icon)]
pub fn finalize() -> Result<(), Failure> {
    STATE.with(|state| *state.borrow_mut() = State::default());
    if let Ok(mut owner) = OWNER.lock() {
        *owner = None;
    }
    Ok(())
}

/// The number of levels of the initialised granule (for drivers sizing their arrays).
pub fn levels() -> Option<usize> {
    STATE.with(|state| state.borrow().granule.as_ref().map(|g| g.nlev))
}

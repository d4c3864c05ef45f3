//! The main job's setup handed to a Fortran driver, and its Rust run for comparison.
//!
//! [`main_job_setup`] builds what `gt4rs run diffusion` builds (a generated RnBk grid, the
//! vertical grid, the terrain, ICON's default `diffusion_nml`, the jet's initial state);
//! [`main_job_sizes`], [`main_job_grid`] and [`main_job_fields`] write it into the driver's
//! arrays as ICON holds them (1-based `idx`/`blk` tables, zone indices, `(nproma, …)` fields
//! with the horizontal index fastest), so the driver can call `grid_init`, `diffusion_init`
//! and `diffusion_run` as ICON does. [`main_job_reference`] runs the same steps in Rust alone
//! (the granule on gt4rs's own fields and layout) and writes the state it ends with.

use std::cell::RefCell;

use gt4rs::ffi::icon::{Nblks, Neighbours, Nproma};
use gt4rs::ffi::{Failure, Status};
use gt4rs::field::Scalar;
use gt4rs::grid::{Grid, GridDim, IcosahedralGrid};
use gt4rs::{Backend, Dims, Field, FieldMut};
use gt4rs_stencils::diffusion::initial::{diffusion_over, jet_state_over, GranuleInputs, JetSpec};
use gt4rs_stencils::diffusion::{
    DiffusionConfig, MetricState, PrognosticState, RunOptions, Terrain, TerrainKind, VerticalGrid,
};
use gt4rs_stencils::icon::dims::{Cell, Edge, Vertex, C2E, C2E2C, C2E2CO, E2C2V, K, V2E};

use crate::{Item, RefinLevel};

/// The main job's time step (s), as `gt4rs run diffusion` takes by default.
pub const DTIME: f64 = 300.0;

struct Job {
    grid: Grid,
    vertical: VerticalGrid,
    terrain: Terrain,
    config: DiffusionConfig,
    inputs: GranuleInputs,
    state: PrognosticState,
}

thread_local! {
    static JOB: RefCell<Option<Job>> = const { RefCell::new(None) };
}

fn with_job<R>(
    function: &str,
    body: impl FnOnce(&Job) -> Result<R, Failure>,
) -> Result<R, Failure> {
    JOB.with(|job| match job.borrow().as_ref() {
        Some(job) => body(job),
        None => Err(Failure::new(
            Status::NotInitialised,
            format!("{function}: called before main_job_setup"),
        )),
    })
}

/// Sets up the main job on the icosahedral grid R`root`B`bisections` with `levels` levels,
/// over mountains (or flat ground): grid, vertical grid, terrain, ICON's default
/// `diffusion_nml` and the jet's initial state. Replaces an earlier setup.
#[gt4rs::export_c_fn(gt4rs_icon)]
pub fn main_job_setup(
    root: i32,
    bisections: i32,
    levels: i32,
    mountains: bool,
) -> Result<(), Failure> {
    let as_u32 = |v: i32, what: &str| {
        u32::try_from(v)
            .map_err(|_| Failure::new(Status::Config, format!("main_job_setup: {what} = {v}")))
    };
    let grid = IcosahedralGrid::generate(as_u32(root, "root")?, as_u32(bisections, "bisections")?)?;
    let levels = as_u32(levels, "levels")? as usize;
    let vertical = VerticalGrid::default_for(levels)?;
    let kind = if mountains {
        TerrainKind::Mountains
    } else {
        TerrainKind::Flat
    };
    let terrain = Terrain::of_kind(kind, &grid, &vertical)?;
    let config = DiffusionConfig::default();
    let metric = MetricState::over_terrain(&grid, &terrain, &config)?;
    let inputs = GranuleInputs::of(&grid, metric, config.clone())?;
    let state = jet_state_over(&grid, &vertical, &terrain, &JetSpec::default())?;
    JOB.with(|job| {
        *job.borrow_mut() = Some(Job {
            config: inputs.config.clone(),
            grid,
            vertical,
            terrain,
            inputs,
            state,
        })
    });
    Ok(())
}

/// Writes the job's sizes into `sizes`: cells, edges, vertices, levels, whether the terrain
/// has steep points (1: the four `zd_*` fields exist), whether the grid is a limited area; and
/// into `reals`: the Rayleigh damping height (m) and the time step (s).
#[gt4rs::export_c_fn(gt4rs_icon)]
pub fn main_job_sizes(
    sizes: FieldMut<'_, Item, i64>,
    reals: FieldMut<'_, Item, f64>,
) -> Result<(), Failure> {
    const F: &str = "main_job_sizes";
    with_job(F, |job| {
        let (mut sizes, mut reals) = (sizes, reals);
        let values = [
            job.grid.num_cells as i64,
            job.grid.num_edges as i64,
            job.grid.num_vertices as i64,
            job.vertical.nlev as i64,
            i64::from(job.inputs.metric.zdiffusion.is_some()),
            i64::from(job.config.limited_area),
        ];
        fill(F, "sizes", &mut sizes, &values)?;
        fill(
            F,
            "reals",
            &mut reals,
            &[job.vertical.damping_height, DTIME],
        )
    })
}

/// Writes `values` into a rank-1 array of exactly their number.
fn fill<T: Scalar>(
    function: &str,
    name: &str,
    out: &mut FieldMut<'_, Item, T>,
    values: &[T],
) -> Result<(), Failure> {
    if out.shape() != [values.len()] {
        return Err(Failure::new(
            Status::Shape,
            format!(
                "{function}: `{name}` has {:?} elements; it takes {}",
                out.shape(),
                values.len()
            ),
        ));
    }
    for (o, v) in out.as_array_mut().iter_mut().zip(values) {
        *o = *v;
    }
    Ok(())
}

/// Copies a gt4rs field (points first) into the first points of a model's array of the same
/// inner sizes.
fn write<D: Dims, T: Scalar>(
    function: &str,
    name: &str,
    from: &Field<D, T>,
    to: &mut FieldMut<'_, D, T>,
) -> Result<(), Failure> {
    let (have, want) = (to.shape(), from.shape());
    if have.len() != want.len() || have[0] < want[0] || have[1..] != want[1..] {
        return Err(Failure::new(
            Status::Shape,
            format!("{function}: `{name}` has sizes {have:?}; it needs at least {want:?}"),
        ));
    }
    let mut shape = vec![0usize; D::RANK];
    let mut target = to
        .reborrow()
        .narrow(0, 0..want[0] as i64, &mut shape)
        .map_err(|e| gt4rs::ffi::bad_view(function, name, e))?;
    target.as_array_mut().assign(&from.as_array());
    Ok(())
}

/// Writes the 0-based table `offset` of the job's grid as ICON's 1-based `idx`/`blk` pair
/// (`(nproma, 1, n)`; a missing neighbour is idx 0, blk 0; rows past the points are 0).
fn write_table(
    function: &str,
    grid: &Grid,
    offset: &str,
    idx: &mut FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
    blk: &mut FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
) -> Result<(), Failure> {
    let table = grid.table(offset)?;
    let (rows, width) = table.dim();
    for (name, view) in [("idx", &*idx), ("blk", &*blk)] {
        let shape = view.shape();
        if shape[0] < rows || shape[1] != 1 || shape[2] != width {
            return Err(Failure::new(
                Status::Shape,
                format!("{function}: {offset} {name} has sizes {shape:?}; it needs (>= {rows}, 1, {width})"),
            ));
        }
    }
    let (mut idx, mut blk) = (idx.as_array_mut(), blk.as_array_mut());
    idx.fill(0);
    blk.fill(0);
    for ((row, slot), &entry) in table.indexed_iter() {
        if entry >= 0 {
            idx[[row, 0, slot]] = entry + 1;
            blk[[row, 0, slot]] = 1;
        }
    }
    Ok(())
}

/// Writes ICON's zone start and end indices of `dim`.
fn write_zones(
    function: &str,
    grid: &Grid,
    dim: GridDim,
    start: &mut FieldMut<'_, RefinLevel, i32>,
    end: &mut FieldMut<'_, RefinLevel, i32>,
) -> Result<(), Failure> {
    let (s, e) = grid.zones.of(dim).icon_indices(dim)?;
    fill_levels(function, start, &s)?;
    fill_levels(function, end, &e)
}

fn fill_levels(
    function: &str,
    out: &mut FieldMut<'_, RefinLevel, i32>,
    values: &[i32],
) -> Result<(), Failure> {
    if out.shape() != [values.len()] {
        return Err(Failure::new(
            Status::Shape,
            format!(
                "{function}: zone indices have {:?} elements; ICON's have {}",
                out.shape(),
                values.len()
            ),
        ));
    }
    for (o, v) in out.as_array_mut().iter_mut().zip(values) {
        *o = *v;
    }
    Ok(())
}

/// Writes the job's grid as `grid_init` takes it: the five tables (`idx`/`blk`), the zone
/// indices and the geometry.
#[gt4rs::export_c_fn(gt4rs_icon)]
#[allow(clippy::too_many_arguments)]
pub fn main_job_grid(
    c2e_idx: FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
    c2e_blk: FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
    e2c_idx: FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
    e2c_blk: FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
    c2e2c_idx: FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
    c2e2c_blk: FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
    v2e_idx: FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
    v2e_blk: FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
    e2c2v_idx: FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
    e2c2v_blk: FieldMut<'_, (Nproma, Nblks, Neighbours), i32>,
    cell_start_index: FieldMut<'_, RefinLevel, i32>,
    cell_end_index: FieldMut<'_, RefinLevel, i32>,
    edge_start_index: FieldMut<'_, RefinLevel, i32>,
    edge_end_index: FieldMut<'_, RefinLevel, i32>,
    vertex_start_index: FieldMut<'_, RefinLevel, i32>,
    vertex_end_index: FieldMut<'_, RefinLevel, i32>,
    tangent_orientation: FieldMut<'_, Edge, f64>,
    inverse_primal_edge_lengths: FieldMut<'_, Edge, f64>,
    inverse_dual_edge_lengths: FieldMut<'_, Edge, f64>,
    inverse_vertex_vertex_lengths: FieldMut<'_, Edge, f64>,
    edge_areas: FieldMut<'_, Edge, f64>,
    primal_normal_vert_x: FieldMut<'_, (Edge, E2C2V), f64>,
    primal_normal_vert_y: FieldMut<'_, (Edge, E2C2V), f64>,
    dual_normal_vert_x: FieldMut<'_, (Edge, E2C2V), f64>,
    dual_normal_vert_y: FieldMut<'_, (Edge, E2C2V), f64>,
    cell_areas: FieldMut<'_, Cell, f64>,
) -> Result<(), Failure> {
    const F: &str = "main_job_grid";
    let mut tables = [
        ("C2E", c2e_idx, c2e_blk),
        ("E2C", e2c_idx, e2c_blk),
        ("C2E2C", c2e2c_idx, c2e2c_blk),
        ("V2E", v2e_idx, v2e_blk),
        ("E2C2V", e2c2v_idx, e2c2v_blk),
    ];
    let mut zones = [
        (GridDim::Cell, cell_start_index, cell_end_index),
        (GridDim::Edge, edge_start_index, edge_end_index),
        (GridDim::Vertex, vertex_start_index, vertex_end_index),
    ];
    let mut edges = [
        ("tangent_orientation", tangent_orientation),
        ("inverse_primal_edge_lengths", inverse_primal_edge_lengths),
        ("inverse_dual_edge_lengths", inverse_dual_edge_lengths),
        (
            "inverse_vertex_vertex_lengths",
            inverse_vertex_vertex_lengths,
        ),
        ("edge_areas", edge_areas),
    ];
    let mut normals = [
        ("primal_normal_vert_x", primal_normal_vert_x),
        ("primal_normal_vert_y", primal_normal_vert_y),
        ("dual_normal_vert_x", dual_normal_vert_x),
        ("dual_normal_vert_y", dual_normal_vert_y),
    ];
    let mut cell_areas = cell_areas;
    with_job(F, |job| {
        for (offset, idx, blk) in &mut tables {
            write_table(F, &job.grid, offset, idx, blk)?;
        }
        for (dim, start, end) in &mut zones {
            write_zones(F, &job.grid, *dim, start, end)?;
        }
        let e = &job.inputs.edge;
        let edge_fields = [
            &e.tangent_orientation,
            &e.inverse_primal_edge_lengths,
            &e.inverse_dual_edge_lengths,
            &e.inverse_vertex_vertex_lengths,
            &e.edge_areas,
        ];
        for ((name, to), from) in edges.iter_mut().zip(edge_fields) {
            write(F, name, from, to)?;
        }
        let normal_fields = [
            &e.primal_normal_vert_x,
            &e.primal_normal_vert_y,
            &e.dual_normal_vert_x,
            &e.dual_normal_vert_y,
        ];
        for ((name, to), from) in normals.iter_mut().zip(normal_fields) {
            write(F, name, from, to)?;
        }
        write(F, "cell_areas", &job.inputs.cell.area, &mut cell_areas)
    })
}

/// Writes the job's fields as `diffusion_init` and the first `diffusion_run` take them: the
/// half-level heights, the metric fields (the `zd_*` fields where the terrain has steep
/// points: pass arrays of the sizes `main_job_sizes` implies, or absent ones otherwise), the
/// interpolation coefficients and the initial prognostic state.
#[gt4rs::export_c_fn(gt4rs_icon)]
#[allow(clippy::too_many_arguments)]
pub fn main_job_fields(
    vct_a: FieldMut<'_, K, f64>,
    theta_ref_mc: FieldMut<'_, (Cell, K), f64>,
    wgtfac_c: FieldMut<'_, (Cell, K), f64>,
    e_bln_c_s: FieldMut<'_, (Cell, C2E), f64>,
    geofac_div: FieldMut<'_, (Cell, C2E), f64>,
    geofac_grg_x: FieldMut<'_, (Cell, C2E2CO), f64>,
    geofac_grg_y: FieldMut<'_, (Cell, C2E2CO), f64>,
    geofac_n2s: FieldMut<'_, (Cell, C2E2CO), f64>,
    nudgecoeff_e: FieldMut<'_, Edge, f64>,
    rbf_coeff_1: FieldMut<'_, (Vertex, V2E), f64>,
    rbf_coeff_2: FieldMut<'_, (Vertex, V2E), f64>,
    mask_hdiff: Option<FieldMut<'_, (Cell, K), bool>>,
    zd_diffcoef: Option<FieldMut<'_, (Cell, K), f64>>,
    zd_vertoffset: Option<FieldMut<'_, (Cell, C2E2C, K), i32>>,
    zd_intcoef: Option<FieldMut<'_, (Cell, C2E2C, K), f64>>,
    vn: FieldMut<'_, (Edge, K), f64>,
    w: FieldMut<'_, (Cell, K), f64>,
    theta_v: FieldMut<'_, (Cell, K), f64>,
    exner: FieldMut<'_, (Cell, K), f64>,
) -> Result<(), Failure> {
    const F: &str = "main_job_fields";
    let (mut vct_a, mut theta_ref_mc, mut wgtfac_c) = (vct_a, theta_ref_mc, wgtfac_c);
    let (mut e_bln_c_s, mut geofac_div) = (e_bln_c_s, geofac_div);
    let (mut geofac_grg_x, mut geofac_grg_y, mut geofac_n2s) =
        (geofac_grg_x, geofac_grg_y, geofac_n2s);
    let (mut nudgecoeff_e, mut rbf_coeff_1, mut rbf_coeff_2) =
        (nudgecoeff_e, rbf_coeff_1, rbf_coeff_2);
    let (mut vn, mut w, mut theta_v, mut exner) = (vn, w, theta_v, exner);
    with_job(F, |job| {
        let heights = Field::<K, f64>::from_fn(
            &[0..job.vertical.vct_a.len() as i64],
            Default::default(),
            |i| job.vertical.vct_a[i[0] as usize],
        )?;
        write(F, "vct_a", &heights, &mut vct_a)?;
        let metric = &job.inputs.metric;
        write(F, "theta_ref_mc", &metric.theta_ref_mc, &mut theta_ref_mc)?;
        write(F, "wgtfac_c", &metric.wgtfac_c, &mut wgtfac_c)?;
        match (
            &metric.zdiffusion,
            mask_hdiff,
            zd_diffcoef,
            zd_vertoffset,
            zd_intcoef,
        ) {
            (
                Some(zd),
                Some(mut mask),
                Some(mut diffcoef),
                Some(mut vertoffset),
                Some(mut intcoef),
            ) => {
                write(F, "mask_hdiff", &zd.mask_hdiff, &mut mask)?;
                write(F, "zd_diffcoef", &zd.zd_diffcoef, &mut diffcoef)?;
                write(F, "zd_vertoffset", &zd.zd_vertoffset, &mut vertoffset)?;
                write(F, "zd_intcoef", &zd.zd_intcoef, &mut intcoef)?;
            }
            (None, None, None, None, None) => {}
            (Some(_), ..) => {
                return Err(Failure::new(
                    Status::Argument,
                    format!("{F}: the terrain has steep points: pass the four zd_* arrays"),
                ))
            }
            (None, ..) => {
                return Err(Failure::new(
                    Status::Argument,
                    format!("{F}: the terrain has no steep points: pass no zd_* arrays"),
                ))
            }
        }
        let i = &job.inputs.interpolation;
        write(F, "e_bln_c_s", &i.e_bln_c_s, &mut e_bln_c_s)?;
        write(F, "geofac_div", &i.geofac_div, &mut geofac_div)?;
        write(F, "geofac_grg_x", &i.geofac_grg_x, &mut geofac_grg_x)?;
        write(F, "geofac_grg_y", &i.geofac_grg_y, &mut geofac_grg_y)?;
        write(F, "geofac_n2s", &i.geofac_n2s, &mut geofac_n2s)?;
        write(F, "nudgecoeff_e", &i.nudgecoeff_e, &mut nudgecoeff_e)?;
        write(F, "rbf_coeff_1", &i.rbf_coeff_1, &mut rbf_coeff_1)?;
        write(F, "rbf_coeff_2", &i.rbf_coeff_2, &mut rbf_coeff_2)?;
        let s = &job.state;
        write(F, "vn", &s.vn, &mut vn)?;
        write(F, "w", &s.w, &mut w)?;
        write(F, "theta_v", &s.theta_v, &mut theta_v)?;
        write(F, "exner", &s.exner, &mut exner)
    })
}

/// Runs the job in Rust alone, as `gt4rs run diffusion` does (the granule built from the
/// grid, its fields in gt4rs's own layout): the initial step, then `steps - 1` regular ones
/// of `dtime`; writes the state it ends with.
#[gt4rs::export_c_fn(gt4rs_icon)]
pub fn main_job_reference(
    steps: i32,
    dtime: f64,
    vn: FieldMut<'_, (Edge, K), f64>,
    w: FieldMut<'_, (Cell, K), f64>,
    theta_v: FieldMut<'_, (Cell, K), f64>,
    exner: FieldMut<'_, (Cell, K), f64>,
) -> Result<(), Failure> {
    const F: &str = "main_job_reference";
    let (mut vn, mut w, mut theta_v, mut exner) = (vn, w, theta_v, exner);
    with_job(F, |job| {
        let options = RunOptions::new(Backend::Cpu)?;
        let (mut granule, mut diagnostic) = diffusion_over(
            &job.grid,
            &job.vertical,
            &job.terrain,
            job.config.clone(),
            options,
        )?;
        let mut state = job.state.clone();
        for step in 0..steps.max(0) {
            if step == 0 {
                granule.initial_run(dtime, &mut state, &mut diagnostic)?;
            } else {
                granule.run(dtime, &mut state, &mut diagnostic)?;
            }
        }
        write(F, "vn", &state.vn, &mut vn)?;
        write(F, "w", &state.w, &mut w)?;
        write(F, "theta_v", &state.theta_v, &mut theta_v)?;
        write(F, "exner", &state.exner, &mut exner)
    })
}

//! The ICON test setup that `icon_on_grids.rs`, `static_variants.rs` and `mixed_precision.rs`
//! share (each includes it with `mod support;`; `cpu_temporaries.rs` takes its grid and
//! connectivities, `diffusion.rs` ICON's Smagorinsky profile, `diffusion.rs` and `terrain.rs`
//! the comparison of two granule runs in [`granule`]):
//! - generated grids ([`global_grid`]: R2B2 with the 12 pentagons' skip values;
//!   [`limited_area_grid`]: a cut of R2B3 that keeps its boundary -1 entries;
//!   [`limited_area_grid_with_skips_replaced`]: the same cut as ICON4Py loads it), their
//!   neighbour tables ([`tables_of`]) and connectivities ([`connectivities_of`]);
//! - ICON's calls of every ICON program per grid ([`icon_calls`]): domains, static values and
//!   the value ranges its inputs need;
//! - seeded random arguments by signature ([`random_call`]), held as a reference [`Call`] and
//!   fed to `call_dynamic` by [`CallArgs`], which hands f64 values to f32 parameters rounded
//!   (they are rounded when drawn, so the reference sees exactly what the program gets), and
//!   run by [`run_dynamic`] / [`outputs`], which hand back the written outputs widened to f64.
//!
//! Random values, poisoned outputs and bit-equality come from `gt4rs::testing`, as in a model's
//! own tests; this module adds what only ICON's calls need (value ranges per parameter, ICON's
//! vertical offsets, the calls' domains).

#![allow(dead_code)]

pub mod granule;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use gt4rs::__private::args::ScalarValue;
use gt4rs::__private::dynamic::{ArgSource, DynArray, DynField, DynProgram};
use gt4rs::__private::ir::fieldview::Role;
use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, RegionSpec, Zone, TABLE_WIDTHS};
use gt4rs::testing::{self, TestRng, Tolerance};
use gt4rs::{Connectivities, Error, ParamKind, ScalarType, Signature};
use gt4rs_stencils::icon::connectivities::{insert_by_name, target_dim};
use gt4rs_stencils::icon::reference::Call;
use gt4rs_stencils::reference_data::{NeighborTable, RefArray};
use ndarray::{ArrayD, IxDyn};
use rand::RngExt;

/// Full levels of every generated call; half-level fields have one more.
pub const NLEV: usize = 6;

/// The tables the pentagons give skip values on a global grid.
pub const PENTAGON_TABLES: [&str; 3] = ["V2E", "V2C", "V2E2V"];

/// The four domain bounds of an ICON program.
pub const DOMAIN_BOUNDS: [&str; 4] = [
    "horizontal_start",
    "horizontal_end",
    "vertical_start",
    "vertical_end",
];

/// A grid and how ICON runs programs on it.
#[derive(Clone)]
pub struct TestGrid {
    pub label: &'static str,
    pub grid: Grid,
    pub limited_area: bool,
}

impl TestGrid {
    /// A limited-area grid whose tables still hold boundary -1 entries.
    pub fn keeps_boundary_skips(&self) -> bool {
        self.limited_area
            && TABLE_WIDTHS.iter().any(|(o, _)| {
                !PENTAGON_TABLES.contains(o) && !rows_with_skips(&self.grid, o).is_empty()
            })
    }
}

/// A global R2B2 grid, whose V2E, V2C and V2E2V rows keep a -1 in slot 5 at the 12 pentagons.
pub fn global_grid() -> TestGrid {
    static GRID: OnceLock<Grid> = OnceLock::new();
    TestGrid {
        label: "R2B2 global",
        grid: GRID
            .get_or_init(|| IcosahedralGrid::generate(2, 2).expect("R2B2 generates"))
            .clone(),
        limited_area: false,
    }
}

/// A limited-area cut of R2B3 whose boundary tables hold -1 outside the region.
pub fn limited_area_grid() -> TestGrid {
    static GRID: OnceLock<Grid> = OnceLock::new();
    let grid = GRID.get_or_init(|| {
        let global = IcosahedralGrid::generate(2, 3).expect("R2B3 generates");
        global
            .regional(RegionSpec {
                center_lat_deg: 46.8,
                center_lon_deg: 8.2,
                radius: 3.5e6,
            })
            .expect("regional cut")
    });
    TestGrid {
        label: "R2B3 limited area",
        grid: grid.clone(),
        limited_area: true,
    }
}

/// [`limited_area_grid`] with every -1 replaced by the largest valid index of its row (0 if
/// none), as ICON4Py's stencil tests and benchmarks load limited-area grids
/// (`keep_skip_values=False`, reference §3).
pub fn limited_area_grid_with_skips_replaced() -> TestGrid {
    let mut g = limited_area_grid();
    for table in g.grid.tables.values_mut() {
        for mut row in table.rows_mut() {
            let largest = row.iter().copied().max().unwrap_or(0).max(0);
            row.mapv_inplace(|n| if n < 0 { largest } else { n });
        }
    }
    TestGrid {
        label: "R2B3 limited area, skips replaced",
        ..g
    }
}

/// Rows of the table of `offset` that hold a skip value.
pub fn rows_with_skips(grid: &Grid, offset: &str) -> Vec<usize> {
    let table = grid.table(offset).expect("table");
    table
        .rows()
        .into_iter()
        .enumerate()
        .filter(|(_, row)| row.iter().any(|&n| n < 0))
        .map(|(i, _)| i)
        .collect()
}

/// The neighbour tables of `grid`, as the references read them.
pub fn tables_of(grid: &Grid) -> BTreeMap<String, NeighborTable> {
    TABLE_WIDTHS
        .iter()
        .map(|(offset, _)| {
            let table = grid.table(offset).expect("table").to_owned();
            let t = NeighborTable::new(*offset, table).expect("valid table");
            (offset.to_string(), t)
        })
        .collect()
}

/// The connectivities of `grid`, as the compiled programs take them.
pub fn connectivities_of(grid: &Grid) -> Connectivities {
    let mut conns = Connectivities::new();
    for (offset, _) in TABLE_WIDTHS {
        let to = target_dim(offset).expect("ICON offset");
        let target = grid.size(GridDim::from_name(to).expect("dim"));
        let table = grid.table(offset).expect("table").to_owned();
        insert_by_name(&mut conns, offset, table, target).expect("valid connectivity");
    }
    conns
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
    /// Field parameters with `NLEV + 1` levels.
    pub half_levels: &'static [&'static str],
    pub ints: Vec<(&'static str, i32)>,
    pub flags: Vec<(&'static str, bool)>,
    /// Parameters whose values need a range of their own ([`Draw`]).
    pub values: Vec<(&'static str, Draw)>,
}

impl Setup {
    fn new(horizontal: (usize, usize), vertical: (usize, usize)) -> Self {
        Setup {
            horizontal,
            vertical,
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

fn zone_start(grid: &Grid, dim: GridDim, zone: Zone) -> usize {
    grid.start(dim, zone).expect("zone")
}

fn local_end(grid: &Grid, dim: GridDim) -> usize {
    grid.end(dim, Zone::Local).expect("zone")
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

/// Half-level heights of a 6-level column falling from 72–75 km to 0–3 km.
const HEIGHTS: Draw = Draw::FallingHeights {
    spacing: 12_000.0,
    jitter: 3_000.0,
};

/// ICON's calls of `program` on `g`: the domains of ICON4Py's stencil tests (§2 of the
/// reference) and of the diffusion granule, once per value of each static argument, with the
/// value ranges the inputs need where [-1, 1) does not serve (see [`Draw`]).
pub fn icon_calls(program: &str, g: &TestGrid) -> Vec<Setup> {
    use GridDim::{Cell, Edge, Vertex};
    let grid = &g.grid;
    let (nc, ne) = (grid.num_cells, grid.num_edges);
    let full_k = (0, NLEV);
    let from = |dim, zone| (zone_start(grid, dim, zone), local_end(grid, dim));
    let setup = Setup::new;
    // Where w is diffused: from the nudging zone on a limited-area grid, the interior
    // otherwise (the granule's `cell_start_w_diffusion`).
    let w_diffusion = if g.limited_area {
        from(Cell, Zone::Nudging)
    } else {
        from(Cell, Zone::Interior)
    };
    match program {
        "mo_intp_rbf_rbf_vec_interpol_vertex" => {
            vec![setup(from(Vertex, Zone::LateralBoundaryLevel2), full_k)]
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
        "calculate_nabla4" => vec![setup(from(Edge, Zone::LateralBoundaryLevel5), full_k)],
        "calculate_nabla2_and_smag_coefficients_for_vn" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel5), full_k)
                .with_values(SMAGORINSKY_VALUES)]
        }
        "apply_nabla2_and_nabla4_to_vn" | "apply_nabla2_and_nabla4_global_to_vn" => {
            vec![setup(from(Edge, Zone::NudgingLevel2), full_k)]
        }
        "apply_nabla2_to_vn_in_lateral_boundary" => {
            let start = zone_start(grid, Edge, Zone::LateralBoundaryLevel5);
            let end = zone_start(grid, Edge, Zone::NudgingLevel2);
            // A global grid has no lateral boundary; run the stencil on every edge there.
            let horizontal = if end > start { (start, end) } else { (0, ne) };
            vec![setup(horizontal, full_k)]
        }
        "apply_diffusion_to_vn" => {
            // A partial edge domain: ICON's on the limited-area grid; on the global grid, where
            // every zone starts at 0, a cut range with the second nudge line inside it, so
            // that both sides of the `start_2nd_nudge_line_idx_e` condition run.
            let (horizontal, nudge) = if g.limited_area {
                (
                    from(Edge, Zone::LateralBoundaryLevel5),
                    zone_start(grid, Edge, Zone::NudgingLevel2),
                )
            } else {
                ((ne / 7, ne - ne / 9), ne / 3)
            };
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
            vec![setup(from(Cell, Zone::Nudging), full_k)
                .with_values(&[("diff_multfac_smag", Draw::Uniform(0.5, 1.5))])]
        }
        "calculate_diagnostic_quantities_for_turbulence" => vec![Setup {
            half_levels: &["wgtfac_c", "div_ic", "hdef_ic"],
            ..setup(from(Cell, Zone::Nudging), (1, NLEV))
                .with_values(&[("diff_multfac_smag", Draw::Uniform(0.5, 1.5))])
        }],
        "calculate_nabla2_for_w" => vec![Setup {
            half_levels: &["w", "z_nabla2_c"],
            ..setup(w_diffusion, (0, NLEV + 1))
        }],
        "apply_nabla2_to_w" => vec![setup(from(Cell, Zone::Interior), full_k)],
        "apply_nabla2_to_w_in_upper_damping_layer" => {
            vec![setup(from(Cell, Zone::Interior), (1, 3))]
        }
        "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence" => [1, 2]
            .into_iter()
            .map(|type_shear| Setup {
                ints: vec![
                    ("type_shear", type_shear),
                    ("nrdmax", 3),
                    (
                        "interior_idx",
                        zone_start(grid, Cell, Zone::Interior) as i32,
                    ),
                    ("halo_idx", local_end(grid, Cell) as i32),
                ],
                half_levels: &["w_old", "w", "dwdx", "dwdy"],
                ..setup(w_diffusion, full_k)
            })
            .collect(),
        // Coefficients of the enhancements' size, so that both sides of its `max` win
        // somewhere; ICON's smallest vpfloat as the floor.
        "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools" => {
            vec![
                setup(from(Edge, Zone::Nudging), (NLEV - 2, NLEV)).with_values(&[
                    ("kh_smag_e", Draw::Uniform(0.0, 1.0e-3)),
                    ("thresh_tdiff", Draw::Fixed(0.5)),
                    ("smallest_vpfloat", Draw::Fixed(-1.0e30)),
                ]),
            ]
        }
        "calculate_nabla2_for_z" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel2), full_k)]
        }
        "calculate_nabla2_of_theta"
        | "calculate_nabla2_for_theta"
        | "truly_horizontal_diffusion_nabla_of_theta_over_steep_points" => {
            vec![setup(from(Cell, Zone::Nudging), full_k)]
        }
        "update_theta_and_exner" => {
            vec![setup(from(Cell, Zone::Nudging), full_k).with_values(THETA_AND_EXNER_VALUES)]
        }
        "apply_diffusion_to_theta_and_exner" => [true, false]
            .into_iter()
            .map(|apply| Setup {
                flags: vec![("apply_zdiffusion_t", apply)],
                ..setup(from(Cell, Zone::Nudging), full_k).with_values(THETA_AND_EXNER_VALUES)
            })
            .collect(),
        "compute_tangential_wind" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel5), full_k)]
        }
        "interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel5), (1, NLEV))]
        }
        "compute_horizontal_kinetic_energy" => vec![Setup {
            half_levels: &["vn_ie", "z_vt_ie"],
            ..setup(from(Edge, Zone::LateralBoundaryLevel5), full_k)
        }],
        "compute_diagnostics_from_normal_wind" => [false, true]
            .into_iter()
            .map(|skip| Setup {
                half_levels: &["vn_on_half_levels", "w", "wgtfac_e", "wgtfacq_e"],
                ints: vec![("nflatlev", 2)],
                flags: vec![("skip_compute_predictor_vertical_advection", skip)],
                ..setup(from(Edge, Zone::LateralBoundaryLevel5), (0, NLEV + 1))
            })
            .collect(),
        "solve_tridiagonal_matrix_for_w_forward_sweep" => vec![Setup {
            half_levels: &["z_alpha", "z_w_expl"],
            ..setup((0, nc), (1, NLEV)).with_values(FORWARD_SWEEP_VALUES)
        }],
        "solve_tridiagonal_matrix_for_w_back_substitution" => {
            vec![setup((0, nc), (1, NLEV))]
        }
        other => panic!("no grid setup for `{other}`"),
    }
}

/// The calls of `program` to test on `g`: ICON's ([`icon_calls`]) and, on a limited-area
/// grid, for programs that only reduce over their neighbours (no direct slot read), one more
/// over every point, so that their reductions meet the boundary's -1 entries.
pub fn calls_on(program: &str, g: &TestGrid) -> Vec<Setup> {
    let grid = &g.grid;
    let mut calls = icon_calls(program, g);
    if g.limited_area {
        if let Some(&(_, dim)) = REDUCING_ONLY.iter().find(|(p, _)| *p == program) {
            let whole = Setup {
                horizontal: (0, grid.size(dim)),
                ..calls[0].clone()
            };
            calls.push(whole);
        }
    }
    calls
}

/// Programs whose every neighbour access is a reduction, and their horizontal dimension.
pub const REDUCING_ONLY: &[(&str, GridDim)] = &[
    ("mo_intp_rbf_rbf_vec_interpol_vertex", GridDim::Vertex),
    ("calculate_nabla2_for_w", GridDim::Cell),
    ("compute_tangential_wind", GridDim::Edge),
    (
        "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools",
        GridDim::Edge,
    ),
];

/// Every static argument of `signature` takes at least two values over `calls`.
pub fn assert_static_values_covered(program: &str, signature: &Signature, calls: &[Setup]) {
    for p in signature.params.iter().filter(|p| p.is_static) {
        let name = p.name.as_str();
        let flags = calls
            .iter()
            .filter_map(|s| s.flags.iter().find(|f| f.0 == name))
            .map(|f| i32::from(f.1));
        let ints = calls
            .iter()
            .filter_map(|s| s.ints.iter().find(|i| i.0 == name))
            .map(|i| i.1);
        let mut values: Vec<i32> = flags.chain(ints).collect();
        values.sort_unstable();
        values.dedup();
        assert!(
            values.len() >= 2,
            "{program}: static `{name}` takes one value only"
        );
    }
}

/// The extent of dimension `dim` on `grid`, with `nlev` levels for K.
pub fn extent(grid: &Grid, dim: &str, nlev: usize) -> usize {
    match dim {
        "K" => nlev,
        "Cell" => grid.num_cells,
        "Edge" => grid.num_edges,
        "Vertex" => grid.num_vertices,
        sparse => TABLE_WIDTHS
            .iter()
            .find(|(o, _)| *o == sparse)
            .map(|(_, w)| *w)
            .unwrap_or_else(|| panic!("unknown dimension `{sparse}`")),
    }
}

/// `zd_vertoffset` (Cell, C2E2C, K): ICON's offsets point down the column (0, 1 or 2 levels)
/// where both levels read, `k + off` and `k + off + 1`, stay inside it; on the lowest level,
/// where no such offset exists, one that points up (as ICON4Py's stencil test draws them).
fn vertical_offsets(shape: &[usize], rng: &mut TestRng) -> ArrayD<i32> {
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

/// Rounded to f32 where the parameter is f32, so that the f64 reference sees exactly the
/// value the program gets.
fn as_stored(value: f64, dtype: ScalarType) -> f64 {
    match dtype {
        ScalarType::F32 => f64::from(value as f32),
        _ => value,
    }
}

fn draw_array(
    rng: &mut TestRng,
    call: &Call,
    shape: &[usize],
    draw: Draw,
    dtype: ScalarType,
) -> ArrayD<f64> {
    let array = match draw {
        Draw::Uniform(low, high) => {
            testing::random_array_in(rng, shape, low..high).expect("a finite, non-empty range")
        }
        Draw::Fixed(value) => ArrayD::from_elem(IxDyn(shape), value),
        Draw::FallingHeights { spacing, jitter } => {
            let n = shape[0] - 1;
            ArrayD::from_shape_fn(IxDyn(shape), |ix| {
                spacing * (n - ix[0]) as f64 + rng.random_range(0.0..jitter)
            })
        }
        Draw::LevelOf { field, level } => {
            let source = call.params.float64(field, 1).expect("field drawn before");
            ArrayD::from_elem(IxDyn(shape), source[[level]])
        }
    };
    array.mapv(|x| as_stored(x, dtype))
}

/// A call of a program with `signature` on `grid`: seeded random inputs (uniform in [-1, 1)
/// unless the setup's [`Draw`] says otherwise, rounded to f32 for f32 parameters), NaN in pure
/// outputs, the setup's domain and scalars, and every neighbour table of the grid.
/// `zd_diffcoef` is 0 at some points, so that both sides of the steep-point selection run.
pub fn random_call(signature: &Signature, grid: &Grid, setup: &Setup, seed: u64) -> Call {
    let program = signature.program.as_str();
    let mut rng = testing::rng(seed);
    let mut call = Call::new();
    call.tables = tables_of(grid);
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
    for p in &signature.params {
        let name = p.name.as_str();
        match (&p.kind, p.dtype) {
            (ParamKind::Field { dims }, Some(dtype @ (ScalarType::F64 | ScalarType::F32))) => {
                let nlev = NLEV + usize::from(setup.half_levels.contains(&name));
                let shape: Vec<usize> = dims.iter().map(|d| extent(grid, d, nlev)).collect();
                let array = if p.role == Role::Out {
                    testing::poisoned_array(&shape)
                } else {
                    draw_array(&mut rng, &call, &shape, draw_of(name), dtype)
                };
                call.params.insert(name, RefArray::Float64(array));
            }
            (ParamKind::Field { dims }, Some(ScalarType::I32)) if name == "zd_vertoffset" => {
                let shape: Vec<usize> = dims.iter().map(|d| extent(grid, d, NLEV)).collect();
                call = call.with_int_field(name, vertical_offsets(&shape, &mut rng));
            }
            (ParamKind::Scalar, Some(dtype @ (ScalarType::F64 | ScalarType::F32))) => {
                let value = draw_array(&mut rng, &call, &[], draw_of(name), dtype);
                call.params.insert(name, RefArray::Float64(value));
            }
            (ParamKind::Scalar, Some(ScalarType::I32)) => {
                let value = domain
                    .iter()
                    .chain(&setup.ints)
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| *v)
                    .unwrap_or_else(|| panic!("{program}: no value for `{name}`"));
                call = call.with_int(name, value);
            }
            (ParamKind::Scalar, Some(ScalarType::Bool)) => {
                let value = setup
                    .flags
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| *v)
                    .unwrap_or_else(|| panic!("{program}: no value for `{name}`"));
                call = call.with_flag(name, value);
            }
            other => panic!("{program}: unexpected parameter `{name}`: {other:?}"),
        }
    }
    if let Ok(RefArray::Float64(coef)) = call.params.get("zd_diffcoef") {
        let mut coef = coef.clone();
        let nlev = coef.shape()[1];
        for c in (0..coef.shape()[0]).step_by(3) {
            coef[[c, c % nlev]] = 0.0;
        }
        call = call.with_field("zd_diffcoef", coef);
    }
    call
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

    fn error(&self, name: &str, message: String) -> Error {
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

/// The outputs `written` of `program` after one call with the arguments of `call`, widened
/// to f64 (f32 widens exactly, NaN stays NaN).
pub fn run_dynamic(
    program: &dyn DynProgram,
    call: &Call,
    written: &[String],
) -> Result<BTreeMap<String, ArrayD<f64>>, Error> {
    let mut args = CallArgs::new(program.name(), call);
    program.call_dynamic(&mut args)?;
    written
        .iter()
        .map(|name| {
            let output = args.outputs.remove(name);
            match output.as_ref().and_then(widened) {
                Some(a) => Ok((name.clone(), a)),
                None => Err(args.error(name, format!("handed back {output:?}"))),
            }
        })
        .collect()
}

/// [`run_dynamic`] for a call that must succeed.
pub fn outputs(
    program: &dyn DynProgram,
    call: &Call,
    written: &[String],
) -> BTreeMap<String, ArrayD<f64>> {
    run_dynamic(program, call, written).unwrap_or_else(|e| panic!("{}: {e}", program.name()))
}

/// An f64 or f32 array as f64 (f32 widens exactly, NaN stays NaN).
fn widened(array: &DynArray) -> Option<ArrayD<f64>> {
    match array {
        DynArray::F64(a) => Some(a.clone()),
        DynArray::F32(a) => Some(a.mapv(f64::from)),
        _ => None,
    }
}

/// The f64 parameter `name` of `call`.
pub fn float_param<'c>(call: &'c Call, name: &str) -> &'c ArrayD<f64> {
    match call.params.get(name) {
        Ok(RefArray::Float64(a)) => a,
        other => panic!("`{name}` is no f64 array: {other:?}"),
    }
}

/// Equal shapes and bits (NaN equal to NaN): `gt4rs::testing`'s bit-equality, which every
/// backend promises for the same inputs.
pub fn bit_equal(a: &ArrayD<f64>, b: &ArrayD<f64>) -> bool {
    testing::compare_arrays(a.view(), b.view(), Tolerance::BitEqual).is_ok()
}

/// ICON's Smagorinsky enhancement profile (`nshift = 0`) at full-level height `zf`, written out
/// independently of the DSL: constant `fac[0]` up to `z[0]`, linear to `fac[1]` at `z[1]`, then
/// quadratic through `fac[2]` (at `z[2]`) towards `fac[3]` (at `z[3]`).
pub fn icon_smagorinsky_enhancement(zf: f64, fac: [f64; 4], z: [f64; 4]) -> f64 {
    let [fac1, fac2, fac3, fac4] = fac;
    let [z1, z2, z3, z4] = z;
    let dz21 = z2 - z1;
    let (df32, df42, dz32, dz42) = (fac3 - fac2, fac4 - fac2, z3 - z2, z4 - z2);
    let bqdr = (df42 * dz32 - df32 * dz42) / (dz32 * dz42 * (dz42 - dz32));
    let aqdr = df32 / dz32 - bqdr * dz32;
    let dzlin = (zf - z1).clamp(0.0, dz21);
    let dzqdr = (zf - z2).clamp(0.0, dz42);
    fac1 + dzlin * (fac2 - fac1) / dz21 + dzqdr * (aqdr + dzqdr * bqdr)
}

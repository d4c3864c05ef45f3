//! The ICON test setup that `icon_on_grids.rs`, `static_variants.rs` and `mixed_precision.rs`
//! share (each includes it with `mod support;`; `cpu_temporaries.rs` takes its grid and
//! connectivities, `diffusion.rs` ICON's Smagorinsky profile, `diffusion.rs` and `terrain.rs`
//! the comparison of two granule runs in [`granule`]):
//! - generated grids ([`global_grid`]: R2B2 with the 12 pentagons' skip values;
//!   [`limited_area_grid`]: a cut of R2B3 that keeps its boundary -1 entries;
//!   [`limited_area_grid_with_skips_replaced`]: the same cut as ICON4Py loads it), their
//!   neighbour tables ([`tables_of`]) and connectivities ([`connectivities_of`]);
//! - ICON's calls of every ICON program per grid ([`icon_calls`]) and seeded random arguments
//!   by signature ([`random_call`]) with [`NLEV`] levels, from the library's
//!   `gt4rs_stencils::icon::calls` (which the roofline benchmark uses too), fed to
//!   `call_dynamic` by [`CallArgs`] and run by [`run_dynamic`] / [`outputs`], which hand back
//!   the written outputs widened to f64.
//!
//! Bit-equality comes from `gt4rs::testing`, as in a model's own tests.

#![allow(dead_code)]

pub mod granule;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use gt4rs::__private::dynamic::{DynArray, DynProgram};
use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, RegionSpec, TABLE_WIDTHS};
use gt4rs::testing::{self, Tolerance};
use gt4rs::{Connectivities, Error, Signature};
use gt4rs_stencils::icon::calls;
// Each test that includes this module uses some of them.
#[allow(unused_imports)]
pub use gt4rs_stencils::icon::calls::{written_by, CallArgs, Setup, DOMAIN_BOUNDS};
use gt4rs_stencils::icon::reference::Call;
use gt4rs_stencils::reference_data::{NeighborTable, RefArray};
use ndarray::ArrayD;

/// Full levels of every generated call; half-level fields have one more.
pub const NLEV: usize = 6;

/// The tables the pentagons give skip values on a global grid.
pub const PENTAGON_TABLES: [&str; 3] = ["V2E", "V2C", "V2E2V"];

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

/// ICON's calls of `program` on `g` with [`NLEV`] levels ([`calls::icon_calls`]).
///
/// On the global grid, where every zone starts at 0, `apply_diffusion_to_vn` runs on a cut
/// edge range with the second nudge line inside it instead, so that both sides of its
/// `start_2nd_nudge_line_idx_e` condition run.
pub fn icon_calls(program: &str, g: &TestGrid) -> Vec<Setup> {
    let mut setups = calls::icon_calls(program, &g.grid, g.limited_area, NLEV)
        .unwrap_or_else(|e| panic!("{}: {e}", g.label));
    if program == "apply_diffusion_to_vn" && !g.limited_area {
        let ne = g.grid.num_edges;
        for setup in &mut setups {
            setup.horizontal = (ne / 7, ne - ne / 9);
            setup.ints = vec![("start_2nd_nudge_line_idx_e", (ne / 3) as i32)];
        }
    }
    setups
}

/// The neighbour tables of `grid`, as the references read them.
pub fn tables_of(grid: &Grid) -> BTreeMap<String, NeighborTable> {
    calls::neighbor_tables(grid).expect("every table of a generated grid")
}

/// The connectivities of `grid`, as the compiled programs take them.
pub fn connectivities_of(grid: &Grid) -> Connectivities {
    calls::connectivities(grid).expect("every table of a generated grid")
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
    calls::extent(grid, dim, nlev).unwrap_or_else(|e| panic!("{e}"))
}

/// A seeded random call of the program of `signature` on `grid` ([`calls::random_call`]).
pub fn random_call(signature: &Signature, grid: &Grid, setup: &Setup, seed: u64) -> Call {
    calls::random_call(signature, grid, setup, seed).unwrap_or_else(|e| panic!("{e}"))
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

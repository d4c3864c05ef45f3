//! Every ICON program of the registry on generated grids, on both backends, against the
//! hand-written loop references:
//! - a global R2B2 grid, whose V2E, V2C and V2E2V rows keep a -1 in slot 5 at the 12
//!   pentagons (the only skip values ICON keeps on a global grid);
//! - a limited-area grid cut from R2B3, whose boundary tables hold -1 outside the region, with
//!   the domains ICON's diffusion granule and stencil tests use (zone starts, e.g. edges from
//!   `LATERAL_BOUNDARY_LEVEL_5`), so that no direct neighbour read meets a -1.
//!
//! - the same cut with every -1 replaced by its row's largest valid index, as ICON4Py loads
//!   limited-area grids for its stencil tests (`keep_skip_values=False`).
//!
//! On the limited-area grid, programs that only reduce over neighbours also run over the whole
//! grid, so that their reductions skip boundary -1 entries. Every static argument takes each
//! of its values. Inputs are seeded uniform random numbers in [-1, 1); pure outputs are
//! poisoned with NaN before the run, and whole arrays are compared, so values outside the
//! domain must survive. Both backends and the references agree bit for bit today; the bound is
//! `RTOL`.

use std::collections::BTreeMap;

use gt4rs::__private::dynamic::{ArgSource, DynArray, DynField};
use gt4rs::__private::embedded::ScalarValue;
use gt4rs::__private::ir::fieldview::Role;
use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, RegionSpec, Zone, TABLE_WIDTHS};
use gt4rs::{Backend, Connectivities, Error, Options, ParamKind, ScalarType, Signature};
use gt4rs_stencils::icon::connectivities::{insert_by_name, target_dim};
use gt4rs_stencils::icon::reference::{self, Call, PROGRAMS};
use gt4rs_stencils::programs;
use gt4rs_stencils::reference_data::{NeighborTable, RefArray};
use ndarray::{ArrayD, IxDyn};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const NLEV: usize = 6;
/// Largest relative error accepted between the DSL and the reference (f64).
const RTOL: f64 = 1e-12;

/// The tables the pentagons give skip values on a global grid.
const PENTAGON_TABLES: [&str; 3] = ["V2E", "V2C", "V2E2V"];

/// Programs the CPU backend cannot run on a limited-area grid that keeps its -1 entries, with
/// the table it meets one in (the test asserts that failure). None now: a temporary (a value
/// gathered through a neighbour shift, `ir/src/lower.rs`) covers only the reach of the domain
/// that reads it, so `calculate_nabla2_for_theta`'s `z_nabla2_e` no longer reads the -1 `E2C`
/// slots of the outermost boundary edges, which ICON's domain (cells from the nudging zone)
/// never reaches.
const CPU_TEMPORARY_MEETS_SKIP: &[(&str, &str)] = &[];

struct TestGrid {
    label: &'static str,
    grid: Grid,
    limited_area: bool,
}

impl TestGrid {
    fn keeps_boundary_skips(&self) -> bool {
        self.limited_area
            && TABLE_WIDTHS.iter().any(|(o, _)| {
                !PENTAGON_TABLES.contains(o) && !rows_with_skips(&self.grid, o).is_empty()
            })
    }
}

fn global_grid() -> TestGrid {
    TestGrid {
        label: "R2B2 global",
        grid: IcosahedralGrid::generate(2, 2).expect("R2B2 generates"),
        limited_area: false,
    }
}

fn limited_area_grid() -> TestGrid {
    let global = IcosahedralGrid::generate(2, 3).expect("R2B3 generates");
    let grid = global
        .regional(RegionSpec {
            center_lat_deg: 46.8,
            center_lon_deg: 8.2,
            radius: 3.5e6,
        })
        .expect("regional cut");
    TestGrid {
        label: "R2B3 limited area",
        grid,
        limited_area: true,
    }
}

/// The limited-area grid with every -1 replaced by the largest valid index of its row (0 if
/// none), as ICON4Py's stencil tests and benchmarks load limited-area grids
/// (`keep_skip_values=False`, reference §3).
fn limited_area_grid_as_icon_runs_it() -> TestGrid {
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

/// Rows of `table` that hold a skip value.
fn rows_with_skips(grid: &Grid, offset: &str) -> Vec<usize> {
    let table = grid.table(offset).expect("table");
    table
        .rows()
        .into_iter()
        .enumerate()
        .filter(|(_, row)| row.iter().any(|&n| n < 0))
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn generated_grids_have_skip_values_where_icon_has_them() {
    let g = global_grid();
    for (offset, _) in TABLE_WIDTHS {
        let rows = rows_with_skips(&g.grid, offset);
        if PENTAGON_TABLES.contains(offset) {
            assert_eq!(rows.len(), 12, "{offset}: one row per pentagon");
            let table = g.grid.table(offset).expect("table");
            for &r in &rows {
                assert_eq!(
                    table[[r, 5]],
                    -1,
                    "{offset}: pentagon {r} skips slot 5 only"
                );
                assert!(table.row(r).iter().take(5).all(|&n| n >= 0), "{offset} {r}");
            }
        } else {
            assert!(rows.is_empty(), "{offset}: a global grid has no boundary");
        }
    }
    let lam = limited_area_grid();
    for offset in ["E2C", "C2E2C", "C2E2CO", "E2C2V", "E2C2E", "V2E", "V2C"] {
        assert!(
            !rows_with_skips(&lam.grid, offset).is_empty(),
            "{offset}: the limited-area cut has a boundary"
        );
    }
    for dim in GridDim::ALL {
        let interior = lam.grid.start(dim, Zone::Interior).expect("zone");
        assert!(interior > 0 && interior < lam.grid.size(dim), "{dim:?}");
    }
}

/// The neighbour tables of `grid`, as the references read them.
fn tables_of(grid: &Grid) -> BTreeMap<String, NeighborTable> {
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
fn connectivities_of(grid: &Grid) -> Connectivities {
    let mut conns = Connectivities::new();
    for (offset, _) in TABLE_WIDTHS {
        let to = target_dim(offset).expect("ICON offset");
        let target = grid.size(GridDim::from_name(to).expect("dim"));
        let table = grid.table(offset).expect("table").to_owned();
        insert_by_name(&mut conns, offset, table, target).expect("valid connectivity");
    }
    conns
}

/// Index ranges and scalars of one program call on one grid.
#[derive(Clone)]
struct Setup {
    horizontal: (usize, usize),
    vertical: (usize, usize),
    /// Field parameters with nlev + 1 levels.
    half_levels: &'static [&'static str],
    ints: Vec<(&'static str, i32)>,
    flags: Vec<(&'static str, bool)>,
}

fn zone_start(grid: &Grid, dim: GridDim, zone: Zone) -> usize {
    grid.start(dim, zone).expect("zone")
}

fn local_end(grid: &Grid, dim: GridDim) -> usize {
    grid.end(dim, Zone::Local).expect("zone")
}

/// The calls of `program` to test on `g`.
fn setups(program: &str, g: &TestGrid) -> Vec<Setup> {
    let grid = &g.grid;
    let mut calls = icon_calls(program, g);
    // Programs that only reduce over their neighbours (no direct slot read) also run on every
    // point of a limited-area grid, so that their reductions meet the boundary's -1 entries.
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
const REDUCING_ONLY: &[(&str, GridDim)] = &[
    ("mo_intp_rbf_rbf_vec_interpol_vertex", GridDim::Vertex),
    ("calculate_nabla2_for_w", GridDim::Cell),
    ("compute_tangential_wind", GridDim::Edge),
    (
        "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools",
        GridDim::Edge,
    ),
];

/// ICON's calls of `program` on `g`: the domains of ICON4Py's stencil tests (§2 of the
/// reference) and of the diffusion granule, once per value of each static argument.
fn icon_calls(program: &str, g: &TestGrid) -> Vec<Setup> {
    use GridDim::{Cell, Edge, Vertex};
    let grid = &g.grid;
    let (nc, ne) = (grid.num_cells, grid.num_edges);
    let full_k = (0, NLEV);
    let from = |dim, zone| (zone_start(grid, dim, zone), local_end(grid, dim));
    let setup = |horizontal, vertical| Setup {
        horizontal,
        vertical,
        half_levels: &[],
        ints: vec![],
        flags: vec![],
    };
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
        "setup_fields_for_initial_step" | "scale_k" => vec![setup((0, 0), full_k)],
        "calculate_nabla4" | "calculate_nabla2_and_smag_coefficients_for_vn" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel5), full_k)]
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
            vec![setup(from(Cell, Zone::Nudging), full_k)]
        }
        "calculate_diagnostic_quantities_for_turbulence" => vec![Setup {
            half_levels: &["wgtfac_c", "div_ic", "hdef_ic"],
            ..setup(from(Cell, Zone::Nudging), (1, NLEV))
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
        "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools" => {
            vec![setup(from(Edge, Zone::Nudging), (NLEV - 2, NLEV))]
        }
        "calculate_nabla2_for_z" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel2), full_k)]
        }
        "calculate_nabla2_of_theta"
        | "calculate_nabla2_for_theta"
        | "truly_horizontal_diffusion_nabla_of_theta_over_steep_points"
        | "update_theta_and_exner" => vec![setup(from(Cell, Zone::Nudging), full_k)],
        "apply_diffusion_to_theta_and_exner" => [true, false]
            .into_iter()
            .map(|apply| Setup {
                flags: vec![("apply_zdiffusion_t", apply)],
                ..setup(from(Cell, Zone::Nudging), full_k)
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
            ..setup((0, nc), (1, NLEV))
        }],
        "solve_tridiagonal_matrix_for_w_back_substitution" => {
            vec![setup((0, nc), (1, NLEV))]
        }
        other => panic!("no grid setup for `{other}`"),
    }
}

fn extent(grid: &Grid, dim: &str, nlev: usize) -> usize {
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

/// A call of `program` on `grid`: random inputs in [-1, 1), NaN in pure outputs, the
/// setup's domain and scalars, and every neighbour table of the grid.
fn random_call(signature: &Signature, grid: &Grid, setup: &Setup, seed: u64) -> Call {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut call = Call::new();
    call.tables = tables_of(grid);
    let domain = [
        ("horizontal_start", setup.horizontal.0 as i32),
        ("horizontal_end", setup.horizontal.1 as i32),
        ("vertical_start", setup.vertical.0 as i32),
        ("vertical_end", setup.vertical.1 as i32),
    ];
    for p in &signature.params {
        let name = p.name.as_str();
        match (&p.kind, p.dtype) {
            (ParamKind::Field { dims }, Some(ScalarType::F64)) => {
                let nlev = NLEV + usize::from(setup.half_levels.contains(&name));
                let shape: Vec<usize> = dims.iter().map(|d| extent(grid, d, nlev)).collect();
                let array = if p.role == Role::Out {
                    ArrayD::from_elem(IxDyn(&shape), f64::NAN)
                } else {
                    ArrayD::from_shape_fn(IxDyn(&shape), |_| rng.random_range(-1.0..1.0))
                };
                call.params.insert(name, RefArray::Float64(array));
            }
            (ParamKind::Field { dims }, Some(ScalarType::I32)) if name == "zd_vertoffset" => {
                // Offsets that keep both levels read (k + off and k + off + 1) in the column.
                let shape: Vec<usize> = dims.iter().map(|d| extent(grid, d, NLEV)).collect();
                let offsets = ArrayD::from_shape_fn(IxDyn(&shape), |ix| {
                    let k = ix[2] as i32;
                    rng.random_range(-k..NLEV as i32 - k - 1)
                });
                call.params.insert(name, RefArray::Int32(offsets));
            }
            (ParamKind::Scalar, Some(ScalarType::F64)) => {
                call = call.with_scalar(name, rng.random_range(-1.0..1.0));
            }
            (ParamKind::Scalar, Some(ScalarType::I32)) => {
                let value = domain
                    .iter()
                    .chain(&setup.ints)
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| *v)
                    .unwrap_or_else(|| panic!("{}: no value for `{name}`", signature.program));
                call = call.with_int(name, value);
            }
            (ParamKind::Scalar, Some(ScalarType::Bool)) => {
                let value = setup
                    .flags
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| *v)
                    .unwrap_or_else(|| panic!("{}: no value for `{name}`", signature.program));
                call = call.with_flag(name, value);
            }
            other => panic!(
                "{}: unexpected parameter `{name}`: {other:?}",
                signature.program
            ),
        }
    }
    if call.params.contains("zd_diffcoef") {
        // Points without vertical diffusion (coefficient 0) take the other branch.
        let mut coef = call.params.float64("zd_diffcoef", 2).expect("coef").clone();
        for c in (0..coef.shape()[0]).step_by(3) {
            coef[[c, c % NLEV]] = 0.0;
        }
        call = call.with_field("zd_diffcoef", coef);
    }
    call
}

/// Arguments for `call_dynamic` from a [`Call`]; the outputs it hands back are collected.
struct CallArgs<'a> {
    program: &'a str,
    call: &'a Call,
    outputs: BTreeMap<String, DynField>,
}

impl CallArgs<'_> {
    fn get(&self, name: &str) -> Result<&RefArray, Error> {
        self.call.params.get(name).map_err(|e| Error::Argument {
            program: self.program.to_string(),
            arg: name.to_string(),
            message: e.to_string(),
        })
    }
}

impl ArgSource for CallArgs<'_> {
    fn field(&mut self, name: &str, dims: &[&str], dtype: ScalarType) -> Result<DynField, Error> {
        let data = match (self.get(name)?, dtype) {
            (RefArray::Float64(a), ScalarType::F64) => DynArray::F64(a.clone()),
            (RefArray::Int32(a), ScalarType::I32) => DynArray::I32(a.clone()),
            (RefArray::Bool(a), ScalarType::Bool) => DynArray::Bool(a.clone()),
            (a, t) => {
                return Err(Error::Argument {
                    program: self.program.to_string(),
                    arg: name.to_string(),
                    message: format!("holds {}, expected {}", a.dtype(), t.rust_name()),
                })
            }
        };
        Ok(DynField {
            data,
            origin: vec![0; dims.len()],
        })
    }

    fn scalar(&mut self, name: &str, dtype: ScalarType) -> Result<ScalarValue, Error> {
        let first = |a: &RefArray| -> Option<ScalarValue> {
            Some(match (a, dtype) {
                (RefArray::Float64(a), ScalarType::F64) => ScalarValue::F64(*a.first()?),
                (RefArray::Int32(a), ScalarType::I32) => ScalarValue::I32(*a.first()?),
                (RefArray::Bool(a), ScalarType::Bool) => ScalarValue::Bool(*a.first()?),
                _ => return None,
            })
        };
        let array = self.get(name)?;
        first(array).ok_or_else(|| Error::Argument {
            program: self.program.to_string(),
            arg: name.to_string(),
            message: format!("holds {}, expected {}", array.dtype(), dtype.rust_name()),
        })
    }

    fn output(&mut self, name: &str, value: DynField) -> Result<(), Error> {
        self.outputs.insert(name.to_string(), value);
        Ok(())
    }
}

/// `max |a - e| / max(|a|, |e|)`; NaN matches NaN only.
fn max_rel_err(actual: &ArrayD<f64>, expected: &ArrayD<f64>) -> f64 {
    assert_eq!(actual.shape(), expected.shape());
    actual
        .iter()
        .zip(expected)
        .map(|(&a, &e)| {
            if a == e || (a.is_nan() && e.is_nan()) {
                0.0
            } else if a.is_nan() || e.is_nan() {
                f64::INFINITY
            } else {
                (a - e).abs() / a.abs().max(e.abs())
            }
        })
        .fold(0.0, f64::max)
}

/// Runs every variant of `program` on `g` with both backends; returns the largest error.
fn check_program(program: &str, g: &TestGrid, conns: &Connectivities, seed: u64) -> f64 {
    let entry = programs::find(program).unwrap_or_else(|| panic!("`{program}` not registered"));
    let mut worst = 0.0f64;
    let setups = setups(program, g);
    let embedded_options = Options::new(Backend::Embedded).with_connectivities(conns.clone());
    let signature = (entry.compile)(&embedded_options)
        .unwrap_or_else(|e| panic!("{program}: {e}"))
        .signature();
    for p in signature.params.iter().filter(|p| p.is_static) {
        let name = p.name.as_str();
        let flags = setups
            .iter()
            .filter_map(|s| s.flags.iter().find(|f| f.0 == name));
        let ints = setups
            .iter()
            .filter_map(|s| s.ints.iter().find(|i| i.0 == name));
        let mut values: Vec<i32> = flags
            .map(|f| i32::from(f.1))
            .chain(ints.map(|i| i.1))
            .collect();
        values.sort_unstable();
        values.dedup();
        assert!(
            values.len() >= 2,
            "{program}: static `{name}` takes one value only"
        );
    }
    for (variant, setup) in setups.iter().enumerate() {
        let call = random_call(&signature, &g.grid, setup, seed + variant as u64);
        let mut expected = call.clone();
        reference::run(program, &mut expected)
            .unwrap_or_else(|e| panic!("{program} on {}: reference: {e}", g.label));
        let written: Vec<&str> = signature
            .params
            .iter()
            .filter(|p| p.role != Role::In)
            .map(|p| p.name.as_str())
            .collect();
        // Some outputs are written only under one static value (`dwdx` for `type_shear`
        // 2), but every call must write something.
        let changed = written.iter().any(|name| {
            let (Ok(RefArray::Float64(b)), Ok(RefArray::Float64(a))) =
                (call.params.get(name), expected.params.get(name))
            else {
                panic!("{program}: output `{name}` is not f64")
            };
            a.iter().zip(b).any(|(a, b)| a.to_bits() != b.to_bits())
        });
        assert!(
            changed,
            "{program} on {} (variant {variant}): the reference writes nothing",
            g.label
        );
        for backend in [Backend::Embedded, Backend::Cpu] {
            let options = Options::new(backend).with_connectivities(conns.clone());
            let compiled = (entry.compile)(&options).unwrap_or_else(|e| panic!("{program}: {e}"));
            let mut args = CallArgs {
                program,
                call: &call,
                outputs: BTreeMap::new(),
            };
            let outcome = compiled.call_dynamic(&mut args);
            if backend == Backend::Cpu && g.keeps_boundary_skips() {
                if let Some(&(_, offset)) =
                    CPU_TEMPORARY_MEETS_SKIP.iter().find(|(p, _)| *p == program)
                {
                    let message = match outcome {
                        Err(e) => e.to_string(),
                        Ok(()) => panic!(
                            "{program} now runs on the CPU backend with boundary skip values: \
                             drop it from CPU_TEMPORARY_MEETS_SKIP"
                        ),
                    };
                    assert!(
                        message.contains(&format!("connectivity `{offset}`"))
                            && message.contains("is -1 (no neighbour)"),
                        "{program}: {message}"
                    );
                    continue;
                }
            }
            outcome.unwrap_or_else(|e| panic!("{program} on {} ({backend:?}): {e}", g.label));
            for name in &written {
                let Some(DynArray::F64(got)) = args.outputs.get(*name).map(|f| &f.data) else {
                    panic!("{program} ({backend:?}): no f64 output `{name}`");
                };
                let want = expected.params.float64(name, got.ndim()).expect("output");
                let err = max_rel_err(got, want);
                assert!(
                    err <= RTOL,
                    "{program} on {} ({backend:?}, variant {variant}): `{name}` max rel err {err:e}",
                    g.label
                );
                worst = worst.max(err);
            }
        }
    }
    worst
}

fn check_all_programs(g: &TestGrid) {
    let conns = connectivities_of(&g.grid);
    let icon: Vec<&str> = programs::ALL
        .iter()
        .map(|p| p.name)
        .filter(|name| PROGRAMS.contains(name))
        .collect();
    assert_eq!(icon.len(), PROGRAMS.len(), "every reference has a program");
    for (i, program) in icon.iter().enumerate() {
        let err = check_program(program, g, &conns, 1000 * i as u64 + 7);
        eprintln!(
            "{:<72} {} embedded+cpu: max rel err {err:.1e}",
            program, g.label
        );
    }
}

#[test]
fn every_icon_program_matches_its_reference_on_a_global_grid_with_pentagons() {
    check_all_programs(&global_grid());
}

#[test]
fn every_icon_program_matches_its_reference_on_a_limited_area_grid() {
    check_all_programs(&limited_area_grid());
}

#[test]
fn every_icon_program_matches_its_reference_on_a_limited_area_grid_with_replaced_skips() {
    let g = limited_area_grid_as_icon_runs_it();
    assert!(!g.keeps_boundary_skips());
    check_all_programs(&g);
}

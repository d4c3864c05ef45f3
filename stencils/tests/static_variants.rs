//! ICON4Py's three static variants of a stencil, as `gt4rs::bind!` expresses them:
//! - `none`: the plain program, every bound passed with each call;
//! - `compile_time_domain`: the four domain bounds bound once at `compile()`;
//! - `compile_time_vertical`: only the vertical bounds bound.
//!
//! Each variant runs the ICON programs below on generated grids (a global R2B2 grid, and a
//! limited-area cut of R2B3 with its -1 entries replaced as ICON4Py loads it) on the embedded
//! and CPU backends, with the domains of `icon_on_grids.rs`, once per value of each static
//! argument. Inputs are seeded random numbers in [-1, 1); pure outputs are poisoned with NaN;
//! every output must equal the plain call's bit for bit.

use std::collections::BTreeMap;

use gt4rs::__private::dynamic::{ArgSource, DynArray, DynField, DynProgram};
use gt4rs::__private::embedded::ScalarValue;
use gt4rs::__private::ir::fieldview::Role;
use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, RegionSpec, Zone, TABLE_WIDTHS};
use gt4rs::{Backend, Connectivities, Error, Options, ParamKind, ScalarType, Signature};
use gt4rs_stencils::icon::connectivities::{insert_by_name, target_dim};
use gt4rs_stencils::icon::dsl::{diffusion, solver, velocity_advection};
use gt4rs_stencils::programs;
use ndarray::{ArrayD, IxDyn};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const NLEV: usize = 6;

type CompileBound = fn(&Options, &mut dyn ArgSource) -> Result<Box<dyn DynProgram>, Error>;

/// One program and its two bound variants.
struct Variants {
    name: &'static str,
    compile_time_domain: CompileBound,
    compile_time_vertical: CompileBound,
}

macro_rules! variants {
    ($($module:ident :: $program:ident),* $(,)?) => {
        mod compile_time_domain {
            use super::*;
            gt4rs::bind! { $(
                pub mod $program = $module::$program(
                    horizontal_start, horizontal_end, vertical_start, vertical_end
                );
            )* }
        }
        mod compile_time_vertical {
            use super::*;
            gt4rs::bind! { $(
                pub mod $program = $module::$program(vertical_start, vertical_end);
            )* }
        }
        const VARIANTS: &[Variants] = &[$(
            Variants {
                name: stringify!($program),
                compile_time_domain: |options, source| {
                    let bound = compile_time_domain::$program::Bound::from_source(source)?;
                    Ok(Box::new(compile_time_domain::$program::compile(options, bound)?))
                },
                compile_time_vertical: |options, source| {
                    let bound = compile_time_vertical::$program::Bound::from_source(source)?;
                    Ok(Box::new(compile_time_vertical::$program::compile(options, bound)?))
                },
            },
        )*];
    };
}

variants! {
    diffusion::calculate_nabla4,
    diffusion::apply_diffusion_to_vn,
    diffusion::calculate_nabla2_and_smag_coefficients_for_vn,
    diffusion::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence,
    diffusion::apply_nabla2_and_nabla4_to_vn,
    diffusion::calculate_nabla2_for_w,
    diffusion::apply_nabla2_to_w,
    diffusion::apply_nabla2_to_w_in_upper_damping_layer,
    diffusion::calculate_nabla2_for_z,
    velocity_advection::compute_diagnostics_from_normal_wind,
    velocity_advection::compute_tangential_wind,
    velocity_advection::compute_horizontal_kinetic_energy,
    velocity_advection::interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges,
    solver::solve_tridiagonal_matrix_for_w_forward_sweep,
    solver::solve_tridiagonal_matrix_for_w_back_substitution,
}

struct TestGrid {
    label: &'static str,
    grid: Grid,
    limited_area: bool,
}

fn global_grid() -> TestGrid {
    TestGrid {
        label: "R2B2 global",
        grid: IcosahedralGrid::generate(2, 2).expect("R2B2 generates"),
        limited_area: false,
    }
}

/// A limited-area cut of R2B3 with every -1 replaced by its row's largest valid index, as
/// ICON4Py loads limited-area grids for its stencil tests (`keep_skip_values=False`).
fn limited_area_grid() -> TestGrid {
    let global = IcosahedralGrid::generate(2, 3).expect("R2B3 generates");
    let mut grid = global
        .regional(RegionSpec {
            center_lat_deg: 46.8,
            center_lon_deg: 8.2,
            radius: 3.5e6,
        })
        .expect("regional cut");
    for table in grid.tables.values_mut() {
        for mut row in table.rows_mut() {
            let largest = row.iter().copied().max().unwrap_or(0).max(0);
            row.mapv_inplace(|n| if n < 0 { largest } else { n });
        }
    }
    TestGrid {
        label: "R2B3 limited area",
        grid,
        limited_area: true,
    }
}

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

/// ICON's calls of `program` on `g` (the domains of `icon_on_grids.rs`), once per value of
/// each static argument.
fn icon_calls(program: &str, g: &TestGrid) -> Vec<Setup> {
    use GridDim::{Cell, Edge};
    let grid = &g.grid;
    let (nc, ne) = (grid.num_cells, grid.num_edges);
    let full_k = (0, NLEV);
    let start = |dim, zone| grid.start(dim, zone).expect("zone");
    let end = |dim| grid.end(dim, Zone::Local).expect("zone");
    let from = |dim, zone| (start(dim, zone), end(dim));
    let setup = |horizontal, vertical| Setup {
        horizontal,
        vertical,
        half_levels: &[],
        ints: vec![],
        flags: vec![],
    };
    let w_diffusion = if g.limited_area {
        from(Cell, Zone::Nudging)
    } else {
        from(Cell, Zone::Interior)
    };
    match program {
        "calculate_nabla4" | "calculate_nabla2_and_smag_coefficients_for_vn" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel5), full_k)]
        }
        "apply_nabla2_and_nabla4_to_vn" => {
            vec![setup(from(Edge, Zone::NudgingLevel2), full_k)]
        }
        "apply_diffusion_to_vn" => {
            let (horizontal, nudge) = if g.limited_area {
                (
                    from(Edge, Zone::LateralBoundaryLevel5),
                    start(Edge, Zone::NudgingLevel2),
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
                    ("interior_idx", start(Cell, Zone::Interior) as i32),
                    ("halo_idx", end(Cell) as i32),
                ],
                half_levels: &["w_old", "w", "dwdx", "dwdy"],
                ..setup(w_diffusion, full_k)
            })
            .collect(),
        "calculate_nabla2_for_z" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel2), full_k)]
        }
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

/// The arguments of one call by name: random inputs in [-1, 1), NaN in pure outputs, the
/// setup's domain and scalars. Outputs handed back by `call_dynamic` replace their inputs.
#[derive(Clone)]
struct CallArgs {
    program: &'static str,
    fields: BTreeMap<String, ArrayD<f64>>,
    scalars: BTreeMap<String, ScalarValue>,
}

fn random_call(
    program: &'static str,
    signature: &Signature,
    grid: &Grid,
    setup: &Setup,
    seed: u64,
) -> CallArgs {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut call = CallArgs {
        program,
        fields: BTreeMap::new(),
        scalars: BTreeMap::new(),
    };
    let domain = [
        ("horizontal_start", setup.horizontal.0 as i32),
        ("horizontal_end", setup.horizontal.1 as i32),
        ("vertical_start", setup.vertical.0 as i32),
        ("vertical_end", setup.vertical.1 as i32),
    ];
    for p in &signature.params {
        let name = p.name.as_str();
        let value = match (&p.kind, p.dtype) {
            (ParamKind::Field { dims }, Some(ScalarType::F64)) => {
                let nlev = NLEV + usize::from(setup.half_levels.contains(&name));
                let shape: Vec<usize> = dims.iter().map(|d| extent(grid, d, nlev)).collect();
                let array = if p.role == Role::Out {
                    ArrayD::from_elem(IxDyn(&shape), f64::NAN)
                } else {
                    ArrayD::from_shape_fn(IxDyn(&shape), |_| rng.random_range(-1.0..1.0))
                };
                call.fields.insert(name.to_string(), array);
                continue;
            }
            (ParamKind::Scalar, Some(ScalarType::F64)) => {
                ScalarValue::F64(rng.random_range(-1.0..1.0))
            }
            (ParamKind::Scalar, Some(ScalarType::I32)) => domain
                .iter()
                .chain(&setup.ints)
                .find(|(n, _)| *n == name)
                .map(|(_, v)| ScalarValue::I32(*v))
                .unwrap_or_else(|| panic!("{program}: no value for `{name}`")),
            (ParamKind::Scalar, Some(ScalarType::Bool)) => setup
                .flags
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| ScalarValue::Bool(*v))
                .unwrap_or_else(|| panic!("{program}: no value for `{name}`")),
            other => panic!("{program}: unexpected parameter `{name}`: {other:?}"),
        };
        call.scalars.insert(name.to_string(), value);
    }
    call
}

impl CallArgs {
    fn missing(&self, name: &str, message: &str) -> Error {
        Error::Argument {
            program: self.program.to_string(),
            arg: name.to_string(),
            message: message.to_string(),
        }
    }
}

impl ArgSource for CallArgs {
    fn field(&mut self, name: &str, dims: &[&str], dtype: ScalarType) -> Result<DynField, Error> {
        match (self.fields.get(name), dtype) {
            (Some(a), ScalarType::F64) => Ok(DynField {
                data: DynArray::F64(a.clone()),
                origin: vec![0; dims.len()],
            }),
            _ => Err(self.missing(name, "no f64 field of this name")),
        }
    }

    fn scalar(&mut self, name: &str, _dtype: ScalarType) -> Result<ScalarValue, Error> {
        self.scalars
            .get(name)
            .copied()
            .ok_or_else(|| self.missing(name, "no scalar of this name"))
    }

    fn output(&mut self, name: &str, value: DynField) -> Result<(), Error> {
        match value.data {
            DynArray::F64(a) => {
                self.fields.insert(name.to_string(), a);
                Ok(())
            }
            _ => Err(self.missing(name, "output is not f64")),
        }
    }
}

/// The outputs of `program` after one call with `args`.
fn run(
    program: &dyn DynProgram,
    args: &CallArgs,
    written: &[String],
) -> BTreeMap<String, ArrayD<f64>> {
    let mut args = args.clone();
    program
        .call_dynamic(&mut args)
        .unwrap_or_else(|e| panic!("{}: {e}", program.name()));
    written
        .iter()
        .map(|name| (name.clone(), args.fields[name].clone()))
        .collect()
}

fn bit_equal(a: &ArrayD<f64>, b: &ArrayD<f64>) -> bool {
    a.shape() == b.shape() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn check_variants(g: &TestGrid) {
    let conns = connectivities_of(&g.grid);
    for (index, variants) in VARIANTS.iter().enumerate() {
        let program = variants.name;
        let entry = programs::find(program).unwrap_or_else(|| panic!("`{program}` missing"));
        for backend in [Backend::Embedded, Backend::Cpu] {
            let options = Options::new(backend).with_connectivities(conns.clone());
            let plain = (entry.compile)(&options).unwrap_or_else(|e| panic!("{program}: {e}"));
            let signature = plain.signature();
            let written: Vec<String> = signature
                .params
                .iter()
                .filter(|p| p.role != Role::In)
                .map(|p| p.name.clone())
                .collect();
            for (variant, setup) in icon_calls(program, g).iter().enumerate() {
                let seed = 1000 * index as u64 + variant as u64;
                let args = random_call(program, &signature, &g.grid, setup, seed);
                let expected = run(&*plain, &args, &written);
                assert!(
                    written
                        .iter()
                        .any(|n| !bit_equal(&expected[n], &args.fields[n])),
                    "{program} on {}: the plain call writes nothing",
                    g.label
                );
                let compile: [(&str, CompileBound); 2] = [
                    ("compile_time_domain", variants.compile_time_domain),
                    ("compile_time_vertical", variants.compile_time_vertical),
                ];
                for (label, compile) in compile {
                    let mut source = args.clone();
                    let bound = compile(&options, &mut source)
                        .unwrap_or_else(|e| panic!("{program} ({label}): {e}"));
                    let got = run(&*bound, &args, &written);
                    for name in &written {
                        assert!(
                            bit_equal(&got[name], &expected[name]),
                            "{program} on {} ({backend:?}, {label}, variant {variant}): \
                             `{name}` differs from the plain call",
                            g.label
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn static_variants_match_the_plain_call_on_a_global_grid() {
    check_variants(&global_grid());
}

#[test]
fn static_variants_match_the_plain_call_on_a_limited_area_grid() {
    check_variants(&limited_area_grid());
}

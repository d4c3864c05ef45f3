//! ICON4Py's three static variants of a stencil, as `gt4rs::bind!` expresses them:
//! - `none`: the plain program, every bound passed with each call;
//! - `compile_time_domain`: the four domain bounds bound once at `compile()`;
//! - `compile_time_vertical`: only the vertical bounds bound.
//!
//! Each variant runs every ICON program with domain bounds on generated grids (a global R2B2
//! grid, and a limited-area cut of R2B3 with its -1 entries replaced as ICON4Py loads it) on
//! the embedded and CPU backends, with the domains of `icon_on_grids.rs`, once per value of each
//! static argument. Inputs are seeded random numbers in [-1, 1); pure outputs are poisoned with
//! NaN; every output must equal the plain call's bit for bit.
//!
//! The programs: the 26 of the registry (`programs::ALL`) that take domain bounds, the `mixed`
//! (`vpfloat = f32`) versions of the programs written against ICON's precision names
//! (`interpolation`, `diffusion`, `velocity_advection`, `solver`, `diffusion_utils`: every one
//! with bounds), and the two `diffusion_utils` programs outside the registry that take vertical
//! bounds only (double and mixed)
//! (`init_diffusion_local_fields_for_regular_timestep`,
//! `init_nabla2_factor_in_upper_damping_zone`): with no horizontal bound, their compile-time
//! domain is their compile-time vertical bounds, so both bound variants bind those two.
//!
//! Programs without any domain bound cannot have the bound variants (there is nothing to bind;
//! they write their whole output): `diffusion_utils::{setup_fields_for_initial_step, scale_k,
//! copy_field}` ([`WITHOUT_BOUNDS`]; the registry's are checked to be the only ones left out).
//!
//! The Cartesian programs bound their domains by the field sizes `ni`, `nj` (and `nk` for the
//! 3-D ones): `cartesian_static_variants_match_the_plain_call` binds `ni, nj[, nk]` as the
//! compile-time domain and `nk` as the compile-time vertical bound (`lap` and `laplap` have no
//! vertical dimension, so only the first).

use std::collections::BTreeMap;

use gt4rs::__private::dynamic::{ArgSource, DynArray, DynField, DynProgram};
use gt4rs::__private::embedded::ScalarValue;
use gt4rs::__private::ir::fieldview::Role;
use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, RegionSpec, Zone, TABLE_WIDTHS};
use gt4rs::{Backend, Connectivities, Error, Options, ParamKind, ScalarType, Signature};
use gt4rs_stencils::cartesian::dsl as cartesian;
use gt4rs_stencils::icon::connectivities::{insert_by_name, target_dim};
use gt4rs_stencils::icon::dsl::{
    diffusion, diffusion_utils, interpolation, solver, velocity_advection,
};
use gt4rs_stencils::programs;
use ndarray::{ArrayD, IxDyn};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const NLEV: usize = 6;

type CompilePlain = fn(&Options) -> Result<Box<dyn DynProgram>, Error>;
type CompileBound = fn(&Options, &mut dyn ArgSource) -> Result<Box<dyn DynProgram>, Error>;

/// One program and its two bound variants.
struct Variants {
    /// The path the program is compiled from, for messages.
    path: &'static str,
    plain: CompilePlain,
    compile_time_domain: CompileBound,
    compile_time_vertical: CompileBound,
}

/// The [`Variants`] of program `$($path)::+`, whose bound versions are the modules `$module`
/// of `compile_time_domain` and `compile_time_vertical`.
macro_rules! entry {
    ($module:ident = $first:ident $(:: $rest:ident)*) => {
        Variants {
            path: concat!(stringify!($first) $(, "::", stringify!($rest))*),
            plain: |options| Ok(Box::new($first $(:: $rest)*::compile(options)?)),
            compile_time_domain: |options, source| {
                let bound = compile_time_domain::$module::Bound::from_source(source)?;
                Ok(Box::new(compile_time_domain::$module::compile(options, bound)?))
            },
            compile_time_vertical: |options, source| {
                let bound = compile_time_vertical::$module::Bound::from_source(source)?;
                Ok(Box::new(compile_time_vertical::$module::compile(options, bound)?))
            },
        }
    };
}

macro_rules! variants {
    (
        horizontal_and_vertical: [$($module:ident = $($path:ident)::+),* $(,)?],
        vertical_only: [$($vmodule:ident = $($vpath:ident)::+),* $(,)?] $(,)?
    ) => {
        mod compile_time_domain {
            use super::*;
            gt4rs::bind! {
                $(
                    pub mod $module = $($path)::+(
                        horizontal_start, horizontal_end, vertical_start, vertical_end
                    );
                )*
                $( pub mod $vmodule = $($vpath)::+(vertical_start, vertical_end); )*
            }
        }
        mod compile_time_vertical {
            use super::*;
            gt4rs::bind! {
                $( pub mod $module = $($path)::+(vertical_start, vertical_end); )*
                $( pub mod $vmodule = $($vpath)::+(vertical_start, vertical_end); )*
            }
        }
        const VARIANTS: &[Variants] = &[
            $( entry!($module = $($path)::+), )*
            $( entry!($vmodule = $($vpath)::+), )*
        ];
    };
}

variants! {
    horizontal_and_vertical: [
        mo_intp_rbf_rbf_vec_interpol_vertex =
            interpolation::mo_intp_rbf_rbf_vec_interpol_vertex,
        calculate_nabla4 = diffusion::calculate_nabla4,
        calculate_nabla2_and_smag_coefficients_for_vn =
            diffusion::calculate_nabla2_and_smag_coefficients_for_vn,
        apply_nabla2_and_nabla4_to_vn = diffusion::apply_nabla2_and_nabla4_to_vn,
        apply_nabla2_and_nabla4_global_to_vn = diffusion::apply_nabla2_and_nabla4_global_to_vn,
        apply_nabla2_to_vn_in_lateral_boundary =
            diffusion::apply_nabla2_to_vn_in_lateral_boundary,
        apply_diffusion_to_vn = diffusion::apply_diffusion_to_vn,
        temporary_fields_for_turbulence_diagnostics =
            diffusion::temporary_fields_for_turbulence_diagnostics,
        calculate_diagnostic_quantities_for_turbulence =
            diffusion::calculate_diagnostic_quantities_for_turbulence,
        calculate_nabla2_for_w = diffusion::calculate_nabla2_for_w,
        apply_nabla2_to_w = diffusion::apply_nabla2_to_w,
        apply_nabla2_to_w_in_upper_damping_layer =
            diffusion::apply_nabla2_to_w_in_upper_damping_layer,
        apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence =
            diffusion::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence,
        calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools =
            diffusion::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools,
        calculate_nabla2_for_z = diffusion::calculate_nabla2_for_z,
        calculate_nabla2_of_theta = diffusion::calculate_nabla2_of_theta,
        calculate_nabla2_for_theta = diffusion::calculate_nabla2_for_theta,
        truly_horizontal_diffusion_nabla_of_theta_over_steep_points =
            diffusion::truly_horizontal_diffusion_nabla_of_theta_over_steep_points,
        update_theta_and_exner = diffusion::update_theta_and_exner,
        apply_diffusion_to_theta_and_exner = diffusion::apply_diffusion_to_theta_and_exner,
        compute_tangential_wind = velocity_advection::compute_tangential_wind,
        compute_horizontal_kinetic_energy = velocity_advection::compute_horizontal_kinetic_energy,
        interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges =
            velocity_advection::interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges,
        compute_diagnostics_from_normal_wind =
            velocity_advection::compute_diagnostics_from_normal_wind,
        solve_tridiagonal_matrix_for_w_forward_sweep =
            solver::solve_tridiagonal_matrix_for_w_forward_sweep,
        solve_tridiagonal_matrix_for_w_back_substitution =
            solver::solve_tridiagonal_matrix_for_w_back_substitution,
        mixed_mo_intp_rbf_rbf_vec_interpol_vertex =
            interpolation::mixed::mo_intp_rbf_rbf_vec_interpol_vertex,
        mixed_calculate_nabla4 = diffusion::mixed::calculate_nabla4,
        mixed_calculate_nabla2_for_w = diffusion::mixed::calculate_nabla2_for_w,
        mixed_apply_nabla2_to_w = diffusion::mixed::apply_nabla2_to_w,
        mixed_apply_nabla2_to_w_in_upper_damping_layer =
            diffusion::mixed::apply_nabla2_to_w_in_upper_damping_layer,
        mixed_calculate_nabla2_for_z = diffusion::mixed::calculate_nabla2_for_z,
        mixed_calculate_nabla2_of_theta = diffusion::mixed::calculate_nabla2_of_theta,
        mixed_calculate_nabla2_for_theta = diffusion::mixed::calculate_nabla2_for_theta,
        mixed_compute_tangential_wind = velocity_advection::mixed::compute_tangential_wind,
        mixed_compute_horizontal_kinetic_energy =
            velocity_advection::mixed::compute_horizontal_kinetic_energy,
        mixed_calculate_nabla2_and_smag_coefficients_for_vn = diffusion::mixed::calculate_nabla2_and_smag_coefficients_for_vn,
        mixed_apply_nabla2_and_nabla4_to_vn = diffusion::mixed::apply_nabla2_and_nabla4_to_vn,
        mixed_apply_nabla2_and_nabla4_global_to_vn = diffusion::mixed::apply_nabla2_and_nabla4_global_to_vn,
        mixed_apply_nabla2_to_vn_in_lateral_boundary = diffusion::mixed::apply_nabla2_to_vn_in_lateral_boundary,
        mixed_apply_diffusion_to_vn = diffusion::mixed::apply_diffusion_to_vn,
        mixed_temporary_fields_for_turbulence_diagnostics = diffusion::mixed::temporary_fields_for_turbulence_diagnostics,
        mixed_calculate_diagnostic_quantities_for_turbulence = diffusion::mixed::calculate_diagnostic_quantities_for_turbulence,
        mixed_apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence = diffusion::mixed::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence,
        mixed_calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools = diffusion::mixed::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools,
        mixed_truly_horizontal_diffusion_nabla_of_theta_over_steep_points = diffusion::mixed::truly_horizontal_diffusion_nabla_of_theta_over_steep_points,
        mixed_update_theta_and_exner = diffusion::mixed::update_theta_and_exner,
        mixed_apply_diffusion_to_theta_and_exner = diffusion::mixed::apply_diffusion_to_theta_and_exner,
        mixed_interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges = velocity_advection::mixed::interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges,
        mixed_compute_diagnostics_from_normal_wind = velocity_advection::mixed::compute_diagnostics_from_normal_wind,
        mixed_solve_tridiagonal_matrix_for_w_forward_sweep = solver::mixed::solve_tridiagonal_matrix_for_w_forward_sweep,
        mixed_solve_tridiagonal_matrix_for_w_back_substitution = solver::mixed::solve_tridiagonal_matrix_for_w_back_substitution,
    ],
    vertical_only: [
        init_diffusion_local_fields_for_regular_timestep =
            diffusion_utils::init_diffusion_local_fields_for_regular_timestep,
        init_nabla2_factor_in_upper_damping_zone =
            diffusion_utils::init_nabla2_factor_in_upper_damping_zone,
        mixed_init_diffusion_local_fields_for_regular_timestep =
            diffusion_utils::mixed::init_diffusion_local_fields_for_regular_timestep,
        mixed_init_nabla2_factor_in_upper_damping_zone =
            diffusion_utils::mixed::init_nabla2_factor_in_upper_damping_zone,
    ],
}

/// ICON programs without domain bounds, which therefore have no bound variants.
const WITHOUT_BOUNDS: &[&str] = &["setup_fields_for_initial_step", "scale_k", "copy_field"];

const DOMAIN_BOUNDS: [&str; 4] = [
    "horizontal_start",
    "horizontal_end",
    "vertical_start",
    "vertical_end",
];

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
    use GridDim::{Cell, Edge, Vertex};
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
        "mo_intp_rbf_rbf_vec_interpol_vertex" => {
            vec![setup(from(Vertex, Zone::LateralBoundaryLevel2), full_k)]
        }
        "calculate_nabla4" | "calculate_nabla2_and_smag_coefficients_for_vn" => {
            vec![setup(from(Edge, Zone::LateralBoundaryLevel5), full_k)]
        }
        "apply_nabla2_and_nabla4_to_vn" | "apply_nabla2_and_nabla4_global_to_vn" => {
            vec![setup(from(Edge, Zone::NudgingLevel2), full_k)]
        }
        "apply_nabla2_to_vn_in_lateral_boundary" => {
            let (first, last) = (
                start(Edge, Zone::LateralBoundaryLevel5),
                start(Edge, Zone::NudgingLevel2),
            );
            // A global grid has no lateral boundary; the stencil runs on every edge there.
            let horizontal = if last > first { (first, last) } else { (0, ne) };
            vec![setup(horizontal, full_k)]
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
                    ("interior_idx", start(Cell, Zone::Interior) as i32),
                    ("halo_idx", end(Cell) as i32),
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
        // The diffusion granule's calls: every full level, from the `nlev + 1` half-level
        // heights `vct_a`.
        "init_diffusion_local_fields_for_regular_timestep" => vec![Setup {
            half_levels: &["vect_a"],
            ..setup((0, 0), full_k)
        }],
        "init_nabla2_factor_in_upper_damping_zone" => vec![Setup {
            half_levels: &["physical_heights"],
            ints: vec![("nrdmax", 3)],
            ..setup((0, 0), full_k)
        }],
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

/// The arguments of one call by name. Outputs handed back by `call_dynamic` replace their
/// inputs.
#[derive(Clone)]
struct CallArgs {
    program: &'static str,
    fields: BTreeMap<String, DynArray>,
    scalars: BTreeMap<String, ScalarValue>,
}

/// `zd_vertoffset` (Cell, C2E2C, K): ICON's offsets point down the column (0, 1 or 2 levels)
/// where both levels read, `k + off` and `k + off + 1`, stay inside it; on the lowest level,
/// where no such offset exists, one that points up (as ICON4Py's stencil test draws them).
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

/// Random inputs in [-1, 1) (f32 where the program takes f32), NaN in pure outputs, the
/// setup's domain and scalars; `zd_diffcoef` is 0 at some points, so that both sides of
/// `apply_diffusion_to_theta_and_exner`'s selection run.
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
        if let ParamKind::Field { dims } = &p.kind {
            let nlev = NLEV + usize::from(setup.half_levels.contains(&name));
            let shape: Vec<usize> = dims.iter().map(|d| extent(grid, d, nlev)).collect();
            let poisoned = p.role == Role::Out;
            let array = match p.dtype {
                Some(ScalarType::F64) if poisoned => {
                    DynArray::F64(ArrayD::from_elem(IxDyn(&shape), f64::NAN))
                }
                Some(ScalarType::F32) if poisoned => {
                    DynArray::F32(ArrayD::from_elem(IxDyn(&shape), f32::NAN))
                }
                Some(ScalarType::F64) => {
                    DynArray::F64(ArrayD::from_shape_fn(IxDyn(&shape), |_| {
                        rng.random_range(-1.0..1.0)
                    }))
                }
                Some(ScalarType::F32) => {
                    DynArray::F32(ArrayD::from_shape_fn(IxDyn(&shape), |_| {
                        rng.random_range(-1.0..1.0)
                    }))
                }
                Some(ScalarType::I32) if name == "zd_vertoffset" => {
                    DynArray::I32(vertical_offsets(&shape, &mut rng))
                }
                other => panic!("{program}: unexpected field `{name}`: {other:?}"),
            };
            call.fields.insert(name.to_string(), array);
            continue;
        }
        let value = match (&p.kind, p.dtype) {
            (ParamKind::Scalar, Some(ScalarType::F64)) => {
                ScalarValue::F64(rng.random_range(-1.0..1.0))
            }
            (ParamKind::Scalar, Some(ScalarType::F32)) => {
                ScalarValue::F32(rng.random_range(-1.0..1.0))
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
    if let Some(DynArray::F64(coef)) = call.fields.get_mut("zd_diffcoef") {
        let nlev = coef.shape()[1];
        for c in (0..coef.shape()[0]).step_by(3) {
            coef[[c, c % nlev]] = 0.0;
        }
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
        match self.fields.get(name) {
            Some(a) if a.dtype() == dtype => Ok(DynField {
                data: a.clone(),
                origin: vec![0; dims.len()],
            }),
            _ => Err(self.missing(name, "no field of this name and dtype")),
        }
    }

    fn scalar(&mut self, name: &str, _dtype: ScalarType) -> Result<ScalarValue, Error> {
        self.scalars
            .get(name)
            .copied()
            .ok_or_else(|| self.missing(name, "no scalar of this name"))
    }

    fn output(&mut self, name: &str, value: DynField) -> Result<(), Error> {
        self.fields.insert(name.to_string(), value.data);
        Ok(())
    }
}

/// The outputs of `program` after one call with `args`.
fn run(
    program: &dyn DynProgram,
    args: &CallArgs,
    written: &[String],
) -> BTreeMap<String, DynArray> {
    let mut args = args.clone();
    program
        .call_dynamic(&mut args)
        .unwrap_or_else(|e| panic!("{}: {e}", program.name()));
    written
        .iter()
        .map(|name| (name.clone(), args.fields[name].clone()))
        .collect()
}

/// Equal shapes and bits (so NaN equals NaN of the same payload).
fn bit_equal(a: &DynArray, b: &DynArray) -> bool {
    match (a, b) {
        (DynArray::F64(a), DynArray::F64(b)) => {
            a.shape() == b.shape() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
        }
        (DynArray::F32(a), DynArray::F32(b)) => {
            a.shape() == b.shape() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
        }
        (a, b) => a == b,
    }
}

/// The parameters `program` writes.
fn written_by(signature: &Signature) -> Vec<String> {
    signature
        .params
        .iter()
        .filter(|p| p.role != Role::In)
        .map(|p| p.name.clone())
        .collect()
}

/// Runs both bound variants of `variants` with `args` and compares every output with the
/// plain call's (`expected`).
fn check_bound(
    variants: &Variants,
    options: &Options,
    args: &CallArgs,
    written: &[String],
    expected: &BTreeMap<String, DynArray>,
    context: &str,
) {
    let compile: [(&str, CompileBound); 2] = [
        ("compile_time_domain", variants.compile_time_domain),
        ("compile_time_vertical", variants.compile_time_vertical),
    ];
    for (label, compile) in compile {
        let mut source = args.clone();
        let bound = compile(options, &mut source)
            .unwrap_or_else(|e| panic!("{} ({label}): {e}", variants.path));
        let got = run(&*bound, args, written);
        for name in written {
            assert!(
                bit_equal(&got[name], &expected[name]),
                "{} {context} ({label}): `{name}` differs from the plain call",
                variants.path
            );
        }
    }
}

fn check_variants(g: &TestGrid) {
    let conns = connectivities_of(&g.grid);
    for (index, variants) in VARIANTS.iter().enumerate() {
        for backend in [Backend::Embedded, Backend::Cpu] {
            let options = Options::new(backend).with_connectivities(conns.clone());
            let plain =
                (variants.plain)(&options).unwrap_or_else(|e| panic!("{}: {e}", variants.path));
            let program = plain.name();
            let signature = plain.signature();
            let written = written_by(&signature);
            let calls = icon_calls(program, g);
            assert_static_values_covered(variants.path, &signature, &calls);
            for (variant, setup) in calls.iter().enumerate() {
                let seed = 1000 * index as u64 + variant as u64;
                let args = random_call(program, &signature, &g.grid, setup, seed);
                let expected = run(&*plain, &args, &written);
                assert!(
                    written
                        .iter()
                        .any(|n| !bit_equal(&expected[n], &args.fields[n])),
                    "{} on {}: the plain call writes nothing",
                    variants.path,
                    g.label
                );
                let context = format!("on {} ({backend:?}, variant {variant})", g.label);
                check_bound(variants, &options, &args, &written, &expected, &context);
            }
        }
        eprintln!(
            "{:<84} {}: bit-equal on embedded and cpu",
            variants.path, g.label
        );
    }
}

/// Every static argument of the program takes at least two values over `calls`.
fn assert_static_values_covered(path: &str, signature: &Signature, calls: &[Setup]) {
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
            "{path}: static `{name}` takes one value only"
        );
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

/// Every ICON program of the registry with domain bounds has its variants here; the others
/// have no bound at all.
#[test]
fn every_registered_icon_program_with_domain_bounds_has_its_variants() {
    let conns = connectivities_of(&global_grid().grid);
    let options = Options::new(Backend::Embedded).with_connectivities(conns);
    let covered: Vec<&str> = VARIANTS
        .iter()
        .map(|v| {
            (v.plain)(&options)
                .unwrap_or_else(|e| panic!("{}: {e}", v.path))
                .name()
        })
        .collect();
    let cartesian: Vec<&str> = CARTESIAN.iter().map(|c| c.program).collect();
    for entry in programs::ALL {
        if cartesian.contains(&entry.name) {
            continue;
        }
        let signature = (entry.compile)(&options)
            .unwrap_or_else(|e| panic!("{}: {e}", entry.name))
            .signature();
        let has_bounds = signature
            .params
            .iter()
            .any(|p| DOMAIN_BOUNDS.contains(&p.name.as_str()));
        if has_bounds {
            assert!(
                covered.contains(&entry.name),
                "`{}` takes domain bounds but has no variants here",
                entry.name
            );
        } else {
            assert!(
                WITHOUT_BOUNDS.contains(&entry.name),
                "`{}` has no domain bounds: list it in WITHOUT_BOUNDS",
                entry.name
            );
        }
    }
    for name in WITHOUT_BOUNDS {
        assert!(
            !covered.contains(name),
            "`{name}` is both covered and left out"
        );
    }
    let copy = diffusion_utils::copy_field::compile(&options).expect("compiles");
    assert!(copy
        .signature()
        .params
        .iter()
        .all(|p| !DOMAIN_BOUNDS.contains(&p.name.as_str())));
}

// ---------------------------------------------------------------------------------------------
// Cartesian programs: domains bounded by the field sizes
// ---------------------------------------------------------------------------------------------

mod cartesian_domain {
    use super::*;
    gt4rs::bind! {
        pub mod lap = cartesian::lap(ni, nj);
        pub mod laplap = cartesian::laplap(ni, nj);
        pub mod hdiff = cartesian::hdiff(ni, nj, nk);
        pub mod vadv = cartesian::vadv(ni, nj, nk);
    }
}

mod cartesian_vertical {
    use super::*;
    gt4rs::bind! {
        pub mod hdiff = cartesian::hdiff(nk);
        pub mod vadv = cartesian::vadv(nk);
    }
}

/// A Cartesian program and its bound variants (compile-time vertical only with a K dimension).
struct CartesianVariants {
    program: &'static str,
    plain: CompilePlain,
    bound: &'static [(&'static str, CompileBound)],
}

macro_rules! cartesian_bound {
    ($label:literal, $module:ident :: $program:ident) => {
        ($label, |options, source| {
            let bound = $module::$program::Bound::from_source(source)?;
            Ok(Box::new($module::$program::compile(options, bound)?))
        })
    };
}

const CARTESIAN: &[CartesianVariants] = &[
    CartesianVariants {
        program: "lap",
        plain: |options| Ok(Box::new(cartesian::lap::compile(options)?)),
        bound: &[cartesian_bound!(
            "compile_time_domain",
            cartesian_domain::lap
        )],
    },
    CartesianVariants {
        program: "laplap",
        plain: |options| Ok(Box::new(cartesian::laplap::compile(options)?)),
        bound: &[cartesian_bound!(
            "compile_time_domain",
            cartesian_domain::laplap
        )],
    },
    CartesianVariants {
        program: "hdiff",
        plain: |options| Ok(Box::new(cartesian::hdiff::compile(options)?)),
        bound: &[
            cartesian_bound!("compile_time_domain", cartesian_domain::hdiff),
            cartesian_bound!("compile_time_vertical", cartesian_vertical::hdiff),
        ],
    },
    CartesianVariants {
        program: "vadv",
        plain: |options| Ok(Box::new(cartesian::vadv::compile(options)?)),
        bound: &[
            cartesian_bound!("compile_time_domain", cartesian_domain::vadv),
            cartesian_bound!("compile_time_vertical", cartesian_vertical::vadv),
        ],
    },
];

/// Random inputs in [-1, 1) over `ni × nj (× nk)` (`wcon` one more in I, as vadv reads
/// `wcon` at I + 1), NaN in pure outputs, and the sizes as scalars.
fn cartesian_call(
    program: &'static str,
    signature: &Signature,
    (ni, nj, nk): (usize, usize, usize),
    seed: u64,
) -> CallArgs {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut call = CallArgs {
        program,
        fields: BTreeMap::new(),
        scalars: BTreeMap::new(),
    };
    for p in &signature.params {
        let name = p.name.as_str();
        match (&p.kind, p.dtype) {
            (ParamKind::Field { dims }, Some(ScalarType::F64)) => {
                let shape: Vec<usize> = dims
                    .iter()
                    .map(|d| match d.as_str() {
                        "I" => ni + usize::from(name == "wcon"),
                        "J" => nj,
                        "K" => nk,
                        other => panic!("{program}: unknown dimension `{other}`"),
                    })
                    .collect();
                let array = if p.role == Role::Out {
                    ArrayD::from_elem(IxDyn(&shape), f64::NAN)
                } else {
                    ArrayD::from_shape_fn(IxDyn(&shape), |_| rng.random_range(-1.0..1.0))
                };
                call.fields.insert(name.to_string(), DynArray::F64(array));
            }
            (ParamKind::Scalar, Some(ScalarType::F64)) => {
                let value = ScalarValue::F64(rng.random_range(0.1..1.0));
                call.scalars.insert(name.to_string(), value);
            }
            (ParamKind::Scalar, Some(ScalarType::I32)) => {
                let size = match name {
                    "ni" => ni,
                    "nj" => nj,
                    "nk" => nk,
                    other => panic!("{program}: unexpected size `{other}`"),
                };
                call.scalars
                    .insert(name.to_string(), ScalarValue::I32(size as i32));
            }
            other => panic!("{program}: unexpected parameter `{name}`: {other:?}"),
        }
    }
    call
}

#[test]
fn cartesian_static_variants_match_the_plain_call() {
    for (index, c) in CARTESIAN.iter().enumerate() {
        for backend in [Backend::Embedded, Backend::Cpu] {
            let options = Options::new(backend);
            let plain = (c.plain)(&options).unwrap_or_else(|e| panic!("{}: {e}", c.program));
            let signature = plain.signature();
            let written = written_by(&signature);
            for (variant, sizes) in [(9, 11, 5), (12, 8, 3)].into_iter().enumerate() {
                let seed = 1000 * index as u64 + variant as u64;
                let args = cartesian_call(c.program, &signature, sizes, seed);
                let expected = run(&*plain, &args, &written);
                assert!(
                    written
                        .iter()
                        .any(|n| !bit_equal(&expected[n], &args.fields[n])),
                    "{}: the plain call writes nothing",
                    c.program
                );
                for (label, compile) in c.bound {
                    let mut source = args.clone();
                    let bound = compile(&options, &mut source)
                        .unwrap_or_else(|e| panic!("{} ({label}): {e}", c.program));
                    let got = run(&*bound, &args, &written);
                    for name in &written {
                        assert!(
                            bit_equal(&got[name], &expected[name]),
                            "{} on {sizes:?} ({backend:?}, {label}): `{name}` differs from \
                             the plain call",
                            c.program
                        );
                    }
                }
            }
        }
    }
}

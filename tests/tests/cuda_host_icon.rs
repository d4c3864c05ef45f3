//! The CUDA kernels of every stencil of `gt4rs-stencils` (the ICON programs and the Cartesian
//! ones) executed on the host (`gt4rs_tests::cuda_host`) and compared with the CPU backend over
//! whole arrays. ICON programs run on a global R2B2 grid (pentagon rows hold a -1 in V2E, V2C
//! and V2E2V) and on a limited-area cut of R2B3 that keeps its boundary -1 entries, with the
//! domains of ICON's calls (`stencils/tests/icon_on_grids.rs`), once with static arguments
//! passed at run time and once per value compiled in (`GT4RS_STATIC_S<param>` defines), each
//! with one of the tunings. Inputs are seeded random numbers in [-1, 1); pure outputs are NaN
//! before the run. Skips where g++ is missing.

use gt4rs::__private::cuda_source::Translation;
use gt4rs::__private::dynamic::{DynArray, DynField};
use gt4rs::__private::embedded::ScalarValue;
use gt4rs::__private::ir::fieldview::Role;
use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, RegionSpec, Zone, TABLE_WIDTHS};
use gt4rs::{Backend, Connectivities, Options, ParamKind, ScalarType};
use gt4rs_stencils::cartesian::dsl as cartesian;
use gt4rs_stencils::icon::connectivities::{insert_by_name, target_dim};
use gt4rs_stencils::icon::dsl::{
    diffusion, diffusion_utils, interpolation, solver, velocity_advection,
};
use gt4rs_stencils::programs;
use gt4rs_tests::cuda_host::{check_against_cpu, gxx_available, NamedArgs, TUNINGS};
use ndarray::{ArrayD, IxDyn};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const NLEV: usize = 6;
/// The CPU backend and the emulated kernels call the same libm for the same operations in
/// the same order; they agree bit for bit today.
const RTOL: f64 = 0.0;

macro_rules! translations {
    ($($module:ident :: $program:ident),* $(,)?) => {
        vec![$(Translation {
            name: $module::$program::NAME,
            source: $module::$program::cuda::SOURCE,
            kernels: $module::$program::cuda::KERNELS,
            unsupported: $module::$program::cuda::UNSUPPORTED,
            program: $module::$program::ir(),
        }),*]
    };
}

fn all() -> Vec<Translation> {
    translations![
        interpolation::mo_intp_rbf_rbf_vec_interpol_vertex,
        diffusion_utils::setup_fields_for_initial_step,
        diffusion_utils::scale_k,
        diffusion::calculate_nabla4,
        diffusion::calculate_nabla2_and_smag_coefficients_for_vn,
        diffusion::apply_nabla2_and_nabla4_to_vn,
        diffusion::apply_nabla2_and_nabla4_global_to_vn,
        diffusion::apply_nabla2_to_vn_in_lateral_boundary,
        diffusion::apply_diffusion_to_vn,
        diffusion::temporary_fields_for_turbulence_diagnostics,
        diffusion::calculate_diagnostic_quantities_for_turbulence,
        diffusion::calculate_nabla2_for_w,
        diffusion::apply_nabla2_to_w,
        diffusion::apply_nabla2_to_w_in_upper_damping_layer,
        diffusion::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence,
        diffusion::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools,
        diffusion::calculate_nabla2_for_z,
        diffusion::calculate_nabla2_of_theta,
        diffusion::calculate_nabla2_for_theta,
        diffusion::truly_horizontal_diffusion_nabla_of_theta_over_steep_points,
        diffusion::update_theta_and_exner,
        diffusion::apply_diffusion_to_theta_and_exner,
        velocity_advection::compute_tangential_wind,
        velocity_advection::compute_horizontal_kinetic_energy,
        velocity_advection::interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges,
        velocity_advection::compute_diagnostics_from_normal_wind,
        solver::solve_tridiagonal_matrix_for_w_forward_sweep,
        solver::solve_tridiagonal_matrix_for_w_back_substitution,
        cartesian::lap,
        cartesian::laplap,
        cartesian::hdiff,
        cartesian::vadv,
    ]
}

fn translation(name: &str) -> Translation {
    all()
        .into_iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("`{name}` is not listed"))
}

#[test]
fn the_list_covers_every_program_of_the_registry() {
    let listed: Vec<&str> = all().iter().map(|t| t.name).collect();
    let registered: Vec<&str> = programs::ALL.iter().map(|p| p.name).collect();
    assert_eq!(listed, registered);
}

fn skip() -> bool {
    if gxx_available() {
        return false;
    }
    eprintln!("skipped: no g++");
    true
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

/// Index ranges and scalars of one call.
#[derive(Clone)]
struct Setup {
    horizontal: (usize, usize),
    vertical: (usize, usize),
    /// Field parameters with nlev + 1 levels.
    half_levels: &'static [&'static str],
    ints: Vec<(&'static str, i32)>,
    flags: Vec<(&'static str, bool)>,
}

/// ICON's calls of `program` on `g` (as `stencils/tests/icon_on_grids.rs` makes them), once
/// per value of each static argument; programs that only reduce over neighbours also run
/// over every point of the limited-area grid, so that their reductions meet its -1 entries.
fn icon_calls(program: &str, g: &TestGrid) -> Vec<Setup> {
    use GridDim::{Cell, Edge, Vertex};
    let grid = &g.grid;
    let (nc, ne) = (grid.num_cells, grid.num_edges);
    let full_k = (0, NLEV);
    let zone = |dim, zone| grid.start(dim, zone).expect("zone");
    let end = |dim| grid.end(dim, Zone::Local).expect("zone");
    let from = |dim, z| (zone(dim, z), end(dim));
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
    let mut calls = match program {
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
            let start = zone(Edge, Zone::LateralBoundaryLevel5);
            let stop = zone(Edge, Zone::NudgingLevel2);
            let horizontal = if stop > start { (start, stop) } else { (0, ne) };
            vec![setup(horizontal, full_k)]
        }
        "apply_diffusion_to_vn" => {
            let (horizontal, nudge) = if g.limited_area {
                (
                    from(Edge, Zone::LateralBoundaryLevel5),
                    zone(Edge, Zone::NudgingLevel2),
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
                    ("interior_idx", zone(Cell, Zone::Interior) as i32),
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
        other => panic!("no grid setup for `{other}`"),
    };
    let reducing_only = [
        ("mo_intp_rbf_rbf_vec_interpol_vertex", Vertex),
        ("calculate_nabla2_for_w", Cell),
        ("compute_tangential_wind", Edge),
        (
            "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools",
            Edge,
        ),
    ];
    if g.limited_area {
        if let Some(&(_, dim)) = reducing_only.iter().find(|(p, _)| *p == program) {
            let whole = Setup {
                horizontal: (0, grid.size(dim)),
                ..calls[0].clone()
            };
            calls.push(whole);
        }
    }
    calls
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

/// Random inputs in [-1, 1), NaN in pure outputs, the setup's domain and scalars.
fn random_call(t: &Translation, grid: &Grid, setup: &Setup, seed: u64) -> NamedArgs {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut args = NamedArgs {
        program: t.name.to_string(),
        ..NamedArgs::default()
    };
    let domain = [
        ("horizontal_start", setup.horizontal.0 as i32),
        ("horizontal_end", setup.horizontal.1 as i32),
        ("vertical_start", setup.vertical.0 as i32),
        ("vertical_end", setup.vertical.1 as i32),
    ];
    let signature = gt4rs::Signature::of(t.program);
    for p in &signature.params {
        let name = p.name.as_str();
        match (&p.kind, p.dtype) {
            (ParamKind::Field { dims }, Some(ScalarType::F64 | ScalarType::F32)) => {
                let nlev = NLEV + usize::from(setup.half_levels.contains(&name));
                let shape: Vec<usize> = dims.iter().map(|d| extent(grid, d, nlev)).collect();
                let array = if p.role == Role::Out {
                    ArrayD::from_elem(IxDyn(&shape), f64::NAN)
                } else {
                    ArrayD::from_shape_fn(IxDyn(&shape), |_| rng.random_range(-1.0..1.0))
                };
                let data = if p.dtype == Some(ScalarType::F32) {
                    DynArray::F32(array.mapv(|v| v as f32))
                } else {
                    DynArray::F64(array)
                };
                args.fields.insert(
                    name.to_string(),
                    DynField {
                        data,
                        origin: vec![0; shape.len()],
                    },
                );
            }
            (ParamKind::Field { dims }, Some(ScalarType::I32)) if name == "zd_vertoffset" => {
                let shape: Vec<usize> = dims.iter().map(|d| extent(grid, d, NLEV)).collect();
                let offsets = ArrayD::from_shape_fn(IxDyn(&shape), |ix| {
                    let k = ix[2] as i32;
                    rng.random_range(-k..NLEV as i32 - k - 1)
                });
                args.fields.insert(
                    name.to_string(),
                    DynField {
                        data: DynArray::I32(offsets),
                        origin: vec![0; shape.len()],
                    },
                );
            }
            (ParamKind::Scalar, Some(ScalarType::F64)) => {
                args.scalars
                    .insert(name.into(), ScalarValue::F64(rng.random_range(-1.0..1.0)));
            }
            (ParamKind::Scalar, Some(ScalarType::F32)) => {
                args.scalars.insert(
                    name.into(),
                    ScalarValue::F32(rng.random_range(-1.0f32..1.0)),
                );
            }
            (ParamKind::Scalar, Some(ScalarType::I32)) => {
                let value = domain
                    .iter()
                    .chain(&setup.ints)
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| *v)
                    .unwrap_or_else(|| panic!("{}: no value for `{name}`", t.name));
                args.scalars.insert(name.into(), ScalarValue::I32(value));
            }
            (ParamKind::Scalar, Some(ScalarType::Bool)) => {
                let value = setup
                    .flags
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| *v)
                    .unwrap_or_else(|| panic!("{}: no value for `{name}`", t.name));
                args.scalars.insert(name.into(), ScalarValue::Bool(value));
            }
            other => panic!("{}: unexpected parameter `{name}`: {other:?}", t.name),
        }
    }
    if let Some(DynField {
        data: DynArray::F64(coef),
        ..
    }) = args.fields.get_mut("zd_diffcoef")
    {
        // Points without vertical diffusion (coefficient 0) take the other branch.
        for c in (0..coef.shape()[0]).step_by(3) {
            coef[[c, c % NLEV]] = 0.0;
        }
    }
    args
}

/// Runs every call of every ICON program of `names` on `g`: each call once with its static
/// arguments at run time and once with them compiled in, each with another tuning.
fn check_icon_programs(g: &TestGrid, names: &[&str]) {
    let conns = connectivities_of(&g.grid);
    let cpu_options = Options::new(Backend::Cpu).with_connectivities(conns);
    let mut failures = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let t = translation(name);
        let entry = programs::find(name).expect("registered");
        let cpu = (entry.compile)(&cpu_options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let statics: Vec<&str> = t
            .program
            .params
            .iter()
            .filter(|p| p.is_static)
            .map(|p| p.name.as_str())
            .collect();
        for (variant, setup) in icon_calls(name, g).iter().enumerate() {
            let args = random_call(&t, &g.grid, setup, 100 * i as u64 + variant as u64);
            let tuning = TUNINGS[(i + variant) % TUNINGS.len()];
            let mut runs = vec![(cpu_options.clone(), tuning)];
            if !statics.is_empty() {
                let mut compiled_in = cpu_options.clone();
                for s in &statics {
                    compiled_in = match args.scalars[*s] {
                        ScalarValue::Bool(b) => compiled_in.with_static_arg(name, s, b),
                        ScalarValue::I32(v) => compiled_in.with_static_arg(name, s, v),
                        other => panic!("{name}: static `{s}` = {other:?}"),
                    };
                }
                runs.push((compiled_in, TUNINGS[(i + variant + 1) % TUNINGS.len()]));
            }
            for (options, tuning) in runs {
                match check_against_cpu(&*cpu, &t, &options, &args, &[tuning], RTOL) {
                    Ok(worst) => eprintln!(
                        "{name:<72} {} variant {variant}: agrees (max rel diff {worst:.1e})",
                        g.label
                    ),
                    Err(e) => failures.push(format!("{} variant {variant}: {e}", g.label)),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const INTERPOLATION_AND_NABLA: &[&str] = &[
    "mo_intp_rbf_rbf_vec_interpol_vertex",
    "setup_fields_for_initial_step",
    "scale_k",
    "calculate_nabla4",
    "calculate_nabla2_and_smag_coefficients_for_vn",
    "apply_nabla2_and_nabla4_to_vn",
    "apply_nabla2_and_nabla4_global_to_vn",
    "apply_nabla2_to_vn_in_lateral_boundary",
    "apply_diffusion_to_vn",
];

const TURBULENCE_AND_W: &[&str] = &[
    "temporary_fields_for_turbulence_diagnostics",
    "calculate_diagnostic_quantities_for_turbulence",
    "calculate_nabla2_for_w",
    "apply_nabla2_to_w",
    "apply_nabla2_to_w_in_upper_damping_layer",
    "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence",
    "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools",
];

const THETA: &[&str] = &[
    "calculate_nabla2_for_z",
    "calculate_nabla2_of_theta",
    "calculate_nabla2_for_theta",
    "truly_horizontal_diffusion_nabla_of_theta_over_steep_points",
    "update_theta_and_exner",
    "apply_diffusion_to_theta_and_exner",
];

const ADVECTION_AND_SOLVER: &[&str] = &[
    "compute_tangential_wind",
    "compute_horizontal_kinetic_energy",
    "interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges",
    "compute_diagnostics_from_normal_wind",
    "solve_tridiagonal_matrix_for_w_forward_sweep",
    "solve_tridiagonal_matrix_for_w_back_substitution",
];

#[test]
fn the_groups_cover_every_icon_program() {
    let mut grouped: Vec<&str> = [
        INTERPOLATION_AND_NABLA,
        TURBULENCE_AND_W,
        THETA,
        ADVECTION_AND_SOLVER,
    ]
    .concat();
    grouped.sort_unstable();
    let mut icon: Vec<&str> = programs::ALL
        .iter()
        .map(|p| p.name)
        .filter(|n| !["lap", "laplap", "hdiff", "vadv"].contains(n))
        .collect();
    icon.sort_unstable();
    assert_eq!(grouped, icon);
}

#[test]
fn interpolation_and_nabla_programs_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    check_icon_programs(&global_grid(), INTERPOLATION_AND_NABLA);
    check_icon_programs(&limited_area_grid(), INTERPOLATION_AND_NABLA);
}

#[test]
fn turbulence_and_w_programs_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    check_icon_programs(&global_grid(), TURBULENCE_AND_W);
    check_icon_programs(&limited_area_grid(), TURBULENCE_AND_W);
}

#[test]
fn theta_programs_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    check_icon_programs(&global_grid(), THETA);
    check_icon_programs(&limited_area_grid(), THETA);
}

#[test]
fn advection_and_solver_programs_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    check_icon_programs(&global_grid(), ADVECTION_AND_SOLVER);
    check_icon_programs(&limited_area_grid(), ADVECTION_AND_SOLVER);
}

/// A Cartesian program on an `ni × nj (× nk)` box, with every tuning.
fn check_cartesian(name: &str, seed: u64) {
    let t = translation(name);
    let (ni, nj, nk) = (13usize, 11usize, 7usize);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut args = NamedArgs {
        program: name.to_string(),
        ..NamedArgs::default()
    };
    for p in &t.program.params {
        match (&p.ty, p.role) {
            (gt4rs::__private::ir::Type::Field { dims, .. }, role) => {
                let shape: Vec<usize> = dims
                    .iter()
                    .map(|d| match d.as_str() {
                        "I" => ni,
                        "J" => nj,
                        _ => nk,
                    })
                    .collect();
                let data = if role == Role::Out {
                    ArrayD::from_elem(IxDyn(&shape), f64::NAN)
                } else {
                    ArrayD::from_shape_fn(IxDyn(&shape), |_| rng.random_range(-1.0..1.0))
                };
                args.fields.insert(
                    p.name.clone(),
                    DynField {
                        data: DynArray::F64(data),
                        origin: vec![0; shape.len()],
                    },
                );
            }
            (gt4rs::__private::ir::Type::Scalar(ScalarType::I32), _) => {
                let v = match p.name.as_str() {
                    "ni" => ni,
                    "nj" => nj,
                    _ => nk,
                };
                args.scalars
                    .insert(p.name.clone(), ScalarValue::I32(v as i32));
            }
            (gt4rs::__private::ir::Type::Scalar(ScalarType::F64), _) => {
                args.scalars
                    .insert(p.name.clone(), ScalarValue::F64(rng.random_range(0.5..2.0)));
            }
            other => panic!("{name}: unexpected parameter {other:?}"),
        }
    }
    let options = Options::new(Backend::Cpu);
    let cpu = (programs::find(name).expect("registered").compile)(&options)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    check_against_cpu(&*cpu, &t, &options, &args, &TUNINGS, RTOL).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn cartesian_programs_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    for (i, name) in ["lap", "laplap", "hdiff", "vadv"].into_iter().enumerate() {
        check_cartesian(name, 50 + i as u64);
    }
}

//! The DSL programs (`icon::dsl`, always built) on the embedded backend: against ICON4Py's
//! outputs in `refs/icon4py`, and against the hand-written references on random data, for every
//! program and both values of every static flag.
//! Run with `cargo test -p gt4rs-stencils --test dsl_embedded`.

use std::sync::Arc;

use gt4rs::__private::args::{Arg, FieldView, FieldViewMut, ScalarValue};
use gt4rs::__private::embedded::run_program;
use gt4rs::__private::ir::fieldview::{Program, Role};
use gt4rs::__private::ir::types::Type;
use gt4rs::testing::{largest_relative_difference, random_array};
use gt4rs::{Connectivity, ConnectivityTable};
use gt4rs_stencils::icon::dims::*;
use gt4rs_stencils::icon::dsl;
use gt4rs_stencils::icon::reference::{self, Call};
use gt4rs_stencils::reference_data::{reference_files, NeighborTable, RefArray, ReferenceData};
use gt4rs_tests::refs::icon4py_refs;
use ndarray::{Array2, ArrayD, IxDyn};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn program_ir(name: &str) -> Option<&'static Program> {
    use dsl::diffusion as d;
    use dsl::velocity_advection as v;
    Some(match name {
        "mo_intp_rbf_rbf_vec_interpol_vertex" => {
            dsl::interpolation::mo_intp_rbf_rbf_vec_interpol_vertex::ir()
        }
        "setup_fields_for_initial_step" => {
            dsl::diffusion_utils::setup_fields_for_initial_step::ir()
        }
        "scale_k" => dsl::diffusion_utils::scale_k::ir(),
        "calculate_nabla4" => d::calculate_nabla4::ir(),
        "calculate_nabla2_and_smag_coefficients_for_vn" => {
            d::calculate_nabla2_and_smag_coefficients_for_vn::ir()
        }
        "apply_nabla2_and_nabla4_to_vn" => d::apply_nabla2_and_nabla4_to_vn::ir(),
        "apply_nabla2_and_nabla4_global_to_vn" => d::apply_nabla2_and_nabla4_global_to_vn::ir(),
        "apply_nabla2_to_vn_in_lateral_boundary" => d::apply_nabla2_to_vn_in_lateral_boundary::ir(),
        "apply_diffusion_to_vn" => d::apply_diffusion_to_vn::ir(),
        "temporary_fields_for_turbulence_diagnostics" => {
            d::temporary_fields_for_turbulence_diagnostics::ir()
        }
        "calculate_diagnostic_quantities_for_turbulence" => {
            d::calculate_diagnostic_quantities_for_turbulence::ir()
        }
        "calculate_nabla2_for_w" => d::calculate_nabla2_for_w::ir(),
        "apply_nabla2_to_w" => d::apply_nabla2_to_w::ir(),
        "apply_nabla2_to_w_in_upper_damping_layer" => {
            d::apply_nabla2_to_w_in_upper_damping_layer::ir()
        }
        "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence" => {
            d::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence::ir()
        }
        "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools" => {
            d::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools::ir()
        }
        "calculate_nabla2_for_z" => d::calculate_nabla2_for_z::ir(),
        "calculate_nabla2_of_theta" => d::calculate_nabla2_of_theta::ir(),
        "calculate_nabla2_for_theta" => d::calculate_nabla2_for_theta::ir(),
        "truly_horizontal_diffusion_nabla_of_theta_over_steep_points" => {
            d::truly_horizontal_diffusion_nabla_of_theta_over_steep_points::ir()
        }
        "update_theta_and_exner" => d::update_theta_and_exner::ir(),
        "apply_diffusion_to_theta_and_exner" => d::apply_diffusion_to_theta_and_exner::ir(),
        "compute_tangential_wind" => v::compute_tangential_wind::ir(),
        "interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges" => {
            v::interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges::ir()
        }
        "compute_horizontal_kinetic_energy" => v::compute_horizontal_kinetic_energy::ir(),
        "compute_diagnostics_from_normal_wind" => v::compute_diagnostics_from_normal_wind::ir(),
        "solve_tridiagonal_matrix_for_w_forward_sweep" => {
            dsl::solver::solve_tridiagonal_matrix_for_w_forward_sweep::ir()
        }
        "solve_tridiagonal_matrix_for_w_back_substitution" => {
            dsl::solver::solve_tridiagonal_matrix_for_w_back_substitution::ir()
        }
        _ => return None,
    })
}

fn connectivity(offset: &str, table: Array2<i32>, target: usize) -> Arc<ConnectivityTable> {
    macro_rules! by_name {
        ($($o:ident),*) => {
            match offset {
                $(stringify!($o) => Connectivity::<$o>::new(table, target).expect("valid").shared(),)*
                other => panic!("unknown offset {other}"),
            }
        };
    }
    by_name!(
        C2E, C2V, E2V, E2C, C2E2C, C2E2CO, V2E, V2C, V2E2V, E2C2V, E2C2E, E2C2EO, C2E2C2E,
        C2E2C2E2C
    )
}

/// Runs `program` on the embedded backend over the call's parameters, in place.
fn run_dsl(program: &Program, call: &mut Call) {
    let mut owned: Vec<RefArray> = program
        .params
        .iter()
        .map(|p| {
            call.params
                .get(&p.name)
                .unwrap_or_else(|e| panic!("{e}"))
                .clone()
        })
        .collect();
    let tables: Vec<Arc<ConnectivityTable>> = program
        .used_offsets()
        .iter()
        .map(|o| {
            let t = call
                .tables
                .get(&o.name)
                .unwrap_or_else(|| panic!("table {}", o.name));
            let target = program
                .params
                .iter()
                .zip(&owned)
                .find_map(|(p, a)| match &p.ty {
                    Type::Field { dims, .. } if dims.first() == Some(&o.to) => Some(a.shape()[0]),
                    _ => None,
                })
                .unwrap_or_else(|| t.table.iter().copied().max().unwrap_or(0).max(0) as usize + 1);
            connectivity(&o.name, t.table.clone(), target)
        })
        .collect();
    let origins: Vec<Vec<i64>> = owned.iter().map(|a| vec![0; a.shape().len()]).collect();
    {
        let mut args: Vec<Arg<'_>> = Vec::new();
        for ((p, a), origin) in program.params.iter().zip(owned.iter_mut()).zip(&origins) {
            let writable = p.role != Role::In;
            let scalar = matches!(p.ty, Type::Scalar(_));
            args.push(match a {
                RefArray::Float64(a) if scalar => {
                    Arg::Scalar(ScalarValue::F64(*a.first().expect("scalar")))
                }
                RefArray::Int32(a) if scalar => {
                    Arg::Scalar(ScalarValue::I32(*a.first().expect("scalar")))
                }
                RefArray::Bool(a) if scalar => {
                    Arg::Scalar(ScalarValue::Bool(*a.first().expect("scalar")))
                }
                RefArray::Float64(a) => {
                    if writable {
                        Arg::FieldMut(FieldViewMut::F64(a.view_mut(), origin))
                    } else {
                        Arg::Field(FieldView::F64(a.view(), origin))
                    }
                }
                RefArray::Int32(a) => Arg::Field(FieldView::I32(a.view(), origin)),
                RefArray::Bool(a) => Arg::Field(FieldView::Bool(a.view(), origin)),
            });
        }
        let refs: Vec<&ConnectivityTable> = tables.iter().map(|t| &**t).collect();
        run_program(program, &mut args, &refs).unwrap_or_else(|e| panic!("{}: {e}", program.name));
    }
    for (p, a) in program.params.iter().zip(owned) {
        call.params.insert(p.name.clone(), a);
    }
}

#[test]
fn dsl_programs_reproduce_icon4py_outputs() {
    for path in reference_files(icon4py_refs()).expect("dir") {
        let data = ReferenceData::load(&path).expect("loads");
        let program = program_ir(&data.program).expect("DSL program");
        let mut call = Call::from_reference(&data);
        run_dsl(program, &mut call);
        for name in data.output_names() {
            let Ok(RefArray::Float64(want)) = data.expected.get(&name) else {
                panic!()
            };
            let got = call.params.float64(&name, want.ndim()).expect("output");
            let err = largest_relative_difference(want.view(), got.view()).expect("one shape");
            eprintln!("{}: {name} {err:e}", data.program);
            assert!(err < 1e-12, "{}: {name} {err:e}", data.program);
        }
    }
}

fn table(
    rng: &mut ChaCha8Rng,
    name: &str,
    n: usize,
    width: usize,
    targets: usize,
) -> NeighborTable {
    NeighborTable::new(
        name,
        Array2::from_shape_fn((n, width), |_| rng.random_range(0..targets as i32)),
    )
    .expect("valid")
}

const NC: usize = 12;
const NE: usize = 18;
const NV: usize = 7;
const NLEV: usize = 6;

fn size_of(dim: &str, nlev: usize) -> usize {
    match dim {
        "Cell" => NC,
        "Edge" => NE,
        "Vertex" => NV,
        "K" => nlev,
        "E2C2V" | "E2C2E" | "C2E2CO" => 4,
        "C2E" | "C2E2C" => 3,
        "E2C" | "E2V" => 2,
        "V2E" | "V2C" => 6,
        other => panic!("{other}"),
    }
}

/// A random call of `program` with K extent `nlev` (+1 for the names in `half`), the given
/// scalars and domain, and random tables of every offset it uses.
fn random_call(
    rng: &mut ChaCha8Rng,
    program: &Program,
    half: &[&str],
    scalars: &[(&str, RefArray)],
) -> Call {
    let mut call = Call::new();
    for p in &program.params {
        if let Some((_, v)) = scalars.iter().find(|(n, _)| *n == p.name) {
            call.params.insert(p.name.clone(), v.clone());
            continue;
        }
        match &p.ty {
            Type::Field { dims, dtype } => {
                let nlev = if half.contains(&p.name.as_str()) {
                    NLEV + 1
                } else {
                    NLEV
                };
                let shape: Vec<usize> = dims.iter().map(|d| size_of(d, nlev)).collect();
                if format!("{dtype:?}") == "I32" {
                    continue; // supplied by the caller
                }
                let mut a = random_array(rng, &shape);
                if p.role == Role::Out {
                    a.fill(f64::NAN);
                }
                call.params.insert(p.name.clone(), RefArray::Float64(a));
            }
            Type::Scalar(_) => {
                call.params.insert(
                    p.name.clone(),
                    RefArray::Float64(ArrayD::from_elem(IxDyn(&[]), rng.random_range(0.5..1.5))),
                );
            }
            Type::Tuple(_) => panic!("tuple parameter"),
        }
    }
    for o in program.used_offsets() {
        let t = table(
            rng,
            &o.name,
            size_of(&o.from, 0),
            o.count as usize,
            size_of(&o.to, 0),
        );
        call.tables.insert(o.name.clone(), t);
    }
    call
}

fn i(v: i32) -> RefArray {
    RefArray::Int32(ArrayD::from_elem(IxDyn(&[]), v))
}
fn b(v: bool) -> RefArray {
    RefArray::Bool(ArrayD::from_elem(IxDyn(&[]), v))
}
fn dom(h: (i32, i32), k: (i32, i32)) -> Vec<(&'static str, RefArray)> {
    vec![
        ("horizontal_start", i(h.0)),
        ("horizontal_end", i(h.1)),
        ("vertical_start", i(k.0)),
        ("vertical_end", i(k.1)),
    ]
}

fn compare(
    name: &str,
    half: &[&str],
    scalars: Vec<(&str, RefArray)>,
    extra: impl Fn(&mut ChaCha8Rng, Call) -> Call,
) {
    let program = program_ir(name).expect("program");
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let call = random_call(&mut rng, program, half, &scalars);
    let call = extra(&mut rng, call);
    let mut by_ref = call.clone();
    reference::run(name, &mut by_ref).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut by_dsl = call.clone();
    run_dsl(program, &mut by_dsl);
    for p in &program.params {
        if p.role == Role::In {
            continue;
        }
        let a = by_ref.params.get(&p.name).expect("out");
        let (RefArray::Float64(a), Ok(RefArray::Float64(d))) = (a, by_dsl.params.get(&p.name))
        else {
            panic!()
        };
        let err = largest_relative_difference(a.view(), d.view()).expect("one shape");
        eprintln!("{name}: {} {err:e}", p.name);
        assert!(err < 1e-12, "{name}: {} {err:e}", p.name);
    }
}

#[test]
fn dsl_matches_references_on_random_data() {
    let full_e = dom((2, NE as i32 - 1), (0, NLEV as i32));
    let full_c = dom((1, NC as i32 - 2), (0, NLEV as i32));
    let none = |_: &mut ChaCha8Rng, c: Call| c;
    compare(
        "mo_intp_rbf_rbf_vec_interpol_vertex",
        &[],
        dom((1, NV as i32), (0, NLEV as i32)),
        none,
    );
    // Pentagons: V2E rows with a skipped sixth (and fifth) neighbour.
    let pentagons = |_: &mut ChaCha8Rng, mut c: Call| {
        let mut t = c.tables["V2E"].table.clone();
        t[[1, 5]] = -1;
        t[[4, 5]] = -1;
        t[[4, 4]] = -1;
        c.tables
            .insert("V2E".into(), NeighborTable::new("V2E", t).expect("valid"));
        c
    };
    compare(
        "mo_intp_rbf_rbf_vec_interpol_vertex",
        &[],
        dom((0, NV as i32), (0, NLEV as i32)),
        pentagons,
    );
    compare("calculate_nabla4", &[], full_e.clone(), none);
    compare(
        "calculate_nabla2_and_smag_coefficients_for_vn",
        &[],
        full_e.clone(),
        none,
    );
    compare("apply_nabla2_and_nabla4_to_vn", &[], full_e.clone(), none);
    compare(
        "apply_nabla2_and_nabla4_global_to_vn",
        &[],
        full_e.clone(),
        none,
    );
    compare(
        "apply_nabla2_to_vn_in_lateral_boundary",
        &[],
        full_e.clone(),
        none,
    );
    for limited in [true, false] {
        let mut s = full_e.clone();
        s.push(("start_2nd_nudge_line_idx_e", i(7)));
        s.push(("limited_area", b(limited)));
        compare("apply_diffusion_to_vn", &[], s, none);
    }
    compare(
        "temporary_fields_for_turbulence_diagnostics",
        &[],
        full_c.clone(),
        none,
    );
    compare(
        "calculate_diagnostic_quantities_for_turbulence",
        &[],
        dom((0, NC as i32), (1, NLEV as i32)),
        none,
    );
    compare(
        "calculate_nabla2_for_w",
        &["w", "z_nabla2_c"],
        dom((0, NC as i32), (0, NLEV as i32 + 1)),
        none,
    );
    compare("apply_nabla2_to_w", &[], full_c.clone(), none);
    compare(
        "apply_nabla2_to_w_in_upper_damping_layer",
        &[],
        full_c.clone(),
        none,
    );
    for type_shear in [1, 2] {
        let mut s = full_c.clone();
        s.extend([
            ("type_shear", i(type_shear)),
            ("nrdmax", i(3)),
            ("interior_idx", i(3)),
            ("halo_idx", i(NC as i32 - 3)),
        ]);
        compare(
            "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence",
            &[],
            s,
            none,
        );
    }
    compare(
        "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools",
        &[],
        dom((0, NE as i32), (NLEV as i32 - 2, NLEV as i32)),
        none,
    );
    compare("calculate_nabla2_for_z", &[], full_e.clone(), none);
    compare("calculate_nabla2_of_theta", &[], full_c.clone(), none);
    compare("calculate_nabla2_for_theta", &[], full_c.clone(), none);
    compare("update_theta_and_exner", &[], full_c.clone(), none);
    let offsets = |rng: &mut ChaCha8Rng, c: Call| {
        let off = ArrayD::from_shape_fn(IxDyn(&[NC, 3, NLEV]), |ix| {
            let k = ix[2] as i32;
            rng.random_range(-k..NLEV as i32 - k - 1)
        });
        let mut coef = c.params.float64("zd_diffcoef", 2).expect("coef").clone();
        for cc in 0..NC {
            coef[[cc, cc % NLEV]] = 0.0;
        }
        c.with_int_field("zd_vertoffset", off)
            .with_field("zd_diffcoef", coef)
    };
    compare(
        "truly_horizontal_diffusion_nabla_of_theta_over_steep_points",
        &[],
        full_c.clone(),
        offsets,
    );
    for apply in [true, false] {
        let mut s = full_c.clone();
        s.push(("apply_zdiffusion_t", b(apply)));
        compare("apply_diffusion_to_theta_and_exner", &[], s, offsets);
    }
    compare("compute_tangential_wind", &[], full_e.clone(), none);
    compare(
        "interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges",
        &[],
        dom((0, NE as i32), (1, NLEV as i32)),
        none,
    );
    compare(
        "compute_horizontal_kinetic_energy",
        &["vn_ie", "z_vt_ie"],
        full_e.clone(),
        none,
    );
    for skip in [false, true] {
        let mut s = dom((1, NE as i32 - 1), (0, NLEV as i32 + 1));
        s.extend([
            ("skip_compute_predictor_vertical_advection", b(skip)),
            ("nflatlev", i(2)),
        ]);
        let half = ["vn_on_half_levels", "w", "wgtfac_e", "wgtfacq_e"];
        compare("compute_diagnostics_from_normal_wind", &half, s, none);
    }
    compare(
        "solve_tridiagonal_matrix_for_w_forward_sweep",
        &["z_alpha", "z_w_expl"],
        dom((0, NC as i32), (1, NLEV as i32)),
        none,
    );
    compare(
        "solve_tridiagonal_matrix_for_w_back_substitution",
        &[],
        dom((0, NC as i32), (1, NLEV as i32)),
        none,
    );
}

#[test]
fn dsl_setup_helpers_match_references() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for name in ["setup_fields_for_initial_step", "scale_k"] {
        let program = program_ir(name).expect("program");
        let call = random_call(&mut rng, program, &[], &[]);
        let mut by_ref = call.clone();
        reference::run(name, &mut by_ref).expect("runs");
        let mut by_dsl = call;
        run_dsl(program, &mut by_dsl);
        for p in program.params.iter().filter(|p| p.role != Role::In) {
            let (Ok(RefArray::Float64(a)), Ok(RefArray::Float64(d))) =
                (by_ref.params.get(&p.name), by_dsl.params.get(&p.name))
            else {
                panic!()
            };
            assert_eq!(
                largest_relative_difference(a.view(), d.view()).expect("one shape"),
                0.0,
                "{name}: {}",
                p.name
            );
        }
    }
}

mod cartesian_classics {
    use super::run_dsl;
    use gt4rs::testing::largest_relative_difference;
    use gt4rs_stencils::cartesian::{dsl, reference};
    use gt4rs_stencils::icon::reference::Call;
    use ndarray::{Array2, Array3, ArrayD, IxDyn};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn output(call: &Call, name: &str, ndim: usize) -> ArrayD<f64> {
        call.params.float64(name, ndim).expect("output").clone()
    }

    #[test]
    fn lap_and_laplap_match_references() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let (ni, nj) = (9usize, 11usize);
        let f = Array2::from_shape_fn((ni, nj), |_| rng.random_range(-1.0..1.0));
        for (name, program) in [("lap", dsl::lap::ir()), ("laplap", dsl::laplap::ir())] {
            let mut want = Array2::from_elem((ni, nj), f64::NAN);
            if name == "lap" {
                reference::lap(f.view(), want.view_mut()).expect("shapes");
            } else {
                reference::laplap(f.view(), want.view_mut()).expect("shapes");
            }
            let mut call = Call::new()
                .with_field("f", f.clone().into_dyn())
                .with_field("out", Array2::from_elem((ni, nj), f64::NAN).into_dyn())
                .with_int("ni", ni as i32)
                .with_int("nj", nj as i32);
            run_dsl(program, &mut call);
            let err =
                largest_relative_difference(want.into_dyn().view(), output(&call, "out", 2).view())
                    .expect("one shape");
            assert_eq!(err, 0.0, "{name}");
        }
    }

    #[test]
    fn hdiff_matches_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(22);
        let (ni, nj, nk) = (9usize, 11usize, 4usize);
        let f = Array3::from_shape_fn((ni, nj, nk), |_| rng.random_range(-1.0..1.0));
        let coeff = Array3::from_shape_fn((ni, nj, nk), |_| rng.random_range(0.0..0.1));
        let mut want = Array3::from_elem((ni, nj, nk), f64::NAN);
        reference::hdiff(f.view(), coeff.view(), want.view_mut()).expect("shapes");
        let mut call = Call::new()
            .with_field("in_field", f.into_dyn())
            .with_field("coeff", coeff.into_dyn())
            .with_field(
                "out_field",
                Array3::from_elem((ni, nj, nk), f64::NAN).into_dyn(),
            )
            .with_int("ni", ni as i32)
            .with_int("nj", nj as i32)
            .with_int("nk", nk as i32);
        run_dsl(dsl::hdiff::ir(), &mut call);
        let err = largest_relative_difference(
            want.into_dyn().view(),
            output(&call, "out_field", 3).view(),
        )
        .expect("one shape");
        assert_eq!(err, 0.0);
    }

    #[test]
    fn vadv_matches_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(23);
        let (ni, nj, nk) = (3usize, 4usize, 7usize);
        let mut r3 =
            |ni: usize| Array3::from_shape_fn((ni, nj, nk), |_| rng.random_range(-1.0..1.0));
        let (u_stage, wcon, u_pos, utens, utens_stage) =
            (r3(ni), r3(ni + 1), r3(ni), r3(ni), r3(ni));
        let dtr_stage = 3.0 / 20.0;
        let mut want = utens_stage.clone();
        reference::vadv(
            want.view_mut(),
            u_stage.view(),
            wcon.view(),
            u_pos.view(),
            utens.view(),
            dtr_stage,
        )
        .expect("shapes");
        let mut call = Call::new()
            .with_field("utens_stage", utens_stage.into_dyn())
            .with_field("u_stage", u_stage.into_dyn())
            .with_field("wcon", wcon.into_dyn())
            .with_field("u_pos", u_pos.into_dyn())
            .with_field("utens", utens.into_dyn())
            .with_field("ccol", ArrayD::from_elem(IxDyn(&[ni, nj, nk]), f64::NAN))
            .with_field("dcol", ArrayD::from_elem(IxDyn(&[ni, nj, nk]), f64::NAN))
            .with_scalar("dtr_stage", dtr_stage)
            .with_int("ni", ni as i32)
            .with_int("nj", nj as i32)
            .with_int("nk", nk as i32);
        run_dsl(dsl::vadv::ir(), &mut call);
        let err = largest_relative_difference(
            want.into_dyn().view(),
            output(&call, "utens_stage", 3).view(),
        )
        .expect("one shape");
        assert!(err < 1e-14, "{err:e}");
    }
}

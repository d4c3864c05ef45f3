//! The DSL programs on the CPU backend, through their generated `compile`/`call` API, against
//! ICON4Py's outputs in `refs/icon4py` and against the hand-written references.
//! Run with `cargo test -p gt4rs-stencils --test dsl_cpu`.

use gt4rs::prelude::*;
use gt4rs::{Dims, Offset};
use gt4rs_stencils::cartesian::{dsl as cartesian_dsl, reference as cartesian_reference};
use gt4rs_stencils::icon::dims::*;
use gt4rs_stencils::icon::dsl::{diffusion, solver, velocity_advection};
use gt4rs_stencils::reference_data::{RefArray, ReferenceData};
use gt4rs_tests::refs::icon4py_ref;
use ndarray::{Array3, ArrayD};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn load(stem: &str) -> ReferenceData {
    ReferenceData::load(icon4py_ref(stem)).unwrap_or_else(|e| panic!("{e}"))
}

fn array(data: &ReferenceData, name: &str) -> ArrayD<f64> {
    match data.params.get(name) {
        Ok(RefArray::Float64(a)) => a.clone(),
        other => panic!("`{name}`: {other:?}"),
    }
}

fn field<D: Dims>(data: &ReferenceData, name: &str) -> Field<D, f64> {
    Field::from_array_zero_origin(array(data, name)).expect("valid field")
}

fn int(data: &ReferenceData, name: &str) -> i32 {
    data.params.int32_scalar(name).expect("int scalar")
}

fn scalar(data: &ReferenceData, name: &str) -> f64 {
    data.params.float64_scalar(name).expect("float scalar")
}

fn connectivity<O: Offset>(data: &ReferenceData, target_size: usize) -> Connectivity<O> {
    let table = data.table(O::NAME).expect("table").table.clone();
    Connectivity::<O>::new(table, target_size).expect("valid table")
}

fn assert_matches<D: Dims>(data: &ReferenceData, name: &str, got: &Field<D, f64>) {
    let Ok(RefArray::Float64(want)) = data.expected.get(name) else {
        panic!("no expected `{name}`");
    };
    let got = got.as_array();
    assert_eq!(got.shape(), want.shape(), "{name}");
    for (g, w) in got.iter().zip(want) {
        let err = (g - w).abs() / g.abs().max(w.abs()).max(f64::MIN_POSITIVE);
        assert!(err < 1e-12, "{}: `{name}` {g} vs {w}", data.program);
    }
}

fn cpu(connectivities: Connectivities) -> Options {
    Options::new(Backend::Cpu).with_connectivities(connectivities)
}

#[test]
fn calculate_nabla4_on_cpu_matches_icon4py() {
    let d = load("calculate_nabla4");
    let u_vert = field(&d, "u_vert");
    let e2c2v = connectivity::<E2C2V>(&d, u_vert.shape()[0]);
    let prog = diffusion::calculate_nabla4::compile(&cpu(Connectivities::new().with(&e2c2v)))
        .expect("compiles");
    let mut z_nabla4_e2 = field(&d, "z_nabla4_e2");
    z_nabla4_e2.fill(f64::NAN);
    prog.call(diffusion::calculate_nabla4::Args {
        u_vert: &u_vert,
        v_vert: &field(&d, "v_vert"),
        primal_normal_vert_v1: &field(&d, "primal_normal_vert_v1"),
        primal_normal_vert_v2: &field(&d, "primal_normal_vert_v2"),
        z_nabla2_e: &field(&d, "z_nabla2_e"),
        inv_vert_vert_length: &field(&d, "inv_vert_vert_length"),
        inv_primal_edge_length: &field(&d, "inv_primal_edge_length"),
        z_nabla4_e2: &mut z_nabla4_e2,
        horizontal_start: int(&d, "horizontal_start"),
        horizontal_end: int(&d, "horizontal_end"),
        vertical_start: int(&d, "vertical_start"),
        vertical_end: int(&d, "vertical_end"),
    })
    .expect("runs");
    assert_matches(&d, "z_nabla4_e2", &z_nabla4_e2);
}

#[test]
fn apply_diffusion_to_vn_on_cpu_matches_icon4py() {
    let d = load("apply_diffusion_to_vn");
    let u_vert = field(&d, "u_vert");
    let e2c2v = connectivity::<E2C2V>(&d, u_vert.shape()[0]);
    let prog = diffusion::apply_diffusion_to_vn::compile(&cpu(Connectivities::new().with(&e2c2v)))
        .expect("compiles");
    let mut vn = field(&d, "vn");
    prog.call(diffusion::apply_diffusion_to_vn::Args {
        u_vert: &u_vert,
        v_vert: &field(&d, "v_vert"),
        primal_normal_vert_v1: &field(&d, "primal_normal_vert_v1"),
        primal_normal_vert_v2: &field(&d, "primal_normal_vert_v2"),
        z_nabla2_e: &field(&d, "z_nabla2_e"),
        inv_vert_vert_length: &field(&d, "inv_vert_vert_length"),
        inv_primal_edge_length: &field(&d, "inv_primal_edge_length"),
        area_edge: &field(&d, "area_edge"),
        kh_smag_e: &field(&d, "kh_smag_e"),
        diff_multfac_vn: &field(&d, "diff_multfac_vn"),
        nudgecoeff_e: &field(&d, "nudgecoeff_e"),
        vn: &mut vn,
        nudgezone_diff: scalar(&d, "nudgezone_diff"),
        fac_bdydiff_v: scalar(&d, "fac_bdydiff_v"),
        start_2nd_nudge_line_idx_e: int(&d, "start_2nd_nudge_line_idx_e"),
        limited_area: d.params.bool_scalar("limited_area").expect("bool"),
        horizontal_start: int(&d, "horizontal_start"),
        horizontal_end: int(&d, "horizontal_end"),
        vertical_start: int(&d, "vertical_start"),
        vertical_end: int(&d, "vertical_end"),
    })
    .expect("runs");
    assert_matches(&d, "vn", &vn);
}

#[test]
fn calculate_nabla2_for_w_on_cpu_matches_icon4py() {
    let d = load("calculate_nabla2_for_w");
    let w = field(&d, "w");
    let c2e2co = connectivity::<C2E2CO>(&d, w.shape()[0]);
    let prog =
        diffusion::calculate_nabla2_for_w::compile(&cpu(Connectivities::new().with(&c2e2co)))
            .expect("compiles");
    let mut z_nabla2_c = field(&d, "z_nabla2_c");
    z_nabla2_c.fill(f64::NAN);
    prog.call(diffusion::calculate_nabla2_for_w::Args {
        w: &w,
        geofac_n2s: &field(&d, "geofac_n2s"),
        z_nabla2_c: &mut z_nabla2_c,
        horizontal_start: int(&d, "horizontal_start"),
        horizontal_end: int(&d, "horizontal_end"),
        vertical_start: int(&d, "vertical_start"),
        vertical_end: int(&d, "vertical_end"),
    })
    .expect("runs");
    assert_matches(&d, "z_nabla2_c", &z_nabla2_c);
}

#[test]
fn compute_horizontal_kinetic_energy_on_cpu_matches_icon4py() {
    let d = load("compute_horizontal_kinetic_energy");
    let prog =
        velocity_advection::compute_horizontal_kinetic_energy::compile(&cpu(Connectivities::new()))
            .expect("compiles");
    let (mut vn_ie, mut z_vt_ie, mut z_kin_hor_e) = (
        field(&d, "vn_ie"),
        field(&d, "z_vt_ie"),
        field(&d, "z_kin_hor_e"),
    );
    prog.call(
        velocity_advection::compute_horizontal_kinetic_energy::Args {
            vn: &field(&d, "vn"),
            vt: &field(&d, "vt"),
            vn_ie: &mut vn_ie,
            z_vt_ie: &mut z_vt_ie,
            z_kin_hor_e: &mut z_kin_hor_e,
            horizontal_start: int(&d, "horizontal_start"),
            horizontal_end: int(&d, "horizontal_end"),
            vertical_start: int(&d, "vertical_start"),
            vertical_end: int(&d, "vertical_end"),
        },
    )
    .expect("runs");
    assert_matches(&d, "vn_ie", &vn_ie);
    assert_matches(&d, "z_vt_ie", &z_vt_ie);
    assert_matches(&d, "z_kin_hor_e", &z_kin_hor_e);
}

#[test]
fn solve_tridiagonal_matrix_for_w_forward_sweep_on_cpu_matches_icon4py() {
    let d = load("solve_tridiagonal_matrix_for_w_forward_sweep");
    let prog =
        solver::solve_tridiagonal_matrix_for_w_forward_sweep::compile(&cpu(Connectivities::new()))
            .expect("compiles");
    let (mut z_q, mut w) = (field(&d, "z_q"), field(&d, "w"));
    prog.call(solver::solve_tridiagonal_matrix_for_w_forward_sweep::Args {
        vwind_impl_wgt: &field(&d, "vwind_impl_wgt"),
        theta_v_ic: &field(&d, "theta_v_ic"),
        ddqz_z_half: &field(&d, "ddqz_z_half"),
        z_alpha: &field(&d, "z_alpha"),
        z_beta: &field(&d, "z_beta"),
        z_w_expl: &field(&d, "z_w_expl"),
        z_exner_expl: &field(&d, "z_exner_expl"),
        z_q: &mut z_q,
        w: &mut w,
        dtime: scalar(&d, "dtime"),
        cpd: scalar(&d, "cpd"),
        horizontal_start: int(&d, "horizontal_start"),
        horizontal_end: int(&d, "horizontal_end"),
        vertical_start: int(&d, "vertical_start"),
        vertical_end: int(&d, "vertical_end"),
    })
    .expect("runs");
    assert_matches(&d, "z_q", &z_q);
    assert_matches(&d, "w", &w);
}

#[test]
fn cartesian_hdiff_and_vadv_on_cpu_match_references() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let (ni, nj, nk) = (10usize, 12usize, 5usize);
    let mut r3 = |ni: usize| Array3::from_shape_fn((ni, nj, nk), |_| rng.random_range(-1.0..1.0));
    let to_field = |a: &Array3<f64>| -> Field<(I, J, K), f64> {
        Field::from_array_zero_origin(a.clone().into_dyn()).expect("field")
    };
    use gt4rs_stencils::cartesian::dims::{I, J};

    let (f, coeff) = (r3(ni), r3(ni).mapv(|c: f64| 0.05 * c.abs()));
    let mut want = Array3::from_elem((ni, nj, nk), f64::NAN);
    cartesian_reference::hdiff(f.view(), coeff.view(), want.view_mut()).expect("shapes");
    let mut out = to_field(&Array3::from_elem((ni, nj, nk), f64::NAN));
    cartesian_dsl::hdiff::compile(&cpu(Connectivities::new()))
        .expect("compiles")
        .call(cartesian_dsl::hdiff::Args {
            in_field: &to_field(&f),
            coeff: &to_field(&coeff),
            out_field: &mut out,
            ni: ni as i32,
            nj: nj as i32,
            nk: nk as i32,
        })
        .expect("runs");
    for (g, w) in out.as_array().iter().zip(want.iter()) {
        assert!(g == w || (g.is_nan() && w.is_nan()), "hdiff {g} vs {w}");
    }

    let (u_stage, wcon, u_pos, utens, utens_stage) = (r3(ni), r3(ni + 1), r3(ni), r3(ni), r3(ni));
    let dtr_stage = 3.0 / 20.0;
    let mut want = utens_stage.clone();
    cartesian_reference::vadv(
        want.view_mut(),
        u_stage.view(),
        wcon.view(),
        u_pos.view(),
        utens.view(),
        dtr_stage,
    )
    .expect("shapes");
    let mut got = to_field(&utens_stage);
    let nan = Array3::from_elem((ni, nj, nk), f64::NAN);
    let (mut ccol, mut dcol) = (to_field(&nan), to_field(&nan));
    cartesian_dsl::vadv::compile(&cpu(Connectivities::new()))
        .expect("compiles")
        .call(cartesian_dsl::vadv::Args {
            utens_stage: &mut got,
            u_stage: &to_field(&u_stage),
            wcon: &to_field(&wcon),
            u_pos: &to_field(&u_pos),
            utens: &to_field(&utens),
            ccol: &mut ccol,
            dcol: &mut dcol,
            dtr_stage,
            ni: ni as i32,
            nj: nj as i32,
            nk: nk as i32,
        })
        .expect("runs");
    for (g, w) in got.as_array().iter().zip(want.iter()) {
        assert!((g - w).abs() <= 1e-14 * w.abs().max(1.0), "vadv {g} vs {w}");
    }
}

//! ICON's mixed precision (`vpfloat = f32`, `wpfloat = f64`): each program that exists in both
//! configurations runs in `mixed` mode on a random grid and is compared with the f64 hand-written
//! reference, on the embedded and the CPU backend. The `double` configuration is what every other
//! test of these programs runs (`gt4rs_stencils::icon::dsl::diffusion::calculate_nabla4` is
//! `diffusion::double::calculate_nabla4`).

use gt4rs::prelude::*;
use gt4rs::Dims;
use gt4rs_stencils::icon::dims::*;
use gt4rs_stencils::icon::dsl::{
    diffusion, diffusion_utils, interpolation, solver, velocity_advection,
};
use gt4rs_stencils::icon::reference::{self, Call};
use gt4rs_stencils::reference_data::{NeighborTable, RefArray};
use ndarray::{Array2, ArrayD, IxDyn};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const N_CELLS: usize = 26;
const N_EDGES: usize = 40;
const N_VERTICES: usize = 17;
const NLEV: usize = 7;

/// ICON4Py's stencil tests accept a relative error of 3e-6 (`_RELATIVE_TOLERANCE`), about 50
/// roundings to f32 (unit roundoff 2^-24 ≈ 6e-8). A mixed-mode program rounds a few
/// intermediates to f32; each such rounding is relative to the intermediate, not to the output,
/// so where terms cancel the error is relative to the output's scale. Hence the bound
/// `|got − expected| ≤ 3e-6 · (|expected| + max |expected|)`.
const RELATIVE_TOLERANCE: f64 = 3e-6;

fn assert_close(name: &str, got: &ArrayD<f64>, expected: &ArrayD<f64>) {
    assert_eq!(got.shape(), expected.shape(), "`{name}`: shape");
    let scale = expected.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    assert!(scale > 0.0, "`{name}`: the reference is all zeros");
    for (i, (g, e)) in got.iter().zip(expected.iter()).enumerate() {
        let bound = RELATIVE_TOLERANCE * (e.abs() + scale);
        assert!(
            (g - e).abs() <= bound,
            "`{name}`[{i}]: got {g}, expected {e} (bound {bound:e})"
        );
    }
}

fn random_array(rng: &mut ChaCha8Rng, shape: &[usize]) -> ArrayD<f64> {
    ArrayD::from_shape_fn(IxDyn(shape), |_| rng.random_range(-1.0..1.0))
}

/// Rounded to f32 once, so that the f64 reference sees exactly the values the f32 field holds.
fn round_to_f32(a: &ArrayD<f64>) -> ArrayD<f64> {
    a.mapv(|x| f64::from(x as f32))
}

fn f64_field<D: Dims>(a: &ArrayD<f64>) -> Field<D, f64> {
    Field::from_array_zero_origin(a.clone()).expect("valid field")
}

fn f32_field<D: Dims>(a: &ArrayD<f64>) -> Field<D, f32> {
    Field::from_array_zero_origin(a.mapv(|x| x as f32)).expect("valid field")
}

fn f32_nan_field<D: Dims>(shape: &[usize]) -> Field<D, f32> {
    Field::from_array_zero_origin(ArrayD::from_elem(IxDyn(shape), f32::NAN)).expect("valid field")
}

fn f64_nan_field<D: Dims>(shape: &[usize]) -> Field<D, f64> {
    Field::from_array_zero_origin(ArrayD::from_elem(IxDyn(shape), f64::NAN)).expect("valid field")
}

fn widen(f: &Field<impl Dims, f32>) -> ArrayD<f64> {
    f.as_array().mapv(f64::from)
}

fn random_table(rng: &mut ChaCha8Rng, rows: usize, width: usize, targets: usize) -> Array2<i32> {
    Array2::from_shape_fn((rows, width), |_| rng.random_range(0..targets as i32))
}

fn reference_output(program: &str, mut call: Call, output: &str) -> ArrayD<f64> {
    reference::run(program, &mut call).expect("reference runs");
    match call.params.get(output) {
        Ok(RefArray::Float64(a)) => a.clone(),
        other => panic!("`{output}`: {other:?}"),
    }
}

/// Every test runs on both CPU-side backends.
const BACKENDS: [Backend; 2] = [Backend::Embedded, Backend::Cpu];

fn options(backend: Backend, connectivities: Connectivities) -> Options {
    Options::new(backend).with_connectivities(connectivities)
}

fn calculate_nabla4_mixed_matches_reference(backend: Backend) {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let u_vert = round_to_f32(&random_array(&mut rng, &[N_VERTICES, NLEV]));
    let v_vert = round_to_f32(&random_array(&mut rng, &[N_VERTICES, NLEV]));
    let v1 = random_array(&mut rng, &[N_EDGES, 4]);
    let v2 = random_array(&mut rng, &[N_EDGES, 4]);
    let z_nabla2_e = random_array(&mut rng, &[N_EDGES, NLEV]);
    let ivv = random_array(&mut rng, &[N_EDGES]);
    let ipe = random_array(&mut rng, &[N_EDGES]);
    let table = random_table(&mut rng, N_EDGES, 4, N_VERTICES);
    let (h, k) = ((1, N_EDGES as i32 - 2), (1, NLEV as i32 - 1));

    let e2c2v = Connectivity::<E2C2V>::new(table.clone(), N_VERTICES).expect("valid table");
    let prog = diffusion::mixed::calculate_nabla4::compile(&options(
        backend,
        Connectivities::new().with(&e2c2v),
    ))
    .expect("compiles");
    let mut out = f32_nan_field::<(Edge, K)>(&[N_EDGES, NLEV]);
    prog.call(diffusion::mixed::calculate_nabla4::Args {
        u_vert: &f32_field(&u_vert),
        v_vert: &f32_field(&v_vert),
        primal_normal_vert_v1: &f64_field(&v1),
        primal_normal_vert_v2: &f64_field(&v2),
        z_nabla2_e: &f64_field(&z_nabla2_e),
        inv_vert_vert_length: &f64_field(&ivv),
        inv_primal_edge_length: &f64_field(&ipe),
        z_nabla4_e2: &mut out,
        horizontal_start: h.0,
        horizontal_end: h.1,
        vertical_start: k.0,
        vertical_end: k.1,
    })
    .expect("runs");

    // Points outside the domain keep their pre-call value (NaN) in both.
    let call = Call::new()
        .with_field("u_vert", u_vert)
        .with_field("v_vert", v_vert)
        .with_field("primal_normal_vert_v1", v1)
        .with_field("primal_normal_vert_v2", v2)
        .with_field("z_nabla2_e", z_nabla2_e)
        .with_field("inv_vert_vert_length", ivv)
        .with_field("inv_primal_edge_length", ipe)
        .with_field(
            "z_nabla4_e2",
            ArrayD::from_elem(IxDyn(&[N_EDGES, NLEV]), f64::NAN),
        )
        .with_domain(h.0..h.1, k.0..k.1)
        .with_table(NeighborTable::new("E2C2V", table).expect("valid table"));
    let expected = reference_output("calculate_nabla4", call, "z_nabla4_e2");
    let got = widen(&out);
    let inside = |a: &ArrayD<f64>| {
        a.slice(ndarray::s![
            h.0 as usize..h.1 as usize,
            k.0 as usize..k.1 as usize
        ])
        .to_owned()
        .into_dyn()
    };
    assert!(got
        .iter()
        .zip(expected.iter())
        .all(|(g, e)| g.is_nan() == e.is_nan()));
    assert_close("z_nabla4_e2", &inside(&got), &inside(&expected));
}

#[test]
fn calculate_nabla4_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        calculate_nabla4_mixed_matches_reference(backend);
    }
}

/// ICON4Py declares every field of the RBF interpolation `wpfloat`: both configurations compute
/// it in f64, so the mixed program equals the double one bit for bit.
fn rbf_interpolation_mixed_equals_double(backend: Backend) {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let p_e_in = random_array(&mut rng, &[N_EDGES, NLEV]);
    let c1 = random_array(&mut rng, &[N_VERTICES, 6]);
    let c2 = random_array(&mut rng, &[N_VERTICES, 6]);
    let table = random_table(&mut rng, N_VERTICES, 6, N_EDGES);
    let v2e = Connectivity::<V2E>::new(table.clone(), N_EDGES).expect("valid table");
    let opts = options(backend, Connectivities::new().with(&v2e));
    let (h, k) = ((0, N_VERTICES as i32), (0, NLEV as i32));
    let shape = [N_VERTICES, NLEV];

    let (mut mixed_u, mut mixed_v) = (f64_nan_field(&shape), f64_nan_field(&shape));
    interpolation::mixed::mo_intp_rbf_rbf_vec_interpol_vertex::compile(&opts)
        .expect("compiles")
        .call(
            interpolation::mixed::mo_intp_rbf_rbf_vec_interpol_vertex::Args {
                p_e_in: &f64_field(&p_e_in),
                ptr_coeff_1: &f64_field(&c1),
                ptr_coeff_2: &f64_field(&c2),
                p_u_out: &mut mixed_u,
                p_v_out: &mut mixed_v,
                horizontal_start: h.0,
                horizontal_end: h.1,
                vertical_start: k.0,
                vertical_end: k.1,
            },
        )
        .expect("runs");
    let (mut double_u, mut double_v) = (f64_nan_field(&shape), f64_nan_field(&shape));
    interpolation::double::mo_intp_rbf_rbf_vec_interpol_vertex::compile(&opts)
        .expect("compiles")
        .call(
            interpolation::double::mo_intp_rbf_rbf_vec_interpol_vertex::Args {
                p_e_in: &f64_field(&p_e_in),
                ptr_coeff_1: &f64_field(&c1),
                ptr_coeff_2: &f64_field(&c2),
                p_u_out: &mut double_u,
                p_v_out: &mut double_v,
                horizontal_start: h.0,
                horizontal_end: h.1,
                vertical_start: k.0,
                vertical_end: k.1,
            },
        )
        .expect("runs");
    assert!(mixed_u.as_array().iter().all(|x| x.is_finite()));
    assert_eq!(mixed_u.as_array(), double_u.as_array());
    assert_eq!(mixed_v.as_array(), double_v.as_array());

    let call = Call::new()
        .with_field("p_e_in", p_e_in)
        .with_field("ptr_coeff_1", c1)
        .with_field("ptr_coeff_2", c2)
        .with_field("p_u_out", ArrayD::from_elem(IxDyn(&shape), f64::NAN))
        .with_field("p_v_out", ArrayD::from_elem(IxDyn(&shape), f64::NAN))
        .with_domain(h.0..h.1, k.0..k.1)
        .with_table(NeighborTable::new("V2E", table).expect("valid table"));
    let expected = reference_output("mo_intp_rbf_rbf_vec_interpol_vertex", call, "p_u_out");
    assert_close("p_u_out", &mixed_u.as_array().to_owned(), &expected);
}

#[test]
fn rbf_interpolation_mixed_on_both_backends_equals_double() {
    for backend in BACKENDS {
        rbf_interpolation_mixed_equals_double(backend);
    }
}

/// The f64 reference of `program` on `inputs`, with `output` NaN before the call.
fn reference_run(
    program: &str,
    inputs: &[(&str, &ArrayD<f64>)],
    tables: Vec<NeighborTable>,
    output: (&str, &[usize]),
    domain: ((i32, i32), (i32, i32)),
) -> ArrayD<f64> {
    let mut outputs = reference_outputs(program, inputs, tables, &[output], domain);
    outputs.remove(0)
}

/// The f64 reference of `program` on `inputs`, with the `outputs` NaN before the call unless
/// they are inputs too.
fn reference_outputs(
    program: &str,
    inputs: &[(&str, &ArrayD<f64>)],
    tables: Vec<NeighborTable>,
    outputs: &[(&str, &[usize])],
    domain: ((i32, i32), (i32, i32)),
) -> Vec<ArrayD<f64>> {
    let mut call = Call::new();
    for (name, a) in inputs {
        call = call.with_field(name, (*a).clone());
    }
    for t in tables {
        call = call.with_table(t);
    }
    // An output that is also an input (`w` in `apply_nabla2_to_w`) keeps its input values.
    for (name, shape) in outputs {
        if !inputs.iter().any(|(input, _)| input == name) {
            call = call.with_field(name, ArrayD::from_elem(IxDyn(shape), f64::NAN));
        }
    }
    let ((h0, h1), (k0, k1)) = domain;
    let mut call = call.with_domain(h0..h1, k0..k1);
    reference::run(program, &mut call).expect("reference runs");
    outputs
        .iter()
        .map(|(name, _)| match call.params.get(name) {
            Ok(RefArray::Float64(a)) => a.clone(),
            other => panic!("`{name}`: {other:?}"),
        })
        .collect()
}

/// Compares inside `domain` and checks that the points outside are untouched (NaN) in both.
fn assert_close_in_domain(
    name: &str,
    got: &ArrayD<f64>,
    expected: &ArrayD<f64>,
    domain: ((i32, i32), (i32, i32)),
) {
    let ((h0, h1), (k0, k1)) = domain;
    assert!(got
        .iter()
        .zip(expected.iter())
        .all(|(g, e)| g.is_nan() == e.is_nan()));
    let inside = |a: &ArrayD<f64>| {
        a.slice(ndarray::s![
            h0 as usize..h1 as usize,
            k0 as usize..k1 as usize
        ])
        .to_owned()
        .into_dyn()
    };
    assert_close(name, &inside(got), &inside(expected));
}

fn calculate_nabla2_for_w_mixed_matches_reference(backend: Backend) {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let w = random_array(&mut rng, &[N_CELLS, NLEV]);
    let geofac_n2s = random_array(&mut rng, &[N_CELLS, 4]);
    let table = random_table(&mut rng, N_CELLS, 4, N_CELLS);
    let domain = ((2, N_CELLS as i32 - 1), (0, NLEV as i32));
    let c2e2co = Connectivity::<C2E2CO>::new(table.clone(), N_CELLS).expect("valid table");
    let mut out = f32_nan_field::<(Cell, K)>(&[N_CELLS, NLEV]);
    diffusion::mixed::calculate_nabla2_for_w::compile(&options(
        backend,
        Connectivities::new().with(&c2e2co),
    ))
    .expect("compiles")
    .call(diffusion::mixed::calculate_nabla2_for_w::Args {
        w: &f64_field(&w),
        geofac_n2s: &f64_field(&geofac_n2s),
        z_nabla2_c: &mut out,
        horizontal_start: domain.0 .0,
        horizontal_end: domain.0 .1,
        vertical_start: domain.1 .0,
        vertical_end: domain.1 .1,
    })
    .expect("runs");
    let expected = reference_run(
        "calculate_nabla2_for_w",
        &[("w", &w), ("geofac_n2s", &geofac_n2s)],
        vec![NeighborTable::new("C2E2CO", table).expect("valid table")],
        ("z_nabla2_c", &[N_CELLS, NLEV]),
        domain,
    );
    assert_close_in_domain("z_nabla2_c", &widen(&out), &expected, domain);
}

#[test]
fn calculate_nabla2_for_w_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        calculate_nabla2_for_w_mixed_matches_reference(backend);
    }
}

/// Inputs of the ∇²θ programs: `kh_smag_e` is vpfloat (rounded to f32 for the reference too).
struct ThetaInputs {
    kh_smag_e: ArrayD<f64>,
    inv_dual_edge_length: ArrayD<f64>,
    theta_v: ArrayD<f64>,
    geofac_div: ArrayD<f64>,
    /// wpfloat: the input of `calculate_nabla2_of_theta` alone.
    z_nabla2_e: ArrayD<f64>,
    e2c: Array2<i32>,
    c2e: Array2<i32>,
}

fn theta_inputs(seed: u64) -> ThetaInputs {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    ThetaInputs {
        kh_smag_e: round_to_f32(&random_array(&mut rng, &[N_EDGES, NLEV])),
        inv_dual_edge_length: random_array(&mut rng, &[N_EDGES]),
        theta_v: random_array(&mut rng, &[N_CELLS, NLEV]),
        geofac_div: random_array(&mut rng, &[N_CELLS, 3]),
        z_nabla2_e: random_array(&mut rng, &[N_EDGES, NLEV]),
        e2c: random_table(&mut rng, N_EDGES, 2, N_CELLS),
        c2e: random_table(&mut rng, N_CELLS, 3, N_EDGES),
    }
}

fn calculate_nabla2_for_z_mixed_matches_reference(backend: Backend) {
    let t = theta_inputs(12);
    let domain = ((1, N_EDGES as i32), (1, NLEV as i32));
    let e2c = Connectivity::<E2C>::new(t.e2c.clone(), N_CELLS).expect("valid table");
    // The output is wpfloat: f64 in both configurations.
    let mut out = f64_nan_field::<(Edge, K)>(&[N_EDGES, NLEV]);
    diffusion::mixed::calculate_nabla2_for_z::compile(&options(
        backend,
        Connectivities::new().with(&e2c),
    ))
    .expect("compiles")
    .call(diffusion::mixed::calculate_nabla2_for_z::Args {
        kh_smag_e: &f32_field(&t.kh_smag_e),
        inv_dual_edge_length: &f64_field(&t.inv_dual_edge_length),
        theta_v: &f64_field(&t.theta_v),
        z_nabla2_e: &mut out,
        horizontal_start: domain.0 .0,
        horizontal_end: domain.0 .1,
        vertical_start: domain.1 .0,
        vertical_end: domain.1 .1,
    })
    .expect("runs");
    let expected = reference_run(
        "calculate_nabla2_for_z",
        &[
            ("kh_smag_e", &t.kh_smag_e),
            ("inv_dual_edge_length", &t.inv_dual_edge_length),
            ("theta_v", &t.theta_v),
        ],
        vec![NeighborTable::new("E2C", t.e2c).expect("valid table")],
        ("z_nabla2_e", &[N_EDGES, NLEV]),
        domain,
    );
    assert_close_in_domain("z_nabla2_e", &out.as_array().to_owned(), &expected, domain);
}

#[test]
fn calculate_nabla2_for_z_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        calculate_nabla2_for_z_mixed_matches_reference(backend);
    }
}

fn calculate_nabla2_of_theta_mixed_matches_reference(backend: Backend) {
    let t = theta_inputs(13);
    let z_nabla2_e = &t.z_nabla2_e;
    let domain = ((0, N_CELLS as i32 - 3), (0, NLEV as i32 - 2));
    let c2e = Connectivity::<C2E>::new(t.c2e.clone(), N_EDGES).expect("valid table");
    let mut out = f32_nan_field::<(Cell, K)>(&[N_CELLS, NLEV]);
    diffusion::mixed::calculate_nabla2_of_theta::compile(&options(
        backend,
        Connectivities::new().with(&c2e),
    ))
    .expect("compiles")
    .call(diffusion::mixed::calculate_nabla2_of_theta::Args {
        z_nabla2_e: &f64_field(z_nabla2_e),
        geofac_div: &f64_field(&t.geofac_div),
        z_temp: &mut out,
        horizontal_start: domain.0 .0,
        horizontal_end: domain.0 .1,
        vertical_start: domain.1 .0,
        vertical_end: domain.1 .1,
    })
    .expect("runs");
    let expected = reference_run(
        "calculate_nabla2_of_theta",
        &[("z_nabla2_e", z_nabla2_e), ("geofac_div", &t.geofac_div)],
        vec![NeighborTable::new("C2E", t.c2e).expect("valid table")],
        ("z_temp", &[N_CELLS, NLEV]),
        domain,
    );
    assert_close_in_domain("z_temp", &widen(&out), &expected, domain);
}

#[test]
fn calculate_nabla2_of_theta_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        calculate_nabla2_of_theta_mixed_matches_reference(backend);
    }
}

fn calculate_nabla2_for_theta_mixed_matches_reference(backend: Backend) {
    let t = theta_inputs(14);
    let domain = ((3, N_CELLS as i32), (1, NLEV as i32));
    let e2c = Connectivity::<E2C>::new(t.e2c.clone(), N_CELLS).expect("valid table");
    let c2e = Connectivity::<C2E>::new(t.c2e.clone(), N_EDGES).expect("valid table");
    let mut out = f32_nan_field::<(Cell, K)>(&[N_CELLS, NLEV]);
    diffusion::mixed::calculate_nabla2_for_theta::compile(&options(
        backend,
        Connectivities::new().with(&e2c).with(&c2e),
    ))
    .expect("compiles")
    .call(diffusion::mixed::calculate_nabla2_for_theta::Args {
        kh_smag_e: &f32_field(&t.kh_smag_e),
        inv_dual_edge_length: &f64_field(&t.inv_dual_edge_length),
        theta_v: &f64_field(&t.theta_v),
        geofac_div: &f64_field(&t.geofac_div),
        z_temp: &mut out,
        horizontal_start: domain.0 .0,
        horizontal_end: domain.0 .1,
        vertical_start: domain.1 .0,
        vertical_end: domain.1 .1,
    })
    .expect("runs");
    let expected = reference_run(
        "calculate_nabla2_for_theta",
        &[
            ("kh_smag_e", &t.kh_smag_e),
            ("inv_dual_edge_length", &t.inv_dual_edge_length),
            ("theta_v", &t.theta_v),
            ("geofac_div", &t.geofac_div),
        ],
        vec![
            NeighborTable::new("E2C", t.e2c).expect("valid table"),
            NeighborTable::new("C2E", t.c2e).expect("valid table"),
        ],
        ("z_temp", &[N_CELLS, NLEV]),
        domain,
    );
    assert_close_in_domain("z_temp", &widen(&out), &expected, domain);
}

#[test]
fn calculate_nabla2_for_theta_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        calculate_nabla2_for_theta_mixed_matches_reference(backend);
    }
}

fn compute_tangential_wind_mixed_matches_reference(backend: Backend) {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let vn = random_array(&mut rng, &[N_EDGES, NLEV]);
    let rbf_vec_coeff_e = random_array(&mut rng, &[N_EDGES, 4]);
    let table = random_table(&mut rng, N_EDGES, 4, N_EDGES);
    let domain = ((4, N_EDGES as i32 - 4), (0, NLEV as i32));
    let e2c2e = Connectivity::<E2C2E>::new(table.clone(), N_EDGES).expect("valid table");
    let mut out = f32_nan_field::<(Edge, K)>(&[N_EDGES, NLEV]);
    velocity_advection::mixed::compute_tangential_wind::compile(&options(
        backend,
        Connectivities::new().with(&e2c2e),
    ))
    .expect("compiles")
    .call(velocity_advection::mixed::compute_tangential_wind::Args {
        vn: &f64_field(&vn),
        rbf_vec_coeff_e: &f64_field(&rbf_vec_coeff_e),
        vt: &mut out,
        horizontal_start: domain.0 .0,
        horizontal_end: domain.0 .1,
        vertical_start: domain.1 .0,
        vertical_end: domain.1 .1,
    })
    .expect("runs");
    let expected = reference_run(
        "compute_tangential_wind",
        &[("vn", &vn), ("rbf_vec_coeff_e", &rbf_vec_coeff_e)],
        vec![NeighborTable::new("E2C2E", table).expect("valid table")],
        ("vt", &[N_EDGES, NLEV]),
        domain,
    );
    assert_close_in_domain("vt", &widen(&out), &expected, domain);
}

#[test]
fn compute_tangential_wind_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        compute_tangential_wind_mixed_matches_reference(backend);
    }
}

fn compute_horizontal_kinetic_energy_mixed_matches_reference(backend: Backend) {
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let vn = random_array(&mut rng, &[N_EDGES, NLEV]);
    let vt = round_to_f32(&random_array(&mut rng, &[N_EDGES, NLEV]));
    let domain = ((0, N_EDGES as i32), (2, NLEV as i32));
    let shape = [N_EDGES, NLEV];
    let mut vn_ie = f32_nan_field::<(Edge, K)>(&shape);
    let mut z_vt_ie = f32_nan_field::<(Edge, K)>(&shape);
    let mut z_kin_hor_e = f32_nan_field::<(Edge, K)>(&shape);
    velocity_advection::mixed::compute_horizontal_kinetic_energy::compile(&options(
        backend,
        Connectivities::new(),
    ))
    .expect("compiles")
    .call(
        velocity_advection::mixed::compute_horizontal_kinetic_energy::Args {
            vn: &f64_field(&vn),
            vt: &f32_field(&vt),
            vn_ie: &mut vn_ie,
            z_vt_ie: &mut z_vt_ie,
            z_kin_hor_e: &mut z_kin_hor_e,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        },
    )
    .expect("runs");
    let expected = reference_outputs(
        "compute_horizontal_kinetic_energy",
        &[("vn", &vn), ("vt", &vt)],
        Vec::new(),
        &[
            ("vn_ie", &shape),
            ("z_vt_ie", &shape),
            ("z_kin_hor_e", &shape),
        ],
        domain,
    );
    assert_close_in_domain("vn_ie", &widen(&vn_ie), &expected[0], domain);
    // A copy of a vpfloat input: exact.
    assert_eq!(
        widen(&z_vt_ie).mapv(f64::to_bits),
        expected[1].mapv(f64::to_bits)
    );
    assert_close_in_domain("z_kin_hor_e", &widen(&z_kin_hor_e), &expected[2], domain);
}

#[test]
fn compute_horizontal_kinetic_energy_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        compute_horizontal_kinetic_energy_mixed_matches_reference(backend);
    }
}

/// Inputs of the programs applying ∇²w: `z_nabla2_c` is vpfloat.
struct WInputs {
    area: ArrayD<f64>,
    z_nabla2_c: ArrayD<f64>,
    geofac_n2s: ArrayD<f64>,
    w: ArrayD<f64>,
    diff_multfac_n2w: ArrayD<f64>,
    c2e2co: Array2<i32>,
}

fn w_inputs(seed: u64) -> WInputs {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    WInputs {
        area: random_array(&mut rng, &[N_CELLS]),
        z_nabla2_c: round_to_f32(&random_array(&mut rng, &[N_CELLS, NLEV])),
        geofac_n2s: random_array(&mut rng, &[N_CELLS, 4]),
        w: random_array(&mut rng, &[N_CELLS, NLEV]),
        diff_multfac_n2w: random_array(&mut rng, &[NLEV]),
        c2e2co: random_table(&mut rng, N_CELLS, 4, N_CELLS),
    }
}

fn apply_nabla2_to_w_mixed_matches_reference(backend: Backend) {
    let t = w_inputs(31);
    let diff_multfac_w = 0.37;
    let domain = ((1, N_CELLS as i32 - 2), (1, NLEV as i32));
    let c2e2co = Connectivity::<C2E2CO>::new(t.c2e2co.clone(), N_CELLS).expect("valid table");
    let mut w = f64_field::<(Cell, K)>(&t.w);
    diffusion::mixed::apply_nabla2_to_w::compile(&options(
        backend,
        Connectivities::new().with(&c2e2co),
    ))
    .expect("compiles")
    .call(diffusion::mixed::apply_nabla2_to_w::Args {
        area: &f64_field(&t.area),
        z_nabla2_c: &f32_field(&t.z_nabla2_c),
        geofac_n2s: &f64_field(&t.geofac_n2s),
        w: &mut w,
        diff_multfac_w,
        horizontal_start: domain.0 .0,
        horizontal_end: domain.0 .1,
        vertical_start: domain.1 .0,
        vertical_end: domain.1 .1,
    })
    .expect("runs");
    let mut call = Call::new()
        .with_field("area", t.area)
        .with_field("z_nabla2_c", t.z_nabla2_c)
        .with_field("geofac_n2s", t.geofac_n2s)
        .with_field("w", t.w.clone())
        .with_scalar("diff_multfac_w", diff_multfac_w)
        .with_domain(domain.0 .0..domain.0 .1, domain.1 .0..domain.1 .1)
        .with_table(NeighborTable::new("C2E2CO", t.c2e2co).expect("valid table"));
    reference::run("apply_nabla2_to_w", &mut call).expect("reference runs");
    let Ok(RefArray::Float64(expected)) = call.params.get("w") else {
        panic!("`w` is no f64 array");
    };
    let got = w.as_array().to_owned();
    assert_ne!(got, t.w, "the program wrote nothing");
    assert_close_in_domain("w", &got, expected, domain);
}

#[test]
fn apply_nabla2_to_w_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        apply_nabla2_to_w_mixed_matches_reference(backend);
    }
}

fn apply_nabla2_to_w_in_upper_damping_layer_mixed_matches_reference(backend: Backend) {
    let t = w_inputs(32);
    let domain = ((0, N_CELLS as i32), (0, 3));
    let mut w = f64_field::<(Cell, K)>(&t.w);
    diffusion::mixed::apply_nabla2_to_w_in_upper_damping_layer::compile(&options(
        backend,
        Connectivities::new(),
    ))
    .expect("compiles")
    .call(
        diffusion::mixed::apply_nabla2_to_w_in_upper_damping_layer::Args {
            w: &mut w,
            diff_multfac_n2w: &f64_field(&t.diff_multfac_n2w),
            cell_area: &f64_field(&t.area),
            z_nabla2_c: &f32_field(&t.z_nabla2_c),
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        },
    )
    .expect("runs");
    let expected = reference_run(
        "apply_nabla2_to_w_in_upper_damping_layer",
        &[
            ("w", &t.w),
            ("diff_multfac_n2w", &t.diff_multfac_n2w),
            ("cell_area", &t.area),
            ("z_nabla2_c", &t.z_nabla2_c),
        ],
        Vec::new(),
        ("w", &[N_CELLS, NLEV]),
        domain,
    );
    let got = w.as_array().to_owned();
    assert_ne!(got, t.w, "the program wrote nothing");
    assert_close_in_domain("w", &got, &expected, domain);
}

#[test]
fn apply_nabla2_to_w_in_upper_damping_layer_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        apply_nabla2_to_w_in_upper_damping_layer_mixed_matches_reference(backend);
    }
}

// ---------------------------------------------------------------------------------------------
// The vn, turbulence/w, cold-pool and θ/exner programs of the diffusion granule
// ---------------------------------------------------------------------------------------------

/// The random inputs of one program, each recorded for the f64 reference as it is drawn.
struct Case {
    rng: ChaCha8Rng,
    call: Call,
}

impl Case {
    fn new(seed: u64) -> Self {
        Case {
            rng: ChaCha8Rng::seed_from_u64(seed),
            call: Call::new(),
        }
    }

    fn record(&mut self, add: impl FnOnce(Call) -> Call) {
        let call = std::mem::replace(&mut self.call, Call::new());
        self.call = add(call);
    }

    /// A wpfloat field with values in `range`.
    fn wp_in(&mut self, name: &str, shape: &[usize], range: std::ops::Range<f64>) -> ArrayD<f64> {
        let a = ArrayD::from_shape_fn(IxDyn(shape), |_| self.rng.random_range(range.clone()));
        self.record(|call| call.with_field(name, a.clone()));
        a
    }

    /// A wpfloat field with values in [-1, 1).
    fn wp(&mut self, name: &str, shape: &[usize]) -> ArrayD<f64> {
        self.wp_in(name, shape, -1.0..1.0)
    }

    /// A vpfloat field with values in `range`, rounded to f32 for both runs.
    fn vp_in(&mut self, name: &str, shape: &[usize], range: std::ops::Range<f64>) -> ArrayD<f64> {
        let a = round_to_f32(&ArrayD::from_shape_fn(IxDyn(shape), |_| {
            self.rng.random_range(range.clone())
        }));
        self.record(|call| call.with_field(name, a.clone()));
        a
    }

    /// A vpfloat field with values in [-1, 1), rounded to f32 for both runs.
    fn vp(&mut self, name: &str, shape: &[usize]) -> ArrayD<f64> {
        self.vp_in(name, shape, -1.0..1.0)
    }

    fn wp_scalar(&mut self, name: &str, value: f64) -> f64 {
        self.record(|call| call.with_scalar(name, value));
        value
    }

    /// A vpfloat scalar: the reference sees the f32 value widened.
    fn vp_scalar(&mut self, name: &str, value: f64) -> f32 {
        let rounded = value as f32;
        self.record(|call| call.with_scalar(name, f64::from(rounded)));
        rounded
    }

    fn int(&mut self, name: &str, value: i32) -> i32 {
        self.record(|call| call.with_int(name, value));
        value
    }

    fn flag(&mut self, name: &str, value: bool) -> bool {
        self.record(|call| call.with_flag(name, value));
        value
    }

    /// The steep-point level offsets: every neighbour level read (`k + off` and the one below
    /// it) lies inside the column.
    fn vertical_offsets(&mut self, name: &str) -> ArrayD<i32> {
        let a = ArrayD::from_shape_fn(IxDyn(&[N_CELLS, 3, NLEV]), |ix| {
            let k = ix[2] as i32;
            self.rng.random_range(-k..NLEV as i32 - k - 1)
        });
        self.record(|call| call.with_int_field(name, a.clone()));
        a
    }

    /// A random neighbour table of `rows` × `width` entries into `targets` points.
    fn table(&mut self, name: &str, rows: usize, width: usize, targets: usize) -> Array2<i32> {
        let t = random_table(&mut self.rng, rows, width, targets);
        self.record(|call| call.with_table(NeighborTable::new(name, t.clone()).expect("valid")));
        t
    }

    /// The f64 reference's `outputs` over `domain`; those not recorded as inputs are NaN before.
    fn reference(
        self,
        program: &str,
        outputs: &[(&str, &[usize])],
        domain: ((i32, i32), (i32, i32)),
    ) -> Vec<ArrayD<f64>> {
        let mut call = self.call;
        for (name, shape) in outputs {
            if call.params.get(name).is_err() {
                call = call.with_field(name, ArrayD::from_elem(IxDyn(shape), f64::NAN));
            }
        }
        let ((h0, h1), (k0, k1)) = domain;
        let mut call = call.with_domain(h0..h1, k0..k1);
        reference::run(program, &mut call).expect("reference runs");
        outputs
            .iter()
            .map(|(name, _)| match call.params.get(name) {
                Ok(RefArray::Float64(a)) => a.clone(),
                other => panic!("`{name}`: {other:?}"),
            })
            .collect()
    }
}

fn i32_field<D: Dims>(a: &ArrayD<i32>) -> Field<D, i32> {
    Field::from_array_zero_origin(a.clone()).expect("valid field")
}

/// Inside `domain` within the tolerance; outside it, the values from before the call, bit for bit
/// (NaN where the output was poisoned, the input where it is read and written).
fn assert_mixed_output(
    name: &str,
    got: &ArrayD<f64>,
    expected: &ArrayD<f64>,
    domain: ((i32, i32), (i32, i32)),
) {
    assert_eq!(got.shape(), expected.shape(), "`{name}`: shape");
    let ((h0, h1), (k0, k1)) = domain;
    let inside = |ix: &[usize]| {
        (h0 as usize..h1 as usize).contains(&ix[0]) && (k0 as usize..k1 as usize).contains(&ix[1])
    };
    for ((ix, g), e) in got.indexed_iter().zip(expected.iter()) {
        let ix = ndarray::Dimension::slice(&ix);
        if inside(ix) {
            assert!(g.is_finite(), "`{name}`{ix:?}: {g} inside the domain");
        } else {
            assert_eq!(g.to_bits(), e.to_bits(), "`{name}`{ix:?} outside");
        }
    }
    let window = |a: &ArrayD<f64>| {
        a.slice(ndarray::s![
            h0 as usize..h1 as usize,
            k0 as usize..k1 as usize
        ])
        .to_owned()
        .into_dyn()
    };
    assert_close(name, &window(got), &window(expected));
}

fn values<D: Dims>(f: &Field<D, f64>) -> ArrayD<f64> {
    f.as_array().to_owned()
}

const EDGE_K: [usize; 2] = [N_EDGES, NLEV];
const CELL_K: [usize; 2] = [N_CELLS, NLEV];

fn apply_nabla2_and_nabla4_to_vn_mixed_matches_reference(backend: Backend) {
    let mut c = Case::new(41);
    let area_edge = c.wp("area_edge", &[N_EDGES]);
    let kh_smag_e = c.vp("kh_smag_e", &EDGE_K);
    let z_nabla2_e = c.wp("z_nabla2_e", &EDGE_K);
    let z_nabla4_e2 = c.vp("z_nabla4_e2", &EDGE_K);
    let diff_multfac_vn = c.wp("diff_multfac_vn", &[NLEV]);
    let nudgecoeff_e = c.wp("nudgecoeff_e", &[N_EDGES]);
    let vn = c.wp("vn", &EDGE_K);
    let nudgezone_diff = c.vp_scalar("nudgezone_diff", 0.41);
    let domain = ((2, N_EDGES as i32 - 3), (1, NLEV as i32));
    let mut vn_out = f64_field::<(Edge, K)>(&vn);
    diffusion::mixed::apply_nabla2_and_nabla4_to_vn::compile(&options(
        backend,
        Connectivities::new(),
    ))
    .expect("compiles")
    .call(diffusion::mixed::apply_nabla2_and_nabla4_to_vn::Args {
        area_edge: &f64_field(&area_edge),
        kh_smag_e: &f32_field(&kh_smag_e),
        z_nabla2_e: &f64_field(&z_nabla2_e),
        z_nabla4_e2: &f32_field(&z_nabla4_e2),
        diff_multfac_vn: &f64_field(&diff_multfac_vn),
        nudgecoeff_e: &f64_field(&nudgecoeff_e),
        vn: &mut vn_out,
        nudgezone_diff,
        horizontal_start: domain.0 .0,
        horizontal_end: domain.0 .1,
        vertical_start: domain.1 .0,
        vertical_end: domain.1 .1,
    })
    .expect("runs");
    let expected = c.reference("apply_nabla2_and_nabla4_to_vn", &[("vn", &EDGE_K)], domain);
    assert_mixed_output("vn", &values(&vn_out), &expected[0], domain);
}

#[test]
fn apply_nabla2_and_nabla4_to_vn_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        apply_nabla2_and_nabla4_to_vn_mixed_matches_reference(backend);
    }
}

fn apply_nabla2_and_nabla4_global_to_vn_mixed_matches_reference(backend: Backend) {
    let mut c = Case::new(42);
    let area_edge = c.wp("area_edge", &[N_EDGES]);
    let kh_smag_e = c.vp("kh_smag_e", &EDGE_K);
    let z_nabla2_e = c.wp("z_nabla2_e", &EDGE_K);
    let z_nabla4_e2 = c.vp("z_nabla4_e2", &EDGE_K);
    let diff_multfac_vn = c.wp("diff_multfac_vn", &[NLEV]);
    let vn = c.wp("vn", &EDGE_K);
    let domain = ((0, N_EDGES as i32 - 1), (0, NLEV as i32 - 2));
    let mut vn_out = f64_field::<(Edge, K)>(&vn);
    diffusion::mixed::apply_nabla2_and_nabla4_global_to_vn::compile(&options(
        backend,
        Connectivities::new(),
    ))
    .expect("compiles")
    .call(
        diffusion::mixed::apply_nabla2_and_nabla4_global_to_vn::Args {
            area_edge: &f64_field(&area_edge),
            kh_smag_e: &f32_field(&kh_smag_e),
            z_nabla2_e: &f64_field(&z_nabla2_e),
            z_nabla4_e2: &f32_field(&z_nabla4_e2),
            diff_multfac_vn: &f64_field(&diff_multfac_vn),
            vn: &mut vn_out,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        },
    )
    .expect("runs");
    let expected = c.reference(
        "apply_nabla2_and_nabla4_global_to_vn",
        &[("vn", &EDGE_K)],
        domain,
    );
    assert_mixed_output("vn", &values(&vn_out), &expected[0], domain);
}

#[test]
fn apply_nabla2_and_nabla4_global_to_vn_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        apply_nabla2_and_nabla4_global_to_vn_mixed_matches_reference(backend);
    }
}

/// ICON4Py declares it all wpfloat: the mixed program is the double one, bit for bit.
fn apply_nabla2_to_vn_in_lateral_boundary_mixed_matches_reference(backend: Backend) {
    let mut c = Case::new(43);
    let z_nabla2_e = c.wp("z_nabla2_e", &EDGE_K);
    let area_edge = c.wp("area_edge", &[N_EDGES]);
    let vn = c.wp("vn", &EDGE_K);
    let fac_bdydiff_v = c.wp_scalar("fac_bdydiff_v", 0.73);
    let domain = ((3, N_EDGES as i32), (1, NLEV as i32 - 1));
    let opts = options(backend, Connectivities::new());
    let mut mixed_vn = f64_field::<(Edge, K)>(&vn);
    diffusion::mixed::apply_nabla2_to_vn_in_lateral_boundary::compile(&opts)
        .expect("compiles")
        .call(
            diffusion::mixed::apply_nabla2_to_vn_in_lateral_boundary::Args {
                z_nabla2_e: &f64_field(&z_nabla2_e),
                area_edge: &f64_field(&area_edge),
                vn: &mut mixed_vn,
                fac_bdydiff_v,
                horizontal_start: domain.0 .0,
                horizontal_end: domain.0 .1,
                vertical_start: domain.1 .0,
                vertical_end: domain.1 .1,
            },
        )
        .expect("runs");
    let mut double_vn = f64_field::<(Edge, K)>(&vn);
    diffusion::double::apply_nabla2_to_vn_in_lateral_boundary::compile(&opts)
        .expect("compiles")
        .call(
            diffusion::double::apply_nabla2_to_vn_in_lateral_boundary::Args {
                z_nabla2_e: &f64_field(&z_nabla2_e),
                area_edge: &f64_field(&area_edge),
                vn: &mut double_vn,
                fac_bdydiff_v,
                horizontal_start: domain.0 .0,
                horizontal_end: domain.0 .1,
                vertical_start: domain.1 .0,
                vertical_end: domain.1 .1,
            },
        )
        .expect("runs");
    assert_eq!(
        values(&mixed_vn).mapv(f64::to_bits),
        values(&double_vn).mapv(f64::to_bits)
    );
    let expected = c.reference(
        "apply_nabla2_to_vn_in_lateral_boundary",
        &[("vn", &EDGE_K)],
        domain,
    );
    assert_mixed_output("vn", &values(&mixed_vn), &expected[0], domain);
}

#[test]
fn apply_nabla2_to_vn_in_lateral_boundary_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        apply_nabla2_to_vn_in_lateral_boundary_mixed_matches_reference(backend);
    }
}

fn apply_diffusion_to_vn_mixed_matches_reference(backend: Backend, limited_area: bool) {
    let mut c = Case::new(44);
    let u_vert = c.vp("u_vert", &[N_VERTICES, NLEV]);
    let v_vert = c.vp("v_vert", &[N_VERTICES, NLEV]);
    let v1 = c.wp("primal_normal_vert_v1", &[N_EDGES, 4]);
    let v2 = c.wp("primal_normal_vert_v2", &[N_EDGES, 4]);
    let z_nabla2_e = c.wp("z_nabla2_e", &EDGE_K);
    let ivv = c.wp("inv_vert_vert_length", &[N_EDGES]);
    let ipe = c.wp("inv_primal_edge_length", &[N_EDGES]);
    let area_edge = c.wp("area_edge", &[N_EDGES]);
    let kh_smag_e = c.vp("kh_smag_e", &EDGE_K);
    let diff_multfac_vn = c.wp("diff_multfac_vn", &[NLEV]);
    let nudgecoeff_e = c.wp("nudgecoeff_e", &[N_EDGES]);
    let vn = c.wp("vn", &EDGE_K);
    let nudgezone_diff = c.vp_scalar("nudgezone_diff", 0.37);
    let fac_bdydiff_v = c.wp_scalar("fac_bdydiff_v", 0.81);
    let start_2nd_nudge_line_idx_e = c.int("start_2nd_nudge_line_idx_e", 11);
    let limited_area = c.flag("limited_area", limited_area);
    let table = c.table("E2C2V", N_EDGES, 4, N_VERTICES);
    let domain = ((2, N_EDGES as i32 - 1), (0, NLEV as i32));
    let e2c2v = Connectivity::<E2C2V>::new(table, N_VERTICES).expect("valid table");
    let opts = options(backend, Connectivities::new().with(&e2c2v)).with_static_arg(
        "apply_diffusion_to_vn",
        "limited_area",
        limited_area,
    );
    let mut vn_out = f64_field::<(Edge, K)>(&vn);
    diffusion::mixed::apply_diffusion_to_vn::compile(&opts)
        .expect("compiles")
        .call(diffusion::mixed::apply_diffusion_to_vn::Args {
            u_vert: &f32_field(&u_vert),
            v_vert: &f32_field(&v_vert),
            primal_normal_vert_v1: &f64_field(&v1),
            primal_normal_vert_v2: &f64_field(&v2),
            z_nabla2_e: &f64_field(&z_nabla2_e),
            inv_vert_vert_length: &f64_field(&ivv),
            inv_primal_edge_length: &f64_field(&ipe),
            area_edge: &f64_field(&area_edge),
            kh_smag_e: &f32_field(&kh_smag_e),
            diff_multfac_vn: &f64_field(&diff_multfac_vn),
            nudgecoeff_e: &f64_field(&nudgecoeff_e),
            vn: &mut vn_out,
            nudgezone_diff,
            fac_bdydiff_v,
            start_2nd_nudge_line_idx_e,
            limited_area,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        })
        .expect("runs");
    let expected = c.reference("apply_diffusion_to_vn", &[("vn", &EDGE_K)], domain);
    assert_mixed_output("vn", &values(&vn_out), &expected[0], domain);
}

#[test]
fn apply_diffusion_to_vn_mixed_on_both_backends_and_both_area_kinds_matches_reference() {
    for backend in BACKENDS {
        for limited_area in [true, false] {
            apply_diffusion_to_vn_mixed_matches_reference(backend, limited_area);
        }
    }
}

fn calculate_nabla2_and_smag_coefficients_for_vn_mixed_matches_reference(backend: Backend) {
    let mut c = Case::new(45);
    let diff_multfac_smag = c.vp_in("diff_multfac_smag", &[NLEV], 0.5..1.5);
    let tangent_orientation = c.wp("tangent_orientation", &[N_EDGES]);
    let ipe = c.wp("inv_primal_edge_length", &[N_EDGES]);
    let ivv = c.wp("inv_vert_vert_length", &[N_EDGES]);
    let u_vert = c.vp("u_vert", &[N_VERTICES, NLEV]);
    let v_vert = c.vp("v_vert", &[N_VERTICES, NLEV]);
    let px = c.wp("primal_normal_vert_x", &[N_EDGES, 4]);
    let py = c.wp("primal_normal_vert_y", &[N_EDGES, 4]);
    let dx = c.wp("dual_normal_vert_x", &[N_EDGES, 4]);
    let dy = c.wp("dual_normal_vert_y", &[N_EDGES, 4]);
    let vn = c.wp("vn", &EDGE_K);
    // Limits below some coefficients and an offset above others: both bounds are reached.
    let smag_limit = c.vp_in("smag_limit", &[NLEV], 0.2..1.2);
    let smag_offset = c.vp_scalar("smag_offset", 0.5);
    let table = c.table("E2C2V", N_EDGES, 4, N_VERTICES);
    let domain = ((1, N_EDGES as i32 - 2), (0, NLEV as i32));
    let e2c2v = Connectivity::<E2C2V>::new(table, N_VERTICES).expect("valid table");
    let mut kh_smag_e = f32_nan_field::<(Edge, K)>(&EDGE_K);
    let mut kh_smag_ec = f32_nan_field::<(Edge, K)>(&EDGE_K);
    let mut z_nabla2_e = f64_nan_field::<(Edge, K)>(&EDGE_K);
    diffusion::mixed::calculate_nabla2_and_smag_coefficients_for_vn::compile(&options(
        backend,
        Connectivities::new().with(&e2c2v),
    ))
    .expect("compiles")
    .call(
        diffusion::mixed::calculate_nabla2_and_smag_coefficients_for_vn::Args {
            diff_multfac_smag: &f32_field(&diff_multfac_smag),
            tangent_orientation: &f64_field(&tangent_orientation),
            inv_primal_edge_length: &f64_field(&ipe),
            inv_vert_vert_length: &f64_field(&ivv),
            u_vert: &f32_field(&u_vert),
            v_vert: &f32_field(&v_vert),
            primal_normal_vert_x: &f64_field(&px),
            primal_normal_vert_y: &f64_field(&py),
            dual_normal_vert_x: &f64_field(&dx),
            dual_normal_vert_y: &f64_field(&dy),
            vn: &f64_field(&vn),
            smag_limit: &f32_field(&smag_limit),
            kh_smag_e: &mut kh_smag_e,
            kh_smag_ec: &mut kh_smag_ec,
            z_nabla2_e: &mut z_nabla2_e,
            smag_offset,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        },
    )
    .expect("runs");
    let expected = c.reference(
        "calculate_nabla2_and_smag_coefficients_for_vn",
        &[
            ("kh_smag_e", &EDGE_K),
            ("kh_smag_ec", &EDGE_K),
            ("z_nabla2_e", &EDGE_K),
        ],
        domain,
    );
    let kh_smag_e = widen(&kh_smag_e);
    assert_mixed_output("kh_smag_e", &kh_smag_e, &expected[0], domain);
    assert_mixed_output("kh_smag_ec", &widen(&kh_smag_ec), &expected[1], domain);
    assert_mixed_output("z_nabla2_e", &values(&z_nabla2_e), &expected[2], domain);
    let clipped_below = expected[0].iter().filter(|x| **x == 0.0).count();
    let limited = expected[0]
        .iter()
        .zip(expected[1].iter())
        .filter(|(e, ec)| e.is_finite() && **e > 0.0 && **e < **ec - f64::from(smag_offset))
        .count();
    assert!(
        clipped_below > 0 && limited > 0,
        "{clipped_below} {limited}"
    );
}

#[test]
fn calculate_nabla2_and_smag_coefficients_for_vn_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        calculate_nabla2_and_smag_coefficients_for_vn_mixed_matches_reference(backend);
    }
}

/// Inputs of the two turbulence-diagnostics programs.
struct TurbulenceInputs {
    kh_smag_ec: ArrayD<f64>,
    vn: ArrayD<f64>,
    e_bln_c_s: ArrayD<f64>,
    geofac_div: ArrayD<f64>,
    diff_multfac_smag: ArrayD<f64>,
    c2e: Array2<i32>,
}

fn turbulence_inputs(c: &mut Case) -> TurbulenceInputs {
    TurbulenceInputs {
        kh_smag_ec: c.vp("kh_smag_ec", &EDGE_K),
        vn: c.wp("vn", &EDGE_K),
        e_bln_c_s: c.wp("e_bln_c_s", &[N_CELLS, 3]),
        geofac_div: c.wp("geofac_div", &[N_CELLS, 3]),
        diff_multfac_smag: c.vp_in("diff_multfac_smag", &[NLEV], 0.5..1.5),
        c2e: c.table("C2E", N_CELLS, 3, N_EDGES),
    }
}

fn temporary_fields_for_turbulence_diagnostics_mixed_matches_reference(backend: Backend) {
    let mut c = Case::new(51);
    let t = turbulence_inputs(&mut c);
    let domain = ((1, N_CELLS as i32 - 2), (0, NLEV as i32));
    let c2e = Connectivity::<C2E>::new(t.c2e.clone(), N_EDGES).expect("valid table");
    let mut kh_c = f32_nan_field::<(Cell, K)>(&CELL_K);
    let mut div = f32_nan_field::<(Cell, K)>(&CELL_K);
    diffusion::mixed::temporary_fields_for_turbulence_diagnostics::compile(&options(
        backend,
        Connectivities::new().with(&c2e),
    ))
    .expect("compiles")
    .call(
        diffusion::mixed::temporary_fields_for_turbulence_diagnostics::Args {
            kh_smag_ec: &f32_field(&t.kh_smag_ec),
            vn: &f64_field(&t.vn),
            e_bln_c_s: &f64_field(&t.e_bln_c_s),
            geofac_div: &f64_field(&t.geofac_div),
            diff_multfac_smag: &f32_field(&t.diff_multfac_smag),
            kh_c: &mut kh_c,
            div: &mut div,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        },
    )
    .expect("runs");
    let expected = c.reference(
        "temporary_fields_for_turbulence_diagnostics",
        &[("kh_c", &CELL_K), ("div", &CELL_K)],
        domain,
    );
    assert_mixed_output("kh_c", &widen(&kh_c), &expected[0], domain);
    assert_mixed_output("div", &widen(&div), &expected[1], domain);
}

#[test]
fn temporary_fields_for_turbulence_diagnostics_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        temporary_fields_for_turbulence_diagnostics_mixed_matches_reference(backend);
    }
}

fn calculate_diagnostic_quantities_for_turbulence_mixed_matches_reference(backend: Backend) {
    let mut c = Case::new(52);
    let t = turbulence_inputs(&mut c);
    let wgtfac_c = c.vp("wgtfac_c", &CELL_K);
    // Reads the level above: the domain starts at 1.
    let domain = ((0, N_CELLS as i32), (1, NLEV as i32));
    let c2e = Connectivity::<C2E>::new(t.c2e.clone(), N_EDGES).expect("valid table");
    let mut div_ic = f32_nan_field::<(Cell, K)>(&CELL_K);
    let mut hdef_ic = f32_nan_field::<(Cell, K)>(&CELL_K);
    diffusion::mixed::calculate_diagnostic_quantities_for_turbulence::compile(&options(
        backend,
        Connectivities::new().with(&c2e),
    ))
    .expect("compiles")
    .call(
        diffusion::mixed::calculate_diagnostic_quantities_for_turbulence::Args {
            kh_smag_ec: &f32_field(&t.kh_smag_ec),
            vn: &f64_field(&t.vn),
            e_bln_c_s: &f64_field(&t.e_bln_c_s),
            geofac_div: &f64_field(&t.geofac_div),
            diff_multfac_smag: &f32_field(&t.diff_multfac_smag),
            wgtfac_c: &f32_field(&wgtfac_c),
            div_ic: &mut div_ic,
            hdef_ic: &mut hdef_ic,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        },
    )
    .expect("runs");
    let expected = c.reference(
        "calculate_diagnostic_quantities_for_turbulence",
        &[("div_ic", &CELL_K), ("hdef_ic", &CELL_K)],
        domain,
    );
    assert_mixed_output("div_ic", &widen(&div_ic), &expected[0], domain);
    assert_mixed_output("hdef_ic", &widen(&hdef_ic), &expected[1], domain);
}

#[test]
fn calculate_diagnostic_quantities_for_turbulence_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        calculate_diagnostic_quantities_for_turbulence_mixed_matches_reference(backend);
    }
}

fn apply_diffusion_to_w_mixed_matches_reference(backend: Backend, type_shear: i32) {
    let mut c = Case::new(53);
    let area = c.wp("area", &[N_CELLS]);
    let geofac_n2s = c.wp("geofac_n2s", &[N_CELLS, 4]);
    let geofac_grg_x = c.wp("geofac_grg_x", &[N_CELLS, 4]);
    let geofac_grg_y = c.wp("geofac_grg_y", &[N_CELLS, 4]);
    let w_old = c.wp("w_old", &CELL_K);
    let dwdx = c.vp("dwdx", &CELL_K);
    let dwdy = c.vp("dwdy", &CELL_K);
    let diff_multfac_w = c.wp_scalar("diff_multfac_w", 0.29);
    let diff_multfac_n2w = c.wp("diff_multfac_n2w", &[NLEV]);
    let type_shear = c.int("type_shear", type_shear);
    let nrdmax = c.int("nrdmax", 3);
    let interior_idx = c.int("interior_idx", 3);
    let halo_idx = c.int("halo_idx", N_CELLS as i32 - 3);
    let table = c.table("C2E2CO", N_CELLS, 4, N_CELLS);
    let domain = ((1, N_CELLS as i32 - 1), (0, NLEV as i32));
    let c2e2co = Connectivity::<C2E2CO>::new(table, N_CELLS).expect("valid table");
    let program = "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence";
    let opts = options(backend, Connectivities::new().with(&c2e2co)).with_static_arg(
        program,
        "type_shear",
        type_shear,
    );
    let mut w = f64_nan_field::<(Cell, K)>(&CELL_K);
    let mut dwdx_out = f32_field::<(Cell, K)>(&dwdx);
    let mut dwdy_out = f32_field::<(Cell, K)>(&dwdy);
    use diffusion::mixed::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence as w_diffusion;
    w_diffusion::compile(&opts)
        .expect("compiles")
        .call(w_diffusion::Args {
            area: &f64_field(&area),
            geofac_n2s: &f64_field(&geofac_n2s),
            geofac_grg_x: &f64_field(&geofac_grg_x),
            geofac_grg_y: &f64_field(&geofac_grg_y),
            w_old: &f64_field(&w_old),
            w: &mut w,
            type_shear,
            dwdx: &mut dwdx_out,
            dwdy: &mut dwdy_out,
            diff_multfac_w,
            diff_multfac_n2w: &f64_field(&diff_multfac_n2w),
            nrdmax,
            interior_idx,
            halo_idx,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        })
        .expect("runs");
    let expected = c.reference(
        program,
        &[("w", &CELL_K), ("dwdx", &CELL_K), ("dwdy", &CELL_K)],
        domain,
    );
    assert_mixed_output("w", &values(&w), &expected[0], domain);
    assert_mixed_output("dwdx", &widen(&dwdx_out), &expected[1], domain);
    assert_mixed_output("dwdy", &widen(&dwdy_out), &expected[2], domain);
    // Level 0, and every level without the shear gradients, keeps the vpfloat input exactly.
    let kept = if type_shear == 2 { 1 } else { NLEV };
    for (got, input) in [(&dwdx_out, &dwdx), (&dwdy_out, &dwdy)] {
        let got = widen(got);
        for cell in 0..N_CELLS {
            for k in 0..kept {
                assert_eq!(got[[cell, k]].to_bits(), input[[cell, k]].to_bits());
            }
        }
    }
}

#[test]
fn apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence_mixed_on_both_backends_matches_reference(
) {
    for backend in BACKENDS {
        for type_shear in [1, 2] {
            apply_diffusion_to_w_mixed_matches_reference(backend, type_shear);
        }
    }
}

fn cold_pools_mixed_matches_reference(backend: Backend) {
    let mut c = Case::new(61);
    let theta_v = c.wp("theta_v", &CELL_K);
    let theta_ref_mc = c.vp("theta_ref_mc", &CELL_K);
    let thresh_tdiff = c.wp_scalar("thresh_tdiff", 0.5);
    let smallest_vpfloat = c.vp_scalar("smallest_vpfloat", -1.0e30);
    // Coefficients of the enhancements' size, so that both win `max` somewhere.
    let kh_smag_e = c.vp_in("kh_smag_e", &EDGE_K, 0.0..1.0e-3);
    let e2c_table = c.table("E2C", N_EDGES, 2, N_CELLS);
    let c2e2c_table = c.table("C2E2C", N_CELLS, 3, N_CELLS);
    let domain = ((0, N_EDGES as i32), (1, NLEV as i32));
    let e2c = Connectivity::<E2C>::new(e2c_table, N_CELLS).expect("valid table");
    let c2e2c = Connectivity::<C2E2C>::new(c2e2c_table, N_CELLS).expect("valid table");
    let mut kh_out = f32_field::<(Edge, K)>(&kh_smag_e);
    use diffusion::mixed::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools as cold_pools;
    cold_pools::compile(&options(
        backend,
        Connectivities::new().with(&e2c).with(&c2e2c),
    ))
    .expect("compiles")
    .call(cold_pools::Args {
        theta_v: &f64_field(&theta_v),
        theta_ref_mc: &f32_field(&theta_ref_mc),
        thresh_tdiff,
        smallest_vpfloat,
        kh_smag_e: &mut kh_out,
        horizontal_start: domain.0 .0,
        horizontal_end: domain.0 .1,
        vertical_start: domain.1 .0,
        vertical_end: domain.1 .1,
    })
    .expect("runs");
    let expected = c.reference(
        "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools",
        &[("kh_smag_e", &EDGE_K)],
        domain,
    );
    let got = widen(&kh_out);
    assert_mixed_output("kh_smag_e", &got, &expected[0], domain);
    let enhanced = got
        .iter()
        .zip(kh_smag_e.iter())
        .filter(|(g, k)| g > k)
        .count();
    assert!(
        enhanced > 0 && enhanced < N_EDGES * (NLEV - 1),
        "{enhanced}"
    );
}

#[test]
fn calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools_mixed_on_both_backends_matches_reference(
) {
    for backend in BACKENDS {
        cold_pools_mixed_matches_reference(backend);
    }
}

/// Inputs of the steep-point z-diffusion: some points have no coefficient.
struct SteepPointInputs {
    zd_vertoffset: ArrayD<i32>,
    zd_diffcoef: ArrayD<f64>,
    geofac_n2s_c: ArrayD<f64>,
    geofac_n2s_nbh: ArrayD<f64>,
    vcoef: ArrayD<f64>,
    c2e2c: Array2<i32>,
}

fn steep_point_inputs(c: &mut Case) -> SteepPointInputs {
    let zd_vertoffset = c.vertical_offsets("zd_vertoffset");
    let mut zd_diffcoef = random_array(&mut c.rng, &CELL_K);
    for cell in 0..N_CELLS {
        zd_diffcoef[[cell, cell % NLEV]] = 0.0;
    }
    c.record(|call| call.with_field("zd_diffcoef", zd_diffcoef.clone()));
    SteepPointInputs {
        zd_vertoffset,
        zd_diffcoef,
        geofac_n2s_c: c.wp("geofac_n2s_c", &[N_CELLS]),
        geofac_n2s_nbh: c.wp("geofac_n2s_nbh", &[N_CELLS, 3]),
        vcoef: c.wp("vcoef", &[N_CELLS, 3, NLEV]),
        c2e2c: c.table("C2E2C", N_CELLS, 3, N_CELLS),
    }
}

fn truly_horizontal_diffusion_mixed_matches_reference(backend: Backend) {
    let mut c = Case::new(71);
    let s = steep_point_inputs(&mut c);
    let theta_v = c.wp("theta_v", &CELL_K);
    let z_temp = c.vp("z_temp", &CELL_K);
    let domain = ((2, N_CELLS as i32 - 1), (0, NLEV as i32));
    let c2e2c = Connectivity::<C2E2C>::new(s.c2e2c.clone(), N_CELLS).expect("valid table");
    let mut z_temp_out = f32_field::<(Cell, K)>(&z_temp);
    use diffusion::mixed::truly_horizontal_diffusion_nabla_of_theta_over_steep_points as steep;
    steep::compile(&options(backend, Connectivities::new().with(&c2e2c)))
        .expect("compiles")
        .call(steep::Args {
            zd_vertoffset: &i32_field(&s.zd_vertoffset),
            zd_diffcoef: &f64_field(&s.zd_diffcoef),
            geofac_n2s_c: &f64_field(&s.geofac_n2s_c),
            geofac_n2s_nbh: &f64_field(&s.geofac_n2s_nbh),
            vcoef: &f64_field(&s.vcoef),
            theta_v: &f64_field(&theta_v),
            z_temp: &mut z_temp_out,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        })
        .expect("runs");
    let expected = c.reference(
        "truly_horizontal_diffusion_nabla_of_theta_over_steep_points",
        &[("z_temp", &CELL_K)],
        domain,
    );
    let got = widen(&z_temp_out);
    assert_mixed_output("z_temp", &got, &expected[0], domain);
    // Without a coefficient the vpfloat input comes back unchanged.
    for cell in 0..N_CELLS {
        let k = cell % NLEV;
        assert_eq!(got[[cell, k]].to_bits(), z_temp[[cell, k]].to_bits());
    }
}

#[test]
fn truly_horizontal_diffusion_nabla_of_theta_over_steep_points_mixed_on_both_backends_matches_reference(
) {
    for backend in BACKENDS {
        truly_horizontal_diffusion_mixed_matches_reference(backend);
    }
}

fn update_theta_and_exner_mixed_matches_reference(backend: Backend) {
    let mut c = Case::new(72);
    let z_temp = c.vp("z_temp", &CELL_K);
    let area = c.wp_in("area", &[N_CELLS], 0.5..1.5);
    // Potential temperatures of the atmosphere: far from the 0 that θ'/θ divides by.
    let theta_v = c.wp_in("theta_v", &CELL_K, 250.0..350.0);
    let exner = c.wp_in("exner", &CELL_K, 0.5..1.0);
    let rd_o_cvd = c.vp_scalar("rd_o_cvd", 287.04 / 717.6);
    let domain = ((0, N_CELLS as i32 - 4), (2, NLEV as i32));
    let mut theta_out = f64_field::<(Cell, K)>(&theta_v);
    let mut exner_out = f64_field::<(Cell, K)>(&exner);
    diffusion::mixed::update_theta_and_exner::compile(&options(backend, Connectivities::new()))
        .expect("compiles")
        .call(diffusion::mixed::update_theta_and_exner::Args {
            z_temp: &f32_field(&z_temp),
            area: &f64_field(&area),
            theta_v: &mut theta_out,
            exner: &mut exner_out,
            rd_o_cvd,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        })
        .expect("runs");
    let expected = c.reference(
        "update_theta_and_exner",
        &[("theta_v", &CELL_K), ("exner", &CELL_K)],
        domain,
    );
    assert_mixed_output("theta_v", &values(&theta_out), &expected[0], domain);
    assert_mixed_output("exner", &values(&exner_out), &expected[1], domain);
}

#[test]
fn update_theta_and_exner_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        update_theta_and_exner_mixed_matches_reference(backend);
    }
}

fn apply_diffusion_to_theta_and_exner_mixed_matches_reference(
    backend: Backend,
    apply_zdiffusion_t: bool,
) {
    let mut c = Case::new(73);
    let kh_smag_e = c.vp("kh_smag_e", &EDGE_K);
    let inv_dual_edge_length = c.wp("inv_dual_edge_length", &[N_EDGES]);
    let theta_v_in = c.wp_in("theta_v_in", &CELL_K, 250.0..350.0);
    let geofac_div = c.wp("geofac_div", &[N_CELLS, 3]);
    let s = steep_point_inputs(&mut c);
    let area = c.wp_in("area", &[N_CELLS], 0.5..1.5);
    let exner = c.wp_in("exner", &CELL_K, 0.5..1.0);
    let rd_o_cvd = c.vp_scalar("rd_o_cvd", 287.04 / 717.6);
    let apply_zdiffusion_t = c.flag("apply_zdiffusion_t", apply_zdiffusion_t);
    let c2e_table = c.table("C2E", N_CELLS, 3, N_EDGES);
    let e2c_table = c.table("E2C", N_EDGES, 2, N_CELLS);
    let domain = ((1, N_CELLS as i32), (0, NLEV as i32 - 1));
    let c2e = Connectivity::<C2E>::new(c2e_table, N_EDGES).expect("valid table");
    let e2c = Connectivity::<E2C>::new(e2c_table, N_CELLS).expect("valid table");
    let c2e2c = Connectivity::<C2E2C>::new(s.c2e2c.clone(), N_CELLS).expect("valid table");
    let program = "apply_diffusion_to_theta_and_exner";
    let opts = options(
        backend,
        Connectivities::new().with(&c2e).with(&e2c).with(&c2e2c),
    )
    .with_static_arg(program, "apply_zdiffusion_t", apply_zdiffusion_t);
    let mut theta_v = f64_nan_field::<(Cell, K)>(&CELL_K);
    let mut exner_out = f64_field::<(Cell, K)>(&exner);
    diffusion::mixed::apply_diffusion_to_theta_and_exner::compile(&opts)
        .expect("compiles")
        .call(diffusion::mixed::apply_diffusion_to_theta_and_exner::Args {
            kh_smag_e: &f32_field(&kh_smag_e),
            inv_dual_edge_length: &f64_field(&inv_dual_edge_length),
            theta_v_in: &f64_field(&theta_v_in),
            geofac_div: &f64_field(&geofac_div),
            zd_vertoffset: &i32_field(&s.zd_vertoffset),
            zd_diffcoef: &f64_field(&s.zd_diffcoef),
            geofac_n2s_c: &f64_field(&s.geofac_n2s_c),
            geofac_n2s_nbh: &f64_field(&s.geofac_n2s_nbh),
            vcoef: &f64_field(&s.vcoef),
            area: &f64_field(&area),
            theta_v: &mut theta_v,
            exner: &mut exner_out,
            rd_o_cvd,
            apply_zdiffusion_t,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        })
        .expect("runs");
    let expected = c.reference(program, &[("theta_v", &CELL_K), ("exner", &CELL_K)], domain);
    assert_mixed_output("theta_v", &values(&theta_v), &expected[0], domain);
    assert_mixed_output("exner", &values(&exner_out), &expected[1], domain);
}

#[test]
fn apply_diffusion_to_theta_and_exner_mixed_on_both_backends_with_and_without_z_diffusion_matches_reference(
) {
    for backend in BACKENDS {
        for apply_zdiffusion_t in [true, false] {
            apply_diffusion_to_theta_and_exner_mixed_matches_reference(backend, apply_zdiffusion_t);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Velocity advection "1 to 7", the w solver and the diffusion setup programs
// ---------------------------------------------------------------------------------------------

/// Compares two arrays that may hold NaN (points a program leaves untouched, or inputs that
/// are outputs too): NaN at the same points, the rest within the file's tolerance.
fn assert_close_where_defined(name: &str, got: &ArrayD<f64>, expected: &ArrayD<f64>) {
    assert_eq!(got.shape(), expected.shape(), "`{name}`: shape");
    assert!(
        got.iter()
            .zip(expected.iter())
            .all(|(g, e)| g.is_nan() == e.is_nan()),
        "`{name}`: NaN at other points"
    );
    let defined = |a: &ArrayD<f64>| -> ArrayD<f64> {
        let values: Vec<f64> = a.iter().copied().filter(|x| !x.is_nan()).collect();
        ArrayD::from_shape_vec(IxDyn(&[values.len()]), values).expect("one dimension")
    };
    assert_close(name, &defined(got), &defined(expected));
}

fn random_in(rng: &mut ChaCha8Rng, shape: &[usize], range: std::ops::Range<f64>) -> ArrayD<f64> {
    ArrayD::from_shape_fn(IxDyn(shape), |_| rng.random_range(range.clone()))
}

fn interpolate_vn_to_half_levels_mixed_matches_reference(backend: Backend) {
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let shape = [N_EDGES, NLEV];
    let wgtfac_e = round_to_f32(&random_array(&mut rng, &shape));
    let vn = random_array(&mut rng, &shape);
    let vt = round_to_f32(&random_array(&mut rng, &shape));
    // Reads level k − 1: the domain starts at K = 1.
    let domain = ((2, N_EDGES as i32 - 1), (1, NLEV as i32));
    let mut vn_ie = f32_nan_field::<(Edge, K)>(&shape);
    let mut z_kin_hor_e = f32_nan_field::<(Edge, K)>(&shape);
    use velocity_advection::mixed::interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges as program;
    program::compile(&options(backend, Connectivities::new()))
        .expect("compiles")
        .call(program::Args {
            wgtfac_e: &f32_field(&wgtfac_e),
            vn: &f64_field(&vn),
            vt: &f32_field(&vt),
            vn_ie: &mut vn_ie,
            z_kin_hor_e: &mut z_kin_hor_e,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        })
        .expect("runs");
    let expected = reference_outputs(
        "interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges",
        &[("wgtfac_e", &wgtfac_e), ("vn", &vn), ("vt", &vt)],
        Vec::new(),
        &[("vn_ie", &shape), ("z_kin_hor_e", &shape)],
        domain,
    );
    assert_close_in_domain("vn_ie", &widen(&vn_ie), &expected[0], domain);
    assert_close_in_domain("z_kin_hor_e", &widen(&z_kin_hor_e), &expected[1], domain);
}

#[test]
fn interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges_mixed_on_both_backends_matches_reference(
) {
    for backend in BACKENDS {
        interpolate_vn_to_half_levels_mixed_matches_reference(backend);
    }
}

/// Inputs of `compute_diagnostics_from_normal_wind`; the vpfloat ones (`_vp`) rounded to f32.
/// `vn_on_half_levels`, `w`, `wgtfac_e` and `wgtfacq_e` have `NLEV + 1` half levels.
struct NormalWindInputs {
    tangential_wind_on_half_levels_vp: ArrayD<f64>,
    contravariant_correction_at_edges_on_model_levels_vp: ArrayD<f64>,
    horizontal_advection_of_w_at_edges_on_half_levels_vp: ArrayD<f64>,
    vn: ArrayD<f64>,
    w: ArrayD<f64>,
    rbf_vec_coeff_e: ArrayD<f64>,
    wgtfac_e_vp: ArrayD<f64>,
    ddxn_z_full_vp: ArrayD<f64>,
    ddxt_z_full_vp: ArrayD<f64>,
    wgtfacq_e_vp: ArrayD<f64>,
    c_intp: ArrayD<f64>,
    inv_dual_edge_length: ArrayD<f64>,
    inv_primal_edge_length: ArrayD<f64>,
    tangent_orientation: ArrayD<f64>,
    e2c2e: Array2<i32>,
    e2c: Array2<i32>,
    e2v: Array2<i32>,
    v2c: Array2<i32>,
}

fn normal_wind_inputs(seed: u64) -> NormalWindInputs {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (ek, half) = ([N_EDGES, NLEV], [N_EDGES, NLEV + 1]);
    let vp = |rng: &mut ChaCha8Rng, shape: &[usize]| round_to_f32(&random_array(rng, shape));
    NormalWindInputs {
        tangential_wind_on_half_levels_vp: vp(&mut rng, &ek),
        contravariant_correction_at_edges_on_model_levels_vp: vp(&mut rng, &ek),
        horizontal_advection_of_w_at_edges_on_half_levels_vp: vp(&mut rng, &ek),
        vn: random_array(&mut rng, &ek),
        w: random_array(&mut rng, &[N_CELLS, NLEV + 1]),
        rbf_vec_coeff_e: random_array(&mut rng, &[N_EDGES, 4]),
        wgtfac_e_vp: vp(&mut rng, &half),
        ddxn_z_full_vp: vp(&mut rng, &ek),
        ddxt_z_full_vp: vp(&mut rng, &ek),
        wgtfacq_e_vp: vp(&mut rng, &half),
        c_intp: random_array(&mut rng, &[N_VERTICES, 6]),
        inv_dual_edge_length: random_array(&mut rng, &[N_EDGES]),
        inv_primal_edge_length: random_array(&mut rng, &[N_EDGES]),
        tangent_orientation: random_array(&mut rng, &[N_EDGES]),
        e2c2e: random_table(&mut rng, N_EDGES, 4, N_EDGES),
        e2c: random_table(&mut rng, N_EDGES, 2, N_CELLS),
        e2v: random_table(&mut rng, N_EDGES, 2, N_VERTICES),
        v2c: random_table(&mut rng, N_VERTICES, 6, N_CELLS),
    }
}

fn compute_diagnostics_from_normal_wind_mixed_matches_reference(backend: Backend, skip: bool) {
    let t = normal_wind_inputs(42);
    let (ek, half) = ([N_EDGES, NLEV], [N_EDGES, NLEV + 1]);
    let nflatlev = 3;
    // The first call covers K [0, NLEV), the extrapolation the surface half level NLEV.
    let domain = ((1, N_EDGES as i32 - 2), (0, NLEV as i32 + 1));
    let e2c2e = Connectivity::<E2C2E>::new(t.e2c2e.clone(), N_EDGES).expect("valid table");
    let e2c = Connectivity::<E2C>::new(t.e2c.clone(), N_CELLS).expect("valid table");
    let e2v = Connectivity::<E2V>::new(t.e2v.clone(), N_VERTICES).expect("valid table");
    let v2c = Connectivity::<V2C>::new(t.v2c.clone(), N_CELLS).expect("valid table");
    use velocity_advection::mixed::compute_diagnostics_from_normal_wind as program;
    let opts = options(
        backend,
        Connectivities::new()
            .with(&e2c2e)
            .with(&e2c)
            .with(&e2v)
            .with(&v2c),
    )
    .with_static_arg(
        program::NAME,
        "skip_compute_predictor_vertical_advection",
        skip,
    );
    let mut tangential_wind = f32_nan_field::<(Edge, K)>(&ek);
    let mut tangential_wind_on_half_levels = f32_field(&t.tangential_wind_on_half_levels_vp);
    let mut vn_on_half_levels = f32_nan_field::<(Edge, K)>(&half);
    let mut kinetic_energy = f32_nan_field::<(Edge, K)>(&ek);
    let mut contravariant_correction =
        f32_field(&t.contravariant_correction_at_edges_on_model_levels_vp);
    let mut advection_of_w = f32_field(&t.horizontal_advection_of_w_at_edges_on_half_levels_vp);
    program::compile(&opts)
        .expect("compiles")
        .call(program::Args {
            tangential_wind: &mut tangential_wind,
            tangential_wind_on_half_levels: &mut tangential_wind_on_half_levels,
            vn_on_half_levels: &mut vn_on_half_levels,
            horizontal_kinetic_energy_at_edges_on_model_levels: &mut kinetic_energy,
            contravariant_correction_at_edges_on_model_levels: &mut contravariant_correction,
            horizontal_advection_of_w_at_edges_on_half_levels: &mut advection_of_w,
            vn: &f64_field(&t.vn),
            w: &f64_field(&t.w),
            rbf_vec_coeff_e: &f64_field(&t.rbf_vec_coeff_e),
            wgtfac_e: &f32_field(&t.wgtfac_e_vp),
            ddxn_z_full: &f32_field(&t.ddxn_z_full_vp),
            ddxt_z_full: &f32_field(&t.ddxt_z_full_vp),
            wgtfacq_e: &f32_field(&t.wgtfacq_e_vp),
            c_intp: &f64_field(&t.c_intp),
            inv_dual_edge_length: &f64_field(&t.inv_dual_edge_length),
            inv_primal_edge_length: &f64_field(&t.inv_primal_edge_length),
            tangent_orientation: &f64_field(&t.tangent_orientation),
            skip_compute_predictor_vertical_advection: skip,
            nflatlev,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        })
        .expect("runs");

    let mut call = Call::new()
        .with_field("tangential_wind", ArrayD::from_elem(IxDyn(&ek), f64::NAN))
        .with_field(
            "tangential_wind_on_half_levels",
            t.tangential_wind_on_half_levels_vp.clone(),
        )
        .with_field(
            "vn_on_half_levels",
            ArrayD::from_elem(IxDyn(&half), f64::NAN),
        )
        .with_field(
            "horizontal_kinetic_energy_at_edges_on_model_levels",
            ArrayD::from_elem(IxDyn(&ek), f64::NAN),
        )
        .with_field(
            "contravariant_correction_at_edges_on_model_levels",
            t.contravariant_correction_at_edges_on_model_levels_vp
                .clone(),
        )
        .with_field(
            "horizontal_advection_of_w_at_edges_on_half_levels",
            t.horizontal_advection_of_w_at_edges_on_half_levels_vp
                .clone(),
        )
        .with_field("vn", t.vn)
        .with_field("w", t.w)
        .with_field("rbf_vec_coeff_e", t.rbf_vec_coeff_e)
        .with_field("wgtfac_e", t.wgtfac_e_vp)
        .with_field("ddxn_z_full", t.ddxn_z_full_vp)
        .with_field("ddxt_z_full", t.ddxt_z_full_vp)
        .with_field("wgtfacq_e", t.wgtfacq_e_vp)
        .with_field("c_intp", t.c_intp)
        .with_field("inv_dual_edge_length", t.inv_dual_edge_length)
        .with_field("inv_primal_edge_length", t.inv_primal_edge_length)
        .with_field("tangent_orientation", t.tangent_orientation)
        .with_flag("skip_compute_predictor_vertical_advection", skip)
        .with_int("nflatlev", nflatlev)
        .with_domain(domain.0 .0..domain.0 .1, domain.1 .0..domain.1 .1)
        .with_table(NeighborTable::new("E2C2E", t.e2c2e).expect("valid table"))
        .with_table(NeighborTable::new("E2C", t.e2c).expect("valid table"))
        .with_table(NeighborTable::new("E2V", t.e2v).expect("valid table"))
        .with_table(NeighborTable::new("V2C", t.v2c).expect("valid table"));
    reference::run("compute_diagnostics_from_normal_wind", &mut call).expect("reference runs");
    let expected = |name: &str| match call.params.get(name) {
        Ok(RefArray::Float64(a)) => a.clone(),
        other => panic!("`{name}`: {other:?}"),
    };
    for (name, got) in [
        ("tangential_wind", &tangential_wind),
        (
            "tangential_wind_on_half_levels",
            &tangential_wind_on_half_levels,
        ),
        ("vn_on_half_levels", &vn_on_half_levels),
        (
            "horizontal_kinetic_energy_at_edges_on_model_levels",
            &kinetic_energy,
        ),
        (
            "contravariant_correction_at_edges_on_model_levels",
            &contravariant_correction,
        ),
        (
            "horizontal_advection_of_w_at_edges_on_half_levels",
            &advection_of_w,
        ),
    ] {
        assert_close_where_defined(name, &widen(got), &expected(name));
    }
    // The flag decides whether the two half-level outputs are computed or kept.
    let (h0, k_top) = (domain.0 .0 as usize, NLEV - 1);
    let kept = |got: &Field<(Edge, K), f32>, before: &ArrayD<f64>| {
        f64::from(got.as_array()[[h0, k_top]]) == before[[h0, k_top]]
    };
    assert_eq!(
        kept(
            &tangential_wind_on_half_levels,
            &t.tangential_wind_on_half_levels_vp
        ),
        skip
    );
    assert_eq!(
        kept(
            &advection_of_w,
            &t.horizontal_advection_of_w_at_edges_on_half_levels_vp
        ),
        skip
    );
}

#[test]
fn compute_diagnostics_from_normal_wind_mixed_on_both_backends_and_flags_matches_reference() {
    for backend in BACKENDS {
        for skip in [false, true] {
            compute_diagnostics_from_normal_wind_mixed_matches_reference(backend, skip);
        }
    }
}

/// Inputs of the forward sweep, in the ranges of a real column: positive weights and layer
/// thicknesses, `dtime·cpd` such that `z_gamma = dtime·cpd·vwind_impl_wgt·theta_v_ic/ddqz_z_half`
/// lies in (0, 0.2], and `z_alpha`, `z_beta` in [0.1, 1). Then `b ≥ 1` and
/// `|a| + |c| ≤ z_gamma·(β[k−1]·α[k−1] + β·α[k+1]) ≤ 0.4`: the matrix is strictly diagonally
/// dominant, so `|c'| ≤ 0.2/(1 − 0.2·0.25) < 0.22` on every level and an error in the carry
/// `(c', d')` reaches the next level multiplied by at most `|a|/|b + a·c'| < 0.22`. The f32
/// roundings of one level (z_gamma; a, b and c with three each; the normalisation with three;
/// c' with one more) make a relative error below about 12 f32 unit roundoffs (12·2⁻²⁴ ≈ 7e-7)
/// of the level's terms, and the carried errors add at most the geometric factor
/// 1/(1 − 0.22) ≈ 1.3: below 1e-6 of the output's scale, inside the file's 3e-6. No looser
/// bound is needed for the scan.
struct SweepInputs {
    vwind_impl_wgt: ArrayD<f64>,
    theta_v_ic: ArrayD<f64>,
    ddqz_z_half_vp: ArrayD<f64>,
    z_alpha_vp: ArrayD<f64>,
    z_beta_vp: ArrayD<f64>,
    z_w_expl: ArrayD<f64>,
    z_exner_expl: ArrayD<f64>,
}

const SWEEP_DTIME: f64 = 0.1;
const SWEEP_CPD: f64 = 1.0;

fn sweep_inputs(seed: u64) -> SweepInputs {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (ck, half) = ([N_CELLS, NLEV], [N_CELLS, NLEV + 1]);
    SweepInputs {
        vwind_impl_wgt: random_in(&mut rng, &[N_CELLS], 0.5..1.0),
        theta_v_ic: random_in(&mut rng, &ck, 0.5..1.0),
        ddqz_z_half_vp: round_to_f32(&random_in(&mut rng, &ck, 0.5..1.0)),
        z_alpha_vp: round_to_f32(&random_in(&mut rng, &half, 0.1..1.0)),
        z_beta_vp: round_to_f32(&random_in(&mut rng, &ck, 0.1..1.0)),
        z_w_expl: random_array(&mut rng, &half),
        z_exner_expl: random_array(&mut rng, &ck),
    }
}

fn forward_sweep_mixed_matches_reference(backend: Backend) {
    let t = sweep_inputs(43);
    let ck = [N_CELLS, NLEV];
    // Reads level k − 1: the sweep starts at K = 1.
    let domain = ((1, N_CELLS as i32 - 1), (1, NLEV as i32));
    let mut z_q = f32_nan_field::<(Cell, K)>(&ck);
    let mut w = f64_nan_field::<(Cell, K)>(&ck);
    use solver::mixed::solve_tridiagonal_matrix_for_w_forward_sweep as program;
    program::compile(&options(backend, Connectivities::new()))
        .expect("compiles")
        .call(program::Args {
            vwind_impl_wgt: &f64_field(&t.vwind_impl_wgt),
            theta_v_ic: &f64_field(&t.theta_v_ic),
            ddqz_z_half: &f32_field(&t.ddqz_z_half_vp),
            z_alpha: &f32_field(&t.z_alpha_vp),
            z_beta: &f32_field(&t.z_beta_vp),
            z_w_expl: &f64_field(&t.z_w_expl),
            z_exner_expl: &f64_field(&t.z_exner_expl),
            z_q: &mut z_q,
            w: &mut w,
            dtime: SWEEP_DTIME,
            cpd: SWEEP_CPD,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        })
        .expect("runs");
    let mut call = Call::new()
        .with_field("vwind_impl_wgt", t.vwind_impl_wgt)
        .with_field("theta_v_ic", t.theta_v_ic)
        .with_field("ddqz_z_half", t.ddqz_z_half_vp)
        .with_field("z_alpha", t.z_alpha_vp)
        .with_field("z_beta", t.z_beta_vp)
        .with_field("z_w_expl", t.z_w_expl)
        .with_field("z_exner_expl", t.z_exner_expl)
        .with_field("z_q", ArrayD::from_elem(IxDyn(&ck), f64::NAN))
        .with_field("w", ArrayD::from_elem(IxDyn(&ck), f64::NAN))
        .with_scalar("dtime", SWEEP_DTIME)
        .with_scalar("cpd", SWEEP_CPD)
        .with_domain(domain.0 .0..domain.0 .1, domain.1 .0..domain.1 .1);
    reference::run("solve_tridiagonal_matrix_for_w_forward_sweep", &mut call)
        .expect("reference runs");
    let expected = |name: &str| match call.params.get(name) {
        Ok(RefArray::Float64(a)) => a.clone(),
        other => panic!("`{name}`: {other:?}"),
    };
    assert_close_in_domain("z_q", &widen(&z_q), &expected("z_q"), domain);
    assert_close_in_domain("w", &w.as_array().to_owned(), &expected("w"), domain);
}

#[test]
fn solve_tridiagonal_matrix_for_w_forward_sweep_mixed_on_both_backends_matches_reference() {
    for backend in BACKENDS {
        forward_sweep_mixed_matches_reference(backend);
    }
}

/// The back substitution widens the vpfloat `z_q` (exactly) and computes in wpfloat: with `z_q`
/// rounded to f32 for both, the mixed program performs the reference's f64 operations, in its
/// order, and must equal it bit for bit.
fn back_substitution_mixed_equals_reference(backend: Backend) {
    let mut rng = ChaCha8Rng::seed_from_u64(44);
    let ck = [N_CELLS, NLEV];
    let z_q = round_to_f32(&random_array(&mut rng, &ck));
    let w_before = random_array(&mut rng, &ck);
    let domain = ((2, N_CELLS as i32), (1, NLEV as i32));
    let mut w = f64_field::<(Cell, K)>(&w_before);
    use solver::mixed::solve_tridiagonal_matrix_for_w_back_substitution as program;
    program::compile(&options(backend, Connectivities::new()))
        .expect("compiles")
        .call(program::Args {
            z_q: &f32_field(&z_q),
            w: &mut w,
            horizontal_start: domain.0 .0,
            horizontal_end: domain.0 .1,
            vertical_start: domain.1 .0,
            vertical_end: domain.1 .1,
        })
        .expect("runs");
    let expected = reference_run(
        "solve_tridiagonal_matrix_for_w_back_substitution",
        &[("z_q", &z_q), ("w", &w_before)],
        Vec::new(),
        ("w", &ck),
        domain,
    );
    let got = w.as_array().to_owned();
    assert_ne!(got, w_before, "the program wrote nothing");
    assert_eq!(got.mapv(f64::to_bits), expected.mapv(f64::to_bits));
}

#[test]
fn solve_tridiagonal_matrix_for_w_back_substitution_mixed_on_both_backends_equals_reference() {
    for backend in BACKENDS {
        back_substitution_mixed_equals_reference(backend);
    }
}

/// Runs `$body` with `$m` naming `diffusion_utils::mixed`, then `diffusion_utils::double`, and
/// returns both results.
macro_rules! in_both_modes {
    ($m:ident => $body:expr) => {{
        let mixed = {
            use diffusion_utils::mixed as $m;
            $body
        };
        let double = {
            use diffusion_utils::double as $m;
            $body
        };
        (mixed, double)
    }};
}

/// ICON4Py declares the diffusion setup programs in `float` (f64) only: the mixed versions must
/// equal the double ones bit for bit, and the references (or ICON's formulas where there is
/// none) within the file's tolerance.
fn diffusion_setup_programs_mixed_equal_double(backend: Backend) {
    let mut rng = ChaCha8Rng::seed_from_u64(45);
    let opts = options(backend, Connectivities::new());
    let bits = |a: &ArrayD<f64>| a.mapv(f64::to_bits);
    let k_nan = || f64_nan_field::<K>(&[NLEV]);

    let (k4, hdiff_efdt_ratio) = (rng.random_range(0.01..0.1), rng.random_range(10.0..40.0));
    let (mixed, double) = in_both_modes!(m => {
        let (mut diff_multfac_vn, mut smag_limit) = (k_nan(), k_nan());
        m::setup_fields_for_initial_step::compile(&opts)
            .expect("compiles")
            .call(m::setup_fields_for_initial_step::Args {
                k4,
                hdiff_efdt_ratio,
                diff_multfac_vn: &mut diff_multfac_vn,
                smag_limit: &mut smag_limit,
            })
            .expect("runs");
        [diff_multfac_vn.as_array().to_owned(), smag_limit.as_array().to_owned()]
    });
    let mut call = Call::new()
        .with_scalar("k4", k4)
        .with_scalar("hdiff_efdt_ratio", hdiff_efdt_ratio)
        .with_field(
            "diff_multfac_vn",
            ArrayD::from_elem(IxDyn(&[NLEV]), f64::NAN),
        )
        .with_field("smag_limit", ArrayD::from_elem(IxDyn(&[NLEV]), f64::NAN));
    reference::run("setup_fields_for_initial_step", &mut call).expect("reference runs");
    for (i, name) in ["diff_multfac_vn", "smag_limit"].into_iter().enumerate() {
        assert_eq!(bits(&mixed[i]), bits(&double[i]), "{name}");
        let Ok(RefArray::Float64(expected)) = call.params.get(name) else {
            panic!("`{name}` is no f64 array");
        };
        assert_close(name, &mixed[i], expected);
    }

    let field = random_array(&mut rng, &[NLEV]);
    let factor = rng.random_range(0.5..2.0);
    let (mixed, double) = in_both_modes!(m => {
        let mut scaled_field = k_nan();
        m::scale_k::compile(&opts)
            .expect("compiles")
            .call(m::scale_k::Args {
                field: &f64_field(&field),
                factor,
                scaled_field: &mut scaled_field,
            })
            .expect("runs");
        scaled_field.as_array().to_owned()
    });
    assert_eq!(bits(&mixed), bits(&double), "scaled_field");
    let mut call = Call::new()
        .with_field("field", field)
        .with_scalar("factor", factor)
        .with_field("scaled_field", ArrayD::from_elem(IxDyn(&[NLEV]), f64::NAN));
    reference::run("scale_k", &mut call).expect("reference runs");
    let Ok(RefArray::Float64(expected)) = call.params.get("scaled_field") else {
        panic!("`scaled_field` is no f64 array");
    };
    assert_close("scaled_field", &mixed, expected);

    // Half-level heights falling from the model top; ICON's Smagorinsky heights within them.
    let vect_a = ArrayD::from_shape_fn(IxDyn(&[NLEV + 1]), |ix| {
        let level = (NLEV - ix[0]) as f64;
        12_000.0 * level + rng.random_range(0.0..3_000.0)
    });
    let smag_fac = [0.015, 0.03, 0.0, 1.0].map(|f: f64| f + rng.random_range(0.0..0.01));
    let smag_z =
        [20_000.0, 40_000.0, 60_000.0, 80_000.0].map(|z: f64| z + rng.random_range(0.0..5_000.0));
    let dyn_substeps = 5.0;
    let (mixed, double) = in_both_modes!(m => {
        let (mut diff_multfac_vn, mut smag_limit, mut enh_smag_fac) = (k_nan(), k_nan(), k_nan());
        m::init_diffusion_local_fields_for_regular_timestep::compile(&opts)
            .expect("compiles")
            .call(m::init_diffusion_local_fields_for_regular_timestep::Args {
                k4,
                dyn_substeps,
                hdiff_smag_fac: smag_fac[0],
                hdiff_smag_fac2: smag_fac[1],
                hdiff_smag_fac3: smag_fac[2],
                hdiff_smag_fac4: smag_fac[3],
                hdiff_smag_z: smag_z[0],
                hdiff_smag_z2: smag_z[1],
                hdiff_smag_z3: smag_z[2],
                hdiff_smag_z4: smag_z[3],
                vect_a: &f64_field(&vect_a),
                diff_multfac_vn: &mut diff_multfac_vn,
                smag_limit: &mut smag_limit,
                enh_smag_fac: &mut enh_smag_fac,
                vertical_start: 0,
                vertical_end: NLEV as i32,
            })
            .expect("runs");
        [
            diff_multfac_vn.as_array().to_owned(),
            smag_limit.as_array().to_owned(),
            enh_smag_fac.as_array().to_owned(),
        ]
    });
    // ICON's formulas, written out independently of the DSL (the factor of a regular step as
    // ICON takes it: the smaller of 1/128 and K4·substeps/3).
    let multfac = (k4 * dyn_substeps / 3.0).min(1.0 / 128.0);
    let [fac, fac2, fac3, fac4] = smag_fac;
    let [z1, z2, z3, z4] = smag_z;
    let enh = ArrayD::from_shape_fn(IxDyn(&[NLEV]), |ix| {
        let zf = 0.5 * (vect_a[[ix[0]]] + vect_a[[ix[0] + 1]]);
        let dz21 = z2 - z1;
        let (df32, df42, dz32, dz42) = (fac3 - fac2, fac4 - fac2, z3 - z2, z4 - z2);
        let bqdr = (df42 * dz32 - df32 * dz42) / (dz32 * dz42 * (dz42 - dz32));
        let aqdr = df32 / dz32 - bqdr * dz32;
        let dzlin = (zf - z1).clamp(0.0, dz21);
        let dzqdr = (zf - z2).clamp(0.0, dz42);
        fac + dzlin * (fac2 - fac) / dz21 + dzqdr * (aqdr + dzqdr * bqdr)
    });
    assert!(
        enh.iter().any(|&e| e > fac + 1e-3) && enh.iter().any(|&e| e == fac),
        "the heights span the profile's zones"
    );
    let expected = [
        ArrayD::from_elem(IxDyn(&[NLEV]), multfac),
        ArrayD::from_elem(IxDyn(&[NLEV]), 0.125 - 4.0 * multfac),
        enh,
    ];
    for (i, name) in ["diff_multfac_vn", "smag_limit", "enh_smag_fac"]
        .into_iter()
        .enumerate()
    {
        assert_eq!(bits(&mixed[i]), bits(&double[i]), "{name}");
        assert_close(name, &mixed[i], &expected[i]);
    }

    let nrdmax = 3;
    let heights = vect_a.as_slice().expect("contiguous");
    let (heights_nrd_shift, heights_1) = (heights[nrdmax + 1], heights[1]);
    let (mixed, double) = in_both_modes!(m => {
        let mut diff_multfac_n2w = k_nan();
        m::init_nabla2_factor_in_upper_damping_zone::compile(&opts)
            .expect("compiles")
            .call(m::init_nabla2_factor_in_upper_damping_zone::Args {
                physical_heights: &f64_field(&vect_a),
                nrdmax: nrdmax as i32,
                heights_nrd_shift,
                heights_1,
                diff_multfac_n2w: &mut diff_multfac_n2w,
                vertical_start: 0,
                vertical_end: NLEV as i32,
            })
            .expect("runs");
        diff_multfac_n2w.as_array().to_owned()
    });
    assert_eq!(bits(&mixed), bits(&double), "diff_multfac_n2w");
    let expected = ArrayD::from_shape_fn(IxDyn(&[NLEV]), |ix| {
        let k = ix[0];
        if (1..=nrdmax).contains(&k) {
            ((heights[k] - heights_nrd_shift) / (heights_1 - heights_nrd_shift)).powi(4) / 12.0
        } else {
            0.0
        }
    });
    assert_close("diff_multfac_n2w", &mixed, &expected);

    let old_f = random_array(&mut rng, &[N_CELLS, NLEV]);
    let (mixed, double) = in_both_modes!(m => {
        let mut new_f = f64_nan_field::<(Cell, K)>(&[N_CELLS, NLEV]);
        m::copy_field::compile(&opts)
            .expect("compiles")
            .call(m::copy_field::Args {
                old_f: &f64_field(&old_f),
                new_f: &mut new_f,
            })
            .expect("runs");
        new_f.as_array().to_owned()
    });
    assert_eq!(bits(&mixed), bits(&old_f), "new_f");
    assert_eq!(bits(&double), bits(&old_f), "new_f");
}

#[test]
fn diffusion_setup_programs_mixed_on_both_backends_equal_double() {
    for backend in BACKENDS {
        diffusion_setup_programs_mixed_equal_double(backend);
    }
}

//! ICON's mixed precision (`vpfloat = f32`, `wpfloat = f64`): each program that exists in both
//! configurations runs in `mixed` mode on a random grid and is compared with the f64 hand-written
//! reference, on the embedded and the CPU backend. The `double` configuration is what every other
//! test of these programs runs (`gt4rs_stencils::icon::dsl::diffusion::calculate_nabla4` is
//! `diffusion::double::calculate_nabla4`).

use gt4rs::prelude::*;
use gt4rs::Dims;
use gt4rs_stencils::icon::dims::*;
use gt4rs_stencils::icon::dsl::{diffusion, interpolation, velocity_advection};
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

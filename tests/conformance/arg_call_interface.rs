//! GT4Py `test_arg_call_interface.py`: operator → operator calls (through modules), a scan
//! operator called from a field operator and from a program, and an operator written with a
//! domain (GT4Py's direct call with `domain=`), including a tuple return. Rust has no keyword
//! arguments, so the permutations of positional and keyword arguments reduce to positional
//! calls and the named fields of `Args`; a missing argument is a compile error (a missing field
//! of `Args`, or the UI test `operator_call_argument_count`). Run-time errors of the call
//! interface (connectivities missing or of the wrong offset, an unavailable backend) are here.

use super::common::*;

mod physics {
    use super::*;

    #[field_operator]
    pub fn flux(q: Field<(Edge, K), f64>, speed: f64) -> Field<(Edge, K), f64> {
        q * speed
    }
}

#[field_operator]
fn divergence(q: Field<(Edge, K), f64>, speed: f64) -> Field<(Vertex, K), f64> {
    neighbor_sum(physics::flux(q, speed).at(V2E), V2E)
}

#[scan_operator(axis = K, forward = true, init = 0.0)]
fn accumulate(total: f64, x: f64) -> f64 {
    total + x
}

#[field_operator]
fn accumulated_divergence(
    q: Field<(Edge, K), f64>,
    speed: f64,
) -> (Field<(Vertex, K), f64>, Field<(Vertex, K), f64>) {
    let div = divergence(q, speed);
    (div, accumulate(div))
}

#[program]
fn calls(
    q: &Field<(Edge, K), f64>,
    speed: f64,
    div: &mut Field<(Vertex, K), f64>,
    total: &mut Field<(Vertex, K), f64>,
    direct_total: &mut Field<(Edge, K), f64>,
    horizontal_start: i32,
    horizontal_end: i32,
) {
    accumulated_divergence(q, speed).write_to(
        (div, total),
        domain![Vertex: horizontal_start..horizontal_end],
    );
    accumulate(q).write_to(direct_total, domain![K: 1..9]);
}

#[test]
fn nested_operator_and_scan_calls() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1701);
    let e_dom = sized(&[mesh.n_edges, NK]);
    let v_dom = sized(&[mesh.n_vertices, NK]);
    let q: Field<(Edge, K), f64> = random_field(&mut rng, &e_dom);
    let speed = 1.5;
    let written = [2..7, 0..NK as i64];
    let div_ref = |v: i64, k: i64| -> f64 {
        neighbours(&mesh.v2e, v)
            .iter()
            .map(|&e| at(&q, &[e as i64, k]) * speed)
            .sum()
    };
    for_each_backend(|backend| {
        let (mut div, mut total) = (poisoned(&v_dom), poisoned(&v_dom));
        let mut direct_total = poisoned(&e_dom);
        calls::compile(&backend.options_with(mesh.connectivities()))?.call(calls::Args {
            q: &q,
            speed,
            div: &mut div,
            total: &mut total,
            direct_total: &mut direct_total,
            horizontal_start: 2,
            horizontal_end: 7,
        })?;
        expect_field("div", &div, &written, |p| div_ref(p[0], p[1]));
        expect_field("total", &total, &written, |p| {
            (0..=p[1]).map(|k| div_ref(p[0], k)).sum()
        });
        expect_field(
            "direct_total",
            &direct_total,
            &[0..mesh.n_edges as i64, 1..NK as i64],
            |p| (1..=p[1]).map(|k| at(&q, &[p[0], k])).sum(),
        );
        Ok(())
    });
}

/// An offset with the name of `V2E` but another declaration, to bind a table of the wrong
/// offset under the right name.
mod impostor {
    gt4rs::offsets! { pub V2E: super::Vertex => super::Edge [2]; }
}

#[test]
fn connectivity_errors_at_compile() {
    let mesh = SimpleMesh::new();
    for_each_backend(|backend| {
        // No tables at all.
        expect_error(
            calls::compile(&backend.options()).map(|_| ()),
            &["V2E", "calls"],
        );
        // Other tables, but not V2E.
        let others = Connectivities::new().with(&mesh.e2v).with(&mesh.c2e);
        expect_error(
            calls::compile(&backend.options_with(others)).map(|_| ()),
            &["V2E", "E2V"],
        );
        // A table named V2E whose declaration differs from the program's.
        let table = ndarray::Array2::from_shape_fn((mesh.n_vertices, 2), |(v, j)| {
            ((v + j) % mesh.n_edges) as i32
        });
        let wrong = Connectivity::<impostor::V2E>::new(table, mesh.n_edges)?;
        expect_error(
            calls::compile(&backend.options_with(Connectivities::new().with(&wrong))).map(|_| ()),
            &["V2E", "[2]", "[4]"],
        );
        Ok(())
    });
    // Invalid tables are rejected when built.
    expect_error(
        Connectivity::<V2E>::from_vec(vec![0, 1, 2, 99], 1, 18),
        &["V2E", "99"],
    );
    expect_error(
        Connectivity::<V2E>::from_vec(vec![0, 1, 2], 1, 18),
        &["V2E"],
    );
    expect_error(
        Connectivity::<E2V>::from_vec(vec![0, -2], 1, 9),
        &["E2V", "-2"],
    );
}

#[test]
fn unavailable_backend_is_an_error() {
    if gt4rs::cuda::cuda_available() {
        eprintln!("skipped: a CUDA device is present");
        return;
    }
    let mesh = SimpleMesh::new();
    expect_error(
        calls::compile(&Options::new(Backend::Cuda).with_connectivities(mesh.connectivities()))
            .map(|_| ()),
        &["cuda", "calls"],
    );
}

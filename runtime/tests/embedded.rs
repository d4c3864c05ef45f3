//! The embedded backend through a generated program module: `compile` binds the
//! connectivities and `call` runs the interpreter on typed `Field`s.

use gt4rs::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

gt4rs::dimensions! { pub Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub V2E: Vertex => Edge [3] with skip_values; }

// out = neighbor_sum(edge(V2E), V2E) over Vertex h0..h1 (IR built by hand, as the checker would).
gt4rs::__private::__program_from_ir! {
    fn vertex_sum(edge: &Field<(Edge, K), f64>, out: &mut Field<(Vertex, K), f64>, h0: i32, h1: i32) {},
    r#"{"name":"vertex_sum","params":[{"name":"edge","ty":{"Field":{"dims":["Edge","K"],"dtype":"F64"}},"role":"In","is_static":false},{"name":"out","ty":{"Field":{"dims":["Vertex","K"],"dtype":"F64"}},"role":"Out","is_static":false},{"name":"h0","ty":{"Scalar":"I32"},"role":"In","is_static":false},{"name":"h1","ty":{"Scalar":"I32"},"role":"In","is_static":false}],"calls":[{"value":{"ty":{"Field":{"dims":["Vertex","K"],"dtype":"F64"}},"kind":{"Call":{"callee":"vsum","args":[{"ty":{"Field":{"dims":["Edge","K"],"dtype":"F64"}},"kind":{"Param":0}}]}}},"target":{"Field":{"param":1,"domain":[{"dim":"Vertex","start":{"ty":{"Scalar":"I32"},"kind":{"Param":2}},"end":{"ty":{"Scalar":"I32"},"kind":{"Param":3}}}]}}}],"bundle":{"operators":[{"key":"vsum","name":"vsum","params":[{"name":"p0","ty":{"Field":{"dims":["Edge","K"],"dtype":"F64"}}}],"ret":{"Field":{"dims":["Vertex","K"],"dtype":"F64"}},"body":{"ty":{"Field":{"dims":["Vertex","K"],"dtype":"F64"}},"kind":{"Reduce":{"op":"Sum","local":"V2E","arg":{"ty":{"Field":{"dims":["Vertex","V2E","K"],"dtype":"F64"}},"kind":{"NeighborShift":{"arg":{"ty":{"Field":{"dims":["Edge","K"],"dtype":"F64"}},"kind":{"Param":0}},"offset":"V2E","slot":null}}}}}},"kind":"Field"}],"dims":[{"name":"Edge","kind":"Horizontal"},{"name":"Vertex","kind":"Horizontal"},{"name":"V2E","kind":"Local"},{"name":"K","kind":"Vertical"}],"offsets":[{"name":"V2E","from":"Vertex","to":"Edge","count":3,"skip_values":true}]}}"#
}

const NV: usize = 9;
const NE: usize = 14;
const NK: usize = 4;

#[test]
fn generated_program_runs_on_the_embedded_backend() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let mut entries: Vec<i32> = (0..NV * 3)
        .map(|_| rng.random_range(0..NE as i32))
        .collect();
    for e in entries.iter_mut() {
        if rng.random::<f64>() < 0.3 {
            *e = -1;
        }
    }
    let v2e = Connectivity::<V2E>::from_vec(entries.clone(), NV, NE).expect("valid table");
    let edge =
        Field::<(Edge, K), f64>::from_fn(&[0..NE as i64, 0..NK as i64], Layout::default(), |_| {
            rng.random::<f64>() - 0.5
        })
        .expect("edge field");
    let mut out = Field::<(Vertex, K), f64>::filled(
        &[0..NV as i64, 0..NK as i64],
        f64::NAN,
        Layout::default(),
    )
    .expect("out field");
    let options =
        Options::new(Backend::Embedded).with_connectivities(Connectivities::new().with(&v2e));
    let program = vertex_sum::compile(&options).expect("compiles");
    program
        .call(vertex_sum::Args {
            edge: &edge,
            out: &mut out,
            h0: 2,
            h1: 8,
        })
        .expect("runs");
    for v in 0..NV as i64 {
        for k in 0..NK as i64 {
            let got = out.get(&[v, k]).expect("inside");
            if (2..8).contains(&v) {
                let want: f64 = (0..3)
                    .map(|j| entries[v as usize * 3 + j])
                    .filter(|&n| n >= 0)
                    .map(|n| edge.get(&[n as i64, k]).expect("inside"))
                    .sum();
                assert!(
                    (got - want).abs() < 1e-12,
                    "({v}, {k}): got {got}, want {want}"
                );
            } else {
                assert!(got.is_nan(), "({v}, {k}) outside the domain was written");
            }
        }
    }
    // A domain beyond the output field is an error, and nothing is written.
    let mut fresh = Field::<(Vertex, K), f64>::filled(
        &[0..NV as i64, 0..NK as i64],
        f64::NAN,
        Layout::default(),
    )
    .expect("out field");
    let err = program
        .call(vertex_sum::Args {
            edge: &edge,
            out: &mut fresh,
            h0: 0,
            h1: NV as i32 + 1,
        })
        .expect_err("domain outside the field");
    assert!(err.to_string().contains("domain outside a field"), "{err}");
    assert!(fresh.as_array().iter().all(|x| x.is_nan()));
}

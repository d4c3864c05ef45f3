//! GT4Py `test_external_local_field.py`: a sparse input times a shifted field inside
//! `neighbor_sum` and local indexing `inp[V2E(i)]` (also after a conversion). Reducing a bare
//! sparse input is skipped in GT4Py and supported here.
//!
//! Sparse fields as *outputs* are supported by GT4Py's embedded execution only; here too: the
//! program compiles, runs on the embedded backend, and `compile()` for the CPU backend says why
//! it cannot run there.

use super::common::*;

#[field_operator]
fn local_fields(
    inp: Field<(Edge, K), f64>,
    ones: Field<(Vertex, V2E), f64>,
    sparse_k: Field<(Vertex, V2E, K), i32>,
) -> (
    Field<(Vertex, K), f64>,
    Field<(Vertex, K), f64>,
    Field<Vertex, f64>,
) {
    let weighted = neighbor_sum(inp.at(V2E) * ones, V2E);
    let indexed = ones[V2E(0)] + (sparse_k as f64)[V2E(3)] * inp.at(V2E[1]);
    let bare = neighbor_sum(ones, V2E);
    (weighted, indexed, bare)
}

#[program]
fn local_fields_prog(
    inp: &Field<(Edge, K), f64>,
    ones: &Field<(Vertex, V2E), f64>,
    sparse_k: &Field<(Vertex, V2E, K), i32>,
    weighted: &mut Field<(Vertex, K), f64>,
    indexed: &mut Field<(Vertex, K), f64>,
    bare: &mut Field<Vertex, f64>,
) {
    local_fields(inp, ones, sparse_k).write_to((weighted, indexed, bare));
}

#[test]
fn sparse_inputs_in_reductions_and_local_indexing() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1801);
    let (nv, nk) = (mesh.n_vertices as i64, NK as i64);
    let inp: Field<(Edge, K), f64> = random_field(&mut rng, &sized(&[mesh.n_edges, NK]));
    let ones: Field<(Vertex, V2E), f64> = random_field(&mut rng, &sized(&[mesh.n_vertices, 4]));
    let sparse_k: Field<(Vertex, V2E, K), i32> =
        random_field(&mut rng, &sized(&[mesh.n_vertices, 4, NK]));
    let v_dom = [0..nv, 0..nk];
    for_each_backend(|backend| {
        let (mut weighted, mut indexed) = (poisoned(&v_dom), poisoned(&v_dom));
        let mut bare = poisoned(&[0..nv]);
        local_fields_prog::compile(&backend.options_with(mesh.connectivities()))?.call(
            local_fields_prog::Args {
                inp: &inp,
                ones: &ones,
                sparse_k: &sparse_k,
                weighted: &mut weighted,
                indexed: &mut indexed,
                bare: &mut bare,
            },
        )?;
        let edge = |v: i64, s: usize| neighbours(&mesh.v2e, v)[s] as i64;
        expect_field("weighted", &weighted, &v_dom, |p| {
            (0..4)
                .map(|s| at(&inp, &[edge(p[0], s), p[1]]) * at(&ones, &[p[0], s as i64]))
                .sum()
        });
        expect_field("indexed", &indexed, &v_dom, |p| {
            at(&ones, &[p[0], 0])
                + at(&sparse_k, &[p[0], 3, p[1]]) as f64 * at(&inp, &[edge(p[0], 1), p[1]])
        });
        expect_field("bare", &bare, &[0..nv], |p| {
            (0..4).map(|s| at(&ones, &[p[0], s])).sum()
        });
        Ok(())
    });
}

#[field_operator]
fn gather_edges(inp: Field<(Edge, K), f64>) -> Field<(Vertex, V2E, K), f64> {
    2.0 * inp.at(V2E)
}

#[program]
fn gather_edges_prog(inp: &Field<(Edge, K), f64>, out: &mut Field<(Vertex, V2E, K), f64>) {
    gather_edges(inp).write_to(out);
}

#[test]
fn sparse_output_runs_on_embedded_and_is_a_clear_error_on_cpu() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1802);
    let inp: Field<(Edge, K), f64> = random_field(&mut rng, &sized(&[mesh.n_edges, NK]));
    let domain = [0..mesh.n_vertices as i64, 0..4, 0..NK as i64];
    let mut out: Field<(Vertex, V2E, K), f64> = poisoned(&domain);
    let embedded = Options::new(Backend::Embedded).with_connectivities(mesh.connectivities());
    gather_edges_prog::compile(&embedded)
        .and_then(|p| {
            p.call(gather_edges_prog::Args {
                inp: &inp,
                out: &mut out,
            })
        })
        .expect("the embedded backend writes sparse outputs");
    for v in 0..mesh.n_vertices as i64 {
        let nbs = neighbours(&mesh.v2e, v);
        for (j, &e) in nbs.iter().enumerate() {
            for k in 0..NK as i64 {
                let want = 2.0 * at(&inp, &[e as i64, k]);
                assert_eq!(
                    at(&out, &[v, j as i64, k]),
                    want,
                    "vertex {v} slot {j} level {k}"
                );
            }
        }
    }
    let cpu = Options::new(Backend::Cpu).with_connectivities(mesh.connectivities());
    let err = gather_edges_prog::compile(&cpu)
        .err()
        .expect("the cpu backend cannot write sparse fields");
    let message = err.to_string();
    assert!(
        message.contains("cpu") && message.contains("gather_edges_prog"),
        "{message}"
    );
}

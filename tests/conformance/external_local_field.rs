//! GT4Py `test_external_local_field.py`: a sparse input times a shifted field inside
//! `neighbor_sum` and local indexing `inp[V2E(i)]` (also after a conversion). Reducing a bare
//! sparse input is skipped in GT4Py and supported here.
//!
//! Sparse fields as *outputs* (GT4Py's embedded execution writes them; its compiled backends do
//! not): every backend writes them, the fused ones slot by slot. Gathers with vertical and
//! neighbour shifts, reductions and sparse inputs inside, a domain, a sparse and a dense output
//! from one tuple, `f32` and `i32` elements, an update in place, and a table with skip values,
//! where a slot that is -1 and needed is an error on every backend.

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

/// Every edge of every vertex, gathered over the whole field: in the default layout (levels
/// contiguous, the CPU kernels' slices per slot) and in Fortran's (vertices contiguous).
#[test]
fn a_sparse_output_is_written_on_every_backend() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1802);
    let inp: Field<(Edge, K), f64> = random_field(&mut rng, &sized(&[mesh.n_edges, NK]));
    let domain = [0..mesh.n_vertices as i64, 0..4, 0..NK as i64];
    for_each_backend(|backend| {
        let program = gather_edges_prog::compile(&backend.options_with(mesh.connectivities()))?;
        for layout in [Layout::LastContiguous, Layout::FirstContiguous] {
            let mut out: Field<(Vertex, V2E, K), f64> =
                Field::filled(&domain, f64::poison(), layout)?;
            program.call(gather_edges_prog::Args {
                inp: &inp,
                out: &mut out,
            })?;
            expect_field("out", &out, &domain, |p| {
                let e = neighbours(&mesh.v2e, p[0])[p[1] as usize];
                2.0 * at(&inp, &[e as i64, p[2]])
            });
        }
        Ok(())
    });
}

/// A sparse output's local dimension holds exactly the offset's neighbours, as a sparse input's
/// must: narrower, or starting elsewhere, it is an argument error on every backend before any
/// point is written.
#[test]
fn a_sparse_output_without_every_slot_is_an_argument_error() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1803);
    let inp: Field<(Edge, K), f64> = random_field(&mut rng, &sized(&[mesh.n_edges, NK]));
    let nv = mesh.n_vertices as i64;
    for_each_backend(|backend| {
        let program = gather_edges_prog::compile(&backend.options_with(mesh.connectivities()))?;
        for (local, message) in [
            (
                0..3,
                "its local dimension V2E covers 0..3, but must cover 0..4",
            ),
            (
                1..5,
                "its local dimension V2E covers 1..5, but must cover 0..4",
            ),
        ] {
            let domain = [0..nv, local, 0..NK as i64];
            let mut out: Field<(Vertex, V2E, K), f64> = poisoned(&domain);
            let call = program.call(gather_edges_prog::Args {
                inp: &inp,
                out: &mut out,
            });
            expect_error(call, &["`out`", message]);
            expect_field("out", &out, &[0..0, 0..0, 0..0], |_| 0.0);
        }
        Ok(())
    });
}

/// Inside a sparse value: a neighbour shift then a vertical shift, a sparse input read at the
/// output's slot, a reduction over the same local dimension and one neighbour (broadcast over
/// the slots); written over a domain.
#[field_operator]
fn shifted_gather(
    inp: Field<(Edge, K), f64>,
    w: Field<(Vertex, V2E, K), f64>,
) -> Field<(Vertex, V2E, K), f64> {
    let total = neighbor_sum(inp.at(V2E), V2E);
    inp.at(V2E).at(K + 1) * w - inp.at(V2E[2]) + total * 0.25
}

#[program]
fn shifted_gather_prog(
    inp: &Field<(Edge, K), f64>,
    w: &Field<(Vertex, V2E, K), f64>,
    out: &mut Field<(Vertex, V2E, K), f64>,
    v_start: i32,
    v_end: i32,
    k_end: i32,
) {
    shifted_gather(inp, w).write_to(out, domain![Vertex: v_start..v_end, K: 1..k_end]);
}

#[test]
fn a_sparse_output_of_shifted_reads_over_a_domain() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1804);
    let (nv, nk) = (mesh.n_vertices as i64, NK as i64);
    let inp: Field<(Edge, K), f64> = random_field(&mut rng, &sized(&[mesh.n_edges, NK]));
    let w: Field<(Vertex, V2E, K), f64> = random_field(&mut rng, &[0..nv, 0..4, 0..nk]);
    let domain = [0..nv, 0..4, 0..nk];
    for_each_backend(|backend| {
        let mut out: Field<(Vertex, V2E, K), f64> = poisoned(&domain);
        shifted_gather_prog::compile(&backend.options_with(mesh.connectivities()))?.call(
            shifted_gather_prog::Args {
                inp: &inp,
                w: &w,
                out: &mut out,
                v_start: 2,
                v_end: 7,
                k_end: (NK - 1) as i32,
            },
        )?;
        expect_field("out", &out, &[2..7, 0..4, 1..nk - 1], |p| {
            let (v, j, k) = (p[0], p[1], p[2]);
            let edges = neighbours(&mesh.v2e, v);
            let total: f64 = edges.iter().map(|&e| at(&inp, &[e as i64, k])).sum();
            at(&inp, &[edges[j as usize] as i64, k + 1]) * at(&w, &[v, j, k])
                - at(&inp, &[edges[2] as i64, k])
                + total * 0.25
        });
        Ok(())
    });
}

/// One value per neighbour and their sum, written from one tuple to a sparse and a dense
/// output.
#[field_operator]
fn weighted_and_summed(
    inp: Field<(Edge, K), f64>,
    w: Field<(Vertex, V2E), f64>,
) -> (Field<(Vertex, V2E, K), f64>, Field<(Vertex, K), f64>) {
    let weighted = inp.at(V2E) * w;
    (weighted, neighbor_sum(weighted, V2E))
}

#[program]
fn weighted_and_summed_prog(
    inp: &Field<(Edge, K), f64>,
    w: &Field<(Vertex, V2E), f64>,
    each: &mut Field<(Vertex, V2E, K), f64>,
    sum: &mut Field<(Vertex, K), f64>,
) {
    weighted_and_summed(inp, w).write_to((each, sum));
}

#[test]
fn a_sparse_and_a_dense_output_from_one_tuple() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1805);
    let (nv, nk) = (mesh.n_vertices as i64, NK as i64);
    let inp: Field<(Edge, K), f64> = random_field(&mut rng, &sized(&[mesh.n_edges, NK]));
    let w: Field<(Vertex, V2E), f64> = random_field(&mut rng, &[0..nv, 0..4]);
    let weighted = |v: i64, j: i64, k: i64| {
        let e = neighbours(&mesh.v2e, v)[j as usize];
        at(&inp, &[e as i64, k]) * at(&w, &[v, j])
    };
    for_each_backend(|backend| {
        let mut each: Field<(Vertex, V2E, K), f64> = poisoned(&[0..nv, 0..4, 0..nk]);
        let mut sum: Field<(Vertex, K), f64> = poisoned(&[0..nv, 0..nk]);
        weighted_and_summed_prog::compile(&backend.options_with(mesh.connectivities()))?.call(
            weighted_and_summed_prog::Args {
                inp: &inp,
                w: &w,
                each: &mut each,
                sum: &mut sum,
            },
        )?;
        expect_field("each", &each, &[0..nv, 0..4, 0..nk], |p| {
            weighted(p[0], p[1], p[2])
        });
        expect_field("sum", &sum, &[0..nv, 0..nk], |p| {
            (0..4).map(|j| weighted(p[0], j, p[1])).sum()
        });
        Ok(())
    });
}

/// Single precision from a double input and a single-precision sparse input, and integers
/// (a sparse output without a vertical dimension).
#[field_operator]
fn narrow_and_integer(
    inp: Field<(Edge, K), f64>,
    w: Field<(Vertex, V2E, K), f32>,
    ids: Field<Edge, i32>,
) -> (Field<(Vertex, V2E, K), f32>, Field<(Vertex, V2E), i32>) {
    (
        (inp.at(V2E) as f32) * w + 0.5,
        ids.at(V2E) * 3 - ids.at(V2E[0]),
    )
}

#[program]
fn narrow_and_integer_prog(
    inp: &Field<(Edge, K), f64>,
    w: &Field<(Vertex, V2E, K), f32>,
    ids: &Field<Edge, i32>,
    narrow: &mut Field<(Vertex, V2E, K), f32>,
    integer: &mut Field<(Vertex, V2E), i32>,
) {
    narrow_and_integer(inp, w, ids).write_to((narrow, integer));
}

#[test]
fn sparse_outputs_of_f32_and_i32() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1806);
    let (nv, nk) = (mesh.n_vertices as i64, NK as i64);
    let inp: Field<(Edge, K), f64> = random_field(&mut rng, &sized(&[mesh.n_edges, NK]));
    let w: Field<(Vertex, V2E, K), f32> = random_field(&mut rng, &[0..nv, 0..4, 0..nk]);
    let ids = random_int_field(&mut rng, &[0..mesh.n_edges as i64], -1000..1000);
    let edge = |v: i64, j: i64| neighbours(&mesh.v2e, v)[j as usize] as i64;
    for_each_backend(|backend| {
        let mut narrow: Field<(Vertex, V2E, K), f32> = poisoned(&[0..nv, 0..4, 0..nk]);
        let mut integer: Field<(Vertex, V2E), i32> = poisoned(&[0..nv, 0..4]);
        narrow_and_integer_prog::compile(&backend.options_with(mesh.connectivities()))?.call(
            narrow_and_integer_prog::Args {
                inp: &inp,
                w: &w,
                ids: &ids,
                narrow: &mut narrow,
                integer: &mut integer,
            },
        )?;
        expect_field("narrow", &narrow, &[0..nv, 0..4, 0..nk], |p| {
            (at(&inp, &[edge(p[0], p[1]), p[2]]) as f32) * at(&w, p) + 0.5
        });
        expect_field("integer", &integer, &[0..nv, 0..4], |p| {
            at(&ids, &[edge(p[0], p[1])]) * 3 - at(&ids, &[edge(p[0], 0)])
        });
        Ok(())
    });
}

/// A sparse output over a table with skip values: the gather needs a neighbour at every slot,
/// so a -1 slot in the domain is an error on every backend; in a branch, only where the branch
/// is taken (naming the slot, as the embedded backend does).
#[field_operator]
fn gather_five(inp: Field<(Edge, K), f64>) -> Field<(Vertex, V2E5, K), f64> {
    inp.at(V2E5) * 2.0
}

#[program]
fn gather_five_prog(inp: &Field<(Edge, K), f64>, out: &mut Field<(Vertex, V2E5, K), f64>) {
    gather_five(inp).write_to(out);
}

#[field_operator]
fn gather_five_below(inp: Field<(Edge, K), f64>, split: i32) -> Field<(Vertex, V2E5, K), f64> {
    let first = broadcast(inp.at(V2E5[0]), (Vertex, V2E5, K));
    concat_where(Vertex < split, inp.at(V2E5), first)
}

#[program]
fn gather_five_below_prog(
    inp: &Field<(Edge, K), f64>,
    out: &mut Field<(Vertex, V2E5, K), f64>,
    split: i32,
) {
    gather_five_below(inp, split).write_to(out);
}

#[test]
fn a_sparse_output_over_skip_values_needs_every_slot_it_writes() {
    let mesh = SkipValueMesh::new();
    // Vertex 0 has two edges: its slots 2..5 are -1, as every vertex has some.
    assert_eq!(neighbours(&mesh.v2e, 0)[1..3], [5, -1]);
    assert!((0..mesh.n_vertices as i64).all(|v| neighbours(&mesh.v2e, v).contains(&-1)));
    let mut rng = rng(1807);
    let (nv, nk) = (mesh.n_vertices as i64, NK as i64);
    let inp: Field<(Edge, K), f64> = random_field(&mut rng, &sized(&[mesh.n_edges, NK]));
    let domain = [0..nv, 0..5, 0..nk];
    for_each_backend(|backend| {
        let options = backend.options_with(mesh.connectivities());
        let mut out: Field<(Vertex, V2E5, K), f64> = poisoned(&domain);
        let gathered = gather_five_prog::compile(&options)?.call(gather_five_prog::Args {
            inp: &inp,
            out: &mut out,
        });
        // The kernels name the missing slot of the table, the embedded backend the undefined
        // value at it.
        expect_error(gathered, &["V2E5", "-1"]);
        let program = gather_five_below_prog::compile(&options)?;
        let mut out: Field<(Vertex, V2E5, K), f64> = poisoned(&domain);
        program.call(gather_five_below_prog::Args {
            inp: &inp,
            out: &mut out,
            split: 0,
        })?;
        expect_field("out", &out, &domain, |p| {
            at(&inp, &[neighbours(&mesh.v2e, p[0])[0] as i64, p[2]])
        });
        let mut out: Field<(Vertex, V2E5, K), f64> = poisoned(&domain);
        let taken = program.call(gather_five_below_prog::Args {
            inp: &inp,
            out: &mut out,
            split: 1,
        });
        expect_error(
            taken,
            &["output `out` is undefined at point Vertex 0, V2E5 2, K "],
        );
        Ok(())
    });
}

/// A sparse field updated in place from its own slots: every slot reads the values before the
/// call (slot 0 included, which the call also writes).
#[field_operator]
fn rescaled(a: Field<(Vertex, V2E, K), f64>) -> Field<(Vertex, V2E, K), f64> {
    a * 2.0 - a[V2E(0)]
}

#[program]
fn rescale_in_place(a: &mut Field<(Vertex, V2E, K), f64>) {
    rescaled(a).write_to(a);
}

#[test]
fn a_sparse_field_updated_in_place_reads_its_slots_before_the_call() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1808);
    let domain = [0..mesh.n_vertices as i64, 0..4, 0..NK as i64];
    let before: Field<(Vertex, V2E, K), f64> = random_field(&mut rng, &domain);
    for_each_backend(|backend| {
        let mut a = before.clone();
        rescale_in_place::compile(&backend.options_with(mesh.connectivities()))?
            .call(rescale_in_place::Args { a: &mut a })?;
        expect_field("a", &a, &domain, |p| {
            at(&before, p) * 2.0 - at(&before, &[p[0], 0, p[2]])
        });
        Ok(())
    });
}

/// `select` reads a neighbour only where it takes it: a -1 slot under the other operand is no
/// error on any backend (the embedded backend's semantics; the fused backends reported the -1
/// before `select`'s operands were read guarded, as `if`/`else` branches are), and one under
/// the chosen operand is.
#[field_operator]
fn second_edge_where_present(
    inp: Field<(Edge, K), f64>,
    present: Field<Vertex, bool>,
) -> Field<(Vertex, K), f64> {
    select(present, inp.at(V2E5[1]), -1.0)
}

#[program]
fn second_edge_where_present_prog(
    inp: &Field<(Edge, K), f64>,
    present: &Field<Vertex, bool>,
    out: &mut Field<(Vertex, K), f64>,
) {
    second_edge_where_present(inp, present).write_to(out);
}

#[test]
fn select_reads_a_neighbour_only_where_it_takes_it() {
    let mesh = SkipValueMesh::new();
    let mut rng = rng(1809);
    let (nv, nk) = (mesh.n_vertices as i64, NK as i64);
    // Vertex 3 keeps its second slot empty.
    assert_eq!(neighbours(&mesh.v2e, 3)[1], -1);
    let inp: Field<(Edge, K), f64> = random_field(&mut rng, &sized(&[mesh.n_edges, NK]));
    let has_second = |v: i64| neighbours(&mesh.v2e, v)[1] >= 0;
    let present: Field<Vertex, bool> =
        Field::from_fn(&[0..nv], Layout::default(), |p| has_second(p[0])).expect("a vertex field");
    let everywhere: Field<Vertex, bool> =
        Field::from_fn(&[0..nv], Layout::default(), |_| true).expect("a vertex field");
    let domain = [0..nv, 0..nk];
    for_each_backend(|backend| {
        let program =
            second_edge_where_present_prog::compile(&backend.options_with(mesh.connectivities()))?;
        let mut out: Field<(Vertex, K), f64> = poisoned(&domain);
        program.call(second_edge_where_present_prog::Args {
            inp: &inp,
            present: &present,
            out: &mut out,
        })?;
        expect_field("out", &out, &domain, |p| {
            if has_second(p[0]) {
                at(&inp, &[neighbours(&mesh.v2e, p[0])[1] as i64, p[1]])
            } else {
                -1.0
            }
        });
        let mut out: Field<(Vertex, K), f64> = poisoned(&domain);
        let taken = program.call(second_edge_where_present_prog::Args {
            inp: &inp,
            present: &everywhere,
            out: &mut out,
        });
        expect_error(taken, &["Vertex 3"]);
        Ok(())
    });
}

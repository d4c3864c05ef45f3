//! Temporaries that hold undefined points. The lowering computes a gathered value read through
//! a fan-out offset once, by a stage of its own over the reach of its readers; that reach may
//! hold points no reader takes, where the value reads through a -1 entry or outside a field. Its
//! stage then reads guarded and writes where the value is undefined into a mask beside it, and a
//! reader that takes such a point finds its value undefined: an error where it is written, as
//! everywhere else. On the skip-value mesh, vertex 3 has no second edge (`V2E5[1]` is -1 there).

use gt4rs_tests::*;

use gt4rs::prelude::*;

/// The sum over each vertex's edges plus its second edge: undefined at vertex 3. (The sum makes
/// it a reduction, which the lowering keeps in a temporary where it is read through a fan-out
/// offset; a value of one or two neighbour reads is recomputed at each reader instead.)
#[field_operator]
fn second_edge(e: Field<(Edge, K), f64>) -> Field<(Vertex, K), f64> {
    neighbor_sum(e.at(V2E5), V2E5) + e.at(V2E5[1])
}

/// Both ends' `second_edge`: a gather read through E2V, so the lowering makes `second_edge` a
/// temporary over the vertices the written edges reach.
#[field_operator]
fn ends_second_edges(e: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    neighbor_sum(second_edge(e).at(E2V), E2V)
}

#[program]
fn ends_second_edges_prog(
    e: &Field<(Edge, K), f64>,
    out: &mut Field<(Edge, K), f64>,
    start: i32,
    end: i32,
) {
    ends_second_edges(e).write_to(out, domain![Edge: start..end, K: 0..4]);
}

/// The same read in a branch: only edges below `last` take it.
#[field_operator]
fn ends_second_edges_below(e: Field<(Edge, K), f64>, last: i32) -> Field<(Edge, K), f64> {
    concat_where(Edge < last, neighbor_sum(second_edge(e).at(E2V), E2V), e)
}

#[program]
fn ends_second_edges_below_prog(
    e: &Field<(Edge, K), f64>,
    out: &mut Field<(Edge, K), f64>,
    last: i32,
) {
    ends_second_edges_below(e, last).write_to(out, domain![Edge: 0..12, K: 0..4]);
}

fn expected(mesh: &SkipValueMesh, e: &Field<(Edge, K), f64>, p: &[i64]) -> f64 {
    neighbours(&mesh.e2v, p[0])
        .into_iter()
        .map(|v| {
            let edges = neighbours(&mesh.v2e, i64::from(v));
            let sum: f64 = edges
                .iter()
                .filter(|&&edge| edge >= 0)
                .map(|&edge| at(e, &[i64::from(edge), p[1]]))
                .sum();
            sum + at(e, &[i64::from(edges[1]), p[1]])
        })
        .sum()
}

/// Edges 5..8 join vertices 0, 1, 4 and 5: the temporary's reach is vertices 0..6, which holds
/// vertex 3, where `second_edge` is undefined, but no written edge reads it. Before the mask, the
/// CPU backend and the CUDA kernels refused the call ("slot 1 of connectivity `V2E5` … is -1").
#[test]
fn an_undefined_point_of_a_temporary_that_no_reader_takes_is_no_error() {
    let mesh = SkipValueMesh::new();
    let mut rng = rng(1401);
    let e: Field<(Edge, K), f64> = random_field(&mut rng, &[0..12, 0..4]);
    for_each_backend(|backend| {
        let prog = ends_second_edges_prog::compile(&backend.options_with(mesh.connectivities()))?;
        let mut out = poisoned(&[0..12, 0..4]);
        prog.call(ends_second_edges_prog::Args {
            e: &e,
            out: &mut out,
            start: 5,
            end: 8,
        })?;
        expect_field("out", &out, &[5..8, 0..4], |p| expected(&mesh, &e, p));
        Ok(())
    });
}

/// Edge 2 joins vertices 2 and 3: writing it takes vertex 3's undefined value, the same error
/// on every backend (the embedded backend finds the -1, the kernels the mask set).
#[test]
fn an_undefined_point_of_a_temporary_that_a_reader_takes_is_an_error() {
    let mesh = SkipValueMesh::new();
    let mut rng = rng(1402);
    let e: Field<(Edge, K), f64> = random_field(&mut rng, &[0..12, 0..4]);
    for_each_backend(|backend| {
        let prog = ends_second_edges_prog::compile(&backend.options_with(mesh.connectivities()))?;
        let mut out = poisoned(&[0..12, 0..4]);
        let result = prog.call(ends_second_edges_prog::Args {
            e: &e,
            out: &mut out,
            start: 0,
            end: 12,
        });
        expect_error(result, &["undefined at point Edge 2"]);
        Ok(())
    });
}

/// In a branch: a temporary over every vertex now (it used to be recomputed at every
/// neighbour), undefined at vertex 3, and an error only where the branch takes that value.
#[test]
fn a_temporary_read_in_a_branch_is_undefined_only_where_the_branch_takes_it() {
    let mesh = SkipValueMesh::new();
    let mut rng = rng(1403);
    let e: Field<(Edge, K), f64> = random_field(&mut rng, &[0..12, 0..4]);
    for_each_backend(|backend| {
        let prog =
            ends_second_edges_below_prog::compile(&backend.options_with(mesh.connectivities()))?;
        // Edges 0 and 1 join vertices 0, 1 and 2.
        let mut out = poisoned(&[0..12, 0..4]);
        prog.call(ends_second_edges_below_prog::Args {
            e: &e,
            out: &mut out,
            last: 2,
        })?;
        expect_field("out", &out, &[0..12, 0..4], |p| {
            if p[0] < 2 {
                expected(&mesh, &e, p)
            } else {
                at(&e, p)
            }
        });
        // Edge 2 joins vertices 2 and 3.
        let mut out = poisoned(&[0..12, 0..4]);
        let result = prog.call(ends_second_edges_below_prog::Args {
            e: &e,
            out: &mut out,
            last: 3,
        });
        expect_error(result, &["undefined at point Edge 2"]);
        Ok(())
    });
}

/// The gradient of a vertex field along each edge, summed around each vertex: a gather read
/// through the five-wide V2E5 in a branch, with reductions that skip the -1 slots.
#[field_operator]
fn edge_difference(v: Field<(Vertex, K), f64>) -> Field<(Edge, K), f64> {
    v.at(E2V[1]) - v.at(E2V[0])
}

#[field_operator]
fn summed_differences_below(v: Field<(Vertex, K), f64>, top: i32) -> Field<(Vertex, K), f64> {
    concat_where(K < top, neighbor_sum(edge_difference(v).at(V2E5), V2E5), v)
}

#[program]
fn summed_differences_below_prog(
    v: &Field<(Vertex, K), f64>,
    out: &mut Field<(Vertex, K), f64>,
    top: i32,
) {
    summed_differences_below(v, top).write_to(out, domain![Vertex: 0..7, K: 0..6]);
}

#[test]
fn a_gather_in_a_branch_read_through_skip_values() {
    let mesh = SkipValueMesh::new();
    let mut rng = rng(1404);
    let v: Field<(Vertex, K), f64> = random_field(&mut rng, &[0..7, 0..6]);
    for_each_backend(|backend| {
        let prog =
            summed_differences_below_prog::compile(&backend.options_with(mesh.connectivities()))?;
        let mut out = poisoned(&[0..7, 0..6]);
        prog.call(summed_differences_below_prog::Args {
            v: &v,
            out: &mut out,
            top: 4,
        })?;
        expect_field("out", &out, &[0..7, 0..6], |p| {
            if p[1] >= 4 {
                return at(&v, p);
            }
            neighbours(&mesh.v2e, p[0])
                .into_iter()
                .filter(|&edge| edge >= 0)
                .map(|edge| {
                    let ends = neighbours(&mesh.e2v, i64::from(edge));
                    at(&v, &[i64::from(ends[1]), p[1]]) - at(&v, &[i64::from(ends[0]), p[1]])
                })
                .sum()
        });
        Ok(())
    });
}

/// The edges around each vertex, summed: a vertex value that gathers from edges.
#[field_operator]
fn edge_sum_at_vertices(e: Field<(Edge, K), f64>) -> Field<(Vertex, K), f64> {
    neighbor_sum(e.at(V2E), V2E)
}

/// Nested temporaries read through a vertical shift: the vertex sum read through E2V (a
/// temporary), summed at edges and read through V2E (another temporary, whose stage reads the
/// first), the whole read at the level above. The inner temporary must cover the levels the outer
/// one reads, shifted too; it covered the written ones, a false reach error on the kernels found
/// by the differential fuzzer (seed 20260305, `tests/tests/fuzz.rs`).
#[field_operator]
fn nested_gathers_below(e: Field<(Edge, K), f64>) -> Field<(Vertex, K), f64> {
    let at_edges = neighbor_sum(edge_sum_at_vertices(e).at(E2V), E2V);
    neighbor_sum(at_edges.at(V2E), V2E).at(K - 1)
}

#[program]
fn nested_gathers_below_prog(e: &Field<(Edge, K), f64>, out: &mut Field<(Vertex, K), f64>) {
    nested_gathers_below(e).write_to(out, domain![Vertex: 0..9, K: 1..5]);
}

#[test]
fn nested_temporaries_read_through_a_vertical_shift() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1405);
    let e: Field<(Edge, K), f64> = random_field(&mut rng, &[0..18, 0..5]);
    let vertex_sum = |v: i64, k: i64| -> f64 {
        neighbours(&mesh.v2e, v)
            .into_iter()
            .map(|edge| at(&e, &[i64::from(edge), k]))
            .sum()
    };
    let edge_sum = |edge: i64, k: i64| -> f64 {
        neighbours(&mesh.e2v, edge)
            .into_iter()
            .map(|v| vertex_sum(i64::from(v), k))
            .sum()
    };
    for_each_backend(|backend| {
        let prog =
            nested_gathers_below_prog::compile(&backend.options_with(mesh.connectivities()))?;
        let mut out = poisoned(&[0..9, 0..5]);
        prog.call(nested_gathers_below_prog::Args {
            e: &e,
            out: &mut out,
        })?;
        expect_field("out", &out, &[0..9, 1..5], |p| {
            neighbours(&mesh.v2e, p[0])
                .into_iter()
                .map(|edge| edge_sum(i64::from(edge), p[1] - 1))
                .sum()
        });
        Ok(())
    });
}

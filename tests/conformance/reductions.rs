//! GT4Py `test_reductions.py`: `neighbor_sum`, `max_over`, `min_over` (with skip values),
//! reductions of expressions, promotion, composed and slot shifts, non-zero origins.

use super::common::*;

fn v_domain(mesh: &SimpleMesh) -> Vec<std::ops::Range<i64>> {
    sized(&[mesh.n_vertices, NK])
}
fn e_domain(mesh: &SimpleMesh) -> Vec<std::ops::Range<i64>> {
    sized(&[mesh.n_edges, NK])
}

/// Sum over the neighbours of `row` that are not skip values.
fn sum_over(
    table: &gt4rs::ConnectivityTable,
    row: i64,
    mut value: impl FnMut(usize, i64) -> f64,
) -> f64 {
    neighbours(table, row)
        .iter()
        .enumerate()
        .filter(|(_, &n)| n >= 0)
        .map(|(slot, &n)| value(slot, n as i64))
        .sum()
}

#[field_operator]
fn sum_v2e(edge_f: Field<(Edge, K), f64>) -> Field<(Vertex, K), f64> {
    neighbor_sum(edge_f.at(V2E), V2E)
}
#[field_operator]
fn max_v2e(edge_f: Field<(Edge, K), f64>) -> Field<(Vertex, K), f64> {
    max_over(edge_f.at(V2E), V2E)
}
#[field_operator]
fn min_v2e(edge_f: Field<(Edge, K), f64>) -> Field<(Vertex, K), f64> {
    min_over(edge_f.at(V2E), V2E)
}

#[program]
fn reduce_v2e(
    edge_f: &Field<(Edge, K), f64>,
    sum: &mut Field<(Vertex, K), f64>,
    max: &mut Field<(Vertex, K), f64>,
    min: &mut Field<(Vertex, K), f64>,
) {
    sum_v2e(edge_f).write_to(sum);
    max_v2e(edge_f).write_to(max);
    min_v2e(edge_f).write_to(min);
}

#[test]
fn sum_max_min_over_positive_and_negative_values() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(201);
    let e_dom = e_domain(&mesh);
    let v_dom = v_domain(&mesh);
    // Values are of random sign (`TestScalar::random`); a second run with all negative values
    // checks that `max_over` does not start from 0.
    let mixed: Field<(Edge, K), f64> = random_field(&mut rng, &e_dom);
    let negative = Field::from_fn(&e_dom, Layout::default(), |p| -at(&mixed, p).abs()).unwrap();
    for edge_f in [&mixed, &negative] {
        for_each_backend(|backend| {
            let (mut sum, mut max, mut min) =
                (poisoned(&v_dom), poisoned(&v_dom), poisoned(&v_dom));
            let prog = reduce_v2e::compile(&backend.options_with(mesh.connectivities()))?;
            prog.call(reduce_v2e::Args {
                edge_f,
                sum: &mut sum,
                max: &mut max,
                min: &mut min,
            })?;
            let vals = |v: i64, k: i64| -> Vec<f64> {
                neighbours(&mesh.v2e, v)
                    .iter()
                    .map(|&e| at(edge_f, &[e as i64, k]))
                    .collect()
            };
            expect_field("sum", &sum, &v_dom, |p| vals(p[0], p[1]).iter().sum());
            expect_field("max", &max, &v_dom, |p| {
                vals(p[0], p[1])
                    .into_iter()
                    .fold(f64::NEG_INFINITY, f64::max)
            });
            expect_field("min", &min, &v_dom, |p| {
                vals(p[0], p[1]).into_iter().fold(f64::INFINITY, f64::min)
            });
            Ok(())
        });
    }
}

#[field_operator]
fn sum_v2e5(edge_f: Field<(Edge, K), f64>) -> Field<(Vertex, K), f64> {
    neighbor_sum(edge_f.at(V2E5), V2E5)
}
#[field_operator]
fn max_v2e5(edge_f: Field<(Edge, K), f64>) -> Field<(Vertex, K), f64> {
    max_over(edge_f.at(V2E5), V2E5)
}
#[field_operator]
fn min_v2e5_horizontal(edge_f: Field<Edge, i32>) -> Field<Vertex, i32> {
    min_over(edge_f.at(V2E5), V2E5)
}
/// A product with a sparse coefficient inside the reduction: the whole slot is dropped.
#[field_operator]
fn weighted_sum_v2e5(
    edge_f: Field<(Edge, K), f64>,
    weights: Field<(Vertex, V2E5), f64>,
) -> Field<(Vertex, K), f64> {
    neighbor_sum(edge_f.at(V2E5) * weights, V2E5)
}

#[program]
fn reduce_with_skips(
    edge_f: &Field<(Edge, K), f64>,
    edge_i: &Field<Edge, i32>,
    weights: &Field<(Vertex, V2E5), f64>,
    sum: &mut Field<(Vertex, K), f64>,
    max: &mut Field<(Vertex, K), f64>,
    min: &mut Field<Vertex, i32>,
    weighted: &mut Field<(Vertex, K), f64>,
) {
    sum_v2e5(edge_f).write_to(sum);
    max_v2e5(edge_f).write_to(max);
    min_v2e5_horizontal(edge_i).write_to(min);
    weighted_sum_v2e5(edge_f, weights).write_to(weighted);
}

#[test]
fn reductions_skip_missing_neighbours() {
    let mesh = SkipValueMesh::new();
    assert!(mesh.v2e.has_skip_values());
    let mut rng = rng(202);
    let e_dom = sized(&[mesh.n_edges, NK]);
    let v_dom = sized(&[mesh.n_vertices, NK]);
    let edge_f: Field<(Edge, K), f64> = random_field(&mut rng, &e_dom);
    let edge_i: Field<Edge, i32> = random_field(&mut rng, &sized(&[mesh.n_edges]));
    let weights: Field<(Vertex, V2E5), f64> = random_field(&mut rng, &sized(&[mesh.n_vertices, 5]));
    let present = |v: i64| -> Vec<(usize, i64)> {
        neighbours(&mesh.v2e, v)
            .iter()
            .enumerate()
            .filter(|(_, &e)| e >= 0)
            .map(|(s, &e)| (s, e as i64))
            .collect()
    };
    for_each_backend(|backend| {
        let (mut sum, mut max, mut weighted) =
            (poisoned(&v_dom), poisoned(&v_dom), poisoned(&v_dom));
        let mut min = poisoned(&sized(&[mesh.n_vertices]));
        let prog = reduce_with_skips::compile(&backend.options_with(mesh.connectivities()))?;
        prog.call(reduce_with_skips::Args {
            edge_f: &edge_f,
            edge_i: &edge_i,
            weights: &weights,
            sum: &mut sum,
            max: &mut max,
            min: &mut min,
            weighted: &mut weighted,
        })?;
        expect_field("sum", &sum, &v_dom, |p| {
            present(p[0])
                .iter()
                .map(|&(_, e)| at(&edge_f, &[e, p[1]]))
                .sum()
        });
        expect_field("max", &max, &v_dom, |p| {
            present(p[0])
                .iter()
                .map(|&(_, e)| at(&edge_f, &[e, p[1]]))
                .fold(f64::NEG_INFINITY, f64::max)
        });
        expect_field("min", &min, &sized(&[mesh.n_vertices]), |p| {
            present(p[0])
                .iter()
                .map(|&(_, e)| at(&edge_i, &[e]))
                .min()
                .unwrap_or(i32::MAX)
        });
        expect_field("weighted", &weighted, &v_dom, |p| {
            present(p[0])
                .iter()
                .map(|&(s, e)| at(&edge_f, &[e, p[1]]) * at(&weights, &[p[0], s as i64]))
                .sum()
        });
        Ok(())
    });
}

/// A reduction followed by a vertical shift; a reduction of an expression with a common
/// subexpression, a `select` and a scalar inside.
#[field_operator]
fn reduce_expressions(
    edge_f: Field<(Edge, K), f64>,
    factor: f64,
) -> (
    Field<(Vertex, K), f64>,
    Field<(Vertex, K), f64>,
    Field<(Vertex, K), f64>,
) {
    let shifted = neighbor_sum(edge_f.at(V2E), V2E).at(K + 1);
    let nb = edge_f.at(V2E);
    let cse = neighbor_sum(nb * nb + nb, V2E);
    let chosen = neighbor_sum(select(nb > 0.0, nb * factor, 2.0), V2E);
    (shifted, cse, chosen)
}

#[program]
fn reduce_expressions_prog(
    edge_f: &Field<(Edge, K), f64>,
    factor: f64,
    shifted: &mut Field<(Vertex, K), f64>,
    cse: &mut Field<(Vertex, K), f64>,
    chosen: &mut Field<(Vertex, K), f64>,
) {
    reduce_expressions(edge_f, factor).write_to((shifted, cse, chosen), domain![K: 0..8]);
}

#[test]
fn reductions_of_expressions_and_a_shift_after_the_reduction() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(203);
    let e_dom = e_domain(&mesh);
    let v_dom = v_domain(&mesh);
    let written = [0..mesh.n_vertices as i64, 0..NK as i64 - 1];
    let edge_f: Field<(Edge, K), f64> = random_field(&mut rng, &e_dom);
    let factor = 1.75;
    for_each_backend(|backend| {
        let (mut shifted, mut cse, mut chosen) =
            (poisoned(&v_dom), poisoned(&v_dom), poisoned(&v_dom));
        let prog = reduce_expressions_prog::compile(&backend.options_with(mesh.connectivities()))?;
        prog.call(reduce_expressions_prog::Args {
            edge_f: &edge_f,
            factor,
            shifted: &mut shifted,
            cse: &mut cse,
            chosen: &mut chosen,
        })?;
        let f = |e: i64, k: i64| at(&edge_f, &[e, k]);
        expect_field("shifted", &shifted, &written, |p| {
            sum_over(&mesh.v2e, p[0], |_, e| f(e, p[1] + 1))
        });
        expect_field("cse", &cse, &written, |p| {
            sum_over(&mesh.v2e, p[0], |_, e| f(e, p[1]) * f(e, p[1]) + f(e, p[1]))
        });
        expect_field("chosen", &chosen, &written, |p| {
            sum_over(&mesh.v2e, p[0], |_, e| {
                if f(e, p[1]) > 0.0 {
                    f(e, p[1]) * factor
                } else {
                    2.0
                }
            })
        });
        Ok(())
    });
}

/// GT4Py `test_promotion`: `[Edge, K] / [K]`.
#[field_operator]
fn promote(a: Field<(Edge, K), f64>, b: Field<K, f64>) -> Field<(Edge, K), f64> {
    a / b
}
/// `inp(E2V[0])`, composed `inp(E2V[0])(C2E[0])` and a horizontal-only field on a 3-D mesh.
#[field_operator]
fn slot_shifts(
    vert: Field<(Vertex, K), f64>,
    vert_h: Field<Vertex, f64>,
) -> (
    Field<(Edge, K), f64>,
    Field<(Cell, K), f64>,
    Field<(Vertex, K), f64>,
) {
    let e = vert.at(E2V[0]) + vert_h.at(E2V[1]);
    let c = vert.at(E2V[0]).at(C2E[1]);
    // Shift-first nesting (`f(E2V)(V2E)`) is xfailed in GT4Py and rejected here: reduce first.
    (
        e,
        c,
        vert + neighbor_sum(neighbor_sum(vert_h.at(E2V), E2V).at(V2E), V2E),
    )
}

#[program]
fn promotion_and_slots(
    a: &Field<(Edge, K), f64>,
    b: &Field<K, f64>,
    vert: &Field<(Vertex, K), f64>,
    vert_h: &Field<Vertex, f64>,
    quotient: &mut Field<(Edge, K), f64>,
    on_edges: &mut Field<(Edge, K), f64>,
    on_cells: &mut Field<(Cell, K), f64>,
    nested: &mut Field<(Vertex, K), f64>,
) {
    promote(a, b).write_to(quotient);
    slot_shifts(vert, vert_h).write_to((on_edges, on_cells, nested));
}

#[test]
fn promotion_slot_shifts_and_composed_shifts() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(204);
    let (e_dom, v_dom, c_dom) = (e_domain(&mesh), v_domain(&mesh), sized(&[mesh.n_cells, NK]));
    let a: Field<(Edge, K), f64> = random_field(&mut rng, &e_dom);
    let b: Field<K, f64> = random_field(&mut rng, &sized(&[NK]));
    let vert: Field<(Vertex, K), f64> = random_field(&mut rng, &v_dom);
    let vert_h: Field<Vertex, f64> = random_field(&mut rng, &sized(&[mesh.n_vertices]));
    for_each_backend(|backend| {
        let (mut quotient, mut on_edges) = (poisoned(&e_dom), poisoned(&e_dom));
        let mut on_cells = poisoned(&c_dom);
        let mut nested = poisoned(&v_dom);
        let prog = promotion_and_slots::compile(&backend.options_with(mesh.connectivities()))?;
        prog.call(promotion_and_slots::Args {
            a: &a,
            b: &b,
            vert: &vert,
            vert_h: &vert_h,
            quotient: &mut quotient,
            on_edges: &mut on_edges,
            on_cells: &mut on_cells,
            nested: &mut nested,
        })?;
        let e2v = |e: i64, s: usize| neighbours(&mesh.e2v, e)[s] as i64;
        expect_field("quotient", &quotient, &e_dom, |p| {
            at(&a, p) / at(&b, &[p[1]])
        });
        expect_field("on_edges", &on_edges, &e_dom, |p| {
            at(&vert, &[e2v(p[0], 0), p[1]]) + at(&vert_h, &[e2v(p[0], 1)])
        });
        expect_field("on_cells", &on_cells, &c_dom, |p| {
            let edge = neighbours(&mesh.c2e, p[0])[1] as i64;
            at(&vert, &[e2v(edge, 0), p[1]])
        });
        expect_field("nested", &nested, &v_dom, |p| {
            at(&vert, p)
                + sum_over(&mesh.v2e, p[0], |_, e| {
                    (0..2).map(|s| at(&vert_h, &[e2v(e, s)])).sum()
                })
        });
        Ok(())
    });
}

/// Nested reductions (reduce first, then shift and reduce again), a tuple with a local field,
/// an `if` inside `neighbor_sum`, and local indexing of a premapped field.
#[field_operator]
fn nested_and_local(
    edge_f: Field<(Edge, K), f64>,
    sparse: Field<(Vertex, V2E), f64>,
    use_sparse: bool,
) -> (
    Field<(Edge, K), f64>,
    Field<(Vertex, K), f64>,
    Field<(Vertex, K), f64>,
) {
    let per_vertex = neighbor_sum(edge_f.at(V2E), V2E);
    let nested = neighbor_sum(per_vertex.at(E2V), E2V);
    let pair = (edge_f.at(V2E), sparse);
    let tupled = neighbor_sum(pair.0 * pair.1, V2E);
    let branch = neighbor_sum(
        if use_sparse {
            edge_f.at(V2E) * sparse
        } else {
            edge_f.at(V2E)
        },
        V2E,
    );
    (nested, tupled + edge_f.at(V2E)[V2E(2)], branch)
}

#[program]
fn nested_and_local_prog(
    edge_f: &Field<(Edge, K), f64>,
    sparse: &Field<(Vertex, V2E), f64>,
    #[static_arg] use_sparse: bool,
    nested: &mut Field<(Edge, K), f64>,
    tupled: &mut Field<(Vertex, K), f64>,
    branch: &mut Field<(Vertex, K), f64>,
) {
    nested_and_local(edge_f, sparse, use_sparse).write_to((nested, tupled, branch));
}

#[test]
fn nested_reductions_tuples_branches_and_local_indexing() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(205);
    let (e_dom, v_dom) = (e_domain(&mesh), v_domain(&mesh));
    let edge_f: Field<(Edge, K), f64> = random_field(&mut rng, &e_dom);
    let sparse: Field<(Vertex, V2E), f64> = random_field(&mut rng, &sized(&[mesh.n_vertices, 4]));
    for use_sparse in [true, false] {
        for_each_backend(|backend| {
            let mut nested = poisoned(&e_dom);
            let (mut tupled, mut branch) = (poisoned(&v_dom), poisoned(&v_dom));
            let prog =
                nested_and_local_prog::compile(&backend.options_with(mesh.connectivities()))?;
            prog.call(nested_and_local_prog::Args {
                edge_f: &edge_f,
                sparse: &sparse,
                use_sparse,
                nested: &mut nested,
                tupled: &mut tupled,
                branch: &mut branch,
            })?;
            let f = |e: i64, k: i64| at(&edge_f, &[e, k]);
            let per_vertex = |v: i64, k: i64| sum_over(&mesh.v2e, v, |_, e| f(e, k));
            expect_field("nested", &nested, &e_dom, |p| {
                neighbours(&mesh.e2v, p[0])
                    .iter()
                    .map(|&v| per_vertex(v as i64, p[1]))
                    .sum()
            });
            expect_field("tupled", &tupled, &v_dom, |p| {
                sum_over(&mesh.v2e, p[0], |s, e| {
                    f(e, p[1]) * at(&sparse, &[p[0], s as i64])
                }) + f(neighbours(&mesh.v2e, p[0])[2] as i64, p[1])
            });
            expect_field("branch", &branch, &v_dom, |p| {
                sum_over(&mesh.v2e, p[0], |s, e| {
                    if use_sparse {
                        f(e, p[1]) * at(&sparse, &[p[0], s as i64])
                    } else {
                        f(e, p[1])
                    }
                })
            });
            Ok(())
        });
    }
}

/// GT4Py `*_with_non_zero_origin`: the vertical levels of the input start at 1 (half levels),
/// the output covers levels 1..NK and is written on 2..NK-1 only.
#[program]
fn sum_with_origin(
    edge_f: &Field<(Edge, K), f64>,
    out: &mut Field<(Vertex, K), f64>,
    k_start: i32,
    k_end: i32,
) {
    sum_v2e(edge_f).write_to(out, domain![K: k_start..k_end]);
}

#[test]
fn reduction_with_non_zero_origin() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(206);
    let levels = 1..NK as i64 + 1;
    let e_dom = [0..mesh.n_edges as i64, levels.clone()];
    let v_dom = [0..mesh.n_vertices as i64, levels];
    let written = [0..mesh.n_vertices as i64, 2..NK as i64 - 1];
    let edge_f: Field<(Edge, K), f64> = random_field(&mut rng, &e_dom);
    for_each_backend(|backend| {
        let mut out = poisoned(&v_dom);
        let prog = sum_with_origin::compile(&backend.options_with(mesh.connectivities()))?;
        prog.call(sum_with_origin::Args {
            edge_f: &edge_f,
            out: &mut out,
            k_start: 2,
            k_end: NK as i32 - 1,
        })?;
        expect_field("out", &out, &written, |p| {
            sum_over(&mesh.v2e, p[0], |_, e| at(&edge_f, &[e, p[1]]))
        });
        Ok(())
    });
}

/// Unstructured fields whose horizontal range does not start at 0 (ICON's index blocks): the
/// tables hold absolute indices, and the output covers edges 3..18 only.
#[field_operator]
fn edge_difference(vert: Field<(Vertex, K), f64>) -> Field<(Edge, K), f64> {
    vert.at(E2V[1]) - vert.at(E2V[0])
}
#[program]
fn edge_difference_prog(
    vert: &Field<(Vertex, K), f64>,
    out: &mut Field<(Edge, K), f64>,
    start: i32,
    end: i32,
) {
    edge_difference(vert).write_to(out, domain![Edge: start..end]);
}

#[test]
fn horizontal_non_zero_origin() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(207);
    let nk = NK as i64;
    let vert: Field<(Vertex, K), f64> = random_field(&mut rng, &sized(&[mesh.n_vertices, NK]));
    let out_dom = [3..mesh.n_edges as i64, 0..nk];
    for_each_backend(|backend| {
        let mut out = poisoned(&out_dom);
        edge_difference_prog::compile(&backend.options_with(mesh.connectivities()))?.call(
            edge_difference_prog::Args {
                vert: &vert,
                out: &mut out,
                start: 5,
                end: 17,
            },
        )?;
        expect_field("out", &out, &[5..17, 0..nk], |p| {
            let v = neighbours(&mesh.e2v, p[0]);
            at(&vert, &[v[1] as i64, p[1]]) - at(&vert, &[v[0] as i64, p[1]])
        });
        Ok(())
    });
}

/// A slot shift through a table with skip values is defined where the slot is present: the
/// domain keeps the vertices whose slot 1 is -1 out (GT4Py: direct access to a skipped slot
/// is undefined).
#[field_operator]
fn second_edge(edge_f: Field<(Edge, K), f64>) -> Field<(Vertex, K), f64> {
    edge_f.at(V2E5[1]) + edge_f.at(V2E5[0])
}
#[program]
fn second_edge_prog(edge_f: &Field<(Edge, K), f64>, out: &mut Field<(Vertex, K), f64>) {
    second_edge(edge_f).write_to(out, domain![Vertex: 0..3]);
}

#[test]
fn slot_shift_on_a_mesh_with_skip_values() {
    let mesh = SkipValueMesh::new();
    assert!((0..3).all(|v| neighbours(&mesh.v2e, v)[1] >= 0));
    assert!(
        neighbours(&mesh.v2e, 3)[1] < 0,
        "vertex 3 has a skipped slot 1 outside the domain"
    );
    let mut rng = rng(208);
    let nk = NK as i64;
    let edge_f: Field<(Edge, K), f64> = random_field(&mut rng, &sized(&[mesh.n_edges, NK]));
    let v_dom = sized(&[mesh.n_vertices, NK]);
    for_each_backend(|backend| {
        let mut out = poisoned(&v_dom);
        second_edge_prog::compile(&backend.options_with(mesh.connectivities()))?.call(
            second_edge_prog::Args {
                edge_f: &edge_f,
                out: &mut out,
            },
        )?;
        expect_field("out", &out, &[0..3, 0..nk], |p| {
            let e = neighbours(&mesh.v2e, p[0]);
            at(&edge_f, &[e[1] as i64, p[1]]) + at(&edge_f, &[e[0] as i64, p[1]])
        });
        Ok(())
    });
}

/// ICON's `theta_v(C2E2C[0])(as_offset(Koff, zd_vertoffset[C2E2CDim(0)]))`: a slot shift, then
/// a dynamic vertical shift by one slot of a sparse integer field; and reductions of f32 and
/// i64 fields.
#[field_operator]
fn slot_then_dynamic(
    vert: Field<(Vertex, K), f64>,
    offsets: Field<(Edge, E2V, K), i32>,
    vert32: Field<(Vertex, K), f32>,
    vert64: Field<(Vertex, K), i64>,
) -> (
    Field<(Edge, K), f64>,
    Field<(Edge, K), f32>,
    Field<(Edge, K), i64>,
) {
    let lifted = vert.at(E2V[0]).at(K + offsets[E2V(0)]);
    (
        lifted,
        neighbor_sum(vert32.at(E2V), E2V),
        max_over(vert64.at(E2V), E2V),
    )
}
#[program]
fn slot_then_dynamic_prog(
    vert: &Field<(Vertex, K), f64>,
    offsets: &Field<(Edge, E2V, K), i32>,
    vert32: &Field<(Vertex, K), f32>,
    vert64: &Field<(Vertex, K), i64>,
    lifted: &mut Field<(Edge, K), f64>,
    sum32: &mut Field<(Edge, K), f32>,
    max64: &mut Field<(Edge, K), i64>,
) {
    slot_then_dynamic(vert, offsets, vert32, vert64).write_to((lifted, sum32, max64));
}

#[test]
fn slot_shift_then_dynamic_vertical_shift_and_other_dtypes() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(209);
    let nk = NK as i64;
    let (v_dom, e_dom) = (v_domain(&mesh), e_domain(&mesh));
    let vert: Field<(Vertex, K), f64> = random_field(&mut rng, &v_dom);
    let vert32: Field<(Vertex, K), f32> = random_field(&mut rng, &v_dom);
    let vert64: Field<(Vertex, K), i64> = random_field(&mut rng, &v_dom);
    // Offsets that stay inside the column: level k reads k + offset in 0..NK.
    let offsets = Field::from_fn(
        &[0..mesh.n_edges as i64, 0..2, 0..nk],
        Layout::default(),
        |p| ((p[0] * 7 + p[1] * 3 + p[2] * 5) % 5 - 2).clamp(-p[2], nk - 1 - p[2]) as i32,
    )
    .unwrap();
    for_each_backend(|backend| {
        let mut lifted = poisoned(&e_dom);
        let mut sum32 = poisoned(&e_dom);
        let mut max64 = poisoned(&e_dom);
        slot_then_dynamic_prog::compile(&backend.options_with(mesh.connectivities()))?.call(
            slot_then_dynamic_prog::Args {
                vert: &vert,
                offsets: &offsets,
                vert32: &vert32,
                vert64: &vert64,
                lifted: &mut lifted,
                sum32: &mut sum32,
                max64: &mut max64,
            },
        )?;
        let ends = |e: i64| neighbours(&mesh.e2v, e);
        expect_field("lifted", &lifted, &e_dom, |p| {
            let k = p[1] + at(&offsets, &[p[0], 0, p[1]]) as i64;
            at(&vert, &[ends(p[0])[0] as i64, k])
        });
        expect_field("sum32", &sum32, &e_dom, |p| {
            ends(p[0])
                .iter()
                .map(|&v| at(&vert32, &[v as i64, p[1]]))
                .sum()
        });
        expect_field("max64", &max64, &e_dom, |p| {
            ends(p[0])
                .iter()
                .map(|&v| at(&vert64, &[v as i64, p[1]]))
                .max()
                .expect("two vertices")
        });
        Ok(())
    });
}

/// A table whose entries reach past the input field's horizontal range is an error, on every
/// backend (the field covers vertices 0..5, E2V names vertices up to 8).
#[test]
fn neighbour_reads_outside_the_input_are_errors() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(210);
    let nk = NK as i64;
    let small: Field<(Vertex, K), f64> = random_field(&mut rng, &[0..5, 0..nk]);
    let e_dom = e_domain(&mesh);
    for_each_backend(|backend| {
        let mut out = poisoned(&e_dom);
        let result = edge_difference_prog::compile(&backend.options_with(mesh.connectivities()))?
            .call(edge_difference_prog::Args {
                vert: &small,
                out: &mut out,
                start: 0,
                end: mesh.n_edges as i32,
            });
        expect_error(result, &["edge_difference_prog", "outside", "Edge"]);
        Ok(())
    });
}

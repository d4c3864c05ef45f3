//! A scan's result read through a vertical shift, as ICON4Py's vertically implicit solver reads
//! its back substitution: `let y = suffix_sum(x); y - concat_where(K < top, y.at(K + 1), 0.0)`.
//! The fused backends used to refuse it ("needs a temporary, which the fused backends do not
//! build"); the scan now runs over the written levels by a stage of its own, into a temporary
//! read through the shift, and every backend computes the same values, or the same error where
//! the shift leaves those levels. Read through a neighbour shift (a scan over vertices read at
//! an edge's ends, or summed over a cell's corners), the scan runs over the neighbours the
//! domain reaches and the written levels; the fused backends refused that too.

use gt4rs::prelude::*;
use gt4rs_tests::*;

#[scan_operator(axis = K, forward = false, init = 0.0)]
fn suffix_sum(carry: f64, x: f64) -> f64 {
    carry + x
}

#[scan_operator(axis = K, forward = true, init = 1.0)]
fn damped(carry: f64, x: f64) -> f64 {
    0.5 * carry + x
}

/// Each level's own term of the suffix sum, recovered from it and the level below it.
#[field_operator]
fn own_terms(x: Field<(Cell, K), f64>, top: i32) -> Field<(Cell, K), f64> {
    let y = suffix_sum(x);
    y - concat_where(K < top, y.at(K + 1), 0.0)
}

#[program]
fn own_terms_prog(
    x: &Field<(Cell, K), f64>,
    out: &mut Field<(Cell, K), f64>,
    top: i32,
    k_start: i32,
) {
    own_terms(x, top).write_to(out, domain![Cell: 0..5, K: k_start..top + 1]);
}

/// A forward scan read at the level above and the level below, each in a branch.
#[field_operator]
fn neighbours_in_k(x: Field<(Cell, K), f64>, last: i32) -> Field<(Cell, K), f64> {
    let d = damped(x);
    concat_where(K < last, d.at(K + 1), d) + concat_where(K > 0, d.at(K - 1), d)
}

#[program]
fn neighbours_in_k_prog(x: &Field<(Cell, K), f64>, out: &mut Field<(Cell, K), f64>, last: i32) {
    neighbours_in_k(x, last).write_to(out, domain![Cell: 0..5, K: 0..last + 1]);
}

/// The level above, read everywhere: at the last written level it is outside the scan's levels.
#[field_operator]
fn above(x: Field<(Cell, K), f64>) -> Field<(Cell, K), f64> {
    damped(x).at(K + 1)
}

#[program]
fn above_prog(x: &Field<(Cell, K), f64>, out: &mut Field<(Cell, K), f64>, k_end: i32) {
    above(x).write_to(out, domain![Cell: 0..5, K: 0..k_end]);
}

/// The scan of `x` over levels `lo..hi` of column `c` (a cell or a vertex), from the top
/// (`forward`) or the bottom.
fn column_scan<D: gt4rs::Dims>(
    x: &Field<D, f64>,
    c: i64,
    (lo, hi): (i64, i64),
    forward: bool,
    init: f64,
    step: impl Fn(f64, f64) -> f64,
) -> Vec<f64> {
    let mut out = vec![f64::NAN; hi as usize];
    let mut carry = init;
    let levels: Vec<i64> = if forward {
        (lo..hi).collect()
    } else {
        (lo..hi).rev().collect()
    };
    for k in levels {
        carry = step(carry, at(x, &[c, k]));
        out[k as usize] = carry;
    }
    out
}

#[test]
fn a_backward_scan_read_at_the_level_below_in_a_branch() {
    let nk = 12i64;
    let mut rng = rng(1501);
    let x: Field<(Cell, K), f64> = random_field(&mut rng, &[0..5, 0..nk]);
    for_each_backend(|backend| {
        let prog = own_terms_prog::compile(&backend.options())?;
        // Levels k_start..=top: the scan runs over them, from `top` down.
        for (k_start, top) in [(0, nk - 1), (3, 9)] {
            let mut out = poisoned(&[0..5, 0..nk]);
            prog.call(own_terms_prog::Args {
                x: &x,
                out: &mut out,
                top: top as i32,
                k_start: k_start as i32,
            })?;
            expect_field("out", &out, &[0..5, k_start..top + 1], |p| {
                let y = column_scan(&x, p[0], (k_start, top + 1), false, 0.0, |c, v| c + v);
                let below = if p[1] < top {
                    y[p[1] as usize + 1]
                } else {
                    0.0
                };
                y[p[1] as usize] - below
            });
        }
        Ok(())
    });
}

#[test]
fn a_forward_scan_read_above_and_below() {
    let nk = 10i64;
    let mut rng = rng(1502);
    let x: Field<(Cell, K), f64> = random_field(&mut rng, &[0..5, 0..nk]);
    for_each_backend(|backend| {
        let prog = neighbours_in_k_prog::compile(&backend.options())?;
        let last = 7i64;
        let mut out = poisoned(&[0..5, 0..nk]);
        prog.call(neighbours_in_k_prog::Args {
            x: &x,
            out: &mut out,
            last: last as i32,
        })?;
        expect_field("out", &out, &[0..5, 0..last + 1], |p| {
            let d = column_scan(&x, p[0], (0, last + 1), true, 1.0, |c, v| 0.5 * c + v);
            let k = p[1] as usize;
            let up = if p[1] < last { d[k + 1] } else { d[k] };
            let down = if p[1] > 0 { d[k - 1] } else { d[k] };
            up + down
        });
        Ok(())
    });
}

/// Read at `K + 1` over levels 0..8, the scan runs over 0..8 and level 8 is not among them: an
/// error on every backend, before anything is written on the fused ones.
#[test]
fn a_scan_read_past_its_levels_is_an_error() {
    let nk = 10i64;
    let mut rng = rng(1503);
    let x: Field<(Cell, K), f64> = random_field(&mut rng, &[0..5, 0..nk]);
    for_each_backend(|backend| {
        let prog = above_prog::compile(&backend.options())?;
        let mut out = poisoned(&[0..5, 0..nk]);
        let result = prog.call(above_prog::Args {
            x: &x,
            out: &mut out,
            k_end: 8,
        });
        let needle = if backend.backend == Backend::Embedded {
            "K 7..8 is missing"
        } else {
            "temporary 0 is read at K 1..9"
        };
        expect_error(result, &[needle]);
        Ok(())
    });
}

/// A scan over vertices read at both ends of each edge.
#[field_operator]
fn edge_mean_of_scan(x: Field<(Vertex, K), f64>) -> Field<(Edge, K), f64> {
    let d = damped(x);
    0.5 * (d.at(E2V[0]) + d.at(E2V[1]))
}

#[program]
fn edge_mean_of_scan_prog(
    x: &Field<(Vertex, K), f64>,
    out: &mut Field<(Edge, K), f64>,
    edges: i32,
    k_start: i32,
    k_end: i32,
) {
    edge_mean_of_scan(x).write_to(out, domain![Edge: 0..edges, K: k_start..k_end]);
}

/// A backward scan over vertices, summed over each cell's corners, next to a term at the
/// cell: the scan's reads go through a reduction.
#[field_operator]
fn corner_sum_of_scan(
    x: Field<(Vertex, K), f64>,
    c: Field<(Cell, K), f64>,
) -> Field<(Cell, K), f64> {
    c + neighbor_sum(suffix_sum(x).at(C2V), C2V)
}

#[program]
fn corner_sum_of_scan_prog(
    x: &Field<(Vertex, K), f64>,
    c: &Field<(Cell, K), f64>,
    out: &mut Field<(Cell, K), f64>,
    k_end: i32,
) {
    corner_sum_of_scan(x, c).write_to(out, domain![K: 0..k_end]);
}

#[test]
fn a_scan_read_at_the_ends_of_edges() {
    let mesh = SimpleMesh::new();
    let nk = 9i64;
    let (nv, ne) = (mesh.n_vertices as i64, mesh.n_edges as i64);
    let mut rng = rng(1504);
    let x: Field<(Vertex, K), f64> = random_field(&mut rng, &[0..nv, 0..nk]);
    for_each_backend(|backend| {
        let prog = edge_mean_of_scan_prog::compile(&backend.options_with(mesh.connectivities()))?;
        // A few edges (reaching some vertices) and the levels 2..7: the scan starts at level 2.
        for (edges, k_start, k_end) in [(ne, 0, nk), (5, 2, 7)] {
            let mut out = poisoned(&[0..ne, 0..nk]);
            prog.call(edge_mean_of_scan_prog::Args {
                x: &x,
                out: &mut out,
                edges: edges as i32,
                k_start: k_start as i32,
                k_end: k_end as i32,
            })?;
            expect_field("out", &out, &[0..edges, k_start..k_end], |p| {
                let ends = neighbours(&mesh.e2v, p[0]);
                let scan = |v: i32| {
                    column_scan(&x, v as i64, (k_start, k_end), true, 1.0, |c, v| {
                        0.5 * c + v
                    })[p[1] as usize]
                };
                0.5 * (scan(ends[0]) + scan(ends[1]))
            });
        }
        Ok(())
    });
}

#[test]
fn a_backward_scan_summed_over_the_corners_of_cells() {
    let mesh = SimpleMesh::new();
    let nk = 8i64;
    let (nv, nc) = (mesh.n_vertices as i64, mesh.n_cells as i64);
    let mut rng = rng(1505);
    let x: Field<(Vertex, K), f64> = random_field(&mut rng, &[0..nv, 0..nk]);
    let c: Field<(Cell, K), f64> = random_field(&mut rng, &[0..nc, 0..nk]);
    for_each_backend(|backend| {
        let prog = corner_sum_of_scan_prog::compile(&backend.options_with(mesh.connectivities()))?;
        let k_end = 6i64;
        let mut out = poisoned(&[0..nc, 0..nk]);
        prog.call(corner_sum_of_scan_prog::Args {
            x: &x,
            c: &c,
            out: &mut out,
            k_end: k_end as i32,
        })?;
        expect_field("out", &out, &[0..nc, 0..k_end], |p| {
            let corners: f64 = neighbours(&mesh.c2v, p[0])
                .iter()
                .map(|&v| {
                    column_scan(&x, v as i64, (0, k_end), false, 0.0, |c, v| c + v)[p[1] as usize]
                })
                .sum();
            at(&c, p) + corners
        });
        Ok(())
    });
}

/// A backward scan over vertices, read at an edge's first end in the `K >= 3` branch of a
/// `concat_where`: the scan runs in that branch's levels, so its carry starts at the last
/// written level and it stops at level 3 (the differential fuzzer's seed 20260201 and 20260129:
/// the fused backends had run it over every written level).
#[field_operator]
fn scan_in_a_branch(x: Field<(Vertex, K), f64>, e: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    concat_where(K < 3, e, suffix_sum(x).at(E2V[0]))
}

#[program]
fn scan_in_a_branch_prog(
    x: &Field<(Vertex, K), f64>,
    e: &Field<(Edge, K), f64>,
    out: &mut Field<(Edge, K), f64>,
    k_end: i32,
) {
    scan_in_a_branch(x, e).write_to(out, domain![K: 0..k_end]);
}

#[test]
fn a_scan_read_through_a_neighbour_in_a_branch_runs_in_the_branch() {
    let mesh = SimpleMesh::new();
    let nk = 8i64;
    let (nv, ne) = (mesh.n_vertices as i64, mesh.n_edges as i64);
    let mut rng = rng(1506);
    let x: Field<(Vertex, K), f64> = random_field(&mut rng, &[0..nv, 0..nk]);
    let e: Field<(Edge, K), f64> = random_field(&mut rng, &[0..ne, 0..nk]);
    for_each_backend(|backend| {
        let prog = scan_in_a_branch_prog::compile(&backend.options_with(mesh.connectivities()))?;
        let k_end = 7i64;
        let mut out = poisoned(&[0..ne, 0..nk]);
        prog.call(scan_in_a_branch_prog::Args {
            x: &x,
            e: &e,
            out: &mut out,
            k_end: k_end as i32,
        })?;
        expect_field("out", &out, &[0..ne, 0..k_end], |p| {
            if p[1] < 3 {
                return at(&e, p);
            }
            let v = neighbours(&mesh.e2v, p[0])[0] as i64;
            column_scan(&x, v, (3, k_end), false, 0.0, |c, v| c + v)[p[1] as usize]
        });
        Ok(())
    });
}

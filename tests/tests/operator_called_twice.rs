//! One operator called twice with different arguments in one expression, where the lowering
//! gives its value a stage of its own (a temporary, a scan running against its stage's
//! direction). The lowering remembers such values by the address of the call's environment; an
//! environment freed after the first call once lent its address to the second, so `h(a) - h(b)`
//! computed `h(a) - h(a)` on the CPU backend.

use gt4rs::prelude::*;
use gt4rs_tests::*;

#[field_operator]
fn edge_sum(v: Field<(Vertex, K), f64>) -> Field<(Edge, K), f64> {
    neighbor_sum(v.at(E2V), E2V)
}

/// A gather read through a four-neighbour offset: its own stage, a temporary.
#[field_operator]
fn cell_sum(v: Field<(Vertex, K), f64>) -> Field<(Cell, K), f64> {
    neighbor_sum(edge_sum(v).at(C2E), C2E)
}

#[field_operator]
fn cell_sum_difference(
    a: Field<(Vertex, K), f64>,
    b: Field<(Vertex, K), f64>,
) -> Field<(Cell, K), f64> {
    cell_sum(a) - cell_sum(b)
}

#[program]
fn gathers_twice(
    a: &Field<(Vertex, K), f64>,
    b: &Field<(Vertex, K), f64>,
    out: &mut Field<(Cell, K), f64>,
) {
    cell_sum_difference(a, b).write_to(out);
}

#[test]
fn a_gathering_operator_called_with_two_arguments_reads_each() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(3101);
    let vertices = vec![0..mesh.n_vertices as i64, 0..4];
    let cells = vec![0..mesh.n_cells as i64, 0..4];
    let a: Field<(Vertex, K), f64> = random_field(&mut rng, &vertices);
    let b: Field<(Vertex, K), f64> = random_field(&mut rng, &vertices);
    let cell_sum = |v: &Field<(Vertex, K), f64>, cell: i64, k: i64| -> f64 {
        neighbours(&mesh.c2e, cell)
            .iter()
            .flat_map(|&e| neighbours(&mesh.e2v, e as i64))
            .map(|vertex| at(v, &[vertex as i64, k]))
            .sum()
    };
    for_each_backend(|backend| {
        let mut out = poisoned(&cells);
        let program = gathers_twice::compile(&backend.options_with(mesh.connectivities()))?;
        program.call(gathers_twice::Args {
            a: &a,
            b: &b,
            out: &mut out,
        })?;
        expect_field(&backend.name(), &out, &cells, |p| {
            cell_sum(&a, p[0], p[1]) - cell_sum(&b, p[0], p[1])
        });
        Ok(())
    });
}

#[scan_operator(axis = K, forward = true, init = 0.0)]
fn upward_sum(carry: f64, x: f64) -> f64 {
    carry + x
}

#[scan_operator(axis = K, forward = false, init = 0.0)]
fn downward_sum(carry: f64, x: f64) -> f64 {
    carry + x
}

#[field_operator]
fn from_top(x: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    downward_sum(x)
}

/// The downward scans run against the stage's upward one: each gets a stage of its own.
#[field_operator]
fn both_ways(a: Field<(Edge, K), f64>, b: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    upward_sum(a) + from_top(a) - from_top(b)
}

#[program]
fn scans_twice(
    a: &Field<(Edge, K), f64>,
    b: &Field<(Edge, K), f64>,
    out: &mut Field<(Edge, K), f64>,
) {
    both_ways(a, b).write_to(out);
}

#[test]
fn a_scanning_operator_called_with_two_arguments_reads_each() {
    let mut rng = rng(3102);
    let (edges, levels) = (5, 6);
    let domain = vec![0..edges, 0..levels];
    let a: Field<(Edge, K), f64> = random_field(&mut rng, &domain);
    let b: Field<(Edge, K), f64> = random_field(&mut rng, &domain);
    let up =
        |x: &Field<(Edge, K), f64>, e: i64, k: i64| (0..=k).map(|l| at(x, &[e, l])).sum::<f64>();
    let down = |x: &Field<(Edge, K), f64>, e: i64, k: i64| {
        (k..levels).map(|l| at(x, &[e, l])).sum::<f64>()
    };
    for_each_backend(|backend| {
        let mut out = poisoned(&domain);
        let program = scans_twice::compile(&backend.options())?;
        program.call(scans_twice::Args {
            a: &a,
            b: &b,
            out: &mut out,
        })?;
        expect_field(&backend.name(), &out, &domain, |p| {
            up(&a, p[0], p[1]) + down(&a, p[0], p[1]) - down(&b, p[0], p[1])
        });
        Ok(())
    });
}

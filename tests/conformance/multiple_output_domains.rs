//! GT4Py `test_multiple_output_domains.py`: tuple outputs with one domain per element, with and
//! without a domain, nested tuples, two vertical dimensions (K and KHalf, the half levels
//! starting at 1), unstructured outputs on different horizontal dimensions, and temporaries
//! shared by the elements.

use super::common::*;

#[field_operator]
fn levels(
    full: Field<(Cell, K), f64>,
    half: Field<(Cell, KHalf), f64>,
) -> (
    Field<(Cell, K), f64>,
    (Field<(Cell, KHalf), f64>, Field<(Cell, K), f64>),
) {
    let common = full * 2.0;
    (common + 1.0, (half.at(KHalf - 1) - half, common * common))
}

#[program]
fn levels_prog(
    full: &Field<(Cell, K), f64>,
    half: &Field<(Cell, KHalf), f64>,
    a: &mut Field<(Cell, K), f64>,
    b: &mut Field<(Cell, KHalf), f64>,
    c: &mut Field<(Cell, K), f64>,
    nlev: i32,
) {
    levels(full, half).write_to(
        (a, (b, c)),
        (
            domain![K: 1..nlev - 1],
            (domain![Cell: 1..5, KHalf: 2..nlev + 1], domain![]),
        ),
    );
}

#[test]
fn nested_tuple_with_full_and_half_levels() {
    let mut rng = rng(2001);
    let (n_cells, nk) = (6usize, NK as i64);
    let nc = n_cells as i64;
    let full_dom = sized(&[n_cells, NK]);
    // Half levels: nlev + 1 interfaces, numbered 1..=nlev+1 here (a non-zero origin).
    let half_dom = [0..nc, 1..nk + 2];
    let full: Field<(Cell, K), f64> = random_field(&mut rng, &full_dom);
    let half: Field<(Cell, KHalf), f64> = random_field(&mut rng, &half_dom);
    for_each_backend(|backend| {
        let (mut a, mut c) = (poisoned(&full_dom), poisoned(&full_dom));
        let mut b = poisoned(&half_dom);
        levels_prog::compile(&backend.options())?.call(levels_prog::Args {
            full: &full,
            half: &half,
            a: &mut a,
            b: &mut b,
            c: &mut c,
            nlev: NK as i32,
        })?;
        expect_field("a", &a, &[0..nc, 1..nk - 1], |p| 2.0 * at(&full, p) + 1.0);
        expect_field("b", &b, &[1..5, 2..nk + 1], |p| {
            at(&half, &[p[0], p[1] - 1]) - at(&half, p)
        });
        expect_field("c", &c, &full_dom, |p| (2.0 * at(&full, p)).powi(2));
        Ok(())
    });
}

#[field_operator]
fn vertex_and_edge(
    vert: Field<(Vertex, K), f64>,
    edge: Field<(Edge, K), f64>,
) -> (
    Field<(Vertex, K), f64>,
    Field<(Edge, K), f64>,
    Field<(Cell, K), f64>,
) {
    let edge_mean = neighbor_sum(vert.at(E2V), E2V) * 0.5;
    let vertex_sum = neighbor_sum((edge_mean + edge).at(V2E), V2E);
    (vertex_sum, edge_mean, neighbor_sum(edge_mean.at(C2E), C2E))
}

#[program]
fn vertex_and_edge_prog(
    vert: &Field<(Vertex, K), f64>,
    edge: &Field<(Edge, K), f64>,
    on_vertices: &mut Field<(Vertex, K), f64>,
    on_edges: &mut Field<(Edge, K), f64>,
    on_cells: &mut Field<(Cell, K), f64>,
    vertex_end: i32,
    edge_start: i32,
) {
    vertex_and_edge(vert, edge).write_to(
        (on_vertices, on_edges, on_cells),
        (
            domain![Vertex: 0..vertex_end, K: 1..9],
            domain![Edge: edge_start..18],
            domain![Cell: 2..8, K: 0..4],
        ),
    );
}

#[test]
fn unstructured_outputs_with_their_own_domains() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(2002);
    let nk = NK as i64;
    let (v_dom, e_dom, c_dom) = (
        sized(&[mesh.n_vertices, NK]),
        sized(&[mesh.n_edges, NK]),
        sized(&[mesh.n_cells, NK]),
    );
    let vert: Field<(Vertex, K), f64> = random_field(&mut rng, &v_dom);
    let edge: Field<(Edge, K), f64> = random_field(&mut rng, &e_dom);
    let edge_mean = |e: i64, k: i64| -> f64 {
        neighbours(&mesh.e2v, e)
            .iter()
            .map(|&v| at(&vert, &[v as i64, k]))
            .sum::<f64>()
            * 0.5
    };
    for_each_backend(|backend| {
        let mut on_vertices = poisoned(&v_dom);
        let mut on_edges = poisoned(&e_dom);
        let mut on_cells = poisoned(&c_dom);
        vertex_and_edge_prog::compile(&backend.options_with(mesh.connectivities()))?.call(
            vertex_and_edge_prog::Args {
                vert: &vert,
                edge: &edge,
                on_vertices: &mut on_vertices,
                on_edges: &mut on_edges,
                on_cells: &mut on_cells,
                vertex_end: 7,
                edge_start: 5,
            },
        )?;
        expect_field("on_vertices", &on_vertices, &[0..7, 1..nk], |p| {
            neighbours(&mesh.v2e, p[0])
                .iter()
                .map(|&e| edge_mean(e as i64, p[1]) + at(&edge, &[e as i64, p[1]]))
                .sum()
        });
        expect_field("on_edges", &on_edges, &[5..18, 0..nk], |p| {
            edge_mean(p[0], p[1])
        });
        expect_field("on_cells", &on_cells, &[2..8, 0..4], |p| {
            neighbours(&mesh.c2e, p[0])
                .iter()
                .map(|&e| edge_mean(e as i64, p[1]))
                .sum()
        });
        Ok(())
    });
}

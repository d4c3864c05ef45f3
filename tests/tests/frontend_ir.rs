//! Programs checked by the frontend: their IR and signature.

use gt4rs::__private::ir::fieldview::{ExprKind, OperatorKind, Role, Target};
use gt4rs::prelude::*;
use gt4rs::{ParamKind, ScalarType};

gt4rs::dimensions! { pub Cell, Edge, Vertex: horizontal; pub K: vertical; pub I, J: horizontal; }
gt4rs::offsets! { pub E2C2V: Edge => Vertex [4]; pub E2C: Edge => Cell [2]; pub C2E: Cell => Edge [3]; }

#[field_operator]
fn nabla4(
    u_vert: Field<(Vertex, K), f64>,
    v_vert: Field<(Vertex, K), f64>,
    pn1: Field<(Edge, E2C2V), f64>,
    pn2: Field<(Edge, E2C2V), f64>,
    z_nabla2_e: Field<(Edge, K), f64>,
    inv_vert_vert_length: Field<Edge, f64>,
    inv_primal_edge_length: Field<Edge, f64>,
) -> Field<(Edge, K), f64> {
    let p = u_vert.at(E2C2V) * pn1 + v_vert.at(E2C2V) * pn2;
    let tang = p[E2C2V(0)] + p[E2C2V(1)];
    let norm = p[E2C2V(2)] + p[E2C2V(3)];
    4.0 * ((norm - 2.0 * z_nabla2_e) * inv_vert_vert_length.powi(2)
        + (tang - 2.0 * z_nabla2_e) * inv_primal_edge_length.powi(2))
}

#[program]
pub fn calculate_nabla4(
    u_vert: &Field<(Vertex, K), f64>,
    v_vert: &Field<(Vertex, K), f64>,
    pn1: &Field<(Edge, E2C2V), f64>,
    pn2: &Field<(Edge, E2C2V), f64>,
    z_nabla2_e: &Field<(Edge, K), f64>,
    inv_vert_vert_length: &Field<Edge, f64>,
    inv_primal_edge_length: &Field<Edge, f64>,
    z_nabla4_e2: &mut Field<(Edge, K), f64>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    nabla4(
        u_vert,
        v_vert,
        pn1,
        pn2,
        z_nabla2_e,
        inv_vert_vert_length,
        inv_primal_edge_length,
    )
    .write_to(
        z_nabla4_e2,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[scan_operator(axis = K, forward = true, init = (0.0, 0.0))]
fn tridiag_forward(state: (f64, f64), a: f64, b: f64, c: f64, d: f64) -> (f64, f64) {
    let g = 1.0 / (b + a * state.0);
    (-c * g, (d - a * state.1) * g)
}

#[field_operator]
fn solve_first_pass(
    a: Field<(Cell, K), f64>,
    b: Field<(Cell, K), f64>,
    c: Field<(Cell, K), f64>,
    d: Field<(Cell, K), f64>,
) -> (Field<(Cell, K), f64>, Field<(Cell, K), f64>) {
    tridiag_forward(a, b, c, d)
}

#[program]
fn first_pass(
    a: &Field<(Cell, K), f64>,
    b: &Field<(Cell, K), f64>,
    c: &Field<(Cell, K), f64>,
    d: &Field<(Cell, K), f64>,
    cp: &mut Field<(Cell, K), f64>,
    dp: &mut Field<(Cell, K), f64>,
) {
    solve_first_pass(a, b, c, d).write_to((cp, dp));
}

#[field_operator]
fn edge_average(x: Field<(Cell, K), f64>, nlev: i32) -> Field<(Edge, K), f64> {
    let avg = neighbor_sum(x.at(E2C), E2C) * 0.5;
    concat_where(K < nlev - 1, avg, x.at(E2C[0]))
}

#[field_operator]
fn laplace(f: Field<(I, J), f32>) -> Field<(I, J), f32> {
    -4.0 * f + f.at(I + 1) + f.at(I - 1) + f.at(J + 1) + f.at((J - 1, I + 0))
}

#[program]
fn apply_laplace(f: &Field<(I, J), f32>, out: &mut Field<(I, J), f32>, #[static_arg] n: i32) {
    laplace(f).write_to(out, domain![I: 1..n - 1, J: 1..(n - 1).max(1)]);
}

#[program]
fn average_in_place(x: &Field<(Cell, K), f64>, y: &mut Field<(Edge, K), f64>, nlev: i32) {
    edge_average(x, nlev).write_to(y, domain![K: 0..nlev]);
}

#[test]
fn nabla4_program_ir() {
    let ir = calculate_nabla4::ir();
    assert_eq!(ir.name, "calculate_nabla4");
    assert_eq!(ir.params.len(), 12);
    assert_eq!(ir.params[7].role, Role::Out);
    assert_eq!(ir.params[0].role, Role::In);
    assert_eq!(ir.calls.len(), 1);
    let call = &ir.calls[0];
    let Target::Field { param, domain } = &call.target else {
        panic!("single field target expected");
    };
    assert_eq!(*param, 7);
    assert_eq!(domain.len(), 2);
    assert_eq!(domain[0].dim, "Edge");
    assert_eq!(domain[1].dim, "K");
    let ExprKind::Call { callee, args } = &call.value.kind else {
        panic!("call expected");
    };
    assert_eq!(args.len(), 7);
    let op = ir.bundle.operator(callee).expect("callee in bundle");
    assert_eq!(op.name, "nabla4");
    let offsets: Vec<&str> = ir.used_offsets().iter().map(|o| o.name.as_str()).collect();
    assert_eq!(offsets, ["E2C2V"]);
    let sig = calculate_nabla4::signature();
    assert_eq!(
        sig.param("pn1").map(|p| p.kind.clone()),
        Some(ParamKind::Field {
            dims: vec!["Edge".into(), "E2C2V".into()]
        })
    );
    assert_eq!(
        sig.param("horizontal_end").and_then(|p| p.dtype),
        Some(ScalarType::I32)
    );
}

#[test]
fn scan_program_ir() {
    let ir = first_pass::ir();
    let Target::Tuple(items) = &ir.calls[0].target else {
        panic!("tuple target expected");
    };
    assert_eq!(items.len(), 2);
    let scan = ir
        .bundle
        .operators
        .iter()
        .find(|o| o.name == "tridiag_forward")
        .expect("scan in bundle");
    let OperatorKind::Scan { axis, forward, .. } = &scan.kind else {
        panic!("scan kind expected");
    };
    assert_eq!(axis, "K");
    assert!(*forward);
}

#[test]
fn cartesian_program_ir() {
    let ir = apply_laplace::ir();
    assert!(ir.params[2].is_static);
    let op = ir
        .bundle
        .operators
        .iter()
        .find(|o| o.name == "laplace")
        .expect("laplace in bundle");
    let mut shifts = Vec::new();
    op.body.walk(&mut |e| {
        if let ExprKind::CartesianShift { dim, offset, .. } = &e.kind {
            shifts.push((dim.clone(), *offset));
        }
    });
    shifts.sort();
    assert_eq!(
        shifts,
        [
            ("I".to_string(), -1),
            ("I".to_string(), 0),
            ("I".to_string(), 1),
            ("J".to_string(), -1),
            ("J".to_string(), 1)
        ]
    );
    assert_eq!(ir.used_offsets().len(), 0);
}

#[test]
fn concat_where_program_ir() {
    let ir = average_in_place::ir();
    assert_eq!(ir.params[1].role, Role::Out);
    let offsets: Vec<&str> = ir.used_offsets().iter().map(|o| o.name.as_str()).collect();
    assert_eq!(offsets, ["E2C"]);
}

mod ascribed {
    use super::*;

    gt4rs::dimensions! { pub Col: horizontal; pub Lev: vertical; }

    #[field_operator]
    pub fn ident(x: Field<Col, f64>, y: Field<Lev, f64>) -> (Field<Col, f64>, Field<Lev, f64>) {
        let pair: (Field<Col, f64>, Field<Lev, f64>) = (x, y);
        pair
    }

    #[field_operator]
    pub fn spread(x: Field<Col, f64>) -> Field<(Col, Lev), f64> {
        broadcast(x, (Col, Lev))
    }

    // `Lev` appears only in the `let` ascription: the collection must still find it.
    #[field_operator]
    pub fn through(x: Field<Col, f64>) -> Field<Col, f64> {
        let y: Field<(Col, Lev), f64> = spread(x);
        let _unused = y;
        x
    }
}

#[program]
fn ascribed_program(
    x: &Field<ascribed::Col, f64>,
    y: &Field<ascribed::Lev, f64>,
    a: &mut Field<ascribed::Col, f64>,
    b: &mut Field<ascribed::Lev, f64>,
) {
    ascribed::ident(x, y).write_to((a, b));
}

#[test]
fn paths_to_other_modules_resolve() {
    let ir = ascribed_program::ir();
    let dims: Vec<&str> = ir.bundle.dims.iter().map(|d| d.name.as_str()).collect();
    assert!(dims.contains(&"Col") && dims.contains(&"Lev"), "{dims:?}");
    assert_eq!(ir.params[2].role, Role::Out);
}

/// An offset named in a sparse field's type is also the local dimension of the program's bundle.
#[test]
fn offsets_are_local_dimensions_of_the_bundle() {
    let bundle = &calculate_nabla4::ir().bundle;
    let local = bundle
        .dim("E2C2V")
        .expect("the sparse fields' local dimension is declared");
    assert_eq!(local.kind, gt4rs::DimKind::Local);
    assert!(bundle.offset("E2C2V").is_some());
}

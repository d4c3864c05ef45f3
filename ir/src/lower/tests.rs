//! Structure of lowered programs: inlining, shift push-down, slots, CSE, folding, stage split,
//! and the cases that would need a temporary.

use super::*;
use crate::fieldview::{
    Bundle, DomainRange, Literal, Operator, Param, ProgramCall, ProgramParam, ReduceOp, Role,
};
use crate::stage::{Node, Slot, Step};
use crate::types::{CmpOp, DimInfo, OffsetInfo};

const F: ScalarType = ScalarType::F64;

fn ck() -> Type {
    Type::field(&["Cell", "K"], F)
}
fn ek() -> Type {
    Type::field(&["Edge", "K"], F)
}
fn e(ty: Type, kind: ExprKind) -> Expr {
    Expr::new(ty, kind)
}
fn p(i: u32, ty: Type) -> Expr {
    e(ty, ExprKind::Param(i))
}
fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let ty = if a.ty.is_field() {
        a.ty.clone()
    } else {
        b.ty.clone()
    };
    e(
        ty,
        ExprKind::Binary {
            op,
            lhs: Box::new(a),
            rhs: Box::new(b),
        },
    )
}
fn kshift(a: Expr, offset: i64) -> Expr {
    e(
        a.ty.clone(),
        ExprKind::CartesianShift {
            arg: Box::new(a),
            dim: "K".into(),
            offset,
        },
    )
}
fn lit(x: f64) -> Expr {
    e(Type::Scalar(F), ExprKind::Literal(Literal::float(x)))
}
fn bundle(operators: Vec<Operator>) -> Bundle {
    Bundle {
        operators,
        dims: vec![
            DimInfo {
                name: "Cell".into(),
                kind: DimKind::Horizontal,
            },
            DimInfo {
                name: "Edge".into(),
                kind: DimKind::Horizontal,
            },
            DimInfo {
                name: "E2C".into(),
                kind: DimKind::Local,
            },
            DimInfo {
                name: "C2E".into(),
                kind: DimKind::Local,
            },
            DimInfo {
                name: "E2C1".into(),
                kind: DimKind::Local,
            },
            DimInfo {
                name: "K".into(),
                kind: DimKind::Vertical,
            },
        ],
        offsets: vec![
            OffsetInfo {
                name: "E2C".into(),
                from: "Edge".into(),
                to: "Cell".into(),
                count: 2,
            },
            OffsetInfo {
                name: "C2E".into(),
                from: "Cell".into(),
                to: "Edge".into(),
                count: 3,
            },
            OffsetInfo {
                name: "E2C1".into(),
                from: "Edge".into(),
                to: "Cell".into(),
                count: 1,
            },
        ],
    }
}
fn field_op(key: &str, params: Vec<Type>, body: Expr) -> Operator {
    Operator {
        key: key.into(),
        name: key.into(),
        params: params
            .into_iter()
            .enumerate()
            .map(|(i, ty)| Param {
                name: format!("p{i}"),
                ty,
            })
            .collect(),
        ret: body.ty.clone(),
        body,
        kind: OperatorKind::Field,
    }
}
fn program(
    params: Vec<(&str, Type, Role)>,
    calls: Vec<ProgramCall>,
    ops: Vec<Operator>,
) -> Program {
    Program {
        name: "prog".into(),
        params: params
            .into_iter()
            .map(|(n, ty, role)| ProgramParam {
                name: n.into(),
                ty,
                role,
                is_static: false,
            })
            .collect(),
        calls,
        bundle: bundle(ops),
    }
}
fn write(value: Expr, param: u32) -> ProgramCall {
    ProgramCall {
        value,
        target: Target::Field {
            param,
            domain: vec![],
        },
    }
}
fn call(key: &str, args: Vec<Expr>, ty: Type) -> Expr {
    e(
        ty,
        ExprKind::Call {
            callee: key.into(),
            args,
        },
    )
}
fn loads(stage: &Stage) -> Vec<&AccessPath> {
    stage
        .nodes
        .iter()
        .filter_map(|n| match n {
            Node::Load { path, .. } => Some(path),
            _ => None,
        })
        .collect()
}

#[test]
fn inlined_calls_share_common_subexpressions() {
    // sq(x) = x * x; program: sq(a) + sq(a)
    let sq = field_op("sq", vec![ck()], bin(BinaryOp::Mul, p(0, ck()), p(0, ck())));
    let value = bin(
        BinaryOp::Add,
        call("sq", vec![p(0, ck())], ck()),
        call("sq", vec![p(0, ck())], ck()),
    );
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(value, 1)],
        vec![sq],
    );
    let lowered = lower(&prog).unwrap();
    assert_eq!(lowered.stages.len(), 1);
    let stage = &lowered.stages[0];
    // Load a, a*a, (a*a)+(a*a): each once.
    assert_eq!(stage.nodes.len(), 3, "{:#?}", stage.nodes);
    assert!(matches!(
        stage.nodes[2],
        Node::Binary { lhs: 1, rhs: 1, .. }
    ));
    assert_eq!(stage.outputs[0].value, 2);
    assert!(lowered.temporaries.is_empty());
}

#[test]
fn shifts_of_computed_values_are_pushed_into_every_leaf() {
    // g(x) = x + x.at(K+1); program: g(a).at(K-1)
    let g = field_op(
        "g",
        vec![ck()],
        bin(BinaryOp::Add, p(0, ck()), kshift(p(0, ck()), 1)),
    );
    let value = kshift(call("g", vec![p(0, ck())], ck()), -1);
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(value, 1)],
        vec![g],
    );
    let stage = &lower(&prog).unwrap().stages[0];
    let shift = |o| Step::Cartesian {
        dim: "K".into(),
        offset: o,
    };
    let paths = loads(stage);
    assert_eq!(paths.len(), 2);
    assert_eq!(paths[0].steps, vec![shift(-1)]);
    assert_eq!(paths[1].steps, vec![shift(-1), shift(1)]);
}

#[test]
fn concat_where_conditions_are_evaluated_at_the_shifted_point() {
    let cond = DomainCond::Cmp {
        dim: "K".into(),
        op: CmpOp::Gt,
        value: Box::new(e(
            Type::Scalar(ScalarType::I32),
            ExprKind::Literal(Literal::Int(0)),
        )),
    };
    let cw = e(
        ck(),
        ExprKind::ConcatWhere {
            cond,
            if_true: Box::new(kshift(p(0, ck()), -1)),
            if_false: Box::new(p(0, ck())),
        },
    );
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(kshift(cw, 2), 1)],
        vec![],
    );
    let stage = &lower(&prog).unwrap().stages[0];
    let index_paths: Vec<_> = stage
        .nodes
        .iter()
        .filter_map(|n| match n {
            Node::Index { path, .. } => Some(path.steps.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        index_paths,
        vec![vec![Step::Cartesian {
            dim: "K".into(),
            offset: 2
        }]]
    );
    // Both branches' loads are guarded: they are only meaningful where taken.
    assert!(stage
        .nodes
        .iter()
        .all(|n| !matches!(n, Node::Load { guarded: false, .. })));
}

#[test]
fn reductions_evaluate_sparse_values_at_their_slot_variable() {
    let sparse = Type::field(&["Edge", "E2C", "K"], F);
    let w = Type::field(&["Edge", "E2C"], F);
    let shifted = e(
        sparse.clone(),
        ExprKind::NeighborShift {
            arg: Box::new(p(0, ck())),
            offset: "E2C".into(),
            slot: None,
        },
    );
    let value = e(
        ek(),
        ExprKind::Reduce {
            op: ReduceOp::Sum,
            local: "E2C".into(),
            arg: Box::new(bin(BinaryOp::Mul, shifted, p(1, w.clone()))),
        },
    );
    let prog = program(
        vec![
            ("f", ck(), Role::In),
            ("w", w, Role::In),
            ("out", ek(), Role::Out),
        ],
        vec![write(value, 2)],
        vec![],
    );
    let stage = &lower(&prog).unwrap().stages[0];
    let Some(Node::Reduce { body, var, .. }) = stage.nodes.last() else {
        panic!("the value is a reduction: {:#?}", stage.nodes)
    };
    assert_eq!(
        body.len(),
        3,
        "two loads and their product: {:#?}",
        stage.nodes
    );
    assert!(stage.nodes.iter().any(|n| matches!(n,
        Node::Load { path, .. } if path.steps == vec![Step::Neighbor { offset: "E2C".into(), slot: Slot::Var(*var) }])));
    assert!(stage
        .nodes
        .iter()
        .any(|n| matches!(n, Node::Load { local: Some(Slot::Var(v)), .. } if v == var)));
}

#[test]
fn literal_arithmetic_is_folded() {
    let value = bin(
        BinaryOp::Mul,
        p(0, ck()),
        bin(BinaryOp::Add, lit(2.0), lit(3.0)),
    );
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(value, 1)],
        vec![],
    );
    let stage = &lower(&prog).unwrap().stages[0];
    assert_eq!(stage.nodes.len(), 3, "{:#?}", stage.nodes);
    assert!(stage.nodes.iter().any(|n| matches!(n,
        Node::Literal { value, .. } if *value == Literal::float(5.0))));
}

#[test]
fn tuple_targets_with_different_domains_become_separate_stages() {
    let i32s = Type::Scalar(ScalarType::I32);
    let int = |v| e(i32s.clone(), ExprKind::Literal(Literal::Int(v)));
    let range = |lo, hi| DomainRange {
        dim: "K".into(),
        start: int(lo),
        end: int(hi),
    };
    let value = e(
        Type::Tuple(vec![ck(), ck(), ck()]),
        ExprKind::Tuple(vec![p(0, ck()), lit(1.0), p(0, ck())]),
    );
    let target = Target::Tuple(vec![
        Target::Field {
            param: 1,
            domain: vec![range(0, 1)],
        },
        Target::Field {
            param: 2,
            domain: vec![range(1, 5)],
        },
        Target::Field {
            param: 3,
            domain: vec![range(0, 1)],
        },
    ]);
    let prog = program(
        vec![
            ("a", ck(), Role::In),
            ("o1", ck(), Role::Out),
            ("o2", ck(), Role::Out),
            ("o3", ck(), Role::Out),
        ],
        vec![ProgramCall { value, target }],
        vec![],
    );
    let lowered = lower(&prog).unwrap();
    assert_eq!(lowered.stages.len(), 2);
    assert_eq!(lowered.stages[0].outputs.len(), 2);
    assert_eq!(lowered.stages[1].outputs.len(), 1);
    // Dead nodes (the other group's values) are dropped: the literal and the two bounds remain.
    assert!(
        loads(&lowered.stages[1]).is_empty(),
        "{:#?}",
        lowered.stages[1]
    );
    assert_eq!(lowered.stages[1].nodes.len(), 3, "{:#?}", lowered.stages[1]);
}

#[test]
fn a_scan_read_shifted_is_rejected_as_needing_a_temporary() {
    let scalar = Type::Scalar(F);
    let scan = Operator {
        key: "s".into(),
        name: "s".into(),
        params: vec![
            Param {
                name: "c".into(),
                ty: scalar.clone(),
            },
            Param {
                name: "x".into(),
                ty: scalar.clone(),
            },
        ],
        ret: scalar.clone(),
        body: bin(BinaryOp::Add, p(0, scalar.clone()), p(1, scalar.clone())),
        kind: OperatorKind::Scan {
            axis: "K".into(),
            forward: true,
            init: lit(0.0),
        },
    };
    let value = kshift(call("s", vec![p(0, ck())], ck()), 1);
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(value, 1)],
        vec![scan.clone()],
    );
    let message = lower(&prog).unwrap_err().message;
    assert!(message.contains("temporary"), "{message}");
    // Unshifted, it lowers to a stage-level scan.
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(call("s", vec![p(0, ck())], ck()), 1)],
        vec![scan],
    );
    let stage = &lower(&prog).unwrap().stages[0];
    let scan = stage.scan.as_ref().expect("a scan stage");
    assert!(scan.forward);
    assert_eq!(scan.carry.len(), 1);
}

/// `Σ_{E2C or E2C1} v@offset` where `v` is a cell value: a gather (`Σ_C2E x@C2E`) or pointwise.
fn read_through(offset: &str, gather: bool) -> Program {
    let sparse_c = Type::field(&["Cell", "C2E", "K"], F);
    let cell_value = if gather {
        e(
            ck(),
            ExprKind::Reduce {
                op: ReduceOp::Sum,
                local: "C2E".into(),
                arg: Box::new(e(
                    sparse_c,
                    ExprKind::NeighborShift {
                        arg: Box::new(p(0, ek())),
                        offset: "C2E".into(),
                        slot: None,
                    },
                )),
            },
        )
    } else {
        bin(BinaryOp::Mul, p(1, ck()), p(1, ck()))
    };
    let value = e(
        ek(),
        ExprKind::Reduce {
            op: ReduceOp::Sum,
            local: offset.into(),
            arg: Box::new(e(
                Type::field(&["Edge", offset, "K"], F),
                ExprKind::NeighborShift {
                    arg: Box::new(cell_value),
                    offset: offset.into(),
                    slot: None,
                },
            )),
        },
    );
    program(
        vec![
            ("x", ek(), Role::In),
            ("c", ck(), Role::In),
            ("out", ek(), Role::Out),
        ],
        vec![write(value, 2)],
        vec![],
    )
}

#[test]
fn gathers_read_through_fan_out_shifts_become_temporaries() {
    let lowered = lower(&read_through("E2C", true)).unwrap();
    assert_eq!(lowered.temporaries.len(), 1);
    assert_eq!(
        lowered.temporaries[0].dims,
        vec!["Cell".to_string(), "K".to_string()]
    );
    assert_eq!(lowered.stages.len(), 2, "the temporary's stage runs first");
    let producer = &lowered.stages[0];
    assert_eq!(producer.outputs[0].target, Source::Temporary(0));
    // Over the cells the written edges (all of `out`) reach through E2C, not all cells.
    let reach = Bound::Reach {
        offset: "E2C".into(),
        rows_start: Box::new(Bound::FieldStart {
            param: 2,
            dim: "Edge".into(),
        }),
        rows_end: Box::new(Bound::FieldEnd {
            param: 2,
            dim: "Edge".into(),
        }),
    };
    assert_eq!(producer.domain[0].start, reach);
    assert_eq!(producer.domain[0].end, reach);
    assert!(lowered.stages[1].nodes.iter().any(|n| matches!(
        n,
        Node::Load {
            source: Source::Temporary(0),
            ..
        }
    )));
}

#[test]
fn pointwise_values_and_single_neighbour_reads_are_recomputed() {
    for prog in [read_through("E2C", false), read_through("E2C1", true)] {
        let lowered = lower(&prog).unwrap();
        assert!(lowered.temporaries.is_empty());
        assert_eq!(lowered.stages.len(), 1);
    }
}

/// `let v = Σ_C2E x@C2E` (a cell gather); `let w = v@E2C[0]`; `w + w@C2E[0]@E2C[0]`: `v` is read
/// through E2C at the edge itself and at an edge the edge's reach does not bound.
fn gather_read_at_two_points() -> Program {
    let sparse_c = Type::field(&["Cell", "C2E", "K"], F);
    let cell_gather = e(
        ck(),
        ExprKind::Reduce {
            op: ReduceOp::Sum,
            local: "C2E".into(),
            arg: Box::new(e(
                sparse_c,
                ExprKind::NeighborShift {
                    arg: Box::new(p(0, ek())),
                    offset: "C2E".into(),
                    slot: None,
                },
            )),
        },
    );
    let v = || e(ck(), ExprKind::Var(0));
    let shift = |arg: Expr, offset: &str, ty: Type| {
        e(
            ty,
            ExprKind::NeighborShift {
                arg: Box::new(arg),
                offset: offset.into(),
                slot: Some(0),
            },
        )
    };
    // One `v@E2C` expression, lowered at both points.
    let w = || e(ek(), ExprKind::Var(1));
    let at_other_edge = shift(shift(w(), "C2E", ck()), "E2C", ek());
    let value = e(
        ek(),
        ExprKind::Let {
            var: 0,
            value: Box::new(cell_gather),
            body: Box::new(e(
                ek(),
                ExprKind::Let {
                    var: 1,
                    value: Box::new(shift(v(), "E2C", ek())),
                    body: Box::new(bin(BinaryOp::Add, w(), at_other_edge)),
                },
            )),
        },
    );
    program(
        vec![("x", ek(), Role::In), ("out", ek(), Role::Out)],
        vec![write(value, 1)],
        vec![],
    )
}

#[test]
fn a_temporary_read_beyond_its_readers_reach_covers_its_whole_dimension() {
    let lowered = lower(&gather_read_at_two_points()).unwrap();
    let cell_temporary = lowered
        .stages
        .iter()
        .find(|s| s.domain[0].dim == "Cell")
        .expect("the cell gather is a temporary");
    assert_eq!(cell_temporary.outputs[0].target, Source::Temporary(0));
    let Bound::Node(start) = cell_temporary.domain[0].start else {
        panic!("a literal start, got {:?}", cell_temporary.domain[0].start);
    };
    assert!(matches!(
        cell_temporary.node(start),
        Node::Literal {
            value: crate::fieldview::Literal::Int(0),
            ..
        }
    ));
    assert_eq!(
        cell_temporary.domain[0].end,
        Bound::TargetSize {
            offset: "E2C".into()
        }
    );
}

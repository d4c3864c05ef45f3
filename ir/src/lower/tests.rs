//! Structure of lowered programs: inlining, shift push-down, slots, CSE, folding, stage split,
//! and the cases that would need a temporary.

use super::*;
use crate::build::{
    self, add, bundle, call, cartesian_shift, concat_where, field_operator, field_target, float,
    index_cmp, int, let_, literal, literal_domain, mul, neighbor_shift, offset, operator_param,
    param, positional_params, program_param, reduce, scan_operator, sub, tuple, tuple_get, var,
    whole_field, write,
};
use crate::fieldview::{Literal, Operator, ProgramCall, ReduceOp, Role};
use crate::stage::{Node, Slot, Step};
use crate::types::CmpOp;

const F: ScalarType = ScalarType::F64;

fn ck() -> Type {
    Type::field(&["Cell", "K"], F)
}
fn ek() -> Type {
    Type::field(&["Edge", "K"], F)
}
/// A program over cells and edges with two-, three- and one-neighbour offsets between them.
fn program(
    params: Vec<(&str, Type, Role)>,
    calls: Vec<ProgramCall>,
    ops: Vec<Operator>,
) -> Program {
    build::program(
        "prog",
        params
            .into_iter()
            .map(|(n, ty, role)| program_param(n, ty, role))
            .collect(),
        calls,
        bundle(
            ops,
            &["Cell", "Edge"],
            &["K"],
            &[
                offset("E2C", "Edge", "Cell", 2),
                offset("C2E", "Cell", "Edge", 3),
                offset("E2C1", "Edge", "Cell", 1),
            ],
        ),
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
    let sq = field_operator(
        "sq",
        positional_params([ck()]),
        mul(param(0, ck()), param(0, ck())),
    );
    let value = add(
        call("sq", vec![param(0, ck())], ck()),
        call("sq", vec![param(0, ck())], ck()),
    );
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(value, whole_field(1))],
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
    let g = field_operator(
        "g",
        positional_params([ck()]),
        add(param(0, ck()), cartesian_shift(param(0, ck()), "K", 1)),
    );
    let value = cartesian_shift(call("g", vec![param(0, ck())], ck()), "K", -1);
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(value, whole_field(1))],
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
    // `K - 1` then `K + 1`: the point itself.
    assert!(paths[1].steps.is_empty(), "{:?}", paths[1]);
}

#[test]
fn one_point_read_through_shifts_that_cancel_is_one_node() {
    // a + (a shifted by K + 1, then by K - 1) + (a shifted by K - 1, then by K + 2): `a` and
    // `a` at K + 1, one load each.
    let a = || param(0, ck());
    let value = add(
        add(a(), cartesian_shift(cartesian_shift(a(), "K", 1), "K", -1)),
        cartesian_shift(cartesian_shift(a(), "K", -1), "K", 2),
    );
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(value, whole_field(1))],
        vec![],
    );
    let stage = &lower(&prog).unwrap().stages[0];
    let paths = loads(stage);
    assert_eq!(paths.len(), 2, "{:#?}", stage.nodes);
    assert!(paths[0].steps.is_empty());
    assert_eq!(
        paths[1].steps,
        vec![Step::Cartesian {
            dim: "K".into(),
            offset: 1
        }]
    );
}

#[test]
fn concat_where_conditions_are_evaluated_at_the_shifted_point() {
    let cw = concat_where(
        index_cmp("K", CmpOp::Gt, int(0)),
        cartesian_shift(param(0, ck()), "K", -1),
        param(0, ck()),
        ck(),
    );
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(cartesian_shift(cw, "K", 2), whole_field(1))],
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
    let shifted = neighbor_shift(param(0, ck()), "E2C", None, sparse.clone());
    let value = reduce(ReduceOp::Sum, "E2C", mul(shifted, param(1, w.clone())));
    let prog = program(
        vec![
            ("f", ck(), Role::In),
            ("w", w, Role::In),
            ("out", ek(), Role::Out),
        ],
        vec![write(value, whole_field(2))],
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
fn a_sparse_output_is_stored_slot_by_slot_over_its_other_dimensions() {
    // (2 * f.at(E2C), f.at(E2C[1])) written to a sparse (Edge, E2C, K) and a dense output;
    // then the sparse one again with a domain naming its local dimension.
    let sparse = Type::field(&["Edge", "E2C", "K"], F);
    let gathered = mul(
        float(2.0),
        neighbor_shift(param(0, ck()), "E2C", None, sparse.clone()),
    );
    let second = neighbor_shift(param(0, ck()), "E2C", Some(1), ek());
    let value = Expr {
        ty: Type::Tuple(vec![sparse.clone(), ek()]),
        ..tuple(vec![gathered.clone(), second])
    };
    let params = || {
        vec![
            ("f", ck(), Role::In),
            ("out", sparse.clone(), Role::Out),
            ("dense", ek(), Role::Out),
        ]
    };
    let target = Target::Tuple(vec![whole_field(1), whole_field(2)]);
    let prog = program(params(), vec![write(value, target)], vec![]);
    let lowered = lower(&prog).unwrap();
    assert_eq!(lowered.stages.len(), 2, "{:#?}", lowered.stages);
    let (gather, dense) = (&lowered.stages[0], &lowered.stages[1]);
    // The stage runs over the output's other dimensions, the whole field along them.
    let dims: Vec<&str> = gather.domain.iter().map(|r| r.dim.as_str()).collect();
    assert_eq!(dims, ["Edge", "K"]);
    assert!(gather
        .domain
        .iter()
        .all(|r| r.start == Bound::OutputFull && r.end == Bound::OutputFull));
    // One output per slot of E2C, each storing 2 * f read through that slot.
    let slots: Vec<Option<u32>> = gather.outputs.iter().map(|o| o.local).collect();
    assert_eq!(slots, [Some(0), Some(1)]);
    for o in &gather.outputs {
        assert_eq!(o.target, Source::Param(1));
        let Node::Binary { rhs, .. } = gather.node(o.value) else {
            panic!("2 * f: {:#?}", gather.nodes)
        };
        let Node::Load { path, local, .. } = gather.node(*rhs) else {
            panic!("a load of f: {:#?}", gather.nodes)
        };
        let slot = Slot::Fixed(o.local.unwrap_or(u32::MAX));
        let through = Step::Neighbor {
            offset: "E2C".into(),
            slot,
        };
        assert_eq!(path.steps, vec![through]);
        assert_eq!(*local, None);
    }
    // The dense element is written by a stage of its own, without a slot; the sparse element
    // lowered beside it (at a placeholder slot) is left unused.
    assert_eq!(dense.outputs.len(), 1);
    assert_eq!(dense.outputs[0].local, None);
    assert_eq!(dense.outputs[0].target, Source::Param(2));
    assert_eq!(loads(dense).len(), 1, "{:#?}", dense.nodes);
    // A domain cannot restrict the local dimension (the macro refuses it too).
    let restricted = field_target(1, literal_domain(&[("E2C", 0, 1)]));
    let prog = program(params(), vec![write(gathered, restricted)], vec![]);
    let error = lower(&prog).expect_err("a range along E2C");
    assert!(
        error.message.contains("local dimension `E2C`"),
        "{}",
        error.message
    );
}

#[test]
fn literal_arithmetic_is_folded() {
    let value = mul(param(0, ck()), add(float(2.0), float(3.0)));
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(value, whole_field(1))],
        vec![],
    );
    let stage = &lower(&prog).unwrap().stages[0];
    assert_eq!(stage.nodes.len(), 3, "{:#?}", stage.nodes);
    assert!(stage.nodes.iter().any(|n| matches!(n,
        Node::Literal { value, .. } if *value == Literal::float(5.0))));
}

#[test]
fn tuple_targets_with_different_domains_become_separate_stages() {
    // Typed as the three fields it is written to: the literal broadcasts to its target.
    let value = Expr {
        ty: Type::Tuple(vec![ck(), ck(), ck()]),
        ..tuple(vec![param(0, ck()), float(1.0), param(0, ck())])
    };
    let target = Target::Tuple(vec![
        field_target(1, literal_domain(&[("K", 0, 1)])),
        field_target(2, literal_domain(&[("K", 1, 5)])),
        field_target(3, literal_domain(&[("K", 0, 1)])),
    ]);
    let prog = program(
        vec![
            ("a", ck(), Role::In),
            ("o1", ck(), Role::Out),
            ("o2", ck(), Role::Out),
            ("o3", ck(), Role::Out),
        ],
        vec![write(value, target)],
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

/// A scan's result read through a vertical shift is computed by a stage of its own over the
/// reading stage's domain into a temporary, which the reader reads through the shift; through a
/// neighbour shift, by a stage over the neighbours the reader reaches.
#[test]
fn a_scan_read_shifted_becomes_a_temporary_read_through_the_shift() {
    let scalar = Type::Scalar(F);
    let scan = scan_operator(
        "s",
        vec![
            operator_param("c", scalar.clone()),
            operator_param("x", scalar.clone()),
        ],
        add(param(0, scalar.clone()), param(1, scalar.clone())),
        "K",
        true,
        float(0.0),
    );
    let value = cartesian_shift(call("s", vec![param(0, ck())], ck()), "K", 1);
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(value, whole_field(1))],
        vec![scan.clone()],
    );
    let lowered = lower(&prog).unwrap();
    assert_eq!(lowered.temporaries.len(), 1);
    assert_eq!(lowered.stages.len(), 2);
    let producer = &lowered.stages[0];
    assert!(producer.scan.as_ref().is_some_and(|s| s.forward));
    assert_eq!(producer.outputs[0].target, Source::Temporary(0));
    let shifted = AccessPath::default().then(Step::Cartesian {
        dim: "K".into(),
        offset: 1,
    });
    assert!(lowered.stages[1].nodes.iter().any(|n| matches!(
        n,
        Node::Load { source: Source::Temporary(0), path, .. } if *path == shifted
    )));
    assert!(lowered.stages[1].scan.is_none());
    // Through a neighbour: a scan stage over the cells the edges reach, read through `E2C`.
    let value = neighbor_shift(call("s", vec![param(0, ck())], ck()), "E2C", Some(0), ek());
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ek(), Role::Out)],
        vec![write(value, whole_field(1))],
        vec![scan.clone()],
    );
    let lowered = lower(&prog).unwrap();
    assert_eq!(lowered.temporaries.len(), 1);
    assert_eq!(lowered.temporaries[0].dims, vec!["Cell", "K"]);
    let producer = &lowered.stages[0];
    assert!(producer.scan.as_ref().is_some_and(|s| s.forward));
    assert!(
        matches!(&producer.domain[0].start, Bound::Reach { offset, .. } if offset == "E2C"),
        "{:#?}",
        producer.domain
    );
    assert!(lowered.stages[1].nodes.iter().any(|n| matches!(
        n,
        Node::Load { source: Source::Temporary(0), path, .. }
            if matches!(path.steps.as_slice(), [Step::Neighbor { offset, .. }] if offset == "E2C")
    )));
    // Unshifted, it lowers to a stage-level scan.
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(call("s", vec![param(0, ck())], ck()), whole_field(1))],
        vec![scan],
    );
    let stage = &lower(&prog).unwrap().stages[0];
    let scan = stage.scan.as_ref().expect("a scan stage");
    assert!(scan.forward);
    assert_eq!(scan.carry.len(), 1);
}

/// A forward scan inside a field operator, read by two backward scans: each inlining of the
/// operator is another environment, and the scan's stage used to be built once per inlining
/// (ICON4Py's fused solver steps lowered to 205 stages, 91 MB of CPU code). The same stage is
/// now read again instead.
#[test]
fn a_scan_reached_through_two_inlinings_is_computed_once() {
    let scalar = Type::Scalar(F);
    let carry_and_value = || {
        vec![
            operator_param("c", scalar.clone()),
            operator_param("x", scalar.clone()),
        ]
    };
    let forward = scan_operator(
        "s",
        carry_and_value(),
        add(param(0, scalar.clone()), param(1, scalar.clone())),
        "K",
        true,
        float(0.0),
    );
    let backward = scan_operator(
        "b",
        carry_and_value(),
        add(
            mul(param(0, scalar.clone()), float(0.5)),
            param(1, scalar.clone()),
        ),
        "K",
        false,
        float(0.0),
    );
    let wrapper = field_operator(
        "g",
        vec![operator_param("x", ck())],
        call("s", vec![param(0, ck())], ck()),
    );
    let g_of_a = || call("g", vec![param(0, ck())], ck());
    let value = add(
        call("b", vec![g_of_a()], ck()),
        call("b", vec![mul(g_of_a(), float(2.0))], ck()),
    );
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(value, whole_field(1))],
        vec![forward, backward, wrapper],
    );
    let lowered = lower(&prog).unwrap();
    assert_eq!(lowered.stages.len(), 2, "{:#?}", lowered.stages);
    assert_eq!(lowered.temporaries.len(), 1);
    assert!(lowered.stages[0].scan.as_ref().is_some_and(|s| s.forward));
    assert!(lowered.stages[1].scan.as_ref().is_some_and(|s| !s.forward));
}

/// `Σ_C2E x@C2E`: a cell value that gathers from edges.
fn cell_gather() -> Expr {
    let sparse_c = Type::field(&["Cell", "C2E", "K"], F);
    reduce(
        ReduceOp::Sum,
        "C2E",
        neighbor_shift(param(0, ek()), "C2E", None, sparse_c),
    )
}

/// `Σ_{E2C or E2C1} v@offset` where `v` is a cell value: a gather (`Σ_C2E x@C2E`) or pointwise.
fn read_through(offset: &str, gather: bool) -> Program {
    let cell_value = if gather {
        cell_gather()
    } else {
        mul(param(1, ck()), param(1, ck()))
    };
    let value = reduce(
        ReduceOp::Sum,
        offset,
        neighbor_shift(
            cell_value,
            offset,
            None,
            Type::field(&["Edge", offset, "K"], F),
        ),
    );
    program(
        vec![
            ("x", ek(), Role::In),
            ("c", ck(), Role::In),
            ("out", ek(), Role::Out),
        ],
        vec![write(value, whole_field(2))],
        vec![],
    )
}

/// The temporary and its mask (see `Temporary`): the producer writes the value and where it
/// is undefined, with its reads guarded, and the reader reads the value.
fn assert_masked_temporary(lowered: &StageProgram) {
    assert_eq!(lowered.temporaries.len(), 2, "a value and its mask");
    let cell_k = vec!["Cell".to_string(), "K".to_string()];
    assert_eq!(lowered.temporaries[0].dims, cell_k);
    assert_eq!(lowered.temporaries[0].mask, Some(1));
    assert_eq!(lowered.temporaries[1].dims, cell_k);
    assert_eq!(lowered.temporaries[1].dtype, ScalarType::Bool);
    assert_eq!(lowered.stages.len(), 2, "the temporary's stage runs first");
    let producer = &lowered.stages[0];
    let targets: Vec<Source> = producer.outputs.iter().map(|o| o.target).collect();
    assert_eq!(targets, [Source::Temporary(0), Source::Temporary(1)]);
    let flag = producer.node(producer.outputs[1].value);
    assert_eq!(
        flag,
        &Node::Undefined {
            value: producer.outputs[0].value
        }
    );
    assert!(
        producer
            .nodes
            .iter()
            .all(|n| !matches!(n, Node::Load { guarded: false, .. })),
        "the producer's reads are guarded"
    );
    assert!(lowered.stages[1].nodes.iter().any(|n| matches!(
        n,
        Node::Load {
            source: Source::Temporary(0),
            ..
        }
    )));
}

#[test]
fn gathers_read_through_fan_out_shifts_become_temporaries() {
    let lowered = lower(&read_through("E2C", true)).unwrap();
    assert_masked_temporary(&lowered);
    let producer = &lowered.stages[0];
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

/// The same gather read in a `concat_where` branch: a temporary too, since its mask keeps the
/// points no reader takes from being errors (it used to be recomputed at every neighbour).
#[test]
fn gathers_read_in_a_branch_become_temporaries_with_a_mask() {
    let sum_over_e2c = reduce(
        ReduceOp::Sum,
        "E2C",
        neighbor_shift(
            cell_gather(),
            "E2C",
            None,
            Type::field(&["Edge", "E2C", "K"], F),
        ),
    );
    let value = concat_where(
        index_cmp("K", CmpOp::Gt, literal(Literal::Int(0), ScalarType::I32)),
        sum_over_e2c,
        param(0, ek()),
        ek(),
    );
    let prog = program(
        vec![
            ("x", ek(), Role::In),
            ("c", ck(), Role::In),
            ("out", ek(), Role::Out),
        ],
        vec![write(value, whole_field(2))],
        vec![],
    );
    assert_masked_temporary(&lower(&prog).unwrap());
}

#[test]
fn pointwise_values_and_single_neighbour_reads_are_recomputed() {
    for prog in [read_through("E2C", false), read_through("E2C1", true)] {
        let lowered = lower(&prog).unwrap();
        assert!(lowered.temporaries.is_empty());
        assert_eq!(lowered.stages.len(), 1);
    }
}

/// `Σ_C2E (c@E2C[1] - c@E2C[0])@C2E`: an edge difference of a cell field (two neighbour reads,
/// ICON's ∇θ at edges) read through C2E is recomputed at each edge of the cell rather than
/// written to an edge temporary and read back (docs/performance.md measures the difference);
/// a reduction read the same way is a temporary (`gathers_read_through_fan_out_shifts_...`).
#[test]
fn an_edge_difference_read_through_a_fan_out_shift_is_recomputed() {
    let difference = sub(
        neighbor_shift(param(1, ck()), "E2C", Some(1), ek()),
        neighbor_shift(param(1, ck()), "E2C", Some(0), ek()),
    );
    let value = reduce(
        ReduceOp::Sum,
        "C2E",
        neighbor_shift(
            difference,
            "C2E",
            None,
            Type::field(&["Cell", "C2E", "K"], F),
        ),
    );
    let prog = program(
        vec![
            ("x", ek(), Role::In),
            ("c", ck(), Role::In),
            ("out", ck(), Role::Out),
        ],
        vec![write(value, whole_field(2))],
        vec![],
    );
    let lowered = lower(&prog).unwrap();
    assert!(lowered.temporaries.is_empty());
    assert_eq!(lowered.stages.len(), 1);
    // c read at both cells of the reduction's edge: two loads, each through C2E and E2C.
    let loads = loads(&lowered.stages[0]);
    assert_eq!(loads.len(), 2);
    assert!(loads.iter().all(|path| path.steps.len() == 2), "{loads:?}");
}

/// `let v = Σ_C2E x@C2E` (a cell gather); `let w = v@E2C[0]`; `w + w@C2E[0]@E2C[0]`: `v` is read
/// through E2C at the edge itself and at an edge the edge's reach does not bound.
fn gather_read_at_two_points() -> Program {
    let v = || var(0, ck());
    let shift = |arg: Expr, offset: &str, ty: Type| neighbor_shift(arg, offset, Some(0), ty);
    // One `v@E2C` expression, lowered at both points.
    let w = || var(1, ek());
    let at_other_edge = shift(shift(w(), "C2E", ck()), "E2C", ek());
    let value = let_(
        0,
        cell_gather(),
        let_(1, shift(v(), "E2C", ek()), add(w(), at_other_edge)),
    );
    program(
        vec![("x", ek(), Role::In), ("out", ek(), Role::Out)],
        vec![write(value, whole_field(1))],
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

/// A call whose outputs have different domains lowers each domain on its own, and each
/// lowering walks the whole call value: the temporaries of every output were built once per
/// domain, and a domain whose own output reads none of them still built them (ICON4Py's
/// `compute_rho_theta_pgrad_and_update_vn`: 21 stages, 9 writing temporaries nothing read).
/// Each domain that reads the gather has its stage (they cover different levels); the output
/// that reads no temporary has none.
#[test]
fn the_outputs_of_several_domains_share_their_temporaries_and_build_no_unread_one() {
    let sparse_e = Type::field(&["Edge", "E2C", "K"], F);
    let edge_sum = || {
        reduce(
            ReduceOp::Sum,
            "E2C",
            neighbor_shift(cell_gather(), "E2C", None, sparse_e.clone()),
        )
    };
    let value = Expr {
        ty: Type::Tuple(vec![ek(), ek(), ek()]),
        ..tuple(vec![
            edge_sum(),
            mul(edge_sum(), float(2.0)),
            param(0, ek()),
        ])
    };
    let target = Target::Tuple(vec![
        field_target(2, literal_domain(&[("K", 0, 2)])),
        field_target(3, literal_domain(&[("K", 2, 5)])),
        field_target(4, literal_domain(&[("K", 1, 5)])),
    ]);
    let prog = program(
        vec![
            ("x", ek(), Role::In),
            ("c", ck(), Role::In),
            ("o1", ek(), Role::Out),
            ("o2", ek(), Role::Out),
            ("o3", ek(), Role::Out),
        ],
        vec![write(value, target)],
        vec![],
    );
    let lowered = lower(&prog).unwrap();
    let temporaries: Vec<&Stage> = lowered
        .stages
        .iter()
        .filter(|s| {
            s.outputs
                .iter()
                .all(|o| matches!(o.target, Source::Temporary(_)))
        })
        .collect();
    assert_eq!(temporaries.len(), 2, "{:#?}", lowered.stages);
    assert_eq!(lowered.stages.len(), 5, "{:#?}", lowered.stages);
    assert_eq!(lowered.temporaries.len(), 4, "two gathers and their masks");
    assert_eq!(lowered.temporaries[0].mask, Some(1));
    assert_eq!(lowered.temporaries[2].mask, Some(3));
    let reads = |stage: &Stage| -> Vec<u32> {
        stage
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Load {
                    source: Source::Temporary(t),
                    ..
                } => Some(*t),
                _ => None,
            })
            .collect()
    };
    let own: Vec<Vec<u32>> = lowered.stages[2..].iter().map(reads).collect();
    assert_eq!(own, [vec![0], vec![2], vec![]], "{:#?}", lowered.stages);
}

/// A stage computing into temporaries what an earlier stage computes is dropped, its readers
/// reading the earlier stage's temporaries (and masks), and the temporaries left are
/// renumbered: the lowering of `read_through`, with its temporary's stage built twice, the
/// reader reading the second copy and another reader the first, prunes back to one stage
/// both readers read.
#[test]
fn a_stage_equal_to_an_earlier_one_is_read_from_the_earlier_one() {
    let lowered = lower(&read_through("E2C", true)).unwrap();
    assert_masked_temporary(&lowered);
    let mut doubled = lowered.clone();
    let mut copy = lowered.stages[0].clone();
    for output in &mut copy.outputs {
        if let Source::Temporary(t) = &mut output.target {
            *t += 2;
        }
    }
    doubled.temporaries.push(Temporary {
        mask: Some(3),
        ..lowered.temporaries[0].clone()
    });
    doubled.temporaries.push(lowered.temporaries[1].clone());
    for node in &mut doubled.stages[1].nodes {
        if let Node::Load {
            source: Source::Temporary(t),
            ..
        } = node
        {
            *t += 2;
        }
    }
    doubled.stages.insert(1, copy);
    doubled.stages.push(lowered.stages[1].clone());
    assert_eq!(doubled.stages.len(), 4);
    prune::prune(&mut doubled);
    let mut expected = lowered.clone();
    expected.stages.push(lowered.stages[1].clone());
    assert_eq!(doubled, expected);
}

/// A scan's result read at the stage's point in both branches of a `concat_where` and through
/// a vertical shift in one: the shifted read makes a stage of its own that stores the scan, and
/// the reader loads that temporary at its point too instead of carrying the scan again (once
/// per use, as it did), so it is a map.
#[test]
fn a_scan_read_shifted_and_at_the_point_is_carried_once() {
    let scalar = Type::Scalar(F);
    let scan = scan_operator(
        "s",
        vec![
            operator_param("c", scalar.clone()),
            operator_param("x", scalar.clone()),
        ],
        add(
            mul(param(0, scalar.clone()), float(0.5)),
            param(1, scalar.clone()),
        ),
        "K",
        false,
        float(0.0),
    );
    let y = || var(0, ck());
    let value = let_(
        0,
        call("s", vec![param(0, ck())], ck()),
        concat_where(
            index_cmp("K", CmpOp::Lt, int(8)),
            mul(y(), cartesian_shift(y(), "K", 1)),
            add(y(), float(1.0)),
            ck(),
        ),
    );
    let prog = program(
        vec![("a", ck(), Role::In), ("out", ck(), Role::Out)],
        vec![write(value, whole_field(1))],
        vec![scan],
    );
    let lowered = lower(&prog).unwrap();
    assert_eq!(lowered.stages.len(), 2, "{:#?}", lowered.stages);
    let producer = &lowered.stages[0];
    assert_eq!(producer.scan.as_ref().map(|s| s.carry.len()), Some(1));
    assert_eq!(producer.outputs[0].target, Source::Temporary(0));
    let reader = &lowered.stages[1];
    assert!(reader.scan.is_none(), "{reader:#?}");
    let paths: Vec<&AccessPath> = reader
        .nodes
        .iter()
        .filter_map(|n| match n {
            Node::Load {
                source: Source::Temporary(0),
                path,
                ..
            } => Some(path),
            _ => None,
        })
        .collect();
    assert!(paths.iter().any(|p| p.is_empty()), "{reader:#?}");
    assert!(paths.iter().any(|p| !p.is_empty()), "{reader:#?}");
}

/// `Σ_E2C v@E2C` of a value `v` of the cells.
fn edge_sum_of(cell_value: Expr) -> Expr {
    reduce(
        ReduceOp::Sum,
        "E2C",
        neighbor_shift(
            cell_value,
            "E2C",
            None,
            Type::field(&["Edge", "E2C", "K"], F),
        ),
    )
}

fn temporary_stages(lowered: &StageProgram) -> Vec<&Stage> {
    lowered
        .stages
        .iter()
        .filter(|s| {
            s.outputs
                .iter()
                .all(|o| matches!(o.target, Source::Temporary(_)))
        })
        .collect()
}

/// `let (a, g) = (c, Σ_C2E x@C2E)` read through `E2C`: `a` is a plain read of `c`, recomputed
/// at each neighbour; only the gather `g` is a temporary. Counting a tuple element's gathers
/// with the whole tuple's made `a` a temporary too: a copy of `c` written and read back
/// (ICON4Py's upwind ρ and θ_v at edges destructure such a tuple).
#[test]
fn a_plain_read_destructured_beside_a_gather_is_not_a_temporary() {
    let pair = tuple(vec![param(1, ck()), cell_gather()]);
    let pair_ty = pair.ty.clone();
    let value = let_(
        0,
        pair,
        add(
            edge_sum_of(tuple_get(var(0, pair_ty.clone()), 0)),
            edge_sum_of(tuple_get(var(0, pair_ty), 1)),
        ),
    );
    let prog = program(
        vec![
            ("x", ek(), Role::In),
            ("c", ck(), Role::In),
            ("out", ek(), Role::Out),
        ],
        vec![write(value, whole_field(2))],
        vec![],
    );
    let lowered = lower(&prog).unwrap();
    assert_masked_temporary(&lowered);
    let reader = &lowered.stages[1];
    assert!(reader.nodes.iter().any(|n| matches!(
        n,
        Node::Load {
            source: Source::Param(1),
            path,
            ..
        } if matches!(path.steps.as_slice(), [Step::Neighbor { .. }])
    )));
}

/// Two outputs over different edges reading the same gather through `E2C`: each domain's
/// lowering builds the gather's stage over the cells its edges reach. The values are the same,
/// so one stage over every cell serves both (it computed them twice, reading their inputs
/// twice).
#[test]
fn a_temporary_built_for_two_domains_is_computed_once_over_every_row() {
    let value = Expr {
        ty: Type::Tuple(vec![ek(), ek()]),
        ..tuple(vec![
            edge_sum_of(cell_gather()),
            mul(edge_sum_of(cell_gather()), float(2.0)),
        ])
    };
    let target = Target::Tuple(vec![
        field_target(2, literal_domain(&[("Edge", 0, 3), ("K", 0, 4)])),
        field_target(3, literal_domain(&[("Edge", 2, 6), ("K", 0, 4)])),
    ]);
    let prog = program(
        vec![
            ("x", ek(), Role::In),
            ("c", ck(), Role::In),
            ("o1", ek(), Role::Out),
            ("o2", ek(), Role::Out),
        ],
        vec![write(value, target)],
        vec![],
    );
    let lowered = lower(&prog).unwrap();
    let temporaries = temporary_stages(&lowered);
    assert_eq!(temporaries.len(), 1, "{:#?}", lowered.stages);
    assert_eq!(lowered.stages.len(), 3, "{:#?}", lowered.stages);
    assert_eq!(lowered.temporaries.len(), 2, "the gather and its mask");
    let rows = &temporaries[0].domain[0];
    assert!(
        matches!(&rows.end, Bound::TargetSize { offset } if offset == "E2C"),
        "{rows:?}"
    );
    assert!(matches!(
        rows.start,
        Bound::Node(n) if temporaries[0].nodes[n as usize] == Node::Literal { value: Literal::Int(0), dtype: ScalarType::I64 }
    ));
}

/// Two gathers of the cells (of `x` and of `2x`) read through `E2C` by one output: two
/// temporaries over the same cells and levels, which one stage computes in one pass (the
/// Green-Gauss gradients of ICON4Py's ρ and θ_v were four passes over the cells).
#[test]
fn temporaries_over_the_same_domain_are_computed_in_one_stage() {
    let sparse_c = Type::field(&["Cell", "C2E", "K"], F);
    let doubled_gather = reduce(
        ReduceOp::Sum,
        "C2E",
        neighbor_shift(mul(param(0, ek()), float(2.0)), "C2E", None, sparse_c),
    );
    let value = add(edge_sum_of(cell_gather()), edge_sum_of(doubled_gather));
    let prog = program(
        vec![
            ("x", ek(), Role::In),
            ("c", ck(), Role::In),
            ("out", ek(), Role::Out),
        ],
        vec![write(value, whole_field(2))],
        vec![],
    );
    let lowered = lower(&prog).unwrap();
    assert_eq!(lowered.stages.len(), 2, "{:#?}", lowered.stages);
    assert_eq!(lowered.temporaries.len(), 4, "two gathers and their masks");
    let targets: Vec<Source> = lowered.stages[0].outputs.iter().map(|o| o.target).collect();
    assert_eq!(
        targets,
        (0..4).map(Source::Temporary).collect::<Vec<_>>(),
        "{:#?}",
        lowered.stages
    );
    // One read of the table row's `x` per slot for both sums.
    let reads_of_x = lowered.stages[0]
        .nodes
        .iter()
        .filter(|n| {
            matches!(
                n,
                Node::Load {
                    source: Source::Param(0),
                    ..
                }
            )
        })
        .count();
    assert_eq!(reads_of_x, 1, "{:#?}", lowered.stages[0]);
}

/// An output using a value an earlier output of the call stores gets a stage per case: one
/// loading the stored value, over its domain where the earlier output's covers it (an empty
/// domain elsewhere), and one computing it again, over its domain where it does not.
#[test]
fn a_value_an_earlier_output_stores_is_loaded_where_its_domain_covers() {
    let rows = |s: u32| {
        let i = Type::Scalar(ScalarType::I32);
        vec![
            crate::build::range("Cell", param(s, i.clone()), param(s + 1, i)),
            crate::build::range("K", int(0), int(4)),
        ]
    };
    let a = || param(0, ck());
    let stored = mul(
        add(cartesian_shift(a(), "K", 1), a()),
        cartesian_shift(a(), "K", 2),
    );
    let value = tuple(vec![stored.clone(), mul(stored, param(1, ck()))]);
    let target = Target::Tuple(vec![field_target(2, rows(4)), field_target(3, rows(6))]);
    let i = Type::Scalar(ScalarType::I32);
    let prog = program(
        vec![
            ("a", ck(), Role::In),
            ("b", ck(), Role::In),
            ("o1", ck(), Role::Out),
            ("o2", ck(), Role::Out),
            ("s1", i.clone(), Role::In),
            ("e1", i.clone(), Role::In),
            ("s2", i.clone(), Role::In),
            ("e2", i, Role::In),
        ],
        vec![write(value, target)],
        vec![],
    );
    let lowered = lower(&prog).unwrap();
    assert_eq!(lowered.stages.len(), 3, "{:#?}", lowered.stages);
    let reads_o1 = |s: &Stage| {
        s.nodes.iter().any(
            |n| matches!(n, Node::Load { source: Source::Param(2), path, .. } if path.is_empty()),
        )
    };
    let shifted_reads = |s: &Stage| loads(s).iter().filter(|p| !p.is_empty()).count();
    let (loading, computing) = (&lowered.stages[1], &lowered.stages[2]);
    assert!(reads_o1(loading), "{loading:#?}");
    assert_eq!(shifted_reads(loading), 0, "{loading:#?}");
    assert!(!reads_o1(computing), "{computing:#?}");
    assert_eq!(shifted_reads(computing), 2, "{computing:#?}");
    // Each runs where the other does not: its rows end where they start unless it is its case.
    for s in [loading, computing] {
        let Bound::Node(end) = s.domain[0].end else {
            panic!("{s:#?}")
        };
        assert!(matches!(s.node(end), Node::Select { .. }), "{s:#?}");
    }
}

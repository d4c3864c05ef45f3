//! Which values a scan carries, and the two copies of its stage.

use super::*;
use crate::build::{
    self, add, bundle, call, cartesian_shift, float, math, mul, operator_param, param,
    program_param, scan_operator, whole_field, write,
};
use crate::fieldview::{MathFun, Role};
use crate::lower::lower;
use crate::types::Type;

const F: ScalarType = ScalarType::F64;

fn ck() -> Type {
    Type::field(&["Cell", "K"], F)
}

/// `out = s(t, t.at(K + behind))` with `t = sqrt(a * b)` and the scan `s(c, now, other) = 0.5 *
/// c + now * other`, forward or backward; with `plain`, `t = a`.
fn scan_of(t_shift: i64, forward: bool, plain: bool) -> Stage {
    let scalar = Type::Scalar(F);
    let s = scan_operator(
        "s",
        vec![
            operator_param("c", scalar.clone()),
            operator_param("now", scalar.clone()),
            operator_param("other", scalar.clone()),
        ],
        add(
            mul(float(0.5), param(0, scalar.clone())),
            mul(param(1, scalar.clone()), param(2, scalar.clone())),
        ),
        "K",
        forward,
        float(0.0),
    );
    let t = || {
        if plain {
            param(0, ck())
        } else {
            math(
                MathFun::Sqrt,
                vec![mul(param(0, ck()), param(1, ck()))],
                ck(),
            )
        }
    };
    let value = call("s", vec![t(), cartesian_shift(t(), "K", t_shift)], ck());
    let program = build::program(
        "prog",
        vec![
            program_param("a", ck(), Role::In),
            program_param("b", ck(), Role::In),
            program_param("out", ck(), Role::Out),
        ],
        vec![write(value, whole_field(2))],
        bundle(vec![s], &["Cell"], &["K"], &[]),
    );
    lower(&program).expect("lowers").stages.remove(0)
}

/// The node computing `sqrt(a * b)` at `K + shift`.
fn sqrt_at(stage: &Stage, shift: i64) -> NodeId {
    let at = AccessPath::default().then(Step::Cartesian {
        dim: "K".into(),
        offset: shift,
    });
    stage
        .nodes
        .iter()
        .position(|n| match n {
            Node::Math { args, .. } => match stage.node(args[0]) {
                Node::Binary { lhs, .. } => {
                    matches!(stage.node(*lhs), Node::Load { path, .. } if *path == at)
                }
                _ => false,
            },
            _ => false,
        })
        .expect("the square root at the shift") as NodeId
}

#[test]
fn a_value_at_the_level_before_is_carried_from_it() {
    // (direction, the other read's shift): the value at the level before is the other read
    // (`K - 1` forward, `K + 1` backward) or the read at the point itself (the other read one
    // level ahead).
    for (forward, shift) in [(true, -1), (false, 1), (true, 1), (false, -1)] {
        let stage = scan_of(shift, forward, false);
        let split = carried_shifts(&stage, |_| true).expect("a value to carry");
        let behind = if forward { -1 } else { 1 };
        let (before, from) = if shift == behind {
            (sqrt_at(&stage, shift), sqrt_at(&stage, 0))
        } else {
            (sqrt_at(&stage, 0), sqrt_at(&stage, shift))
        };
        // The first level computes both and passes the one a level ahead on.
        assert_eq!(split.first.nodes[..stage.nodes.len()], stage.nodes[..]);
        let carry = &split.first.scan.as_ref().expect("a scan").carry;
        assert_eq!(carry.len(), 2);
        assert_eq!(carry[1].next, from);
        assert_eq!(carry[1].active, None);
        // The others take the value before from the carry, and read nothing for it.
        assert_eq!(
            split.rest.nodes[before as usize],
            Node::Carry { index: 1, dtype: F }
        );
        assert_eq!(split.rest.scan, split.first.scan);
        let Node::Math { args, .. } = &stage.nodes[before as usize] else {
            unreachable!("a square root");
        };
        assert!(!split.rest_needs[args[0] as usize]);
        assert!(split.rest_needs[from as usize]);
    }
}

#[test]
fn values_read_as_they_are_or_the_same_at_every_level_are_not_carried() {
    // A value read (not computed) at the level before: as cheap to read again.
    assert!(carried_shifts(&scan_of(-1, true, true), |_| true).is_none());
    // A value the same at every level (the caller says so) is computed once a column anyway.
    assert!(carried_shifts(&scan_of(-1, true, false), |_| false).is_none());
}

//! Reading back what an earlier output of the call stored, instead of computing it again.
//!
//! Each output domain of a call is lowered on its own, walking the whole call value, so a
//! later group that uses an element an earlier group writes computes it again (ICON4Py's
//! edge diagnostics: the vn update recomputes θ_v at the edge by the Miura scheme, which the
//! ρ/θ_v group has just stored). Where the earlier output's domain covers the group's, the
//! group may load the stored value instead: the same value at the same point, since the
//! earlier stage computed it from the fields as they were before the call (an earlier group
//! never writes what the call reads; written fields read later are copied first). Whether it
//! covers is known at call time only, so the group gets one stage per subset of the elements
//! it reads back, each running only where exactly that subset covers (the others' domains are
//! empty): the stage that recomputes everything stays for calls whose domains do not nest.

use std::collections::HashMap;
use std::rc::Rc;

use super::builder::{Interner, StageBuilder};
use super::{field_dims, Env, LowerError, Lowering, TargetLeaf, Value};
use crate::fieldview::{BinaryOp, Literal, UnaryOp};
use crate::stage::{AccessPath, Bound, Node, NodeId, Output, Source, Stage, StageRange};
use crate::types::{CmpOp, ScalarType, Type};

/// The most earlier outputs one group reads back: `n` of them make `2^n` stages.
const MAX_READ_BACKS: usize = 2;

/// An element is read back where loading it drops at least this much of the group's work
/// (per cent, [`work`]).
const SAVES_PERCENT: u64 = 20;

/// An element of the call value that an earlier group stores.
pub(super) struct ReadBack {
    /// The group's nodes computing the element at the point (the same computation, its loads
    /// guarded or not: in a branch the group reads guarded).
    values: Vec<NodeId>,
    /// The load of the earlier output at the point.
    load: Node,
    /// Whether the earlier output's domain covers the group's (a bool of the call's scalars).
    covers: NodeId,
}

impl<'p> Lowering<'p> {
    /// The elements of `value` (the call value this group lowered) that earlier groups store
    /// over the group's own dimensions (those of its output `field`), each computed by more
    /// than a load.
    pub(super) fn read_backs(
        &mut self,
        value: &Value,
        field: &[String],
        domain: &[StageRange],
        earlier: &[TargetLeaf<'p>],
        env: &Rc<Env<'p>>,
    ) -> Result<Vec<ReadBack>, LowerError> {
        let mut found = Vec::new();
        if self.b.has_scan() {
            return Ok(found);
        }
        'targets: for (index, param, ranges) in earlier {
            if field_dims(self.program, *param)? != field {
                continue;
            }
            let Some(node) = element(value, index) else {
                continue;
            };
            if matches!(
                self.b.node(node),
                Node::Load { .. } | Node::Literal { .. } | Node::Scalar { .. } | Node::Index { .. }
            ) {
                continue;
            }
            let dtype = match self.program.params.get(*param as usize).map(|p| &p.ty) {
                Some(Type::Field { dtype, .. }) if *dtype == self.b.dtype(node) => *dtype,
                _ => continue,
            };
            let mut covers = None;
            for r in domain {
                let Some(range) = ranges.iter().find(|x| x.dim == r.dim) else {
                    continue 'targets;
                };
                let (Bound::Node(start), Bound::Node(end)) = (&r.start, &r.end) else {
                    continue 'targets;
                };
                let (start, end) = (*start, *end);
                let theirs_start = self.lower_index_scalar(&range.start, env)?;
                let theirs_end = self.lower_index_scalar(&range.end, env)?;
                let from = self.b.add(Node::Compare {
                    op: CmpOp::Le,
                    lhs: theirs_start,
                    rhs: start,
                });
                let to = self.b.add(Node::Compare {
                    op: CmpOp::Le,
                    lhs: end,
                    rhs: theirs_end,
                });
                let both = and(&mut self.b, from, to);
                covers = Some(match covers {
                    None => both,
                    Some(c) => and(&mut self.b, c, both),
                });
            }
            let Some(covers) = covers else {
                continue;
            };
            if matches!(
                self.b.node(covers),
                Node::Literal {
                    value: Literal::Bool(false),
                    ..
                }
            ) {
                continue;
            }
            found.push(ReadBack {
                values: same_computations(&self.b, node),
                load: Node::Load {
                    source: Source::Param(*param),
                    path: AccessPath::default(),
                    local: None,
                    dtype,
                    guarded: false,
                },
                covers,
            });
        }
        Ok(found)
    }
}

/// The group's stages: without read-backs its one stage; with them one per subset of them,
/// that subset's elements loaded, each over the group's domain where exactly that subset's
/// outputs cover it and over an empty one elsewhere (so one of them runs).
pub(super) fn variants(
    mut b: StageBuilder,
    domain: Vec<StageRange>,
    outputs: Vec<Output>,
    read_backs: &[ReadBack],
) -> Vec<Stage> {
    // Only what saves work: an element the group's stores do not use, or one little of whose
    // computation is the group's alone, is not worth another stage.
    let whole = work(&StageBuilder::substitute(
        b.snapshot(domain.clone(), outputs.clone()),
        &HashMap::new(),
    ));
    let mut saving: Vec<(u64, &ReadBack)> = read_backs
        .iter()
        .map(|r| {
            let loaded = StageBuilder::substitute(
                b.snapshot(domain.clone(), outputs.clone()),
                &r.values.iter().map(|&v| (v, r.load.clone())).collect(),
            );
            (whole - work(&loaded).min(whole), r)
        })
        .filter(|(saved, _)| saved * 100 >= whole * SAVES_PERCENT)
        .collect();
    // The most saving first, in a stable order.
    saving.sort_by_key(|s| std::cmp::Reverse(s.0));
    let read_backs: Vec<&ReadBack> = saving
        .into_iter()
        .take(MAX_READ_BACKS)
        .map(|(_, r)| r)
        .collect();
    let (Some(first), false) = (domain.first(), read_backs.is_empty()) else {
        return vec![b.finish(domain, outputs)];
    };
    let (Bound::Node(start), Bound::Node(end)) = (first.start.clone(), first.end.clone()) else {
        return vec![b.finish(domain, outputs)];
    };
    let not_covers: Vec<NodeId> = read_backs
        .iter()
        .map(|r| {
            b.add(Node::Unary {
                op: UnaryOp::Not,
                arg: r.covers,
                dtype: ScalarType::Bool,
            })
        })
        .collect();
    // Subsets from all read back to none: the common case (every output covering) first.
    let mut subsets = Vec::new();
    for subset in (0..1u32 << read_backs.len()).rev() {
        let holds = |i: usize| subset & (1 << i) != 0;
        let mut active: Option<NodeId> = None;
        for (i, r) in read_backs.iter().enumerate() {
            let c = if holds(i) { r.covers } else { not_covers[i] };
            active = Some(match active {
                None => c,
                Some(a) => and(&mut b, a, c),
            });
        }
        let Some(active) = active else { continue };
        if matches!(
            b.node(active),
            Node::Literal {
                value: Literal::Bool(false),
                ..
            }
        ) {
            continue;
        }
        let end = b.add(Node::Select {
            cond: active,
            if_true: end,
            if_false: start,
            dtype: ScalarType::I64,
        });
        let substitutes: HashMap<NodeId, Node> = read_backs
            .iter()
            .enumerate()
            .filter(|(i, _)| holds(*i))
            .flat_map(|(_, r)| r.values.iter().map(|&v| (v, r.load.clone())))
            .collect();
        subsets.push((end, substitutes));
    }
    subsets
        .into_iter()
        .map(|(end, substitutes)| {
            let mut own = domain.clone();
            own[0].end = Bound::Node(end);
            StageBuilder::substitute(b.snapshot(own, outputs.clone()), &substitutes)
        })
        .collect()
}

/// The nodes of `b` computing what `node` computes, whether their loads are guarded or not: a
/// guarded load reads what the unguarded one reads wherever the latter has a value, and the
/// element is read back only where its own stage computed it everywhere.
fn same_computations(b: &StageBuilder, node: NodeId) -> Vec<NodeId> {
    let unguarded: Vec<Node> = b
        .nodes()
        .iter()
        .map(|n| match n.clone() {
            Node::Load {
                source,
                path,
                local,
                dtype,
                ..
            } => Node::Load {
                source,
                path,
                local,
                dtype,
                guarded: false,
            },
            other => other,
        })
        .collect();
    let canon = Interner::default().ids(&unguarded, |c| c);
    let own = canon[node as usize];
    (0..canon.len() as NodeId)
        .filter(|&n| canon[n as usize] == own)
        .collect()
}

/// The element at tuple `index` of `value`, where it is one node.
fn element(value: &Value, index: &[u32]) -> Option<NodeId> {
    let mut v = value;
    for i in index {
        v = match v {
            Value::Tuple(items) => items.get(*i as usize)?,
            Value::Node(_) => return None,
        };
    }
    match v {
        Value::Node(n) => Some(*n),
        Value::Tuple(_) => None,
    }
}

fn and(b: &mut StageBuilder, lhs: NodeId, rhs: NodeId) -> NodeId {
    b.add(Node::Binary {
        op: BinaryOp::BitAnd,
        lhs,
        rhs,
        dtype: ScalarType::Bool,
    })
}

/// A rough measure of a stage's work at a point: a node is one, a load through a neighbour or
/// a dynamic shift (a gather) and a math function four.
fn work(stage: &Stage) -> u64 {
    stage
        .nodes
        .iter()
        .map(|n| match n {
            Node::Load { path, .. } if !path.steps.is_empty() => 4,
            Node::Math { .. } | Node::Reduce { .. } => 4,
            _ => 1,
        })
        .sum()
}

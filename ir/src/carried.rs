//! Values a scan's level computes that the level before it computed already.
//!
//! A scan's level `k` often reads its inputs at `k - 1` as well as at `k` (ICON4Py's forward
//! sweep of the vertically implicit solver computes the explicit terms, the divergence of the
//! fluxes and the solver's coefficients at both): a value at `k - 1` is then the value the
//! level before computed at its own point. Its loop can carry that value down the column
//! instead of computing it again (for a backward scan, the value at `k + 1`), which leaves a
//! level of the solver's sweep about half its work.
//!
//! The first level walked has no level before it, so it computes everything as the stage
//! says: [`carried_shifts`] gives the stage twice, once for the first level (the stage with
//! the carried values' components added, their next values set) and once for the levels
//! after it (the same, with each value taken from the level before replaced by its carry
//! component), with the node ids of both the same. Only the CPU loop nest runs a scan level by
//! level this way; the other emitters run the stage as lowered.

use std::collections::HashMap;

use crate::fieldview::Literal;
use crate::lower::Interner;
use crate::stage::{AccessPath, CarryComponent, Node, NodeId, Stage, Step};
use crate::types::ScalarType;

/// A scan stage split for [`carried_shifts`]: the first level's and the other levels'.
#[derive(Clone, Debug, PartialEq)]
pub struct CarriedShifts {
    /// The stage with one more carry component per carried value, whose next value is the
    /// value at the level's own point: what the first level runs.
    pub first: Stage,
    /// `first` with each value the level before computed replaced by a [`Node::Carry`] of its
    /// component: what every level after the first runs.
    pub rest: Stage,
    /// Per node of `rest`: whether the levels after the first compute it (what only the
    /// replaced values read is not).
    pub rest_needs: Vec<bool>,
}

/// `stage` split into its first level and the others, each value at the level before (in the
/// scan's direction) that the stage computes at its own point as well taken from a carry;
/// `None` where the stage is not a scan or has no such value. `varies` says which nodes
/// vary from level to level (a value that does not is computed once per column anyway).
pub fn carried_shifts(stage: &Stage, varies: impl Fn(NodeId) -> bool) -> Option<CarriedShifts> {
    let scan = stage.scan.as_ref()?;
    let axis = scan.axis.as_str();
    let behind: i64 = if scan.forward { -1 } else { 1 };
    let n = stage.nodes.len();
    // What may be carried: values that do not read the carry, outside reduction bodies (a
    // body's value is one per neighbour slot), that compute from what they read (a value
    // read, converted or negated is as cheap to read again as to carry: the forward sweep
    // alone, its inputs read at both levels, took 12 → 14 ms at R2B5 with them carried).
    let mut reads_carry = vec![false; n];
    let mut computes = vec![false; n];
    let mut read = vec![false; n];
    let mut in_body = vec![false; n];
    for (i, node) in stage.nodes.iter().enumerate() {
        let children = node.children();
        reads_carry[i] =
            matches!(node, Node::Carry { .. }) || children.iter().any(|&c| reads_carry[c as usize]);
        read[i] = match node {
            Node::Load { .. } => true,
            Node::Cast { arg, .. } | Node::Unary { arg, .. } => read[*arg as usize],
            _ => false,
        };
        computes[i] = !read[i]
            && children
                .iter()
                .any(|&c| read[c as usize] || computes[c as usize]);
        if let Node::Reduce { body, .. } = node {
            for &b in body {
                in_body[b as usize] = true;
            }
        }
    }
    let candidate = |i: usize| !reads_carry[i] && !in_body[i] && computes[i];
    // Each node as it reads at its own point, and as it would read a level behind.
    let mut interner = Interner::default();
    let here = interner.ids(&moved(&stage.nodes, axis, 0), |c| c);
    let there = interner.ids(&moved(&stage.nodes, axis, behind), |c| c);
    let mut at: HashMap<u32, usize> = HashMap::new();
    for (i, &id) in here.iter().enumerate() {
        at.entry(id).or_insert(i);
    }
    // `earlier[b] = a`: node `b` is node `a` of the level before.
    let mut earlier: HashMap<usize, usize> = HashMap::new();
    for a in (0..n).filter(|&a| candidate(a)) {
        if let Some(&b) = at.get(&there[a]) {
            if b != a && candidate(b) && varies(b as NodeId) {
                earlier.insert(b, a);
            }
        }
    }
    if earlier.is_empty() {
        return None;
    }
    // What the levels after the first compute: from the stored values, the carry and the
    // domain's bounds, stopping at the replaced values, whose own values then must be.
    let mut roots: Vec<usize> = stage.outputs.iter().map(|o| o.value as usize).collect();
    for c in &scan.carry {
        roots.extend([c.init as usize, c.next as usize]);
        roots.extend(c.active.map(|a| a as usize));
    }
    for r in &stage.domain {
        roots.extend(r.start.nodes().into_iter().map(|b| b as usize));
        roots.extend(r.end.nodes().into_iter().map(|b| b as usize));
    }
    let mut needs = vec![false; n];
    let mut carried: Vec<usize> = Vec::new();
    while let Some(i) = roots.pop() {
        if std::mem::replace(&mut needs[i], true) {
            continue;
        }
        match earlier.get(&i) {
            Some(&a) => {
                carried.push(i);
                roots.push(a);
            }
            None => roots.extend(stage.nodes[i].children().into_iter().map(|c| c as usize)),
        }
    }
    if carried.is_empty() {
        return None;
    }
    carried.sort_unstable();
    let mut first = stage.clone();
    let mut inits: HashMap<ScalarType, NodeId> = HashMap::new();
    let base = scan.carry.len() as u32;
    for &b in &carried {
        let dtype = stage.nodes[b].dtype();
        // Its value before the first level is never read (that level computes it).
        let init = *inits.entry(dtype).or_insert_with(|| {
            first.nodes.push(Node::Literal {
                value: zero(dtype),
                dtype,
            });
            (first.nodes.len() - 1) as NodeId
        });
        if let Some(s) = first.scan.as_mut() {
            s.carry.push(CarryComponent {
                init,
                next: earlier[&b] as NodeId,
                dtype,
                active: None,
            });
        }
    }
    let mut rest = first.clone();
    for (j, &b) in carried.iter().enumerate() {
        rest.nodes[b] = Node::Carry {
            index: base + j as u32,
            dtype: stage.nodes[b].dtype(),
        };
    }
    let mut rest_needs = needs;
    rest_needs.resize(rest.nodes.len(), true);
    Some(CarriedShifts {
        first,
        rest,
        rest_needs,
    })
}

fn zero(dtype: ScalarType) -> Literal {
    match dtype {
        ScalarType::Bool => Literal::Bool(false),
        t if t.is_int() => Literal::Int(0),
        _ => Literal::Float(0),
    }
}

/// `nodes` with every path moved `by` levels along `axis`, each path's shifts along `axis`
/// summed into one last step (a position is the sum of its shifts, and a shift along the
/// vertical commutes with the horizontal moves), so that one point read through differently
/// ordered shifts compares equal.
fn moved(nodes: &[Node], axis: &str, by: i64) -> Vec<Node> {
    let path = |p: &AccessPath| {
        let mut total = Some(by);
        let mut steps: Vec<Step> = Vec::with_capacity(p.steps.len() + 1);
        for s in &p.steps {
            match s {
                Step::Cartesian { dim, offset } if dim == axis => {
                    total = total.and_then(|t| t.checked_add(*offset));
                }
                other => steps.push(other.clone()),
            }
        }
        // Shifts past i64: the path as it is, moved, in a form no summed path has (two steps
        // along `axis`), so it equals nothing.
        let Some(total) = total else {
            let mut steps = p.steps.clone();
            steps.push(Step::Cartesian {
                dim: axis.to_string(),
                offset: by,
            });
            return AccessPath { steps };
        };
        if total != 0 {
            steps.push(Step::Cartesian {
                dim: axis.to_string(),
                offset: total,
            });
        }
        AccessPath { steps }
    };
    nodes.iter().map(|node| node.with_paths(path)).collect()
}

#[cfg(test)]
mod tests;

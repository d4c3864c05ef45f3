//! The arena of one stage under construction: hash-consing, constant folding, dead-node removal.

use std::collections::{BTreeSet, HashMap};

use crate::scalar::{self, ScalarValue};
use crate::stage::{
    AccessPath, Bound, CarryComponent, Node, NodeId, Output, Scan, Stage, StageRange, Step,
};
use crate::types::ScalarType;

#[derive(Default)]
pub(super) struct StageBuilder {
    nodes: Vec<Node>,
    /// `Debug` spelling of a node → its id (the spelling is canonical: ids, bits, names).
    index: HashMap<String, NodeId>,
    /// Reduction variables each node depends on.
    vars: Vec<BTreeSet<u32>>,
    scan: Option<Scan>,
}

impl StageBuilder {
    pub fn dtype(&self, n: NodeId) -> ScalarType {
        self.nodes[n as usize].dtype()
    }

    /// Adds `node` (folded when its operands are literals) unless an equal node exists.
    pub fn add(&mut self, node: Node) -> NodeId {
        let node = self.fold(node);
        let key = format!("{node:?}");
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let mut vars: BTreeSet<u32> = node.slot_vars().into_iter().collect();
        for c in node.children() {
            vars.extend(self.vars[c as usize].iter().copied());
        }
        if let Node::Reduce { var, .. } = &node {
            vars.remove(var);
        }
        let id = self.nodes.len() as NodeId;
        self.nodes.push(node);
        self.vars.push(vars);
        self.index.insert(key, id);
        id
    }

    /// The nodes reachable from `value` that depend on reduction variable `var`, in arena order.
    pub fn body_of(&self, value: NodeId, var: u32) -> Vec<NodeId> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![value];
        while let Some(n) = stack.pop() {
            if !self.vars[n as usize].contains(&var) && self.node_slot_var(n) != Some(var) {
                continue;
            }
            if seen.insert(n) {
                stack.extend(self.nodes[n as usize].children());
            }
        }
        seen.into_iter().collect()
    }

    fn node_slot_var(&self, n: NodeId) -> Option<u32> {
        self.nodes[n as usize].slot_vars().into_iter().next()
    }

    pub fn begin_scan(&mut self, axis: &str, forward: bool) -> Result<(), String> {
        match &self.scan {
            None => {
                self.scan = Some(Scan {
                    axis: axis.to_string(),
                    forward,
                    carry: Vec::new(),
                });
                Ok(())
            }
            Some(s) if s.axis == axis && s.forward == forward => Ok(()),
            Some(_) => Err(
                "two scans in conflicting directions in one stage need a temporary, which the fused backends do not build"
                    .into(),
            ),
        }
    }

    /// True when the stage already scans along another axis or direction.
    pub fn scan_conflicts(&self, axis: &str, forward: bool) -> bool {
        matches!(&self.scan, Some(s) if s.axis != axis || s.forward != forward)
    }

    /// Node `n` of the arena.
    pub fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n as usize]
    }

    /// The arena's nodes, children before parents.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The stage as built so far, unfinished (every node kept), for
    /// [`StageBuilder::substitute`] to finish.
    pub fn snapshot(&self, domain: Vec<StageRange>, outputs: Vec<Output>) -> Stage {
        Stage {
            domain,
            nodes: self.nodes.clone(),
            outputs,
            scan: self.scan.clone(),
        }
    }

    pub fn has_scan(&self) -> bool {
        self.scan.is_some()
    }

    /// Whether `value` depends on a load (of a field or a temporary), the only nodes whose
    /// value can be undefined.
    pub fn reads_fields(&self, value: NodeId) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![value];
        while let Some(n) = stack.pop() {
            let Some(node) = self.nodes.get(n as usize) else {
                continue;
            };
            if std::mem::replace(&mut seen[n as usize], true) {
                continue;
            }
            if matches!(node, Node::Load { .. }) {
                return true;
            }
            stack.extend(node.children());
        }
        false
    }

    pub fn carry_count(&self) -> u32 {
        self.scan.as_ref().map_or(0, |s| s.carry.len() as u32)
    }

    /// Reserves one carry component per `inits` entry and returns the index of the first. The
    /// indices are taken before the scan's body is lowered: a scan called in that body (a scan
    /// of a scan, in the same direction and stage) then takes the next ones instead of the same.
    pub fn reserve_carries(&mut self, inits: &[NodeId]) -> u32 {
        let dtypes: Vec<ScalarType> = inits.iter().map(|i| self.dtype(*i)).collect();
        match &mut self.scan {
            Some(scan) => {
                let first = scan.carry.len() as u32;
                for (init, dtype) in inits.iter().zip(dtypes) {
                    scan.carry.push(CarryComponent {
                        init: *init,
                        next: *init,
                        dtype,
                        active: None,
                    });
                }
                first
            }
            None => 0,
        }
    }

    /// Sets what the reserved carry component `index` becomes at the next level.
    pub fn set_carry(&mut self, index: u32, next: NodeId, active: Option<NodeId>) {
        if let Some(component) = self
            .scan
            .as_mut()
            .and_then(|s| s.carry.get_mut(index as usize))
        {
            component.next = next;
            component.active = active;
        }
    }

    /// The stage, with carries that hold the same values merged ([`Self::merge_equal_carries`]),
    /// and without the nodes and carries that no output, bound or live carry needs.
    pub fn finish(self, domain: Vec<StageRange>, outputs: Vec<Output>) -> Stage {
        let (this, domain, outputs) = self.merge_equal_carries(domain, outputs);
        this.finish_merged(domain, outputs)
    }

    /// `stage` with every use of node `n` of `substitutes` reading `substitutes[n]` instead (a
    /// node without operands: a load at the stage's point), then finished again: equal nodes
    /// made one, equal carries merged, what nothing needs dropped (the scan too, when no carry
    /// is read any more).
    pub fn substitute(stage: Stage, substitutes: &HashMap<NodeId, Node>) -> Stage {
        let mut nodes = stage.nodes;
        let mut by_id = HashMap::new();
        for (&n, node) in substitutes {
            if node.children().is_empty() {
                by_id.insert(n, nodes.len() as NodeId);
                nodes.push(node.clone());
            }
        }
        let carries = stage.scan.as_ref().map_or(0, |s| s.carry.len());
        let source = StageBuilder {
            nodes,
            scan: stage.scan,
            ..StageBuilder::default()
        };
        let identity: Vec<u32> = (0..carries as u32).collect();
        let all: Vec<usize> = (0..carries).collect();
        let (this, domain, outputs) =
            source.rebuild(&by_id, &identity, &all, stage.domain, stage.outputs);
        this.finish(domain, outputs)
    }

    /// One stage computing what `first` and `second` compute, over `first`'s domain (which
    /// must be `second`'s), storing both stages' outputs; equal nodes made one. Neither may
    /// scan.
    pub fn fuse(first: Stage, second: Stage) -> Stage {
        let shift: Vec<u32> = (0..second.nodes.len() as u32)
            .map(|n| n + first.nodes.len() as u32)
            .collect();
        let mut nodes = first.nodes;
        nodes.extend(second.nodes.into_iter().map(|n| remap(n, &shift)));
        let mut outputs = first.outputs;
        outputs.extend(second.outputs.into_iter().map(|o| Output {
            value: shift[o.value as usize],
            ..o
        }));
        let source = StageBuilder {
            nodes,
            ..StageBuilder::default()
        };
        let (this, domain, outputs) =
            source.rebuild(&HashMap::new(), &[], &[], first.domain, outputs);
        this.finish(domain, outputs)
    }

    /// Merges the carry components that hold the same value at every level. A scan's result
    /// used in several places of a stage (in branches, under different regions) is lowered once
    /// per use, each use with carry components of its own: ICON4Py's vertically implicit solver
    /// carried its back substitution 42 times over. Components are equal when their initial
    /// values are the same node, their activity conditions are, and their next values are the
    /// same expression once equal components are taken as one: the coarsest such partition
    /// (refined from "same initial value, condition and type" until it is stable) holds equal
    /// values at every level, by induction along the scan. Each class keeps its first component.
    fn merge_equal_carries(
        self,
        domain: Vec<StageRange>,
        outputs: Vec<Output>,
    ) -> (StageBuilder, Vec<StageRange>, Vec<Output>) {
        let Some(scan) = self.scan.as_ref().filter(|s| s.carry.len() > 1) else {
            return (self, domain, outputs);
        };
        let carry = &scan.carry;
        // Class of each component: numbered by first appearance of its key.
        fn classes<K: std::hash::Hash + Eq>(keys: impl Iterator<Item = K>) -> Vec<usize> {
            let mut seen = HashMap::new();
            keys.map(|k| {
                let n = seen.len();
                *seen.entry(k).or_insert(n)
            })
            .collect()
        }
        let mut class = classes(carry.iter().map(|c| (c.init, c.active, c.dtype)));
        loop {
            // Each node's canonical id with every component replaced by its class's first.
            let first: Vec<u32> = (0..carry.len())
                .map(|c| class.iter().position(|k| *k == class[c]).unwrap_or(c) as u32)
                .collect();
            let canon = Interner::default().ids(&self.nodes, |c| first[c as usize]);
            let refined = classes(carry.iter().enumerate().map(|(i, c)| {
                (
                    class[i],
                    canon[c.next as usize],
                    c.active.map(|a| canon[a as usize]),
                )
            }));
            let stable = refined.iter().max() == class.iter().max();
            class = refined;
            if stable {
                break;
            }
        }
        let kept: Vec<usize> = (0..carry.len())
            .filter(|&c| class.iter().position(|k| *k == class[c]) == Some(c))
            .collect();
        if kept.len() == carry.len() {
            return (self, domain, outputs);
        }
        // The new index of every component: its class's first one's position among those kept.
        let index_of: Vec<u32> = (0..carry.len())
            .map(|c| kept.iter().position(|&k| class[k] == class[c]).unwrap_or(0) as u32)
            .collect();
        self.rebuild(&HashMap::new(), &index_of, &kept, domain, outputs)
    }

    /// A new arena with this one's nodes replayed in order through [`Self::add`] (so nodes made
    /// equal become one): node `n` of `substitutes` replaced by `substitutes[n]` (a node without
    /// operands), every carry component `c` renamed `carry_index[c]`, and the components
    /// `kept` (in that order) kept.
    fn rebuild(
        self,
        substitutes: &HashMap<NodeId, NodeId>,
        carry_index: &[u32],
        kept: &[usize],
        domain: Vec<StageRange>,
        outputs: Vec<Output>,
    ) -> (StageBuilder, Vec<StageRange>, Vec<Output>) {
        let mut rebuilt = StageBuilder {
            scan: self.scan.as_ref().map(|s| Scan {
                carry: Vec::new(),
                ..s.clone()
            }),
            ..StageBuilder::default()
        };
        let mut map: Vec<u32> = Vec::with_capacity(self.nodes.len());
        for (i, node) in self.nodes.iter().enumerate() {
            let node = match substitutes.get(&(i as NodeId)) {
                Some(&s) if self.nodes[s as usize].children().is_empty() => {
                    self.nodes[s as usize].clone()
                }
                _ => node.clone(),
            };
            let mut node = remap(node, &map);
            match &mut node {
                Node::Carry { index, .. } => *index = carry_index[*index as usize],
                // Nodes made one may appear twice in a body.
                Node::Reduce { body, .. } => {
                    body.sort_unstable();
                    body.dedup();
                }
                _ => {}
            }
            map.push(rebuilt.add(node));
        }
        let m = |n: NodeId| map[n as usize];
        if let (Some(s), Some(old)) = (rebuilt.scan.as_mut(), self.scan.as_ref()) {
            s.carry = kept
                .iter()
                .map(|&k| {
                    let c = &old.carry[k];
                    CarryComponent {
                        init: m(c.init),
                        next: m(c.next),
                        dtype: c.dtype,
                        active: c.active.map(m),
                    }
                })
                .collect();
        }
        let (domain, outputs) = remap_domain_and_outputs(domain, outputs, &map);
        (rebuilt, domain, outputs)
    }

    fn finish_merged(self, domain: Vec<StageRange>, outputs: Vec<Output>) -> Stage {
        let mut live = vec![false; self.nodes.len()];
        let mut stack: Vec<NodeId> = outputs.iter().map(|o| o.value).collect();
        for r in &domain {
            for b in [&r.start, &r.end] {
                stack.extend(b.nodes());
            }
        }
        let mut scan_live = false;
        loop {
            while let Some(n) = stack.pop() {
                if std::mem::replace(&mut live[n as usize], true) {
                    continue;
                }
                if matches!(self.nodes[n as usize], Node::Carry { .. }) {
                    scan_live = true;
                }
                stack.extend(self.nodes[n as usize].children());
            }
            match &self.scan {
                Some(scan) if scan_live => {
                    for c in &scan.carry {
                        for n in [c.init, c.next].into_iter().chain(c.active) {
                            if !live[n as usize] {
                                stack.push(n);
                            }
                        }
                    }
                    if stack.is_empty() {
                        break;
                    }
                }
                _ => break,
            }
        }
        let mut map = vec![u32::MAX; self.nodes.len()];
        let mut nodes = Vec::new();
        for (i, node) in self.nodes.into_iter().enumerate() {
            if live[i] {
                map[i] = nodes.len() as NodeId;
                nodes.push(remap(node, &map));
            }
        }
        let m = |n: NodeId| map[n as usize];
        let (domain, outputs) = remap_domain_and_outputs(domain, outputs, &map);
        let scan = self.scan.filter(|_| scan_live).map(|s| Scan {
            carry: s
                .carry
                .into_iter()
                .map(|c| CarryComponent {
                    init: m(c.init),
                    next: m(c.next),
                    dtype: c.dtype,
                    active: c.active.map(m),
                })
                .collect(),
            ..s
        });
        Stage {
            domain,
            nodes,
            outputs,
            scan,
        }
    }

    /// The value of node `n` when it is a literal.
    fn constant(&self, n: NodeId) -> Option<ScalarValue> {
        match &self.nodes[n as usize] {
            Node::Literal { value, dtype } => Some(ScalarValue::from_literal(*value, *dtype)),
            _ => None,
        }
    }

    /// `node` computed now when its operands are literals, by the rules the backends follow at
    /// run time. What fails at run time (an integer division by zero) is left for the run
    /// time to report.
    fn fold(&self, node: Node) -> Node {
        let folded = match &node {
            Node::Unary { op, arg, .. } => {
                self.constant(*arg).and_then(|a| scalar::unary(*op, a).ok())
            }
            Node::Binary { op, lhs, rhs, .. } => self
                .constant(*lhs)
                .zip(self.constant(*rhs))
                .and_then(|(a, b)| scalar::binary(*op, a, b).ok()),
            Node::Compare { op, lhs, rhs } => self
                .constant(*lhs)
                .zip(self.constant(*rhs))
                .and_then(|(a, b)| scalar::compare(*op, a, b).ok()),
            Node::Cast { arg, to } => self.constant(*arg).map(|a| a.cast(*to)),
            Node::Select {
                cond,
                if_true,
                if_false,
                ..
            } => match self.constant(*cond) {
                Some(ScalarValue::Bool(c)) => {
                    return self.nodes[if c { *if_true } else { *if_false } as usize].clone()
                }
                _ => None,
            },
            _ => None,
        };
        match folded {
            // A node whose declared type disagrees with its operands' stays for the backends
            // to reject.
            Some(value) if value.dtype() == node.dtype() => Node::Literal {
                value: value.to_literal(),
                dtype: value.dtype(),
            },
            _ => node,
        }
    }
}

/// Ids of nodes, equal across every arena interned with one interner where the nodes compute
/// the same thing: a node's `Debug` spelling with its operands replaced by their ids.
#[derive(Default)]
pub(crate) struct Interner {
    ids: HashMap<String, u32>,
}

impl Interner {
    /// The id of each node of `nodes` (children before parents), carry component `c` read as
    /// component `carry(c)`.
    pub fn ids(&mut self, nodes: &[Node], carry: impl Fn(u32) -> u32) -> Vec<u32> {
        let mut canon: Vec<u32> = Vec::with_capacity(nodes.len());
        for node in nodes {
            let node = match remap(node.clone(), &canon) {
                Node::Carry { index, dtype } => Node::Carry {
                    index: carry(index),
                    dtype,
                },
                other => other,
            };
            let next = self.ids.len() as u32;
            canon.push(*self.ids.entry(format!("{node:?}")).or_insert(next));
        }
        canon
    }
}

/// A stage's domain bounds and stored values with every node renamed by `map`.
fn remap_domain_and_outputs(
    domain: Vec<StageRange>,
    outputs: Vec<Output>,
    map: &[u32],
) -> (Vec<StageRange>, Vec<Output>) {
    let domain = domain
        .into_iter()
        .map(|r| StageRange {
            dim: r.dim,
            start: remap_bound(r.start, map),
            end: remap_bound(r.end, map),
        })
        .collect();
    let outputs = outputs
        .into_iter()
        .map(|o| Output {
            value: map[o.value as usize],
            ..o
        })
        .collect();
    (domain, outputs)
}

pub(super) fn remap_bound(b: Bound, map: &[u32]) -> Bound {
    match b {
        Bound::Node(n) => Bound::Node(map[n as usize]),
        Bound::Reach {
            offset,
            rows_start,
            rows_end,
        } => Bound::Reach {
            offset,
            rows_start: Box::new(remap_bound(*rows_start, map)),
            rows_end: Box::new(remap_bound(*rows_end, map)),
        },
        other => other,
    }
}

fn remap_path(p: AccessPath, map: &[u32]) -> AccessPath {
    AccessPath {
        steps: p
            .steps
            .into_iter()
            .map(|s| match s {
                Step::Dynamic { dim, offset } => Step::Dynamic {
                    dim,
                    offset: map[offset as usize],
                },
                other => other,
            })
            .collect(),
    }
}

fn remap(node: Node, map: &[u32]) -> Node {
    let m = |n: NodeId| map[n as usize];
    match node {
        Node::Load {
            source,
            path,
            local,
            dtype,
            guarded,
        } => Node::Load {
            source,
            path: remap_path(path, map),
            local,
            dtype,
            guarded,
        },
        Node::Undefined { value } => Node::Undefined { value: m(value) },
        Node::Index { dim, path } => Node::Index {
            dim,
            path: remap_path(path, map),
        },
        Node::Unary { op, arg, dtype } => Node::Unary {
            op,
            arg: m(arg),
            dtype,
        },
        Node::Binary {
            op,
            lhs,
            rhs,
            dtype,
        } => Node::Binary {
            op,
            lhs: m(lhs),
            rhs: m(rhs),
            dtype,
        },
        Node::Compare { op, lhs, rhs } => Node::Compare {
            op,
            lhs: m(lhs),
            rhs: m(rhs),
        },
        Node::Math { fun, args, dtype } => Node::Math {
            fun,
            args: args.into_iter().map(m).collect(),
            dtype,
        },
        Node::Cast { arg, to } => Node::Cast { arg: m(arg), to },
        Node::Select {
            cond,
            if_true,
            if_false,
            dtype,
        } => Node::Select {
            cond: m(cond),
            if_true: m(if_true),
            if_false: m(if_false),
            dtype,
        },
        Node::Reduce {
            op,
            offset,
            center,
            var,
            body,
            value,
            dtype,
        } => Node::Reduce {
            op,
            offset,
            center: remap_path(center, map),
            var,
            body: body.into_iter().map(m).collect(),
            value: m(value),
            dtype,
        },
        other @ (Node::Scalar { .. } | Node::Literal { .. } | Node::Carry { .. }) => other,
    }
}

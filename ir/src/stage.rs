//! The fused stage IR: what [`crate::lower`] makes of a fieldview program and what the CPU and
//! CUDA emitters read.
//!
//! A [`StageProgram`] is an ordered list of [`Stage`]s. A stage is one loop nest over a domain
//! (its output field's dimensions), evaluating a pointwise expression DAG per point and storing
//! some of its nodes into outputs. The DAG lives in one arena per stage, in topological order
//! (children before parents), each distinct sub-expression once.
//!
//! Leaves read through an [`AccessPath`]: a sequence of [`Step`]s that move from the stage's
//! current point to the point read. A step along a Cartesian dimension adds a static or dynamic
//! offset; a [`Step::Neighbor`] replaces the index along the offset's `from` dimension by a
//! table entry of the offset's `to` dimension. A sparse field (one with a local dimension) is
//! additionally read at a [`Slot`], and written one slot per [`Output`].

use serde::{Deserialize, Serialize};

use crate::fieldview::{BinaryOp, Literal, MathFun, ReduceOp, UnaryOp};
use crate::types::{CmpOp, DimInfo, OffsetInfo, ScalarType};

/// Index of a node in its stage's arena.
pub type NodeId = u32;

/// A neighbour slot: fixed (`x[O(n)]`, `f.at(O[n])`) or the variable of an enclosing reduction.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// A fixed column of the table (`x[O(n)]`, `f.at(O[n])`).
    Fixed(u32),
    /// The slot variable of the [`Node::Reduce`] with this `var`.
    Var(u32),
}

/// One move of an access path, applied in order from the stage's point.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// `index(dim) += offset`.
    Cartesian {
        /// The dimension moved along.
        dim: String,
        /// The static shift (may be negative).
        offset: i64,
    },
    /// `index(dim) += value of node` (an integer node evaluated at the stage's point).
    Dynamic {
        /// The dimension moved along.
        dim: String,
        /// The integer node whose value is the shift.
        offset: NodeId,
    },
    /// `index(to) = table[index(from)][slot]`; the index along `from` is dropped.
    Neighbor {
        /// The offset whose connectivity table is followed.
        offset: String,
        /// The column of the table read.
        slot: Slot,
    },
}

/// Where a point is read from the stage's point.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct AccessPath {
    /// The steps, applied in order from the stage's point.
    pub steps: Vec<Step>,
}

impl AccessPath {
    /// The path as a vertical index sees it: neighbour steps move horizontally only, so they
    /// are dropped.
    pub fn without_neighbor_steps(&self) -> AccessPath {
        AccessPath {
            steps: self
                .steps
                .iter()
                .filter(|s| !matches!(s, Step::Neighbor { .. }))
                .cloned()
                .collect(),
        }
    }

    /// This path followed by one more `step`. A Cartesian step right after one along the same
    /// dimension joins it (`K - 1` then `K + 1` reads the point itself), so one point read
    /// through differently nested shifts is one path, and the lowering's hash-consing makes
    /// it one node: positions are sums of shifts, what lies between does not matter.
    pub fn then(&self, step: Step) -> AccessPath {
        let mut steps = self.steps.clone();
        match (steps.last_mut(), step) {
            (
                Some(Step::Cartesian { dim, offset }),
                Step::Cartesian {
                    dim: next,
                    offset: by,
                },
            ) if *dim == next => match offset.checked_add(by) {
                Some(0) => {
                    steps.pop();
                }
                Some(sum) => *offset = sum,
                None => steps.push(Step::Cartesian {
                    dim: next,
                    offset: by,
                }),
            },
            (_, Step::Cartesian { offset: 0, .. }) => {}
            (_, step) => steps.push(step),
        }
        AccessPath { steps }
    }
    /// Whether the path reads the stage's own point.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// A field that a stage reads or writes.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// Program parameter `n` (a field).
    Param(u32),
    /// Temporary `n` of the [`StageProgram`].
    Temporary(u32),
}

/// A node of a stage's expression DAG. Every node has one scalar dtype.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Node {
    /// The element of `source` at `path` (and, for a sparse field, at `local` slot).
    Load {
        /// The field read.
        source: Source,
        /// How to reach the point read from the stage's point.
        path: AccessPath,
        /// The slot of the local dimension, for a sparse field; `None` for a dense one.
        local: Option<Slot>,
        /// The field's element type.
        dtype: ScalarType,
        /// True when the load sits in a `concat_where` or `if`/`else` branch: it is only
        /// meaningful where the branch is taken, so emitters clamp its position (and read a
        /// valid point for a -1 neighbour) instead of reporting an error.
        guarded: bool,
    },
    /// Whether `value` is undefined at the point (a Bool): what the stage of a temporary
    /// writes into the temporary's mask.
    Undefined {
        /// The node whose undefinedness this is.
        value: NodeId,
    },
    /// The index along `dim` of the point reached by `path` (for `concat_where` conditions).
    Index {
        /// The dimension whose index is taken.
        dim: String,
        /// How to reach the point from the stage's point.
        path: AccessPath,
    },
    /// Scalar program parameter `n`.
    Scalar {
        /// The program parameter's position.
        param: u32,
        /// Its element type.
        dtype: ScalarType,
    },
    /// A constant.
    Literal {
        /// The value.
        value: Literal,
        /// Its element type (an integer literal may be of any integer or float type).
        dtype: ScalarType,
    },
    /// `op arg`.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        arg: NodeId,
        /// The result's element type (the operand's).
        dtype: ScalarType,
    },
    /// `lhs op rhs`, both operands of `dtype`.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// The left operand.
        lhs: NodeId,
        /// The right operand.
        rhs: NodeId,
        /// The element type of the operands and the result.
        dtype: ScalarType,
    },
    /// `lhs op rhs` as a bool, both operands of one element type.
    Compare {
        /// The comparison.
        op: CmpOp,
        /// The left operand.
        lhs: NodeId,
        /// The right operand.
        rhs: NodeId,
    },
    /// A math builtin applied to `args` ([`MathFun::arity`] of them).
    Math {
        /// The function.
        fun: MathFun,
        /// Its arguments, in order.
        args: Vec<NodeId>,
        /// The result's element type (`bool` for the predicates).
        dtype: ScalarType,
    },
    /// `arg as to`, by the rules of [`crate::scalar::cast`].
    Cast {
        /// The value converted.
        arg: NodeId,
        /// The element type converted to.
        to: ScalarType,
    },
    /// `if cond { if_true } else { if_false }`, both sides evaluated (they are pure).
    Select {
        /// A bool node.
        cond: NodeId,
        /// The value where `cond` holds.
        if_true: NodeId,
        /// The value where it does not.
        if_false: NodeId,
        /// The element type of both values.
        dtype: ScalarType,
    },
    /// Reduction of `value` over the slots of `offset` at the point reached by `center`, slots
    /// whose entry is -1 skipped. `body` lists (in arena order) the nodes that depend on `var`.
    Reduce {
        /// Sum, maximum or minimum.
        op: ReduceOp,
        /// The offset whose neighbours are reduced over (also the local dimension's name).
        offset: String,
        /// Where the point whose neighbours are taken lies, from the stage's point.
        center: AccessPath,
        /// The slot variable ([`Slot::Var`]) the body's loads use.
        var: u32,
        /// The nodes evaluated once per slot, in arena order.
        body: Vec<NodeId>,
        /// The node whose per-slot values are reduced.
        value: NodeId,
        /// The element type of the result.
        dtype: ScalarType,
    },
    /// Component `n` of the stage's scan carry, as it was before the current level.
    Carry {
        /// The component's position in [`Scan::carry`].
        index: u32,
        /// Its element type.
        dtype: ScalarType,
    },
}

impl Node {
    /// The element type of the node's value.
    pub fn dtype(&self) -> ScalarType {
        match self {
            Node::Load { dtype, .. }
            | Node::Scalar { dtype, .. }
            | Node::Literal { dtype, .. }
            | Node::Unary { dtype, .. }
            | Node::Binary { dtype, .. }
            | Node::Math { dtype, .. }
            | Node::Select { dtype, .. }
            | Node::Reduce { dtype, .. }
            | Node::Carry { dtype, .. } => *dtype,
            Node::Index { .. } => ScalarType::I64,
            Node::Compare { .. } | Node::Undefined { .. } => ScalarType::Bool,
            Node::Cast { to, .. } => *to,
        }
    }

    /// The nodes of this node's access path: the offsets of its dynamic shifts.
    pub fn path_children(&self) -> Vec<NodeId> {
        match self {
            Node::Load { path, .. } | Node::Index { path, .. } => path
                .steps
                .iter()
                .filter_map(|s| match s {
                    Step::Dynamic { offset, .. } => Some(*offset),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The nodes this node reads directly (path offsets included).
    pub fn children(&self) -> Vec<NodeId> {
        let path_nodes = |p: &AccessPath| {
            p.steps
                .iter()
                .filter_map(|s| match s {
                    Step::Dynamic { offset, .. } => Some(*offset),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        match self {
            Node::Load { path, .. } | Node::Index { path, .. } => path_nodes(path),
            Node::Undefined { value } => vec![*value],
            Node::Scalar { .. } | Node::Literal { .. } | Node::Carry { .. } => vec![],
            Node::Unary { arg, .. } | Node::Cast { arg, .. } => vec![*arg],
            Node::Binary { lhs, rhs, .. } | Node::Compare { lhs, rhs, .. } => vec![*lhs, *rhs],
            Node::Math { args, .. } => args.clone(),
            Node::Select {
                cond,
                if_true,
                if_false,
                ..
            } => vec![*cond, *if_true, *if_false],
            Node::Reduce { center, value, .. } => {
                let mut c = path_nodes(center);
                c.push(*value);
                c
            }
        }
    }

    /// This node with its access paths (a load's, an index's, a reduction's centre) made by
    /// `f` from its own.
    pub fn with_paths(&self, f: impl Fn(&AccessPath) -> AccessPath) -> Node {
        let mut node = self.clone();
        match &mut node {
            Node::Load { path, .. } | Node::Index { path, .. } => *path = f(path),
            Node::Reduce { center, .. } => *center = f(center),
            _ => {}
        }
        node
    }

    /// The reduction variables named directly by this node's slots.
    pub fn slot_vars(&self) -> Vec<u32> {
        let mut vars = Vec::new();
        let mut from_path = |p: &AccessPath| {
            for s in &p.steps {
                if let Step::Neighbor {
                    slot: Slot::Var(v), ..
                } = s
                {
                    vars.push(*v);
                }
            }
        };
        match self {
            Node::Load { path, local, .. } => {
                from_path(path);
                if let Some(Slot::Var(v)) = local {
                    vars.push(*v);
                }
            }
            Node::Index { path, .. } => from_path(path),
            Node::Reduce { center, .. } => from_path(center),
            _ => {}
        }
        vars
    }
}

/// One bound of a stage's domain along one dimension.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Bound {
    /// A scalar integer node of the stage (over program parameters and literals).
    Node(NodeId),
    /// The first (start) or one-past-last (end) index of the first output's field along the
    /// range's dimension.
    OutputFull,
    /// The first index of program parameter `param` (a field) along `dim`.
    FieldStart {
        /// The program parameter (a field).
        param: u32,
        /// The dimension.
        dim: String,
    },
    /// One past the last index of program parameter `param` along `dim`.
    FieldEnd {
        /// The program parameter (a field).
        param: u32,
        /// The dimension.
        dim: String,
    },
    /// The number of `to` points of the connectivity of `offset` (its `target_size`).
    TargetSize {
        /// The offset whose connectivity is asked.
        offset: String,
    },
    /// The reach of the table of `offset` over its rows `rows_start..rows_end` (clamped to the
    /// table): the least entry (start) or one past the greatest (end), -1 entries skipped; an
    /// empty range where the rows hold no entry. A temporary read through `offset` from a stage
    /// over those rows is computed over this range only (see [`crate::lower`]).
    Reach {
        /// The offset whose table is read.
        offset: String,
        /// The first row considered.
        rows_start: Box<Bound>,
        /// One past the last row considered.
        rows_end: Box<Bound>,
    },
}

impl Bound {
    /// The whole range of field parameter `param` along `dim`: its first index and one past its
    /// last.
    pub fn field_range(param: u32, dim: &str) -> (Bound, Bound) {
        let dim = dim.to_string();
        (
            Bound::FieldStart {
                param,
                dim: dim.clone(),
            },
            Bound::FieldEnd { param, dim },
        )
    }

    /// The stage nodes this bound reads.
    pub fn nodes(&self) -> Vec<NodeId> {
        match self {
            Bound::Node(n) => vec![*n],
            Bound::Reach {
                rows_start,
                rows_end,
                ..
            } => {
                let mut n = rows_start.nodes();
                n.extend(rows_end.nodes());
                n
            }
            _ => vec![],
        }
    }
}

/// `start..end` along `dim`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct StageRange {
    /// The dimension.
    pub dim: String,
    /// The first index.
    pub start: Bound,
    /// One past the last index.
    pub end: Bound,
}

/// `target ← value` at every point of the domain (and, for a sparse target, at one slot of
/// its local dimension).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Output {
    /// The field written (a program output or a temporary).
    pub target: Source,
    /// The node whose value is stored.
    pub value: NodeId,
    /// For a target with a local dimension (a sparse output): the slot along it that `value`
    /// is stored at. The stage's domain holds the target's other dimensions only, and the
    /// stage has one output per slot, each with the value lowered at its slot; `None` for a
    /// dense target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<u32>,
}

/// One component of a scan's carry: `init` before the first level; after each level, `next`
/// where `active` holds (or always, without `active`) and `init` again where it does not. A
/// scan written in a `concat_where` branch is active in the branch's region, so it starts
/// (from `init`) at the region's first level in scan direction.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CarryComponent {
    /// The value before the first level (a node evaluated at the column's point).
    pub init: NodeId,
    /// The value after a level, computed from the [`Node::Carry`] values of the level before.
    pub next: NodeId,
    /// The component's element type.
    pub dtype: ScalarType,
    /// A bool node saying where the scan runs; `None`: at every level.
    pub active: Option<NodeId>,
}

/// A stage that walks its vertical `axis` sequentially in one direction, carrying state.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Scan {
    /// The vertical dimension walked.
    pub axis: String,
    /// `true`: from the first level up; `false`: from the last down.
    pub forward: bool,
    /// The carry, one component per scalar of the scan operator's carry.
    pub carry: Vec<CarryComponent>,
}

/// One fused loop nest.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Stage {
    /// One range per dimension of the outputs but a local one (a sparse output is written
    /// slot by slot, [`Output::local`]), in canonical order.
    pub domain: Vec<StageRange>,
    /// The expression DAG, children before parents.
    pub nodes: Vec<Node>,
    /// What the stage stores at each point.
    pub outputs: Vec<Output>,
    /// `Some` for a scan stage, which walks its vertical axis in order.
    pub scan: Option<Scan>,
}

impl Stage {
    /// The node `id` of this stage.
    ///
    /// # Panics
    /// Where `id` is not a node of this stage (the lowering only makes ids of existing nodes).
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }
}

/// A buffer the program allocates between stages. Exactly one stage writes it, over its whole
/// extent (that stage's domain), before any stage reads it.
///
/// A temporary's stage computes it with its reads guarded (as in a branch): a point whose value
/// reads through a -1 entry or outside a field is not an error there, since no reader may take
/// it. The same stage then writes the value's [`Node::Undefined`] flag into a Bool temporary of
/// the same layout, the one `mask` names, and emitters read the mask wherever they read the
/// value (at the same element), so a reader that takes an undefined point sees it undefined.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Temporary {
    /// Its dimensions, in canonical order.
    pub dims: Vec<String>,
    /// Its element type.
    pub dtype: ScalarType,
    /// The temporary that holds where this one is undefined, if its value can be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask: Option<u32>,
}

/// A lowered program.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct StageProgram {
    /// The program's name.
    pub name: String,
    /// The stages, in execution order.
    pub stages: Vec<Stage>,
    /// The temporaries the stages pass values through ([`Source::Temporary`] indices).
    pub temporaries: Vec<Temporary>,
    /// Every dimension the stages mention.
    pub dims: Vec<DimInfo>,
    /// Every offset the stages mention.
    pub offsets: Vec<OffsetInfo>,
}

impl StageProgram {
    /// The dimension named `name`, if the program mentions it.
    pub fn dim(&self, name: &str) -> Option<&DimInfo> {
        self.dims.iter().find(|d| d.name == name)
    }
    /// The offset named `name`, if the program mentions it.
    pub fn offset(&self, name: &str) -> Option<&OffsetInfo> {
        self.offsets.iter().find(|o| o.name == name)
    }
}

//! Fused lowering: fieldview [`Program`] → [`StageProgram`].
//!
//! Every program call becomes one stage per distinct output domain (tuple targets may give each
//! element its own domain). Operator calls are inlined by substitution: a parameter is bound to
//! its argument expression and the caller's environment, and the argument is lowered where the
//! parameter is used, at the use's access path. So shifts are pushed down to the leaves: shifting
//! a computed value composes the shift into every leaf's path and every `Index` node, and a
//! `concat_where` condition is evaluated at the shifted point. A sparse (local-dimension)
//! sub-expression is lowered at a slot: the variable of the enclosing reduction, or the fixed
//! slot of `x[O(n)]`. A sparse output (a field with the local dimension of an offset of `n`
//! neighbours) is written by one stage over its other dimensions: the value is lowered `n`
//! times, once per slot, and stored at that slot ([`Output::local`]).
//!
//! Nodes are hash-consed (each distinct sub-expression is built once per stage) and literal
//! operations are folded.
//!
//! Temporaries, decided here and nowhere else:
//! * a computed value that itself gathers from neighbours (contains a reduction, or more than
//!   two neighbour shifts) and is read through a neighbour shift of an offset with two or more
//!   neighbours is materialised: a stage before the reading one computes it over the reading
//!   stage's vertical range and, along the `to` dimension of that offset, over the reach of the reading
//!   stage: [`Bound::Reach`], the least..greatest+1 table entry over the rows of the reading
//!   domain (-1 entries skipped), evaluated once per call. So a limited-area grid's boundary
//!   rows, whose -1 slots the reading domain never reaches, are not gathered from. Where the
//!   reader's point is not the stage's own point along the offset's `from` dimension (another
//!   neighbour or horizontal shift comes first, or the reader is itself a temporary's stage),
//!   or one temporary is read through two different offsets, it covers the whole `to`
//!   dimension (`0..target_size`). The reader loads it through the shift. Recomputing it would
//!   redo its gather once per reading neighbour (fan-out ≥ 2). The same value read by several
//!   shifts shares one temporary.
//! * everything else is recomputed (inlined) at each point that reads it: pointwise values,
//!   Cartesian shifts, gathers read through one-neighbour offsets, and values of at most two
//!   neighbour reads (ICON's edge difference `θ@E2C[1] - θ@E2C[0]`): the kernels are bound by
//!   memory, and a temporary's write and read-back cost more than reading the few columns
//!   again (`calculate_nabla2_for_theta` 11 → 7 ms at R2B5, docs/performance.md).
//! * a scan whose direction (or axis) conflicts with the scan its stage already runs (e.g. a
//!   forward sweep read by a backward substitution) is materialised: a stage of its own over
//!   the whole domain of the reading stage writes one temporary per carry component.
//! * a scan's result read shifted is rejected with a [`LowerError`]: which levels the scan
//!   must cover then depends on domain inference this lowering does not do.
//!
//! Scans in `concat_where` branches: a scan runs in the regions of the branches it is written
//! in (lexically; a `let` variable or operator argument carries the regions of its
//! definition), restarting from `init` outside them, so it starts at its region's first level
//! in scan direction as in GT4Py. GT4Py also narrows a scan to where its value is used; this
//! lowering does not (the values differ only for a scan whose uses start after its region).

mod builder;
mod prune;
mod read_back;
mod scan_reuse;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use crate::fieldview::{BinaryOp, DomainCond, Expr, ExprKind, OperatorKind, Program, Target};
use crate::stage::{
    AccessPath, Bound, Node, NodeId, Output, Slot, Source, Stage, StageProgram, StageRange, Step,
    Temporary,
};
use crate::types::{DimKind, ScalarType, Type};

pub(crate) use builder::Interner;
use builder::StageBuilder;

/// Makes `stage`, a temporary's stage, run over every row of its horizontal dimension, the
/// `to` dimension of `offset` (instead of a reader's reach through it).
fn cover_every_row(stage: &mut Stage, offset: String) {
    // Appended last, the literal keeps the arena in topological order.
    let zero = stage.nodes.len() as NodeId;
    stage.nodes.push(Node::Literal {
        value: crate::fieldview::Literal::Int(0),
        dtype: ScalarType::I64,
    });
    if let Some(range) = stage.domain.first_mut() {
        range.start = Bound::Node(zero);
        range.end = Bound::TargetSize { offset };
    }
}

/// Why a program could not be lowered.
#[derive(Clone, Debug, PartialEq)]
pub struct LowerError {
    /// What the lowering found, for the program's compile error.
    pub message: String,
}

impl std::fmt::Display for LowerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LowerError {}

fn err<T>(message: impl Into<String>) -> Result<T, LowerError> {
    Err(LowerError {
        message: message.into(),
    })
}

/// One element of a (possibly tuple) program target: its index path in the value's tuple, the
/// output parameter and its domain.
type TargetLeaf<'p> = (Vec<u32>, u32, &'p [crate::fieldview::DomainRange]);

/// A lowered value: one node, or a tuple of values.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// One stage node.
    Node(NodeId),
    /// A tuple, element by element.
    Tuple(Vec<Value>),
}

/// `shape` with its leaves replaced, in order, by `leaves`.
fn rebuild(shape: &Value, leaves: &mut impl Iterator<Item = NodeId>) -> Value {
    match shape {
        Value::Node(_) => Value::Node(leaves.next().unwrap_or(u32::MAX)),
        Value::Tuple(items) => Value::Tuple(items.iter().map(|i| rebuild(i, leaves)).collect()),
    }
}

impl Value {
    fn node(&self) -> Result<NodeId, LowerError> {
        match self {
            Value::Node(n) => Ok(*n),
            Value::Tuple(_) => err("a tuple was used where a single value is needed"),
        }
    }
    fn leaves(&self, out: &mut Vec<NodeId>) {
        match self {
            Value::Node(n) => out.push(*n),
            Value::Tuple(items) => items.iter().for_each(|v| v.leaves(out)),
        }
    }
}

/// What a parameter or `let` variable stands for.
#[derive(Clone)]
enum Binding<'a> {
    /// Program parameter `n`.
    ProgramParam(u32),
    /// An expression, lowered where it is used, in the environment where it was written.
    Expr {
        expr: &'a Expr,
        env: Rc<Env<'a>>,
        /// The `concat_where` regions where the expression was written.
        regions: Vec<Region<'a>>,
    },
    /// An already lowered value (a scan's carry).
    Value(Value),
}

#[derive(Clone, Default)]
struct Env<'a> {
    params: Vec<Binding<'a>>,
    vars: BTreeMap<u32, Binding<'a>>,
}

impl<'a> Env<'a> {
    /// `env` with `let var = value` bound (written in `regions`), for the `let`'s body.
    fn with_let(
        env: &Rc<Env<'a>>,
        var: u32,
        value: &'a Expr,
        regions: Vec<Region<'a>>,
    ) -> Rc<Env<'a>> {
        let mut inner = (**env).clone();
        inner.vars.insert(
            var,
            Binding::Expr {
                expr: value,
                env: env.clone(),
                regions,
            },
        );
        Rc::new(inner)
    }
}

/// A `concat_where` branch an expression is written in: `cond` holds (or not) there.
#[derive(Clone)]
struct Region<'a> {
    cond: &'a DomainCond,
    env: Rc<Env<'a>>,
    holds: bool,
}

/// One use of a bound expression (a `let` value or an operator argument): the binding, by the
/// addresses of its expression and environment, and where it is lowered.
#[derive(PartialEq, Eq, Hash)]
struct BindingUse {
    expr: usize,
    env: usize,
    /// Condition and environment addresses and side of each region of the binding.
    regions: Vec<(usize, usize, bool)>,
    path: AccessPath,
    slots: Vec<(String, Slot)>,
    guarded: bool,
}

impl BindingUse {
    fn new(expr: &Expr, env: &Rc<Env<'_>>, regions: &[Region<'_>], ctx: &Ctx<'_>) -> Self {
        BindingUse {
            expr: expr as *const Expr as usize,
            env: Rc::as_ptr(env) as usize,
            regions: regions
                .iter()
                .map(|r| {
                    let cond = r.cond as *const DomainCond as usize;
                    (cond, Rc::as_ptr(&r.env) as usize, r.holds)
                })
                .collect(),
            path: ctx.path.clone(),
            slots: ctx.slots.clone(),
            guarded: ctx.guarded,
        }
    }
}

/// Where an expression is evaluated, relative to the stage's point.
#[derive(Clone, Default)]
struct Ctx<'a> {
    path: AccessPath,
    /// Slot of each local dimension in scope, innermost last.
    slots: Vec<(String, Slot)>,
    /// Inside a `concat_where` or `if` branch.
    guarded: bool,
    /// The `concat_where` branches enclosing the expression where it is written (lexically:
    /// a parameter or variable brings the regions of its definition). A scan runs in them.
    regions: Vec<Region<'a>>,
}

impl Ctx<'_> {
    fn slot_of(&self, local: &str) -> Option<Slot> {
        self.slots
            .iter()
            .rev()
            .find(|(d, _)| d == local)
            .map(|(_, s)| *s)
    }
    fn reduction_depth(&self) -> u32 {
        self.slots
            .iter()
            .filter(|(_, s)| matches!(s, Slot::Var(_)))
            .count() as u32
    }
}

/// The dimensions and element type of each field in `ty`, in leaf order (a scalar leaf, which
/// no scan returns, ends the list where it is met).
fn field_leaves(ty: &Type, out: &mut Vec<(Vec<String>, ScalarType)>) {
    match ty {
        Type::Field { dims, dtype } => out.push((dims.clone(), *dtype)),
        Type::Tuple(items) => items.iter().for_each(|t| field_leaves(t, out)),
        Type::Scalar(_) => {}
    }
}

/// A scan computed by a stage of its own: its environment (kept alive for the memo's key), the
/// shape of its value, and the temporary and type of each leaf.
type MaterialisedScan<'p> = (Rc<Env<'p>>, Value, Vec<(u32, ScalarType)>);

/// Lowers a checked program into fused stages.
pub fn lower(program: &Program) -> Result<StageProgram, LowerError> {
    let mut stages = Vec::new();
    let mut temporaries = Vec::new();
    for (call_index, call) in program.calls.iter().enumerate() {
        let mut targets = Vec::new();
        flatten_target(&call.target, &mut Vec::new(), &mut targets);
        // Group tuple elements by (domain, dims): one stage per group.
        let mut groups: Vec<Vec<&TargetLeaf>> = Vec::new();
        for t in &targets {
            let dims = field_dims(program, t.1)?;
            match groups
                .iter_mut()
                .find(|g| g[0].2 == t.2 && field_dims(program, g[0].1).ok() == Some(dims.clone()))
            {
                Some(g) => g.push(t),
                None => groups.push(vec![t]),
            }
        }
        let written: Vec<u32> = targets.iter().map(|t| t.1).collect();
        // The local dimensions of the call's sparse outputs: a group lowers the call's whole
        // value, so the elements of another group's sparse outputs need a slot too (their
        // nodes are left unused).
        let mut call_locals: Vec<String> = Vec::new();
        for t in &targets {
            if let (_, Some((l, _))) = split_local(program, &field_dims(program, t.1)?)? {
                if !call_locals.contains(&l) {
                    call_locals.push(l);
                }
            }
        }
        // Every value of a call is computed from the fields as they were before it (the
        // embedded backend's semantics): the stages before any group's own (temporaries, copies
        // of written fields read through a shift or after an earlier group wrote them) run
        // before the first group writes, so one copy of a field serves every group.
        let mut own_stages = Vec::new();
        let mut copies = HashMap::new();
        let mut written_by_earlier_groups = Vec::new();
        let mut earlier: Vec<TargetLeaf> = Vec::new();
        for group in groups {
            let call_targets = CallTargets {
                written: &written,
                written_by_earlier_groups: &written_by_earlier_groups,
                earlier: &earlier,
                locals: &call_locals,
            };
            let (pre, stage) = lower_group(
                program,
                &mut temporaries,
                &mut copies,
                &call.value,
                &group,
                &call_targets,
            )
            .map_err(|e| LowerError {
                message: format!(
                    "call {} of program `{}`: {}",
                    call_index + 1,
                    program.name,
                    e.message
                ),
            })?;
            stages.extend(pre);
            own_stages.extend(stage);
            written_by_earlier_groups.extend(group.iter().map(|t| t.1));
            earlier.extend(group.iter().map(|&t| t.clone()));
        }
        stages.extend(own_stages);
    }
    let mut lowered = StageProgram {
        name: program.name.clone(),
        stages,
        temporaries,
        dims: program.bundle.dims.clone(),
        offsets: program.bundle.offsets.clone(),
    };
    scan_reuse::reuse_scan_temporaries(&mut lowered);
    prune::prune(&mut lowered);
    Ok(lowered)
}

fn flatten_target<'p>(target: &'p Target, index: &mut Vec<u32>, out: &mut Vec<TargetLeaf<'p>>) {
    match target {
        Target::Field { param, domain } => out.push((index.clone(), *param, domain)),
        Target::Tuple(items) => {
            for (i, t) in items.iter().enumerate() {
                index.push(i as u32);
                flatten_target(t, index, out);
                index.pop();
            }
        }
    }
}

fn field_dims(program: &Program, param: u32) -> Result<Vec<String>, LowerError> {
    match program.params.get(param as usize).map(|p| &p.ty) {
        Some(Type::Field { dims, .. }) => Ok(dims.clone()),
        Some(other) => err(format!("the output is not a field but {other}")),
        None => err(format!("output parameter {param} does not exist")),
    }
}

/// An output's dimensions but its local one, and its local dimension with the offset's
/// neighbour count (the slots a sparse output is written at), if it has one.
#[allow(clippy::type_complexity)]
fn split_local(
    program: &Program,
    dims: &[String],
) -> Result<(Vec<String>, Option<(String, u32)>), LowerError> {
    let mut dense = Vec::with_capacity(dims.len());
    let mut local = None;
    for d in dims {
        match program.bundle.dim(d).map(|i| i.kind) {
            Some(DimKind::Local) => {
                if let Some((first, _)) = &local {
                    return err(format!(
                        "an output with two local dimensions (`{first}` and `{d}`)"
                    ));
                }
                let count =
                    program
                        .bundle
                        .offset(d)
                        .map(|o| o.count)
                        .ok_or_else(|| LowerError {
                            message: format!("the local dimension `{d}` has no offset"),
                        })?;
                local = Some((d.clone(), count));
            }
            Some(_) => dense.push(d.clone()),
            None => return err(format!("unknown dimension `{d}`")),
        }
    }
    Ok((dense, local))
}

/// What a group of a call's targets needs to know of the call's other targets.
struct CallTargets<'c> {
    /// The field parameters the call writes.
    written: &'c [u32],
    /// Those the call's earlier groups write.
    written_by_earlier_groups: &'c [u32],
    /// The earlier groups' targets: the tuple element, the field and its domain.
    earlier: &'c [TargetLeaf<'c>],
    /// The local dimensions of the call's sparse outputs.
    locals: &'c [String],
}

/// Lowers one group of a call's targets: the stages of the temporaries it needs, then its own.
fn lower_group(
    program: &Program,
    temporaries: &mut Vec<Temporary>,
    copies: &mut HashMap<u32, u32>,
    value: &Expr,
    group: &[&TargetLeaf],
    call_targets: &CallTargets<'_>,
) -> Result<(Vec<Stage>, Vec<Stage>), LowerError> {
    let env = Rc::new(Env {
        params: (0..program.params.len() as u32)
            .map(Binding::ProgramParam)
            .collect(),
        vars: BTreeMap::new(),
    });
    let field = field_dims(program, group[0].1)?;
    let ranges = group[0].2;
    // A sparse output is written slot by slot (one output per slot, `Output::local`): the
    // stage's domain is its other dimensions.
    let (dims, local) = split_local(program, &field)?;
    for r in ranges {
        if !field.contains(&r.dim) {
            return err(format!(
                "the domain names `{}`, which the output field does not have",
                r.dim
            ));
        }
        if local.as_ref().is_some_and(|(l, _)| *l == r.dim) {
            return err(format!(
                "the domain names the local dimension `{}` of a sparse output, which is written at every slot",
                r.dim
            ));
        }
    }
    let vertical = dims
        .iter()
        .find(|d| program.bundle.dim(d).map(|i| i.kind) == Some(DimKind::Vertical))
        .map(|d| match ranges.iter().find(|r| &r.dim == d) {
            Some(r) => VerticalRange::Exprs {
                dim: d.clone(),
                start: &r.start,
                end: &r.end,
            },
            None => VerticalRange::Field {
                dim: d.clone(),
                param: group[0].1,
            },
        });
    let consumer = dims
        .iter()
        .map(|d| match ranges.iter().find(|r| &r.dim == d) {
            Some(r) => VerticalRange::Exprs {
                dim: d.clone(),
                start: &r.start,
                end: &r.end,
            },
            None => VerticalRange::Field {
                dim: d.clone(),
                param: group[0].1,
            },
        })
        .collect();
    let mut lowering = Lowering {
        program,
        b: StageBuilder::default(),
        root: env.clone(),
        vertical,
        consumer,
        scan_memo: HashMap::new(),
        scan_through_memo: HashMap::new(),
        region_dims: None,
        temporaries: std::mem::take(temporaries),
        pre_stages: Vec::new(),
        memo: HashMap::new(),
        reach: HashMap::new(),
        in_temporary: false,
        lowered_uses: vec![HashMap::new()],
        gathers_memo: RefCell::new(HashMap::new()),
        written: call_targets.written.to_vec(),
        written_by_earlier_groups: call_targets.written_by_earlier_groups.to_vec(),
        copies: std::mem::take(copies),
        enclosing_kshift: 0,
    };
    let mut domain = Vec::new();
    for d in &dims {
        let range = ranges.iter().find(|r| &r.dim == d);
        let (start, end) = match range {
            Some(r) => {
                let s = lowering.lower_index_scalar(&r.start, &env)?;
                let e = lowering.lower_index_scalar(&r.end, &env)?;
                (Bound::Node(s), Bound::Node(e))
            }
            None => (Bound::OutputFull, Bound::OutputFull),
        };
        domain.push(StageRange {
            dim: d.clone(),
            start,
            end,
        });
    }
    // The value once for a dense output; for a sparse one once per slot, with the local
    // dimension at that slot (as `x[L(s)]` would read it). The other groups' local dimensions
    // are at slot 0: the elements over them are lowered and not stored.
    let slots: Vec<Option<u32>> = match &local {
        None => vec![None],
        Some((_, count)) => (0..*count).map(Some).collect(),
    };
    let others: Vec<(String, Slot)> = call_targets
        .locals
        .iter()
        .filter(|l| local.as_ref().is_none_or(|(own, _)| own != *l))
        .map(|l| (l.clone(), Slot::Fixed(0)))
        .collect();
    let mut values = Vec::with_capacity(slots.len());
    for slot in &slots {
        let mut ctx = Ctx {
            slots: others.clone(),
            ..Ctx::default()
        };
        if let (Some((l, _)), Some(s)) = (&local, slot) {
            ctx.slots.push((l.clone(), Slot::Fixed(*s)));
        }
        values.push(lowering.lower(value, &env, &ctx)?);
    }
    let mut outputs = Vec::new();
    for (index, param, _) in group {
        for (lowered, slot) in values.iter().zip(&slots) {
            let mut v = lowered;
            for i in index {
                v = match v {
                    Value::Tuple(items) => items.get(*i as usize).ok_or_else(|| LowerError {
                        message: "the output tuple is longer than the value".into(),
                    })?,
                    Value::Node(_) => {
                        return err("a tuple output is written from a non-tuple value")
                    }
                };
            }
            outputs.push(Output {
                target: Source::Param(*param),
                value: v.node()?,
                local: *slot,
            });
        }
    }
    let read_backs = match (&local, values.first()) {
        (None, Some(value)) => {
            lowering.read_backs(value, &field, &domain, call_targets.earlier, &env)?
        }
        _ => Vec::new(),
    };
    *temporaries = std::mem::take(&mut lowering.temporaries);
    *copies = std::mem::take(&mut lowering.copies);
    let own = read_back::variants(lowering.b, domain, outputs, &read_backs);
    Ok((lowering.pre_stages, own))
}

/// One range of the stage being lowered, for the temporaries it reads.
enum VerticalRange<'p> {
    /// `start..end` of the call's domain (program-scope expressions).
    Exprs {
        dim: String,
        start: &'p Expr,
        end: &'p Expr,
    },
    /// The whole range of output parameter `param`.
    Field { dim: String, param: u32 },
}

impl VerticalRange<'_> {
    fn dim(&self) -> &str {
        match self {
            VerticalRange::Exprs { dim, .. } | VerticalRange::Field { dim, .. } => dim,
        }
    }
}

/// The rows (along an offset's `from` dimension) of the stage that reads a temporary.
enum RowRange<'p> {
    /// `start..end` of the call's domain (program-scope expressions).
    Exprs(&'p Expr, &'p Expr),
    /// The whole range of output parameter `param` along `dim`.
    Field(String, u32),
}

struct Lowering<'p> {
    program: &'p Program,
    b: StageBuilder,
    /// The program-scope environment (domain bounds are lowered in it).
    root: Rc<Env<'p>>,
    vertical: Option<VerticalRange<'p>>,
    /// Every range of the stage being lowered, in its dimensions' order.
    consumer: Vec<VerticalRange<'p>>,
    /// Scan calls already materialised: (call expression, environment) → their value. The
    /// environment is kept with it: were it freed, another call's environment could take its
    /// address and be taken for it (`g(a) - g(b)` computing `g(a) - g(a)`).
    /// A scan materialised by [`Self::materialise_scan`], by the addresses of its call and
    /// environment.
    scan_memo: HashMap<(usize, usize), MaterialisedScan<'p>>,
    /// Scans materialised by [`Self::materialise_scan_through`], by the addresses of their
    /// call and environment and the offset they are read through.
    scan_through_memo: HashMap<(usize, usize, String), MaterialisedScan<'p>>,
    /// While a scan read through a neighbour shift is lowered into its own stage: that stage's
    /// dimensions. A `concat_where` region of the reader on another dimension (the reader's
    /// horizontal one) cannot be decided at the scan's points and does not restrict the scan,
    /// as on the embedded backend.
    region_dims: Option<Vec<String>>,
    /// The field parameters the call writes.
    written: Vec<u32>,
    /// The field parameters the call's earlier groups write: their stages run before this
    /// group's, so even a read at the point would find their new values.
    written_by_earlier_groups: Vec<u32>,
    /// While a temporary's stage is lowered: the vertical shift its reader reads it through
    /// (a temporary that stage reads covers the reader's levels shifted by it too).
    enclosing_kshift: i64,
    /// The copy (a temporary) of each written field read through a shift or after an earlier
    /// group wrote it, shared by the call's groups.
    copies: HashMap<u32, u32>,
    temporaries: Vec<Temporary>,
    /// Stages computing the temporaries of the stage being built, in dependency order.
    pre_stages: Vec<Stage>,
    /// (expression, environment, vertical shift) → temporary already computing it, with the
    /// environment kept alive for the same reason.
    memo: HashMap<(usize, usize, i64), (Rc<Env<'p>>, u32)>,
    /// Per temporary of this stage: the index of its stage in `pre_stages` and the offset whose
    /// reach bounds it (`None`: it covers its whole dimension).
    reach: HashMap<u32, (usize, Option<String>)>,
    /// True while a temporary's stage is being lowered: its readers' domain is not the one in
    /// `consumer`.
    in_temporary: bool,
    /// Per stage builder (the one being filled last): the value of each use of a binding
    /// already lowered into it. A `let` used twice by the next one, repeated n times, would
    /// otherwise be lowered 2^n times. Only uses whose lowering added nothing but
    /// hash-consed nodes are kept, whose second lowering would give the same value. The
    /// binding is kept with its value: its environments' addresses are in the key.
    lowered_uses: Vec<HashMap<BindingUse, (Binding<'p>, Value)>>,
    /// [`Self::gathers`] of (expression, environment, depth), with the environment kept alive
    /// while its address is a key; for the same reason.
    gathers_memo: RefCell<GathersMemo<'p>>,
}

type GathersMemo<'p> = HashMap<(usize, usize, u32), (Rc<Env<'p>>, u32)>;

/// What a reduction counts for in [`Lowering::gathers`]: more than any value recomputed.
const REDUCTION_GATHER: u32 = 1 << 16;

/// The most neighbour shifts (and no reduction) a value read through a neighbour offset may
/// make and still be recomputed at each reading neighbour rather than materialised.
const RECOMPUTED_GATHERS: u32 = 2;

impl<'p> Lowering<'p> {
    fn lower_index_scalar(&mut self, e: &'p Expr, env: &Rc<Env<'p>>) -> Result<NodeId, LowerError> {
        let n = self.lower(e, env, &Ctx::default())?.node()?;
        Ok(self.cast(n, ScalarType::I64))
    }

    fn cast(&mut self, n: NodeId, to: ScalarType) -> NodeId {
        if self.b.dtype(n) == to {
            n
        } else {
            self.b.add(Node::Cast { arg: n, to })
        }
    }

    fn dtype_of(e: &Expr) -> Result<ScalarType, LowerError> {
        e.ty.dtype().ok_or_else(|| LowerError {
            message: format!("expected a scalar or field type, found {}", e.ty),
        })
    }

    /// Lowers `e` (through [`crate::stack::grow`]: the recursion is as deep as the user's
    /// expressions, with inlined callees and `let` values on top).
    fn lower(
        &mut self,
        e: &'p Expr,
        env: &Rc<Env<'p>>,
        ctx: &Ctx<'p>,
    ) -> Result<Value, LowerError> {
        crate::stack::grow(|| self.lower_node(e, env, ctx))
    }

    fn lower_node(
        &mut self,
        e: &'p Expr,
        env: &Rc<Env<'p>>,
        ctx: &Ctx<'p>,
    ) -> Result<Value, LowerError> {
        use ExprKind as K;
        Ok(match &e.kind {
            K::Param(i) => {
                let binding = env
                    .params
                    .get(*i as usize)
                    .cloned()
                    .ok_or_else(|| LowerError {
                        message: format!("parameter {i} is not bound"),
                    })?;
                self.lower_binding(binding, ctx)?
            }
            K::Var(v) => {
                let binding = env.vars.get(v).cloned().ok_or_else(|| LowerError {
                    message: format!("variable {v} is not bound"),
                })?;
                self.lower_binding(binding, ctx)?
            }
            K::Let { var, value, body } => self.lower(
                body,
                &Env::with_let(env, *var, value, ctx.regions.clone()),
                ctx,
            )?,
            K::Literal(l) => Value::Node(self.b.add(Node::Literal {
                value: *l,
                dtype: Self::dtype_of(e)?,
            })),
            K::CartesianShift { arg, dim, offset } => {
                let mut c = ctx.clone();
                c.path = ctx.path.then(Step::Cartesian {
                    dim: dim.clone(),
                    offset: *offset,
                });
                self.lower(arg, env, &c)?
            }
            K::DynamicShift { arg, dim, offset } => {
                let o = self.lower(offset, env, ctx)?.node()?;
                let o = self.cast(o, ScalarType::I64);
                let mut c = ctx.clone();
                c.path = ctx.path.then(Step::Dynamic {
                    dim: dim.clone(),
                    offset: o,
                });
                self.lower(arg, env, &c)?
            }
            K::NeighborShift { arg, offset, slot } => {
                let slot = match slot {
                    Some(n) => Slot::Fixed(*n),
                    None => ctx.slot_of(offset).ok_or_else(|| LowerError {
                        message: format!(
                            "the sparse value `.at({offset})` is used outside a reduction over `{offset}` and without a slot `[{offset}(n)]`"
                        ),
                    })?,
                };
                let path = ctx.path.then(Step::Neighbor {
                    offset: offset.clone(),
                    slot,
                });
                if let Some(t) = self.materialise(arg, env, offset, ctx)? {
                    return Ok(Value::Node(self.b.add(Node::Load {
                        source: Source::Temporary(t),
                        path,
                        local: None,
                        dtype: Self::dtype_of(arg)?,
                        guarded: ctx.guarded,
                    })));
                }
                let mut c = ctx.clone();
                c.path = path;
                self.lower(arg, env, &c)?
            }
            K::LocalIndex { arg, local, slot } => {
                let mut c = ctx.clone();
                c.slots.push((local.clone(), Slot::Fixed(*slot)));
                self.lower(arg, env, &c)?
            }
            K::Unary { op, arg } => {
                let a = self.lower(arg, env, ctx)?.node()?;
                Value::Node(self.b.add(Node::Unary {
                    op: *op,
                    arg: a,
                    dtype: Self::dtype_of(e)?,
                }))
            }
            K::Binary { op, lhs, rhs } => {
                let l = self.lower(lhs, env, ctx)?.node()?;
                let r = self.lower(rhs, env, ctx)?.node()?;
                Value::Node(self.b.add(Node::Binary {
                    op: *op,
                    lhs: l,
                    rhs: r,
                    dtype: Self::dtype_of(e)?,
                }))
            }
            K::Compare { op, lhs, rhs } => {
                let l = self.lower(lhs, env, ctx)?.node()?;
                let r = self.lower(rhs, env, ctx)?.node()?;
                Value::Node(self.b.add(Node::Compare {
                    op: *op,
                    lhs: l,
                    rhs: r,
                }))
            }
            K::Math { fun, args } => {
                let mut ids = Vec::new();
                for a in args {
                    ids.push(self.lower(a, env, ctx)?.node()?);
                }
                Value::Node(self.b.add(Node::Math {
                    fun: *fun,
                    args: ids,
                    dtype: Self::dtype_of(e)?,
                }))
            }
            K::Cast { arg, to } => {
                let v = self.lower(arg, env, ctx)?;
                self.map_value(&v, &mut |s, n| s.cast(n, *to))
            }
            K::Select {
                cond,
                if_true,
                if_false,
            } => {
                // Pointwise, only the chosen operand counts (the embedded backend's semantics:
                // a value undefined where it is not chosen is never written), so both are read
                // guarded, like the branches of `if`/`else` and `concat_where`: a -1 neighbour
                // or a read outside a field where the other operand is chosen is no error.
                let c = self.lower(cond, env, ctx)?.node()?;
                let mut guarded = ctx.clone();
                guarded.guarded = true;
                let t = self.lower(if_true, env, &guarded)?;
                let f = self.lower(if_false, env, &guarded)?;
                self.select(c, &t, &f)?
            }
            K::IfElse {
                cond,
                then,
                otherwise,
            } => {
                // Only the taken branch counts: both are computed (they are pure), with their
                // reads guarded like a `concat_where` branch's, so the other one cannot fail.
                let c = self.lower(cond, env, ctx)?.node()?;
                let mut guarded = ctx.clone();
                guarded.guarded = true;
                let t = self.lower(then, env, &guarded)?;
                let f = self.lower(otherwise, env, &guarded)?;
                self.select(c, &t, &f)?
            }
            K::Reduce { op, local, arg } => {
                let var = ctx.reduction_depth();
                let mut c = ctx.clone();
                c.slots.push((local.clone(), Slot::Var(var)));
                let value = self.lower(arg, env, &c)?.node()?;
                let body = self.b.body_of(value, var);
                Value::Node(self.b.add(Node::Reduce {
                    op: *op,
                    offset: local.clone(),
                    center: ctx.path.clone(),
                    var,
                    body,
                    value,
                    dtype: Self::dtype_of(e)?,
                }))
            }
            K::Broadcast { arg, .. } => self.lower(arg, env, ctx)?,
            K::ConcatWhere {
                cond,
                if_true,
                if_false,
            } => {
                let c = self.lower_cond(cond, env, ctx)?;
                let branch = |holds: bool| {
                    let mut b = ctx.clone();
                    b.guarded = true;
                    b.regions.push(Region {
                        cond,
                        env: env.clone(),
                        holds,
                    });
                    b
                };
                let t = self.lower(if_true, env, &branch(true))?;
                let f = self.lower(if_false, env, &branch(false))?;
                self.select(c, &t, &f)?
            }
            K::Tuple(items) => {
                let mut vals = Vec::new();
                for i in items {
                    vals.push(self.lower(i, env, ctx)?);
                }
                Value::Tuple(vals)
            }
            K::TupleGet { arg, index } => match self.lower(arg, env, ctx)? {
                Value::Tuple(mut items) if (*index as usize) < items.len() => {
                    items.swap_remove(*index as usize)
                }
                _ => return err(format!("tuple element {index} does not exist")),
            },
            K::Call { callee, args } => self.lower_call(e, callee, args, env, ctx)?,
        })
    }

    /// The temporary holding `arg` when it is worth one (see the module doc), building its
    /// stage on first use; `None` to recompute `arg` inline.
    fn materialise(
        &mut self,
        arg: &'p Expr,
        env: &Rc<Env<'p>>,
        offset: &str,
        ctx: &Ctx<'p>,
    ) -> Result<Option<u32>, LowerError> {
        let program = self.program;
        let info = match program.bundle.offset(offset) {
            Some(i) if i.count >= 2 => i.clone(),
            _ => return Ok(None),
        };
        let Type::Field { dims, dtype } = &arg.ty else {
            return Ok(None);
        };
        if !dims.contains(&info.to) {
            return Ok(None);
        }
        let is_vertical =
            |d: &String| program.bundle.dim(d).map(|i| i.kind) == Some(DimKind::Vertical);
        let vertical = dims.iter().find(|d| is_vertical(d));
        if dims.iter().any(|d| d != &info.to && Some(d) != vertical) {
            return Ok(None);
        }
        // The reader's vertical shift moves the range the temporary must cover, and so do the
        // shifts of the reads enclosing this one when another temporary's stage reads it.
        let mut kshift = self.enclosing_kshift;
        if let Some(v) = vertical {
            for s in &ctx.path.steps {
                match s {
                    Step::Cartesian { dim, offset } if dim == v => kshift += offset,
                    Step::Dynamic { dim, .. } if dim == v => return Ok(None),
                    _ => {}
                }
            }
        }
        if self.gathers(arg, env, 0) <= RECOMPUTED_GATHERS {
            return Ok(None);
        }
        let key = (
            arg as *const Expr as usize,
            Rc::as_ptr(env) as usize,
            kshift,
        );
        // The reach of the reading stage through `offset` bounds the temporary when the
        // reader's point along `from` is the stage's own (only vertical shifts before).
        let at_stage_point = ctx.path.steps.iter().all(|s| match s {
            Step::Cartesian { dim, .. } => is_vertical(dim),
            _ => false,
        });
        let rows = match self.consumer.iter().find(|r| r.dim() == info.from) {
            Some(r) if at_stage_point && !self.in_temporary => Some(r),
            _ => None,
        };
        let reach_offset = rows.map(|_| offset.to_string());
        if let Some(t) = self.memo.get(&key).map(|(_, t)| *t) {
            self.widen_unless_same_reach(t, &reach_offset);
            return Ok(Some(t));
        }
        let rows = rows.map(|r| match r {
            VerticalRange::Exprs { start, end, .. } => RowRange::Exprs(start, end),
            VerticalRange::Field { dim, param } => RowRange::Field(dim.clone(), *param),
        });
        let saved = std::mem::take(&mut self.b);
        self.lowered_uses.push(HashMap::new());
        let was_in_temporary = std::mem::replace(&mut self.in_temporary, true);
        let enclosing = std::mem::replace(&mut self.enclosing_kshift, kshift);
        let built = self.temporary_stage(arg, env, &info.to, offset, rows, vertical, kshift);
        self.enclosing_kshift = enclosing;
        self.in_temporary = was_in_temporary;
        self.lowered_uses.pop();
        let builder = std::mem::replace(&mut self.b, saved);
        let Ok((domain, value)) = built else {
            // Not expressible as a temporary (e.g. it reads a scan's carry): recompute.
            return Ok(None);
        };
        let mut builder = builder;
        let t = self.temporaries.len() as u32;
        let mut outputs = vec![Output {
            target: Source::Temporary(t),
            value,
            local: None,
        }];
        // Its reads are guarded: where one fails, the value is undefined, and the mask says so.
        let mask = builder.reads_fields(value).then(|| {
            let m = t + 1;
            let flag = builder.add(Node::Undefined { value });
            outputs.push(Output {
                target: Source::Temporary(m),
                value: flag,
                local: None,
            });
            m
        });
        self.temporaries.push(Temporary {
            dims: dims.clone(),
            dtype: *dtype,
            mask,
        });
        if mask.is_some() {
            self.temporaries.push(Temporary {
                dims: dims.clone(),
                dtype: ScalarType::Bool,
                mask: None,
            });
        }
        let stage = builder.finish(domain, outputs);
        // The same value reached through another inlining of its operator (another
        // environment) builds the same stage: read the temporary that stage already writes.
        if let Some(existing) = self.same_stage(&stage).and_then(|e| e.first().copied()) {
            self.temporaries.truncate(t as usize);
            self.widen_unless_same_reach(existing, &reach_offset);
            self.memo.insert(key, (env.clone(), existing));
            return Ok(Some(existing));
        }
        self.reach.insert(t, (self.pre_stages.len(), reach_offset));
        self.pre_stages.push(stage);
        self.memo.insert(key, (env.clone(), t));
        Ok(Some(t))
    }

    /// The temporaries written by a stage before this one that computes what `stage` (just
    /// built, writing the last temporaries) does, in the order of its outputs: the same domain,
    /// nodes, scan and output values into temporaries of the same types. Stages before this
    /// one write temporaries only, so an earlier stage of the same nodes reads the same values.
    fn same_stage(&self, stage: &Stage) -> Option<Vec<u32>> {
        self.pre_stages.iter().find_map(|earlier| {
            let same = prune::same_computation(earlier, stage, &self.temporaries);
            same.then(|| {
                earlier
                    .outputs
                    .iter()
                    .filter_map(|o| match o.target {
                        Source::Temporary(t) => Some(t),
                        Source::Param(_) => None,
                    })
                    .collect()
            })
        })
    }

    /// The scan stage `builder` holds, over `domain`, as a stage before this one, writing each
    /// of `leaves` (a carry component's value, and the temporary's dimensions) to a new
    /// temporary; the temporaries and their types. An earlier stage that computes the same (a
    /// scan reached through another inlining of the operators around it, another environment)
    /// is read instead, and the new temporaries are dropped. Without this, a scan read by a
    /// value that is inlined at every use ran once per use (ICON4Py's fused solver steps built
    /// 205 stages).
    fn push_scan_stage(
        &mut self,
        builder: StageBuilder,
        domain: Vec<StageRange>,
        leaves: Vec<(NodeId, Vec<String>)>,
    ) -> Vec<(u32, ScalarType)> {
        let mut outputs = Vec::new();
        let mut temporaries = Vec::new();
        for (leaf, dims) in leaves {
            let t = self.temporaries.len() as u32;
            let dtype = builder.dtype(leaf);
            self.temporaries.push(Temporary {
                dims,
                dtype,
                mask: None,
            });
            outputs.push(Output {
                target: Source::Temporary(t),
                value: leaf,
                local: None,
            });
            temporaries.push((t, dtype));
        }
        let stage = builder.finish(domain, outputs);
        if let Some(existing) = self.same_stage(&stage) {
            if let Some(&(first, _)) = temporaries.first() {
                self.temporaries.truncate(first as usize);
            }
            return existing
                .into_iter()
                .zip(temporaries)
                .map(|(t, (_, dtype))| (t, dtype))
                .collect();
        }
        self.pre_stages.push(stage);
        temporaries
    }

    /// The temporary holding a copy of field parameter `p` (the call writes it and reads it
    /// through a shift, or after an earlier group wrote it) over its whole extent, written by a
    /// stage before the call's own.
    fn copy_of(&mut self, p: u32, dims: &[String], dtype: ScalarType) -> Result<u32, LowerError> {
        if let Some(&t) = self.copies.get(&p) {
            return Ok(t);
        }
        if dims
            .iter()
            .any(|d| self.program.bundle.dim(d).map(|i| i.kind) == Some(DimKind::Local))
        {
            return err("a sparse field written by the call that reads it through a shift");
        }
        let mut builder = StageBuilder::default();
        let value = builder.add(Node::Load {
            source: Source::Param(p),
            path: AccessPath::default(),
            local: None,
            dtype,
            guarded: false,
        });
        let domain = dims
            .iter()
            .map(|d| StageRange {
                dim: d.clone(),
                start: Bound::FieldStart {
                    param: p,
                    dim: d.clone(),
                },
                end: Bound::FieldEnd {
                    param: p,
                    dim: d.clone(),
                },
            })
            .collect();
        let t = self.temporaries.len() as u32;
        self.temporaries.push(Temporary {
            dims: dims.to_vec(),
            dtype,
            mask: None,
        });
        self.pre_stages.push(builder.finish(
            domain,
            vec![Output {
                target: Source::Temporary(t),
                value,
                local: None,
            }],
        ));
        self.copies.insert(p, t);
        Ok(t)
    }

    /// Makes temporary `t` cover its whole dimension unless it is already bounded by the
    /// reach through `offset` (a reader through another offset, or from another point, needs
    /// points the first reader's reach may lack).
    fn widen_unless_same_reach(&mut self, t: u32, offset: &Option<String>) {
        let Some((stage_index, bounded_by)) = self.reach.get_mut(&t) else {
            return;
        };
        if bounded_by.is_none() || bounded_by == offset {
            return;
        }
        let Some(reached) = bounded_by.take() else {
            return;
        };
        if let Some(stage) = self.pre_stages.get_mut(*stage_index) {
            cover_every_row(stage, reached);
        }
    }

    /// A scan call whose direction conflicts with the stage's scan, computed by a stage of its
    /// own over the whole domain of the stage being lowered (where the reading scan runs too)
    /// into one temporary per carry component.
    fn materialise_scan(
        &mut self,
        call: &'p Expr,
        env: &Rc<Env<'p>>,
        ctx: &Ctx<'p>,
    ) -> Result<Value, LowerError> {
        let key = (call as *const Expr as usize, Rc::as_ptr(env) as usize);
        let (shape, temporaries) = match self.scan_memo.get(&key) {
            Some((_, shape, temporaries)) => (shape.clone(), temporaries.clone()),
            None => {
                let dims: Vec<String> = self
                    .consumer
                    .iter()
                    .map(|r| match r {
                        VerticalRange::Exprs { dim, .. } | VerticalRange::Field { dim, .. } => {
                            dim.clone()
                        }
                    })
                    .collect();
                let saved = std::mem::take(&mut self.b);
                self.lowered_uses.push(HashMap::new());
                let built = self.scan_stage(call, env, ctx);
                self.lowered_uses.pop();
                let builder = std::mem::replace(&mut self.b, saved);
                let (domain, value) = built?;
                let mut leaves = Vec::new();
                value.leaves(&mut leaves);
                let leaves = leaves.into_iter().map(|l| (l, dims.clone())).collect();
                let temporaries = self.push_scan_stage(builder, domain, leaves);
                self.scan_memo
                    .insert(key, (env.clone(), value.clone(), temporaries.clone()));
                (value, temporaries)
            }
        };
        // Read where the reader reads it: at its point, or through its shift.
        Ok(self.read_temporaries(&shape, temporaries, ctx))
    }

    /// A scan read through one neighbour shift (and vertical shifts around it), computed by a
    /// stage of its own into one temporary per carry component: over the neighbours the
    /// reading stage reaches through the offset (the whole target dimension where the read
    /// is not at the stage's point) and the levels the reader writes, as the embedded backend
    /// runs the scan over the call's levels. `None` where the path is not of that form or the
    /// scan's dimensions are not the offset's target and the vertical.
    fn materialise_scan_through(
        &mut self,
        call: &'p Expr,
        env: &Rc<Env<'p>>,
        ctx: &Ctx<'p>,
    ) -> Result<Option<Value>, LowerError> {
        let program = self.program;
        let is_vertical =
            |d: &String| program.bundle.dim(d).map(|i| i.kind) == Some(DimKind::Vertical);
        let mut neighbour = None;
        let mut at_stage_point = true;
        for s in &ctx.path.steps {
            match s {
                Step::Cartesian { dim, .. } if is_vertical(dim) => {}
                Step::Neighbor { offset, .. } if neighbour.is_none() => {
                    neighbour = Some(offset.clone());
                }
                _ => return Ok(None),
            }
            if neighbour.is_none() {
                at_stage_point &= matches!(s, Step::Cartesian { .. });
            }
        }
        let Some(offset) = neighbour else {
            return Ok(None);
        };
        let Some(info) = program.bundle.offset(&offset).cloned() else {
            return Ok(None);
        };
        // Every leaf of the scan's value is a field over the offset's target (and levels).
        let mut leaf_types = Vec::new();
        field_leaves(&call.ty, &mut leaf_types);
        let Some((dims, _)) = leaf_types.first().cloned() else {
            return Ok(None);
        };
        let vertical = dims.iter().find(|d| is_vertical(d)).cloned();
        let fits = |d: &Vec<String>| {
            d.first() == Some(&info.to)
                && d.len() == 1 + usize::from(vertical.is_some())
                && d.iter().skip(1).all(|d| Some(d) == vertical.as_ref())
        };
        if !leaf_types.iter().all(|(d, _)| fits(d)) {
            return Ok(None);
        }
        let key = (
            call as *const Expr as usize,
            Rc::as_ptr(env) as usize,
            offset.clone(),
        );
        if let Some((_, shape, temporaries)) = self.scan_through_memo.get(&key) {
            let (shape, temporaries) = (shape.clone(), temporaries.clone());
            return Ok(Some(self.read_temporaries(&shape, temporaries, ctx)));
        }
        let rows = match self.consumer.iter().find(|r| r.dim() == info.from) {
            Some(VerticalRange::Exprs { start, end, .. }) if at_stage_point => {
                Some(RowRange::Exprs(start, end))
            }
            Some(VerticalRange::Field { dim, param }) if at_stage_point => {
                Some(RowRange::Field(dim.clone(), *param))
            }
            _ => None,
        };
        let saved = std::mem::take(&mut self.b);
        self.lowered_uses.push(HashMap::new());
        let was_in_temporary = std::mem::replace(&mut self.in_temporary, true);
        let built = self.scan_through_stage(call, env, ctx, &info.to, &offset, rows, vertical);
        self.in_temporary = was_in_temporary;
        self.lowered_uses.pop();
        let builder = std::mem::replace(&mut self.b, saved);
        let (domain, value) = built?;
        let mut leaves = Vec::new();
        value.leaves(&mut leaves);
        if leaves.len() != leaf_types.len() {
            return err("a scan whose value does not match its type");
        }
        let leaves = leaves
            .into_iter()
            .zip(leaf_types)
            .map(|(l, (dims, _))| (l, dims))
            .collect();
        let temporaries = self.push_scan_stage(builder, domain, leaves);
        self.scan_through_memo
            .insert(key, (env.clone(), value.clone(), temporaries.clone()));
        Ok(Some(self.read_temporaries(&value, temporaries, ctx)))
    }

    /// The domain and value of [`Self::materialise_scan_through`]'s stage.
    #[allow(clippy::too_many_arguments)]
    fn scan_through_stage(
        &mut self,
        call: &'p Expr,
        env: &Rc<Env<'p>>,
        ctx: &Ctx<'p>,
        to: &str,
        offset: &str,
        rows: Option<RowRange<'p>>,
        vertical: Option<String>,
    ) -> Result<(Vec<StageRange>, Value), LowerError> {
        let (start, end) = self.horizontal_bounds(offset, rows)?;
        let mut domain = vec![StageRange {
            dim: to.to_string(),
            start,
            end,
        }];
        if let Some(v) = vertical {
            let (start, end) = self.vertical_bounds(&v, 0)?;
            domain.push(StageRange { dim: v, start, end });
        }
        // In the regions of the branches the scan is written in, as far as they are decided
        // at its own points (its levels, not the reader's horizontal dimension).
        let at_point = Ctx {
            guarded: ctx.guarded,
            regions: ctx.regions.clone(),
            ..Ctx::default()
        };
        let dims = domain.iter().map(|r| r.dim.clone()).collect();
        let outer = self.region_dims.replace(dims);
        let value = self.lower(call, env, &at_point);
        self.region_dims = outer;
        Ok((domain, value?))
    }

    /// Loads of a materialised value's temporaries where the reader reads it, in its shape.
    fn read_temporaries(
        &mut self,
        shape: &Value,
        temporaries: Vec<(u32, ScalarType)>,
        ctx: &Ctx<'p>,
    ) -> Value {
        let mut loads = Vec::with_capacity(temporaries.len());
        for (t, dtype) in temporaries {
            loads.push(self.b.add(Node::Load {
                source: Source::Temporary(t),
                path: ctx.path.clone(),
                local: None,
                dtype,
                guarded: ctx.guarded,
            }));
        }
        rebuild(shape, &mut loads.into_iter())
    }

    fn scan_stage(
        &mut self,
        call: &'p Expr,
        env: &Rc<Env<'p>>,
        ctx: &Ctx<'p>,
    ) -> Result<(Vec<StageRange>, Value), LowerError> {
        let mut domain = Vec::new();
        let root = self.root.clone();
        for i in 0..self.consumer.len() {
            let (dim, start, end) = match &self.consumer[i] {
                VerticalRange::Exprs { dim, start, end } => {
                    let (dim, start, end) = (dim.clone(), *start, *end);
                    let s = self.lower_index_scalar(start, &root)?;
                    let e = self.lower_index_scalar(end, &root)?;
                    (dim, Bound::Node(s), Bound::Node(e))
                }
                VerticalRange::Field { dim, param } => {
                    let (start, end) = Bound::field_range(*param, dim);
                    (dim.clone(), start, end)
                }
            };
            domain.push(StageRange { dim, start, end });
        }
        // Evaluated at the stage's point, in the regions (and guard) of the call.
        let at_point = Ctx {
            guarded: ctx.guarded,
            regions: ctx.regions.clone(),
            ..Ctx::default()
        };
        let value = self.lower(call, env, &at_point)?;
        Ok((domain, value))
    }

    /// The range of the reading stage's levels along `v`, moved by `kshift`: what a temporary
    /// over those levels (or a scan's stage over them) covers.
    fn vertical_bounds(&mut self, v: &str, kshift: i64) -> Result<(Bound, Bound), LowerError> {
        Ok(match &self.vertical {
            Some(VerticalRange::Exprs { dim, start, end }) if dim == v => {
                let root = self.root.clone();
                let (start, end) = (*start, *end);
                let s = self.lower_index_scalar(start, &root)?;
                let e = self.lower_index_scalar(end, &root)?;
                let shift = self.b.add(Node::Literal {
                    value: crate::fieldview::Literal::Int(kshift),
                    dtype: ScalarType::I64,
                });
                let mut shifted = |n| {
                    self.b.add(Node::Binary {
                        op: BinaryOp::Add,
                        lhs: n,
                        rhs: shift,
                        dtype: ScalarType::I64,
                    })
                };
                (Bound::Node(shifted(s)), Bound::Node(shifted(e)))
            }
            Some(VerticalRange::Field { dim, param }) if dim == v && kshift == 0 => {
                Bound::field_range(*param, dim)
            }
            _ => return err("the reader's vertical range cannot bound a temporary"),
        })
    }

    /// The range of a temporary along the offset's target: the reach of `offset` over the
    /// reader's `rows`, or the whole target dimension without them.
    fn horizontal_bounds(
        &mut self,
        offset: &str,
        rows: Option<RowRange<'p>>,
    ) -> Result<(Bound, Bound), LowerError> {
        Ok(match rows {
            Some(rows) => {
                let (rows_start, rows_end) = match rows {
                    RowRange::Exprs(start, end) => {
                        let root = self.root.clone();
                        let s = self.lower_index_scalar(start, &root)?;
                        let e = self.lower_index_scalar(end, &root)?;
                        (Bound::Node(s), Bound::Node(e))
                    }
                    RowRange::Field(dim, param) => (
                        Bound::FieldStart {
                            param,
                            dim: dim.clone(),
                        },
                        Bound::FieldEnd { param, dim },
                    ),
                };
                let reach = Bound::Reach {
                    offset: offset.to_string(),
                    rows_start: Box::new(rows_start),
                    rows_end: Box::new(rows_end),
                };
                (reach.clone(), reach)
            }
            None => (
                Bound::Node(self.b.add(Node::Literal {
                    value: crate::fieldview::Literal::Int(0),
                    dtype: ScalarType::I64,
                })),
                Bound::TargetSize {
                    offset: offset.to_string(),
                },
            ),
        })
    }

    /// Lowers `arg` into `self.b` as the stage of a temporary over `to` (the reach of `offset`
    /// over the reader's `rows`, or all of `to` without them) and the reader's vertical range
    /// shifted by `kshift`.
    #[allow(clippy::too_many_arguments)]
    fn temporary_stage(
        &mut self,
        arg: &'p Expr,
        env: &Rc<Env<'p>>,
        to: &str,
        offset: &str,
        rows: Option<RowRange<'p>>,
        vertical: Option<&String>,
        kshift: i64,
    ) -> Result<(Vec<StageRange>, NodeId), LowerError> {
        let (start, end) = self.horizontal_bounds(offset, rows)?;
        let mut domain = vec![StageRange {
            dim: to.to_string(),
            start,
            end,
        }];
        if let Some(v) = vertical {
            let (start, end) = self.vertical_bounds(v, kshift)?;
            domain.push(StageRange {
                dim: v.clone(),
                start,
                end,
            });
        }
        // Guarded as in a branch: the stage covers the reach of its readers, which may hold
        // points no reader takes, so a failing read there is not an error (see `Temporary`).
        let guarded = Ctx {
            guarded: true,
            ..Ctx::default()
        };
        let value = self.lower(arg, env, &guarded)?.node()?;
        if self.b.has_scan() {
            return err("a temporary of a scan");
        }
        Ok((domain, value))
    }

    /// How much `e` (with its parameters and variables resolved) gathers from neighbours: the
    /// number of neighbour shifts it makes, [`REDUCTION_GATHER`] for a reduction (at least),
    /// saturating; 0 for a value that gathers nothing.
    fn gathers(&self, e: &'p Expr, env: &Rc<Env<'p>>, depth: u32) -> u32 {
        let key = (e as *const Expr as usize, Rc::as_ptr(env) as usize, depth);
        if let Some((_, gathers)) = self.gathers_memo.borrow().get(&key) {
            return *gathers;
        }
        let gathers = self.gathers_unmemoised(e, env, depth);
        self.gathers_memo
            .borrow_mut()
            .insert(key, (env.clone(), gathers));
        gathers
    }

    fn gathers_unmemoised(&self, e: &'p Expr, env: &Rc<Env<'p>>, depth: u32) -> u32 {
        use ExprKind as K;
        if depth > 256 {
            return 0;
        }
        let through = |b: Option<&Binding<'p>>| match b {
            Some(Binding::Expr { expr, env, .. }) => self.gathers(expr, env, depth + 1),
            _ => 0,
        };
        match &e.kind {
            K::Reduce { .. } => REDUCTION_GATHER,
            K::NeighborShift { arg, .. } => 1u32.saturating_add(self.gathers(arg, env, depth + 1)),
            K::Param(i) => through(env.params.get(*i as usize)),
            K::Var(v) => through(env.vars.get(v)),
            K::Let { var, value, body } => self.gathers(
                body,
                &Env::with_let(env, *var, value, Vec::new()),
                depth + 1,
            ),
            K::TupleGet { arg, index } => self.element_gathers(arg, env, depth + 1, *index),
            K::Call { callee, args } => {
                // The operator's own gathers (its parameters' counted with the arguments).
                let mut in_body = 0u32;
                if let Some(op) = self.program.bundle.operator(callee) {
                    op.body.walk(&mut |x| match x.kind {
                        K::Reduce { .. } => in_body = in_body.saturating_add(REDUCTION_GATHER),
                        K::NeighborShift { .. } => in_body = in_body.saturating_add(1),
                        _ => {}
                    });
                }
                args.iter().fold(in_body, |sum, a| {
                    sum.saturating_add(self.gathers(a, env, depth + 1))
                })
            }
            _ => {
                let mut sum = 0u32;
                e.for_each_child(|c| sum = sum.saturating_add(self.gathers(c, env, depth + 1)));
                sum
            }
        }
    }

    /// How much element `index` of the tuple `e` gathers: that element's own gathers where the
    /// tuple is written out (through variables, `let` and branches), else the whole tuple's.
    /// A destructured `let (a, b) = (x as f64, gradient(y))` must not make `a`, a plain read,
    /// count `b`'s reduction: `a` read through a neighbour would be copied into a temporary.
    fn element_gathers(&self, e: &'p Expr, env: &Rc<Env<'p>>, depth: u32, index: u32) -> u32 {
        use ExprKind as K;
        if depth > 256 {
            return 0;
        }
        let through = |b: Option<&Binding<'p>>| match b {
            Some(Binding::Expr { expr, env, .. }) => {
                self.element_gathers(expr, env, depth + 1, index)
            }
            _ => 0,
        };
        match &e.kind {
            K::Tuple(items) => items
                .get(index as usize)
                .map_or(0, |item| self.gathers(item, env, depth + 1)),
            K::Param(i) => through(env.params.get(*i as usize)),
            K::Var(v) => through(env.vars.get(v)),
            K::Let { var, value, body } => self.element_gathers(
                body,
                &Env::with_let(env, *var, value, Vec::new()),
                depth + 1,
                index,
            ),
            K::ConcatWhere {
                if_true, if_false, ..
            } => self
                .element_gathers(if_true, env, depth + 1, index)
                .saturating_add(self.element_gathers(if_false, env, depth + 1, index)),
            K::Select {
                cond,
                if_true,
                if_false,
            } => self
                .gathers(cond, env, depth + 1)
                .saturating_add(self.element_gathers(if_true, env, depth + 1, index))
                .saturating_add(self.element_gathers(if_false, env, depth + 1, index)),
            _ => self.gathers(e, env, depth),
        }
    }

    fn lower_binding(&mut self, binding: Binding<'p>, ctx: &Ctx<'p>) -> Result<Value, LowerError> {
        match binding {
            Binding::Expr { expr, env, regions } => {
                let key = BindingUse::new(expr, &env, &regions, ctx);
                let known = self.lowered_uses.last().and_then(|uses| uses.get(&key));
                if let Some((_, value)) = known {
                    return Ok(value.clone());
                }
                let effects_before = self.effects();
                let mut c = ctx.clone();
                c.regions = regions.clone();
                let value = self.lower(expr, &env, &c)?;
                if self.effects() == effects_before {
                    if let Some(uses) = self.lowered_uses.last_mut() {
                        let binding = Binding::Expr { expr, env, regions };
                        uses.insert(key, (binding, value.clone()));
                    }
                }
                Ok(value)
            }
            Binding::Value(v) => Ok(v),
            Binding::ProgramParam(p) => {
                let param = &self.program.params[p as usize];
                match &param.ty {
                    Type::Scalar(t) => Ok(Value::Node(self.b.add(Node::Scalar {
                        param: p,
                        dtype: *t,
                    }))),
                    Type::Field { dims, dtype } => {
                        let local_dim = dims.iter().find(|d| {
                            self.program.bundle.dim(d).map(|i| i.kind) == Some(DimKind::Local)
                        });
                        let local = match local_dim {
                            Some(l) => Some(ctx.slot_of(l).ok_or_else(|| LowerError {
                                message: format!(
                                    "the sparse field `{}` is used outside a reduction over `{l}` and without a slot `[{l}(n)]`",
                                    param.name
                                ),
                            })?),
                            None => None,
                        };
                        // A field the call writes, read through a shift or written by an
                        // earlier group: read from a copy made before the call writes, so
                        // every point reads what was there before (the points read may be
                        // points written, by this group's stage or an earlier one).
                        let source = if (!ctx.path.is_empty() && self.written.contains(&p))
                            || self.written_by_earlier_groups.contains(&p)
                        {
                            Source::Temporary(self.copy_of(p, dims, *dtype)?)
                        } else {
                            Source::Param(p)
                        };
                        Ok(Value::Node(self.b.add(Node::Load {
                            source,
                            path: ctx.path.clone(),
                            local,
                            dtype: *dtype,
                            guarded: ctx.guarded,
                        })))
                    }
                    Type::Tuple(_) => err(format!(
                        "tuple parameter `{}` is not supported by the fused backends",
                        param.name
                    )),
                }
            }
        }
    }

    /// What lowering changes besides adding hash-consed nodes: scan carries, stages and
    /// temporaries. Lowering a binding again gives the same value when these stay put.
    fn effects(&self) -> (usize, usize, usize) {
        (
            self.b.carry_count() as usize,
            self.pre_stages.len(),
            self.temporaries.len(),
        )
    }

    fn lower_call(
        &mut self,
        call: &'p Expr,
        callee: &str,
        args: &'p [Expr],
        env: &Rc<Env<'p>>,
        ctx: &Ctx<'p>,
    ) -> Result<Value, LowerError> {
        let program = self.program;
        let op = program.bundle.operator(callee).ok_or_else(|| LowerError {
            message: format!("operator `{callee}` is missing from the program's bundle"),
        })?;
        let arg_bindings = args.iter().map(|a| Binding::Expr {
            expr: a,
            env: env.clone(),
            regions: ctx.regions.clone(),
        });
        match &op.kind {
            OperatorKind::Field => {
                let inner = Rc::new(Env {
                    params: arg_bindings.collect(),
                    vars: BTreeMap::new(),
                });
                self.lower(&op.body, &inner, ctx)
            }
            OperatorKind::Scan {
                axis,
                forward,
                init,
            } => {
                if !ctx.path.is_empty() {
                    // Read shifted: computed over the reading stage's domain by a stage of its
                    // own, then read through the shift (outside that domain it is undefined, as
                    // on the embedded backend). Through a neighbour, the scan would run over
                    // another dimension than the reader's.
                    let cartesian = ctx
                        .path
                        .steps
                        .iter()
                        .all(|s| matches!(s, Step::Cartesian { .. }));
                    if cartesian && !self.in_temporary {
                        return self.materialise_scan(call, env, ctx);
                    }
                    if !self.in_temporary {
                        if let Some(value) = self.materialise_scan_through(call, env, ctx)? {
                            return Ok(value);
                        }
                    }
                    return err(format!(
                        "the result of scan operator `{}` is read through a shift the fused backends do not follow for a scan (a dynamic shift, two neighbour shifts, or a read inside a value they keep as a temporary); compute it in a program of its own and read its output",
                        op.name
                    ));
                }
                if self.b.scan_conflicts(axis, *forward) {
                    return self.materialise_scan(call, env, ctx);
                }
                self.b.begin_scan(axis, *forward).map_err(|m| LowerError {
                    message: format!("scan operator `{}`: {m}", op.name),
                })?;
                let init_env = Rc::new(Env::default());
                let init = self.lower(init, &init_env, &Ctx::default())?;
                let mut init_leaves = Vec::new();
                init.leaves(&mut init_leaves);
                let first = self.b.reserve_carries(&init_leaves);
                let mut next_index = first;
                let carry = self.carry_value(&init, &mut next_index);
                let mut params = vec![Binding::Value(carry)];
                params.extend(arg_bindings);
                let body_env = Rc::new(Env {
                    params,
                    vars: BTreeMap::new(),
                });
                // The body is per level: evaluated at the stage's point, outside any slot.
                let level_ctx = Ctx {
                    guarded: ctx.guarded,
                    ..Ctx::default()
                };
                let result = self.lower(&op.body, &body_env, &level_ctx)?;
                let mut next_leaves = Vec::new();
                result.leaves(&mut next_leaves);
                if next_leaves.len() != init_leaves.len() {
                    return err(format!(
                        "scan operator `{}`: the carry has {} components but the body returns {}",
                        op.name,
                        init_leaves.len(),
                        next_leaves.len()
                    ));
                }
                // The scan runs in the regions it is written in: outside them its carry restarts
                // from `init`, so in a region it starts at the region's first level.
                let active = self.regions_hold(&ctx.regions)?;
                for (index, next) in (first..).zip(next_leaves) {
                    self.b.set_carry(index, next, active);
                }
                Ok(result)
            }
        }
    }

    fn carry_value(&mut self, init: &Value, next_index: &mut u32) -> Value {
        match init {
            Value::Node(n) => {
                let dtype = self.b.dtype(*n);
                let index = *next_index;
                *next_index += 1;
                Value::Node(self.b.add(Node::Carry { index, dtype }))
            }
            Value::Tuple(items) => Value::Tuple(
                items
                    .iter()
                    .map(|i| self.carry_value(i, next_index))
                    .collect(),
            ),
        }
    }

    /// A bool node: every region holds at the stage's point (`None`: no regions). With
    /// [`Self::region_dims`] set, a region holds unless its condition is decided against it
    /// by the comparisons on those dimensions.
    fn regions_hold(&mut self, regions: &[Region<'p>]) -> Result<Option<NodeId>, LowerError> {
        let mut all: Option<NodeId> = None;
        for r in regions {
            let c = match self.region_dims.clone() {
                None => {
                    let c = self.lower_cond(r.cond, &r.env, &Ctx::default())?;
                    if r.holds {
                        c
                    } else {
                        self.not(c)
                    }
                }
                Some(dims) => {
                    let (holds, fails) = self.lower_cond_partly(r.cond, &r.env, &dims)?;
                    match if r.holds { fails } else { holds } {
                        Some(against) => self.not(against),
                        None => continue,
                    }
                }
            };
            all = Some(match all {
                None => c,
                Some(a) => self.b.add(Node::Binary {
                    op: BinaryOp::BitAnd,
                    lhs: a,
                    rhs: c,
                    dtype: ScalarType::Bool,
                }),
            });
        }
        Ok(all)
    }

    fn not(&mut self, arg: NodeId) -> NodeId {
        self.b.add(Node::Unary {
            op: crate::fieldview::UnaryOp::Not,
            arg,
            dtype: ScalarType::Bool,
        })
    }

    /// `l op r` of two sets of points given as bool nodes, `None` meaning nowhere: and'ed with
    /// nowhere is nowhere, or'ed with it the other side.
    fn join(&mut self, l: Option<NodeId>, r: Option<NodeId>, op: BinaryOp) -> Option<NodeId> {
        match (l, r) {
            (Some(lhs), Some(rhs)) => Some(self.b.add(Node::Binary {
                op,
                lhs,
                rhs,
                dtype: ScalarType::Bool,
            })),
            (l, r) if op == BinaryOp::BitOr => l.or(r),
            _ => None,
        }
    }

    /// `cond` decided by its comparisons on `dims` alone: (where it surely holds, where it
    /// surely fails), `None` for nowhere; a comparison on another dimension decides nothing
    /// (the three-valued rule of the embedded backend's `holds_partly`).
    #[allow(clippy::type_complexity)]
    fn lower_cond_partly(
        &mut self,
        cond: &'p DomainCond,
        env: &Rc<Env<'p>>,
        dims: &[String],
    ) -> Result<(Option<NodeId>, Option<NodeId>), LowerError> {
        Ok(match cond {
            DomainCond::Cmp { dim, .. } if dims.contains(dim) => {
                let c = self.lower_cond(cond, env, &Ctx::default())?;
                (Some(c), Some(self.not(c)))
            }
            DomainCond::Cmp { .. } => (None, None),
            DomainCond::And(a, b) => {
                let (ta, fa) = self.lower_cond_partly(a, env, dims)?;
                let (tb, fb) = self.lower_cond_partly(b, env, dims)?;
                (
                    self.join(ta, tb, BinaryOp::BitAnd),
                    self.join(fa, fb, BinaryOp::BitOr),
                )
            }
            DomainCond::Or(a, b) => {
                let (ta, fa) = self.lower_cond_partly(a, env, dims)?;
                let (tb, fb) = self.lower_cond_partly(b, env, dims)?;
                (
                    self.join(ta, tb, BinaryOp::BitOr),
                    self.join(fa, fb, BinaryOp::BitAnd),
                )
            }
        })
    }

    fn lower_cond(
        &mut self,
        cond: &'p DomainCond,
        env: &Rc<Env<'p>>,
        ctx: &Ctx<'p>,
    ) -> Result<NodeId, LowerError> {
        Ok(match cond {
            DomainCond::Cmp { dim, op, value } => {
                let index = self.b.add(Node::Index {
                    dim: dim.clone(),
                    path: ctx.path.clone(),
                });
                let v = self.lower(value, env, &Ctx::default())?.node()?;
                let v = self.cast(v, ScalarType::I64);
                self.b.add(Node::Compare {
                    op: *op,
                    lhs: index,
                    rhs: v,
                })
            }
            DomainCond::And(a, b) | DomainCond::Or(a, b) => {
                let op = if matches!(cond, DomainCond::And(..)) {
                    BinaryOp::BitAnd
                } else {
                    BinaryOp::BitOr
                };
                let l = self.lower_cond(a, env, ctx)?;
                let r = self.lower_cond(b, env, ctx)?;
                self.b.add(Node::Binary {
                    op,
                    lhs: l,
                    rhs: r,
                    dtype: ScalarType::Bool,
                })
            }
        })
    }

    fn select(&mut self, cond: NodeId, t: &Value, f: &Value) -> Result<Value, LowerError> {
        Ok(match (t, f) {
            (Value::Node(a), Value::Node(b)) => {
                let dtype = self.b.dtype(*a);
                Value::Node(self.b.add(Node::Select {
                    cond,
                    if_true: *a,
                    if_false: *b,
                    dtype,
                }))
            }
            (Value::Tuple(a), Value::Tuple(b)) if a.len() == b.len() => {
                let mut items = Vec::new();
                for (x, y) in a.iter().zip(b) {
                    items.push(self.select(cond, x, y)?);
                }
                Value::Tuple(items)
            }
            _ => return err("the branches of a select have different tuple shapes"),
        })
    }

    fn map_value(&mut self, v: &Value, f: &mut impl FnMut(&mut Self, NodeId) -> NodeId) -> Value {
        match v {
            Value::Node(n) => Value::Node(f(self, *n)),
            Value::Tuple(items) => {
                Value::Tuple(items.iter().map(|i| self.map_value(i, f)).collect())
            }
        }
    }
}

#[cfg(test)]
mod tests;

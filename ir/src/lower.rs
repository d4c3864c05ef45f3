//! Fused lowering: fieldview [`Program`] → [`StageProgram`].
//!
//! Every program call becomes one stage per distinct output domain (tuple targets may give each
//! element its own domain). Operator calls are inlined by substitution: a parameter is bound to
//! its argument expression and the caller's environment, and the argument is lowered where the
//! parameter is used, at the use's access path. So shifts are pushed down to the leaves: shifting
//! a computed value composes the shift into every leaf's path and every `Index` node, and a
//! `concat_where` condition is evaluated at the shifted point. A sparse (local-dimension)
//! sub-expression is lowered at a slot: the variable of the enclosing reduction, or the fixed
//! slot of `x[O(n)]`.
//!
//! Nodes are hash-consed (each distinct sub-expression is built once per stage) and literal
//! operations are folded.
//!
//! Temporaries: this lowering always recomputes. A computed value read through a shift is
//! re-evaluated at each shifted point; the only cases that would need a buffer (a scan result
//! read shifted, two scans in conflicting directions in one stage) are rejected with a
//! [`LowerError`] naming the problem, rather than silently materialised.

mod builder;

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::fieldview::{BinaryOp, DomainCond, Expr, ExprKind, OperatorKind, Program, Target};
use crate::stage::{
    AccessPath, Bound, Node, NodeId, Output, Slot, Source, Stage, StageProgram, StageRange, Step,
};
use crate::types::{DimKind, ScalarType, Type};

use builder::StageBuilder;

/// Why a program could not be lowered.
#[derive(Clone, Debug, PartialEq)]
pub struct LowerError {
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
    Node(NodeId),
    Tuple(Vec<Value>),
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
    Expr { expr: &'a Expr, env: Rc<Env<'a>> },
    /// An already lowered value (a scan's carry).
    Value(Value),
}

#[derive(Clone, Default)]
struct Env<'a> {
    params: Vec<Binding<'a>>,
    vars: BTreeMap<u32, Binding<'a>>,
}

/// Where an expression is evaluated, relative to the stage's point.
#[derive(Clone, Default)]
struct Ctx {
    path: AccessPath,
    /// Slot of each local dimension in scope, innermost last.
    slots: Vec<(String, Slot)>,
    /// Inside a `concat_where` branch.
    guarded: bool,
}

impl Ctx {
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

/// Lowers a checked program into fused stages.
pub fn lower(program: &Program) -> Result<StageProgram, LowerError> {
    let mut stages = Vec::new();
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
        for group in groups {
            let stage =
                lower_group(program, call_index, &call.value, &group).map_err(|e| LowerError {
                    message: format!(
                        "call {} of program `{}`: {}",
                        call_index + 1,
                        program.name,
                        e.message
                    ),
                })?;
            stages.push(stage);
        }
    }
    Ok(StageProgram {
        name: program.name.clone(),
        stages,
        temporaries: Vec::new(),
        dims: program.bundle.dims.clone(),
        offsets: program.bundle.offsets.clone(),
    })
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

fn lower_group(
    program: &Program,
    _call_index: usize,
    value: &Expr,
    group: &[&TargetLeaf],
) -> Result<Stage, LowerError> {
    let env = Rc::new(Env {
        params: (0..program.params.len() as u32)
            .map(Binding::ProgramParam)
            .collect(),
        vars: BTreeMap::new(),
    });
    let mut lowering = Lowering {
        program,
        b: StageBuilder::default(),
    };
    let dims = field_dims(program, group[0].1)?;
    for d in &dims {
        match program.bundle.dim(d).map(|i| i.kind) {
            Some(DimKind::Local) => {
                return err(format!(
                    "writing a field with the local dimension `{d}` is not supported by the fused backends"
                ))
            }
            None => return err(format!("unknown dimension `{d}`")),
            _ => {}
        }
    }
    let mut domain = Vec::new();
    let ranges = group[0].2;
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
    for r in ranges {
        if !dims.contains(&r.dim) {
            return err(format!(
                "the domain names `{}`, which the output field does not have",
                r.dim
            ));
        }
    }
    let lowered = lowering.lower(value, &env, &Ctx::default())?;
    let mut outputs = Vec::new();
    for (index, param, _) in group {
        let mut v = &lowered;
        for i in index {
            v = match v {
                Value::Tuple(items) => items.get(*i as usize).ok_or_else(|| LowerError {
                    message: "the output tuple is longer than the value".into(),
                })?,
                Value::Node(_) => return err("a tuple output is written from a non-tuple value"),
            };
        }
        outputs.push(Output {
            target: Source::Param(*param),
            value: v.node()?,
        });
    }
    Ok(lowering.b.finish(domain, outputs))
}

struct Lowering<'p> {
    program: &'p Program,
    b: StageBuilder,
}

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

    fn lower(&mut self, e: &'p Expr, env: &Rc<Env<'p>>, ctx: &Ctx) -> Result<Value, LowerError> {
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
            K::Let { var, value, body } => {
                let mut inner = (**env).clone();
                inner.vars.insert(
                    *var,
                    Binding::Expr {
                        expr: value,
                        env: env.clone(),
                    },
                );
                self.lower(body, &Rc::new(inner), ctx)?
            }
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
                let mut c = ctx.clone();
                c.path = ctx.path.then(Step::Neighbor {
                    offset: offset.clone(),
                    slot,
                });
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
            }
            | K::IfElse {
                cond,
                then: if_true,
                otherwise: if_false,
            } => {
                let c = self.lower(cond, env, ctx)?.node()?;
                let t = self.lower(if_true, env, ctx)?;
                let f = self.lower(if_false, env, ctx)?;
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
                let mut guarded = ctx.clone();
                guarded.guarded = true;
                let t = self.lower(if_true, env, &guarded)?;
                let f = self.lower(if_false, env, &guarded)?;
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
            K::Call { callee, args } => self.lower_call(callee, args, env, ctx)?,
        })
    }

    fn lower_binding(&mut self, binding: Binding<'p>, ctx: &Ctx) -> Result<Value, LowerError> {
        match binding {
            Binding::Expr { expr, env } => self.lower(expr, &env, ctx),
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
                        Ok(Value::Node(self.b.add(Node::Load {
                            source: Source::Param(p),
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

    fn lower_call(
        &mut self,
        callee: &str,
        args: &'p [Expr],
        env: &Rc<Env<'p>>,
        ctx: &Ctx,
    ) -> Result<Value, LowerError> {
        let program = self.program;
        let op = program.bundle.operator(callee).ok_or_else(|| LowerError {
            message: format!("operator `{callee}` is missing from the program's bundle"),
        })?;
        let arg_bindings = args.iter().map(|a| Binding::Expr {
            expr: a,
            env: env.clone(),
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
                    return err(format!(
                        "the result of scan operator `{}` is read shifted; that needs a temporary, which the fused backends do not build",
                        op.name
                    ));
                }
                self.b.begin_scan(axis, *forward).map_err(|m| LowerError {
                    message: format!("scan operator `{}`: {m}", op.name),
                })?;
                let init_env = Rc::new(Env::default());
                let init = self.lower(init, &init_env, &Ctx::default())?;
                let mut init_leaves = Vec::new();
                init.leaves(&mut init_leaves);
                let first = self.b.carry_count();
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
                for (init, next) in init_leaves.into_iter().zip(next_leaves) {
                    self.b.push_carry(init, next);
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

    fn lower_cond(
        &mut self,
        cond: &'p DomainCond,
        env: &Rc<Env<'p>>,
        ctx: &Ctx,
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

//! Constructors for fieldview IR, for code that writes programs without the macro frontend:
//! tests, build scripts, program generators.
//!
//! One function per node kind, named after its [`ExprKind`] variant. A constructor derives the
//! node's type from its operands where the node alone decides it (a shift keeps its argument's
//! type, a reduction drops its local dimension, …) and takes it as its last argument where
//! the checker would need more than the operands to decide it (promotion across dimensions,
//! the target of a neighbour offset, the return type of a callee). Nothing is checked: these
//! build what they are given, well-typed or not, so a test can also build what the checker
//! would reject.
//!
//! ```
//! use gt4rs_ir::build::*;
//! use gt4rs_ir::fieldview::Role;
//! use gt4rs_ir::{ScalarType, Type};
//!
//! let ck = Type::field(&["Cell", "K"], ScalarType::F64);
//! // out = 0.5 * (a(K-1) + a(K+1)) over the levels 1..nlev-1
//! let a = || param(0, ck.clone());
//! let value = mul(float(0.5), add(cartesian_shift(a(), "K", -1), cartesian_shift(a(), "K", 1)));
//! let nlev = param(2, Type::Scalar(ScalarType::I32));
//! let program = program(
//!     "smooth",
//!     vec![
//!         program_param("a", ck.clone(), Role::In),
//!         program_param("out", ck.clone(), Role::Out),
//!         program_param("nlev", Type::Scalar(ScalarType::I32), Role::In),
//!     ],
//!     vec![write(value, field_target(1, vec![range("K", int(1), sub(nlev, int(1)))]))],
//!     bundle(vec![], &["Cell"], &["K"], &[]),
//! );
//! assert_eq!(program.calls.len(), 1);
//! ```

use crate::fieldview::{
    BinaryOp, Bundle, DomainCond, DomainRange, Expr, ExprKind, Literal, MathFun, Operator,
    OperatorKind, Param, Program, ProgramCall, ProgramParam, ReduceOp, Role, Target, UnaryOp,
};
use crate::types::{CmpOp, DimInfo, DimKind, OffsetInfo, ScalarType, Type};

// ---- leaves ---------------------------------------------------------------------------------

/// Parameter `index` of the enclosing operator or program.
pub fn param(index: u32, ty: Type) -> Expr {
    Expr::new(ty, ExprKind::Param(index))
}

/// The value bound to `let` variable `index`.
pub fn var(index: u32, ty: Type) -> Expr {
    Expr::new(ty, ExprKind::Var(index))
}

/// A scalar literal of element type `dtype`.
pub fn literal(value: Literal, dtype: ScalarType) -> Expr {
    Expr::new(Type::Scalar(dtype), ExprKind::Literal(value))
}

/// An `f64` literal.
pub fn float(value: f64) -> Expr {
    literal(Literal::float(value), ScalarType::F64)
}

/// An `i32` literal: the type Rust gives an unsuffixed integer, and that of domain bounds.
pub fn int(value: i64) -> Expr {
    literal(Literal::Int(value), ScalarType::I32)
}

/// A `bool` literal.
pub fn boolean(value: bool) -> Expr {
    literal(Literal::Bool(value), ScalarType::Bool)
}

/// `let var = value; body`, of the body's type.
pub fn let_(var: u32, value: Expr, body: Expr) -> Expr {
    Expr::new(
        body.ty.clone(),
        ExprKind::Let {
            var,
            value: Box::new(value),
            body: Box::new(body),
        },
    )
}

// ---- arithmetic -----------------------------------------------------------------------------

/// `-arg` or `!arg`, of the argument's type.
pub fn unary(op: UnaryOp, arg: Expr) -> Expr {
    Expr::new(
        arg.ty.clone(),
        ExprKind::Unary {
            op,
            arg: Box::new(arg),
        },
    )
}

/// `lhs op rhs` of type `ty`.
pub fn binary(op: BinaryOp, lhs: Expr, rhs: Expr, ty: Type) -> Expr {
    Expr::new(
        ty,
        ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
    )
}

/// The type of `lhs op rhs` when no dimension needs reordering: a field over the dimensions of
/// both operands (those of `lhs`, then the others of `rhs`, in their order) with the element
/// type of the first field operand; `rhs`'s type when neither is a field. The checker orders
/// dimensions canonically instead ([`crate::types::promote_dims`]); where that differs, pass
/// the type to [`binary`] yourself.
pub fn combined_type(lhs: &Type, rhs: &Type) -> Type {
    match (lhs, rhs) {
        (Type::Field { dims: a, dtype }, Type::Field { dims: b, .. }) => {
            let mut dims = a.clone();
            dims.extend(b.iter().filter(|d| !a.contains(d)).cloned());
            Type::Field {
                dims,
                dtype: *dtype,
            }
        }
        (Type::Field { .. }, _) => lhs.clone(),
        _ => rhs.clone(),
    }
}

/// `lhs + rhs`, of their [`combined_type`].
pub fn add(lhs: Expr, rhs: Expr) -> Expr {
    combined(BinaryOp::Add, lhs, rhs)
}

/// `lhs - rhs`, of their [`combined_type`].
pub fn sub(lhs: Expr, rhs: Expr) -> Expr {
    combined(BinaryOp::Sub, lhs, rhs)
}

/// `lhs * rhs`, of their [`combined_type`].
pub fn mul(lhs: Expr, rhs: Expr) -> Expr {
    combined(BinaryOp::Mul, lhs, rhs)
}

/// `lhs / rhs`, of their [`combined_type`].
pub fn div(lhs: Expr, rhs: Expr) -> Expr {
    combined(BinaryOp::Div, lhs, rhs)
}

fn combined(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    let ty = combined_type(&lhs.ty, &rhs.ty);
    binary(op, lhs, rhs, ty)
}

/// `lhs op rhs` (a comparison) of type `ty`, whose element type is `bool`.
pub fn compare(op: CmpOp, lhs: Expr, rhs: Expr, ty: Type) -> Expr {
    Expr::new(
        ty,
        ExprKind::Compare {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
    )
}

/// A math builtin applied to `args` (one or two, see [`MathFun::arity`]), of type `ty`.
pub fn math(fun: MathFun, args: Vec<Expr>, ty: Type) -> Expr {
    Expr::new(ty, ExprKind::Math { fun, args })
}

/// `arg as to`: the argument's type with element type `to`.
pub fn cast(arg: Expr, to: ScalarType) -> Expr {
    let ty = match &arg.ty {
        Type::Field { dims, .. } => Type::Field {
            dims: dims.clone(),
            dtype: to,
        },
        _ => Type::Scalar(to),
    };
    Expr::new(
        ty,
        ExprKind::Cast {
            arg: Box::new(arg),
            to,
        },
    )
}

// ---- shifts and neighbours --------------------------------------------------------------------

/// `arg.at(dim + offset)`, of the argument's type.
pub fn cartesian_shift(arg: Expr, dim: &str, offset: i64) -> Expr {
    Expr::new(
        arg.ty.clone(),
        ExprKind::CartesianShift {
            arg: Box::new(arg),
            dim: dim.into(),
            offset,
        },
    )
}

/// `arg.at(dim + offset)` with `offset` an integer field or scalar, of the argument's type.
pub fn dynamic_shift(arg: Expr, dim: &str, offset: Expr) -> Expr {
    Expr::new(
        arg.ty.clone(),
        ExprKind::DynamicShift {
            arg: Box::new(arg),
            dim: dim.into(),
            offset: Box::new(offset),
        },
    )
}

/// `arg.at(offset)` (`slot` `None`: all neighbours, adding the local dimension `offset`) or
/// `arg.at(offset[slot])`, of type `ty` (the offset's `from` dimension replaces its `to`).
pub fn neighbor_shift(arg: Expr, offset: &str, slot: Option<u32>, ty: Type) -> Expr {
    Expr::new(
        ty,
        ExprKind::NeighborShift {
            arg: Box::new(arg),
            offset: offset.into(),
            slot,
        },
    )
}

/// `arg[local(slot)]`: the argument's type without the local dimension.
pub fn local_index(arg: Expr, local: &str, slot: u32) -> Expr {
    Expr::new(
        without_dim(&arg.ty, local),
        ExprKind::LocalIndex {
            arg: Box::new(arg),
            local: local.into(),
            slot,
        },
    )
}

/// `neighbor_sum(arg, local)`, `max_over`, `min_over`: the argument's type without the local
/// dimension.
pub fn reduce(op: ReduceOp, local: &str, arg: Expr) -> Expr {
    Expr::new(
        without_dim(&arg.ty, local),
        ExprKind::Reduce {
            op,
            local: local.into(),
            arg: Box::new(arg),
        },
    )
}

fn without_dim(ty: &Type, dim: &str) -> Type {
    match ty {
        Type::Field { dims, dtype } => Type::Field {
            dims: dims.iter().filter(|d| *d != dim).cloned().collect(),
            dtype: *dtype,
        },
        _ => ty.clone(),
    }
}

/// `broadcast(arg, dims)`: a field over `dims` of the argument's element type.
///
/// # Panics
/// If `arg` is a tuple, which has no single element type.
pub fn broadcast(arg: Expr, dims: &[&str]) -> Expr {
    let dtype = arg
        .ty
        .dtype()
        .expect("broadcast takes a scalar or a field, not a tuple");
    Expr::new(
        Type::field(dims, dtype),
        ExprKind::Broadcast {
            arg: Box::new(arg),
            dims: dims.iter().map(|d| d.to_string()).collect(),
        },
    )
}

// ---- choices --------------------------------------------------------------------------------

/// `select(cond, if_true, if_false)`, elementwise, of type `ty`.
pub fn select(cond: Expr, if_true: Expr, if_false: Expr, ty: Type) -> Expr {
    Expr::new(
        ty,
        ExprKind::Select {
            cond: Box::new(cond),
            if_true: Box::new(if_true),
            if_false: Box::new(if_false),
        },
    )
}

/// `if cond { then } else { otherwise }` on a scalar `bool`, of type `ty`.
pub fn if_else(cond: Expr, then: Expr, otherwise: Expr, ty: Type) -> Expr {
    Expr::new(
        ty,
        ExprKind::IfElse {
            cond: Box::new(cond),
            then: Box::new(then),
            otherwise: Box::new(otherwise),
        },
    )
}

/// `concat_where(cond, if_true, if_false)`, of type `ty`.
pub fn concat_where(cond: DomainCond, if_true: Expr, if_false: Expr, ty: Type) -> Expr {
    Expr::new(
        ty,
        ExprKind::ConcatWhere {
            cond,
            if_true: Box::new(if_true),
            if_false: Box::new(if_false),
        },
    )
}

/// `index(dim) op value`, a condition of [`concat_where`]; `value` is a scalar integer.
pub fn index_cmp(dim: &str, op: CmpOp, value: Expr) -> DomainCond {
    DomainCond::Cmp {
        dim: dim.into(),
        op,
        value: Box::new(value),
    }
}

/// `a & b` of two domain conditions.
pub fn domain_and(a: DomainCond, b: DomainCond) -> DomainCond {
    DomainCond::And(Box::new(a), Box::new(b))
}

/// `a | b` of two domain conditions.
pub fn domain_or(a: DomainCond, b: DomainCond) -> DomainCond {
    DomainCond::Or(Box::new(a), Box::new(b))
}

// ---- tuples and calls -----------------------------------------------------------------------

/// `(items…)`, of the tuple of their types.
pub fn tuple(items: Vec<Expr>) -> Expr {
    let ty = Type::Tuple(items.iter().map(|i| i.ty.clone()).collect());
    Expr::new(ty, ExprKind::Tuple(items))
}

/// `arg.index`, of the type of that element.
///
/// # Panics
/// If `arg` is not a tuple with an element `index`.
pub fn tuple_get(arg: Expr, index: u32) -> Expr {
    let ty = match &arg.ty {
        Type::Tuple(items) => items.get(index as usize).cloned(),
        _ => None,
    }
    .expect("tuple_get takes a tuple with an element at the index");
    Expr::new(
        ty,
        ExprKind::TupleGet {
            arg: Box::new(arg),
            index,
        },
    )
}

/// A call of the operator keyed `callee`, of its return type `ty`. For a scan operator `args`
/// are the values of its parameters after the carry.
pub fn call(callee: &str, args: Vec<Expr>, ty: Type) -> Expr {
    Expr::new(
        ty,
        ExprKind::Call {
            callee: callee.into(),
            args,
        },
    )
}

// ---- operators ------------------------------------------------------------------------------

/// A parameter declaration of an operator.
pub fn operator_param(name: &str, ty: Type) -> Param {
    Param {
        name: name.into(),
        ty,
    }
}

/// Parameters of the given types named `p0`, `p1`, … in order, where the names do not matter.
pub fn positional_params(types: impl IntoIterator<Item = Type>) -> Vec<Param> {
    types
        .into_iter()
        .enumerate()
        .map(|(i, ty)| operator_param(&format!("p{i}"), ty))
        .collect()
}

/// A field operator returning its body's type. Its key is its name: hand-built programs need
/// no hash to tell operators of different crates apart (set `key` to give one).
pub fn field_operator(name: &str, params: Vec<Param>, body: Expr) -> Operator {
    Operator {
        key: name.into(),
        name: name.into(),
        params,
        ret: body.ty.clone(),
        body,
        kind: OperatorKind::Field,
    }
}

/// A scan operator along `axis` starting from `init`; `params[0]` is the carry. It returns its
/// body's type (the carry's) and is keyed by its name as [`field_operator`].
pub fn scan_operator(
    name: &str,
    params: Vec<Param>,
    body: Expr,
    axis: &str,
    forward: bool,
    init: Expr,
) -> Operator {
    Operator {
        kind: OperatorKind::Scan {
            axis: axis.into(),
            forward,
            init,
        },
        ..field_operator(name, params, body)
    }
}

// ---- declarations ---------------------------------------------------------------------------

/// A dimension declaration.
pub fn dim(name: &str, kind: DimKind) -> DimInfo {
    DimInfo {
        name: name.into(),
        kind,
    }
}

/// A neighbour offset `name: from => to [count]`.
pub fn offset(name: &str, from: &str, to: &str, count: u32) -> OffsetInfo {
    OffsetInfo {
        name: name.into(),
        key: String::new(),
        from: from.into(),
        to: to.into(),
        count,
        skip_values: false,
    }
}

/// A neighbour offset `name: from => to [count] with skip_values`: its tables may hold -1.
pub fn offset_with_skip_values(name: &str, from: &str, to: &str, count: u32) -> OffsetInfo {
    OffsetInfo {
        skip_values: true,
        ..offset(name, from, to, count)
    }
}

/// `operators` with the dimensions and offsets they mention. Every offset also declares its
/// local dimension of the same name; dimensions are listed horizontal, local (in the order of
/// `offsets`), vertical.
pub fn bundle(
    operators: Vec<Operator>,
    horizontal: &[&str],
    vertical: &[&str],
    offsets: &[OffsetInfo],
) -> Bundle {
    let dims = horizontal
        .iter()
        .map(|d| dim(d, DimKind::Horizontal))
        .chain(offsets.iter().map(|o| dim(&o.name, DimKind::Local)))
        .chain(vertical.iter().map(|d| dim(d, DimKind::Vertical)))
        .collect();
    Bundle {
        operators,
        dims,
        offsets: offsets.to_vec(),
    }
}

// ---- programs -------------------------------------------------------------------------------

/// A program parameter, not `#[static_arg]`.
pub fn program_param(name: &str, ty: Type, role: Role) -> ProgramParam {
    ProgramParam {
        name: name.into(),
        ty,
        role,
        is_static: false,
    }
}

/// `start..end` along `dim`, both scalar integer expressions over program parameters.
pub fn range(dim: &str, start: Expr, end: Expr) -> DomainRange {
    DomainRange {
        dim: dim.into(),
        start,
        end,
    }
}

/// A domain of literal bounds, one `(dim, start, end)` per dimension it restricts.
pub fn literal_domain(ranges: &[(&str, i64, i64)]) -> Vec<DomainRange> {
    ranges
        .iter()
        .map(|&(d, start, end)| range(d, int(start), int(end)))
        .collect()
}

/// Program parameter `param` over `domain`; dimensions the domain does not list take the
/// field's whole range.
pub fn field_target(param: u32, domain: Vec<DomainRange>) -> Target {
    Target::Field { param, domain }
}

/// All of program parameter `param`.
pub fn whole_field(param: u32) -> Target {
    field_target(param, Vec::new())
}

/// The statement `value.write_to(target)`.
pub fn write(value: Expr, target: Target) -> ProgramCall {
    ProgramCall { value, target }
}

/// A program; `bundle` holds the operators its calls name and the dimensions and offsets used.
pub fn program(
    name: &str,
    params: Vec<ProgramParam>,
    calls: Vec<ProgramCall>,
    bundle: Bundle,
) -> Program {
    Program {
        name: name.into(),
        params,
        calls,
        bundle,
    }
}

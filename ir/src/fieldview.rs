//! The typed fieldview IR: what the macro's checker produces from a `#[field_operator]`,
//! `#[scan_operator]` or `#[program]`.
//!
//! Semantics are GT4Py's (`shared/reference/GT4PY_FIELDVIEW.md` §1): an expression of field type
//! is a function from points of its domain to values; operators between fields of different
//! dimensions broadcast to the union of the dimensions in canonical order. Every node carries its
//! type, so consumers never re-infer anything.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::stack;
use crate::types::{CmpOp, DimInfo, OffsetInfo, ScalarType, Type};

/// A typed expression.
///
/// A tree as deep as the user's longest chain of operators or `let`s: the recursive traits
/// (serde, `Clone`, `PartialEq`, `Debug`) are written out to grow the stack at each level
/// ([`stack::grow`]) and otherwise behave as derived (the JSON is `{"ty": …, "kind": …}`).
pub struct Expr {
    /// The expression's type (dimensions and element type, or a tuple of them).
    pub ty: Type,
    /// What the expression computes.
    pub kind: ExprKind,
}

/// `Expr`'s fields as serde sees them (the derived form of `Expr` itself).
#[derive(Serialize)]
#[serde(rename = "Expr")]
struct ExprFieldsRef<'a> {
    ty: &'a Type,
    kind: &'a ExprKind,
}

#[derive(Deserialize)]
#[serde(rename = "Expr")]
struct ExprFields {
    ty: Type,
    kind: ExprKind,
}

impl Serialize for Expr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = ExprFieldsRef {
            ty: &self.ty,
            kind: &self.kind,
        };
        stack::grow(|| fields.serialize(serializer))
    }
}

impl<'de> Deserialize<'de> for Expr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let ExprFields { ty, kind } = stack::grow(|| ExprFields::deserialize(deserializer))?;
        Ok(Expr { ty, kind })
    }
}

impl Clone for Expr {
    fn clone(&self) -> Self {
        stack::grow(|| Expr {
            ty: self.ty.clone(),
            kind: self.kind.clone(),
        })
    }
}

impl PartialEq for Expr {
    fn eq(&self, other: &Self) -> bool {
        stack::grow(|| self.ty == other.ty && self.kind == other.kind)
    }
}

impl std::fmt::Debug for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        stack::grow(|| {
            f.debug_struct("Expr")
                .field("ty", &self.ty)
                .field("kind", &self.kind)
                .finish()
        })
    }
}

/// A literal value. Floats are kept as bit patterns so NaN and infinities survive serialisation.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    /// `true` or `false`.
    Bool(bool),
    /// An integer literal, of the type the checker gave its expression.
    Int(i64),
    /// `f64::to_bits` of the value (an `f32` literal is stored widened).
    Float(u64),
}

impl Literal {
    /// A float literal of `value` (any bits, NaN included).
    pub fn float(value: f64) -> Literal {
        Literal::Float(value.to_bits())
    }
    /// The value as an `f64` (bool as 0 or 1).
    pub fn as_f64(self) -> f64 {
        match self {
            Literal::Bool(b) => b as i64 as f64,
            Literal::Int(i) => i as f64,
            Literal::Float(bits) => f64::from_bits(bits),
        }
    }
}

/// Unary operators.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `!x`: logical not on bool, bitwise not on integers.
    Not,
}

/// Binary arithmetic and bitwise operators; both operands have one element type.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+` (wrapping on integers).
    Add,
    /// `-` (wrapping on integers).
    Sub,
    /// `*` (wrapping on integers).
    Mul,
    /// `/`: truncating on integers, where a zero divisor is an error.
    Div,
    /// Rust's `%`: truncated remainder on integers, `fmod` on floats.
    Rem,
    /// `&`: logical and on bool, bitwise and on integers.
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
}

/// Elementwise math builtins, spelled as Rust's own methods (`x.sqrt()`, `a.max(b)`, …).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFun {
    /// `x.abs()`: floats and integers (wrapping: `abs(MIN)` is `MIN`).
    Abs,
    /// `x.sqrt()`
    Sqrt,
    /// `x.cbrt()`: the real cube root.
    Cbrt,
    /// `x.exp()`
    Exp,
    /// Natural logarithm (`x.ln()`).
    Ln,
    /// `x.log10()`
    Log10,
    /// `x.log2()`
    Log2,
    /// `x.sin()` (radians).
    Sin,
    /// `x.cos()` (radians).
    Cos,
    /// `x.tan()` (radians).
    Tan,
    /// `x.asin()`
    Asin,
    /// `x.acos()`
    Acos,
    /// `x.atan()`
    Atan,
    /// `x.sinh()`
    Sinh,
    /// `x.cosh()`
    Cosh,
    /// `x.tanh()`
    Tanh,
    /// `x.asinh()`
    Asinh,
    /// `x.acosh()`
    Acosh,
    /// `x.atanh()`
    Atanh,
    /// The gamma function (`gamma(x)`).
    Gamma,
    /// `x.floor()`
    Floor,
    /// `x.ceil()`
    Ceil,
    /// `x.trunc()`: rounds towards zero.
    Trunc,
    /// `x.round()`: half-way cases away from zero.
    Round,
    /// `x.is_nan()`, a bool.
    IsNan,
    /// `x.is_finite()`, a bool.
    IsFinite,
    /// `x.is_infinite()`, a bool.
    IsInfinite,
    /// `a.min(b)` (GT4Py `minimum`).
    Min,
    /// `a.max(b)` (GT4Py `maximum`).
    Max,
    /// `a.powf(b)`: float base and exponent.
    Powf,
    /// `a.powi(n)` (float base, i32 exponent) or `a.pow(n)` (integer base).
    Powi,
    /// `a.div_euclid(b)`: the Euclidean quotient (floor semantics, as Python's `//` for a
    /// positive divisor).
    DivEuclid,
    /// `a.rem_euclid(b)`: the remainder that is never negative (Python's `%` for a positive
    /// divisor).
    RemEuclid,
    /// `a.atan2(b)`
    Atan2,
    /// `a.hypot(b)`
    Hypot,
}

impl MathFun {
    /// How many arguments the function takes (1 or 2).
    pub fn arity(self) -> usize {
        use MathFun::*;
        match self {
            Min | Max | Powf | Powi | DivEuclid | RemEuclid | Atan2 | Hypot => 2,
            _ => 1,
        }
    }
    /// True for functions that return bool whatever their argument.
    pub fn is_predicate(self) -> bool {
        matches!(
            self,
            MathFun::IsNan | MathFun::IsFinite | MathFun::IsInfinite
        )
    }
    /// True for functions defined on floats only.
    pub fn float_only(self) -> bool {
        use MathFun::*;
        !matches!(self, Abs | Min | Max | DivEuclid | RemEuclid | Powi)
    }
}

/// Reductions over a local dimension.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// `neighbor_sum`: starts from 0.
    Sum,
    /// `max_over`: starts from the lowest finite value of the dtype.
    Max,
    /// `min_over`: starts from the highest finite value of the dtype.
    Min,
}

/// A condition on point indices for `concat_where`, e.g. `(K > 0) & (K < nlev - 1)`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum DomainCond {
    /// `index(dim) op value`; `value` is a scalar integer expression.
    Cmp {
        /// The dimension whose index is compared.
        dim: String,
        /// The comparison.
        op: CmpOp,
        /// The right-hand side.
        value: Box<Expr>,
    },
    /// Both conditions hold (`a & b`).
    And(Box<DomainCond>, Box<DomainCond>),
    /// Either condition holds (`a | b`).
    Or(Box<DomainCond>, Box<DomainCond>),
}

/// What an [`Expr`] computes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Parameter `n` of the enclosing operator or program.
    Param(u32),
    /// A `let`-bound value, numbered uniquely within the enclosing operator.
    Var(u32),
    /// `let var = value; body`
    Let {
        /// The variable's number.
        var: u32,
        /// The bound value.
        value: Box<Expr>,
        /// The expression that may read `var`.
        body: Box<Expr>,
    },
    /// A constant.
    Literal(Literal),
    /// `arg.at(dim + offset)`: `result[i] = arg[i + offset]` along `dim`.
    CartesianShift {
        /// The field shifted.
        arg: Box<Expr>,
        /// The Cartesian dimension of the shift.
        dim: String,
        /// The static shift (may be negative).
        offset: i64,
    },
    /// `arg.at(dim + off)` with `off` an integer field or scalar (GT4Py `as_offset`).
    DynamicShift {
        /// The field shifted.
        arg: Box<Expr>,
        /// The Cartesian dimension of the shift.
        dim: String,
        /// The integer shift, per point or one scalar.
        offset: Box<Expr>,
    },
    /// `arg.at(O)` (slot `None`: adds the local dimension `O`) or `arg.at(O[slot])`.
    /// The argument lives on `O.to`; the result on `O.from`.
    NeighborShift {
        /// The field read through the offset.
        arg: Box<Expr>,
        /// The offset's name.
        offset: String,
        /// The neighbour taken; `None` for all of them, as a new local dimension.
        slot: Option<u32>,
    },
    /// `arg[O(slot)]`: picks one slot of the local dimension `local`.
    LocalIndex {
        /// A sparse field.
        arg: Box<Expr>,
        /// Its local dimension (an offset's name).
        local: String,
        /// The slot picked.
        slot: u32,
    },
    /// `op arg`.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        arg: Box<Expr>,
    },
    /// `lhs op rhs`, elementwise with broadcasting.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// `lhs op rhs` as a bool, elementwise with broadcasting.
    Compare {
        /// The comparison.
        op: CmpOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// A math builtin, elementwise.
    Math {
        /// The function.
        fun: MathFun,
        /// Its arguments ([`MathFun::arity`] of them).
        args: Vec<Expr>,
    },
    /// `x as T`
    Cast {
        /// The value converted.
        arg: Box<Expr>,
        /// The element type converted to.
        to: ScalarType,
    },
    /// `select(cond, a, b)`: elementwise, `cond` a bool field or scalar; tuples map elementwise.
    Select {
        /// The condition.
        cond: Box<Expr>,
        /// The value where it holds.
        if_true: Box<Expr>,
        /// The value where it does not.
        if_false: Box<Expr>,
    },
    /// `if cond { a } else { b }` with a scalar bool condition: only one branch is evaluated.
    IfElse {
        /// A scalar bool.
        cond: Box<Expr>,
        /// The value when it holds.
        then: Box<Expr>,
        /// The value when it does not.
        otherwise: Box<Expr>,
    },
    /// `neighbor_sum(arg, O)`, `max_over`, `min_over`: removes the local dimension `local`,
    /// skipping slots whose connectivity entry is -1.
    Reduce {
        /// Sum, maximum or minimum.
        op: ReduceOp,
        /// The local dimension removed (an offset's name).
        local: String,
        /// A field with that local dimension.
        arg: Box<Expr>,
    },
    /// `broadcast(arg, (D1, D2, …))`
    Broadcast {
        /// The value broadcast.
        arg: Box<Expr>,
        /// The dimensions of the result, in canonical order.
        dims: Vec<String>,
    },
    /// `concat_where(cond, a, b)`: `a` where the point's indices satisfy `cond`, else `b`.
    ConcatWhere {
        /// The condition on the point's indices.
        cond: DomainCond,
        /// The value where it holds.
        if_true: Box<Expr>,
        /// The value where it does not.
        if_false: Box<Expr>,
    },
    /// A tuple of values (an operator returning several fields).
    Tuple(Vec<Expr>),
    /// Element `index` of a tuple.
    TupleGet {
        /// The tuple.
        arg: Box<Expr>,
        /// The element's position.
        index: u32,
    },
    /// A call of another field or scan operator, by its [`Operator::key`]. For a scan
    /// operator `args` are the values for its parameters after the carry.
    Call {
        /// The callee's [`Operator::key`], found in the enclosing [`Bundle`].
        callee: String,
        /// The arguments, one per parameter (after the carry, for a scan).
        args: Vec<Expr>,
    },
}

/// The one match over an expression's direct sub-expressions, for [`Expr::for_each_child`]
/// (`$kind` a `&ExprKind`, lists walked with `iter`) and [`Expr::for_each_child_mut`]
/// (`&mut ExprKind`, `iter_mut`): the patterns bind references of the matched kind's mutability.
macro_rules! each_child {
    ($kind:expr, $f:ident, $iter:ident) => {{
        use ExprKind::*;
        match $kind {
            Param(_) | Var(_) | Literal(_) => {}
            Let { value, body, .. } => {
                $f(value);
                $f(body)
            }
            CartesianShift { arg, .. }
            | NeighborShift { arg, .. }
            | LocalIndex { arg, .. }
            | Unary { arg, .. }
            | Cast { arg, .. }
            | Reduce { arg, .. }
            | Broadcast { arg, .. }
            | TupleGet { arg, .. } => $f(arg),
            DynamicShift { arg, offset, .. } => {
                $f(arg);
                $f(offset)
            }
            Binary { lhs, rhs, .. } | Compare { lhs, rhs, .. } => {
                $f(lhs);
                $f(rhs)
            }
            Math { args, .. } | Tuple(args) | Call { args, .. } => args.$iter().for_each($f),
            Select {
                cond,
                if_true,
                if_false,
            }
            | IfElse {
                cond,
                then: if_true,
                otherwise: if_false,
            } => {
                $f(cond);
                $f(if_true);
                $f(if_false)
            }
            ConcatWhere {
                if_true, if_false, ..
            } => {
                $f(if_true);
                $f(if_false)
            }
        }
    }};
}

impl Expr {
    /// An expression of type `ty` computing `kind`.
    pub fn new(ty: Type, kind: ExprKind) -> Expr {
        Expr { ty, kind }
    }

    /// Calls `f` on every direct sub-expression (not on domain-condition values).
    pub fn for_each_child<'a>(&'a self, mut f: impl FnMut(&'a Expr)) {
        each_child!(&self.kind, f, iter)
    }

    /// Calls `f` on every direct sub-expression, mutably (as [`Expr::for_each_child`]).
    pub fn for_each_child_mut(&mut self, mut f: impl FnMut(&mut Expr)) {
        each_child!(&mut self.kind, f, iter_mut)
    }

    /// Visits this expression and all sub-expressions mutably, parents first.
    pub fn walk_mut(&mut self, f: &mut impl FnMut(&mut Expr)) {
        stack::grow(|| {
            f(self);
            self.for_each_child_mut(|c| c.walk_mut(f));
        })
    }

    /// Visits this expression and all sub-expressions, parents first.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        stack::grow(|| {
            f(self);
            self.for_each_child(|c| c.walk(f));
        })
    }
}

/// A parameter of a field or scan operator.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Param {
    /// Its name in the source.
    pub name: String,
    /// Its type.
    pub ty: Type,
}

/// Whether an operator is a field operator or a scan.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum OperatorKind {
    /// A `#[field_operator]`: a pure function over fields.
    Field,
    /// A scan: `params[0]` is the carry, whose type equals the return type and `init`'s type;
    /// the other parameters are per-level scalars. The body is a scalar expression.
    Scan {
        /// The vertical dimension scanned along.
        axis: String,
        /// `true`: from the first level up; `false`: from the last down.
        forward: bool,
        /// The carry's value before the first level.
        init: Expr,
    },
}

/// A checked field or scan operator.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Operator {
    /// Unique across crates: the name plus a hash of where and what it is.
    pub key: String,
    /// Its name in the source.
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<Param>,
    /// Its return type.
    pub ret: Type,
    /// Its body, in operator scope ([`ExprKind::Param`] refers to `params`).
    pub body: Expr,
    /// Field operator or scan.
    pub kind: OperatorKind,
}

/// Everything an operator needs to be understood without its source: itself, every operator
/// it calls (transitively) and every dimension and offset they mention. This is what an
/// operator's hidden definition macro hands to whoever calls it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Bundle {
    /// The operator itself and every operator it calls.
    pub operators: Vec<Operator>,
    /// Every dimension they mention.
    pub dims: Vec<DimInfo>,
    /// Every offset they mention.
    pub offsets: Vec<OffsetInfo>,
}

impl Bundle {
    /// The operator with [`Operator::key`] `key`.
    pub fn operator(&self, key: &str) -> Option<&Operator> {
        self.operators.iter().find(|o| o.key == key)
    }
    /// The dimension named `name`.
    pub fn dim(&self, name: &str) -> Option<&DimInfo> {
        self.dims.iter().find(|d| d.name == name)
    }
    /// The offset named `name`.
    pub fn offset(&self, name: &str) -> Option<&OffsetInfo> {
        self.offsets.iter().find(|o| o.name == name)
    }
    /// An offset here named like `offset` but declared elsewhere: the two cannot share one
    /// name inside one item, whose IR names offsets by name.
    pub fn conflicting_offset(&self, offset: &OffsetInfo) -> Option<&OffsetInfo> {
        self.offsets
            .iter()
            .find(|o| o.name == offset.name && !o.same_declaration(offset))
    }
    /// Adds what `other` has and `self` lacks (keys and names are identities).
    pub fn merge(&mut self, other: &Bundle) {
        for o in &other.operators {
            if self.operator(&o.key).is_none() {
                self.operators.push(o.clone());
            }
        }
        for d in &other.dims {
            if self.dim(&d.name).is_none() {
                self.dims.push(d.clone());
            }
        }
        for o in &other.offsets {
            if self.offset(&o.name).is_none() {
                self.offsets.push(o.clone());
            }
        }
    }
}

/// How a program parameter is used.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Read only (`&Field` or a scalar).
    In,
    /// Written by a call and never read (`&mut Field`).
    Out,
    /// Read by some call and written by some call (`&mut Field`).
    InOut,
}

/// A parameter of a program.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ProgramParam {
    /// Its name (also the field's name in the generated `Args`).
    pub name: String,
    /// Its type: a field or a scalar.
    pub ty: Type,
    /// Read, written, or both.
    pub role: Role,
    /// Declared `#[static_arg]`: a scalar that `compile()` may specialise on.
    pub is_static: bool,
}

/// `start..end` along `dim`; both are scalar integer expressions over program parameters.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct DomainRange {
    /// The dimension.
    pub dim: String,
    /// The first index.
    pub start: Expr,
    /// One past the last index.
    pub end: Expr,
}

/// Where a program call writes its result.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Target {
    /// Program parameter `param` (a field), over `domain`. Dimensions of the field that the
    /// domain does not list take the field's whole range; an empty domain is the whole field.
    Field {
        /// The output parameter's position.
        param: u32,
        /// The ranges written; dimensions not listed are written whole.
        domain: Vec<DomainRange>,
    },
    /// A tuple result, element by element (each element with its own domain).
    Tuple(Vec<Target>),
}

/// One statement of a program: `value.write_to(target)`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ProgramCall {
    /// Evaluated in program scope (`Param` refers to program parameters); usually a `Call`.
    pub value: Expr,
    /// Where it is written.
    pub target: Target,
}

/// A checked program, with everything it calls.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Program {
    /// Its name (also the name of the generated module).
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<ProgramParam>,
    /// Its statements, in order.
    pub calls: Vec<ProgramCall>,
    /// Every operator, dimension and offset the statements use.
    pub bundle: Bundle,
}

impl Program {
    /// Offsets whose connectivity the program needs at run time (shifted through or reduced
    /// over), in the order of `bundle.offsets`.
    pub fn used_offsets(&self) -> Vec<&OffsetInfo> {
        let mut used = std::collections::BTreeSet::new();
        let mut visit = |e: &Expr| match &e.kind {
            ExprKind::NeighborShift { offset, .. } => {
                used.insert(offset.clone());
            }
            ExprKind::Reduce { local, .. } => {
                used.insert(local.clone());
            }
            _ => {}
        };
        for c in &self.calls {
            c.value.walk(&mut visit);
        }
        for op in &self.bundle.operators {
            op.body.walk(&mut visit);
        }
        self.bundle
            .offsets
            .iter()
            .filter(|o| used.contains(&o.name))
            .collect()
    }

    /// The program with scalar parameters fixed: every reference to parameter `p` in its
    /// statements' values becomes the literal given for it. The parameters stay (a caller
    /// still passes them); the fused backends lower such a copy per value of a `bool` static
    /// argument, so a branch on it that is not taken is not computed at all.
    pub fn with_scalar_values(&self, values: &[(u32, Literal)]) -> Program {
        let mut fixed = self.clone();
        for call in &mut fixed.calls {
            call.value.walk_mut(&mut |e: &mut Expr| {
                if let ExprKind::Param(p) = e.kind {
                    if let Some((_, value)) = values.iter().find(|(q, _)| *q == p) {
                        e.kind = ExprKind::Literal(*value);
                    }
                }
            });
        }
        fixed
    }

    /// The JSON form embedded in the generated program (read back by [`Program::from_json`]).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self)
            .expect("the IR serialises: it holds no maps with non-string keys")
    }

    /// Reads the JSON form written by [`Program::to_json`], however deeply its expressions nest.
    ///
    /// # Errors
    /// A JSON error where `json` is not such a document.
    pub fn from_json(json: &str) -> Result<Program, serde_json::Error> {
        stack::from_json(json)
    }
}

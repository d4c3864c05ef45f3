//! Dimensions, offsets, dtypes and expression types.

use serde::{Deserialize, Serialize};

/// What a dimension indexes. The declaration order is the canonical order of dimensions in a
/// field type: horizontal, then local, then vertical (GT4Py's rule), then by name.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DimKind {
    /// A horizontal dimension (cells, edges, vertices; `I`, `J`).
    Horizontal,
    /// A local dimension: the neighbours of a point, named after its offset.
    Local,
    /// A vertical dimension (levels); scans run along it.
    Vertical,
}

/// A declared dimension. Within one program every dimension name is unique.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct DimInfo {
    /// The dimension's name, as declared.
    pub name: String,
    /// What it indexes.
    pub kind: DimKind,
}

/// A declared neighbour offset, e.g. `E2C2V: Edge => Vertex [4]`. The offset is also the local
/// dimension (same name) that indexes the `count` neighbours of each `from` point.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct OffsetInfo {
    /// The offset's name (also the name of its local dimension).
    pub name: String,
    /// The declaration's identity: the name plus where it was declared, so two offsets named
    /// alike in different modules or crates are told apart when their tables are bound. Empty
    /// (or equal to `name`) for offsets built by hand, which are identified by name alone.
    #[serde(default)]
    pub key: String,
    /// Dimension of the points that own the neighbour list (the result of a shift).
    pub from: String,
    /// Dimension of the neighbours (the field that is read).
    pub to: String,
    /// The number of neighbours per `from` point (the table's width).
    pub count: u32,
    /// Declared `with skip_values`: its tables may hold -1 (no neighbour), which reductions
    /// skip. Without it a -1 in a bound table is an error (GT4Py's `skip_value`: none declared
    /// means a -1 is an error).
    #[serde(default)]
    pub skip_values: bool,
}

impl OffsetInfo {
    /// Whether this offset carries no identity beyond its name (built by hand, not declared by
    /// `offsets!`).
    pub fn is_unkeyed(&self) -> bool {
        self.key.is_empty() || self.key == self.name
    }

    /// Whether `self` and `other` are the same declaration (equal names are not enough once
    /// both carry keys).
    pub fn same_declaration(&self, other: &OffsetInfo) -> bool {
        self.name == other.name
            && (self.is_unkeyed() || other.is_unkeyed() || self.key == other.key)
    }

    /// Where the offset was declared, for messages: `file:line:column in crate name`, or its name
    /// where it carries no key.
    pub fn declared_at(&self) -> &str {
        match self.key.split_once('@') {
            Some((_, place)) => place,
            None => &self.name,
        }
    }
}

/// Element types of fields and scalars.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `bool`
    Bool,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `f32`
    F32,
    /// `f64`
    F64,
}

impl ScalarType {
    /// `f32` or `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }
    /// `i32` or `i64`.
    pub fn is_int(self) -> bool {
        matches!(self, ScalarType::I32 | ScalarType::I64)
    }
    /// A float or an integer (not `bool`).
    pub fn is_arithmetic(self) -> bool {
        self.is_float() || self.is_int()
    }
    /// The Rust spelling (`f64`, `i32`, `bool`, …).
    pub fn rust_name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
        }
    }
    /// The type of a Rust spelling (`"f64"`, …); `None` for any other name.
    pub fn from_rust_name(name: &str) -> Option<Self> {
        Some(match name {
            "bool" => ScalarType::Bool,
            "i32" => ScalarType::I32,
            "i64" => ScalarType::I64,
            "f32" => ScalarType::F32,
            "f64" => ScalarType::F64,
            _ => return None,
        })
    }
}

/// The type of a fieldview expression.
///
/// `Field { dims: [] }` is a 0-d field, distinct from `Scalar`. `dims` are dimension names in
/// canonical order (see [`DimKind`]).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// A scalar of this element type.
    Scalar(ScalarType),
    /// A field over `dims`.
    Field {
        /// Dimension names in canonical order.
        dims: Vec<String>,
        /// The element type.
        dtype: ScalarType,
    },
    /// A tuple of values of these types (operators that return several fields).
    Tuple(Vec<Type>),
}

impl Type {
    /// A field type over `dims` (given in canonical order) of `dtype`.
    pub fn field(dims: &[&str], dtype: ScalarType) -> Type {
        Type::Field {
            dims: dims.iter().map(|d| d.to_string()).collect(),
            dtype,
        }
    }
    /// The element type of a scalar or field; `None` for tuples.
    pub fn dtype(&self) -> Option<ScalarType> {
        match self {
            Type::Scalar(t) | Type::Field { dtype: t, .. } => Some(*t),
            Type::Tuple(_) => None,
        }
    }
    /// The dimensions of a field (empty for scalars); `None` for tuples.
    pub fn dims(&self) -> Option<&[String]> {
        match self {
            Type::Scalar(_) => Some(&[]),
            Type::Field { dims, .. } => Some(dims),
            Type::Tuple(_) => None,
        }
    }
    /// Whether this is a field type (0-d fields included).
    pub fn is_field(&self) -> bool {
        matches!(self, Type::Field { .. })
    }
}

impl std::fmt::Display for Type {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Type::Scalar(t) => write!(f, "{}", t.rust_name()),
            Type::Field { dims, dtype } if dims.len() == 1 => {
                write!(f, "Field<{}, {}>", dims[0], dtype.rust_name())
            }
            Type::Field { dims, dtype } => {
                write!(f, "Field<({}), {}>", dims.join(", "), dtype.rust_name())
            }
            Type::Tuple(items) => {
                write!(f, "(")?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{t}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// Comparison operators, used both in expressions and in `concat_where` domain conditions.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// Orders `dims` canonically: by kind (horizontal, local, vertical), then by name.
/// Returns `None` if a dimension is unknown to `infos`.
pub fn canonical_order(dims: &[String], infos: &[DimInfo]) -> Option<Vec<String>> {
    let mut keyed = Vec::with_capacity(dims.len());
    for d in dims {
        let info = infos.iter().find(|i| &i.name == d)?;
        keyed.push((info.kind, d.clone()));
    }
    keyed.sort();
    keyed.dedup();
    Some(keyed.into_iter().map(|(_, d)| d).collect())
}

/// The dimensions of the result of combining fields of dimensions `a` and `b`: their union in
/// canonical order. `Err` names the two local dimensions when both have a different one (a field
/// holds at most one local dimension).
pub fn promote_dims(a: &[String], b: &[String], infos: &[DimInfo]) -> Result<Vec<String>, String> {
    let mut all: Vec<String> = a.to_vec();
    for d in b {
        if !all.contains(d) {
            all.push(d.clone());
        }
    }
    let ordered = canonical_order(&all, infos).ok_or_else(|| "unknown dimension".to_string())?;
    let locals: Vec<&String> = ordered
        .iter()
        .filter(|d| {
            infos
                .iter()
                .any(|i| &i.name == *d && i.kind == DimKind::Local)
        })
        .collect();
    if locals.len() > 1 {
        return Err(format!(
            "a field holds at most one local dimension, but this combines `{}` and `{}`",
            locals[0], locals[1]
        ));
    }
    Ok(ordered)
}

//! A program's signature as data, for tools that need no hand-kept parameter lists.

use gt4rs_ir::fieldview::{Program, Role};
use gt4rs_ir::{ScalarType, Type};

/// What kind of value a program parameter takes.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// A field.
    Field {
        /// Its dimension names, in canonical order (a local dimension is an offset's name).
        dims: Vec<String>,
    },
    /// A scalar.
    Scalar,
    /// A tuple of fields (the element types of each).
    Tuple(Vec<Type>),
}

/// One parameter of a program.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSignature {
    /// Its name (the field's name in the generated `Args`).
    pub name: String,
    /// Field, scalar or tuple.
    pub kind: ParamKind,
    /// `None` for tuples.
    pub dtype: Option<ScalarType>,
    /// Read, written, or both.
    pub role: Role,
    /// Declared `#[static_arg]`: its values may be listed at `compile()`.
    pub is_static: bool,
}

/// Names, dimensions, dtypes and roles of a program's parameters, plus the offsets whose
/// connectivities it needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    /// The program's name.
    pub program: String,
    /// Its parameters, in order.
    pub params: Vec<ParamSignature>,
    /// The offsets whose tables it needs at `compile()`.
    pub offsets: Vec<String>,
}

impl Signature {
    /// The signature of a checked program.
    pub fn of(program: &Program) -> Signature {
        let params = program
            .params
            .iter()
            .map(|p| ParamSignature {
                name: p.name.clone(),
                kind: match &p.ty {
                    Type::Field { dims, .. } => ParamKind::Field { dims: dims.clone() },
                    Type::Scalar(_) => ParamKind::Scalar,
                    Type::Tuple(items) => ParamKind::Tuple(items.clone()),
                },
                dtype: p.ty.dtype(),
                role: p.role,
                is_static: p.is_static,
            })
            .collect();
        let offsets = program
            .used_offsets()
            .iter()
            .map(|o| o.name.clone())
            .collect();
        Signature {
            program: program.name.clone(),
            params,
            offsets,
        }
    }

    /// The parameter named `name`.
    pub fn param(&self, name: &str) -> Option<&ParamSignature> {
        self.params.iter().find(|p| p.name == name)
    }
}

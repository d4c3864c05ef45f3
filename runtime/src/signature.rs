//! A program's signature as data, for tools that need no hand-kept parameter lists.

use gt4rs_ir::fieldview::{Program, Role};
use gt4rs_ir::{ScalarType, Type};

#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    Field { dims: Vec<String> },
    Scalar,
    Tuple(Vec<Type>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamSignature {
    pub name: String,
    pub kind: ParamKind,
    /// `None` for tuples.
    pub dtype: Option<ScalarType>,
    pub role: Role,
    pub is_static: bool,
}

/// Names, dimensions, dtypes and roles of a program's parameters, plus the offsets whose
/// connectivities it needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    pub program: String,
    pub params: Vec<ParamSignature>,
    pub offsets: Vec<String>,
}

impl Signature {
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

    pub fn param(&self, name: &str) -> Option<&ParamSignature> {
        self.params.iter().find(|p| p.name == name)
    }
}

//! Scalar values and the arithmetic rules every backend follows.

use serde::{Deserialize, Serialize};

use crate::types::ScalarType;

/// A scalar of one of the element types: a program argument, a static value, a folded constant.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
}

impl ScalarValue {
    /// The element type of the value.
    pub fn dtype(self) -> ScalarType {
        match self {
            ScalarValue::Bool(_) => ScalarType::Bool,
            ScalarValue::I32(_) => ScalarType::I32,
            ScalarValue::I64(_) => ScalarType::I64,
            ScalarValue::F32(_) => ScalarType::F32,
            ScalarValue::F64(_) => ScalarType::F64,
        }
    }
}

//! Scalar values and the arithmetic rules every backend follows, stated once.
//!
//! * [`rules`]: the typed rules ([`Arithmetic`], [`cast`]) that the fused CPU kernels call, as
//!   `::gt4rs::__private::ir::scalar::…`;
//! * [`ops`]: the same rules on [`ScalarValue`]s, for constant folding, the CUDA launcher's
//!   evaluation of domain bounds on the host and the embedded backend;
//! * [`gamma`]: the gamma function every backend takes from C's `tgamma`.
//!
//! The CUDA prelude (`macros/src/codegen/cuda/prelude.cuh`) spells the same rules in C.

mod gamma;
pub mod ops;
pub mod rules;

use serde::{Deserialize, Serialize};

use crate::fieldview::Literal;
use crate::types::ScalarType;

pub use gamma::{gamma, gamma_f32};
pub use ops::{binary, compare, math, unary, ScalarError, ScalarResult};
pub use rules::{cast, Arithmetic, CastTo};

/// A scalar of one of the element types: a program argument, a static value, a folded constant.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    /// A `bool`.
    Bool(bool),
    /// An `i32`.
    I32(i32),
    /// An `i64`.
    I64(i64),
    /// An `f32`.
    F32(f32),
    /// An `f64`.
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

    /// The value of literal `lit` given the type `dtype` (a literal is stored widened: an
    /// integer as `i64`, a float as `f64`), converted as [`ScalarValue::cast`] converts.
    pub fn from_literal(lit: Literal, dtype: ScalarType) -> ScalarValue {
        let widened = match lit {
            Literal::Bool(b) => ScalarValue::Bool(b),
            Literal::Int(i) => ScalarValue::I64(i),
            Literal::Float(bits) => ScalarValue::F64(f64::from_bits(bits)),
        };
        widened.cast(dtype)
    }

    /// The literal that [`ScalarValue::from_literal`] turns back into this value at its dtype.
    pub fn to_literal(self) -> Literal {
        match self {
            ScalarValue::Bool(b) => Literal::Bool(b),
            ScalarValue::I32(i) => Literal::Int(i64::from(i)),
            ScalarValue::I64(i) => Literal::Int(i),
            ScalarValue::F32(f) => Literal::float(f64::from(f)),
            ScalarValue::F64(f) => Literal::float(f),
        }
    }

    /// The value converted to `to` by the rules of [`cast`].
    pub fn cast(self, to: ScalarType) -> ScalarValue {
        macro_rules! to {
            ($x:expr) => {
                match to {
                    ScalarType::Bool => ScalarValue::Bool(cast($x)),
                    ScalarType::I32 => ScalarValue::I32(cast($x)),
                    ScalarType::I64 => ScalarValue::I64(cast($x)),
                    ScalarType::F32 => ScalarValue::F32(cast($x)),
                    ScalarType::F64 => ScalarValue::F64(cast($x)),
                }
            };
        }
        match self {
            ScalarValue::Bool(x) => to!(x),
            ScalarValue::I32(x) => to!(x),
            ScalarValue::I64(x) => to!(x),
            ScalarValue::F32(x) => to!(x),
            ScalarValue::F64(x) => to!(x),
        }
    }

    /// The value of an integer (for indices, bounds and offsets); `None` for bools and floats.
    pub fn as_i64(self) -> Option<i64> {
        match self {
            ScalarValue::I32(i) => Some(i64::from(i)),
            ScalarValue::I64(i) => Some(i),
            _ => None,
        }
    }

    /// Zero of `dtype` (`false` for bools): where a sum starts.
    pub fn zero(dtype: ScalarType) -> ScalarValue {
        ScalarValue::I32(0).cast(dtype)
    }

    /// The lowest finite value of `dtype`: where a maximum starts.
    pub fn lowest(dtype: ScalarType) -> ScalarValue {
        match dtype {
            ScalarType::Bool => ScalarValue::Bool(false),
            ScalarType::I32 => ScalarValue::I32(i32::MIN),
            ScalarType::I64 => ScalarValue::I64(i64::MIN),
            ScalarType::F32 => ScalarValue::F32(f32::MIN),
            ScalarType::F64 => ScalarValue::F64(f64::MIN),
        }
    }

    /// The highest finite value of `dtype`: where a minimum starts.
    pub fn highest(dtype: ScalarType) -> ScalarValue {
        match dtype {
            ScalarType::Bool => ScalarValue::Bool(true),
            ScalarType::I32 => ScalarValue::I32(i32::MAX),
            ScalarType::I64 => ScalarValue::I64(i64::MAX),
            ScalarType::F32 => ScalarValue::F32(f32::MAX),
            ScalarType::F64 => ScalarValue::F64(f64::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_convert_to_their_dtype_and_back() {
        let lit = Literal::Int(1 << 33 | 7);
        assert_eq!(
            ScalarValue::from_literal(lit, ScalarType::I32),
            ScalarValue::I32(7)
        );
        assert_eq!(
            ScalarValue::from_literal(Literal::float(0.1), ScalarType::F32),
            ScalarValue::F32(0.1)
        );
        assert_eq!(
            ScalarValue::from_literal(Literal::Bool(true), ScalarType::F64),
            ScalarValue::F64(1.0)
        );
        for v in [
            ScalarValue::Bool(true),
            ScalarValue::I32(-3),
            ScalarValue::I64(i64::MIN),
            ScalarValue::F32(0.1),
            ScalarValue::F64(f64::NAN),
        ] {
            let back = ScalarValue::from_literal(v.to_literal(), v.dtype());
            assert_eq!(format!("{back:?}"), format!("{v:?}"));
        }
    }
}

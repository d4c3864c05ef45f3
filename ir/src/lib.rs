//! The stencil IR of gt4rs.
//!
//! Two levels, both free of `syn` so that the proc-macro crate and the runtime share them:
//!
//! * [`fieldview`]: the checked, typed form of field operators, scan operators and programs.
//!   Every expression carries its [`Type`] (dimensions and dtype). The macro produces it, the
//!   embedded backend interprets it directly (op-by-op, whole fields), and it is serialised into
//!   each generated program so run-time tools (verification, signatures) read it as data.
//! * [`stage`]: the fused form. A program becomes a list of stages; each stage is one loop nest
//!   over a domain evaluating a pointwise expression DAG whose leaves are loads through
//!   neighbour/Cartesian access paths. The CPU and CUDA emitters read only this level.
//!
//! [`build`] constructs fieldview IR by hand, for tests and generators that bypass the macro.

#![warn(missing_docs)]

pub mod build;
pub mod carried;
pub mod failure;
pub mod fieldview;
pub mod integer_cases;
pub mod kernel;
pub mod lower;
pub mod scalar;
pub mod stack;
pub mod stage;
pub mod tile_groups;
pub mod types;

pub use scalar::ScalarValue;
pub use types::{CmpOp, DimInfo, DimKind, OffsetInfo, ScalarType, Type};

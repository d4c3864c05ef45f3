//! ICON4Py's programs in the gt4rs DSL (pending the checker: see `README.md`).
//!
//! Precision: every `wpfloat` and `vpfloat` is written `f64`. A mixed-precision build
//! (`vpfloat = f32`) needs one of these from the language, none of which exists yet:
//! - type aliases resolved by the checker (`pub type Vp = f32;` collected like a dimension, so
//!   operators can say `Field<(Edge, K), Vp>`), switched by a cargo feature of this crate;
//! - or generic operators over a float type parameter (`fn op<Vp: Float>(…)`), instantiated per
//!   program (`#[program(vp = f32)]`), with literals taking the operand's float type;
//! - plus `x as Wp` / `x as Vp` casts through the alias, which in double mode are no-ops, so the
//!   ICON4Py `astype` calls can be kept in the source and cost nothing.

pub mod diffusion;
pub mod diffusion_utils;
pub mod interpolation;
pub mod solver;
pub mod velocity_advection;

//! Cartesian dimensions of the classic benchmarks; the vertical is ICON's `K`, re-exported so
//! that one crate declares one vertical dimension.

pub use crate::icon::dims::K;

gt4rs::dimensions! {
    pub I, J: horizontal;
}

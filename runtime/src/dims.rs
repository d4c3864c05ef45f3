//! Dimension and offset marker types.
//!
//! `gt4rs::dimensions!` and `gt4rs::offsets!` declare zero-sized marker types implementing these
//! traits; field types name them, e.g. `Field<(Edge, K), f64>` or, for a sparse field,
//! `Field<(Edge, E2C2V), f64>`.

use gt4rs_ir::DimKind;

/// A dimension marker type.
pub trait Dimension: Copy + Default + Send + Sync + 'static {
    /// The dimension's name, as declared (`"Edge"`).
    const NAME: &'static str;
    /// Horizontal, vertical, or local (an offset).
    const KIND: DimKind;
}

/// A neighbour offset, e.g. `E2C2V: Edge => Vertex [4]`. It is also the local dimension that
/// indexes the neighbours.
pub trait Offset: Dimension {
    /// The dimension of the points owning the neighbour lists.
    type From: Dimension;
    /// The dimension of the neighbours.
    type To: Dimension;
    /// The number of neighbours per `From` point (the table's width).
    const COUNT: usize;
    /// The declaration's identity (`offsets!` writes the name plus the place of the
    /// declaration), so tables of two offsets named alike in different modules bind apart.
    /// Offsets implemented by hand are identified by their name.
    const KEY: &'static str = <Self as Dimension>::NAME;
    /// Declared `with skip_values`: its tables may hold -1 (no neighbour), which reductions
    /// skip. Without it, a table holding -1 is an error when it is built.
    const SKIP_VALUES: bool = false;
}

/// A tuple of dimensions (or a single dimension), naming a field's axes in canonical order.
pub trait Dims: Send + Sync + 'static {
    /// The number of dimensions (0 for `()`).
    const RANK: usize;
    /// The dimension names, in order.
    fn names() -> &'static [&'static str];
    /// The dimension kinds, in order.
    fn kinds() -> &'static [DimKind];
}

impl Dims for () {
    const RANK: usize = 0;
    fn names() -> &'static [&'static str] {
        &[]
    }
    fn kinds() -> &'static [DimKind] {
        &[]
    }
}

impl<A: Dimension> Dims for A {
    const RANK: usize = 1;
    fn names() -> &'static [&'static str] {
        &[A::NAME]
    }
    fn kinds() -> &'static [DimKind] {
        &[A::KIND]
    }
}

macro_rules! impl_dims_for_tuple {
    ($rank:expr; $($d:ident),+) => {
        impl<$($d: Dimension),+> Dims for ($($d,)+) {
            const RANK: usize = $rank;
            fn names() -> &'static [&'static str] {
                &[$($d::NAME),+]
            }
            fn kinds() -> &'static [DimKind] {
                &[$($d::KIND),+]
            }
        }
    };
}
impl_dims_for_tuple!(1; A);
impl_dims_for_tuple!(2; A, B);
impl_dims_for_tuple!(3; A, B, C);
impl_dims_for_tuple!(4; A, B, C, D);

//! What every test here shares: sizes, dimensions and offsets, the program wrapper, seeded
//! random data, NaN-poisoned outputs and the check that only the domain was written.

use gt4rs_ir::build::*;
use gt4rs_ir::fieldview::{Operator, Program, ProgramCall, ProgramParam};
use gt4rs_ir::{DimKind, ScalarType, Type};
use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::args::{Arg, FieldView, FieldViewMut};
use crate::connectivity::{Connectivity, ConnectivityTable};
use crate::dims::{Dimension, Offset};

pub(super) const F64: ScalarType = ScalarType::F64;
pub(super) const I32: ScalarType = ScalarType::I32;
pub(super) const NV: usize = 7;
pub(super) const NE: usize = 11;
pub(super) const NK: usize = 5;

macro_rules! dim {
    ($t:ident, $kind:ident) => {
        #[derive(Clone, Copy, Default, Debug)]
        pub(super) struct $t;
        impl Dimension for $t {
            const NAME: &'static str = stringify!($t);
            const KIND: DimKind = DimKind::$kind;
        }
    };
}
dim!(Vertex, Horizontal);
dim!(Edge, Horizontal);
dim!(V2E, Local);
dim!(E2V, Local);
dim!(E2E, Local);
dim!(E2C2V, Local);
impl Offset for E2C2V {
    type From = Edge;
    type To = Vertex;
    const COUNT: usize = 4;
}
impl Offset for E2E {
    type From = Edge;
    type To = Edge;
    const COUNT: usize = 2;
    const SKIP_VALUES: bool = true;
}
impl Offset for V2E {
    type From = Vertex;
    type To = Edge;
    const COUNT: usize = 3;
    const SKIP_VALUES: bool = true;
}
impl Offset for E2V {
    type From = Edge;
    type To = Vertex;
    const COUNT: usize = 2;
}

pub(super) fn fty(dims: &[&str]) -> Type {
    Type::field(dims, F64)
}
pub(super) fn ity(dims: &[&str]) -> Type {
    Type::field(dims, I32)
}

/// A program named `test_program` declaring the dimensions and offsets above, `Cell` and `I`.
pub(super) fn test_program(
    params: Vec<ProgramParam>,
    calls: Vec<ProgramCall>,
    operators: Vec<Operator>,
) -> Program {
    program(
        "test_program",
        params,
        calls,
        bundle(
            operators,
            &["Cell", "Edge", "Vertex", "I"],
            &["K"],
            &[
                offset_with_skip_values("V2E", "Vertex", "Edge", 3),
                offset("E2V", "Edge", "Vertex", 2),
                offset_with_skip_values("E2E", "Edge", "Edge", 2),
                offset("E2C2V", "Edge", "Vertex", 4),
            ],
        ),
    )
}

/// The tables `prog` uses, in its `used_offsets()` order.
pub(super) fn bind<'t>(
    prog: &Program,
    all: &[&'t ConnectivityTable],
) -> Vec<&'t ConnectivityTable> {
    prog.used_offsets()
        .iter()
        .map(|o| {
            *all.iter()
                .find(|t| t.offset() == o.name)
                .expect("test binds every table it uses")
        })
        .collect()
}

pub(super) fn rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(0x5eed_1234)
}
pub(super) fn random2(rng: &mut ChaCha8Rng, n: usize, m: usize) -> Array2<f64> {
    Array2::from_shape_fn((n, m), |_| rng.random::<f64>() * 2.0 - 0.5)
}
pub(super) fn nan2(n: usize, m: usize) -> Array2<f64> {
    Array2::from_elem((n, m), f64::NAN)
}
/// V2E with skip values (about one in four entries), E2V without.
pub(super) fn tables(rng: &mut ChaCha8Rng) -> (Connectivity<V2E>, Connectivity<E2V>) {
    let mut v2e = Array2::from_shape_fn((NV, 3), |_| rng.random_range(0..NE as i32));
    for v in 0..NV {
        for j in 0..3 {
            if rng.random::<f64>() < 0.25 {
                v2e[[v, j]] = -1;
            }
        }
    }
    v2e[[0, 1]] = -1;
    v2e[[NV - 1, 0]] = -1;
    v2e[[NV - 1, 1]] = -1;
    v2e[[NV - 1, 2]] = -1;
    let e2v = Array2::from_shape_fn((NE, 2), |_| rng.random_range(0..NV as i32));
    (
        Connectivity::new(v2e, NE).expect("valid table"),
        Connectivity::new(e2v, NV).expect("valid table"),
    )
}

pub(super) fn view<'a>(a: &'a Array2<f64>, origin: &'a [i64]) -> Arg<'a> {
    Arg::Field(FieldView::F64(a.view().into_dyn(), origin))
}
pub(super) fn view_mut<'a>(a: &'a mut Array2<f64>, origin: &'a [i64]) -> Arg<'a> {
    Arg::FieldMut(FieldViewMut::F64(a.view_mut().into_dyn(), origin))
}

pub(super) fn assert_close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-12 * want.abs().max(1.0),
        "{what}: got {got}, want {want}"
    );
}

/// Checks `out` against `want` inside `rows × levels` and NaN elsewhere.
pub(super) fn check2(
    out: &Array2<f64>,
    rows: std::ops::Range<usize>,
    levels: std::ops::Range<usize>,
    want: impl Fn(usize, usize) -> f64,
) {
    for ((i, k), &x) in out.indexed_iter() {
        if rows.contains(&i) && levels.contains(&k) {
            assert_close(x, want(i, k), &format!("point ({i}, {k})"));
        } else {
            assert!(
                x.is_nan(),
                "point ({i}, {k}) outside the domain was written: {x}"
            );
        }
    }
}

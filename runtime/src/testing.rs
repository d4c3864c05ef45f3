//! Helpers for a model's own `cargo test` (feature `testing`): seeded random fields and tables,
//! poisoned outputs that show the points a call did not write, the backends this machine can
//! run, and a comparison of two fields that says where they differ. Data held as plain
//! `ndarray`s (the arrays of a call by name, a reference's inputs) has the same helpers:
//! [`random_array`], [`random_array_in`], [`poisoned_array`] and [`compare_arrays`].
//!
//! A test runs a program on every backend on the same random inputs and compares each result
//! with the embedded backend's, which runs the program as written, one operation at a time:
//!
//! ```
//! use gt4rs::prelude::*;
//! use gt4rs::testing::{self, Tolerance};
//!
//! gt4rs::dimensions! { pub Cell, Edge: horizontal; pub K: vertical; }
//! gt4rs::offsets! { pub E2C: Edge => Cell [2]; }
//!
//! #[field_operator]
//! fn jump(q: Field<(Cell, K), f64>) -> Field<(Edge, K), f64> {
//!     q.at(E2C[1]) - q.at(E2C[0])
//! }
//!
//! #[program]
//! fn edge_jump(q: &Field<(Cell, K), f64>, out: &mut Field<(Edge, K), f64>) {
//!     jump(q).write_to(out);
//! }
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let mut rng = testing::rng(42);
//!     let e2c = testing::random_table::<E2C>(&mut rng, 30, 20, 0.0)?;
//!     let q: Field<(Cell, K), f64> = testing::random_field(&mut rng, &[0..20, 0..4])?;
//!     let options = Options::default().with_connectivities(Connectivities::new().with(&e2c));
//!     let results = testing::on_every_backend(&options, |options| {
//!         let mut out = testing::poisoned(&[0..30, 0..4])?;
//!         edge_jump::compile(options)?.call(edge_jump::Args { q: &q, out: &mut out })?;
//!         Ok(out)
//!     })?;
//!     let (reference, others) = results.split_first().ok_or("no backend")?;
//!     for (backend, out) in others {
//!         testing::compare(&reference.1, out, Tolerance::BitEqual)
//!             .map_err(|m| format!("{backend:?}: {m}"))?;
//!     }
//!     Ok(())
//! }
//! ```

use std::fmt;
use std::ops::Range;

use ndarray::{ArrayD, ArrayViewD, Dimension, IxDyn};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::field::Scalar;
use crate::{Backend, Connectivity, Dims, Error, Field, Layout, Offset, Options};

/// The seeded generator the helpers draw from (ChaCha8: the same values on every machine).
pub type TestRng = ChaCha8Rng;

/// A generator seeded with `seed`; give each test its own seed so tests stay independent.
pub fn rng(seed: u64) -> TestRng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Element types the helpers can draw, poison and compare.
pub trait TestScalar: Scalar {
    /// A random value that is never zero (so divisions and products are exercised): floats in
    /// ±[0.1, 1.1), integers in ±[1, 9], bools either way.
    fn random(rng: &mut TestRng) -> Self;
    /// The value outputs are filled with before a call, to show points it never wrote.
    fn poison() -> Self;
    /// Whether `self` is the poison value (always true for `bool`, which has no spare value).
    fn is_poison(self) -> bool;
    /// Equal within `tolerance`: NaN equals NaN, infinities must match, integers and bools must
    /// be equal.
    fn close(self, want: Self, tolerance: Tolerance) -> bool;
    /// The tolerance for comparing with a reference that computes the same formula in another
    /// order (a hand-written loop): a few units of the type's rounding.
    const ROUNDING: Tolerance;
}

/// How close two values must be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// The same bits (NaN equal to any NaN): what the embedded, CPU and emulated CUDA backends
    /// promise each other for the same inputs.
    BitEqual,
    /// `|got − want| ≤ rel · max(|want|, 1)`: for math functions on a device, or against a
    /// reference computed in another order.
    Relative(f64),
    /// `|got − want| ≤ rel · max(|got|, |want|)`, with no floor: relative to the larger of the two
    /// however small both are (a reference file whose values are all far below 1). The measure
    /// [`largest_relative_difference`] reports.
    RelativeToLarger(f64),
}

/// `|got − want| / max(|got|, |want|)`: 0 for equal values (and NaN against NaN), infinite where
/// exactly one is NaN.
fn relative_difference(got: f64, want: f64) -> f64 {
    if got == want || (got.is_nan() && want.is_nan()) {
        0.0
    } else if got.is_nan() || want.is_nan() {
        f64::INFINITY
    } else {
        (got - want).abs() / got.abs().max(want.abs())
    }
}

/// The largest [`Tolerance::RelativeToLarger`] difference between two arrays of one shape (0
/// where they are equal, NaN matching NaN; infinite where a NaN meets a number), to report how
/// close a result came to a reference as well as whether it passed.
pub fn largest_relative_difference(
    want: ArrayViewD<'_, f64>,
    got: ArrayViewD<'_, f64>,
) -> Result<f64, Mismatch> {
    if want.shape() != got.shape() {
        return Err(Mismatch {
            count: 1,
            first: vec![format!("shape {:?}, want {:?}", got.shape(), want.shape())],
        });
    }
    Ok(want
        .iter()
        .zip(got.iter())
        .map(|(w, g)| relative_difference(*g, *w))
        .fold(0.0, f64::max))
}

fn close_float(got: f64, want: f64, tolerance: Tolerance) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    match tolerance {
        Tolerance::BitEqual => got.to_bits() == want.to_bits(),
        Tolerance::Relative(_) if want.is_infinite() => got == want,
        Tolerance::Relative(rel) => (got - want).abs() <= rel * want.abs().max(1.0),
        Tolerance::RelativeToLarger(rel) => relative_difference(got, want) <= rel,
    }
}

fn signed_unit(rng: &mut TestRng) -> f64 {
    let magnitude = 0.1 + rng.random::<f64>();
    if rng.random::<bool>() {
        magnitude
    } else {
        -magnitude
    }
}

impl TestScalar for f64 {
    const ROUNDING: Tolerance = Tolerance::Relative(1e-12);
    fn random(rng: &mut TestRng) -> Self {
        signed_unit(rng)
    }
    fn poison() -> Self {
        f64::NAN
    }
    fn is_poison(self) -> bool {
        self.is_nan()
    }
    fn close(self, want: Self, tolerance: Tolerance) -> bool {
        close_float(self, want, tolerance)
    }
}

impl TestScalar for f32 {
    const ROUNDING: Tolerance = Tolerance::Relative(1e-5);
    fn random(rng: &mut TestRng) -> Self {
        signed_unit(rng) as f32
    }
    fn poison() -> Self {
        f32::NAN
    }
    fn is_poison(self) -> bool {
        self.is_nan()
    }
    fn close(self, want: Self, tolerance: Tolerance) -> bool {
        match tolerance {
            Tolerance::BitEqual => {
                self.to_bits() == want.to_bits() || (self.is_nan() && want.is_nan())
            }
            Tolerance::Relative(_) | Tolerance::RelativeToLarger(_) => {
                close_float(self as f64, want as f64, tolerance)
            }
        }
    }
}

/// Integer poison: a value no computation in a test is expected to produce.
const I32_POISON: i32 = i32::MIN + 0x5eed;

impl TestScalar for i32 {
    const ROUNDING: Tolerance = Tolerance::BitEqual;
    fn random(rng: &mut TestRng) -> Self {
        let magnitude = rng.random_range(1..10);
        if rng.random::<bool>() {
            magnitude
        } else {
            -magnitude
        }
    }
    fn poison() -> Self {
        I32_POISON
    }
    fn is_poison(self) -> bool {
        self == I32_POISON
    }
    fn close(self, want: Self, _: Tolerance) -> bool {
        self == want
    }
}

impl TestScalar for i64 {
    const ROUNDING: Tolerance = Tolerance::BitEqual;
    fn random(rng: &mut TestRng) -> Self {
        i32::random(rng) as i64
    }
    fn poison() -> Self {
        I32_POISON as i64 * 3
    }
    fn is_poison(self) -> bool {
        self == Self::poison()
    }
    fn close(self, want: Self, _: Tolerance) -> bool {
        self == want
    }
}

impl TestScalar for bool {
    const ROUNDING: Tolerance = Tolerance::BitEqual;
    fn random(rng: &mut TestRng) -> Self {
        rng.random()
    }
    /// A bool has no spare value: write bool outputs over the whole field, or check them only
    /// inside the domain a call wrote.
    fn poison() -> Self {
        false
    }
    fn is_poison(self) -> bool {
        true
    }
    fn close(self, want: Self, _: Tolerance) -> bool {
        self == want
    }
}

/// A field over `domain` (one half-open range per dimension, any start) of random values
/// ([`TestScalar::random`]).
pub fn random_field<D: Dims, T: TestScalar>(
    rng: &mut TestRng,
    domain: &[Range<i64>],
) -> Result<Field<D, T>, Error> {
    random_field_laid_out(rng, domain, Layout::default())
}

/// [`random_field`] in the memory order `layout` (to test a program on both orders, as ICON's
/// Fortran arrays have the horizontal index fastest).
pub fn random_field_laid_out<D: Dims, T: TestScalar>(
    rng: &mut TestRng,
    domain: &[Range<i64>],
    layout: Layout,
) -> Result<Field<D, T>, Error> {
    Field::from_fn(domain, layout, |_| T::random(rng))
}

/// A field of floats drawn uniformly from `range` (for inputs with a restricted domain, such as
/// the argument of `sqrt` or `log`).
pub fn random_field_in<D: Dims>(
    rng: &mut TestRng,
    domain: &[Range<i64>],
    range: Range<f64>,
) -> Result<Field<D, f64>, Error> {
    check_value_range(&range)?;
    Field::from_fn(domain, Layout::default(), |_| uniform(rng, &range))
}

/// An array of `shape` of random values ([`TestScalar::random`]), for data held as plain
/// `ndarray`s: the arrays of a call by name (`DynProgram`), a reference's own inputs.
pub fn random_array<T: TestScalar>(rng: &mut TestRng, shape: &[usize]) -> ArrayD<T> {
    ArrayD::from_shape_fn(IxDyn(shape), |_| T::random(rng))
}

/// An array of `shape` of floats drawn uniformly from `range`, drawn as [`random_field_in`]
/// draws.
pub fn random_array_in(
    rng: &mut TestRng,
    shape: &[usize],
    range: Range<f64>,
) -> Result<ArrayD<f64>, Error> {
    check_value_range(&range)?;
    Ok(ArrayD::from_shape_fn(IxDyn(shape), |_| {
        uniform(rng, &range)
    }))
}

/// An array of `shape` filled with the poison value ([`TestScalar::poison`]).
pub fn poisoned_array<T: TestScalar>(shape: &[usize]) -> ArrayD<T> {
    ArrayD::from_elem(IxDyn(shape), T::poison())
}

fn check_value_range(range: &Range<f64>) -> Result<(), Error> {
    if range.is_empty() || !range.start.is_finite() || !range.end.is_finite() {
        return Err(Error::Shape(format!(
            "an empty or unbounded value range {range:?}"
        )));
    }
    Ok(())
}

fn uniform(rng: &mut TestRng, range: &Range<f64>) -> f64 {
    range.start + (range.end - range.start) * rng.random::<f64>()
}

/// An output field over `domain` filled with the poison value ([`TestScalar::poison`]).
pub fn poisoned<D: Dims, T: TestScalar>(domain: &[Range<i64>]) -> Result<Field<D, T>, Error> {
    Field::filled(domain, T::poison(), Layout::default())
}

/// A table of `rows` rows for offset `O`, each entry drawn uniformly from `0..target_size`,
/// and each `-1` (a missing neighbour) with probability `missing` (0 for none; above 0 only for
/// an offset declared `with skip_values`, else building the table is an error).
pub fn random_table<O: Offset>(
    rng: &mut TestRng,
    rows: usize,
    target_size: usize,
    missing: f64,
) -> Result<Connectivity<O>, Error> {
    if target_size == 0 || target_size > i32::MAX as usize {
        return Err(Error::Connectivity {
            offset: O::NAME.to_string(),
            message: format!("cannot draw entries from a target dimension of {target_size} points"),
        });
    }
    if !(0.0..=1.0).contains(&missing) {
        return Err(Error::Connectivity {
            offset: O::NAME.to_string(),
            message: format!(
                "the probability of a missing neighbour must lie in [0, 1], not {missing}"
            ),
        });
    }
    let entries = (0..rows * O::COUNT)
        .map(|_| {
            if missing > 0.0 && rng.random::<f64>() < missing {
                -1
            } else {
                rng.random_range(0..target_size as i32)
            }
        })
        .collect();
    let table = ndarray::Array2::from_shape_vec((rows, O::COUNT), entries)
        .map_err(|e| Error::Shape(e.to_string()))?;
    Connectivity::new(table, target_size)
}

/// The backends this machine can run: embedded, CPU, and CUDA where a device is usable.
pub fn available_backends() -> Vec<Backend> {
    let mut all = vec![Backend::Embedded, Backend::Cpu];
    if crate::cuda::cuda_available() {
        all.push(Backend::Cuda);
    }
    all
}

/// Runs `run` once per backend of [`available_backends`], the embedded backend first, with
/// `options` set to that backend (everything else as given), and collects what each returns.
pub fn on_every_backend<R>(
    options: &Options,
    mut run: impl FnMut(&Options) -> Result<R, Error>,
) -> Result<Vec<(Backend, R)>, Error> {
    available_backends()
        .into_iter()
        .map(|backend| {
            let mut on_backend = options.clone();
            on_backend.settings.backend = Some(backend);
            on_backend
                .per_program
                .values_mut()
                .for_each(|s| s.backend = None);
            run(&on_backend).map(|result| (backend, result))
        })
        .collect()
}

/// Where two fields differ (see [`compare`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// How many points differ.
    pub count: usize,
    /// The first few, as `index: got …, want …`.
    pub first: Vec<String>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} points differ; the first: {}",
            self.count,
            self.first.join("; ")
        )
    }
}

impl std::error::Error for Mismatch {}

/// Compares `got` with `want` point by point (same domain required): equal within `tolerance`,
/// and poisoned in the same places, so that a point one backend wrote and another did not
/// shows as a difference.
pub fn compare<D: Dims, T: TestScalar>(
    want: &Field<D, T>,
    got: &Field<D, T>,
    tolerance: Tolerance,
) -> Result<(), Mismatch> {
    if want.domain() != got.domain() {
        return Err(Mismatch {
            count: 1,
            first: vec![format!(
                "domain {:?}, want {:?}",
                got.domain(),
                want.domain()
            )],
        });
    }
    compare_views(want.as_array(), got.as_array(), want.origin(), tolerance)
}

/// [`compare`] for plain arrays (same shape required; points are named by their array index).
pub fn compare_arrays<T: TestScalar>(
    want: ArrayViewD<'_, T>,
    got: ArrayViewD<'_, T>,
    tolerance: Tolerance,
) -> Result<(), Mismatch> {
    if want.shape() != got.shape() {
        return Err(Mismatch {
            count: 1,
            first: vec![format!("shape {:?}, want {:?}", got.shape(), want.shape())],
        });
    }
    let origin = vec![0; want.ndim()];
    compare_views(want, got, &origin, tolerance)
}

/// Arrays of one shape, point by point; a point's index is its position plus `origin`.
fn compare_views<T: TestScalar>(
    want: ArrayViewD<'_, T>,
    got: ArrayViewD<'_, T>,
    origin: &[i64],
    tolerance: Tolerance,
) -> Result<(), Mismatch> {
    let mut first = Vec::new();
    let mut count = 0;
    for ((position, w), g) in want.indexed_iter().zip(got.iter()) {
        if g.close(*w, tolerance) {
            continue;
        }
        count += 1;
        if first.len() < 8 {
            let index: Vec<i64> = position
                .as_array_view()
                .iter()
                .zip(origin)
                .map(|(i, o)| *i as i64 + o)
                .collect();
            first.push(format!("{index:?}: got {g:?}, want {w:?}"));
        }
    }
    if count == 0 {
        Ok(())
    } else {
        Err(Mismatch { count, first })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_are_drawn_as_fields_are_and_compared_alike() {
        gt4rs_macros::dimensions! { Cell: horizontal; K: vertical; }
        let field: Field<(Cell, K), f64> =
            random_field_in(&mut rng(3), &[0..4, 0..5], -1.0..1.0).expect("valid");
        let array = random_array_in(&mut rng(3), &[4, 5], -1.0..1.0).expect("valid");
        assert_eq!(field.as_array(), array.view());
        assert!(array.iter().all(|v| (-1.0..1.0).contains(v)));
        assert!(random_array_in(&mut rng(3), &[2], 1.0..1.0).is_err());

        let drawn: ArrayD<i32> = random_array(&mut rng(4), &[3, 3]);
        assert!(drawn.iter().all(|&v| v != 0 && (-9..=9).contains(&v)));

        let mut got = array.clone();
        assert_eq!(
            compare_arrays(array.view(), got.view(), Tolerance::BitEqual),
            Ok(())
        );
        got[[2, 3]] += 1e-9;
        let mismatch = compare_arrays(array.view(), got.view(), Tolerance::BitEqual)
            .expect_err("one point differs");
        assert_eq!(mismatch.count, 1);
        assert!(mismatch.first[0].starts_with("[2, 3]:"), "{mismatch}");
        assert_eq!(
            compare_arrays(array.view(), got.view(), Tolerance::Relative(1e-6)),
            Ok(())
        );
        // A point left poisoned where the reference was written is a difference.
        let poisoned: ArrayD<f64> = poisoned_array(&[4, 5]);
        assert_eq!(
            compare_arrays(array.view(), poisoned.view(), Tolerance::Relative(1.0))
                .map_err(|m| m.count),
            Err(20)
        );
        assert!(compare_arrays(
            array.view(),
            poisoned
                .view()
                .into_shape_with_order(vec![5, 4])
                .expect("reshape")
                .view(),
            Tolerance::BitEqual
        )
        .is_err());
    }

    #[test]
    fn relative_to_the_larger_value_has_no_floor() {
        let want = ArrayD::from_shape_vec(vec![3], vec![1e-9, -2.0, f64::NAN]).expect("shape");
        let got = ArrayD::from_shape_vec(vec![3], vec![1.1e-9, -2.0, f64::NAN]).expect("shape");
        // 1e-9 against 1.1e-9 differs by a tenth of the larger value: `Relative`, whose floor
        // is 1, cannot see it.
        let largest = largest_relative_difference(want.view(), got.view()).expect("one shape");
        assert!((largest - 0.1 / 1.1).abs() < 1e-12, "{largest}");
        assert!(compare_arrays(want.view(), got.view(), Tolerance::Relative(1e-6)).is_ok());
        assert!(
            compare_arrays(want.view(), got.view(), Tolerance::RelativeToLarger(0.05)).is_err()
        );
        assert!(compare_arrays(want.view(), got.view(), Tolerance::RelativeToLarger(0.1)).is_ok());
        // A NaN against a number is infinitely far; shapes must agree.
        let mut one_nan = want.clone();
        one_nan[[1]] = f64::NAN;
        assert_eq!(
            largest_relative_difference(want.view(), one_nan.view()),
            Ok(f64::INFINITY)
        );
        assert!(
            largest_relative_difference(want.view(), want.slice(ndarray::s![..2]).into_dyn())
                .is_err()
        );
        let (a, b) = (1e-30f32, 1.5e-30f32);
        assert!(!b.close(a, Tolerance::RelativeToLarger(0.1)));
        assert!(b.close(a, Tolerance::RelativeToLarger(0.5)));
    }
}

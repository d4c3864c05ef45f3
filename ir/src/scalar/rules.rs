//! The typed rules: what one operation on one element type computes. The fused CPU kernels call
//! these functions directly (they are `#[inline(always)]`, so a kernel compiles to the same
//! machine code as with the operation spelled in place); the value-level operations of
//! [`super::ops`] dispatch to them, so constant folding, host-side bound evaluation and the
//! embedded backend compute exactly what the kernels compute.
//!
//! Integers wrap (a kernel never panics on overflow); an integer division by zero is `None`,
//! which every caller reports as an error. Floats follow IEEE 754 as Rust computes it.

/// The arithmetic of an element type (`i32`, `i64`, `f32`, `f64`).
///
/// Call the methods by path (`Arithmetic::abs(x)`): several share a name with an inherent or
/// `Ord` method of a different meaning (`i32::abs` panics on overflow in debug builds).
pub trait Arithmetic: Copy {
    /// `self + rhs` (wrapping on integers).
    fn add(self, rhs: Self) -> Self;
    /// `self - rhs` (wrapping on integers).
    fn sub(self, rhs: Self) -> Self;
    /// `self * rhs` (wrapping on integers).
    fn mul(self, rhs: Self) -> Self;
    /// `-self` (wrapping on integers: `-MIN` is `MIN`).
    fn neg(self) -> Self;
    /// `|self|` (wrapping on integers: `abs(MIN)` is `MIN`).
    fn abs(self) -> Self;
    /// `None` for an integer division by zero.
    fn div(self, rhs: Self) -> Option<Self>;
    /// `None` for an integer division by zero.
    fn rem(self, rhs: Self) -> Option<Self>;
    /// Floor-like (Euclidean) quotient; `None` for an integer division by zero.
    fn div_euclid(self, rhs: Self) -> Option<Self>;
    /// The remainder that is never negative; `None` for an integer division by zero.
    fn rem_euclid(self, rhs: Self) -> Option<Self>;
    /// `self` to an integer power. An integer base takes the exponent as `u32` (a negative
    /// exponent wraps to a large one), as the CUDA kernels do.
    fn powi(self, exponent: i32) -> Self;
    /// The lesser value; for floats the one that is not NaN, if any, and -0.0 below +0.0
    /// (IEEE 754-2019's minimumNumber), so the sign of a zero minimum does not depend on the
    /// order of the operands.
    fn min(self, rhs: Self) -> Self;
    /// The greater value; for floats the one that is not NaN, if any, and +0.0 above -0.0
    /// (IEEE 754-2019's maximumNumber).
    fn max(self, rhs: Self) -> Self;
}

macro_rules! integer_arithmetic {
    ($($t:ty),*) => {$(
        impl Arithmetic for $t {
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                self.wrapping_add(rhs)
            }
            #[inline(always)]
            fn sub(self, rhs: Self) -> Self {
                self.wrapping_sub(rhs)
            }
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self {
                self.wrapping_mul(rhs)
            }
            #[inline(always)]
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
            #[inline(always)]
            fn abs(self) -> Self {
                self.wrapping_abs()
            }
            #[inline(always)]
            fn div(self, rhs: Self) -> Option<Self> {
                (rhs != 0).then(|| self.wrapping_div(rhs))
            }
            #[inline(always)]
            fn rem(self, rhs: Self) -> Option<Self> {
                (rhs != 0).then(|| self.wrapping_rem(rhs))
            }
            #[inline(always)]
            fn div_euclid(self, rhs: Self) -> Option<Self> {
                (rhs != 0).then(|| self.wrapping_div_euclid(rhs))
            }
            #[inline(always)]
            fn rem_euclid(self, rhs: Self) -> Option<Self> {
                (rhs != 0).then(|| self.wrapping_rem_euclid(rhs))
            }
            #[inline(always)]
            fn powi(self, exponent: i32) -> Self {
                self.wrapping_pow(exponent as u32)
            }
            #[inline(always)]
            fn min(self, rhs: Self) -> Self {
                Ord::min(self, rhs)
            }
            #[inline(always)]
            fn max(self, rhs: Self) -> Self {
                Ord::max(self, rhs)
            }
        }
    )*};
}

macro_rules! float_arithmetic {
    ($($t:ty),*) => {$(
        impl Arithmetic for $t {
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                self + rhs
            }
            #[inline(always)]
            fn sub(self, rhs: Self) -> Self {
                self - rhs
            }
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self {
                self * rhs
            }
            #[inline(always)]
            fn neg(self) -> Self {
                -self
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn div(self, rhs: Self) -> Option<Self> {
                Some(self / rhs)
            }
            #[inline(always)]
            fn rem(self, rhs: Self) -> Option<Self> {
                Some(self % rhs)
            }
            #[inline(always)]
            fn div_euclid(self, rhs: Self) -> Option<Self> {
                Some(<$t>::div_euclid(self, rhs))
            }
            #[inline(always)]
            fn rem_euclid(self, rhs: Self) -> Option<Self> {
                Some(<$t>::rem_euclid(self, rhs))
            }
            #[inline(always)]
            fn powi(self, exponent: i32) -> Self {
                <$t>::powi(self, exponent)
            }
            // Rust's `min`/`max` leave the sign of a zero result to the order of the operands
            // (as C's `fmin`/`fmax` do), and so does LLVM, which treats `minnum`/`maxnum` as
            // commutative. The rule (-0.0 below +0.0) is restored with the sign bits alone,
            // symmetric in the operands and without a select: a select on `self == rhs` became
            // a branch in scalar loops (the cold-pool enhancement's edge stage, R2B5: 4.8-5.1 ms
            // with it, 3.3-3.5 ms with the sign bits, `--bench roofline`).
            #[inline(always)]
            fn min(self, rhs: Self) -> Self {
                // The smaller is negative where either operand is, but for zeros of both
                // signs, whose result must be -0.0: or-ing in the operands' signs gives that
                // and changes nothing else. A NaN operand (ignored by `min`) adds no sign.
                let sign = <$t>::from_bits(0).to_bits() | (-<$t>::from_bits(0)).to_bits();
                let signs = |x: Self| if x.is_nan() { 0 } else { x.to_bits() & sign };
                <$t>::from_bits(<$t>::min(self, rhs).to_bits() | signs(self) | signs(rhs))
            }
            #[inline(always)]
            fn max(self, rhs: Self) -> Self {
                // The larger is negative only where both operands are, so and-ing in their
                // signs changes nothing but the zeros of both signs, whose result must be
                // +0.0. A NaN operand (ignored by `max`) keeps the sign.
                let sign = <$t>::from_bits(0).to_bits() | (-<$t>::from_bits(0)).to_bits();
                let keeps = |x: Self| {
                    if x.is_nan() {
                        !0
                    } else {
                        x.to_bits() | !sign
                    }
                };
                <$t>::from_bits(<$t>::max(self, rhs).to_bits() & keeps(self) & keeps(rhs))
            }
        }
    )*};
}

integer_arithmetic!(i32, i64);
float_arithmetic!(f32, f64);

/// A conversion between element types: Rust's `as` between numbers (floats to integers
/// saturate, NaN gives 0), `false`/`true` as 0/1, and a number as a bool where it is not 0.
pub trait CastTo<T>: Copy {
    /// `self` converted to `T`.
    fn cast_to(self) -> T;
}

/// `x` converted to `T` by the rules of [`CastTo`].
#[inline(always)]
pub fn cast<F: CastTo<T>, T>(x: F) -> T {
    x.cast_to()
}

macro_rules! number_casts {
    ($($from:ty),*) => {$(
        number_casts!(@to $from; i32, i64, f32, f64);
        impl CastTo<bool> for $from {
            #[inline(always)]
            fn cast_to(self) -> bool {
                self != (0 as $from)
            }
        }
        impl CastTo<$from> for bool {
            #[inline(always)]
            fn cast_to(self) -> $from {
                u8::from(self) as $from
            }
        }
    )*};
    (@to $from:ty; $($to:ty),*) => {$(
        impl CastTo<$to> for $from {
            #[inline(always)]
            fn cast_to(self) -> $to {
                self as $to
            }
        }
    )*};
}

number_casts!(i32, i64, f32, f64);

impl CastTo<bool> for bool {
    #[inline(always)]
    fn cast_to(self) -> bool {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_and_a_zero_divisor_is_none() {
        assert_eq!(Arithmetic::add(i32::MAX, 1), i32::MIN);
        assert_eq!(Arithmetic::neg(i64::MIN), i64::MIN);
        assert_eq!(Arithmetic::abs(i32::MIN), i32::MIN);
        assert_eq!(Arithmetic::div(i32::MIN, -1), Some(i32::MIN));
        assert_eq!(Arithmetic::rem(i32::MIN, -1), Some(0));
        assert_eq!(Arithmetic::div(7i64, 0), None);
        assert_eq!(Arithmetic::rem_euclid(3i32, 0), None);
        assert_eq!(Arithmetic::div_euclid(-7i32, 2), Some(-4));
        assert_eq!(Arithmetic::rem_euclid(-7i32, 2), Some(1));
        assert_eq!(Arithmetic::powi(3i32, 4), 81);
        assert_eq!(Arithmetic::min(3i64, -2), -2);
    }

    #[test]
    fn floats_follow_ieee() {
        assert_eq!(Arithmetic::div(1.0f64, 0.0), Some(f64::INFINITY));
        assert!(Arithmetic::rem(1.0f32, 0.0).is_some_and(f32::is_nan));
        assert_eq!(Arithmetic::min(f64::NAN, 2.0), 2.0);
        assert_eq!(Arithmetic::div_euclid(-7.0f64, 2.0), Some(-4.0));
        assert_eq!(Arithmetic::powi(2.0f32, -1), 0.5);
    }

    #[test]
    fn the_sign_of_a_zero_extremum_does_not_depend_on_the_order() {
        fn bits(pair: (f64, f64)) -> (u64, u64) {
            (pair.0.to_bits(), pair.1.to_bits())
        }
        for (a, b) in [(0.0f64, -0.0f64), (-0.0, 0.0)] {
            assert_eq!(Arithmetic::max(a, b).to_bits(), 0.0f64.to_bits());
            assert_eq!(Arithmetic::min(a, b).to_bits(), (-0.0f64).to_bits());
            assert_eq!(
                Arithmetic::max(a as f32, b as f32).to_bits(),
                0.0f32.to_bits()
            );
            assert_eq!(
                Arithmetic::min(a as f32, b as f32).to_bits(),
                (-0.0f32).to_bits()
            );
        }
        for z in [0.0f64, -0.0] {
            // Zeros of one sign, and a zero against NaN, keep that zero.
            assert_eq!(
                bits((Arithmetic::max(z, z), Arithmetic::min(z, z))),
                bits((z, z))
            );
            assert_eq!(
                bits((Arithmetic::max(z, f64::NAN), Arithmetic::min(f64::NAN, z))),
                bits((z, z))
            );
            // A zero against a number of either sign.
            assert_eq!(Arithmetic::max(z, -1.5).to_bits(), z.to_bits());
            assert_eq!(Arithmetic::min(z, 1.5).to_bits(), z.to_bits());
        }
        assert!(Arithmetic::max(f64::NAN, f64::NAN).is_nan());
        // Signalling NaNs with payloads that share no bit: still a NaN either way.
        let (a, b) = (
            f64::from_bits(0x7ff0_0000_0000_0001),
            f64::from_bits(0x7ff0_0000_0000_0002),
        );
        assert!(Arithmetic::max(a, b).is_nan() && Arithmetic::min(a, b).is_nan());
        assert_eq!(
            Arithmetic::max(f64::MIN, -0.0).to_bits(),
            (-0.0f64).to_bits()
        );
    }

    /// The branch-free `min`/`max` against the rule written out (the bits of zeros of both
    /// signs combined, Rust's `min`/`max` otherwise), on every pair of special and ordinary
    /// values of both types: NaNs of both signs, infinities, zeros, subnormals, extremes.
    #[test]
    fn the_sign_bit_forms_of_min_and_max_are_the_rule() {
        fn rule_min(a: f64, b: f64) -> f64 {
            if a == b {
                f64::from_bits(a.to_bits() | b.to_bits())
            } else {
                a.min(b)
            }
        }
        fn rule_max(a: f64, b: f64) -> f64 {
            if a == b {
                f64::from_bits(a.to_bits() & b.to_bits())
            } else {
                a.max(b)
            }
        }
        let values = [
            0.0,
            -0.0,
            1.5,
            -1.5,
            -2.0,
            3.25,
            f64::MIN_POSITIVE / 4.0,
            -f64::MIN_POSITIVE / 4.0,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
        ];
        for &a in &values {
            for &b in &values {
                let same =
                    |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
                assert!(same(Arithmetic::min(a, b), rule_min(a, b)), "min({a}, {b})");
                assert!(same(Arithmetic::max(a, b), rule_max(a, b)), "max({a}, {b})");
                let (x, y) = (a as f32, b as f32);
                let narrow = |v: f64| v as f32;
                let same32 =
                    |p: f32, q: f32| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan());
                assert!(
                    same32(
                        Arithmetic::min(x, y),
                        narrow(rule_min(f64::from(x), f64::from(y)))
                    ),
                    "min({x}, {y})"
                );
                assert!(
                    same32(
                        Arithmetic::max(x, y),
                        narrow(rule_max(f64::from(x), f64::from(y)))
                    ),
                    "max({x}, {y})"
                );
            }
        }
    }

    #[test]
    fn casts_are_rust_as_with_bools_as_zero_and_one() {
        assert_eq!(cast::<f64, i32>(f64::NAN), 0);
        assert_eq!(cast::<f64, i32>(1e300), i32::MAX);
        assert_eq!(cast::<i64, i32>(1 << 33 | 5), 5);
        assert_eq!(cast::<bool, f32>(true), 1.0);
        assert!(cast::<f64, bool>(f64::NAN));
        assert!(!cast::<f32, bool>(-0.0));
        assert!(cast::<i32, bool>(-3));
    }
}

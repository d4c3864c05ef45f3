//! The gamma function, which the Rust standard library lacks, from the platform's C math
//! library. The generated CUDA kernels call the same C function (`tgamma`), so every backend
//! computes it alike.

extern "C" {
    fn tgamma(x: f64) -> f64;
}

/// The gamma function, as C's `tgamma`: NaN at the negative integers and for NaN, ±∞ at ±0, +∞
/// where it overflows (beyond 171.6).
#[inline]
pub fn gamma(x: f64) -> f64 {
    // SAFETY: `tgamma` is a C99 function of one double by value, defined for every input (errors
    // come back as its result and in errno, which nothing here reads), and it touches no memory
    // of ours.
    unsafe { tgamma(x) }
}

/// [`gamma`] of an `f32`, computed in double precision and rounded once.
#[inline]
pub fn gamma_f32(x: f32) -> f32 {
    gamma(f64::from(x)) as f32
}

#[cfg(test)]
mod tests {
    use super::gamma;

    #[test]
    fn gamma_matches_factorials_half_integers_and_c_at_the_poles() {
        let mut factorial = 1.0f64;
        for n in 1..=20u32 {
            let got = gamma(n as f64);
            assert!(
                ((got - factorial) / factorial).abs() < 1e-15,
                "gamma({n}) = {got}, want {factorial}"
            );
            factorial *= n as f64;
        }
        // Γ(n + 1/2) = (2n)! / (4^n n!) √π, built up by Γ(x + 1) = x Γ(x).
        let sqrt_pi = std::f64::consts::PI.sqrt();
        let mut want = sqrt_pi;
        for n in 0..19u32 {
            let x = n as f64 + 0.5;
            let got = gamma(x);
            assert!(
                ((got - want) / want).abs() < 1e-14,
                "gamma({x}) = {got}, want {want}"
            );
            want *= x;
        }
        assert!(((gamma(-0.5) + 2.0 * sqrt_pi) / (2.0 * sqrt_pi)).abs() < 1e-15);
        assert!(gamma(-2.0).is_nan());
        assert!(gamma(f64::NAN).is_nan());
        assert_eq!(gamma(0.0), f64::INFINITY);
        assert_eq!(gamma(200.0), f64::INFINITY);
    }
}

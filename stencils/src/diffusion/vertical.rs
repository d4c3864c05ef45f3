//! A generated vertical grid over flat terrain: half-level heights, interpolation weights, the
//! damping layer, and a stably stratified reference atmosphere.

use gt4rs::Error;

use super::config::{CPD, GRAV, RD};

/// Vertical grid parameters. Levels count from the model top down, as in ICON.
#[derive(Clone, Debug, PartialEq)]
pub struct VerticalGrid {
    /// Number of full levels.
    pub nlev: usize,
    /// `vct_a`: `nlev + 1` half-level heights (m), from `top_height` down to 0.
    pub vct_a: Vec<f64>,
    /// Full-level heights: midpoints of the half levels.
    pub z_mc: Vec<f64>,
    /// Height (m) above which Rayleigh damping (and extra ∇² on w) acts.
    pub damping_height: f64,
    /// ICON's `nrdmax` (0-based): the last half level at or above `damping_height`.
    pub nrdmax: usize,
}

/// Brunt–Väisälä frequency (1/s) of the reference atmosphere.
pub const REFERENCE_BRUNT_VAISALA: f64 = 0.01;
/// Surface potential temperature (K) of the reference atmosphere.
pub const REFERENCE_THETA_SURFACE: f64 = 288.0;

impl VerticalGrid {
    /// `nlev` levels up to `top_height` metres. Layers thicken with height:
    /// `z(η) = H (¼ η + ¾ η²)` on a uniform η, so the lowest layer is ¼ and the highest 1¾ of
    /// the mean thickness.
    pub fn stretched(nlev: usize, top_height: f64, damping_height: f64) -> Result<Self, Error> {
        if nlev < 3 {
            return Err(Error::Config(format!(
                "the vertical grid needs at least 3 levels, not {nlev}"
            )));
        }
        if !(top_height > 0.0 && damping_height > 0.0 && damping_height < top_height) {
            return Err(Error::Config(format!(
                "need 0 < damping height ({damping_height} m) < model top ({top_height} m)"
            )));
        }
        let vct_a: Vec<f64> = (0..=nlev)
            .map(|k| {
                let eta = 1.0 - k as f64 / nlev as f64;
                top_height * (0.25 * eta + 0.75 * eta * eta)
            })
            .collect();
        Self::from_vct_a(vct_a, damping_height)
    }

    /// The vertical grid of the half-level heights `vct_a` (top down, `nlev + 1` of them, as
    /// a model hands them over) with Rayleigh damping above `damping_height`.
    pub fn from_vct_a(vct_a: Vec<f64>, damping_height: f64) -> Result<Self, Error> {
        let nlev = vct_a.len().saturating_sub(1);
        if nlev < 3 {
            return Err(Error::Config(format!(
                "the vertical grid needs at least 3 levels, not {nlev}"
            )));
        }
        if !vct_a.windows(2).all(|w| w[0] > w[1]) {
            return Err(Error::Config(
                "vct_a must fall strictly from the model top to the ground".into(),
            ));
        }
        let z_mc = vct_a.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect();
        let nrdmax = vct_a
            .iter()
            .rposition(|&z| z >= damping_height)
            .unwrap_or(0);
        Ok(VerticalGrid {
            nlev,
            vct_a,
            z_mc,
            damping_height,
            nrdmax,
        })
    }

    /// ICON's 65-level setup scaled to a 22 km top with damping above 16 km.
    pub fn default_for(nlev: usize) -> Result<Self, Error> {
        Self::stretched(nlev, 22_000.0, 16_000.0)
    }

    /// `wgtfac_c` on the `nlev + 1` half levels: the weight of full level `k` when
    /// interpolating to half level `k` (`w·f[k] + (1-w)·f[k-1]`), linear in height; the top
    /// and the surface values are ICON's (see [`super::metrics::wgtfac_c_column`]).
    pub fn wgtfac_c(&self) -> Result<Vec<f64>, Error> {
        super::metrics::wgtfac_c_column(&self.vct_a)
    }

    /// θ of the reference atmosphere at height `z`: constant stability
    /// `θ = θ₀ exp(N² z / g)`.
    pub fn reference_theta(z: f64) -> f64 {
        let n2 = REFERENCE_BRUNT_VAISALA * REFERENCE_BRUNT_VAISALA;
        REFERENCE_THETA_SURFACE * (n2 * z / GRAV).exp()
    }

    /// The exner pressure in hydrostatic balance with [`Self::reference_theta`] and exner = 1 at
    /// the surface: `π = 1 + g² / (c_pd θ₀ N²) (exp(-N² z / g) - 1)`.
    pub fn reference_exner(z: f64) -> f64 {
        let n2 = REFERENCE_BRUNT_VAISALA * REFERENCE_BRUNT_VAISALA;
        1.0 + GRAV * GRAV / (CPD * REFERENCE_THETA_SURFACE * n2) * ((-n2 * z / GRAV).exp() - 1.0)
    }

    /// `theta_ref_mc` per full level.
    pub fn theta_ref_mc(&self) -> Vec<f64> {
        self.z_mc
            .iter()
            .map(|&z| Self::reference_theta(z))
            .collect()
    }
}

/// `R_d / c_vd`, the factor of the exner update.
pub fn rd_o_cvd() -> f64 {
    RD / (CPD - RD)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heights_weights_and_balance() {
        let v = VerticalGrid::default_for(65).expect("valid");
        assert_eq!(v.vct_a.len(), 66);
        assert!((v.vct_a[0] - 22_000.0).abs() < 1e-9 && v.vct_a[65].abs() < 1e-9);
        assert!(v.vct_a.windows(2).all(|w| w[0] > w[1]));
        assert!(v.vct_a[v.nrdmax] >= 16_000.0 && v.vct_a[v.nrdmax + 1] < 16_000.0);
        let w = v.wgtfac_c().expect("65 levels");
        assert!(w[1..65].iter().all(|&x| x > 0.0 && x < 1.0), "{w:?}");
        // Hydrostatic balance: dπ/dz = -g / (c_pd θ).
        let (z, dz) = (5000.0, 1.0);
        let dpi = (VerticalGrid::reference_exner(z + dz) - VerticalGrid::reference_exner(z - dz))
            / (2.0 * dz);
        let expected = -GRAV / (CPD * VerticalGrid::reference_theta(z));
        assert!(
            (dpi - expected).abs() < 1e-9 * expected.abs().max(1.0),
            "{dpi} {expected}"
        );
    }
}

//! A balanced initial state for the dynamical core: an isothermal atmosphere in solid-body
//! rotation around the Earth's axis, `u = u₀ cos φ`, in hydrostatic and gradient-wind balance
//! on the rotating sphere (shallow atmosphere),
//!
//! `p(φ, z) = p_eq exp(-(u₀² + 2 Ω a u₀) sin²φ / (2 R_d T₀) - g z / (R_d T₀))`,
//!
//! a steady solution of the continuous equations over flat ground. Over the terrain the wind
//! is forced up the mountains, which launches the gravity waves the job shows; with `u₀ = 0`
//! the atmosphere is at rest and stays so up to the discretisation error of the pressure
//! gradient over sloping levels.

use gt4rs::grid::{Grid, Surface};
use gt4rs::Error;
use ndarray::{Array1, Array2};

use super::config::P0REF;
use super::metrics::MetricState;
use super::state::{DiagnosticState, PrognosticState};
use crate::diffusion::config::{CPD, GRAV, RD};
use crate::diffusion::state::field_of;
use crate::diffusion::terrain::Terrain;
use crate::dycore::geometry::EARTH_ANGULAR_VELOCITY;

/// The balanced state's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RotatingAtmosphere {
    /// Zonal wind at the equator (m/s).
    pub u0: f64,
    /// Temperature of the isothermal atmosphere (K).
    pub temperature: f64,
    /// Pressure at the equator at sea level (Pa).
    pub equator_pressure: f64,
}

impl Default for RotatingAtmosphere {
    fn default() -> Self {
        RotatingAtmosphere {
            u0: 20.0,
            temperature: 288.0,
            equator_pressure: 100_000.0,
        }
    }
}

impl RotatingAtmosphere {
    /// Pressure (Pa) at latitude `lat` (rad) and height `z` (m) on a sphere of `radius`.
    pub fn pressure(&self, lat: f64, z: f64, radius: f64) -> f64 {
        let rt = RD * self.temperature;
        let meridional = (self.u0 * self.u0 + 2.0 * EARTH_ANGULAR_VELOCITY * radius * self.u0)
            * lat.sin().powi(2)
            / (2.0 * rt);
        self.equator_pressure * (-meridional - GRAV * z / rt).exp()
    }

    /// The prognostic state on `grid` over `terrain` (cells at their full-level heights), and
    /// the diagnostic state with the perturbation of the Exner function from `metric`'s
    /// reference atmosphere (ICON's `exner_pr`).
    pub fn state(
        &self,
        grid: &Grid,
        terrain: &Terrain,
        metric: &MetricState,
    ) -> Result<(PrognosticState, DiagnosticState), Error> {
        let Surface::Sphere { radius } = grid.geometry.surface else {
            return Err(Error::Config(
                "the rotating atmosphere needs a spherical grid (`rNbK`)".into(),
            ));
        };
        if !(self.temperature > 0.0 && self.equator_pressure > 0.0 && self.u0.is_finite()) {
            return Err(Error::Config(format!(
                "the rotating atmosphere needs a positive temperature and pressure and a finite \
                 wind, not {self:?}"
            )));
        }
        let (nc, ne, nlev) = (grid.num_cells, grid.num_edges, terrain.nlev());
        let z_mc = &terrain.z_mc;
        if z_mc.dim() != (nc, nlev) {
            return Err(Error::Shape(format!(
                "the terrain's full levels have shape {:?}; the grid needs ({nc}, {nlev})",
                z_mc.dim()
            )));
        }
        let latitude = |p: ndarray::ArrayView1<'_, f64>| {
            (p[2] / (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt()).asin()
        };
        let cell_lat: Array1<f64> = grid
            .geometry
            .cell_center
            .rows()
            .into_iter()
            .map(latitude)
            .collect();
        let exner_of = |p: f64| (p / P0REF).powf(RD / CPD);
        // θ_v of the isothermal atmosphere at each full level.
        let theta_v = Array2::from_shape_fn((nc, nlev), |(c, k)| {
            self.temperature / exner_of(self.pressure(cell_lat[c], z_mc[[c, k]], radius))
        });
        let exner = balanced_exner(metric, &theta_v, |c| {
            exner_of(self.pressure(cell_lat[c], z_mc[[c, nlev - 1]], radius))
        })?;
        // ICON's equation of state, `exner = (R_d ρ θ_v / p0)^(R_d / c_vd)`.
        let cvd_o_rd = (CPD - RD) / RD;
        let rho = Array2::from_shape_fn((nc, nlev), |(c, k)| {
            P0REF * exner[[c, k]].powf(cvd_o_rd) / (RD * theta_v[[c, k]])
        });
        // The zonal wind's component along each edge normal (its east component).
        let g = &grid.geometry;
        let vn = Array2::from_shape_fn((ne, nlev), |(e, _)| {
            self.u0 * latitude(g.edge_center.row(e)).cos() * g.primal_normal_x[e]
        });
        let reference = metric.reference_exner_at_cells_on_model_levels.as_array();
        let perturbed_exner = &exner.clone().into_dyn() - &reference;
        let prognostic = PrognosticState {
            vn: field_of(vn.into_dyn())?,
            w: field_of(Array2::<f64>::zeros((nc, nlev + 1)).into_dyn())?,
            rho: field_of(rho.into_dyn())?,
            exner: field_of(exner.into_dyn())?,
            theta_v: field_of(theta_v.into_dyn())?,
        };
        let mut diagnostic = DiagnosticState::zeros(nc, ne, nlev)?;
        diagnostic.perturbed_exner_at_cells_on_model_levels = field_of(perturbed_exner)?;
        Ok((prognostic, diagnostic))
    }
}

/// The Exner function in the solver's discrete hydrostatic balance with `theta_v`: the lowest
/// level from `lowest(cell)`, each level above from the one below so that the vertical
/// momentum equation as the solver discretises it (ICON4Py's `nonhydro_buoy` and the
/// vertically implicit solve: `θ_v,ic (π'ₖ₋₁ - π'ₖ) / Δz_half + θ'_v,ic ∂π₀/∂z = 0` at each
/// interior half level, θ_v and its perturbation θ'_v from the reference interpolated with
/// `wgtfac_c`) has no vertical acceleration. Over flat ground with no wind the state is then
/// steady to rounding.
fn balanced_exner(
    metric: &MetricState,
    theta_v: &Array2<f64>,
    lowest: impl Fn(usize) -> f64,
) -> Result<Array2<f64>, Error> {
    let (nc, nlev) = theta_v.dim();
    let half = |name: &str, a: ndarray::ArrayViewD<'_, f64>| -> Result<(), Error> {
        if a.shape() != [nc, nlev + 1] {
            return Err(Error::Shape(format!(
                "metric field `{name}` has shape {:?}; the state needs [{nc}, {}]",
                a.shape(),
                nlev + 1
            )));
        }
        Ok(())
    };
    let full = |name: &str, a: ndarray::ArrayViewD<'_, f64>| -> Result<(), Error> {
        if a.shape() != [nc, nlev] {
            return Err(Error::Shape(format!(
                "metric field `{name}` has shape {:?}; the state needs [{nc}, {nlev}]",
                a.shape()
            )));
        }
        Ok(())
    };
    let wgtfac_c = metric.wgtfac_c.as_array();
    let ddqz_z_half = metric.ddqz_z_half.as_array();
    let d_exner_dz_ref_ic = metric
        .ddz_of_reference_exner_at_cells_on_half_levels
        .as_array();
    let theta_ref_mc = metric.reference_theta_at_cells_on_model_levels.as_array();
    let exner_ref_mc = metric.reference_exner_at_cells_on_model_levels.as_array();
    half("wgtfac_c", wgtfac_c.view())?;
    half("ddqz_z_half", ddqz_z_half.view())?;
    half("d_exner_dz_ref_ic", d_exner_dz_ref_ic.view())?;
    full("theta_ref_mc", theta_ref_mc.view())?;
    full("exner_ref_mc", exner_ref_mc.view())?;
    let mut exner = Array2::<f64>::zeros((nc, nlev));
    for c in 0..nc {
        let mut perturbed = lowest(c) - exner_ref_mc[[c, nlev - 1]];
        exner[[c, nlev - 1]] = lowest(c);
        for k in (1..nlev).rev() {
            let w = wgtfac_c[[c, k]];
            let theta_pr_ic = w * (theta_v[[c, k]] - theta_ref_mc[[c, k]])
                + (1.0 - w) * (theta_v[[c, k - 1]] - theta_ref_mc[[c, k - 1]]);
            let theta_ic = w * theta_v[[c, k]] + (1.0 - w) * theta_v[[c, k - 1]];
            perturbed -= ddqz_z_half[[c, k]] * theta_pr_ic * d_exner_dz_ref_ic[[c, k]] / theta_ic;
            exner[[c, k - 1]] = exner_ref_mc[[c, k - 1]] + perturbed;
        }
    }
    Ok(exner)
}

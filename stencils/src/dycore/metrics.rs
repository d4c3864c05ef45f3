//! The metric fields of the nonhydrostatic solver and velocity advection (ICON4Py's
//! `MetricStateNonHydro`), computed on a grid over a terrain as ICON4Py's metrics factory does.

use gt4rs::Field;

use crate::icon::dims::{Cell, Edge, E2C, K};

/// ICON4Py's `MetricStateNonHydro`, double precision, under ICON4Py's names. Fields on half
/// levels have `nlev + 1` levels, the others `nlev`, unless a field's comment says otherwise.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricState {
    /// Cells whose prognostic fields a rank updates in its halo (ICON's `mask_prog_halo_c`).
    pub mask_prog_halo_c: Field<Cell, bool>,
    /// Rayleigh damping of w per half level (`rayleigh_w`).
    pub rayleigh_w: Field<K, f64>,
    pub wgtfac_c: Field<(Cell, K), f64>,
    pub wgtfacq_c: Field<(Cell, K), f64>,
    pub wgtfac_e: Field<(Edge, K), f64>,
    pub wgtfacq_e: Field<(Edge, K), f64>,
    /// ICON's `exner_exfac`.
    pub time_extrapolation_parameter_for_exner: Field<(Cell, K), f64>,
    /// ICON's `exner_ref_mc`.
    pub reference_exner_at_cells_on_model_levels: Field<(Cell, K), f64>,
    /// ICON's `rho_ref_mc`.
    pub reference_rho_at_cells_on_model_levels: Field<(Cell, K), f64>,
    /// ICON's `theta_ref_mc`.
    pub reference_theta_at_cells_on_model_levels: Field<(Cell, K), f64>,
    /// ICON's `rho_ref_me`.
    pub reference_rho_at_edges_on_model_levels: Field<(Edge, K), f64>,
    /// ICON's `theta_ref_me`.
    pub reference_theta_at_edges_on_model_levels: Field<(Edge, K), f64>,
    /// ICON's `theta_ref_ic`.
    pub reference_theta_at_cells_on_half_levels: Field<(Cell, K), f64>,
    /// ICON's `d_exner_dz_ref_ic`.
    pub ddz_of_reference_exner_at_cells_on_half_levels: Field<(Cell, K), f64>,
    pub ddqz_z_half: Field<(Cell, K), f64>,
    pub d2dexdz2_fac1_mc: Field<(Cell, K), f64>,
    pub d2dexdz2_fac2_mc: Field<(Cell, K), f64>,
    pub ddxn_z_full: Field<(Edge, K), f64>,
    pub ddqz_z_full_e: Field<(Edge, K), f64>,
    pub ddxt_z_full: Field<(Edge, K), f64>,
    pub inv_ddqz_z_full: Field<(Cell, K), f64>,
    /// The level offset of each E2C cell's level that brackets the edge's height, where the
    /// pressure gradient is taken across levels (`vertoffset_gradp`).
    pub vertoffset_gradp: Field<(Edge, E2C, K), i32>,
    pub zdiff_gradp: Field<(Edge, E2C, K), f64>,
    /// The first level from which the pressure gradient may need the multiple-level form.
    pub nflat_gradp: i32,
    pub pg_exdist: Field<(Edge, K), f64>,
    /// ICON's `vwind_expl_wgt`.
    pub exner_w_explicit_weight_parameter: Field<Cell, f64>,
    /// ICON's `vwind_impl_wgt`.
    pub exner_w_implicit_weight_parameter: Field<Cell, f64>,
    /// ICON's `hmask_dd3d`.
    pub horizontal_mask_for_3d_divdamp: Field<Edge, f64>,
    /// ICON's `scalfac_dd3d`.
    pub scaling_factor_for_3d_divdamp: Field<K, f64>,
    pub coeff1_dwdz: Field<(Cell, K), f64>,
    pub coeff2_dwdz: Field<(Cell, K), f64>,
    pub coeff_gradekin: Field<(Edge, E2C), f64>,
}

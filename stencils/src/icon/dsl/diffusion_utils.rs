//! K-field setup helpers of the diffusion granule (ICON4Py `diffusion/diffusion_utils.py`).
//! These programs have no domain parameters: they write every level.

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, K};

#[field_operator]
pub fn _setup_smag_limit(diff_multfac_vn: Field<K, f64>) -> Field<K, f64> {
    0.125 - 4.0 * diff_multfac_vn
}

#[field_operator]
pub fn _setup_initial_diff_multfac_vn(k4: f64, hdiff_efdt_ratio: f64) -> Field<K, f64> {
    broadcast(k4 / 3.0 * hdiff_efdt_ratio, (K,))
}

#[field_operator]
pub fn _setup_fields_for_initial_step(
    k4: f64,
    hdiff_efdt_ratio: f64,
) -> (Field<K, f64>, Field<K, f64>) {
    let diff_multfac_vn = _setup_initial_diff_multfac_vn(k4, hdiff_efdt_ratio);
    let smag_limit = _setup_smag_limit(diff_multfac_vn);
    (diff_multfac_vn, smag_limit)
}

#[program]
pub fn setup_fields_for_initial_step(
    k4: f64,
    hdiff_efdt_ratio: f64,
    diff_multfac_vn: &mut Field<K, f64>,
    smag_limit: &mut Field<K, f64>,
) {
    _setup_fields_for_initial_step(k4, hdiff_efdt_ratio).write_to((diff_multfac_vn, smag_limit));
}

#[field_operator]
pub fn _scale_k(field: Field<K, f64>, factor: f64) -> Field<K, f64> {
    field * factor
}

#[program]
pub fn scale_k(field: &Field<K, f64>, factor: f64, scaled_field: &mut Field<K, f64>) {
    _scale_k(field, factor).write_to(scaled_field);
}

/// `max(1/128, K4·substeps/3)` on every level: ICON's background ∇⁴ factor of a regular step.
#[field_operator]
pub fn _setup_runtime_diff_multfac_vn(k4: f64, dyn_substeps: f64) -> Field<K, f64> {
    broadcast((k4 * dyn_substeps / 3.0).max(1.0 / 128.0), (K,))
}

/// ICON's Smagorinsky enhancement profile for `nshift = 0`: constant `fac` up to `z`, linear to
/// `fac2` at `z2`, then quadratic through `fac3` (at `z3`) towards `fac4` (at `z4`), evaluated
/// at full-level heights `(vect_a[k] + vect_a[k+1]) / 2` (ICON4Py `_en_smag_fac_for_zero_nshift`).
#[field_operator]
pub fn _en_smag_fac_for_zero_nshift(
    vect_a: Field<K, f64>,
    hdiff_smag_fac: f64,
    hdiff_smag_fac2: f64,
    hdiff_smag_fac3: f64,
    hdiff_smag_fac4: f64,
    hdiff_smag_z: f64,
    hdiff_smag_z2: f64,
    hdiff_smag_z3: f64,
    hdiff_smag_z4: f64,
) -> Field<K, f64> {
    let dz21 = hdiff_smag_z2 - hdiff_smag_z;
    let alin = (hdiff_smag_fac2 - hdiff_smag_fac) / dz21;
    let df32 = hdiff_smag_fac3 - hdiff_smag_fac2;
    let df42 = hdiff_smag_fac4 - hdiff_smag_fac2;
    let dz32 = hdiff_smag_z3 - hdiff_smag_z2;
    let dz42 = hdiff_smag_z4 - hdiff_smag_z2;
    let bqdr = (df42 * dz32 - df32 * dz42) / (dz32 * dz42 * (dz42 - dz32));
    let aqdr = df32 / dz32 - bqdr * dz32;
    let zf = 0.5 * (vect_a + vect_a.at(K + 1));
    let dzlin = (zf - hdiff_smag_z).max(0.0).min(dz21);
    let dzqdr = (zf - hdiff_smag_z2).max(0.0).min(dz42);
    hdiff_smag_fac + dzlin * alin + dzqdr * (aqdr + dzqdr * bqdr)
}

#[field_operator]
pub fn _init_diffusion_local_fields_for_regular_timestep(
    k4: f64,
    dyn_substeps: f64,
    hdiff_smag_fac: f64,
    hdiff_smag_fac2: f64,
    hdiff_smag_fac3: f64,
    hdiff_smag_fac4: f64,
    hdiff_smag_z: f64,
    hdiff_smag_z2: f64,
    hdiff_smag_z3: f64,
    hdiff_smag_z4: f64,
    vect_a: Field<K, f64>,
) -> (Field<K, f64>, Field<K, f64>, Field<K, f64>) {
    let diff_multfac_vn = _setup_runtime_diff_multfac_vn(k4, dyn_substeps);
    let smag_limit = _setup_smag_limit(diff_multfac_vn);
    let enh_smag_fac = _en_smag_fac_for_zero_nshift(
        vect_a,
        hdiff_smag_fac,
        hdiff_smag_fac2,
        hdiff_smag_fac3,
        hdiff_smag_fac4,
        hdiff_smag_z,
        hdiff_smag_z2,
        hdiff_smag_z3,
        hdiff_smag_z4,
    );
    (diff_multfac_vn, smag_limit, enh_smag_fac)
}

/// `vect_a` holds the `nlev + 1` half-level heights; the outputs have `nlev` full levels.
#[program]
pub fn init_diffusion_local_fields_for_regular_timestep(
    k4: f64,
    dyn_substeps: f64,
    hdiff_smag_fac: f64,
    hdiff_smag_fac2: f64,
    hdiff_smag_fac3: f64,
    hdiff_smag_fac4: f64,
    hdiff_smag_z: f64,
    hdiff_smag_z2: f64,
    hdiff_smag_z3: f64,
    hdiff_smag_z4: f64,
    vect_a: &Field<K, f64>,
    diff_multfac_vn: &mut Field<K, f64>,
    smag_limit: &mut Field<K, f64>,
    enh_smag_fac: &mut Field<K, f64>,
    vertical_start: i32,
    vertical_end: i32,
) {
    _init_diffusion_local_fields_for_regular_timestep(
        k4,
        dyn_substeps,
        hdiff_smag_fac,
        hdiff_smag_fac2,
        hdiff_smag_fac3,
        hdiff_smag_fac4,
        hdiff_smag_z,
        hdiff_smag_z2,
        hdiff_smag_z3,
        hdiff_smag_z4,
        vect_a,
    )
    .write_to(
        (diff_multfac_vn, smag_limit, enh_smag_fac),
        domain![K: vertical_start..vertical_end],
    );
}

/// ∇² factor of w in the upper damping layer (levels `1..=nrdmax`):
/// `((vct_a[k] - vct_a[nrdmax+1]) / (vct_a[1] - vct_a[nrdmax+1]))⁴ / 12`, 0 elsewhere
/// (ICON4Py `init_nabla2_factor_in_upper_damping_zone`, `nshift = 0`).
#[field_operator]
pub fn _init_nabla2_factor_in_upper_damping_zone(
    physical_heights: Field<K, f64>,
    nrdmax: i32,
    heights_nrd_shift: f64,
    heights_1: f64,
) -> Field<K, f64> {
    let ratio = (physical_heights - heights_nrd_shift) / (heights_1 - heights_nrd_shift);
    concat_where(
        (K >= 1) & (K < nrdmax + 1),
        ratio.powi(4) / 12.0,
        broadcast(0.0, (K,)),
    )
}

#[program]
pub fn init_nabla2_factor_in_upper_damping_zone(
    physical_heights: &Field<K, f64>,
    nrdmax: i32,
    heights_nrd_shift: f64,
    heights_1: f64,
    diff_multfac_n2w: &mut Field<K, f64>,
    vertical_start: i32,
    vertical_end: i32,
) {
    _init_nabla2_factor_in_upper_damping_zone(
        physical_heights,
        nrdmax,
        heights_nrd_shift,
        heights_1,
    )
    .write_to(diff_multfac_n2w, domain![K: vertical_start..vertical_end]);
}

#[field_operator]
pub fn _copy_field(old_f: Field<(Cell, K), f64>) -> Field<(Cell, K), f64> {
    old_f
}

#[program]
pub fn copy_field(old_f: &Field<(Cell, K), f64>, new_f: &mut Field<(Cell, K), f64>) {
    _copy_field(old_f).write_to(new_f);
}

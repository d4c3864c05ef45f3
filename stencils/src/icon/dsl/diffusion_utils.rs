//! K-field setup helpers of the diffusion granule (ICON4Py `diffusion/diffusion_utils.py`).
//! These programs have no domain parameters: they write every level.

use gt4rs::prelude::*;

use crate::icon::dims::K;

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

// K-field setup helpers of the diffusion granule. ICON4Py declares every field and scalar of
// `diffusion_utils.py` plain `float` (f64), neither `vpfloat` nor `wpfloat`; they are written
// `wpfloat` here, which is f64 in both precision modes, with no casts, so both modes compute the
// same values. (An item that names no alias would get the same hidden definition macro in both
// modules.) Included by `diffusion_utils::double` and `diffusion_utils::mixed`, each of which
// declares the two aliases first. These programs write every level or take K bounds only.

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, K};

#[field_operator]
pub fn _setup_smag_limit(diff_multfac_vn: Field<K, wpfloat>) -> Field<K, wpfloat> {
    0.125 - 4.0 * diff_multfac_vn
}

#[field_operator]
pub fn _setup_initial_diff_multfac_vn(k4: wpfloat, hdiff_efdt_ratio: wpfloat) -> Field<K, wpfloat> {
    broadcast(k4 / 3.0 * hdiff_efdt_ratio, (K,))
}

#[field_operator]
pub fn _setup_fields_for_initial_step(
    k4: wpfloat,
    hdiff_efdt_ratio: wpfloat,
) -> (Field<K, wpfloat>, Field<K, wpfloat>) {
    let diff_multfac_vn = _setup_initial_diff_multfac_vn(k4, hdiff_efdt_ratio);
    let smag_limit = _setup_smag_limit(diff_multfac_vn);
    (diff_multfac_vn, smag_limit)
}

#[program]
pub fn setup_fields_for_initial_step(
    k4: wpfloat,
    hdiff_efdt_ratio: wpfloat,
    diff_multfac_vn: &mut Field<K, wpfloat>,
    smag_limit: &mut Field<K, wpfloat>,
) {
    _setup_fields_for_initial_step(k4, hdiff_efdt_ratio).write_to((diff_multfac_vn, smag_limit));
}

#[field_operator]
pub fn _scale_k(field: Field<K, wpfloat>, factor: wpfloat) -> Field<K, wpfloat> {
    field * factor
}

#[program]
pub fn scale_k(field: &Field<K, wpfloat>, factor: wpfloat, scaled_field: &mut Field<K, wpfloat>) {
    _scale_k(field, factor).write_to(scaled_field);
}

/// `min(1/128, K4·substeps/3)` on every level: the background ∇⁴ factor of a regular step, as
/// ICON (`mo_nh_diffusion`) and ICON4Py's `_setup_runtime_diff_multfac_vn` compute it.
#[field_operator]
pub fn _setup_runtime_diff_multfac_vn(k4: wpfloat, dyn_substeps: wpfloat) -> Field<K, wpfloat> {
    broadcast((k4 * dyn_substeps / 3.0).min(1.0 / 128.0), (K,))
}

/// ICON's Smagorinsky enhancement profile for `nshift = 0`: constant `fac` up to `z`, linear to
/// `fac2` at `z2`, then quadratic through `fac3` (at `z3`) towards `fac4` (at `z4`), evaluated
/// at full-level heights `(vect_a[k] + vect_a[k+1]) / 2` (ICON4Py `_en_smag_fac_for_zero_nshift`).
#[field_operator]
pub fn _en_smag_fac_for_zero_nshift(
    vect_a: Field<K, wpfloat>,
    hdiff_smag_fac: wpfloat,
    hdiff_smag_fac2: wpfloat,
    hdiff_smag_fac3: wpfloat,
    hdiff_smag_fac4: wpfloat,
    hdiff_smag_z: wpfloat,
    hdiff_smag_z2: wpfloat,
    hdiff_smag_z3: wpfloat,
    hdiff_smag_z4: wpfloat,
) -> Field<K, wpfloat> {
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
    k4: wpfloat,
    dyn_substeps: wpfloat,
    hdiff_smag_fac: wpfloat,
    hdiff_smag_fac2: wpfloat,
    hdiff_smag_fac3: wpfloat,
    hdiff_smag_fac4: wpfloat,
    hdiff_smag_z: wpfloat,
    hdiff_smag_z2: wpfloat,
    hdiff_smag_z3: wpfloat,
    hdiff_smag_z4: wpfloat,
    vect_a: Field<K, wpfloat>,
) -> (Field<K, wpfloat>, Field<K, wpfloat>, Field<K, wpfloat>) {
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
    k4: wpfloat,
    dyn_substeps: wpfloat,
    hdiff_smag_fac: wpfloat,
    hdiff_smag_fac2: wpfloat,
    hdiff_smag_fac3: wpfloat,
    hdiff_smag_fac4: wpfloat,
    hdiff_smag_z: wpfloat,
    hdiff_smag_z2: wpfloat,
    hdiff_smag_z3: wpfloat,
    hdiff_smag_z4: wpfloat,
    vect_a: &Field<K, wpfloat>,
    diff_multfac_vn: &mut Field<K, wpfloat>,
    smag_limit: &mut Field<K, wpfloat>,
    enh_smag_fac: &mut Field<K, wpfloat>,
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
/// (ICON4Py `init_nabla2_factor_in_upper_damping_zone`, `nshift = 0`). ICON4Py takes
/// `1/12·ratio⁴` with the heights outside the layer replaced by 0 (so its values there are not
/// 0); the granule reads only the layer.
#[field_operator]
pub fn _init_nabla2_factor_in_upper_damping_zone(
    physical_heights: Field<K, wpfloat>,
    nrdmax: i32,
    heights_nrd_shift: wpfloat,
    heights_1: wpfloat,
) -> Field<K, wpfloat> {
    let ratio = (physical_heights - heights_nrd_shift) / (heights_1 - heights_nrd_shift);
    concat_where(
        (K >= 1) & (K < nrdmax + 1),
        ratio.powi(4) / 12.0,
        broadcast(0.0, (K,)),
    )
}

#[program]
pub fn init_nabla2_factor_in_upper_damping_zone(
    physical_heights: &Field<K, wpfloat>,
    nrdmax: i32,
    heights_nrd_shift: wpfloat,
    heights_1: wpfloat,
    diff_multfac_n2w: &mut Field<K, wpfloat>,
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
pub fn _copy_field(old_f: Field<(Cell, K), wpfloat>) -> Field<(Cell, K), wpfloat> {
    old_f
}

#[program]
pub fn copy_field(old_f: &Field<(Cell, K), wpfloat>, new_f: &mut Field<(Cell, K), wpfloat>) {
    _copy_field(old_f).write_to(new_f);
}

//! References for the dycore programs: velocity advection "1 to 7" and its parts, and the
//! tridiagonal solver for w (ICON4Py `atmosphere/dycore/stencils`).

use super::{Call, In, Result, Table};

/// `vt = Σ_{E2C2E} rbf_vec_coeff_e·vn` at one edge and level.
fn tangential_wind_at(
    vn: &In<'_>,
    rbf_vec_coeff_e: &In<'_>,
    e2c2e: &Table<'_>,
    e: isize,
    k: isize,
) -> Result<f64> {
    e2c2e.sum(e, |j, n| {
        Ok(rbf_vec_coeff_e.at(&[e, j as isize])? * vn.at(&[n, k])?)
    })
}

/// `½(vn² + vt²)`.
fn kinetic_energy(vn: f64, vt: f64) -> f64 {
    0.5 * (vn * vn + vt * vt)
}

/// `wgtfac_e·x[k] + (1 − wgtfac_e)·x[k−1]`.
fn to_half_level(wgtfac_e: f64, x: f64, x_below: f64) -> f64 {
    wgtfac_e * x + (1.0 - wgtfac_e) * x_below
}

pub fn compute_tangential_wind(call: &mut Call) -> Result<()> {
    let mut vt = call.take_out("vt", 2)?;
    let dom = call.domain()?;
    let vn = call.field("vn", 2)?;
    let rbf = call.field("rbf_vec_coeff_e", 2)?;
    let e2c2e = call.table("E2C2E")?;
    for (e, k) in dom.points() {
        vt.set(&[e, k], tangential_wind_at(&vn, &rbf, &e2c2e, e, k)?)?;
    }
    call.put(vt);
    Ok(())
}

pub fn interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges(
    call: &mut Call,
) -> Result<()> {
    let mut vn_ie = call.take_out("vn_ie", 2)?;
    let mut z_kin_hor_e = call.take_out("z_kin_hor_e", 2)?;
    let dom = call.domain()?;
    let wgtfac_e = call.field("wgtfac_e", 2)?;
    let vn = call.field("vn", 2)?;
    let vt = call.field("vt", 2)?;
    for (e, k) in dom.points() {
        let vn_ek = vn.at(&[e, k])?;
        let half = to_half_level(wgtfac_e.at(&[e, k])?, vn_ek, vn.at(&[e, k - 1])?);
        vn_ie.set(&[e, k], half)?;
        z_kin_hor_e.set(&[e, k], kinetic_energy(vn_ek, vt.at(&[e, k])?))?;
    }
    call.put(vn_ie);
    call.put(z_kin_hor_e);
    Ok(())
}

pub fn compute_horizontal_kinetic_energy(call: &mut Call) -> Result<()> {
    let mut vn_ie = call.take_out("vn_ie", 2)?;
    let mut z_vt_ie = call.take_out("z_vt_ie", 2)?;
    let mut z_kin_hor_e = call.take_out("z_kin_hor_e", 2)?;
    let dom = call.domain()?;
    let vn = call.field("vn", 2)?;
    let vt = call.field("vt", 2)?;
    for (e, k) in dom.points() {
        let (vn_ek, vt_ek) = (vn.at(&[e, k])?, vt.at(&[e, k])?);
        vn_ie.set(&[e, k], vn_ek)?;
        z_vt_ie.set(&[e, k], vt_ek)?;
        z_kin_hor_e.set(&[e, k], kinetic_energy(vn_ek, vt_ek))?;
    }
    call.put(vn_ie);
    call.put(z_vt_ie);
    call.put(z_kin_hor_e);
    Ok(())
}

/// Velocity advection "1 to 7" (predictor): tangential wind, kinetic energy, half-level winds,
/// contravariant correction and horizontal advection of w on K `[vertical_start,
/// vertical_end − 1)`, then the extrapolated `vn_on_half_levels` at `vertical_end − 1`.
pub fn compute_diagnostics_from_normal_wind(call: &mut Call) -> Result<()> {
    let mut vt_out = call.take_out("tangential_wind", 2)?;
    let mut vt_half_out = call.take_out("tangential_wind_on_half_levels", 2)?;
    let mut vn_half_out = call.take_out("vn_on_half_levels", 2)?;
    let mut ekin_out = call.take_out("horizontal_kinetic_energy_at_edges_on_model_levels", 2)?;
    let mut concorr_out = call.take_out("contravariant_correction_at_edges_on_model_levels", 2)?;
    let mut hadv_out = call.take_out("horizontal_advection_of_w_at_edges_on_half_levels", 2)?;
    let dom = call.domain()?;
    let vn = call.field("vn", 2)?;
    let w = call.field("w", 2)?;
    let rbf = call.field("rbf_vec_coeff_e", 2)?;
    let wgtfac_e = call.field("wgtfac_e", 2)?;
    let ddxn_z_full = call.field("ddxn_z_full", 2)?;
    let ddxt_z_full = call.field("ddxt_z_full", 2)?;
    let wgtfacq_e = call.field("wgtfacq_e", 2)?;
    let c_intp = call.field("c_intp", 2)?;
    let inv_dual_edge_length = call.field("inv_dual_edge_length", 1)?;
    let inv_primal_edge_length = call.field("inv_primal_edge_length", 1)?;
    let tangent_orientation = call.field("tangent_orientation", 1)?;
    let skip = call.flag("skip_compute_predictor_vertical_advection")?;
    let nflatlev = call.int("nflatlev")? as isize;
    let e2c2e = call.table("E2C2E")?;
    let e2c = call.table("E2C")?;
    let e2v = call.table("E2V")?;
    let v2c = call.table("V2C")?;
    let vt_at = |e, k| tangential_wind_at(&vn, &rbf, &e2c2e, e, k);
    // `_interpolate_to_half_levels`: the level itself at k = 0 (`concat_where(KDim > 0, …)`).
    let half = |x: &dyn Fn(isize) -> Result<f64>, e: isize, k: isize| -> Result<f64> {
        if k > 0 {
            Ok(to_half_level(wgtfac_e.at(&[e, k])?, x(k)?, x(k - 1)?))
        } else {
            x(k)
        }
    };
    let w_at_vertex = |v: isize, k: isize| -> Result<f64> {
        v2c.sum(v, |j, c| Ok(w.at(&[c, k])? * c_intp.at(&[v, j as isize])?))
    };
    let upper = dom.vertical.start..dom.vertical.end - 1;
    for e in dom.horizontal.clone() {
        for k in upper.clone() {
            let vn_ek = vn.at(&[e, k])?;
            let vt = vt_at(e, k)?;
            vt_out.set(&[e, k], vt)?;
            ekin_out.set(&[e, k], kinetic_energy(vn_ek, vt))?;
            let vn_half = half(&|kk| vn.at(&[e, kk]), e, k)?;
            vn_half_out.set(&[e, k], vn_half)?;
            if nflatlev <= k {
                let concorr = vn_ek * ddxn_z_full.at(&[e, k])? + vt * ddxt_z_full.at(&[e, k])?;
                concorr_out.set(&[e, k], concorr)?;
            }
            if !skip {
                let vt_half = half(&|kk| vt_at(e, kk), e, k)?;
                vt_half_out.set(&[e, k], vt_half)?;
                let (c0, c1) = (e2c.direct(e, 0)?, e2c.direct(e, 1)?);
                let (v0, v1) = (e2v.direct(e, 0)?, e2v.direct(e, 1)?);
                let hadv = vn_half
                    * inv_dual_edge_length.at(&[e])?
                    * (w.at(&[c0, k])? - w.at(&[c1, k])?)
                    + vt_half
                        * inv_primal_edge_length.at(&[e])?
                        * tangent_orientation.at(&[e])?
                        * (w_at_vertex(v0, k)? - w_at_vertex(v1, k)?);
                hadv_out.set(&[e, k], hadv)?;
            }
        }
        // `_extrapolate_at_top` on K [vertical_end − 1, vertical_end).
        for k in dom.vertical.end - 1..dom.vertical.end {
            let term =
                |m: isize| -> Result<f64> { Ok(wgtfacq_e.at(&[e, k - m])? * vn.at(&[e, k - m])?) };
            vn_half_out.set(&[e, k], term(1)? + term(2)? + term(3)?)?;
        }
    }
    call.put(vt_out);
    call.put(vt_half_out);
    call.put(vn_half_out);
    call.put(ekin_out);
    call.put(concorr_out);
    call.put(hadv_out);
    Ok(())
}

/// Forward sweep of the implicit w solve ("stencil 52"): a forward scan over K that starts with
/// the carry `(0, 0)` at `vertical_start`.
pub fn solve_tridiagonal_matrix_for_w_forward_sweep(call: &mut Call) -> Result<()> {
    let mut z_q = call.take_out("z_q", 2)?;
    let mut w = call.take_out("w", 2)?;
    let dom = call.domain()?;
    let vwind_impl_wgt = call.field("vwind_impl_wgt", 1)?;
    let theta_v_ic = call.field("theta_v_ic", 2)?;
    let ddqz_z_half = call.field("ddqz_z_half", 2)?;
    let z_alpha = call.field("z_alpha", 2)?;
    let z_beta = call.field("z_beta", 2)?;
    let z_w_expl = call.field("z_w_expl", 2)?;
    let z_exner_expl = call.field("z_exner_expl", 2)?;
    let dtime = call.scalar("dtime")?;
    let cpd = call.scalar("cpd")?;
    for c in dom.horizontal.clone() {
        let (mut c_prev, mut d_prev) = (0.0, 0.0);
        for k in dom.vertical.clone() {
            let gamma = dtime * cpd * vwind_impl_wgt.at(&[c])? * theta_v_ic.at(&[c, k])?
                / ddqz_z_half.at(&[c, k])?;
            let beta_below = z_beta.at(&[c, k - 1])?;
            let beta = z_beta.at(&[c, k])?;
            let alpha = z_alpha.at(&[c, k])?;
            let a = (0.0 - gamma) * beta_below * z_alpha.at(&[c, k - 1])?;
            let cc = (0.0 - gamma) * beta * z_alpha.at(&[c, k + 1])?;
            let b = 1.0 + gamma * alpha * (beta_below + beta);
            let d = z_w_expl.at(&[c, k])?
                - gamma * (z_exner_expl.at(&[c, k - 1])? - z_exner_expl.at(&[c, k])?);
            let normalization = 1.0 / (b + a * c_prev);
            let c_new = (0.0 - cc) * normalization;
            let d_new = (d - a * d_prev) * normalization;
            z_q.set(&[c, k], c_new)?;
            w.set(&[c, k], d_new)?;
            (c_prev, d_prev) = (c_new, d_new);
        }
    }
    call.put(z_q);
    call.put(w);
    Ok(())
}

/// Back substitution ("stencil 53"): a backward scan with carry 0 from `vertical_end − 1`,
/// `w[k] ← w[k] + w_new[k+1]·z_q[k]`.
pub fn solve_tridiagonal_matrix_for_w_back_substitution(call: &mut Call) -> Result<()> {
    let mut w = call.take_out("w", 2)?;
    let dom = call.domain()?;
    let z_q = call.field("z_q", 2)?;
    for c in dom.horizontal.clone() {
        let mut state = 0.0;
        for k in dom.vertical.clone().rev() {
            let value = w.at(&[c, k])? + state * z_q.at(&[c, k])?;
            w.set(&[c, k], value)?;
            state = value;
        }
    }
    call.put(w);
    Ok(())
}

//! References for the diffusion granule's programs (ICON4Py `atmosphere/diffusion/stencils`,
//! `diffusion_utils.py`, and the RBF vertex interpolation from `common/interpolation`).

use super::{maximum, minimum, Call, In, IntIn, Result, Table};

/// `Σ_{V2E} ptr_coeff_1·p_e_in` and `Σ_{V2E} ptr_coeff_2·p_e_in` into `p_u_out`, `p_v_out`.
pub fn mo_intp_rbf_rbf_vec_interpol_vertex(call: &mut Call) -> Result<()> {
    let mut u_out = call.take_out("p_u_out", 2)?;
    let mut v_out = call.take_out("p_v_out", 2)?;
    let dom = call.domain()?;
    let p_e_in = call.field("p_e_in", 2)?;
    let c1 = call.field("ptr_coeff_1", 2)?;
    let c2 = call.field("ptr_coeff_2", 2)?;
    let v2e = call.table("V2E")?;
    for (v, k) in dom.points() {
        let u = v2e.sum(v, |j, e| Ok(c1.at(&[v, j as isize])? * p_e_in.at(&[e, k])?))?;
        let w = v2e.sum(v, |j, e| Ok(c2.at(&[v, j as isize])? * p_e_in.at(&[e, k])?))?;
        u_out.set(&[v, k], u)?;
        v_out.set(&[v, k], w)?;
    }
    call.put(u_out);
    call.put(v_out);
    Ok(())
}

/// Inputs of the ∇⁴ operator (`_calculate_nabla4`).
struct Nabla4Inputs<'a> {
    u_vert: In<'a>,
    v_vert: In<'a>,
    v1: In<'a>,
    v2: In<'a>,
    z_nabla2_e: In<'a>,
    inv_vert_vert_length: In<'a>,
    inv_primal_edge_length: In<'a>,
    e2c2v: Table<'a>,
}

impl<'a> Nabla4Inputs<'a> {
    fn new(call: &'a Call) -> Result<Self> {
        Ok(Self {
            u_vert: call.field("u_vert", 2)?,
            v_vert: call.field("v_vert", 2)?,
            v1: call.field("primal_normal_vert_v1", 2)?,
            v2: call.field("primal_normal_vert_v2", 2)?,
            z_nabla2_e: call.field("z_nabla2_e", 2)?,
            inv_vert_vert_length: call.field("inv_vert_vert_length", 1)?,
            inv_primal_edge_length: call.field("inv_primal_edge_length", 1)?,
            e2c2v: call.table("E2C2V")?,
        })
    }

    /// `u@E2C2V[j]·v1[j] + v@E2C2V[j]·v2[j]`, summed over two slots left to right.
    fn projection(&self, e: isize, k: isize, slots: [usize; 2]) -> Result<f64> {
        let mut acc: Option<f64> = None;
        for j in slots {
            let vtx = self.e2c2v.direct(e, j)?;
            let js = j as isize;
            let u_term = self.u_vert.at(&[vtx, k])? * self.v1.at(&[e, js])?;
            let v_term = self.v_vert.at(&[vtx, k])? * self.v2.at(&[e, js])?;
            acc = Some(match acc {
                None => u_term + v_term,
                Some(a) => a + u_term + v_term,
            });
        }
        Ok(acc.unwrap_or(0.0))
    }

    fn at(&self, e: isize, k: isize) -> Result<f64> {
        let tang = self.projection(e, k, [0, 1])?;
        let norm = self.projection(e, k, [2, 3])?;
        let n2 = self.z_nabla2_e.at(&[e, k])?;
        let ivv = self.inv_vert_vert_length.at(&[e])?;
        let ipe = self.inv_primal_edge_length.at(&[e])?;
        Ok(4.0 * ((norm - 2.0 * n2) * (ivv * ivv) + (tang - 2.0 * n2) * (ipe * ipe)))
    }
}

pub fn calculate_nabla4(call: &mut Call) -> Result<()> {
    let mut out = call.take_out("z_nabla4_e2", 2)?;
    let dom = call.domain()?;
    let n4 = Nabla4Inputs::new(call)?;
    for (e, k) in dom.points() {
        out.set(&[e, k], n4.at(e, k)?)?;
    }
    call.put(out);
    Ok(())
}

/// `vn + A·(max(nudgezone_diff·nudgecoeff_e, kh_smag_e)·z_nabla2_e − A·diff_multfac_vn·n4)`.
// The parameters mirror ICON4Py's `_apply_nabla2_and_nabla4_to_vn` one to one.
#[allow(clippy::too_many_arguments)]
fn nabla2_and_nabla4_to_vn(
    vn: f64,
    area: f64,
    kh_smag_e: f64,
    z_nabla2_e: f64,
    z_nabla4_e2: f64,
    diff_multfac_vn: f64,
    nudgecoeff_e: f64,
    nudgezone_diff: f64,
) -> f64 {
    vn + area
        * (maximum(nudgezone_diff * nudgecoeff_e, kh_smag_e) * z_nabla2_e
            - area * diff_multfac_vn * z_nabla4_e2)
}

/// `vn + A·(kh_smag_e·z_nabla2_e − diff_multfac_vn·n4·A)`.
fn nabla2_and_nabla4_global_to_vn(
    vn: f64,
    area: f64,
    kh_smag_e: f64,
    z_nabla2_e: f64,
    z_nabla4_e2: f64,
    diff_multfac_vn: f64,
) -> f64 {
    vn + area * (kh_smag_e * z_nabla2_e - diff_multfac_vn * z_nabla4_e2 * area)
}

/// `vn + A·fac_bdydiff_v·z_nabla2_e`.
fn nabla2_to_vn_in_lateral_boundary(
    vn: f64,
    area: f64,
    z_nabla2_e: f64,
    fac_bdydiff_v: f64,
) -> f64 {
    vn + (area * fac_bdydiff_v * z_nabla2_e)
}

pub fn apply_nabla2_and_nabla4_to_vn(call: &mut Call) -> Result<()> {
    let mut vn = call.take_out("vn", 2)?;
    let dom = call.domain()?;
    let area = call.field("area_edge", 1)?;
    let kh = call.field("kh_smag_e", 2)?;
    let n2 = call.field("z_nabla2_e", 2)?;
    let n4 = call.field("z_nabla4_e2", 2)?;
    let dmf = call.field("diff_multfac_vn", 1)?;
    let nudge = call.field("nudgecoeff_e", 1)?;
    let nudgezone_diff = call.scalar("nudgezone_diff")?;
    for (e, k) in dom.points() {
        let value = nabla2_and_nabla4_to_vn(
            vn.at(&[e, k])?,
            area.at(&[e])?,
            kh.at(&[e, k])?,
            n2.at(&[e, k])?,
            n4.at(&[e, k])?,
            dmf.at(&[k])?,
            nudge.at(&[e])?,
            nudgezone_diff,
        );
        vn.set(&[e, k], value)?;
    }
    call.put(vn);
    Ok(())
}

pub fn apply_nabla2_and_nabla4_global_to_vn(call: &mut Call) -> Result<()> {
    let mut vn = call.take_out("vn", 2)?;
    let dom = call.domain()?;
    let area = call.field("area_edge", 1)?;
    let kh = call.field("kh_smag_e", 2)?;
    let n2 = call.field("z_nabla2_e", 2)?;
    let n4 = call.field("z_nabla4_e2", 2)?;
    let dmf = call.field("diff_multfac_vn", 1)?;
    for (e, k) in dom.points() {
        let value = nabla2_and_nabla4_global_to_vn(
            vn.at(&[e, k])?,
            area.at(&[e])?,
            kh.at(&[e, k])?,
            n2.at(&[e, k])?,
            n4.at(&[e, k])?,
            dmf.at(&[k])?,
        );
        vn.set(&[e, k], value)?;
    }
    call.put(vn);
    Ok(())
}

pub fn apply_nabla2_to_vn_in_lateral_boundary(call: &mut Call) -> Result<()> {
    let mut vn = call.take_out("vn", 2)?;
    let dom = call.domain()?;
    let area = call.field("area_edge", 1)?;
    let n2 = call.field("z_nabla2_e", 2)?;
    let fac = call.scalar("fac_bdydiff_v")?;
    for (e, k) in dom.points() {
        let value =
            nabla2_to_vn_in_lateral_boundary(vn.at(&[e, k])?, area.at(&[e])?, n2.at(&[e, k])?, fac);
        vn.set(&[e, k], value)?;
    }
    call.put(vn);
    Ok(())
}

/// Stencils "04 05 06": ∇⁴ and the ∇²/∇⁴ update of vn, split at `start_2nd_nudge_line_idx_e`.
pub fn apply_diffusion_to_vn(call: &mut Call) -> Result<()> {
    let mut vn = call.take_out("vn", 2)?;
    let dom = call.domain()?;
    let n4 = Nabla4Inputs::new(call)?;
    let area = call.field("area_edge", 1)?;
    let kh = call.field("kh_smag_e", 2)?;
    let dmf = call.field("diff_multfac_vn", 1)?;
    let nudge = call.field("nudgecoeff_e", 1)?;
    let nudgezone_diff = call.scalar("nudgezone_diff")?;
    let fac_bdydiff_v = call.scalar("fac_bdydiff_v")?;
    let nudge_start = call.int("start_2nd_nudge_line_idx_e")? as isize;
    let limited_area = call.flag("limited_area")?;
    for (e, k) in dom.points() {
        let old = vn.at(&[e, k])?;
        let a = area.at(&[e])?;
        let n2 = n4.z_nabla2_e.at(&[e, k])?;
        let value = match (limited_area, e >= nudge_start) {
            (true, true) => nabla2_and_nabla4_to_vn(
                old,
                a,
                kh.at(&[e, k])?,
                n2,
                n4.at(e, k)?,
                dmf.at(&[k])?,
                nudge.at(&[e])?,
                nudgezone_diff,
            ),
            (true, false) => nabla2_to_vn_in_lateral_boundary(old, a, n2, fac_bdydiff_v),
            (false, true) => nabla2_and_nabla4_global_to_vn(
                old,
                a,
                kh.at(&[e, k])?,
                n2,
                n4.at(e, k)?,
                dmf.at(&[k])?,
            ),
            (false, false) => old,
        };
        vn.set(&[e, k], value)?;
    }
    call.put(vn);
    Ok(())
}

/// Diffusion "stencil 01": ∇²vn and the Smagorinsky coefficients.
pub fn calculate_nabla2_and_smag_coefficients_for_vn(call: &mut Call) -> Result<()> {
    let mut kh_smag_e = call.take_out("kh_smag_e", 2)?;
    let mut kh_smag_ec = call.take_out("kh_smag_ec", 2)?;
    let mut z_nabla2_e = call.take_out("z_nabla2_e", 2)?;
    let dom = call.domain()?;
    let diff_multfac_smag = call.field("diff_multfac_smag", 1)?;
    let tangent_orientation = call.field("tangent_orientation", 1)?;
    let ipe = call.field("inv_primal_edge_length", 1)?;
    let ivv = call.field("inv_vert_vert_length", 1)?;
    let u_vert = call.field("u_vert", 2)?;
    let v_vert = call.field("v_vert", 2)?;
    let px = call.field("primal_normal_vert_x", 2)?;
    let py = call.field("primal_normal_vert_y", 2)?;
    let dx = call.field("dual_normal_vert_x", 2)?;
    let dy = call.field("dual_normal_vert_y", 2)?;
    let vn = call.field("vn", 2)?;
    let smag_limit = call.field("smag_limit", 1)?;
    let smag_offset = call.scalar("smag_offset")?;
    let e2c2v = call.table("E2C2V")?;
    for (e, k) in dom.points() {
        let mut v_n = [0.0; 4];
        let mut v_t = [0.0; 4];
        for j in 0..4 {
            let vtx = e2c2v.direct(e, j)?;
            let (u, v) = (u_vert.at(&[vtx, k])?, v_vert.at(&[vtx, k])?);
            let js = j as isize;
            v_n[j] = u * px.at(&[e, js])? + v * py.at(&[e, js])?;
            v_t[j] = u * dx.at(&[e, js])? + v * dy.at(&[e, js])?;
        }
        let vn_ek = vn.at(&[e, k])?;
        let ipe_e = ipe.at(&[e])?;
        let ivv_e = ivv.at(&[e])?;
        let nabla2 = (v_n[0] + v_n[1] - 2.0 * vn_ek) * (ipe_e * ipe_e)
            + (v_n[2] + v_n[3] - 2.0 * vn_ek) * (ivv_e * ivv_e);
        let nabla2 = 4.0 * nabla2;
        let l_p = tangent_orientation.at(&[e])? * ipe_e;
        let l_vv = ivv_e;
        let part1 = (v_n[3] - v_n[2]) * l_vv - (v_t[1] - v_t[0]) * l_p;
        let part2 = (v_n[1] - v_n[0]) * l_p + (v_t[3] - v_t[2]) * l_vv;
        let kh = diff_multfac_smag.at(&[k])? * (part1 * part1 + part2 * part2).sqrt();
        let kh_for_diffusion = maximum(0.0, kh - smag_offset);
        let kh_for_diffusion = minimum(kh_for_diffusion, smag_limit.at(&[k])?);
        kh_smag_e.set(&[e, k], kh_for_diffusion)?;
        kh_smag_ec.set(&[e, k], kh)?;
        z_nabla2_e.set(&[e, k], nabla2)?;
    }
    call.put(kh_smag_e);
    call.put(kh_smag_ec);
    call.put(z_nabla2_e);
    Ok(())
}

/// `kh_c = Σ_{C2E} kh_smag_ec·e_bln_c_s / diff_multfac_smag` and `div = Σ_{C2E} vn·geofac_div`.
struct TurbulenceTemporaries<'a> {
    kh_smag_ec: In<'a>,
    vn: In<'a>,
    e_bln_c_s: In<'a>,
    geofac_div: In<'a>,
    diff_multfac_smag: In<'a>,
    c2e: Table<'a>,
}

impl<'a> TurbulenceTemporaries<'a> {
    fn new(call: &'a Call) -> Result<Self> {
        Ok(Self {
            kh_smag_ec: call.field("kh_smag_ec", 2)?,
            vn: call.field("vn", 2)?,
            e_bln_c_s: call.field("e_bln_c_s", 2)?,
            geofac_div: call.field("geofac_div", 2)?,
            diff_multfac_smag: call.field("diff_multfac_smag", 1)?,
            c2e: call.table("C2E")?,
        })
    }

    fn kh_c(&self, c: isize, k: isize) -> Result<f64> {
        let sum = self.c2e.sum(c, |j, e| {
            Ok(self.kh_smag_ec.at(&[e, k])? * self.e_bln_c_s.at(&[c, j as isize])?)
        })?;
        Ok(sum / self.diff_multfac_smag.at(&[k])?)
    }

    fn div(&self, c: isize, k: isize) -> Result<f64> {
        self.c2e.sum(c, |j, e| {
            Ok(self.vn.at(&[e, k])? * self.geofac_div.at(&[c, j as isize])?)
        })
    }
}

pub fn temporary_fields_for_turbulence_diagnostics(call: &mut Call) -> Result<()> {
    let mut kh_c = call.take_out("kh_c", 2)?;
    let mut div = call.take_out("div", 2)?;
    let dom = call.domain()?;
    let t = TurbulenceTemporaries::new(call)?;
    for (c, k) in dom.points() {
        kh_c.set(&[c, k], t.kh_c(c, k)?)?;
        div.set(&[c, k], t.div(c, k)?)?;
    }
    call.put(kh_c);
    call.put(div);
    Ok(())
}

/// Diffusion step #5: `div_ic` and `hdef_ic` interpolated to half levels (reads level k−1).
pub fn calculate_diagnostic_quantities_for_turbulence(call: &mut Call) -> Result<()> {
    let mut div_ic = call.take_out("div_ic", 2)?;
    let mut hdef_ic = call.take_out("hdef_ic", 2)?;
    let dom = call.domain()?;
    let t = TurbulenceTemporaries::new(call)?;
    let wgtfac_c = call.field("wgtfac_c", 2)?;
    for (c, k) in dom.points() {
        let w = wgtfac_c.at(&[c, k])?;
        let d = w * t.div(c, k)? + (1.0 - w) * t.div(c, k - 1)?;
        let h = w * t.kh_c(c, k)? + (1.0 - w) * t.kh_c(c, k - 1)?;
        div_ic.set(&[c, k], d)?;
        hdef_ic.set(&[c, k], h * h)?;
    }
    call.put(div_ic);
    call.put(hdef_ic);
    Ok(())
}

/// `Σ_{C2E2CO} w·geofac_n2s` at one point.
fn nabla2_for_w_at(
    w: &In<'_>,
    geofac_n2s: &In<'_>,
    c2e2co: &Table<'_>,
    c: isize,
    k: isize,
) -> Result<f64> {
    c2e2co.sum(c, |j, n| {
        Ok(w.at(&[n, k])? * geofac_n2s.at(&[c, j as isize])?)
    })
}

pub fn calculate_nabla2_for_w(call: &mut Call) -> Result<()> {
    let mut out = call.take_out("z_nabla2_c", 2)?;
    let dom = call.domain()?;
    let w = call.field("w", 2)?;
    let geofac_n2s = call.field("geofac_n2s", 2)?;
    let c2e2co = call.table("C2E2CO")?;
    for (c, k) in dom.points() {
        out.set(&[c, k], nabla2_for_w_at(&w, &geofac_n2s, &c2e2co, c, k)?)?;
    }
    call.put(out);
    Ok(())
}

pub fn apply_nabla2_to_w(call: &mut Call) -> Result<()> {
    let mut w = call.take_out("w", 2)?;
    let dom = call.domain()?;
    let area = call.field("area", 1)?;
    let z_nabla2_c = call.field("z_nabla2_c", 2)?;
    let geofac_n2s = call.field("geofac_n2s", 2)?;
    let diff_multfac_w = call.scalar("diff_multfac_w")?;
    let c2e2co = call.table("C2E2CO")?;
    for (c, k) in dom.points() {
        let a = area.at(&[c])?;
        let lap = nabla2_for_w_at(&z_nabla2_c, &geofac_n2s, &c2e2co, c, k)?;
        let value = w.at(&[c, k])? - diff_multfac_w * (a * a) * lap;
        w.set(&[c, k], value)?;
    }
    call.put(w);
    Ok(())
}

pub fn apply_nabla2_to_w_in_upper_damping_layer(call: &mut Call) -> Result<()> {
    let mut w = call.take_out("w", 2)?;
    let dom = call.domain()?;
    let diff_multfac_n2w = call.field("diff_multfac_n2w", 1)?;
    let cell_area = call.field("cell_area", 1)?;
    let z_nabla2_c = call.field("z_nabla2_c", 2)?;
    for (c, k) in dom.points() {
        let value = w.at(&[c, k])?
            + diff_multfac_n2w.at(&[k])? * cell_area.at(&[c])? * z_nabla2_c.at(&[c, k])?;
        w.set(&[c, k], value)?;
    }
    call.put(w);
    Ok(())
}

/// Diffusion step #11: ∇⁴ damping of w, upper-layer ∇² damping, and the gradients of w.
pub fn apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence(
    call: &mut Call,
) -> Result<()> {
    let mut w = call.take_out("w", 2)?;
    let mut dwdx = call.take_out("dwdx", 2)?;
    let mut dwdy = call.take_out("dwdy", 2)?;
    let dom = call.domain()?;
    let area = call.field("area", 1)?;
    let geofac_n2s = call.field("geofac_n2s", 2)?;
    let geofac_grg_x = call.field("geofac_grg_x", 2)?;
    let geofac_grg_y = call.field("geofac_grg_y", 2)?;
    let w_old = call.field("w_old", 2)?;
    let type_shear = call.int("type_shear")?;
    let diff_multfac_w = call.scalar("diff_multfac_w")?;
    let diff_multfac_n2w = call.field("diff_multfac_n2w", 1)?;
    let nrdmax = call.int("nrdmax")? as isize;
    let interior_idx = call.int("interior_idx")? as isize;
    let halo_idx = call.int("halo_idx")? as isize;
    let c2e2co = call.table("C2E2CO")?;
    for (c, k) in dom.points() {
        if type_shear == 2 && k > 0 {
            let gx = c2e2co.sum(c, |j, n| {
                Ok(geofac_grg_x.at(&[c, j as isize])? * w_old.at(&[n, k])?)
            })?;
            let gy = c2e2co.sum(c, |j, n| {
                Ok(geofac_grg_y.at(&[c, j as isize])? * w_old.at(&[n, k])?)
            })?;
            dwdx.set(&[c, k], gx)?;
            dwdy.set(&[c, k], gy)?;
        }
        let old = w_old.at(&[c, k])?;
        let in_cells = interior_idx <= c && c < halo_idx;
        let mut value = old;
        if in_cells {
            let a = area.at(&[c])?;
            let lap_of_lap = c2e2co.sum(c, |j, n| {
                let z_nabla2_c_n = nabla2_for_w_at(&w_old, &geofac_n2s, &c2e2co, n, k)?;
                Ok(z_nabla2_c_n * geofac_n2s.at(&[c, j as isize])?)
            })?;
            value = old - diff_multfac_w * (a * a) * lap_of_lap;
            if 0 < k && k < nrdmax {
                let z_nabla2_c = nabla2_for_w_at(&w_old, &geofac_n2s, &c2e2co, c, k)?;
                value += diff_multfac_n2w.at(&[k])? * a * z_nabla2_c;
            }
        }
        w.set(&[c, k], value)?;
    }
    call.put(w);
    call.put(dwdx);
    call.put(dwdy);
    Ok(())
}

/// `enh_diffu_3d` of the cold-pool enhancement at one cell and level.
fn cold_pool_enhancement(
    theta_v: &In<'_>,
    theta_ref_mc: &In<'_>,
    c2e2c: &Table<'_>,
    thresh_tdiff: f64,
    smallest_vpfloat: f64,
    c: isize,
    k: isize,
) -> Result<f64> {
    let theta_sum = c2e2c.sum(c, |_, n| theta_v.at(&[n, k]))?;
    let ref_sum = c2e2c.sum(c, |_, n| theta_ref_mc.at(&[n, k]))?;
    let tdiff = theta_v.at(&[c, k])? - theta_sum / 3.0;
    let trefdiff = theta_ref_mc.at(&[c, k])? - ref_sum / 3.0;
    let cold_pool = ((tdiff - trefdiff) < thresh_tdiff && trefdiff < 0.0)
        || (tdiff - trefdiff < 1.5 * thresh_tdiff);
    Ok(if cold_pool {
        (thresh_tdiff - tdiff + trefdiff) * 5.0e-4
    } else {
        smallest_vpfloat
    })
}

/// Diffusion step #13: raise `kh_smag_e` to the largest cold-pool enhancement of its two cells.
pub fn calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools(
    call: &mut Call,
) -> Result<()> {
    let mut kh_smag_e = call.take_out("kh_smag_e", 2)?;
    let dom = call.domain()?;
    let theta_v = call.field("theta_v", 2)?;
    let theta_ref_mc = call.field("theta_ref_mc", 2)?;
    let thresh_tdiff = call.scalar("thresh_tdiff")?;
    let smallest_vpfloat = call.scalar("smallest_vpfloat")?;
    let e2c = call.table("E2C")?;
    let c2e2c = call.table("C2E2C")?;
    for (e, k) in dom.points() {
        let enh = e2c.max(e, |c| {
            cold_pool_enhancement(
                &theta_v,
                &theta_ref_mc,
                &c2e2c,
                thresh_tdiff,
                smallest_vpfloat,
                c,
                k,
            )
        })?;
        let value = maximum(kh_smag_e.at(&[e, k])?, enh);
        kh_smag_e.set(&[e, k], value)?;
    }
    call.put(kh_smag_e);
    Ok(())
}

/// `kh_smag_e·inv_dual_edge_length·(θ@E2C[1] − θ@E2C[0])` at one edge and level.
fn nabla2_for_z_at(
    kh_smag_e: &In<'_>,
    inv_dual_edge_length: &In<'_>,
    theta_v: &In<'_>,
    e2c: &Table<'_>,
    e: isize,
    k: isize,
) -> Result<f64> {
    let c0 = e2c.direct(e, 0)?;
    let c1 = e2c.direct(e, 1)?;
    Ok(kh_smag_e.at(&[e, k])?
        * inv_dual_edge_length.at(&[e])?
        * (theta_v.at(&[c1, k])? - theta_v.at(&[c0, k])?))
}

pub fn calculate_nabla2_for_z(call: &mut Call) -> Result<()> {
    let mut out = call.take_out("z_nabla2_e", 2)?;
    let dom = call.domain()?;
    let kh = call.field("kh_smag_e", 2)?;
    let ide = call.field("inv_dual_edge_length", 1)?;
    let theta_v = call.field("theta_v", 2)?;
    let e2c = call.table("E2C")?;
    for (e, k) in dom.points() {
        out.set(&[e, k], nabla2_for_z_at(&kh, &ide, &theta_v, &e2c, e, k)?)?;
    }
    call.put(out);
    Ok(())
}

pub fn calculate_nabla2_of_theta(call: &mut Call) -> Result<()> {
    let mut out = call.take_out("z_temp", 2)?;
    let dom = call.domain()?;
    let z_nabla2_e = call.field("z_nabla2_e", 2)?;
    let geofac_div = call.field("geofac_div", 2)?;
    let c2e = call.table("C2E")?;
    for (c, k) in dom.points() {
        let value = c2e.sum(c, |j, e| {
            Ok(z_nabla2_e.at(&[e, k])? * geofac_div.at(&[c, j as isize])?)
        })?;
        out.set(&[c, k], value)?;
    }
    call.put(out);
    Ok(())
}

/// The ∇²θ of the theta diffusion: `Σ_{C2E} z_nabla2_e·geofac_div` with `z_nabla2_e` from
/// [`nabla2_for_z_at`].
struct Nabla2ForTheta<'a> {
    kh_smag_e: In<'a>,
    inv_dual_edge_length: In<'a>,
    geofac_div: In<'a>,
    e2c: Table<'a>,
    c2e: Table<'a>,
}

impl<'a> Nabla2ForTheta<'a> {
    fn new(call: &'a Call) -> Result<Self> {
        Ok(Self {
            kh_smag_e: call.field("kh_smag_e", 2)?,
            inv_dual_edge_length: call.field("inv_dual_edge_length", 1)?,
            geofac_div: call.field("geofac_div", 2)?,
            e2c: call.table("E2C")?,
            c2e: call.table("C2E")?,
        })
    }

    fn at(&self, theta_v: &In<'_>, c: isize, k: isize) -> Result<f64> {
        self.c2e.sum(c, |j, e| {
            let z = nabla2_for_z_at(
                &self.kh_smag_e,
                &self.inv_dual_edge_length,
                theta_v,
                &self.e2c,
                e,
                k,
            )?;
            Ok(z * self.geofac_div.at(&[c, j as isize])?)
        })
    }
}

pub fn calculate_nabla2_for_theta(call: &mut Call) -> Result<()> {
    let mut out = call.take_out("z_temp", 2)?;
    let dom = call.domain()?;
    let n2 = Nabla2ForTheta::new(call)?;
    let theta_v = call.field("theta_v", 2)?;
    for (c, k) in dom.points() {
        out.set(&[c, k], n2.at(&theta_v, c, k)?)?;
    }
    call.put(out);
    Ok(())
}

/// Inputs of the truly horizontal z-diffusion over steep points (`as_offset(Koff, …)` reads).
struct SteepPointDiffusion<'a> {
    zd_vertoffset: IntIn<'a>,
    zd_diffcoef: In<'a>,
    geofac_n2s_c: In<'a>,
    geofac_n2s_nbh: In<'a>,
    vcoef: In<'a>,
    c2e2c: Table<'a>,
}

impl<'a> SteepPointDiffusion<'a> {
    fn new(call: &'a Call) -> Result<Self> {
        Ok(Self {
            zd_vertoffset: call.int_field("zd_vertoffset", 3)?,
            zd_diffcoef: call.field("zd_diffcoef", 2)?,
            geofac_n2s_c: call.field("geofac_n2s_c", 1)?,
            geofac_n2s_nbh: call.field("geofac_n2s_nbh", 2)?,
            vcoef: call.field("vcoef", 3)?,
            c2e2c: call.table("C2E2C")?,
        })
    }

    /// `z_temp + zd_diffcoef·(θ·geofac_n2s_c + Σ_j nbh_j·(vcoef_j·θ_j + (1 − vcoef_j)·θ_j,+1))`
    /// where `θ_j` is θ at neighbour j, level `k + zd_vertoffset_j`, in ICON4Py's slot order.
    fn at(&self, theta_v: &In<'_>, z_temp: f64, c: isize, k: isize) -> Result<f64> {
        let mut sum = theta_v.at(&[c, k])? * self.geofac_n2s_c.at(&[c])?;
        for j in 0..3 {
            let n = self.c2e2c.direct(c, j)?;
            let js = j as isize;
            let off = self.zd_vertoffset.at(&[c, js, k])?;
            let theta_j = theta_v.at(&[n, k + off])?;
            let theta_j_below = theta_v.at(&[n, k + off + 1])?;
            let vc = self.vcoef.at(&[c, js, k])?;
            sum += self.geofac_n2s_nbh.at(&[c, js])? * (vc * theta_j + (1.0 - vc) * theta_j_below);
        }
        Ok(z_temp + self.zd_diffcoef.at(&[c, k])? * sum)
    }
}

pub fn truly_horizontal_diffusion_nabla_of_theta_over_steep_points(call: &mut Call) -> Result<()> {
    let mut z_temp = call.take_out("z_temp", 2)?;
    let dom = call.domain()?;
    let steep = SteepPointDiffusion::new(call)?;
    let theta_v = call.field("theta_v", 2)?;
    for (c, k) in dom.points() {
        let value = steep.at(&theta_v, z_temp.at(&[c, k])?, c, k)?;
        z_temp.set(&[c, k], value)?;
    }
    call.put(z_temp);
    Ok(())
}

/// `θ' = θ + area·z_temp`, `exner' = exner·(1 + rd_o_cvd·(θ'/θ − 1))`.
fn theta_and_exner(z_temp: f64, area: f64, theta_v: f64, exner: f64, rd_o_cvd: f64) -> (f64, f64) {
    let new_theta = theta_v + (area * z_temp);
    (
        new_theta,
        exner * (1.0 + rd_o_cvd * (new_theta / theta_v - 1.0)),
    )
}

pub fn update_theta_and_exner(call: &mut Call) -> Result<()> {
    let mut theta_v = call.take_out("theta_v", 2)?;
    let mut exner = call.take_out("exner", 2)?;
    let dom = call.domain()?;
    let z_temp = call.field("z_temp", 2)?;
    let area = call.field("area", 1)?;
    let rd_o_cvd = call.scalar("rd_o_cvd")?;
    for (c, k) in dom.points() {
        let (t, x) = theta_and_exner(
            z_temp.at(&[c, k])?,
            area.at(&[c])?,
            theta_v.at(&[c, k])?,
            exner.at(&[c, k])?,
            rd_o_cvd,
        );
        theta_v.set(&[c, k], t)?;
        exner.set(&[c, k], x)?;
    }
    call.put(theta_v);
    call.put(exner);
    Ok(())
}

/// Diffusion step #14: ∇²θ (with the optional z-diffusion over steep points), then θ and exner.
pub fn apply_diffusion_to_theta_and_exner(call: &mut Call) -> Result<()> {
    let mut theta_v = call.take_out("theta_v", 2)?;
    let mut exner = call.take_out("exner", 2)?;
    let dom = call.domain()?;
    let n2 = Nabla2ForTheta::new(call)?;
    let theta_v_in = call.field("theta_v_in", 2)?;
    let area = call.field("area", 1)?;
    let rd_o_cvd = call.scalar("rd_o_cvd")?;
    let apply_zdiffusion_t = call.flag("apply_zdiffusion_t")?;
    let steep = if apply_zdiffusion_t {
        Some(SteepPointDiffusion::new(call)?)
    } else {
        None
    };
    for (c, k) in dom.points() {
        let mut z_temp = n2.at(&theta_v_in, c, k)?;
        if let Some(steep) = &steep {
            if steep.zd_diffcoef.at(&[c, k])? != 0.0 {
                z_temp = steep.at(&theta_v_in, z_temp, c, k)?;
            }
        }
        let (t, x) = theta_and_exner(
            z_temp,
            area.at(&[c])?,
            theta_v_in.at(&[c, k])?,
            exner.at(&[c, k])?,
            rd_o_cvd,
        );
        theta_v.set(&[c, k], t)?;
        exner.set(&[c, k], x)?;
    }
    call.put(theta_v);
    call.put(exner);
    Ok(())
}

/// Diffusion step #0: `diff_multfac_vn = k4/3·hdiff_efdt_ratio`, `smag_limit = 0.125 − 4·that`,
/// over every level (the program has no domain parameters).
pub fn setup_fields_for_initial_step(call: &mut Call) -> Result<()> {
    let mut diff_multfac_vn = call.take_out("diff_multfac_vn", 1)?;
    let mut smag_limit = call.take_out("smag_limit", 1)?;
    let k4 = call.scalar("k4")?;
    let hdiff_efdt_ratio = call.scalar("hdiff_efdt_ratio")?;
    let value = k4 / 3.0 * hdiff_efdt_ratio;
    for k in 0..diff_multfac_vn.shape()[0] as isize {
        diff_multfac_vn.set(&[k], value)?;
    }
    for k in 0..smag_limit.shape()[0] as isize {
        smag_limit.set(&[k], 0.125 - 4.0 * value)?;
    }
    call.put(diff_multfac_vn);
    call.put(smag_limit);
    Ok(())
}

/// Diffusion step #1: `scaled_field = field·factor` over every level.
pub fn scale_k(call: &mut Call) -> Result<()> {
    let mut scaled = call.take_out("scaled_field", 1)?;
    let field = call.field("field", 1)?;
    let factor = call.scalar("factor")?;
    for k in 0..scaled.shape()[0] as isize {
        scaled.set(&[k], field.at(&[k])? * factor)?;
    }
    call.put(scaled);
    Ok(())
}

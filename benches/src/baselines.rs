//! Hand-written kernels of the benchmarked stencils, on raw row-major slices.

use rayon::prelude::*;

/// `out = -4 f + f(i+1) + f(i-1) + f(j+1) + f(j-1)` on the interior `[1, ni-1) × [1, nj-1)`,
/// all `nk` levels; `f` and `out` are `[ni, nj, nk]` row-major (K contiguous).
pub fn laplacian(f: &[f64], out: &mut [f64], ni: usize, nj: usize, nk: usize) {
    let plane = nj * nk;
    out.par_chunks_mut(plane)
        .enumerate()
        .filter(|(i, _)| *i >= 1 && *i + 1 < ni)
        .for_each(|(i, out_plane)| {
            for j in 1..nj - 1 {
                let c = i * plane + j * nk;
                let centre = &f[c..c + nk];
                let ip = &f[c + plane..c + plane + nk];
                let im = &f[c - plane..c - plane + nk];
                let jp = &f[c + nk..c + 2 * nk];
                let jm = &f[c - nk..c];
                let o = &mut out_plane[j * nk..(j + 1) * nk];
                for k in 0..nk {
                    o[k] = -4.0 * centre[k] + ip[k] + im[k] + jp[k] + jm[k];
                }
            }
        });
}

/// Inputs of ICON's `calculate_nabla4` (reference §2(a)), row-major.
pub struct Nabla4Inputs<'a> {
    /// `[n_edges, 4]` E2C2V table (no -1 entries).
    pub e2c2v: &'a [i32],
    /// `[n_vertices, nk]`
    pub u_vert: &'a [f64],
    pub v_vert: &'a [f64],
    /// `[n_edges, 4]`
    pub primal_normal_vert_v1: &'a [f64],
    pub primal_normal_vert_v2: &'a [f64],
    /// `[n_edges, nk]`
    pub z_nabla2_e: &'a [f64],
    /// `[n_edges]`
    pub inv_vert_vert_length: &'a [f64],
    pub inv_primal_edge_length: &'a [f64],
    pub nk: usize,
}

/// `z_nabla4_e2 = 4·[(norm − 2·z)·ivv² + (tang − 2·z)·ipe²]` with
/// `p_j = u@E2C2V[j]·v1[j] + v@E2C2V[j]·v2[j]`, `tang = p0 + p1`, `norm = p2 + p3`.
pub fn nabla4(inp: &Nabla4Inputs<'_>, out: &mut [f64]) {
    let nk = inp.nk;
    out.par_chunks_mut(nk * 64)
        .enumerate()
        .for_each(|(block, out_block)| {
            for (local, o) in out_block.chunks_mut(nk).enumerate() {
                let e = block * 64 + local;
                let nb = &inp.e2c2v[4 * e..4 * e + 4];
                // A valid table keeps every entry below n_vertices, so the slices are in range.
                fn col<'f>(field: &'f [f64], nb: &[i32], j: usize, nk: usize) -> &'f [f64] {
                    let v = nb[j] as usize;
                    &field[v * nk..v * nk + nk]
                }
                let u = |j| col(inp.u_vert, nb, j, nk);
                let v = |j| col(inp.v_vert, nb, j, nk);
                let (u0, u1, u2, u3) = (u(0), u(1), u(2), u(3));
                let (v0, v1, v2, v3) = (v(0), v(1), v(2), v(3));
                let p1 = &inp.primal_normal_vert_v1[4 * e..4 * e + 4];
                let p2 = &inp.primal_normal_vert_v2[4 * e..4 * e + 4];
                let z = &inp.z_nabla2_e[e * nk..e * nk + nk];
                let ivv2 = inp.inv_vert_vert_length[e] * inp.inv_vert_vert_length[e];
                let ipe2 = inp.inv_primal_edge_length[e] * inp.inv_primal_edge_length[e];
                for k in 0..nk {
                    let tang = u0[k] * p1[0] + v0[k] * p2[0] + (u1[k] * p1[1] + v1[k] * p2[1]);
                    let norm = u2[k] * p1[2] + v2[k] * p2[2] + (u3[k] * p1[3] + v3[k] * p2[3]);
                    o[k] = 4.0 * ((norm - 2.0 * z[k]) * ivv2 + (tang - 2.0 * z[k]) * ipe2);
                }
            }
        });
}

/// Inputs of ICON's `calculate_nabla2_for_theta` (reference §2.1, step 14), row-major.
pub struct Nabla2ForThetaInputs<'a> {
    /// `[n_edges, 2]` E2C table and `[n_cells, 3]` C2E table (no -1 entries).
    pub e2c: &'a [i32],
    pub c2e: &'a [i32],
    /// `[n_edges, nk]`
    pub kh_smag_e: &'a [f64],
    /// `[n_edges]`
    pub inv_dual_edge_length: &'a [f64],
    /// `[n_cells, nk]`
    pub theta_v: &'a [f64],
    /// `[n_cells, 3]`
    pub geofac_div: &'a [f64],
    pub nk: usize,
}

/// `z_temp = Σ_{C2E} geofac_div · z_e` with the edge flux
/// `z_e = kh_smag_e · inv_dual_edge_length · (θ@E2C[1] − θ@E2C[0])`, written the way a careful
/// programmer would: the flux once per edge into `flux` (`[n_edges, nk]`), then the cell sums.
pub fn nabla2_for_theta(inp: &Nabla2ForThetaInputs<'_>, flux: &mut [f64], out: &mut [f64]) {
    let nk = inp.nk;
    flux.par_chunks_mut(nk * 64)
        .enumerate()
        .for_each(|(block, flux_block)| {
            for (local, f) in flux_block.chunks_mut(nk).enumerate() {
                let e = block * 64 + local;
                let (c0, c1) = (inp.e2c[2 * e] as usize, inp.e2c[2 * e + 1] as usize);
                let t0 = &inp.theta_v[c0 * nk..c0 * nk + nk];
                let t1 = &inp.theta_v[c1 * nk..c1 * nk + nk];
                let kh = &inp.kh_smag_e[e * nk..e * nk + nk];
                let ide = inp.inv_dual_edge_length[e];
                for k in 0..nk {
                    f[k] = kh[k] * ide * (t1[k] - t0[k]);
                }
            }
        });
    let flux = &*flux;
    out.par_chunks_mut(nk * 64)
        .enumerate()
        .for_each(|(block, out_block)| {
            for (local, o) in out_block.chunks_mut(nk).enumerate() {
                let c = block * 64 + local;
                let col = |j: usize| {
                    let e = inp.c2e[3 * c + j] as usize;
                    &flux[e * nk..e * nk + nk]
                };
                let (f0, f1, f2) = (col(0), col(1), col(2));
                let g = &inp.geofac_div[3 * c..3 * c + 3];
                for k in 0..nk {
                    o[k] = f0[k] * g[0] + f1[k] * g[1] + f2[k] * g[2];
                }
            }
        });
}

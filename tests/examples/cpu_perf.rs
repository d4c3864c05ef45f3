//! Ad-hoc comparison of the fused CPU backend with hand-written rayon loops (not a test):
//! `cargo run --release -p gt4rs-tests --example cpu_perf`.
//! Cartesian laplacian 512×512×80 and ICON `calculate_nabla4` on random tables of 31,558 edges,
//! 10,663 vertices and 65 levels.

// 1-d field domains are arrays of one range.
#![allow(clippy::single_range_in_vec_init)]

use std::time::Instant;

use gt4rs::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

gt4rs::dimensions! {
    pub Cell, Edge, Vertex, I, J: horizontal;
    pub K: vertical;
}
gt4rs::offsets! {
    pub E2C: Edge => Cell [2];
    pub E2C2V: Edge => Vertex [4];
}

include!(concat!(env!("OUT_DIR"), "/cpu_programs.rs"));

/// Best of `reps` timings of `f` and of `g`, in milliseconds, measured alternately so that a
/// change in machine load hits both alike.
fn compare(reps: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    f();
    g();
    let time = |h: &mut dyn FnMut()| {
        let t = Instant::now();
        h();
        t.elapsed().as_secs_f64() * 1e3
    };
    let (mut bf, mut bg) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..reps {
        bf = bf.min(time(&mut f));
        bg = bg.min(time(&mut g));
    }
    (bf, bg)
}

fn random<D: gt4rs::Dims>(r: &mut ChaCha8Rng, domain: &[std::ops::Range<i64>]) -> Field<D, f64> {
    Field::from_fn(domain, Layout::LastContiguous, |_| {
        r.random_range(-1.0..1.0)
    })
    .unwrap()
}

fn main() {
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let mut r = ChaCha8Rng::seed_from_u64(1);
    println!("threads: {}", rayon::current_num_threads());

    // Laplacian.
    let lap_nk: i64 = std::env::var("LAP_NK")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(80);
    let (n, nk) = (512i64, lap_nk);
    let a: Field<(I, J, K), f64> = random(&mut r, &[-1..n + 1, -1..n + 1, 0..nk]);
    let mut out: Field<(I, J, K), f64> =
        Field::filled(&[0..n, 0..n, 0..nk], f64::NAN, Layout::LastContiguous).unwrap();
    let prog = laplacian::compile(&Options::new(Backend::Cpu)).unwrap();
    let mut base = vec![0.0f64; (n * n * nk) as usize];
    let av = a.as_array();
    let asl = av.as_slice().unwrap();
    let (sa_i, sa_j) = (((n + 2) * nk) as usize, nk as usize);
    let nku = nk as usize;
    let (t_gt, t_base) = compare(
        reps,
        || {
            prog.call(laplacian::Args {
                a: &a,
                out: &mut out,
            })
            .unwrap()
        },
        || {
            base.par_chunks_mut((n * nk) as usize)
                .enumerate()
                .for_each(|(i, plane)| {
                    for (j, col) in plane.chunks_mut(nku).enumerate() {
                        let c = (i + 1) * sa_i + (j + 1) * sa_j;
                        let (x, xe, xw, xn, xs) = (
                            &asl[c..c + nku],
                            &asl[c + sa_i..c + sa_i + nku],
                            &asl[c - sa_i..c - sa_i + nku],
                            &asl[c + sa_j..c + sa_j + nku],
                            &asl[c - sa_j..c - sa_j + nku],
                        );
                        for k in 0..nku {
                            col[k] = -4.0 * x[k] + xe[k] + xw[k] + xn[k] + xs[k];
                        }
                    }
                })
        },
    );
    let max_diff = out
        .as_array()
        .iter()
        .zip(&base)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    println!("laplacian 512x512x80: gt4rs {t_gt:.3} ms, hand-written rayon {t_base:.3} ms, ratio {:.3} (max diff {max_diff:e})", t_gt / t_base);

    // nabla4.
    let (ne, nv, nk) = (31_558i64, 10_663i64, 65i64);
    let table: Vec<i32> = (0..ne * 4).map(|_| r.random_range(0..nv as i32)).collect();
    let u: Field<(Vertex, K), f64> = random(&mut r, &[0..nv, 0..nk]);
    let v: Field<(Vertex, K), f64> = random(&mut r, &[0..nv, 0..nk]);
    let pn1: Field<(Edge, E2C2V), f64> = random(&mut r, &[0..ne, 0..4]);
    let pn2: Field<(Edge, E2C2V), f64> = random(&mut r, &[0..ne, 0..4]);
    let z: Field<(Edge, K), f64> = random(&mut r, &[0..ne, 0..nk]);
    let ivv: Field<(Edge,), f64> = random(&mut r, &[0..ne]);
    let ipe: Field<(Edge,), f64> = random(&mut r, &[0..ne]);
    let e2c2v = Connectivity::<E2C2V>::from_vec(table.clone(), nv as usize).unwrap();
    let prog = calculate_nabla4::compile(
        &Options::new(Backend::Cpu).with_connectivities(Connectivities::new().with(&e2c2v)),
    )
    .unwrap();
    let mut out: Field<(Edge, K), f64> =
        Field::filled(&[0..ne, 0..nk], f64::NAN, Layout::LastContiguous).unwrap();
    let run_gt = || {
        prog.call(calculate_nabla4::Args {
            u_vert: &u,
            v_vert: &v,
            primal_normal_vert_v1: &pn1,
            primal_normal_vert_v2: &pn2,
            z_nabla2_e: &z,
            inv_vert_vert_length: &ivv,
            inv_primal_edge_length: &ipe,
            z_nabla4_e2: &mut out,
            horizontal_start: 0,
            horizontal_end: ne as i32,
            vertical_start: 0,
            vertical_end: nk as i32,
        })
        .unwrap()
    };
    let nku = nk as usize;
    let (us, vs, zs) = (
        u.as_array().to_slice().unwrap().to_vec(),
        v.as_array().to_slice().unwrap().to_vec(),
        z.as_array().to_slice().unwrap().to_vec(),
    );
    let (p1, p2) = (
        pn1.as_array().to_slice().unwrap().to_vec(),
        pn2.as_array().to_slice().unwrap().to_vec(),
    );
    let (iv, ip) = (
        ivv.as_array().to_slice().unwrap().to_vec(),
        ipe.as_array().to_slice().unwrap().to_vec(),
    );
    let mut base = vec![0.0f64; (ne * nk) as usize];
    let (t_gt, t_base) = compare(reps, run_gt, || {
        base.par_chunks_mut(nku).enumerate().for_each(|(e, col)| {
            let nb = |j: usize| table[e * 4 + j] as usize * nku;
            let (u0, u1, u2, u3) = (
                &us[nb(0)..nb(0) + nku],
                &us[nb(1)..nb(1) + nku],
                &us[nb(2)..nb(2) + nku],
                &us[nb(3)..nb(3) + nku],
            );
            let (v0, v1, v2, v3) = (
                &vs[nb(0)..nb(0) + nku],
                &vs[nb(1)..nb(1) + nku],
                &vs[nb(2)..nb(2) + nku],
                &vs[nb(3)..nb(3) + nku],
            );
            let zc = &zs[e * nku..(e + 1) * nku];
            let w1 = &p1[e * 4..e * 4 + 4];
            let w2 = &p2[e * 4..e * 4 + 4];
            let (ivv, ipe) = (iv[e], ip[e]);
            for k in 0..nku {
                let tang = u0[k] * w1[0] + v0[k] * w2[0] + u1[k] * w1[1] + v1[k] * w2[1];
                let norm = u2[k] * w1[2] + v2[k] * w2[2] + u3[k] * w1[3] + v3[k] * w2[3];
                let z2 = 2.0 * zc[k];
                col[k] = 4.0 * ((norm - z2) * ivv * ivv + (tang - z2) * ipe * ipe);
            }
        })
    });
    let max_diff = out
        .as_array()
        .iter()
        .zip(&base)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    println!("calculate_nabla4 31558x65: gt4rs {t_gt:.3} ms, hand-written rayon {t_base:.3} ms, ratio {:.3} (max diff {max_diff:e})", t_gt / t_base);
}

//! The CUDA backend against the embedded backend (the semantic reference), on random data with
//! NaN-poisoned outputs. GPU rows skip with a message where no usable CUDA device is present
//! (always, in a build without the `cuda` feature); the fallback rows run everywhere.
#![allow(clippy::single_range_in_vec_init)]

use gt4rs::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

gt4rs::dimensions! {
    pub Cell, Edge, Vertex, I, J: horizontal;
    pub K: vertical;
}
gt4rs::offsets! {
    // Both as `tests/build.rs` declares them: the cases put -1 in their tables.
    pub E2C: Edge => Cell [2] with skip_values;
    pub E2C2V: Edge => Vertex [4] with skip_values;
    // The sparse output of `sparse_gather`.
    pub C2E: Cell => Edge [3];
}

include!(concat!(env!("OUT_DIR"), "/cpu_programs.rs"));

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn random<D: gt4rs::Dims>(
    r: &mut ChaCha8Rng,
    domain: &[std::ops::Range<i64>],
    layout: Layout,
) -> Field<D, f64> {
    Field::from_fn(domain, layout, |_| r.random_range(-1.0..1.0)).unwrap()
}

fn nan<D: gt4rs::Dims>(domain: &[std::ops::Range<i64>], layout: Layout) -> Field<D, f64> {
    Field::filled(domain, f64::NAN, layout).unwrap()
}

/// Equal within rounding, NaN where the reference is NaN (points outside the domain).
fn assert_same<D: gt4rs::Dims>(what: &str, got: &Field<D, f64>, want: &Field<D, f64>) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    for (i, (g, w)) in got
        .as_array()
        .iter()
        .zip(want.as_array().iter())
        .enumerate()
    {
        let ok =
            (g.is_nan() && w.is_nan()) || (g - w).abs() <= 1e-12 * (1.0 + g.abs().max(w.abs()));
        assert!(ok, "{what}: element {i}: cuda {g} vs embedded {w}");
    }
}

fn gpu() -> bool {
    if gt4rs::cuda::cuda_available() {
        true
    } else {
        let why = gt4rs::cuda::unavailable_reason()
            .map(|e| e.to_string())
            .unwrap_or_default();
        eprintln!("skipped: no usable CUDA device ({why})");
        false
    }
}

#[test]
fn cuda_without_a_device_is_an_error_and_auto_runs_on_cpu() {
    if gt4rs::cuda::cuda_available() {
        eprintln!("skipped: a CUDA device is present");
        return;
    }
    let err = match laplacian::compile(&Options::new(Backend::Cuda)) {
        Ok(_) => panic!("compiled for CUDA without a device"),
        Err(e) => e,
    };
    assert!(matches!(err, Error::BackendUnavailable { .. }), "{err}");
    assert!(err.to_string().contains("laplacian"), "{err}");
    let prog = laplacian::compile(&Options::new(Backend::Auto)).unwrap();
    assert_eq!(prog.backend(), Backend::Cpu);
    assert!(prog.cuda_program().is_none());
    let mut r = rng(1);
    let a: Field<(I, J, K), f64> = random(&mut r, &[-1..7, -1..7, 0..3], Layout::LastContiguous);
    let mut out = nan(&[0..6, 0..6, 0..3], Layout::LastContiguous);
    prog.call(laplacian::Args {
        a: &a,
        out: &mut out,
    })
    .unwrap();
    let mut want = nan(&[0..6, 0..6, 0..3], Layout::LastContiguous);
    laplacian::compile(&Options::new(Backend::Embedded))
        .unwrap()
        .call(laplacian::Args {
            a: &a,
            out: &mut want,
        })
        .unwrap();
    assert_same("auto laplacian", &out, &want);
}

#[test]
fn cuda_nabla4_matches_embedded() {
    if !gpu() {
        return;
    }
    let (ne, nv, nk) = (300i64, 170i64, 20i64);
    for layout in [Layout::LastContiguous, Layout::FirstContiguous] {
        let mut r = rng(3);
        let table: Vec<i32> = (0..ne * 4).map(|_| r.random_range(0..nv as i32)).collect();
        let e2c2v = Connectivity::<E2C2V>::from_vec(table, ne as usize, nv as usize).unwrap();
        let u = random(&mut r, &[0..nv, 0..nk], layout);
        let v = random(&mut r, &[0..nv, 0..nk], layout);
        let pn1 = random(&mut r, &[0..ne, 0..4], layout);
        let pn2 = random(&mut r, &[0..ne, 0..4], layout);
        let z = random(&mut r, &[0..ne, 0..nk], layout);
        let ivv = random(&mut r, &[0..ne], layout);
        let ipe = random(&mut r, &[0..ne], layout);
        let run = |backend: Backend| {
            let mut out = nan(&[0..ne, 0..nk], layout);
            let options =
                Options::new(backend).with_connectivities(Connectivities::new().with(&e2c2v));
            calculate_nabla4::compile(&options)
                .unwrap()
                .call(calculate_nabla4::Args {
                    u_vert: &u,
                    v_vert: &v,
                    primal_normal_vert_v1: &pn1,
                    primal_normal_vert_v2: &pn2,
                    z_nabla2_e: &z,
                    inv_vert_vert_length: &ivv,
                    inv_primal_edge_length: &ipe,
                    z_nabla4_e2: &mut out,
                    horizontal_start: 5,
                    horizontal_end: (ne - 3) as i32,
                    vertical_start: 1,
                    vertical_end: (nk - 2) as i32,
                })
                .unwrap();
            out
        };
        assert_same("nabla4", &run(Backend::Cuda), &run(Backend::Embedded));
    }
}

#[test]
fn cuda_laplacian_with_nonzero_origins_matches_embedded() {
    if !gpu() {
        return;
    }
    for layout in [Layout::LastContiguous, Layout::FirstContiguous] {
        let mut r = rng(11);
        let (n, nk) = (33i64, 9i64);
        let a: Field<(I, J, K), f64> = random(&mut r, &[-1..n + 1, -1..n + 1, 2..2 + nk], layout);
        let run = |backend: Backend| {
            let mut out = nan(&[0..n, 0..n, 2..2 + nk], layout);
            laplacian::compile(&Options::new(backend))
                .unwrap()
                .call(laplacian::Args {
                    a: &a,
                    out: &mut out,
                })
                .unwrap();
            out
        };
        assert_same("laplacian", &run(Backend::Cuda), &run(Backend::Embedded));
        // An input too small for the shifts: an error naming it.
        let small: Field<(I, J, K), f64> = random(&mut r, &[0..n, -1..n + 1, 2..2 + nk], layout);
        let mut out = nan(&[0..n, 0..n, 2..2 + nk], layout);
        let e = laplacian::compile(&Options::new(Backend::Cuda))
            .unwrap()
            .call(laplacian::Args {
                a: &small,
                out: &mut out,
            })
            .unwrap_err();
        assert!(e.to_string().contains("`a`"), "{e}");
    }
}

#[test]
fn cuda_reductions_skip_missing_neighbours() {
    if !gpu() {
        return;
    }
    let (ne, nc, nk) = (140i64, 55i64, 6i64);
    let mut r = rng(5);
    let table: Vec<i32> = (0..ne * 2)
        .map(|i| {
            if i % 7 == 3 {
                -1
            } else {
                r.random_range(0..nc as i32)
            }
        })
        .collect();
    let e2c = Connectivity::<E2C>::from_vec(table, ne as usize, nc as usize).unwrap();
    let layout = Layout::LastContiguous;
    let f = random(&mut r, &[0..nc, 0..nk], layout);
    let w = random(&mut r, &[0..ne, 0..2], layout);
    let kf = random(&mut r, &[0..nk], layout);
    let run = |backend: Backend| {
        let mut out = nan(&[0..ne, 0..nk], layout);
        let options = Options::new(backend).with_connectivities(Connectivities::new().with(&e2c));
        reductions::compile(&options)
            .unwrap()
            .call(reductions::Args {
                f: &f,
                w: &w,
                kf: &kf,
                out: &mut out,
                vertical_end: (nk - 1) as i32,
            })
            .unwrap();
        out
    };
    assert_same("reductions", &run(Backend::Cuda), &run(Backend::Embedded));
}

#[test]
fn cuda_concat_where_select_and_scans_match_embedded() {
    if !gpu() {
        return;
    }
    let layout = Layout::FirstContiguous;
    let mut r = rng(9);
    let (nc, nk) = (61i64, 7i64);
    let a = random(&mut r, &[0..nc, 0..nk], layout);
    let run = |backend: Backend| {
        let (mut o1, mut o2, mut o3) = (
            nan(&[0..nc, 0..nk], layout),
            nan(&[0..nc, 0..nk], layout),
            nan(&[0..nc, 0..nk], layout),
        );
        concat_select::compile(&Options::new(backend))
            .unwrap()
            .call(concat_select::Args {
                a: &a,
                nlev: nk as i32,
                out1: &mut o1,
                out2: &mut o2,
                out3: &mut o3,
            })
            .unwrap();
        [o1, o2, o3]
    };
    for (g, w) in run(Backend::Cuda).iter().zip(run(Backend::Embedded).iter()) {
        assert_same("concat_select", g, w);
    }
    let run_scans = |backend: Backend| {
        let mut outs: Vec<Field<(Cell, K), f64>> =
            (0..4).map(|_| nan(&[0..nc, 0..nk], layout)).collect();
        let [fs, fp, bs, bp] = outs.as_mut_slice() else {
            unreachable!()
        };
        scans::compile(&Options::new(backend))
            .unwrap()
            .call(scans::Args {
                a: &a,
                fs,
                fp,
                bs,
                bp,
            })
            .unwrap();
        outs
    };
    for (g, w) in run_scans(Backend::Cuda)
        .iter()
        .zip(run_scans(Backend::Embedded).iter())
    {
        assert_same("scans", g, w);
    }
}

#[cfg(feature = "cuda")]
#[test]
fn cuda_device_fields_graph_replay_and_timing() {
    if !gpu() {
        return;
    }
    use gt4rs::cuda::{DeviceArg, DeviceField, Timer};
    let layout = Layout::LastContiguous;
    let mut r = rng(21);
    let (n, nk) = (64i64, 16i64);
    let a: Field<(I, J, K), f64> = random(&mut r, &[-1..n + 1, -1..n + 1, 0..nk], layout);
    let host_out: Field<(I, J, K), f64> = nan(&[0..n, 0..n, 0..nk], layout);
    let prog = laplacian::compile(&Options::new(Backend::Cuda)).unwrap();
    let cuda = prog.cuda_program().expect("compiled for CUDA");
    let da = DeviceField::upload(cuda, &a).unwrap();
    let mut dout = DeviceField::upload(cuda, &host_out).unwrap();
    let timer = Timer::start(cuda).unwrap();
    cuda.call_device(&mut [DeviceArg::field(&da), DeviceArg::field_mut(&mut dout)])
        .unwrap();
    let ms = timer.stop_ms().unwrap();
    assert!(ms >= 0.0);
    cuda.sync().unwrap();
    let mut got = host_out.clone();
    dout.download_into(&mut got).unwrap();
    let mut want = host_out.clone();
    laplacian::compile(&Options::new(Backend::Embedded))
        .unwrap()
        .call(laplacian::Args {
            a: &a,
            out: &mut want,
        })
        .unwrap();
    assert_same("device laplacian", &got, &want);
    // A captured call replays to the same result on fresh outputs.
    let mut dout2 = DeviceField::upload(cuda, &host_out).unwrap();
    let graph = cuda
        .capture(|| {
            cuda.call_device(&mut [DeviceArg::field(&da), DeviceArg::field_mut(&mut dout2)])
        })
        .unwrap();
    graph.replay().unwrap();
    cuda.sync().unwrap();
    let mut got2 = host_out.clone();
    dout2.download_into(&mut got2).unwrap();
    assert_same("graph laplacian", &got2, &want);
}

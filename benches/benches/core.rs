//! The CPU backend against hand-written rayon loops and a STREAM triad, in one run:
//! the Cartesian laplacian (512×512×80) and ICON's `calculate_nabla4` on random neighbour
//! tables of MCH R04B09's size and on the generated R2B4 grid, and `calculate_nabla2_for_theta`
//! (an edge flux read by a cell sum; the hand-written loop keeps the flux in a buffer) on the
//! generated R2B5 grid.
//!
//! Timed with criterion (group `core`: `triad`, then `<case>/gt4rs` and `<case>/hand` per case);
//! the table after criterion's report takes every ratio and bandwidth from the estimates of this
//! run (`gt4rs_benches::figures`).
//!
//! `cargo bench -p gt4rs-benches --bench core` (`-- laplacian` runs the cases matching a filter;
//! the table then lists what this run measured)

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Throughput};
use gt4rs::grid::IcosahedralGrid;
use gt4rs::prelude::*;
use gt4rs_benches::baselines::{self, Nabla2ForThetaInputs, Nabla4Inputs};
use gt4rs_benches::figures::{gbps, Estimates, Run};
use gt4rs_benches::inputs::random_field;
use gt4rs_benches::stream::Triad;
use gt4rs_stencils::cartesian::dims::{I, J, K};
use gt4rs_stencils::icon::dims::{Cell, Edge, Vertex, C2E, E2C, E2C2V};
use gt4rs_stencils::icon::dsl::diffusion::{calculate_nabla2_for_theta, calculate_nabla4};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[field_operator]
fn laplacian(f: Field<(I, J, K), f64>) -> Field<(I, J, K), f64> {
    -4.0 * f + f.at(I + 1) + f.at(I - 1) + f.at(J + 1) + f.at(J - 1)
}

#[program]
fn laplacian_3d(f: &Field<(I, J, K), f64>, out: &mut Field<(I, J, K), f64>, ni: i32, nj: i32) {
    laplacian(f).write_to(out, domain![I: 1..ni - 1, J: 1..nj - 1]);
}

/// The criterion group every case of this benchmark belongs to.
const GROUP: &str = "core";

type Group<'a> = BenchmarkGroup<'a, WallTime>;

/// One row of the table: a case timed as `<id>/gt4rs` and `<id>/hand`.
struct Case {
    id: &'static str,
    label: &'static str,
    /// Bytes moved by one call (each input and output once, tables included).
    bytes: usize,
}

/// Times `generated` and `hand_written` as `<case.id>/gt4rs` and `<case.id>/hand`.
fn time_pair(group: &mut Group<'_>, case: &Case, generated: impl FnMut(), hand: impl FnMut()) {
    let (mut generated, mut hand) = (generated, hand);
    group.throughput(Throughput::Bytes(case.bytes as u64));
    group.bench_function(format!("{}/gt4rs", case.id), |b| b.iter(&mut generated));
    group.bench_function(format!("{}/hand", case.id), |b| b.iter(&mut hand));
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn bench_laplacian(group: &mut Group<'_>, rng: &mut ChaCha8Rng) -> Case {
    let (ni, nj, nk) = (512usize, 512usize, 80usize);
    let domain = [0..ni as i64, 0..nj as i64, 0..nk as i64];
    let f: Field<(I, J, K), f64> = random_field(&domain, rng);
    let mut out = Field::filled(&domain, f64::NAN, Layout::default()).expect("valid");
    let mut hand = vec![f64::NAN; ni * nj * nk];
    let program = laplacian_3d::compile(&Options::new(Backend::Cpu)).expect("compiles");
    let run = |out: &mut Field<(I, J, K), f64>| {
        program
            .call(laplacian_3d::Args {
                f: &f,
                out,
                ni: ni as i32,
                nj: nj as i32,
            })
            .expect("in range");
    };
    let input = f.as_array();
    let input = input.as_slice().expect("row-major");
    run(&mut out);
    baselines::laplacian(input, &mut hand, ni, nj, nk);
    let interior = |v: &[f64]| -> Vec<f64> {
        (1..ni - 1)
            .flat_map(|i| {
                (1..nj - 1).flat_map(move |j| (0..nk).map(move |k| (i * nj + j) * nk + k))
            })
            .map(|x| v[x])
            .collect()
    };
    let got = out.as_array();
    let diff = max_abs_diff(
        &interior(got.as_slice().expect("row-major")),
        &interior(&hand),
    );
    assert!(
        diff < 1e-12,
        "laplacian: generated and hand-written differ by {diff}"
    );
    let case = Case {
        id: "laplacian",
        label: "laplacian 512x512x80",
        bytes: 8 * (ni * nj * nk + (ni - 2) * (nj - 2) * nk),
    };
    time_pair(
        group,
        &case,
        || run(&mut out),
        || baselines::laplacian(input, &mut hand, ni, nj, nk),
    );
    case
}

fn bench_nabla4(
    group: &mut Group<'_>,
    (id, label): (&'static str, &'static str),
    e2c2v: ndarray::Array2<i32>,
    n_vertices: usize,
    nk: usize,
    rng: &mut ChaCha8Rng,
) -> Case {
    let n_edges = e2c2v.nrows();
    let conn = Connectivity::<E2C2V>::new(e2c2v, n_vertices).expect("valid table");
    let u: Field<(Vertex, K), f64> = random_field(&[0..n_vertices as i64, 0..nk as i64], rng);
    let v: Field<(Vertex, K), f64> = random_field(&[0..n_vertices as i64, 0..nk as i64], rng);
    let pn1: Field<(Edge, E2C2V), f64> = random_field(&[0..n_edges as i64, 0..4], rng);
    let pn2: Field<(Edge, E2C2V), f64> = random_field(&[0..n_edges as i64, 0..4], rng);
    let z: Field<(Edge, K), f64> = random_field(&[0..n_edges as i64, 0..nk as i64], rng);
    let ivv: Field<Edge, f64> = random_field(&[0..n_edges as i64], rng);
    let ipe: Field<Edge, f64> = random_field(&[0..n_edges as i64], rng);
    let mut out = Field::filled(
        &[0..n_edges as i64, 0..nk as i64],
        f64::NAN,
        Layout::default(),
    )
    .expect("valid");
    let mut hand = vec![f64::NAN; n_edges * nk];
    let options = Options::new(Backend::Cpu).with_connectivities(Connectivities::new().with(&conn));
    let program = calculate_nabla4::compile(&options).expect("compiles");
    let run = |out: &mut Field<(Edge, K), f64>| {
        program
            .call(calculate_nabla4::Args {
                u_vert: &u,
                v_vert: &v,
                primal_normal_vert_v1: &pn1,
                primal_normal_vert_v2: &pn2,
                z_nabla2_e: &z,
                inv_vert_vert_length: &ivv,
                inv_primal_edge_length: &ipe,
                z_nabla4_e2: out,
                horizontal_start: 0,
                horizontal_end: n_edges as i32,
                vertical_start: 0,
                vertical_end: nk as i32,
            })
            .expect("in range");
    };
    let (ua, va, p1, p2, za, ia, pa) = (
        u.as_array(),
        v.as_array(),
        pn1.as_array(),
        pn2.as_array(),
        z.as_array(),
        ivv.as_array(),
        ipe.as_array(),
    );
    let inputs = Nabla4Inputs {
        e2c2v: conn.as_slice(),
        u_vert: ua.as_slice().expect("row-major"),
        v_vert: va.as_slice().expect("row-major"),
        primal_normal_vert_v1: p1.as_slice().expect("row-major"),
        primal_normal_vert_v2: p2.as_slice().expect("row-major"),
        z_nabla2_e: za.as_slice().expect("row-major"),
        inv_vert_vert_length: ia.as_slice().expect("row-major"),
        inv_primal_edge_length: pa.as_slice().expect("row-major"),
        nk,
    };
    run(&mut out);
    baselines::nabla4(&inputs, &mut hand);
    let got = out.as_array();
    let diff = max_abs_diff(got.as_slice().expect("row-major"), &hand);
    let scale = hand.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(
        diff <= 1e-12 * scale,
        "{label}: generated and hand-written differ by {diff}"
    );
    let bytes = 8 * (2 * n_vertices * nk + 2 * 4 * n_edges + 2 * n_edges * nk + 2 * n_edges)
        + 4 * 4 * n_edges;
    let case = Case { id, label, bytes };
    time_pair(
        group,
        &case,
        || run(&mut out),
        || baselines::nabla4(&inputs, &mut hand),
    );
    case
}

/// `calculate_nabla2_for_theta` on the whole generated R2B5 grid: the CPU lowering recomputes the
/// edge flux (two reads of cells) at each cell's edges; the hand-written loop writes it to a
/// buffer once per edge and then sums.
fn bench_nabla2_for_theta(group: &mut Group<'_>, rng: &mut ChaCha8Rng) -> Case {
    let nk = 65usize;
    let grid = IcosahedralGrid::generate(2, 5).expect("R2B5 builds");
    let (nc, ne) = (grid.num_cells, grid.num_edges);
    let e2c = Connectivity::<E2C>::new(grid.table("E2C").expect("generated").to_owned(), nc)
        .expect("valid table");
    let c2e = Connectivity::<C2E>::new(grid.table("C2E").expect("generated").to_owned(), ne)
        .expect("valid table");
    let (nci, nei, nki) = (nc as i64, ne as i64, nk as i64);
    let kh_smag_e: Field<(Edge, K), f64> = random_field(&[0..nei, 0..nki], rng);
    let inv_dual_edge_length: Field<Edge, f64> = random_field(&[0..nei], rng);
    let theta_v: Field<(Cell, K), f64> = random_field(&[0..nci, 0..nki], rng);
    let geofac_div: Field<(Cell, C2E), f64> = random_field(&[0..nci, 0..3], rng);
    let mut z_temp = Field::filled(&[0..nci, 0..nki], f64::NAN, Layout::default()).expect("valid");
    let options =
        Options::new(Backend::Cpu).with_connectivities(Connectivities::new().with(&e2c).with(&c2e));
    let program = calculate_nabla2_for_theta::compile(&options).expect("compiles");
    let run = |z_temp: &mut Field<(Cell, K), f64>| {
        program
            .call(calculate_nabla2_for_theta::Args {
                kh_smag_e: &kh_smag_e,
                inv_dual_edge_length: &inv_dual_edge_length,
                theta_v: &theta_v,
                geofac_div: &geofac_div,
                z_temp,
                horizontal_start: 0,
                horizontal_end: nc as i32,
                vertical_start: 0,
                vertical_end: nk as i32,
            })
            .expect("in range");
    };
    let (kh, ide, theta, geofac) = (
        kh_smag_e.as_array(),
        inv_dual_edge_length.as_array(),
        theta_v.as_array(),
        geofac_div.as_array(),
    );
    let inputs = Nabla2ForThetaInputs {
        e2c: e2c.as_slice(),
        c2e: c2e.as_slice(),
        kh_smag_e: kh.as_slice().expect("row-major"),
        inv_dual_edge_length: ide.as_slice().expect("row-major"),
        theta_v: theta.as_slice().expect("row-major"),
        geofac_div: geofac.as_slice().expect("row-major"),
        nk,
    };
    let (mut flux, mut hand) = (vec![f64::NAN; ne * nk], vec![f64::NAN; nc * nk]);
    run(&mut z_temp);
    baselines::nabla2_for_theta(&inputs, &mut flux, &mut hand);
    let got = z_temp.as_array();
    let diff = max_abs_diff(got.as_slice().expect("row-major"), &hand);
    let scale = hand.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(
        diff <= 1e-12 * scale,
        "calculate_nabla2_for_theta: generated and hand-written differ by {diff}"
    );
    let case = Case {
        id: "nabla2_for_theta_r2b5",
        label: "calculate_nabla2_for_theta R2B5 x65",
        // Inputs and the output once each, tables included; the flux temporary is not counted.
        bytes: 8 * (2 * ne * nk + ne + 2 * nc * nk + 3 * nc) + 4 * (2 * ne + 3 * nc),
    };
    time_pair(
        group,
        &case,
        || run(&mut z_temp),
        || baselines::nabla2_for_theta(&inputs, &mut flux, &mut hand),
    );
    case
}

/// The table of this run: each case's median times, their ratio, and GB/s against the triad.
fn print_table(estimates: &Estimates, triad_bytes: usize, cases: &[Case]) {
    let triad = match estimates.medians(GROUP, ["triad"]) {
        Ok([t]) => gbps(triad_bytes, t),
        Err(why) => {
            println!("no same-run table: {why}");
            return;
        }
    };
    println!("\nSTREAM triad in this run: {triad:.2} GB/s (criterion medians below)");
    println!(
        "{:<44} {:>10} {:>10} {:>7} {:>10} {:>9} {:>8}",
        "case", "gt4rs ms", "hand ms", "ratio", "gt4rs GB/s", "hand GB/s", "% triad"
    );
    for case in cases {
        let gt4rs_id = format!("{}/gt4rs", case.id);
        let hand_id = format!("{}/hand", case.id);
        match estimates.medians(GROUP, [gt4rs_id.as_str(), hand_id.as_str()]) {
            Ok([g, h]) => println!(
                "{:<44} {:>10.3} {:>10.3} {:>7.3} {:>10.2} {:>9.2} {:>7.1}%",
                case.label,
                g.as_secs_f64() * 1e3,
                h.as_secs_f64() * 1e3,
                g.as_secs_f64() / h.as_secs_f64(),
                gbps(case.bytes, g),
                gbps(case.bytes, h),
                100.0 * gbps(case.bytes, g) / triad
            ),
            Err(why) => println!("{:<44} {why}", case.label),
        }
    }
}

fn main() {
    let mut run = Run::start();
    let mut rng = ChaCha8Rng::seed_from_u64(20261122);
    println!("rayon threads: {}", rayon::current_num_threads());
    let mut triad = Triad::new(1 << 25);
    let triad_bytes = triad.bytes();
    let mut cases = Vec::new();
    {
        let mut group = run.criterion.benchmark_group(GROUP);
        // Calls of 1–20 ms: 20 samples within about 3 s per function.
        group
            .sample_size(20)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        group.throughput(Throughput::Bytes(triad_bytes as u64));
        group.bench_function("triad", |b| b.iter(|| triad.run()));
        cases.push(bench_laplacian(&mut group, &mut rng));

        let (n_edges, n_vertices, nk) = (31_558usize, 10_663usize, 65usize);
        let random_table = ndarray::Array2::from_shape_fn((n_edges, 4), |_| {
            rng.random_range(0..n_vertices as i32)
        });
        cases.push(bench_nabla4(
            &mut group,
            (
                "nabla4_random_r04b09",
                "calculate_nabla4 random MCH R04B09 x65",
            ),
            random_table,
            n_vertices,
            nk,
            &mut rng,
        ));

        let grid = IcosahedralGrid::generate(2, 4).expect("R2B4 builds");
        let e2c2v = grid.table("E2C2V").expect("generated").to_owned();
        cases.push(bench_nabla4(
            &mut group,
            ("nabla4_r2b4", "calculate_nabla4 R2B4 x65"),
            e2c2v,
            grid.num_vertices,
            nk,
            &mut rng,
        ));
        cases.push(bench_nabla2_for_theta(&mut group, &mut rng));
        group.finish();
    }
    print_table(&run.finish(), triad_bytes, &cases);
}

//! The CPU K-block option (`cpu.k_block`): ICON's `calculate_nabla4` on the generated R2B4 grid,
//! each case run with whole columns per rayon task (`k_block = 0`, the default) and with
//! columns split into blocks of levels, side by side in one run, next to the hand-written loop
//! (rayon over edges, whole columns). Cases: the whole grid, and a narrow horizontal range of
//! one `chunk` of edges over many levels (a boundary zone), where whole columns leave every
//! core but one idle.
//!
//! Timed with criterion (group `k_block`: `<case>/k_block_<b>` per block and `<case>/hand`);
//! the table after its report takes every time and speed-up from the estimates of this run.
//!
//! `cargo bench -p gt4rs-benches --bench k_block`

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::BenchmarkGroup;
use gt4rs::grid::IcosahedralGrid;
use gt4rs::prelude::*;
use gt4rs::CpuOptions;
use gt4rs_benches::baselines::{self, Nabla4Inputs};
use gt4rs_benches::figures::{Estimates, Run};
use gt4rs_benches::inputs::random_field;
use gt4rs_stencils::icon::dims::{Edge, Vertex, E2C2V, K};
use gt4rs_stencils::icon::dsl::diffusion::calculate_nabla4;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The criterion group of this benchmark.
const GROUP: &str = "k_block";
const K_BLOCKS: [usize; 4] = [0, 8, 16, 32];

/// One row of the table: a horizontal range over some levels.
struct Case {
    id: String,
    label: String,
}

struct Inputs {
    u: Field<(Vertex, K), f64>,
    v: Field<(Vertex, K), f64>,
    pn1: Field<(Edge, E2C2V), f64>,
    pn2: Field<(Edge, E2C2V), f64>,
    z: Field<(Edge, K), f64>,
    ivv: Field<Edge, f64>,
    ipe: Field<Edge, f64>,
}

/// Times one horizontal range for every K block and the hand-written loop, after checking
/// every block's result bit-equal to whole columns.
fn bench_case(
    group: &mut BenchmarkGroup<'_, WallTime>,
    case: &Case,
    conn: &Connectivity<E2C2V>,
    inputs: &Inputs,
    edges: std::ops::Range<usize>,
    nk: usize,
) {
    let label = &case.label;
    let n_edges = conn.as_slice().len() / 4;
    let mut out: Field<(Edge, K), f64> = Field::filled(
        &[0..n_edges as i64, 0..nk as i64],
        f64::NAN,
        Layout::default(),
    )
    .expect("valid");
    let mut reference: Option<Vec<f64>> = None;
    for k_block in K_BLOCKS {
        let cpu = CpuOptions {
            k_block,
            ..CpuOptions::default()
        };
        let options = Options::new(Backend::Cpu)
            .with_cpu(cpu)
            .with_connectivities(Connectivities::new().with(conn));
        let program = calculate_nabla4::compile(&options).expect("compiles");
        let run = |out: &mut Field<(Edge, K), f64>| {
            program
                .call(calculate_nabla4::Args {
                    u_vert: &inputs.u,
                    v_vert: &inputs.v,
                    primal_normal_vert_v1: &inputs.pn1,
                    primal_normal_vert_v2: &inputs.pn2,
                    z_nabla2_e: &inputs.z,
                    inv_vert_vert_length: &inputs.ivv,
                    inv_primal_edge_length: &inputs.ipe,
                    z_nabla4_e2: out,
                    horizontal_start: edges.start as i32,
                    horizontal_end: edges.end as i32,
                    vertical_start: 0,
                    vertical_end: nk as i32,
                })
                .expect("in range");
        };
        run(&mut out);
        let values: Vec<f64> = out.as_array().iter().copied().collect();
        match &reference {
            None => reference = Some(values),
            Some(r) => assert!(
                r.iter()
                    .zip(&values)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{label}: k_block {k_block} changes the result"
            ),
        }
        group.bench_function(format!("{}/k_block_{k_block}", case.id), |b| {
            b.iter(|| run(&mut out))
        });
    }
    time_hand_written(group, case, conn, inputs, nk, edges);
}

/// The hand-written loop over the same edges (rayon over edges, whole columns).
fn time_hand_written(
    group: &mut BenchmarkGroup<'_, WallTime>,
    case: &Case,
    conn: &Connectivity<E2C2V>,
    inputs: &Inputs,
    nk: usize,
    edges: std::ops::Range<usize>,
) {
    let (ua, va, p1, p2, za, ia, pa) = (
        inputs.u.as_array(),
        inputs.v.as_array(),
        inputs.pn1.as_array(),
        inputs.pn2.as_array(),
        inputs.z.as_array(),
        inputs.ivv.as_array(),
        inputs.ipe.as_array(),
    );
    let table = conn.as_slice();
    let (lo, hi) = (edges.start, edges.end);
    let zs = za.as_slice().expect("row-major");
    let baseline = Nabla4Inputs {
        e2c2v: &table[4 * lo..4 * hi],
        u_vert: ua.as_slice().expect("row-major"),
        v_vert: va.as_slice().expect("row-major"),
        primal_normal_vert_v1: &p1.as_slice().expect("row-major")[4 * lo..4 * hi],
        primal_normal_vert_v2: &p2.as_slice().expect("row-major")[4 * lo..4 * hi],
        z_nabla2_e: &zs[nk * lo..nk * hi],
        inv_vert_vert_length: &ia.as_slice().expect("row-major")[lo..hi],
        inv_primal_edge_length: &pa.as_slice().expect("row-major")[lo..hi],
        nk,
    };
    let mut out = vec![f64::NAN; (hi - lo) * nk];
    group.bench_function(format!("{}/hand", case.id), |b| {
        b.iter(|| baselines::nabla4(&baseline, &mut out))
    });
}

/// The table of this run: ms for whole columns, the speed-up of each block, the hand loop.
fn print_table(estimates: &Estimates, cases: &[Case]) {
    println!(
        "\n{:<34} {}   hand ms",
        "case (ms, speed-up vs whole columns)",
        K_BLOCKS
            .iter()
            .map(|b| format!("{:>16}", format!("k_block {b}")))
            .collect::<Vec<_>>()
            .join(" ")
    );
    for case in cases {
        let ids = K_BLOCKS.map(|b| format!("{}/k_block_{b}", case.id));
        let hand = format!("{}/hand", case.id);
        let [k0, k8, k16, k32, hand] = match estimates.medians(
            GROUP,
            [&ids[0], &ids[1], &ids[2], &ids[3], &hand].map(String::as_str),
        ) {
            Ok(medians) => medians,
            Err(why) => {
                println!("{:<34} {why}", case.label);
                continue;
            }
        };
        let cells: Vec<String> = [k0, k8, k16, k32]
            .iter()
            .map(|t| {
                format!(
                    "{:>8.3} ({:>4.2}x)",
                    t.as_secs_f64() * 1e3,
                    k0.as_secs_f64() / t.as_secs_f64()
                )
            })
            .collect();
        println!(
            "{:<34} {} {:>9.3}",
            case.label,
            cells.join(" "),
            hand.as_secs_f64() * 1e3
        );
    }
}

fn main() {
    let mut run = Run::start();
    let mut rng = ChaCha8Rng::seed_from_u64(20261122);
    println!("rayon threads: {}", rayon::current_num_threads());
    let grid = IcosahedralGrid::generate(2, 4).expect("R2B4 builds");
    let conn = Connectivity::<E2C2V>::new(
        grid.table("E2C2V").expect("generated").to_owned(),
        grid.num_vertices,
    )
    .expect("valid table");
    let (ne, nv) = (grid.num_edges as i64, grid.num_vertices as i64);
    let chunk = CpuOptions::default().chunk;
    let mut cases = Vec::new();
    {
        let mut group = run.criterion.benchmark_group(GROUP);
        group
            .sample_size(20)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(2));
        for nk in [65usize, 137] {
            let nki = nk as i64;
            let inputs = Inputs {
                u: random_field(&[0..nv, 0..nki], &mut rng),
                v: random_field(&[0..nv, 0..nki], &mut rng),
                pn1: random_field(&[0..ne, 0..4], &mut rng),
                pn2: random_field(&[0..ne, 0..4], &mut rng),
                z: random_field(&[0..ne, 0..nki], &mut rng),
                ivv: random_field(&[0..ne], &mut rng),
                ipe: random_field(&[0..ne], &mut rng),
            };
            let all = Case {
                id: format!("all_edges_x{nk}"),
                label: format!("R2B4 all {ne} edges x{nk}"),
            };
            bench_case(&mut group, &all, &conn, &inputs, 0..ne as usize, nk);
            let one_chunk = Case {
                id: format!("one_chunk_x{nk}"),
                label: format!("R2B4 {chunk} edges (1 chunk) x{nk}"),
            };
            bench_case(&mut group, &one_chunk, &conn, &inputs, 0..chunk, nk);
            cases.extend([all, one_chunk]);
        }
        group.finish();
    }
    print_table(&run.finish(), &cases);
}

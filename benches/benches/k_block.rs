//! The CPU K-block option (`cpu.k_block`): ICON's `calculate_nabla4` on the generated R2B4 grid,
//! each case run with whole columns per rayon task (`k_block = 0`, the default) and with
//! columns split into blocks of levels, side by side in one run, next to the hand-written loop
//! (rayon over edges, whole columns). Cases: the whole grid, and a narrow horizontal range of
//! one `chunk` of edges over many levels (a boundary zone), where whole columns leave every
//! core but one idle.
//!
//! `cargo bench -p gt4rs-benches --bench k_block`

use std::time::Duration;

use gt4rs::grid::IcosahedralGrid;
use gt4rs::prelude::*;
use gt4rs::CpuOptions;
use gt4rs_benches::baselines::{self, Nabla4Inputs};
use gt4rs_benches::harness::median_time;
use gt4rs_benches::inputs::random_field;
use gt4rs_stencils::icon::dims::{Edge, Vertex, E2C2V, K};
use gt4rs_stencils::icon::dsl::diffusion::calculate_nabla4;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const MIN_TIME: Duration = Duration::from_millis(1000);
const K_BLOCKS: [usize; 4] = [0, 8, 16, 32];

struct Inputs {
    u: Field<(Vertex, K), f64>,
    v: Field<(Vertex, K), f64>,
    pn1: Field<(Edge, E2C2V), f64>,
    pn2: Field<(Edge, E2C2V), f64>,
    z: Field<(Edge, K), f64>,
    ivv: Field<Edge, f64>,
    ipe: Field<Edge, f64>,
}

/// Times one horizontal range for every K block and prints the row.
fn bench_case(
    label: &str,
    conn: &Connectivity<E2C2V>,
    inputs: &Inputs,
    edges: std::ops::Range<usize>,
    nk: usize,
) {
    let n_edges = conn.as_slice().len() / 4;
    let mut out: Field<(Edge, K), f64> = Field::filled(
        &[0..n_edges as i64, 0..nk as i64],
        f64::NAN,
        Layout::default(),
    )
    .expect("valid");
    let mut reference: Option<Vec<f64>> = None;
    let mut cells = Vec::new();
    let mut whole_columns = None;
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
        let t = median_time(10, MIN_TIME, || run(&mut out));
        let base = *whole_columns.get_or_insert(t);
        cells.push(format!(
            "{:>8.3} ({:>4.2}x)",
            t.as_secs_f64() * 1e3,
            base.as_secs_f64() / t.as_secs_f64()
        ));
    }
    let hand = hand_written_time(conn, inputs, nk, edges.clone());
    println!(
        "{:<34} {} {:>9.3}",
        label,
        cells.join(" "),
        hand.as_secs_f64() * 1e3
    );
}

/// The hand-written loop over the same edges (rayon over edges, whole columns).
fn hand_written_time(
    conn: &Connectivity<E2C2V>,
    inputs: &Inputs,
    nk: usize,
    edges: std::ops::Range<usize>,
) -> Duration {
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
    median_time(10, MIN_TIME, || baselines::nabla4(&baseline, &mut out))
}

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(20261122);
    println!("rayon threads: {}", rayon::current_num_threads());
    let grid = IcosahedralGrid::generate(2, 4).expect("R2B4 builds");
    let conn = Connectivity::<E2C2V>::new(
        grid.table("E2C2V").expect("generated").to_owned(),
        grid.num_vertices,
    )
    .expect("valid table");
    let (ne, nv) = (grid.num_edges as i64, grid.num_vertices as i64);
    println!(
        "{:<34} {}   hand ms",
        "case (ms, speed-up vs whole columns)",
        K_BLOCKS
            .iter()
            .map(|b| format!("{:>16}", format!("k_block {b}")))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let chunk = CpuOptions::default().chunk;
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
        bench_case(
            &format!("R2B4 all {ne} edges x{nk}"),
            &conn,
            &inputs,
            0..ne as usize,
            nk,
        );
        bench_case(
            &format!("R2B4 {chunk} edges (1 chunk) x{nk}"),
            &conn,
            &inputs,
            0..chunk,
            nk,
        );
    }
}

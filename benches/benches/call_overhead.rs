//! What a program call costs beyond its arithmetic: `calculate_nabla4` compiled for the CPU
//! backend, called on a 1-point domain (1 edge × 1 level) — with every argument passed, and with
//! all metric fields and the domain bound at `compile()` (`gt4rs::bind!`, as ICON binds them) —
//! next to the same arithmetic as a plain Rust function, in the same run. Timed with criterion
//! (group `call_overhead`), which times batches of calls; the table after its report gives the
//! median per call of each, and the overhead, from the estimates of this run.
//!
//! `cargo bench -p gt4rs-benches --bench call_overhead`

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use gt4rs::prelude::*;
use gt4rs_benches::figures::Run;
use gt4rs_stencils::icon::dims::{Edge, Vertex, E2C2V, K};
use gt4rs_stencils::icon::dsl::diffusion::calculate_nabla4;

gt4rs::bind! {
    mod nabla4_bound = calculate_nabla4(
        u_vert, v_vert, primal_normal_vert_v1, primal_normal_vert_v2, z_nabla2_e,
        inv_vert_vert_length, inv_primal_edge_length,
        horizontal_start, horizontal_end, vertical_start, vertical_end
    );
}

/// The criterion group of this benchmark.
const GROUP: &str = "call_overhead";

/// The same point computation, written by hand.
#[inline(never)]
fn nabla4_point(
    u: &[f64],
    v: &[f64],
    nb: &[i32],
    p1: &[f64],
    p2: &[f64],
    [z, ivv, ipe]: [f64; 3],
) -> f64 {
    let p = |j: usize| u[nb[j] as usize] * p1[j] + v[nb[j] as usize] * p2[j];
    let tang = p(0) + p(1);
    let norm = p(2) + p(3);
    4.0 * ((norm - 2.0 * z) * ivv * ivv + (tang - 2.0 * z) * ipe * ipe)
}

fn main() -> Result<(), Error> {
    let (n_vertices, n_edges) = (4usize, 1usize);
    let conn = Connectivity::<E2C2V>::from_vec(vec![0, 1, 2, 3], n_edges, n_vertices)?;
    let field = |n: usize, m: usize, seed: f64| {
        Field::<(Vertex, K), f64>::from_fn(&[0..n as i64, 0..m as i64], Layout::default(), |i| {
            seed + i[0] as f64 * 0.1
        })
    };
    let u = field(n_vertices, 1, 0.3)?;
    let v = field(n_vertices, 1, -0.2)?;
    let sparse = |seed: f64| {
        Field::<(Edge, E2C2V), f64>::from_fn(&[0..1, 0..4], Layout::default(), |i| {
            seed * (1 + i[1]) as f64
        })
    };
    let (pn1, pn2) = (sparse(0.5)?, sparse(-0.25)?);
    let z = Field::<(Edge, K), f64>::from_fn(&[0..1, 0..1], Layout::default(), |_| 0.125)?;
    let ivv = Field::<Edge, f64>::from_fn(&[0..1], Layout::default(), |_| 2.0)?;
    let ipe = Field::<Edge, f64>::from_fn(&[0..1], Layout::default(), |_| 3.0)?;
    let mut out =
        Field::<(Edge, K), f64>::filled(&[0..n_edges as i64, 0..1], f64::NAN, Layout::default())?;
    let options = Options::new(Backend::Cpu).with_connectivities(Connectivities::new().with(&conn));
    let program = calculate_nabla4::compile(&options)?;

    let bound = nabla4_bound::compile(
        &options,
        nabla4_bound::Bound {
            u_vert: Arc::new(u.clone()),
            v_vert: Arc::new(v.clone()),
            primal_normal_vert_v1: Arc::new(pn1.clone()),
            primal_normal_vert_v2: Arc::new(pn2.clone()),
            z_nabla2_e: Arc::new(z.clone()),
            inv_vert_vert_length: Arc::new(ivv.clone()),
            inv_primal_edge_length: Arc::new(ipe.clone()),
            horizontal_start: 0,
            horizontal_end: 1,
            vertical_start: 0,
            vertical_end: 1,
        },
    )?;
    let mut out_bound = out.clone();
    let call = |out: &mut Field<(Edge, K), f64>| {
        program.call(calculate_nabla4::Args {
            u_vert: black_box(&u),
            v_vert: &v,
            primal_normal_vert_v1: &pn1,
            primal_normal_vert_v2: &pn2,
            z_nabla2_e: &z,
            inv_vert_vert_length: &ivv,
            inv_primal_edge_length: &ipe,
            z_nabla4_e2: out,
            horizontal_start: 0,
            horizontal_end: 1,
            vertical_start: 0,
            vertical_end: 1,
        })
    };
    call(&mut out)?;
    bound.call(nabla4_bound::Args {
        z_nabla4_e2: &mut out_bound,
    })?;
    assert_eq!(
        out_bound.get(&[0, 0]),
        out.get(&[0, 0]),
        "bound and unbound calls agree"
    );
    let expected = nabla4_point(
        u.as_array().as_slice().expect("row-major"),
        v.as_array().as_slice().expect("row-major"),
        conn.as_slice(),
        pn1.as_array().as_slice().expect("row-major"),
        pn2.as_array().as_slice().expect("row-major"),
        [0.125, 2.0, 3.0],
    );
    let got = out.get(&[0, 0]).expect("inside");
    assert!(
        (got - expected).abs() <= 1e-14 * expected.abs().max(1.0),
        "{got} vs {expected}"
    );

    let (us, vs, nb) = (u.as_array(), v.as_array(), conn.as_slice());
    let (p1, p2) = (pn1.as_array(), pn2.as_array());
    let mut run = Run::start();
    {
        let mut group = run.criterion.benchmark_group(GROUP);
        group
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        group.bench_function("program_call", |b| {
            b.iter(|| black_box(call(&mut out)).expect("in range"))
        });
        group.bench_function("bound_call", |b| {
            b.iter(|| {
                let result = bound.call(nabla4_bound::Args {
                    z_nabla4_e2: black_box(&mut out_bound),
                });
                black_box(result).expect("in range")
            })
        });
        group.bench_function("plain_function", |b| {
            b.iter(|| {
                nabla4_point(
                    black_box(us.as_slice().expect("row-major")),
                    vs.as_slice().expect("row-major"),
                    nb,
                    p1.as_slice().expect("row-major"),
                    p2.as_slice().expect("row-major"),
                    [0.125, 2.0, 3.0],
                )
            })
        });
        group.finish();
    }
    let estimates = run.finish();
    let [generated, generated_bound, direct] =
        match estimates.medians(GROUP, ["program_call", "bound_call", "plain_function"]) {
            Ok(medians) => medians,
            Err(why) => {
                println!("no same-run table: {why}");
                return Ok(());
            }
        };
    println!(
        "calculate_nabla4 on 1 edge x 1 level, CPU backend, sequential path (medians of this run):"
    );
    println!(
        "  program call (validation + kernel)  {:>8.1} ns",
        generated.as_secs_f64() * 1e9
    );
    println!(
        "  same, metric fields + domain bound  {:>8.1} ns",
        generated_bound.as_secs_f64() * 1e9
    );
    println!(
        "  same arithmetic as a plain function {:>8.1} ns",
        direct.as_secs_f64() * 1e9
    );
    println!(
        "  overhead per call                   {:>8.1} ns",
        (generated.as_secs_f64() - direct.as_secs_f64()) * 1e9
    );
    Ok(())
}

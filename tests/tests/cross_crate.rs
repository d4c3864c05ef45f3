//! Operators are reusable across crates: a program here calls `gt4rs-stencils`'s field operator
//! `_calculate_nabla4` (reached by its path and through `use`) and matches that crate's own
//! program on both backends.

use gt4rs::prelude::*;
use gt4rs_stencils::icon::dims::{Edge, Vertex, E2C2V, K};
use gt4rs_stencils::icon::dsl::diffusion::{self, calculate_nabla4};
use gt4rs_tests::{poisoned, random_field, rng};

/// Scales the library operator's result: the callee's body is inlined into this crate's kernel.
#[field_operator]
fn scaled_nabla4(
    u: Field<(Vertex, K), f64>,
    v: Field<(Vertex, K), f64>,
    p1: Field<(Edge, E2C2V), f64>,
    p2: Field<(Edge, E2C2V), f64>,
    z: Field<(Edge, K), f64>,
    ivv: Field<Edge, f64>,
    ipe: Field<Edge, f64>,
    factor: f64,
) -> Field<(Edge, K), f64> {
    factor * diffusion::_calculate_nabla4(u, v, p1, p2, z, ivv, ipe)
}

#[allow(clippy::too_many_arguments)]
#[program]
fn scaled_nabla4_program(
    u: &Field<(Vertex, K), f64>,
    v: &Field<(Vertex, K), f64>,
    p1: &Field<(Edge, E2C2V), f64>,
    p2: &Field<(Edge, E2C2V), f64>,
    z: &Field<(Edge, K), f64>,
    ivv: &Field<Edge, f64>,
    ipe: &Field<Edge, f64>,
    factor: f64,
    out: &mut Field<(Edge, K), f64>,
) {
    scaled_nabla4(u, v, p1, p2, z, ivv, ipe, factor).write_to(out);
}

#[test]
fn a_program_calls_an_operator_of_another_crate() -> Result<(), Error> {
    let (nv, ne, nk) = (23usize, 41usize, 6usize);
    let table: Vec<i32> = (0..ne * 4).map(|i| ((i * 7 + i / 4) % nv) as i32).collect();
    let conn = Connectivity::<E2C2V>::from_vec(table, ne, nv)?;
    let mut r = rng(2024);
    let u = random_field(&mut r, &[0..nv as i64, 0..nk as i64]);
    let v = random_field(&mut r, &[0..nv as i64, 0..nk as i64]);
    let p1 = random_field(&mut r, &[0..ne as i64, 0..4]);
    let p2 = random_field(&mut r, &[0..ne as i64, 0..4]);
    let z = random_field(&mut r, &[0..ne as i64, 0..nk as i64]);
    let ivv = random_field(&mut r, &[0..ne as i64]);
    let ipe = random_field(&mut r, &[0..ne as i64]);
    let domain = [0..ne as i64, 0..nk as i64];
    for backend in [Backend::Embedded, Backend::Cpu] {
        let options = Options::new(backend).with_connectivities(Connectivities::new().with(&conn));
        let mut library: Field<(Edge, K), f64> = poisoned(&domain);
        calculate_nabla4::compile(&options)?.call(calculate_nabla4::Args {
            u_vert: &u,
            v_vert: &v,
            primal_normal_vert_v1: &p1,
            primal_normal_vert_v2: &p2,
            z_nabla2_e: &z,
            inv_vert_vert_length: &ivv,
            inv_primal_edge_length: &ipe,
            z_nabla4_e2: &mut library,
            horizontal_start: 0,
            horizontal_end: ne as i32,
            vertical_start: 0,
            vertical_end: nk as i32,
        })?;
        let mut ours: Field<(Edge, K), f64> = poisoned(&domain);
        scaled_nabla4_program::compile(&options)?.call(scaled_nabla4_program::Args {
            u: &u,
            v: &v,
            p1: &p1,
            p2: &p2,
            z: &z,
            ivv: &ivv,
            ipe: &ipe,
            factor: -0.5,
            out: &mut ours,
        })?;
        for (a, b) in ours.as_array().iter().zip(library.as_array().iter()) {
            assert!(
                (a - (-0.5 * b)).abs() <= 1e-14 * b.abs().max(1.0),
                "{backend:?}: {a} vs {b}"
            );
        }
    }
    Ok(())
}

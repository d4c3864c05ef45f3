//! The user model against a hand-written loop, on every backend, with `gt4rs::testing`: random
//! inputs, poisoned outputs, each backend bit-equal to the embedded one.

use gt4rs::prelude::*;
use gt4rs::testing::{self, Tolerance};
use user_model::{ring_mesh, ring_step, Level, RingCell, RingEdge};

fn reference(q: &[f64], cond: &[f64], n: usize, nlev: usize, dt: f64) -> Vec<f64> {
    let mut out = vec![0.0; n * nlev];
    for c in 0..n {
        let left = (c + n - 1) % n; // edge into c
        let right = c; // edge out of c
        for k in 0..nlev {
            let flux = |e: usize| cond[e] * (q[((e + 1) % n) * nlev + k] - q[e * nlev + k]);
            out[c * nlev + k] = q[c * nlev + k] + dt * (flux(left) - flux(right));
        }
    }
    out
}

type CellField = Field<(RingCell, Level), f64>;

#[test]
fn ring_step_matches_a_hand_written_loop_on_every_backend() -> Result<(), Box<dyn std::error::Error>>
{
    let (n, nlev, dt) = (37usize, 7usize, 0.3);
    let (e2c, c2e) = ring_mesh(n)?;
    let mut rng = testing::rng(17);
    let cells = [0..n as i64, 0..nlev as i64];
    let q: CellField = testing::random_field(&mut rng, &cells)?;
    let cond: Field<RingEdge, f64> = testing::random_field(&mut rng, &[0..n as i64])?;
    let sign = Field::from_fn(&[0..n as i64, 0..2], Layout::default(), |i| {
        if i[1] == 0 {
            1.0
        } else {
            -1.0
        }
    })?;
    let options =
        Options::default().with_connectivities(Connectivities::new().with(&e2c).with(&c2e));
    let results = testing::on_every_backend(&options, |options| {
        let mut q_new: CellField = testing::poisoned(&cells)?;
        let mut q_smooth: CellField = testing::poisoned(&cells)?;
        ring_step::compile(options)?.call(ring_step::Args {
            q: &q,
            conductance: &cond,
            sign: &sign,
            dt,
            nlev: nlev as i32,
            q_new: &mut q_new,
            q_smooth: &mut q_smooth,
        })?;
        Ok((q_new, q_smooth))
    })?;

    // The embedded backend (first) against the hand-written loops.
    let (_, (q_new, q_smooth)) = &results[0];
    let expected = reference(
        q.as_array().as_slice().ok_or("row-major")?,
        cond.as_array().as_slice().ok_or("row-major")?,
        n,
        nlev,
        dt,
    );
    let expected = Field::from_array(
        ndarray::ArrayD::from_shape_vec(vec![n, nlev], expected)?,
        &[0, 0],
    )?;
    testing::compare(&expected, q_new, Tolerance::Relative(1e-14))?;
    let smoothed = Field::from_fn(&cells, Layout::default(), |i| {
        if i[1] == 0 || i[1] == nlev as i64 - 1 {
            return f64::NAN; // outside the smoothing's domain: still poisoned
        }
        let at = |k: i64| q.get(&[i[0], k]).unwrap_or(f64::NAN);
        0.25 * at(i[1] - 1) + 0.5 * at(i[1]) + 0.25 * at(i[1] + 1)
    })?;
    testing::compare(&smoothed, q_smooth, Tolerance::Relative(1e-15))?;

    // Every other backend bit for bit against the embedded one.
    for (backend, (new, smooth)) in &results[1..] {
        testing::compare(q_new, new, Tolerance::BitEqual)
            .map_err(|m| format!("{backend:?} q_new: {m}"))?;
        testing::compare(q_smooth, smooth, Tolerance::BitEqual)
            .map_err(|m| format!("{backend:?} q_smooth: {m}"))?;
    }
    Ok(())
}

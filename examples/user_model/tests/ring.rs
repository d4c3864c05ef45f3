//! The user model against a hand-written loop, on both backends.

use gt4rs::prelude::*;
use user_model::{ring_mesh, ring_step};

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

#[test]
fn ring_step_matches_a_hand_written_loop_on_both_backends() -> Result<(), Error> {
    let (n, nlev) = (37usize, 7usize);
    let (e2c, c2e) = ring_mesh(n)?;
    let q = Field::from_fn(&[0..n as i64, 0..nlev as i64], Layout::default(), |i| {
        ((i[0] * 31 + i[1] * 7) % 17) as f64 / 17.0 - 0.4
    })?;
    let cond = Field::from_fn(&[0..n as i64], Layout::default(), |i| {
        0.5 + (i[0] % 5) as f64 * 0.1
    })?;
    let sign = Field::from_fn(&[0..n as i64, 0..2], Layout::default(), |i| {
        if i[1] == 0 {
            1.0
        } else {
            -1.0
        }
    })?;
    let expected = reference(
        q.as_array().as_slice().expect("row-major"),
        cond.as_array().as_slice().expect("row-major"),
        n,
        nlev,
        0.3,
    );
    for backend in [Backend::Embedded, Backend::Cpu] {
        let options =
            Options::new(backend).with_connectivities(Connectivities::new().with(&e2c).with(&c2e));
        let step = ring_step::compile(&options)?;
        let mut q_new = Field::filled(&[0..n as i64, 0..nlev as i64], f64::NAN, Layout::default())?;
        let mut q_smooth = q_new.clone();
        step.call(ring_step::Args {
            q: &q,
            conductance: &cond,
            sign: &sign,
            dt: 0.3,
            nlev: nlev as i32,
            q_new: &mut q_new,
            q_smooth: &mut q_smooth,
        })?;
        for (got, want) in q_new.as_array().iter().zip(&expected) {
            assert!((got - want).abs() < 1e-14, "{backend:?}: {got} vs {want}");
        }
        for c in 0..n as i64 {
            assert!(
                q_smooth.get(&[c, 0]).expect("inside").is_nan(),
                "level 0 is outside the domain"
            );
            assert!(q_smooth
                .get(&[c, nlev as i64 - 1])
                .expect("inside")
                .is_nan());
            for k in 1..nlev as i64 - 1 {
                let at = |k: i64| q.get(&[c, k]).expect("inside");
                let want = 0.25 * at(k - 1) + 0.5 * at(k) + 0.25 * at(k + 1);
                let got = q_smooth.get(&[c, k]).expect("inside");
                assert!(
                    (got - want).abs() < 1e-15,
                    "{backend:?}: smooth at ({c}, {k})"
                );
            }
        }
    }
    Ok(())
}

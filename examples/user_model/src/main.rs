//! Runs the ring model for a few steps on the CPU backend and prints the tracer's total mass,
//! which diffusion conserves.

use gt4rs::prelude::*;
use user_model::{ring_mesh, ring_step};

fn main() -> Result<(), Error> {
    let (n, nlev) = (64usize, 10usize);
    let (e2c, c2e) = ring_mesh(n)?;
    let options =
        Options::new(Backend::Cpu).with_connectivities(Connectivities::new().with(&e2c).with(&c2e));
    let step = ring_step::compile(&options)?;
    let domain = [0..n as i64, 0..nlev as i64];
    let mut q = Field::from_fn(&domain, Layout::default(), |i| {
        if i[0] == 0 {
            1.0
        } else {
            0.0
        }
    })?;
    let conductance = Field::from_fn(&[0..n as i64], Layout::default(), |_| 1.0)?;
    let sign = Field::from_fn(&[0..n as i64, 0..2], Layout::default(), |i| {
        if i[1] == 0 {
            1.0
        } else {
            -1.0
        }
    })?;
    let mut q_new = q.clone();
    let mut q_smooth = q.clone();
    for _ in 0..20 {
        step.call(ring_step::Args {
            q: &q,
            conductance: &conductance,
            sign: &sign,
            dt: 0.2,
            nlev: nlev as i32,
            q_new: &mut q_new,
            q_smooth: &mut q_smooth,
        })?;
        std::mem::swap(&mut q, &mut q_new);
    }
    let mass: f64 = q.as_array().iter().sum();
    println!("total tracer mass after 20 steps: {mass:.12} (initially {nlev})");
    Ok(())
}

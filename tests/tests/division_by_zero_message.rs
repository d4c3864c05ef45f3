//! An integer division by zero is an error on every backend, with one message: "program `p`:
//! integer division by zero at point I 3, J 1, K 1". With several zero divisors every backend
//! names the least of them in the domain's order (I, then J, then K): the embedded backend the
//! first its loop meets, the CPU kernels the least any thread meets (their error slot keeps the
//! failure at the least point), the CUDA kernels likewise (their error record, under a lock the
//! failing threads take in turn). See docs/reliability.md.

use gt4rs::prelude::*;
use gt4rs_tests::*;
use rand::RngExt;

#[field_operator]
fn quotient(n: Field<(I, J, K), i32>, m: Field<(I, J, K), i32>) -> Field<(I, J, K), i32> {
    n / m
}

#[program]
fn quotient_prog(
    n: &Field<(I, J, K), i32>,
    m: &Field<(I, J, K), i32>,
    q: &mut Field<(I, J, K), i32>,
) {
    quotient(n, m).write_to(q);
}

#[test]
fn a_division_by_zero_is_an_error_naming_the_least_zero_divisor_on_every_backend() {
    let mut rng = rng(20_261_127);
    let domain = [0..NI as i64, 0..NJ as i64, 0..NK as i64];
    let n: Field<(I, J, K), i32> = random_int_field(&mut rng, &domain, 1..100);
    for zeros in [1, 2, 5, 12] {
        let mut m: Field<(I, J, K), i32> = random_int_field(&mut rng, &domain, 1..9);
        let mut zero_points = Vec::new();
        for _ in 0..zeros {
            let point: Vec<i64> = domain.iter().map(|r| rng.random_range(r.clone())).collect();
            m.set(&point, 0).expect("a point of the domain");
            zero_points.push(point);
        }
        let mut messages: Vec<(String, String)> = Vec::new();
        for_each_backend(|backend| {
            let program = quotient_prog::compile(&backend.options())?;
            let mut q: Field<(I, J, K), i32> = poisoned(&domain);
            let result = program.call(quotient_prog::Args {
                n: &n,
                m: &m,
                q: &mut q,
            });
            match result {
                Ok(()) => panic!("{}: no error for {zeros} zero divisors", backend.name()),
                Err(e) => messages.push((
                    backend.name(),
                    failure_described(&e.to_string()).to_string(),
                )),
            }
            Ok(())
        });
        for (name, message) in &messages {
            eprintln!("{zeros} zero divisors, {name}: {message}");
            assert!(
                message.starts_with("program `quotient_prog`: integer division by zero at point ")
                    && zero_points.iter().any(|p| message
                        .ends_with(&format!("at point I {}, J {}, K {}", p[0], p[1], p[2]))),
                "{name}: `{message}` names none of the zero divisors {zero_points:?}"
            );
        }
        let least = zero_points.iter().min().expect("a zero divisor");
        let expected = format!(
            "program `quotient_prog`: integer division by zero at point I {}, J {}, K {}",
            least[0], least[1], least[2]
        );
        for (name, message) in &messages {
            assert_eq!(message, &expected, "{name} names another zero divisor");
        }
    }
}

//! Operators as big as a real dynamical core's, each used by a program and run on every backend
//! against a plain computation: 1,000 `let` statements each used twice, one expression of 2,000
//! chained operations, and 50 operators of 25 statements calling each other in a chain. They
//! must compile at the default stack size (no recursion limit in the macros' payloads, no stack
//! overflow in checking, lowering, serialising or interpreting them) and lower in linear time.
//!
//! The operators are `size/generated.rs`, written by `gt4rs_benches::sizes`, which also builds
//! them at growing sizes in the `build_size` benchmark.

use gt4rs::prelude::*;
use gt4rs_benches::sizes::Shape;
use gt4rs_tests::*;

include!("size/generated.rs");

macro_rules! size_case {
    ($test:ident, $program:ident, $shape:expr, $seed:expr) => {
        #[test]
        fn $test() {
            let shape: Shape = $shape;
            assert_eq!(stringify!($program), shape.program());
            let domain = vec![0..12, 0..5];
            let mut rng = rng($seed);
            let a: Field<(Edge, K), f64> = random_field(&mut rng, &domain);
            let b: Field<(Edge, K), f64> = random_field(&mut rng, &domain);
            for_each_backend(|backend| {
                let mut out = poisoned(&domain);
                let program = $program::compile(&backend.options())?;
                program.call($program::Args {
                    a: &a,
                    b: &b,
                    out: &mut out,
                })?;
                expect_field(&backend.name(), &out, &domain, |p| {
                    shape.reference(at(&a, p), at(&b, p))
                });
                Ok(())
            });
        }
    };
}

size_case!(
    an_operator_of_1000_lets_each_used_twice,
    run_lets_1000,
    Shape::Lets(1000),
    1001
);
size_case!(
    an_expression_of_2000_chained_operations,
    run_chain_2000,
    Shape::Chain(2000),
    1002
);
size_case!(
    a_chain_of_50_operators_of_25_statements,
    run_calls_50x25_49,
    Shape::Calls {
        operators: 50,
        statements: 25,
    },
    1003
);

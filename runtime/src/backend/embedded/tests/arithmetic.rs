//! Arithmetic, math builtins, casts and the promotion of fields of different dimensions.

use gt4rs_ir::build::*;
use gt4rs_ir::fieldview::{BinaryOp, Expr, MathFun, Role};
use gt4rs_ir::{CmpOp, ScalarType, Type};
use ndarray::{Array1, Array2};
use rand::RngExt;

use super::fixtures::*;
use crate::args::{Arg, FieldView, FieldViewMut};
use crate::backend::embedded::run_program;

#[test]
fn promotion_of_edge_k_times_k() {
    let mut rng = rng();
    let a = random2(&mut rng, NE, NK);
    let b = Array1::from_shape_fn(NK, |_| rng.random::<f64>() + 0.5);
    let ek = fty(&["Edge", "K"]);
    let body = binary(
        BinaryOp::Mul,
        param(0, ek.clone()),
        param(1, fty(&["K"])),
        ek.clone(),
    );
    let prog = test_program(
        vec![
            program_param("a", ek.clone(), Role::In),
            program_param("b", fty(&["K"]), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            call(
                "scale",
                vec![param(0, ek.clone()), param(1, fty(&["K"]))],
                ek.clone(),
            ),
            field_target(
                2,
                literal_domain(&[("Edge", 0, NE as i64), ("K", 1, NK as i64)]),
            ),
        )],
        vec![field_operator(
            "scale",
            positional_params(vec![ek.clone(), fty(&["K"])]),
            body,
        )],
    );
    let mut out = nan2(NE, NK);
    let mut args = vec![
        view(&a, &[0, 0]),
        Arg::Field(FieldView::F64(b.view().into_dyn(), &[0])),
        view_mut(&mut out, &[0, 0]),
    ];
    run_program(&prog, &mut args, &[]).expect("promotion runs");
    drop(args);
    check2(&out, 0..NE, 1..NK, |i, k| a[[i, k]] * b[k]);
}

#[test]
fn math_functions_and_integer_ops_match_rust() {
    let mut rng = rng();
    let a = Array2::from_shape_fn((NE, NK), |_| rng.random::<f64>() * 4.0 + 0.5);
    let ek = fty(&["Edge", "K"]);
    let ek_math = |fun, args: Vec<Expr>| math(fun, args, ek.clone());
    // gamma(a).max(a.powi(3)) + hypot(a, 2).sqrt() + (a as i32).rem_euclid(-3)
    let as_int = cast(param(0, ek.clone()), I32);
    let rem = math(
        MathFun::RemEuclid,
        vec![as_int, int(-3)],
        ity(&["Edge", "K"]),
    );
    let body = binary(
        BinaryOp::Add,
        binary(
            BinaryOp::Add,
            ek_math(
                MathFun::Max,
                vec![
                    ek_math(MathFun::Gamma, vec![param(0, ek.clone())]),
                    ek_math(MathFun::Powi, vec![param(0, ek.clone()), int(3)]),
                ],
            ),
            ek_math(
                MathFun::Sqrt,
                vec![ek_math(
                    MathFun::Hypot,
                    vec![param(0, ek.clone()), float(2.0)],
                )],
            ),
            ek.clone(),
        ),
        cast(rem, F64),
        ek.clone(),
    );
    let prog = test_program(
        vec![
            program_param("a", ek.clone(), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            call("m", vec![param(0, ek.clone())], ek.clone()),
            whole_field(1),
        )],
        vec![field_operator(
            "m",
            positional_params(vec![ek.clone()]),
            body,
        )],
    );
    let mut out = nan2(NE, NK);
    let mut args = vec![view(&a, &[0, 0]), view_mut(&mut out, &[0, 0])];
    run_program(&prog, &mut args, &[]).expect("math runs");
    drop(args);
    check2(&out, 0..NE, 0..NK, |i, k| {
        let x = a[[i, k]];
        crate::backend::libm::gamma(x).max(x.powi(3))
            + x.hypot(2.0).sqrt()
            + (x as i32).rem_euclid(-3) as f64
    });
}

#[test]
fn integer_fields_and_casts() {
    let mut rng = rng();
    let a = Array2::from_shape_fn((NE, NK), |_| rng.random_range(-50..50i32));
    let b = Array2::from_shape_fn((NE, NK), |_| rng.random_range(1..9i32));
    let ik = ity(&["Edge", "K"]);
    // (a / b) * 3 + a % b + (a as f64 > 0.0) as i32
    let positive = cast(
        compare(
            CmpOp::Gt,
            cast(param(0, ik.clone()), F64),
            float(0.0),
            Type::field(&["Edge", "K"], ScalarType::Bool),
        ),
        I32,
    );
    let body = binary(
        BinaryOp::Add,
        binary(
            BinaryOp::Add,
            binary(
                BinaryOp::Mul,
                binary(
                    BinaryOp::Div,
                    param(0, ik.clone()),
                    param(1, ik.clone()),
                    ik.clone(),
                ),
                int(3),
                ik.clone(),
            ),
            binary(
                BinaryOp::Rem,
                param(0, ik.clone()),
                param(1, ik.clone()),
                ik.clone(),
            ),
            ik.clone(),
        ),
        positive,
        ik.clone(),
    );
    let prog = test_program(
        vec![
            program_param("a", ik.clone(), Role::In),
            program_param("b", ik.clone(), Role::In),
            program_param("out", ik.clone(), Role::Out),
        ],
        vec![write(
            call(
                "ints",
                vec![param(0, ik.clone()), param(1, ik.clone())],
                ik.clone(),
            ),
            field_target(2, literal_domain(&[("Edge", 1, 4)])),
        )],
        vec![field_operator(
            "ints",
            positional_params(vec![ik.clone(), ik.clone()]),
            body,
        )],
    );
    let mut out = Array2::from_elem((NE, NK), i32::MIN);
    let mut args = vec![
        Arg::Field(FieldView::I32(a.view().into_dyn(), &[0, 0])),
        Arg::Field(FieldView::I32(b.view().into_dyn(), &[0, 0])),
        Arg::FieldMut(FieldViewMut::I32(out.view_mut().into_dyn(), &[0, 0])),
    ];
    run_program(&prog, &mut args, &[]).expect("integer program runs");
    drop(args);
    for ((i, k), &got) in out.indexed_iter() {
        let (x, y) = (a[[i, k]], b[[i, k]]);
        let want = if (1..4).contains(&i) {
            (x / y) * 3 + x % y + (x > 0) as i32
        } else {
            i32::MIN
        };
        assert_eq!(got, want, "point ({i}, {k})");
    }
}

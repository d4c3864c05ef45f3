//! `select` (elementwise, on tuples too) and `if`/`else` on a scalar condition.

use gt4rs_ir::build::*;
use gt4rs_ir::fieldview::{BinaryOp, Role, Target};
use gt4rs_ir::{CmpOp, ScalarType, Type};

use super::fixtures::*;
use crate::args::{Arg, ScalarValue};
use crate::backend::embedded::run_program;

#[test]
fn select_with_tuples_writes_each_element_over_its_own_domain() {
    let mut rng = rng();
    let a = random2(&mut rng, NE, NK);
    let b = random2(&mut rng, NE, NK);
    let ek = fty(&["Edge", "K"]);
    let bk = Type::field(&["Edge", "K"], ScalarType::Bool);
    let pair = Type::Tuple(vec![ek.clone(), ek.clone()]);
    let body = select(
        compare(CmpOp::Gt, param(0, ek.clone()), param(1, ek.clone()), bk),
        tuple(vec![param(0, ek.clone()), param(1, ek.clone())]),
        tuple(vec![param(1, ek.clone()), float(7.0)]),
        pair.clone(),
    );
    let prog = test_program(
        vec![
            program_param("a", ek.clone(), Role::In),
            program_param("b", ek.clone(), Role::In),
            program_param("hi", ek.clone(), Role::Out),
            program_param("other", ek.clone(), Role::Out),
        ],
        vec![write(
            call(
                "pick",
                vec![param(0, ek.clone()), param(1, ek.clone())],
                pair.clone(),
            ),
            Target::Tuple(vec![
                field_target(2, literal_domain(&[("Edge", 0, 4), ("K", 1, 3)])),
                field_target(3, literal_domain(&[("Edge", 5, NE as i64)])),
            ]),
        )],
        vec![field_operator(
            "pick",
            positional_params(vec![ek.clone(), ek.clone()]),
            body,
        )],
    );
    let (mut hi, mut other) = (nan2(NE, NK), nan2(NE, NK));
    let mut args = vec![
        view(&a, &[0, 0]),
        view(&b, &[0, 0]),
        view_mut(&mut hi, &[0, 0]),
        view_mut(&mut other, &[0, 0]),
    ];
    run_program(&prog, &mut args, &[]).expect("select runs");
    drop(args);
    check2(&hi, 0..4, 1..3, |i, k| a[[i, k]].max(b[[i, k]]));
    check2(&other, 5..NE, 0..NK, |i, k| {
        if a[[i, k]] > b[[i, k]] {
            b[[i, k]]
        } else {
            7.0
        }
    });
}

#[test]
fn if_else_evaluates_only_the_taken_branch() {
    let mut rng = rng();
    let a = random2(&mut rng, NE, NK);
    let ek = fty(&["Edge", "K"]);
    // The untaken branch divides an integer by zero, which would fail if evaluated.
    let failing = binary(
        BinaryOp::Add,
        param(0, ek.clone()),
        cast(
            binary(
                BinaryOp::Div,
                int(1),
                param(2, Type::Scalar(I32)),
                Type::Scalar(I32),
            ),
            F64,
        ),
        ek.clone(),
    );
    let doubled = binary(BinaryOp::Mul, param(0, ek.clone()), float(2.0), ek.clone());
    let body = if_else(
        param(1, Type::Scalar(ScalarType::Bool)),
        doubled,
        failing,
        ek.clone(),
    );
    let params = vec![
        ek.clone(),
        Type::Scalar(ScalarType::Bool),
        Type::Scalar(I32),
    ];
    let prog = test_program(
        vec![
            program_param("a", ek.clone(), Role::In),
            program_param("flag", Type::Scalar(ScalarType::Bool), Role::In),
            program_param("zero", Type::Scalar(I32), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            call(
                "branch",
                vec![
                    param(0, ek.clone()),
                    param(1, Type::Scalar(ScalarType::Bool)),
                    param(2, Type::Scalar(I32)),
                ],
                ek.clone(),
            ),
            field_target(3, literal_domain(&[("K", 0, 3)])),
        )],
        vec![field_operator("branch", positional_params(params), body)],
    );
    let mut out = nan2(NE, NK);
    let mut args = vec![
        view(&a, &[0, 0]),
        Arg::Scalar(ScalarValue::Bool(true)),
        Arg::Scalar(ScalarValue::I32(0)),
        view_mut(&mut out, &[0, 0]),
    ];
    run_program(&prog, &mut args, &[]).expect("the taken branch is fine");
    drop(args);
    check2(&out, 0..NE, 0..3, |i, k| 2.0 * a[[i, k]]);
    let mut args = vec![
        view(&a, &[0, 0]),
        Arg::Scalar(ScalarValue::Bool(false)),
        Arg::Scalar(ScalarValue::I32(0)),
        view_mut(&mut out, &[0, 0]),
    ];
    let err = run_program(&prog, &mut args, &[]).expect_err("division by zero");
    assert!(err.to_string().contains("division by zero"), "{err}");
}

//! Scan operators: both directions, tuple carries, inside field operators and `concat_where`.

use gt4rs_ir::build::*;
use gt4rs_ir::fieldview::{BinaryOp, Operator, Program, Role, Target};
use gt4rs_ir::{CmpOp, ScalarType, Type};
use ndarray::{Array1, Array2};
use rand::RngExt;

use super::fixtures::*;
use crate::args::{Arg, FieldView};
use crate::backend::embedded::run_program;

fn scan_program(forward: bool) -> Program {
    let ek = fty(&["Edge", "K"]);
    let s = Type::Scalar(F64);
    let carry_ty = Type::Tuple(vec![s.clone(), s.clone()]);
    // carry' = (carry.0 * 0.5 + x, carry.1 + carry.0 * y)
    let c0 = tuple_get(param(0, carry_ty.clone()), 0);
    let c1 = tuple_get(param(0, carry_ty.clone()), 1);
    let body = tuple(vec![
        binary(
            BinaryOp::Add,
            binary(BinaryOp::Mul, c0.clone(), float(0.5), s.clone()),
            param(1, s.clone()),
            s.clone(),
        ),
        binary(
            BinaryOp::Add,
            c1,
            binary(BinaryOp::Mul, c0, param(2, s.clone()), s.clone()),
            s.clone(),
        ),
    ]);
    let scan = scan_operator(
        "solve",
        vec![
            operator_param("carry", carry_ty.clone()),
            operator_param("x", s.clone()),
            operator_param("y", s.clone()),
        ],
        body,
        "K",
        forward,
        tuple(vec![float(1.0), float(0.0)]),
    );
    let pair = Type::Tuple(vec![ek.clone(), ek.clone()]);
    test_program(
        vec![
            program_param("x", ek.clone(), Role::In),
            program_param("y", fty(&["K"]), Role::In),
            program_param("o0", ek.clone(), Role::Out),
            program_param("o1", ek.clone(), Role::Out),
        ],
        vec![write(
            call(
                "solve",
                vec![param(0, ek.clone()), param(1, fty(&["K"]))],
                pair,
            ),
            Target::Tuple(vec![
                field_target(2, literal_domain(&[("Edge", 1, 8), ("K", 0, NK as i64)])),
                field_target(3, literal_domain(&[("Edge", 2, 9), ("K", 1, NK as i64)])),
            ]),
        )],
        vec![scan],
    )
}

#[test]
fn scan_forward_and_backward_with_a_tuple_carry() {
    let mut rng = rng();
    let x = random2(&mut rng, NE, NK);
    let y = Array1::from_shape_fn(NK, |_| rng.random::<f64>() - 0.3);
    for forward in [true, false] {
        let prog = scan_program(forward);
        let (mut o0, mut o1) = (nan2(NE, NK), nan2(NE, NK));
        let mut args = vec![
            view(&x, &[0, 0]),
            Arg::Field(FieldView::F64(y.view().into_dyn(), &[0])),
            view_mut(&mut o0, &[0, 0]),
            view_mut(&mut o1, &[0, 0]),
        ];
        run_program(&prog, &mut args, &[]).expect("scan runs");
        drop(args);
        let mut want0 = Array2::zeros((NE, NK));
        let mut want1 = Array2::zeros((NE, NK));
        for i in 0..NE {
            let (mut c0, mut c1) = (1.0, 0.0);
            let levels: Vec<usize> = if forward {
                (0..NK).collect()
            } else {
                (0..NK).rev().collect()
            };
            for k in levels {
                let n0 = c0 * 0.5 + x[[i, k]];
                let n1 = c1 + c0 * y[k];
                (c0, c1) = (n0, n1);
                want0[[i, k]] = c0;
                want1[[i, k]] = c1;
            }
        }
        check2(&o0, 1..8, 0..NK, |i, k| want0[[i, k]]);
        check2(&o1, 2..9, 1..NK, |i, k| want1[[i, k]]);
    }
}

#[test]
fn scan_inside_a_field_operator_with_a_shifted_argument_and_a_per_column_if() {
    let mut rng = rng();
    let x = random2(&mut rng, NE, NK + 1);
    let ek = fty(&["Edge", "K"]);
    let s = Type::Scalar(F64);
    // carry' = if carry > 0.5 { carry * 0.5 + x } else { carry + x }
    let body = if_else(
        compare(
            CmpOp::Gt,
            param(0, s.clone()),
            float(0.5),
            Type::Scalar(ScalarType::Bool),
        ),
        binary(
            BinaryOp::Add,
            binary(BinaryOp::Mul, param(0, s.clone()), float(0.5), s.clone()),
            param(1, s.clone()),
            s.clone(),
        ),
        binary(
            BinaryOp::Add,
            param(0, s.clone()),
            param(1, s.clone()),
            s.clone(),
        ),
        s.clone(),
    );
    let scan = scan_operator(
        "acc",
        vec![
            operator_param("carry", s.clone()),
            operator_param("x", s.clone()),
        ],
        body,
        "K",
        false,
        float(0.25),
    );
    // The field operator passes x(K+1) (defined on 0..NK) and adds 1 to the result.
    let fo_body = binary(
        BinaryOp::Add,
        call(
            "acc",
            vec![cartesian_shift(param(0, ek.clone()), "K", 1)],
            ek.clone(),
        ),
        float(1.0),
        ek.clone(),
    );
    let prog = test_program(
        vec![
            program_param("x", ek.clone(), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            call("wrap", vec![param(0, ek.clone())], ek.clone()),
            field_target(1, literal_domain(&[("Edge", 0, 6)])),
        )],
        vec![
            scan,
            field_operator("wrap", positional_params(vec![ek.clone()]), fo_body),
        ],
    );
    let mut out = nan2(NE, NK + 1);
    let mut args = vec![view(&x, &[0, 0]), view_mut(&mut out, &[0, 0])];
    // The output covers K 0..NK+1, but the scan only 0..NK.
    let err = run_program(&prog, &mut args, &[]).expect_err("the top level is not covered");
    drop(args);
    assert!(
        err.to_string()
            .contains(&format!("K {}..{} is missing", NK, NK + 1)),
        "{err}"
    );
    let prog = Program {
        calls: vec![write(
            call("wrap", vec![param(0, ek.clone())], ek.clone()),
            field_target(1, literal_domain(&[("Edge", 0, 6), ("K", 0, NK as i64)])),
        )],
        ..prog
    };
    let mut args = vec![view(&x, &[0, 0]), view_mut(&mut out, &[0, 0])];
    run_program(&prog, &mut args, &[]).expect("scan runs");
    drop(args);
    let mut want = Array2::zeros((NE, NK));
    for i in 0..NE {
        let mut carry = 0.25;
        for k in (0..NK).rev() {
            let xk = x[[i, k + 1]];
            carry = if carry > 0.5 {
                carry * 0.5 + xk
            } else {
                carry + xk
            };
            want[[i, k]] = carry + 1.0;
        }
    }
    check2(&out, 0..6, 0..NK, |i, k| want[[i, k]]);
}

/// `decay`: carry' = carry * 0.75 + x, from 0.5, forward.
fn decay_scan() -> Operator {
    let s = Type::Scalar(F64);
    scan_operator(
        "decay",
        vec![
            operator_param("carry", s.clone()),
            operator_param("x", s.clone()),
        ],
        binary(
            BinaryOp::Add,
            binary(BinaryOp::Mul, param(0, s.clone()), float(0.75), s.clone()),
            param(1, s.clone()),
            s.clone(),
        ),
        "K",
        true,
        float(0.5),
    )
}

#[test]
fn scan_runs_over_the_written_levels_only() {
    let mut rng = rng();
    let x = random2(&mut rng, NE, NK);
    let ek = fty(&["Edge", "K"]);
    // A scan written over K 2..NK starts at K = 2.
    let scan = decay_scan();
    let prog = test_program(
        vec![
            program_param("x", ek.clone(), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            call("decay", vec![param(0, ek.clone())], ek.clone()),
            field_target(1, literal_domain(&[("K", 2, NK as i64)])),
        )],
        vec![scan],
    );
    let mut out = nan2(NE, NK);
    let mut args = vec![view(&x, &[0, 0]), view_mut(&mut out, &[0, 0])];
    run_program(&prog, &mut args, &[]).expect("scan runs");
    drop(args);
    let mut want = Array2::zeros((NE, NK));
    for i in 0..NE {
        let mut carry = 0.5;
        for k in 2..NK {
            carry = carry * 0.75 + x[[i, k]];
            want[[i, k]] = carry;
        }
    }
    check2(&out, 0..NE, 2..NK, |i, k| want[[i, k]]);
}

/// The pattern of ICON's fused vertical solver: a scan whose arguments start at K = 1, joined
/// with broadcast zeros at K = 0 by `concat_where(K > 0, …)`, both tuples.
#[test]
fn concat_where_of_a_tuple_scan_and_broadcast_zeros() {
    let mut rng = rng();
    let x = random2(&mut rng, NE, NK);
    let ek = fty(&["Edge", "K"]);
    let s = Type::Scalar(F64);
    let carry = Type::Tuple(vec![s.clone(), s.clone()]);
    // carry' = (carry.0 + x, carry.1 * 0.5 + carry.0)
    let c0 = || tuple_get(param(0, carry.clone()), 0);
    let body = tuple(vec![
        binary(BinaryOp::Add, c0(), param(1, s.clone()), s.clone()),
        binary(
            BinaryOp::Add,
            binary(
                BinaryOp::Mul,
                tuple_get(param(0, carry.clone()), 1),
                float(0.5),
                s.clone(),
            ),
            c0(),
            s.clone(),
        ),
    ]);
    let scan = scan_operator(
        "sweep",
        vec![
            operator_param("state", carry.clone()),
            operator_param("x", s.clone()),
        ],
        body,
        "K",
        true,
        tuple(vec![float(1.0), float(-1.0)]),
    );
    let pair = Type::Tuple(vec![ek.clone(), ek.clone()]);
    let zeros = || broadcast(float(0.0), &["Edge"]);
    let fo_body = concat_where(
        index_cmp("K", CmpOp::Gt, int(0)),
        call(
            "sweep",
            vec![cartesian_shift(param(0, ek.clone()), "K", -1)],
            pair.clone(),
        ),
        tuple(vec![zeros(), zeros()]),
        pair.clone(),
    );
    let prog = test_program(
        vec![
            program_param("x", ek.clone(), Role::In),
            program_param("o0", ek.clone(), Role::Out),
            program_param("o1", ek.clone(), Role::Out),
        ],
        vec![write(
            call("solve", vec![param(0, ek.clone())], pair.clone()),
            Target::Tuple(vec![
                field_target(1, literal_domain(&[("Edge", 2, 9)])),
                field_target(2, literal_domain(&[("Edge", 2, 9)])),
            ]),
        )],
        vec![
            scan,
            field_operator("solve", positional_params(vec![ek.clone()]), fo_body),
        ],
    );
    let (mut o0, mut o1) = (nan2(NE, NK), nan2(NE, NK));
    let mut args = vec![
        view(&x, &[0, 0]),
        view_mut(&mut o0, &[0, 0]),
        view_mut(&mut o1, &[0, 0]),
    ];
    run_program(&prog, &mut args, &[]).expect("solver pattern runs");
    drop(args);
    let mut want = (Array2::zeros((NE, NK)), Array2::zeros((NE, NK)));
    for i in 0..NE {
        let (mut c0, mut c1) = (1.0, -1.0);
        for k in 1..NK {
            (c0, c1) = (c0 + x[[i, k - 1]], c1 * 0.5 + c0);
            want.0[[i, k]] = c0;
            want.1[[i, k]] = c1;
        }
    }
    check2(&o0, 2..9, 0..NK, |i, k| want.0[[i, k]]);
    check2(&o1, 2..9, 0..NK, |i, k| want.1[[i, k]]);
}

/// A scan in a `concat_where` branch whose region has a hole (K == 2) and depends on the column
/// (Edge < 3 takes the other branch): its carry starts again from `init` after the hole.
#[test]
fn scan_in_a_branch_restarts_after_every_level_outside_its_region() {
    let mut rng = rng();
    let x = random2(&mut rng, NE, NK);
    let ek = fty(&["Edge", "K"]);
    let scan = decay_scan();
    let cond = domain_or(
        index_cmp("K", CmpOp::Eq, int(2)),
        index_cmp("Edge", CmpOp::Lt, int(3)),
    );
    let fo_body = concat_where(
        cond,
        param(0, ek.clone()),
        call("decay", vec![param(0, ek.clone())], ek.clone()),
        ek.clone(),
    );
    let prog = test_program(
        vec![
            program_param("x", ek.clone(), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            call("holed", vec![param(0, ek.clone())], ek.clone()),
            field_target(1, literal_domain(&[("Edge", 0, 9)])),
        )],
        vec![
            scan,
            field_operator("holed", positional_params(vec![ek.clone()]), fo_body),
        ],
    );
    let mut out = nan2(NE, NK);
    let mut args = vec![view(&x, &[0, 0]), view_mut(&mut out, &[0, 0])];
    run_program(&prog, &mut args, &[]).expect("scan in a holed region runs");
    drop(args);
    let mut want = Array2::zeros((NE, NK));
    for i in 0..NE {
        let mut carry = 0.5;
        for k in 0..NK {
            if i < 3 || k == 2 {
                want[[i, k]] = x[[i, k]];
                carry = 0.5;
            } else {
                carry = carry * 0.75 + x[[i, k]];
                want[[i, k]] = carry;
            }
        }
    }
    check2(&out, 0..9, 0..NK, |i, k| want[[i, k]]);
}

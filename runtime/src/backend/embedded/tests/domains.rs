//! Domains of program calls, several calls into one field, and `concat_where`.

use gt4rs_ir::build::*;
use gt4rs_ir::fieldview::{BinaryOp, Role};
use gt4rs_ir::{CmpOp, Type};

use super::fixtures::*;
use crate::args::{Arg, ScalarValue};
use crate::backend::embedded::run_program;

#[test]
fn copy_over_a_domain_given_by_scalar_parameters() {
    let mut rng = rng();
    let inp = random2(&mut rng, NE, NK);
    let mut out = nan2(NE, NK);
    let op = field_operator(
        "copy",
        positional_params(vec![fty(&["Edge", "K"])]),
        param(0, fty(&["Edge", "K"])),
    );
    let bound = |n: u32| param(n, Type::Scalar(I32));
    let prog = test_program(
        vec![
            program_param("inp", fty(&["Edge", "K"]), Role::In),
            program_param("out", fty(&["Edge", "K"]), Role::Out),
            program_param("h0", Type::Scalar(I32), Role::In),
            program_param("h1", Type::Scalar(I32), Role::In),
            program_param("v0", Type::Scalar(I32), Role::In),
            program_param("v1", Type::Scalar(I32), Role::In),
        ],
        vec![write(
            call(
                "copy",
                vec![param(0, fty(&["Edge", "K"]))],
                fty(&["Edge", "K"]),
            ),
            field_target(
                1,
                vec![
                    range("Edge", bound(2), bound(3)),
                    range("K", bound(4), bound(5)),
                ],
            ),
        )],
        vec![op],
    );
    let mut args = vec![
        view(&inp, &[0, 0]),
        view_mut(&mut out, &[0, 0]),
        Arg::Scalar(ScalarValue::I32(2)),
        Arg::Scalar(ScalarValue::I32(9)),
        Arg::Scalar(ScalarValue::I32(1)),
        Arg::Scalar(ScalarValue::I32(4)),
    ];
    run_program(&prog, &mut args, &[]).expect("copy runs");
    drop(args);
    check2(&out, 2..9, 1..4, |i, k| inp[[i, k]]);
}

#[test]
fn broadcast_of_a_scalar_over_a_domain() {
    let ek = fty(&["Edge", "K"]);
    let value = broadcast(param(0, Type::Scalar(F64)), &["Edge", "K"]);
    let prog = test_program(
        vec![
            program_param("s", Type::Scalar(F64), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            value,
            field_target(1, literal_domain(&[("Edge", 3, 5)])),
        )],
        vec![],
    );
    let mut out = nan2(NE, NK);
    let mut args = vec![
        Arg::Scalar(ScalarValue::F64(4.25)),
        view_mut(&mut out, &[0, 0]),
    ];
    run_program(&prog, &mut args, &[]).expect("broadcast runs");
    drop(args);
    check2(&out, 3..5, 0..NK, |_, _| 4.25);
}

#[test]
fn two_calls_with_different_domains_and_an_in_place_update() {
    let mut rng = rng();
    let a = random2(&mut rng, NE, NK);
    let mut out = nan2(NE, NK);
    let ek = fty(&["Edge", "K"]);
    let n = NK as i64;
    let twice = binary(BinaryOp::Mul, param(0, ek.clone()), float(2.0), ek.clone());
    let plus_one = binary(BinaryOp::Add, param(0, ek.clone()), float(1.0), ek.clone());
    // Third call: out = out(K+1) - out over K 0..n-1, in place: it must read the old values.
    let up_diff = binary(
        BinaryOp::Sub,
        cartesian_shift(param(0, ek.clone()), "K", 1),
        param(0, ek.clone()),
        ek.clone(),
    );
    let prog = test_program(
        vec![
            program_param("a", ek.clone(), Role::In),
            program_param("out", ek.clone(), Role::InOut),
        ],
        vec![
            write(
                call("twice", vec![param(0, ek.clone())], ek.clone()),
                field_target(1, literal_domain(&[("K", 0, n - 1)])),
            ),
            write(
                call("plus_one", vec![param(0, ek.clone())], ek.clone()),
                field_target(1, literal_domain(&[("K", n - 1, n)])),
            ),
            write(
                call("up_diff", vec![param(1, ek.clone())], ek.clone()),
                field_target(1, literal_domain(&[("Edge", 2, 7), ("K", 0, n - 1)])),
            ),
        ],
        vec![
            field_operator("twice", positional_params(vec![ek.clone()]), twice),
            field_operator("plus_one", positional_params(vec![ek.clone()]), plus_one),
            field_operator("up_diff", positional_params(vec![ek.clone()]), up_diff),
        ],
    );
    let mut args = vec![view(&a, &[0, 0]), view_mut(&mut out, &[0, 0])];
    run_program(&prog, &mut args, &[]).expect("program runs");
    drop(args);
    let first = |i: usize, k: usize| {
        if k < NK - 1 {
            2.0 * a[[i, k]]
        } else {
            a[[i, k]] + 1.0
        }
    };
    check2(&out, 0..NE, 0..NK, |i, k| {
        if (2..7).contains(&i) && k < NK - 1 {
            first(i, k + 1) - first(i, k)
        } else {
            first(i, k)
        }
    });
}

#[test]
fn concat_where_with_and_and_or() {
    let mut rng = rng();
    let a = random2(&mut rng, NE, NK);
    let ek = fty(&["Edge", "K"]);
    let n = NK as i64;
    // Inner levels: a(K-1) + a(K+1), defined on 1..n-1; boundaries: a.
    let inner = binary(
        BinaryOp::Add,
        cartesian_shift(param(0, ek.clone()), "K", -1),
        cartesian_shift(param(0, ek.clone()), "K", 1),
        ek.clone(),
    );
    let and = concat_where(
        domain_and(
            index_cmp("K", CmpOp::Gt, int(0)),
            index_cmp("K", CmpOp::Lt, int(n - 1)),
        ),
        inner.clone(),
        param(0, ek.clone()),
        ek.clone(),
    );
    let or = concat_where(
        domain_or(
            index_cmp("K", CmpOp::Eq, int(0)),
            index_cmp("K", CmpOp::Ge, int(n - 1)),
        ),
        float(-3.0),
        inner,
        ek.clone(),
    );
    let prog = test_program(
        vec![
            program_param("a", ek.clone(), Role::In),
            program_param("out1", ek.clone(), Role::Out),
            program_param("out2", ek.clone(), Role::Out),
        ],
        vec![
            write(
                call("and", vec![param(0, ek.clone())], ek.clone()),
                field_target(1, literal_domain(&[("Edge", 0, 6)])),
            ),
            write(
                call("or", vec![param(0, ek.clone())], ek.clone()),
                field_target(2, literal_domain(&[("Edge", 3, NE as i64)])),
            ),
        ],
        vec![
            field_operator("and", positional_params(vec![ek.clone()]), and),
            field_operator("or", positional_params(vec![ek.clone()]), or),
        ],
    );
    let (mut out1, mut out2) = (nan2(NE, NK), nan2(NE, NK));
    let mut args = vec![
        view(&a, &[0, 0]),
        view_mut(&mut out1, &[0, 0]),
        view_mut(&mut out2, &[0, 0]),
    ];
    run_program(&prog, &mut args, &[]).expect("concat_where runs");
    drop(args);
    let inner_at = |i: usize, k: usize| a[[i, k - 1]] + a[[i, k + 1]];
    check2(&out1, 0..6, 0..NK, |i, k| {
        if k > 0 && k < NK - 1 {
            inner_at(i, k)
        } else {
            a[[i, k]]
        }
    });
    check2(&out2, 3..NE, 0..NK, |i, k| {
        if k == 0 || k == NK - 1 {
            -3.0
        } else {
            inner_at(i, k)
        }
    });
}

/// True branch on K < 2 or K > 5 over 0..8; false branch a(K-4) defined on 4..12: the union
/// 0..2 ∪ 4..8 has a hole at levels 2 and 3, where the value is undefined (as on the fused
/// backends, which read the false branch outside its field there). Written over all levels it
/// is an error naming the first level of the hole; written over levels 4..8 it is the branches'
/// values.
#[test]
fn a_concat_where_whose_branches_leave_a_hole_is_undefined_in_the_hole() {
    let mut rng = rng();
    let a = random2(&mut rng, NE, 8);
    let ek = fty(&["Edge", "K"]);
    let value = || {
        concat_where(
            domain_or(
                index_cmp("K", CmpOp::Lt, int(2)),
                index_cmp("K", CmpOp::Gt, int(5)),
            ),
            param(0, ek.clone()),
            cartesian_shift(param(0, ek.clone()), "K", -4),
            ek.clone(),
        )
    };
    let params = || {
        vec![
            program_param("a", ek.clone(), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ]
    };
    let whole = test_program(params(), vec![write(value(), whole_field(1))], vec![]);
    let mut out = nan2(NE, 8);
    let mut args = vec![view(&a, &[0, 0]), view_mut(&mut out, &[0, 0])];
    let err = run_program(&whole, &mut args, &[]).expect_err("the hole is written");
    assert!(
        err.to_string().contains("undefined at point Edge 0, K 2"),
        "{err}"
    );
    let above = test_program(
        params(),
        vec![write(
            value(),
            field_target(1, literal_domain(&[("Edge", 0, NE as i64), ("K", 4, 8)])),
        )],
        vec![],
    );
    let mut out = nan2(NE, 8);
    let mut args = vec![view(&a, &[0, 0]), view_mut(&mut out, &[0, 0])];
    run_program(&above, &mut args, &[]).expect("the hole is not written");
    drop(args);
    for e in 0..NE {
        for k in 0..8 {
            let want = match k {
                6 | 7 => a[[e, k]],
                4 | 5 => a[[e, k - 4]],
                _ => f64::NAN,
            };
            let got = out[[e, k]];
            assert!(
                got.to_bits() == want.to_bits(),
                "({e}, {k}): {got} against {want}"
            );
        }
    }
}

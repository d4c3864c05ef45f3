//! Errors: bad arguments, domains outside a field or not covered by the value, and reads of
//! undefined values (skipped neighbours, points outside a field) where they are written.

use gt4rs_ir::build::*;
use gt4rs_ir::fieldview::{Program, Role};
use ndarray::{Array2, Array3};

use super::fixtures::*;
use crate::args::{Arg, FieldView};
use crate::backend::embedded::run_program;
use crate::error::Error;

fn shifted_copy_program(domain: &[(&str, i64, i64)]) -> Program {
    let ek = fty(&["Edge", "K"]);
    test_program(
        vec![
            program_param("a", ek.clone(), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            call("up", vec![param(0, ek.clone())], ek.clone()),
            field_target(1, literal_domain(domain)),
        )],
        vec![field_operator(
            "up",
            positional_params(vec![ek.clone()]),
            cartesian_shift(param(0, ek.clone()), "K", 1),
        )],
    )
}

#[test]
fn writing_outside_the_output_field_is_an_error() {
    let mut rng = rng();
    let a = random2(&mut rng, NE, NK + 1);
    let prog = shifted_copy_program(&[("Edge", 0, NE as i64 + 1)]);
    let mut out = nan2(NE, NK);
    let mut args = vec![view(&a, &[0, 0]), view_mut(&mut out, &[0, 0])];
    let err = run_program(&prog, &mut args, &[]).expect_err("domain outside");
    let message = err.to_string();
    assert!(
        message.contains("domain outside a field")
            && message.contains("out")
            && message.contains("Edge"),
        "{message}"
    );
}

#[test]
fn a_value_not_covering_the_domain_is_an_error_naming_the_missing_range() {
    let mut rng = rng();
    let a = random2(&mut rng, NE, NK);
    // a(K+1) is defined on K 0..NK-1 only.
    let prog = shifted_copy_program(&[("K", 0, NK as i64)]);
    let mut out = nan2(NE, NK);
    let mut args = vec![view(&a, &[0, 0]), view_mut(&mut out, &[0, 0])];
    let err = run_program(&prog, &mut args, &[]).expect_err("not covered");
    drop(args);
    let message = err.to_string();
    assert!(
        message.contains("test_program")
            && message.contains("`out`")
            && message.contains(&format!("K {}..{} is missing", NK - 1, NK)),
        "{message}"
    );
    assert!(out.iter().all(|x| x.is_nan()));
    // The covered part works.
    let prog = shifted_copy_program(&[("K", 0, NK as i64 - 1)]);
    let mut args = vec![view(&a, &[0, 0]), view_mut(&mut out, &[0, 0])];
    run_program(&prog, &mut args, &[]).expect("covered");
    drop(args);
    check2(&out, 0..NE, 0..NK - 1, |i, k| a[[i, k + 1]]);
}

#[test]
fn wrong_dtype_or_rank_of_an_argument_is_an_error() {
    let prog = shifted_copy_program(&[]);
    let a32 = Array2::<f32>::from_elem((NE, NK), 1.5);
    let mut out = nan2(NE, NK);
    let mut args = vec![
        Arg::Field(FieldView::F32(a32.view().into_dyn(), &[0, 0])),
        view_mut(&mut out, &[0, 0]),
    ];
    let err = run_program(&prog, &mut args, &[]).expect_err("wrong dtype");
    assert!(
        matches!(&err, Error::Argument { arg, .. } if arg == "a")
            && err.to_string().contains("f32"),
        "{err}"
    );
    let a3 = Array3::<f64>::from_elem((NE, NK, 2), 1.5);
    let mut args = vec![
        Arg::Field(FieldView::F64(a3.view().into_dyn(), &[0, 0, 0])),
        view_mut(&mut out, &[0, 0]),
    ];
    let err = run_program(&prog, &mut args, &[]).expect_err("wrong rank");
    assert!(
        matches!(&err, Error::Argument { arg, .. } if arg == "a"),
        "{err}"
    );
    // An output passed read-only.
    let a = Array2::<f64>::from_elem((NE, NK), 1.5);
    let mut args = vec![view(&a, &[0, 0]), view(&out, &[0, 0])];
    let err = run_program(&prog, &mut args, &[]).expect_err("read-only output");
    assert!(
        matches!(&err, Error::Argument { arg, .. } if arg == "out"),
        "{err}"
    );
}

#[test]
fn slot_shift_through_a_skipped_entry_is_an_error_only_where_written() {
    let mut rng = rng();
    let (v2e, e2v) = tables(&mut rng);
    let edge = random2(&mut rng, NE, NK);
    let vk = fty(&["Vertex", "K"]);
    let body = neighbor_shift(param(0, fty(&["Edge", "K"])), "V2E", Some(1), vk.clone());
    let make = |h0: i64, h1: i64| {
        test_program(
            vec![
                program_param("edge", fty(&["Edge", "K"]), Role::In),
                program_param("out", vk.clone(), Role::Out),
            ],
            vec![write(
                call("slot1", vec![param(0, fty(&["Edge", "K"]))], vk.clone()),
                field_target(1, literal_domain(&[("Vertex", h0, h1)])),
            )],
            vec![field_operator(
                "slot1",
                positional_params(vec![fty(&["Edge", "K"])]),
                body.clone(),
            )],
        )
    };
    let t = v2e.table();
    // Vertex 0 has a -1 in slot 1: writing it is an error naming the point.
    let prog = make(0, NV as i64);
    let mut out = nan2(NV, NK);
    let mut args = vec![view(&edge, &[0, 0]), view_mut(&mut out, &[0, 0])];
    let err =
        run_program(&prog, &mut args, &bind(&prog, &[&v2e, &e2v])).expect_err("skip slot written");
    drop(args);
    let message = err.to_string();
    assert!(
        message.contains("is undefined at point Vertex ") && message.contains("output `out`"),
        "{message}"
    );
    assert!(
        out.iter().all(|x| x.is_nan()),
        "nothing is written when a call fails"
    );
    // Writing only vertices whose slot 1 exists works.
    let valid: Vec<usize> = (0..NV).filter(|&v| t[[v, 1]] >= 0).collect();
    let (lo, hi) = (valid[0], valid[0] + 1);
    let prog = make(lo as i64, hi as i64);
    let mut args = vec![view(&edge, &[0, 0]), view_mut(&mut out, &[0, 0])];
    run_program(&prog, &mut args, &bind(&prog, &[&v2e, &e2v])).expect("valid slots run");
    drop(args);
    check2(&out, lo..hi, 0..NK, |v, k| edge[[t[[v, 1]] as usize, k]]);
}

#[test]
fn neighbours_outside_a_partial_field_are_undefined_where_written() {
    let mut rng = rng();
    let (v2e, e2v) = tables(&mut rng);
    // The vertex field covers vertices 2..NV only.
    let vert = random2(&mut rng, NV - 2, NK);
    let ek = fty(&["Edge", "K"]);
    let vk = fty(&["Vertex", "K"]);
    let prog = test_program(
        vec![
            program_param("vert", vk.clone(), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            neighbor_shift(param(0, vk.clone()), "E2V", Some(0), ek.clone()),
            whole_field(1),
        )],
        vec![],
    );
    let t = e2v.table();
    let mut out = nan2(NE, NK);
    let mut args = vec![view(&vert, &[2, 0]), view_mut(&mut out, &[0, 0])];
    let result = run_program(&prog, &mut args, &bind(&prog, &[&v2e, &e2v]));
    drop(args);
    if (0..NE).any(|e| t[[e, 0]] < 2) {
        let err = result.expect_err("reads outside the vertex field");
        assert!(err.to_string().contains("undefined"), "{err}");
    } else {
        result.expect("every neighbour is inside");
        check2(&out, 0..NE, 0..NK, |i, k| vert[[t[[i, 0]] as usize - 2, k]]);
    }
}

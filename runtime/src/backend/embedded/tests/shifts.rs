//! Cartesian, dynamic and neighbour shifts, and slots of sparse fields.

use gt4rs_ir::build::*;
use gt4rs_ir::fieldview::{BinaryOp, ReduceOp, Role};
use ndarray::Array2;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::fixtures::*;
use crate::args::{Arg, FieldView};
use crate::backend::embedded::run_program;
use crate::connectivity::Connectivity;

#[test]
fn cartesian_shift_of_a_field_with_a_negative_origin() {
    let mut rng = rng();
    // inp covers I in -1..NE+1; out covers I in 0..NE.
    let inp = random2(&mut rng, NE + 2, NK);
    let mut out = nan2(NE, NK);
    let ty = fty(&["I", "K"]);
    let body = binary(
        BinaryOp::Sub,
        cartesian_shift(param(0, ty.clone()), "I", 1),
        binary(
            BinaryOp::Mul,
            float(0.5),
            cartesian_shift(param(0, ty.clone()), "I", -1),
            ty.clone(),
        ),
        ty.clone(),
    );
    let prog = test_program(
        vec![
            program_param("inp", ty.clone(), Role::In),
            program_param("out", ty.clone(), Role::Out),
        ],
        vec![write(
            call("diff", vec![param(0, ty.clone())], ty.clone()),
            field_target(1, literal_domain(&[("I", 0, NE as i64)])),
        )],
        vec![field_operator(
            "diff",
            positional_params(vec![ty.clone()]),
            body,
        )],
    );
    let mut args = vec![view(&inp, &[-1, 0]), view_mut(&mut out, &[0, 0])];
    run_program(&prog, &mut args, &[]).expect("shift runs");
    drop(args);
    // inp index i lives at array row i + 1.
    check2(&out, 0..NE, 0..NK, |i, k| {
        inp[[i + 2, k]] - 0.5 * inp[[i, k]]
    });
}

#[test]
fn dynamic_shift_reads_at_per_point_offsets() {
    let mut rng = rng();
    let a = random2(&mut rng, NE, NK);
    let off = Array2::from_shape_fn((NE, NK), |(_, k)| {
        let o: i32 = rng.random_range(-1..=1);
        (k as i32 + o).clamp(0, NK as i32 - 1) - k as i32
    });
    let ek = fty(&["Edge", "K"]);
    let body = dynamic_shift(param(0, ek.clone()), "K", param(1, ity(&["Edge", "K"])));
    let prog = test_program(
        vec![
            program_param("a", ek.clone(), Role::In),
            program_param("off", ity(&["Edge", "K"]), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            call(
                "dyn",
                vec![param(0, ek.clone()), param(1, ity(&["Edge", "K"]))],
                ek.clone(),
            ),
            field_target(2, literal_domain(&[("Edge", 0, 9)])),
        )],
        vec![field_operator(
            "dyn",
            positional_params(vec![ek.clone(), ity(&["Edge", "K"])]),
            body,
        )],
    );
    let mut out = nan2(NE, NK);
    let mut args = vec![
        view(&a, &[0, 0]),
        Arg::Field(FieldView::I32(off.view().into_dyn(), &[0, 0])),
        view_mut(&mut out, &[0, 0]),
    ];
    run_program(&prog, &mut args, &[]).expect("dynamic shift runs");
    drop(args);
    check2(&out, 0..9, 0..NK, |i, k| {
        a[[i, (k as i32 + off[[i, k]]) as usize]]
    });
    // An offset that leaves the field is an error naming the point.
    let mut bad = off.clone();
    bad[[3, NK - 1]] = 1;
    let mut args = vec![
        view(&a, &[0, 0]),
        Arg::Field(FieldView::I32(bad.view().into_dyn(), &[0, 0])),
        view_mut(&mut out, &[0, 0]),
    ];
    let err = run_program(&prog, &mut args, &[]).expect_err("read outside");
    assert!(
        err.to_string()
            .contains(&format!("at point Edge 3, K {}", NK - 1)),
        "{err}"
    );
    // One that leaves the field only at a point the call does not write is fine.
    let mut unwritten = off.clone();
    unwritten[[NE - 1, NK - 1]] = 1;
    out = nan2(NE, NK);
    let mut args = vec![
        view(&a, &[0, 0]),
        Arg::Field(FieldView::I32(unwritten.view().into_dyn(), &[0, 0])),
        view_mut(&mut out, &[0, 0]),
    ];
    run_program(&prog, &mut args, &[]).expect("a read outside at an unwritten point");
    drop(args);
    check2(&out, 0..9, 0..NK, |i, k| {
        a[[i, (k as i32 + off[[i, k]]) as usize]]
    });
}

#[test]
fn slot_shift_and_local_index_of_a_sparse_field() {
    let mut rng = rng();
    let (v2e, e2v) = tables(&mut rng);
    let vert = random2(&mut rng, NV, NK);
    let sparse_e = random2(&mut rng, NE, 2);
    let ek = fty(&["Edge", "K"]);
    // out[e, k] = vert[e2v[e, 0], k] * w[e, E2V(1)] + vert[e2v[e, 1], k]
    let body = binary(
        BinaryOp::Add,
        binary(
            BinaryOp::Mul,
            neighbor_shift(param(0, fty(&["Vertex", "K"])), "E2V", Some(0), ek.clone()),
            local_index(param(1, fty(&["Edge", "E2V"])), "E2V", 1),
            ek.clone(),
        ),
        neighbor_shift(param(0, fty(&["Vertex", "K"])), "E2V", Some(1), ek.clone()),
        ek.clone(),
    );
    let prog = test_program(
        vec![
            program_param("vert", fty(&["Vertex", "K"]), Role::In),
            program_param("w", fty(&["Edge", "E2V"]), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            call(
                "slots",
                vec![
                    param(0, fty(&["Vertex", "K"])),
                    param(1, fty(&["Edge", "E2V"])),
                ],
                ek.clone(),
            ),
            field_target(
                2,
                literal_domain(&[("Edge", 1, NE as i64 - 1), ("K", 0, NK as i64)]),
            ),
        )],
        vec![field_operator(
            "slots",
            positional_params(vec![fty(&["Vertex", "K"]), fty(&["Edge", "E2V"])]),
            body,
        )],
    );
    let mut out = nan2(NE, NK);
    let mut args = vec![
        view(&vert, &[0, 0]),
        view(&sparse_e, &[0, 0]),
        view_mut(&mut out, &[0, 0]),
    ];
    run_program(&prog, &mut args, &bind(&prog, &[&v2e, &e2v])).expect("slot shifts run");
    drop(args);
    let t = e2v.table();
    check2(&out, 1..NE - 1, 0..NK, |i, k| {
        vert[[t[[i, 0]] as usize, k]] * sparse_e[[i, 1]] + vert[[t[[i, 1]] as usize, k]]
    });
}

/// E2E: slot 0 always present, slot 1 missing (-1) for about a third of the edges.
fn e2e_table(rng: &mut ChaCha8Rng) -> Connectivity<E2E> {
    let table = Array2::from_shape_fn((NE, 2), |(_, j)| {
        if j == 1 && rng.random::<f64>() < 0.35 {
            -1
        } else {
            rng.random_range(0..NE as i32)
        }
    });
    Connectivity::new(table, NE).expect("valid table")
}

#[test]
fn same_dimension_offset_and_composed_slot_shifts() {
    let mut rng = rng();
    let (v2e, e2v) = tables(&mut rng);
    let e2e = e2e_table(&mut rng);
    let edge = random2(&mut rng, NE, NK);
    let vert = random2(&mut rng, NV, NK);
    let ek = fty(&["Edge", "K"]);
    let vk = fty(&["Vertex", "K"]);
    // neighbor_sum(edge(E2E), E2E) + vert(E2V[1])(E2E[0])
    let body = binary(
        BinaryOp::Add,
        reduce(
            ReduceOp::Sum,
            "E2E",
            neighbor_shift(
                param(0, ek.clone()),
                "E2E",
                None,
                fty(&["Edge", "E2E", "K"]),
            ),
        ),
        neighbor_shift(
            neighbor_shift(param(1, vk.clone()), "E2V", Some(1), ek.clone()),
            "E2E",
            Some(0),
            ek.clone(),
        ),
        ek.clone(),
    );
    let prog = test_program(
        vec![
            program_param("edge", ek.clone(), Role::In),
            program_param("vert", vk.clone(), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(
            call(
                "composed",
                vec![param(0, ek.clone()), param(1, vk.clone())],
                ek.clone(),
            ),
            field_target(2, literal_domain(&[("K", 1, NK as i64)])),
        )],
        vec![field_operator(
            "composed",
            positional_params(vec![ek.clone(), vk.clone()]),
            body,
        )],
    );
    let mut out = nan2(NE, NK);
    let mut args = vec![
        view(&edge, &[0, 0]),
        view(&vert, &[0, 0]),
        view_mut(&mut out, &[0, 0]),
    ];
    run_program(&prog, &mut args, &bind(&prog, &[&v2e, &e2v, &e2e])).expect("composed shifts run");
    drop(args);
    let (t, tv) = (e2e.table(), e2v.table());
    check2(&out, 0..NE, 1..NK, |i, k| {
        let sum: f64 = (0..2)
            .filter(|&j| t[[i, j]] >= 0)
            .map(|j| edge[[t[[i, j]] as usize, k]])
            .sum();
        sum + vert[[tv[[t[[i, 0]] as usize, 1]] as usize, k]]
    });
}

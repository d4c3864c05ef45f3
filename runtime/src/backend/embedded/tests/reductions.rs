//! Reductions over neighbours, with missing neighbours skipped.

use gt4rs_ir::build::*;
use gt4rs_ir::fieldview::{BinaryOp, ReduceOp, Role, Target};

use super::fixtures::*;
use crate::backend::embedded::run_program;

#[test]
fn neighbour_sum_max_and_min_skip_missing_neighbours() {
    let mut rng = rng();
    let (v2e, e2v) = tables(&mut rng);
    let edge = random2(&mut rng, NE, NK);
    let weights = random2(&mut rng, NV, 3);
    let vk = fty(&["Vertex", "K"]);
    let sparse = fty(&["Vertex", "V2E", "K"]);
    let product = binary(
        BinaryOp::Mul,
        neighbor_shift(param(0, fty(&["Edge", "K"])), "V2E", None, sparse.clone()),
        param(1, fty(&["Vertex", "V2E"])),
        sparse.clone(),
    );
    let body = tuple(vec![
        reduce(ReduceOp::Sum, "V2E", product.clone()),
        reduce(ReduceOp::Max, "V2E", product.clone()),
        reduce(ReduceOp::Min, "V2E", product),
    ]);
    let ret = body.ty.clone();
    let prog = test_program(
        vec![
            program_param("edge", fty(&["Edge", "K"]), Role::In),
            program_param("w", fty(&["Vertex", "V2E"]), Role::In),
            program_param("sum", vk.clone(), Role::Out),
            program_param("max", vk.clone(), Role::Out),
            program_param("min", vk.clone(), Role::Out),
        ],
        vec![write(
            call(
                "reductions",
                vec![
                    param(0, fty(&["Edge", "K"])),
                    param(1, fty(&["Vertex", "V2E"])),
                ],
                ret.clone(),
            ),
            Target::Tuple(vec![
                field_target(2, literal_domain(&[("Vertex", 0, NV as i64)])),
                field_target(3, literal_domain(&[("Vertex", 0, NV as i64)])),
                field_target(4, literal_domain(&[("Vertex", 0, NV as i64)])),
            ]),
        )],
        vec![field_operator(
            "reductions",
            positional_params(vec![fty(&["Edge", "K"]), fty(&["Vertex", "V2E"])]),
            body,
        )],
    );
    let (mut sum, mut max, mut min) = (nan2(NV, NK), nan2(NV, NK), nan2(NV, NK));
    let mut args = vec![
        view(&edge, &[0, 0]),
        view(&weights, &[0, 0]),
        view_mut(&mut sum, &[0, 0]),
        view_mut(&mut max, &[0, 0]),
        view_mut(&mut min, &[0, 0]),
    ];
    let tables = bind(&prog, &[&v2e, &e2v]);
    run_program(&prog, &mut args, &tables).expect("reductions run");
    drop(args);
    let table = v2e.table();
    let terms = |v: usize, k: usize| -> Vec<f64> {
        (0..3)
            .filter(|&j| table[[v, j]] >= 0)
            .map(|j| edge[[table[[v, j]] as usize, k]] * weights[[v, j]])
            .collect()
    };
    check2(&sum, 0..NV, 0..NK, |v, k| terms(v, k).iter().sum());
    check2(&max, 0..NV, 0..NK, |v, k| {
        terms(v, k).iter().fold(f64::MIN, |a, &b| a.max(b))
    });
    check2(&min, 0..NV, 0..NK, |v, k| {
        terms(v, k).iter().fold(f64::MAX, |a, &b| a.min(b))
    });
    // The last vertex has no neighbour at all: the reductions give their start values.
    assert_eq!(sum[[NV - 1, 0]], 0.0);
    assert_eq!(max[[NV - 1, 0]], f64::MIN);
    assert_eq!(min[[NV - 1, 0]], f64::MAX);
}

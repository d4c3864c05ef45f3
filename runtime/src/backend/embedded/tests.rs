//! Hand-built IR programs run by the embedded backend and compared with hand-written loops on
//! random data. Outputs are poisoned with NaN first, and points outside each domain must keep
//! the poison.

use gt4rs_ir::build::*;
use gt4rs_ir::fieldview::{
    BinaryOp, Expr, MathFun, Operator, Program, ProgramCall, ProgramParam, ReduceOp, Role, Target,
    UnaryOp,
};
use gt4rs_ir::{CmpOp, DimKind, ScalarType, Type};
use ndarray::{Array1, Array2, Array3};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::run_program;
use crate::args::{Arg, FieldView, FieldViewMut, ScalarValue};
use crate::connectivity::{Connectivity, ConnectivityTable};
use crate::dims::{Dimension, Offset};
use crate::error::Error;

const F64: ScalarType = ScalarType::F64;
const I32: ScalarType = ScalarType::I32;
const NV: usize = 7;
const NE: usize = 11;
const NK: usize = 5;

macro_rules! dim {
    ($t:ident, $kind:ident) => {
        #[derive(Clone, Copy, Default, Debug)]
        struct $t;
        impl Dimension for $t {
            const NAME: &'static str = stringify!($t);
            const KIND: DimKind = DimKind::$kind;
        }
    };
}
dim!(Vertex, Horizontal);
dim!(Edge, Horizontal);
dim!(V2E, Local);
dim!(E2V, Local);
dim!(E2E, Local);
dim!(E2C2V, Local);
impl Offset for E2C2V {
    type From = Edge;
    type To = Vertex;
    const COUNT: usize = 4;
}
impl Offset for E2E {
    type From = Edge;
    type To = Edge;
    const COUNT: usize = 2;
}
impl Offset for V2E {
    type From = Vertex;
    type To = Edge;
    const COUNT: usize = 3;
}
impl Offset for E2V {
    type From = Edge;
    type To = Vertex;
    const COUNT: usize = 2;
}

fn fty(dims: &[&str]) -> Type {
    Type::field(dims, F64)
}
fn ity(dims: &[&str]) -> Type {
    Type::field(dims, I32)
}

/// A program named `test_program` that declares the dimensions and offsets above (and `Cell`, `I`).
fn test_program(
    params: Vec<ProgramParam>,
    calls: Vec<ProgramCall>,
    operators: Vec<Operator>,
) -> Program {
    program(
        "test_program",
        params,
        calls,
        bundle(
            operators,
            &["Cell", "Edge", "Vertex", "I"],
            &["K"],
            &[
                offset("V2E", "Vertex", "Edge", 3),
                offset("E2V", "Edge", "Vertex", 2),
                offset("E2E", "Edge", "Edge", 2),
                offset("E2C2V", "Edge", "Vertex", 4),
            ],
        ),
    )
}

/// The tables `prog` uses, in its `used_offsets()` order.
fn bind<'t>(prog: &Program, all: &[&'t ConnectivityTable]) -> Vec<&'t ConnectivityTable> {
    prog.used_offsets()
        .iter()
        .map(|o| {
            *all.iter()
                .find(|t| t.offset() == o.name)
                .expect("test binds every table it uses")
        })
        .collect()
}

// ---- data ---------------------------------------------------------------------------------

fn rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(0x5eed_1234)
}
fn random2(rng: &mut ChaCha8Rng, n: usize, m: usize) -> Array2<f64> {
    Array2::from_shape_fn((n, m), |_| rng.random::<f64>() * 2.0 - 0.5)
}
fn nan2(n: usize, m: usize) -> Array2<f64> {
    Array2::from_elem((n, m), f64::NAN)
}
/// V2E with skip values (about one in four entries), E2V without.
fn tables(rng: &mut ChaCha8Rng) -> (Connectivity<V2E>, Connectivity<E2V>) {
    let mut v2e = Array2::from_shape_fn((NV, 3), |_| rng.random_range(0..NE as i32));
    for v in 0..NV {
        for j in 0..3 {
            if rng.random::<f64>() < 0.25 {
                v2e[[v, j]] = -1;
            }
        }
    }
    v2e[[0, 1]] = -1;
    v2e[[NV - 1, 0]] = -1;
    v2e[[NV - 1, 1]] = -1;
    v2e[[NV - 1, 2]] = -1;
    let e2v = Array2::from_shape_fn((NE, 2), |_| rng.random_range(0..NV as i32));
    (
        Connectivity::new(v2e, NE).expect("valid table"),
        Connectivity::new(e2v, NV).expect("valid table"),
    )
}

fn view<'a>(a: &'a Array2<f64>, origin: &'a [i64]) -> Arg<'a> {
    Arg::Field(FieldView::F64(a.view().into_dyn(), origin))
}
fn view_mut<'a>(a: &'a mut Array2<f64>, origin: &'a [i64]) -> Arg<'a> {
    Arg::FieldMut(FieldViewMut::F64(a.view_mut().into_dyn(), origin))
}

fn assert_close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-12 * want.abs().max(1.0),
        "{what}: got {got}, want {want}"
    );
}

/// Checks `out` against `want` inside `rows × levels` and NaN elsewhere.
fn check2(
    out: &Array2<f64>,
    rows: std::ops::Range<usize>,
    levels: std::ops::Range<usize>,
    want: impl Fn(usize, usize) -> f64,
) {
    for ((i, k), &x) in out.indexed_iter() {
        if rows.contains(&i) && levels.contains(&k) {
            assert_close(x, want(i, k), &format!("point ({i}, {k})"));
        } else {
            assert!(
                x.is_nan(),
                "point ({i}, {k}) outside the domain was written: {x}"
            );
        }
    }
}

// ---- tests --------------------------------------------------------------------------------

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
        message.contains("Vertex=") && message.contains("out"),
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

#[test]
fn concat_where_whose_defined_region_is_not_a_box_is_an_error() {
    let mut rng = rng();
    let a = random2(&mut rng, NE, 8);
    let ek = fty(&["Edge", "K"]);
    // True branch on K < 2 or K > 5 over 0..8; false branch a(K-4) defined on 4..12: the
    // union 0..2 ∪ 4..8 has a hole.
    let value = concat_where(
        domain_or(
            index_cmp("K", CmpOp::Lt, int(2)),
            index_cmp("K", CmpOp::Gt, int(5)),
        ),
        param(0, ek.clone()),
        cartesian_shift(param(0, ek.clone()), "K", -4),
        ek.clone(),
    );
    let prog = test_program(
        vec![
            program_param("a", ek.clone(), Role::In),
            program_param("out", ek.clone(), Role::Out),
        ],
        vec![write(value, whole_field(1))],
        vec![],
    );
    let mut out = nan2(NE, 8);
    let mut args = vec![view(&a, &[0, 0]), view_mut(&mut out, &[0, 0])];
    let err = run_program(&prog, &mut args, &[]).expect_err("holes are rejected");
    assert!(err.to_string().contains("box"), "{err}");
}

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
        err.to_string().contains(&format!("Edge=3, K={}", NK - 1)),
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

// ---- error paths ----------------------------------------------------------------------------

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

#[test]
fn scan_runs_over_the_written_levels_only() {
    let mut rng = rng();
    let x = random2(&mut rng, NE, NK);
    let ek = fty(&["Edge", "K"]);
    let s = Type::Scalar(F64);
    // carry' = carry * 0.75 + x, init 0.5: a scan written over K 2..NK starts at K = 2.
    let body = binary(
        BinaryOp::Add,
        binary(BinaryOp::Mul, param(0, s.clone()), float(0.75), s.clone()),
        param(1, s.clone()),
        s.clone(),
    );
    let scan = scan_operator(
        "decay",
        vec![
            operator_param("carry", s.clone()),
            operator_param("x", s.clone()),
        ],
        body,
        "K",
        true,
        float(0.5),
    );
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

/// ICON's forward sweep of the tridiagonal solve for w, written as the checker would lower it,
/// against ICON4Py's own output (`shared/refs`): scan with a tuple carry, K±1 shifts, fields
/// with nlev+1 levels and a domain starting at K = 1, against ICON4Py's reference data.
#[test]
fn icon_forward_sweep_matches_the_reference_data() {
    use ndarray::{ArrayD, IxDyn};
    use ndarray_npy::NpzReader;
    let Some(dir) = reference_data_dir() else {
        eprintln!(
            "skipped: no reference data (set GT4RS_REFS or keep shared/refs beside the checkout)"
        );
        return;
    };
    let path = std::path::Path::new(&dir).join("solve_tridiagonal_matrix_for_w_forward_sweep.npz");
    let Ok(file) = std::fs::File::open(&path) else {
        eprintln!("skipped: {} not found", path.display());
        return;
    };
    let mut npz = NpzReader::new(file).expect("npz");
    let mut load = |name: &str| -> ArrayD<f64> {
        npz.by_name::<ndarray::OwnedRepr<f64>, IxDyn>(name)
            .expect(name)
    };
    let names = [
        "vwind_impl_wgt",
        "theta_v_ic",
        "ddqz_z_half",
        "z_alpha",
        "z_beta",
        "z_w_expl",
        "z_exner_expl",
    ];
    let inputs: Vec<ArrayD<f64>> = names.iter().map(|n| load(n)).collect();
    let (mut z_q, mut w) = (load("z_q"), load("w"));
    let (want_q, want_w) = (load("out__z_q"), load("out__w"));
    let (dtime, cpd) = (load("dtime").sum(), load("cpd").sum());
    let ncell = inputs[0].len() as i64;
    let nlev = z_q.shape()[1] as i64;

    let ck = fty(&["Cell", "K"]);
    let c = fty(&["Cell"]);
    let s = Type::Scalar(F64);
    let mul = |a: Expr, b: Expr, ty: &Type| binary(BinaryOp::Mul, a, b, ty.clone());
    let neg = |a: Expr| unary(UnaryOp::Neg, a);
    let field = |n: u32| param(n, if n == 0 { c.clone() } else { ck.clone() });
    let gamma = binary(
        BinaryOp::Div,
        mul(
            mul(
                mul(param(7, s.clone()), param(8, s.clone()), &s),
                field(0),
                &c,
            ),
            field(1),
            &ck,
        ),
        field(2),
        ck.clone(),
    );
    let g = || var(0, ck.clone());
    let (alpha, beta) = (|| field(3), || field(4));
    let a = mul(
        mul(neg(g()), cartesian_shift(beta(), "K", -1), &ck),
        cartesian_shift(alpha(), "K", -1),
        &ck,
    );
    let cc = mul(
        mul(neg(g()), beta(), &ck),
        cartesian_shift(alpha(), "K", 1),
        &ck,
    );
    let b = binary(
        BinaryOp::Add,
        float(1.0),
        mul(
            mul(g(), alpha(), &ck),
            binary(
                BinaryOp::Add,
                cartesian_shift(beta(), "K", -1),
                beta(),
                ck.clone(),
            ),
            &ck,
        ),
        ck.clone(),
    );
    let d = binary(
        BinaryOp::Sub,
        field(5),
        mul(
            g(),
            binary(
                BinaryOp::Sub,
                cartesian_shift(field(6), "K", -1),
                field(6),
                ck.clone(),
            ),
            &ck,
        ),
        ck.clone(),
    );
    let pair = Type::Tuple(vec![ck.clone(), ck.clone()]);
    let fo_body = let_(0, gamma, call("sweep", vec![a, b, cc, d], pair.clone()));
    let carry = Type::Tuple(vec![s.clone(), s.clone()]);
    let norm = || var(0, s.clone());
    let scan_body = let_(
        0,
        binary(
            BinaryOp::Div,
            float(1.0),
            binary(
                BinaryOp::Add,
                param(2, s.clone()),
                mul(
                    param(1, s.clone()),
                    tuple_get(param(0, carry.clone()), 0),
                    &s,
                ),
                s.clone(),
            ),
            s.clone(),
        ),
        tuple(vec![
            mul(neg(param(3, s.clone())), norm(), &s),
            mul(
                binary(
                    BinaryOp::Sub,
                    param(4, s.clone()),
                    mul(
                        param(1, s.clone()),
                        tuple_get(param(0, carry.clone()), 1),
                        &s,
                    ),
                    s.clone(),
                ),
                norm(),
                &s,
            ),
        ]),
    );
    let sweep = Operator {
        name: "tridiagonal_forward_sweep_for_w".into(),
        ..scan_operator(
            "sweep",
            ["state", "a", "b", "c", "d"]
                .iter()
                .enumerate()
                .map(|(i, n)| operator_param(n, if i == 0 { carry.clone() } else { s.clone() }))
                .collect(),
            scan_body,
            "K",
            true,
            tuple(vec![float(0.0), float(0.0)]),
        )
    };
    let mut fo_params: Vec<Type> = vec![c.clone()];
    fo_params.extend(std::iter::repeat_n(ck.clone(), 6));
    fo_params.extend([s.clone(), s.clone()]);
    let fo = field_operator("forward_sweep", positional_params(fo_params), fo_body);
    let mut params: Vec<ProgramParam> = names
        .iter()
        .enumerate()
        .map(|(i, n)| program_param(n, if i == 0 { c.clone() } else { ck.clone() }, Role::In))
        .collect();
    params.push(program_param("z_q", ck.clone(), Role::Out));
    params.push(program_param("w", ck.clone(), Role::Out));
    params.push(program_param("dtime", s.clone(), Role::In));
    params.push(program_param("cpd", s.clone(), Role::In));
    for n in [
        "horizontal_start",
        "horizontal_end",
        "vertical_start",
        "vertical_end",
    ] {
        params.push(program_param(n, Type::Scalar(I32), Role::In));
    }
    let bound = |n: u32| param(n, Type::Scalar(I32));
    let domain = || {
        vec![
            range("Cell", bound(11), bound(12)),
            range("K", bound(13), bound(14)),
        ]
    };
    let mut call_args: Vec<Expr> = (0..7).map(field).collect();
    call_args.extend([param(9, s.clone()), param(10, s.clone())]);
    let prog = test_program(
        params,
        vec![write(
            call("forward_sweep", call_args, pair),
            Target::Tuple(vec![field_target(7, domain()), field_target(8, domain())]),
        )],
        vec![sweep, fo],
    );
    let origin2: &[i64] = &[0, 0];
    let mut args: Vec<Arg<'_>> = inputs
        .iter()
        .enumerate()
        .map(|(i, a)| {
            Arg::Field(FieldView::F64(
                a.view(),
                if i == 0 { &origin2[..1] } else { origin2 },
            ))
        })
        .collect();
    args.push(Arg::FieldMut(FieldViewMut::F64(z_q.view_mut(), origin2)));
    args.push(Arg::FieldMut(FieldViewMut::F64(w.view_mut(), origin2)));
    args.push(Arg::Scalar(ScalarValue::F64(dtime)));
    args.push(Arg::Scalar(ScalarValue::F64(cpd)));
    for v in [0, ncell, 1, nlev] {
        args.push(Arg::Scalar(ScalarValue::I32(v as i32)));
    }
    run_program(&prog, &mut args, &[]).expect("forward sweep runs");
    drop(args);
    for (got, want, name) in [(&z_q, &want_q, "z_q"), (&w, &want_w, "w")] {
        for ((idx, &x), &y) in got.indexed_iter().zip(want.iter()) {
            assert!(
                (x - y).abs() <= 1e-12 * y.abs().max(1e-300) || x == y,
                "{name}{:?}: got {x}, want {y}",
                ndarray::Dimension::slice(&idx)
            );
        }
    }
}

/// ICON's `apply_diffusion_to_vn` (limited-area variant) as the checker would lower it, against
/// ICON4Py's output: E2C2V gathers with slot indexing of shifted and sparse fields, a scalar
/// `if` on `limited_area`, `concat_where` on the edge index and an in-place update of `vn` over
/// the partial edge domain, against ICON4Py's reference data.
#[test]
fn icon_apply_diffusion_to_vn_matches_the_reference_data() {
    use ndarray::{ArrayD, IxDyn, OwnedRepr};
    use ndarray_npy::NpzReader;
    let Some(dir) = reference_data_dir() else {
        eprintln!(
            "skipped: no reference data (set GT4RS_REFS or keep shared/refs beside the checkout)"
        );
        return;
    };
    let path = std::path::Path::new(&dir).join("apply_diffusion_to_vn.npz");
    let mut npz = NpzReader::new(std::fs::File::open(&path).expect("reference file")).expect("npz");
    let names = [
        "u_vert",
        "v_vert",
        "primal_normal_vert_v1",
        "primal_normal_vert_v2",
        "z_nabla2_e",
        "inv_vert_vert_length",
        "inv_primal_edge_length",
        "area_edge",
        "kh_smag_e",
        "diff_multfac_vn",
        "nudgecoeff_e",
        "vn",
        "nudgezone_diff",
        "fac_bdydiff_v",
    ];
    let mut data: Vec<ArrayD<f64>> = names
        .iter()
        .map(|n| npz.by_name::<OwnedRepr<f64>, IxDyn>(n).expect(n))
        .collect();
    let want = npz
        .by_name::<OwnedRepr<f64>, IxDyn>("out__vn")
        .expect("out__vn");
    let read_int = |npz: &mut NpzReader<std::fs::File>, n: &str| -> i32 {
        npz.by_name::<OwnedRepr<i32>, IxDyn>(n).expect(n).sum()
    };
    let nudge_index = read_int(&mut npz, "start_2nd_nudge_line_idx_e");
    let bounds: Vec<i32> = [
        "horizontal_start",
        "horizontal_end",
        "vertical_start",
        "vertical_end",
    ]
    .iter()
    .map(|n| read_int(&mut npz, n))
    .collect();
    let limited_area = npz
        .by_name::<OwnedRepr<bool>, IxDyn>("limited_area")
        .expect("limited_area")
        .iter()
        .all(|&b| b);
    let table = npz
        .by_name::<OwnedRepr<i32>, ndarray::Ix2>("E2C2V")
        .expect("E2C2V");
    let e2c2v = Connectivity::<E2C2V>::new(table, data[0].shape()[0]).expect("valid table");

    let ek = fty(&["Edge", "K"]);
    let vk = fty(&["Vertex", "K"]);
    let sparse_ty = fty(&["Edge", "E2C2V"]);
    let edge = fty(&["Edge"]);
    let s = Type::Scalar(F64);
    let types: Vec<Type> = vec![
        vk.clone(),
        vk.clone(),
        sparse_ty.clone(),
        sparse_ty.clone(),
        ek.clone(),
        edge.clone(),
        edge.clone(),
        edge.clone(),
        ek.clone(),
        fty(&["K"]),
        edge.clone(),
        ek.clone(),
        s.clone(),
        s.clone(),
        Type::Scalar(I32),
        Type::Scalar(ScalarType::Bool),
    ];
    let arg = |n: u32| param(n, types[n as usize].clone());
    let add = |a: Expr, b: Expr| binary(BinaryOp::Add, a, b, ek.clone());
    let sub = |a: Expr, b: Expr| binary(BinaryOp::Sub, a, b, ek.clone());
    let mul = |a: Expr, b: Expr| {
        let ty = if a.ty == s && b.ty == s {
            s.clone()
        } else if a.ty == edge && b.ty == edge {
            edge.clone()
        } else {
            ek.clone()
        };
        binary(BinaryOp::Mul, a, b, ty)
    };
    let slot = |a: Expr, j: u32| local_index(a, "E2C2V", j);
    let gathered = |n: u32| neighbor_shift(arg(n), "E2C2V", None, fty(&["Edge", "E2C2V", "K"]));
    let term = |j: u32| {
        add(
            mul(slot(gathered(0), j), slot(arg(2), j)),
            mul(slot(gathered(1), j), slot(arg(3), j)),
        )
    };
    let squared = |n: u32| math(MathFun::Powi, vec![arg(n), int(2)], edge.clone());
    let nabla4 = mul(
        float(4.0),
        add(
            mul(
                sub(add(term(2), term(3)), mul(float(2.0), arg(4))),
                squared(5),
            ),
            mul(
                sub(add(term(0), term(1)), mul(float(2.0), arg(4))),
                squared(6),
            ),
        ),
    );
    let n4 = || var(0, ek.clone());
    let max = math(
        MathFun::Max,
        vec![mul(arg(12), arg(10)), arg(8)],
        ek.clone(),
    );
    let interior = add(
        arg(11),
        mul(
            arg(7),
            sub(mul(max, arg(4)), mul(mul(arg(9), n4()), arg(7))),
        ),
    );
    let boundary = add(arg(11), mul(mul(arg(4), arg(7)), arg(13)));
    let global = add(
        arg(11),
        mul(
            arg(7),
            sub(mul(arg(8), arg(4)), mul(mul(arg(9), n4()), arg(7))),
        ),
    );
    let from_nudge_line = || index_cmp("Edge", CmpOp::Ge, arg(14));
    let concat = |a: Expr, b: Expr| concat_where(from_nudge_line(), a, b, ek.clone());
    let body = let_(
        0,
        nabla4,
        if_else(
            arg(15),
            concat(interior, boundary),
            concat(global, arg(11)),
            ek.clone(),
        ),
    );
    let mut params: Vec<ProgramParam> = names
        .iter()
        .zip(&types)
        .map(|(n, t)| {
            program_param(
                n,
                t.clone(),
                if *n == "vn" { Role::InOut } else { Role::In },
            )
        })
        .collect();
    params.push(program_param(
        "start_2nd_nudge_line_idx_e",
        Type::Scalar(I32),
        Role::In,
    ));
    params.push(program_param(
        "limited_area",
        Type::Scalar(ScalarType::Bool),
        Role::In,
    ));
    for n in [
        "horizontal_start",
        "horizontal_end",
        "vertical_start",
        "vertical_end",
    ] {
        params.push(program_param(n, Type::Scalar(I32), Role::In));
    }
    let bound = |n: u32| param(n, Type::Scalar(I32));
    let prog = test_program(
        params,
        vec![write(
            call(
                "apply_diffusion_to_vn",
                (0..16).map(arg).collect(),
                ek.clone(),
            ),
            field_target(
                11,
                vec![
                    range("Edge", bound(16), bound(17)),
                    range("K", bound(18), bound(19)),
                ],
            ),
        )],
        vec![field_operator(
            "apply_diffusion_to_vn",
            positional_params(types.clone()),
            body,
        )],
    );
    let mut vn = std::mem::take(&mut data[11]);
    let origins: Vec<Vec<i64>> = data.iter().map(|a| vec![0; a.ndim()]).collect();
    let vn_origin = [0i64, 0];
    let mut args: Vec<Arg<'_>> = Vec::new();
    for (i, a) in data.iter().enumerate().take(11) {
        args.push(Arg::Field(FieldView::F64(a.view(), &origins[i])));
    }
    args.push(Arg::FieldMut(FieldViewMut::F64(vn.view_mut(), &vn_origin)));
    args.push(Arg::Scalar(ScalarValue::F64(data[12].sum())));
    args.push(Arg::Scalar(ScalarValue::F64(data[13].sum())));
    args.push(Arg::Scalar(ScalarValue::I32(nudge_index)));
    args.push(Arg::Scalar(ScalarValue::Bool(limited_area)));
    for b in &bounds {
        args.push(Arg::Scalar(ScalarValue::I32(*b)));
    }
    run_program(&prog, &mut args, &bind(&prog, &[&e2c2v])).expect("apply_diffusion_to_vn runs");
    drop(args);
    for ((idx, &x), &y) in vn.indexed_iter().zip(want.iter()) {
        assert!(
            (x - y).abs() <= 1e-12 * y.abs().max(1e-300) || x == y,
            "vn{:?}: got {x}, want {y}",
            ndarray::Dimension::slice(&idx)
        );
    }
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

/// `GT4RS_REFS`, else the `shared/refs` folder beside the checkout.
fn reference_data_dir() -> Option<std::path::PathBuf> {
    if let Some(dir) = std::env::var_os("GT4RS_REFS") {
        return Some(dir.into());
    }
    let beside = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/refs");
    beside.is_dir().then_some(beside)
}

/// A scan in a `concat_where` branch whose region has a hole (K == 2) and depends on the column
/// (Edge < 3 takes the other branch): its carry starts again from `init` after the hole.
#[test]
fn scan_in_a_branch_restarts_after_every_level_outside_its_region() {
    let mut rng = rng();
    let x = random2(&mut rng, NE, NK);
    let ek = fty(&["Edge", "K"]);
    let s = Type::Scalar(F64);
    let body = binary(
        BinaryOp::Add,
        binary(BinaryOp::Mul, param(0, s.clone()), float(0.75), s.clone()),
        param(1, s.clone()),
        s.clone(),
    );
    let scan = scan_operator(
        "decay",
        vec![
            operator_param("carry", s.clone()),
            operator_param("x", s.clone()),
        ],
        body,
        "K",
        true,
        float(0.5),
    );
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

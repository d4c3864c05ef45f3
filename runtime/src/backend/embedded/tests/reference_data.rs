//! ICON stencils written as the checker would lower them, against ICON4Py's own outputs.

use gt4rs_ir::build::*;
use gt4rs_ir::fieldview::{BinaryOp, Expr, MathFun, Operator, ProgramParam, Role, Target, UnaryOp};
use gt4rs_ir::{CmpOp, ScalarType, Type};

use super::fixtures::*;
use crate::args::{Arg, FieldView, FieldViewMut, ScalarValue};
use crate::backend::embedded::run_program;
use crate::connectivity::Connectivity;
use refs::icon4py_ref;

// gt4rs-tests, which holds the lookup of the reference data, depends on this crate: its source
// is compiled here instead (these tests read named files; the listing of a folder goes unused).
#[path = "../../../../../tests/src/refs.rs"]
#[allow(dead_code)]
mod refs;

/// ICON's forward sweep of the tridiagonal solve for w, written as the checker would lower it,
/// against ICON4Py's own output (`refs/icon4py`): scan with a tuple carry, K±1 shifts, fields
/// with nlev+1 levels and a domain starting at K = 1, against ICON4Py's reference data.
#[test]
fn icon_forward_sweep_matches_the_reference_data() {
    use ndarray::{ArrayD, IxDyn};
    use ndarray_npy::NpzReader;
    let path = icon4py_ref("solve_tridiagonal_matrix_for_w_forward_sweep");
    let mut npz = NpzReader::new(std::fs::File::open(&path).expect("reference file")).expect("npz");
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
    let path = icon4py_ref("apply_diffusion_to_vn");
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

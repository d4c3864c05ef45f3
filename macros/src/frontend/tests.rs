//! Unit tests of the checker on `parse_quote!` items and a hand-built environment.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{parse_quote, ItemFn};

use gt4rs_ir::fieldview::{
    Bundle, DomainCond, Expr, ExprKind, Literal, Operator, OperatorKind, Program, Role, Target,
};
use gt4rs_ir::{CmpOp, DimInfo, DimKind, OffsetInfo, ScalarType, Type};

use super::{check_operator, check_program};
use crate::definitions::{Def, Env, ItemKind};

fn dim(env: &mut Env, name: &str, kind: DimKind) {
    let info = DimInfo {
        name: name.into(),
        kind,
    };
    env.bundle.dims.push(info.clone());
    env.names.insert(name.into(), Def::Dim(info));
}

fn offset(env: &mut Env, name: &str, from: &str, to: &str, count: u32) {
    let info = OffsetInfo {
        name: name.into(),
        key: String::new(),
        from: from.into(),
        to: to.into(),
        count,
        skip_values: true,
    };
    env.bundle.offsets.push(info.clone());
    env.names.insert(name.into(), Def::Offset(info));
}

fn icon_env() -> Env {
    let mut env = Env::default();
    for d in ["Cell", "Edge", "Vertex", "I", "J"] {
        dim(&mut env, d, DimKind::Horizontal);
    }
    dim(&mut env, "K", DimKind::Vertical);
    offset(&mut env, "E2C", "Edge", "Cell", 2);
    offset(&mut env, "E2C2V", "Edge", "Vertex", 4);
    env
}

fn add_operator(env: &mut Env, op: Operator) {
    let mut bundle = Bundle {
        operators: vec![op.clone()],
        ..Bundle::default()
    };
    bundle.merge(&env.bundle);
    env.bundle.merge(&bundle);
    env.names.insert(
        op.name.clone(),
        Def::Operator {
            key: op.key.clone(),
            bundle,
        },
    );
}

fn field_op(env: &Env, func: ItemFn) -> syn::Result<Operator> {
    let key = format!("{}_key", func.sig.ident);
    check_operator(
        ItemKind::FieldOperator,
        &TokenStream::new(),
        &func,
        env,
        &key,
    )
}

fn scan_op(env: &Env, attr: TokenStream, func: ItemFn) -> syn::Result<Operator> {
    let key = format!("{}_key", func.sig.ident);
    check_operator(ItemKind::ScanOperator, &attr, &func, env, &key)
}

fn error_count(e: &syn::Error) -> usize {
    e.clone().into_iter().count()
}

fn messages(e: &syn::Error) -> Vec<String> {
    e.clone().into_iter().map(|e| e.to_string()).collect()
}

/// The first sub-expression (parents first) matching `pred`.
fn find(e: &Expr, pred: impl Fn(&Expr) -> bool) -> Option<&Expr> {
    let mut found = None;
    e.walk(&mut |x| {
        if found.is_none() && pred(x) {
            found = Some(x);
        }
    });
    found
}

fn edge_k(dtype: ScalarType) -> Type {
    Type::field(&["Edge", "K"], dtype)
}

#[test]
fn unsuffixed_float_literal_takes_the_other_operands_type() {
    let env = icon_env();
    let op = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(Edge, K), f32>) -> Field<(Edge, K), f32> { 2.0 * a }
        },
    )
    .expect("checks");
    let lit = find(&op.body, |e| matches!(e.kind, ExprKind::Literal(_))).expect("literal");
    assert_eq!(lit.ty, Type::Scalar(ScalarType::F32));
    assert_eq!(lit.kind, ExprKind::Literal(Literal::float(2.0)));
    assert_eq!(op.ret, edge_k(ScalarType::F32));
}

#[test]
fn lone_literals_default_to_f64_and_i32() {
    let env = icon_env();
    let op = field_op(
        &env,
        parse_quote! {
            fn f(n: i64) -> (f64, i32, i64, f32) { (1e-3, 3, n + 7, 2.5f32) }
        },
    )
    .expect("checks");
    assert_eq!(
        op.body.ty,
        Type::Tuple(vec![
            Type::Scalar(ScalarType::F64),
            Type::Scalar(ScalarType::I32),
            Type::Scalar(ScalarType::I64),
            Type::Scalar(ScalarType::F32),
        ])
    );
}

#[test]
fn integer_literal_next_to_a_float_is_an_error() {
    let env = icon_env();
    let err = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> { a * 2 }
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("write `2.0`"), "{err}");
}

#[test]
fn suffixed_literals_are_fixed() {
    let env = icon_env();
    let err = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(Edge, K), f32>) -> Field<(Edge, K), f32> { a * 2.0f64 }
        },
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("mismatched element types"),
        "{err}"
    );
}

#[test]
fn dimensions_promote_to_the_canonical_union() {
    let env = icon_env();
    let op = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<K, f64>, b: Field<Edge, f64>) -> Field<(Edge, K), f64> { a * b }
        },
    )
    .expect("checks");
    assert_eq!(op.body.ty, edge_k(ScalarType::F64));
}

#[test]
fn neighbour_shift_adds_the_local_dimension_and_reduction_removes_it() {
    let env = icon_env();
    let op = field_op(
        &env,
        parse_quote! {
            fn f(u: Field<(Vertex, K), f64>, w: Field<(Edge, E2C2V), f64>) -> Field<(Edge, K), f64> {
                let p = u.at(E2C2V) * w;
                neighbor_sum(p, E2C2V) + p[E2C2V(3)] + u.at(E2C2V[1])
            }
        },
    )
    .expect("checks");
    let shift = find(&op.body, |e| {
        matches!(e.kind, ExprKind::NeighborShift { slot: None, .. })
    })
    .expect("full shift");
    assert_eq!(
        shift.ty,
        Type::field(&["Edge", "E2C2V", "K"], ScalarType::F64)
    );
    let slot = find(&op.body, |e| {
        matches!(e.kind, ExprKind::NeighborShift { slot: Some(1), .. })
    })
    .expect("slot shift");
    assert_eq!(slot.ty, edge_k(ScalarType::F64));
    let index = find(&op.body, |e| {
        matches!(e.kind, ExprKind::LocalIndex { slot: 3, .. })
    })
    .expect("local index");
    assert_eq!(index.ty, edge_k(ScalarType::F64));
}

#[test]
fn cartesian_and_dynamic_shifts() {
    let env = icon_env();
    let op = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(I, J, K), f64>, off: Field<(I, J, K), i32>) -> Field<(I, J, K), f64> {
                a.at((I + 1, J - 2)) + a.at(K - off)
            }
        },
    )
    .expect("checks");
    let mut offsets = Vec::new();
    op.body.walk(&mut |e| {
        if let ExprKind::CartesianShift { dim, offset, .. } = &e.kind {
            offsets.push((dim.clone(), *offset));
        }
    });
    offsets.sort();
    assert_eq!(offsets, [("I".to_string(), 1), ("J".to_string(), -2)]);
    let dynamic = find(&op.body, |e| {
        matches!(e.kind, ExprKind::DynamicShift { .. })
    })
    .expect("dynamic shift");
    let ExprKind::DynamicShift { dim, offset, .. } = &dynamic.kind else {
        unreachable!()
    };
    assert_eq!(dim, "K");
    assert!(matches!(offset.kind, ExprKind::Unary { .. }));
}

#[test]
fn concat_where_normalises_the_dimension_to_the_left() {
    let env = icon_env();
    let op = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(Edge, K), f64>, nlev: i32) -> Field<(Edge, K), f64> {
                concat_where((0 < K) & (K < nlev - 1), a, 0.0)
            }
        },
    )
    .expect("checks");
    let ExprKind::ConcatWhere { cond, if_false, .. } = &op.body.kind else {
        panic!("concat_where expected, got {:?}", op.body.kind);
    };
    let DomainCond::And(l, r) = cond else {
        panic!("and expected")
    };
    let DomainCond::Cmp { dim, op: cmp, .. } = &**l else {
        panic!("cmp expected")
    };
    assert_eq!((dim.as_str(), *cmp), ("K", CmpOp::Gt));
    assert!(matches!(&**r, DomainCond::Cmp { op: CmpOp::Lt, .. }));
    assert_eq!(if_false.ty, Type::Scalar(ScalarType::F64));
}

#[test]
fn tuples_lets_and_if() {
    let env = icon_env();
    let op = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(Edge, K), f64>, flag: bool, s: f64) -> (Field<(Edge, K), f64>, f64) {
                let (x, y): (Field<(Edge, K), f64>, f64) = (a, s);
                let z = if flag { y.max(0.0) } else if !flag { f64::min(y, 1.0) } else { -y };
                return (select(x > z, x, z), z as f32 as f64);
            }
        },
    )
    .expect("checks");
    assert_eq!(
        op.ret,
        Type::Tuple(vec![edge_k(ScalarType::F64), Type::Scalar(ScalarType::F64)])
    );
    assert!(matches!(op.body.kind, ExprKind::Let { .. }));
    assert!(find(&op.body, |e| matches!(e.kind, ExprKind::IfElse { .. })).is_some());
}

#[test]
fn every_error_of_an_item_is_reported() {
    let env = icon_env();
    let err = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(Edge, K), f64>, b: Field<(Edge, K), f32>) -> Field<(Edge, K), f64> {
                let x = a + b;
                let y = unknown * 2.0;
                let z = (a > 0.0) && (a < 1.0);
                a
            }
        },
    )
    .unwrap_err();
    assert_eq!(error_count(&err), 3, "{:?}", messages(&err));
}

#[test]
fn canonical_order_and_unknown_dimensions_are_errors() {
    let env = icon_env();
    let err = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(K, Edge), f64>, b: Field<(Edge, Nope), f64>) -> Field<(Edge, K), f64> { a }
        },
    )
    .unwrap_err();
    let msgs = messages(&err);
    assert!(
        msgs.iter().any(|m| m.contains("canonical order")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| m.contains("unknown dimension `Nope`")),
        "{msgs:?}"
    );
}

#[test]
fn scan_operator_and_its_call() {
    let mut env = icon_env();
    let scan = scan_op(
        &env,
        quote!(axis = K, forward = false, init = (0.0, 1.0)),
        parse_quote! {
            fn s(state: (f64, f64), a: f64, b: f64) -> (f64, f64) {
                (state.0 + a, state.1 * b)
            }
        },
    )
    .expect("scan checks");
    let OperatorKind::Scan {
        axis,
        forward,
        init,
    } = &scan.kind
    else {
        panic!("scan kind")
    };
    assert_eq!((axis.as_str(), *forward), ("K", false));
    assert_eq!(init.ty, scan.ret);
    add_operator(&mut env, scan);
    let caller = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(Cell, K), f64>) -> (Field<(Cell, K), f64>, Field<(Cell, K), f64>) {
                s(a, 2.0)
            }
        },
    )
    .expect("caller checks");
    let ExprKind::Call { callee, args } = &caller.body.kind else {
        panic!("call expected")
    };
    assert_eq!(callee, "s_key");
    assert_eq!(args[1].ty, Type::Scalar(ScalarType::F64));
    let no_axis = field_op(
        &env,
        parse_quote! {
            fn g(a: Field<Cell, f64>) -> (Field<Cell, f64>, Field<Cell, f64>) { s(a, a) }
        },
    )
    .unwrap_err();
    assert!(no_axis.to_string().contains("runs along `K`"), "{no_axis}");
}

#[test]
fn scan_rules_are_enforced() {
    let env = icon_env();
    let err = scan_op(
        &env,
        quote!(axis = Edge, init = 0.0),
        parse_quote! {
            fn s(state: f32, x: Field<Cell, f64>) -> f64 { state }
        },
    )
    .unwrap_err();
    let msgs = messages(&err);
    assert!(msgs.iter().any(|m| m.contains("vertical")), "{msgs:?}");
    assert!(msgs.iter().any(|m| m.contains("carry `state`")), "{msgs:?}");
    assert!(
        msgs.iter()
            .any(|m| m.contains("after the carry are scalars")),
        "{msgs:?}"
    );
}

fn program(env: &Env, func: ItemFn) -> syn::Result<Program> {
    check_program(&TokenStream::new(), &func, env)
}

fn env_with_double() -> Env {
    let mut env = icon_env();
    let double = field_op(
        &env,
        parse_quote! {
            fn double(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> { 2.0 * a }
        },
    )
    .expect("checks");
    add_operator(&mut env, double);
    let shifted = field_op(
        &env,
        parse_quote! {
            fn up(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> { a.at(K + 1) }
        },
    )
    .expect("checks");
    add_operator(&mut env, shifted);
    let wrapper = field_op(
        &env,
        parse_quote! {
            fn wrap(x: Field<(Edge, K), f64>, y: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
                let t = y;
                double(x) + up(t)
            }
        },
    )
    .expect("checks");
    add_operator(&mut env, wrapper);
    env
}

#[test]
fn program_roles_targets_and_domains() {
    let env = env_with_double();
    let p = program(
        &env,
        parse_quote! {
            fn p(a: &Field<(Edge, K), f64>, b: &mut Field<(Edge, K), f64>,
                 c: &mut Field<(Edge, K), f64>, #[static_arg] n: i32) {
                double(a).write_to(b, domain![Edge: 0..n, K: 1..(n - 1).max(2)]);
                double(b).write_to(c);
            }
        },
    )
    .expect("program checks");
    let roles: Vec<Role> = p.params.iter().map(|p| p.role).collect();
    assert_eq!(roles, [Role::In, Role::InOut, Role::Out, Role::In]);
    assert!(p.params[3].is_static);
    let Target::Field { param, domain } = &p.calls[0].target else {
        panic!("field target")
    };
    assert_eq!(*param, 1);
    assert_eq!(domain.len(), 2);
    assert_eq!(domain[1].dim, "K");
    let Target::Field { domain, .. } = &p.calls[1].target else {
        panic!("field target")
    };
    assert!(domain.is_empty());
    assert!(p.bundle.operator("double_key").is_some());
}

/// A call may read the field it writes through a shift (the fused backends read a copy made
/// before the call): the checker accepts it.
#[test]
fn output_read_shifted_through_a_callee_is_accepted() {
    let env = env_with_double();
    let p = program(
        &env,
        parse_quote! {
            fn p(a: &Field<(Edge, K), f64>, b: &mut Field<(Edge, K), f64>) {
                wrap(b, a).write_to(b);
                wrap(a, b).write_to(b);
            }
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.calls.len(), 2);
}

#[test]
fn program_errors() {
    let env = env_with_double();
    let err = program(
        &env,
        parse_quote! {
            fn p(a: &Field<(Edge, K), f64>, out: &Field<(Edge, K), f64>,
                 o2: &mut Field<(Edge, K), f64>, #[static_arg] f: &Field<Edge, f64>, x: f64) {
                double(a);
                double(a).write_to(out);
                double(a).write_to(o2, domain![Cell: 0..1]);
                double(a).write_to(o2, domain![Edge: 0..x]);
            }
        },
    )
    .unwrap_err();
    let msgs = messages(&err);
    assert_eq!(msgs.len(), 5, "{msgs:?}");
    assert!(msgs.iter().any(|m| m.contains("static_arg")), "{msgs:?}");
    assert!(
        msgs.iter().any(|m| m.contains("not written anywhere")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| m.contains("cannot write to `out`")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("not a dimension of the output")),
        "{msgs:?}"
    );
    assert!(msgs.iter().any(|m| m.contains("domain bound")), "{msgs:?}");
}

#[test]
fn literal_branch_of_if_takes_the_other_branchs_type() {
    let env = icon_env();
    let op = field_op(
        &env,
        parse_quote! {
            fn f(x: f32, c: bool) -> f32 { let y = if c { 0.0 } else { x }; y }
        },
    )
    .expect("checks");
    assert_eq!(op.ret, Type::Scalar(ScalarType::F32));
    let lit = find(&op.body, |e| matches!(e.kind, ExprKind::Literal(_))).expect("literal");
    assert_eq!(lit.ty, Type::Scalar(ScalarType::F32));
}

#[test]
fn malformed_operators_are_errors_not_panics() {
    let env = env_with_double();
    let bodies: Vec<syn::Block> = vec![
        parse_quote!({}),
        parse_quote!({
            let x = a;
        }),
        parse_quote!({
            return;
        }),
        parse_quote!({ a.at() }),
        parse_quote!({ a.at(E2C, E2C) }),
        parse_quote!({ a.at(K + 1.5) }),
        parse_quote!({ a.at(K + a) }),
        parse_quote!({ a.at(E2C[a]) }),
        parse_quote!({ a.at(E2C[99999999999999999999]) }),
        parse_quote!({ a[0] }),
        parse_quote!({ a[E2C(-1)] }),
        parse_quote!({ a.0 }),
        parse_quote!({ (a, a).7 }),
        parse_quote!({ a.name }),
        parse_quote!({ neighbor_sum(a) }),
        parse_quote!({ neighbor_sum(a, a) }),
        parse_quote!({ select(true) }),
        parse_quote!({ broadcast(a, (Edge,)) }),
        parse_quote!({ broadcast(a, 3) }),
        parse_quote!({ concat_where(a, a, a) }),
        parse_quote!({ concat_where(K, a, a) }),
        parse_quote!({ concat_where(K > 1.0, a, a) }),
        parse_quote!({ gamma() }),
        parse_quote!({ f64::frobnicate(a) }),
        parse_quote!({ f64::max() }),
        parse_quote!({ a.max() }),
        parse_quote!({ a.powi(2.0) }),
        parse_quote!({ a.frobnicate() }),
        parse_quote!({ a.write_to(a) }),
        parse_quote!({ double() }),
        parse_quote!({ K(a) }),
        parse_quote!({ (a.at)(E2C) }),
        parse_quote!({ a as Field<Edge, f64> }),
        parse_quote!({ (a, a) as f64 }),
        parse_quote!({ -(a, a) }),
        parse_quote!({ *a }),
        parse_quote!({ a << a }),
        parse_quote!({
            if a {
                a
            }
        }),
        parse_quote!({
            if true {
                a
            } else {
                (a, a)
            }
        }),
        parse_quote!({
            let (x, y) = a;
            x
        }),
        parse_quote!({
            let [x] = a;
            x
        }),
        parse_quote!({
            let x;
            a
        }),
        parse_quote!({ 99999999999 + a }),
        parse_quote!({ 1u8 }),
        parse_quote!({ "text" }),
        parse_quote!({ () }),
        parse_quote!({ [a] }),
        parse_quote!({ loop {} }),
        parse_quote!({ a? }),
        parse_quote!({
            fn inner() {}
            a
        }),
        parse_quote!({
            println!("x");
            a
        }),
        parse_quote!({
            a;
        }),
    ];
    for body in bodies {
        let func: ItemFn = parse_quote! {
            fn f(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> #body
        };
        let text = quote!(#body).to_string();
        match field_op(&env, func) {
            Err(e) => assert!(error_count(&e) >= 1, "{text}"),
            Ok(op) => panic!("`{text}` was accepted: {:?}", op.body),
        }
    }
}

#[test]
fn malformed_programs_are_errors_not_panics() {
    let env = env_with_double();
    let bodies: Vec<syn::Block> = vec![
        parse_quote!({ double(a).write_to() }),
        parse_quote!({ double(a).write_to(b, domain![Edge: 0..1], 3) }),
        parse_quote!({ double(a).write_to((b, b)) }),
        parse_quote!({ (double(a), a).write_to((b, b)) }),
        parse_quote!({ double(a).write_to(b, (domain![Edge: 0..1], domain![K: 0..1])) }),
        parse_quote!({ double(a).write_to(b, domain![Edge: 0..=1]) }),
        parse_quote!({ double(a).write_to(b, domain![Edge: ..1]) }),
        parse_quote!({ double(a).write_to(b, domain![Edge 0..1]) }),
        parse_quote!({ double(a).write_to(b, domain![Edge: 0..1, Edge: 0..2]) }),
        parse_quote!({ double(a).write_to(b, domain![Edge: 0..a]) }),
        parse_quote!({ double(a).write_to(b, domain![Nope: 0..1]) }),
        parse_quote!({ double(a).write_to(b, 5) }),
        parse_quote!({ double(a).write_to(n) }),
        parse_quote!({ double(a).write_to(nope) }),
        parse_quote!({ double(a).write_to(b.c) }),
        parse_quote!({ double(a).frobnicate(b) }),
        parse_quote!({
            let x = 1;
        }),
        parse_quote!({ a }),
        parse_quote!({
            println!("x");
        }),
    ];
    for body in bodies {
        let func: ItemFn = parse_quote! {
            fn p(a: &Field<(Edge, K), f64>, b: &mut Field<(Edge, K), f64>, n: i32) #body
        };
        let text = quote!(#body).to_string();
        match program(&env, func) {
            Err(e) => assert!(error_count(&e) >= 1, "{text}"),
            Ok(p) => panic!("`{text}` was accepted: {:?}", p.calls),
        }
    }
}

fn scalar_alias(env: &mut Env, name: &str, ty: ScalarType) {
    let key = format!("{name}_alias_key");
    env.names.insert(name.into(), Def::Scalar { ty, key });
}

#[test]
fn scalar_aliases_resolve_in_types_and_casts() {
    let mut env = icon_env();
    scalar_alias(&mut env, "vpfloat", ScalarType::F32);
    scalar_alias(&mut env, "wpfloat", ScalarType::F64);
    let op = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(Edge, K), vpfloat>, b: Field<(Edge, K), wpfloat>, s: vpfloat)
                -> Field<(Edge, K), vpfloat> {
                let wide: Field<(Edge, K), wpfloat> = (a * s) as wpfloat + b;
                wide as vpfloat
            }
        },
    )
    .expect("checks");
    assert_eq!(op.params[0].ty, edge_k(ScalarType::F32));
    assert_eq!(op.params[1].ty, edge_k(ScalarType::F64));
    assert_eq!(op.params[2].ty, Type::Scalar(ScalarType::F32));
    assert_eq!(op.ret, edge_k(ScalarType::F32));
    let cast = find(
        &op.body,
        |e| matches!(e.kind, ExprKind::Cast { to, .. } if to == ScalarType::F64),
    )
    .expect("a cast to wpfloat");
    assert_eq!(cast.ty, edge_k(ScalarType::F64));
}

#[test]
fn scalar_alias_does_not_mix_with_the_other_precision() {
    let mut env = icon_env();
    scalar_alias(&mut env, "vpfloat", ScalarType::F32);
    let err = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(Edge, K), vpfloat>, b: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
                a + b
            }
        },
    )
    .expect_err("f32 + f64");
    assert_eq!(error_count(&err), 1, "{:?}", messages(&err));
}

#[test]
fn dimension_is_no_scalar_type() {
    let env = icon_env();
    let err = field_op(
        &env,
        parse_quote! {
            fn f(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
                let b = a as K;
                a
            }
        },
    )
    .expect_err("cast to a dimension");
    let msgs = messages(&err);
    assert!(
        msgs.iter()
            .any(|m| m.contains("`K` is a dimension, not a scalar type")),
        "{msgs:?}"
    );
}

#[test]
fn an_item_calling_itself_is_an_error_at_the_call() {
    use crate::frontend::names::entity_paths;
    let first_message = |kind: ItemKind, func: &ItemFn| {
        entity_paths(kind, &TokenStream::new(), func)
            .err()
            .map(|e| messages(&e)[0].clone())
    };
    let recursive: ItemFn = parse_quote! {
        fn f(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> { let b = a * 0.5; self::f(b) }
    };
    let message = first_message(ItemKind::FieldOperator, &recursive).unwrap_or_default();
    assert!(
        message.contains("operators cannot be recursive"),
        "{message}"
    );
    let program: ItemFn = parse_quote! {
        fn run(a: &Field<(Edge, K), f64>, out: &mut Field<(Edge, K), f64>) { run(a).write_to(out); }
    };
    let message = first_message(ItemKind::Program, &program).unwrap_or_default();
    assert!(message.contains("programs are not called"), "{message}");
    // A local of the same name is no call of the item (the checker reports it otherwise).
    let shadowed: ItemFn = parse_quote! {
        fn f(f: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> { f(f) }
    };
    assert_eq!(first_message(ItemKind::FieldOperator, &shadowed), None);
}

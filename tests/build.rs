//! Builds fieldview IR for the CPU backend tests (which run before the frontend exists) and
//! writes `__program_from_ir!` invocations into `OUT_DIR/cpu_programs.rs`.

use gt4rs_ir::fieldview::{
    BinaryOp, Bundle, DomainCond, DomainRange, Expr, ExprKind, Literal, MathFun, Operator,
    OperatorKind, Param, Program, ProgramCall, ProgramParam, ReduceOp, Role, Target,
};
use gt4rs_ir::{CmpOp, DimInfo, DimKind, OffsetInfo, ScalarType, Type};

use ScalarType::{F64, I32};

fn fty(dims: &[&str], dtype: ScalarType) -> Type {
    Type::field(dims, dtype)
}
fn param(i: u32, ty: Type) -> Expr {
    Expr::new(ty, ExprKind::Param(i))
}
fn var(i: u32, ty: Type) -> Expr {
    Expr::new(ty, ExprKind::Var(i))
}
fn let_(v: u32, value: Expr, body: Expr) -> Expr {
    Expr::new(
        body.ty.clone(),
        ExprKind::Let {
            var: v,
            value: Box::new(value),
            body: Box::new(body),
        },
    )
}
fn float(x: f64) -> Expr {
    Expr::new(Type::Scalar(F64), ExprKind::Literal(Literal::float(x)))
}
fn int(x: i64) -> Expr {
    Expr::new(Type::Scalar(I32), ExprKind::Literal(Literal::Int(x)))
}
fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let ty = if a.ty.is_field() {
        a.ty.clone()
    } else {
        b.ty.clone()
    };
    let ty = match (&a.ty, &b.ty) {
        (Type::Field { dims: da, dtype }, Type::Field { dims: db, .. }) => {
            let mut dims = da.clone();
            for d in db {
                if !dims.contains(d) {
                    dims.push(d.clone());
                }
            }
            Type::Field {
                dims,
                dtype: *dtype,
            }
        }
        _ => ty,
    };
    Expr::new(
        ty,
        ExprKind::Binary {
            op,
            lhs: Box::new(a),
            rhs: Box::new(b),
        },
    )
}
fn add(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Add, a, b)
}
fn sub(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Sub, a, b)
}
fn mul(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Mul, a, b)
}
fn cshift(a: Expr, dim: &str, offset: i64) -> Expr {
    Expr::new(
        a.ty.clone(),
        ExprKind::CartesianShift {
            arg: Box::new(a),
            dim: dim.into(),
            offset,
        },
    )
}
fn nshift(a: Expr, offset: &str, slot: Option<u32>, ty: Type) -> Expr {
    Expr::new(
        ty,
        ExprKind::NeighborShift {
            arg: Box::new(a),
            offset: offset.into(),
            slot,
        },
    )
}
fn local(a: Expr, local: &str, slot: u32, ty: Type) -> Expr {
    Expr::new(
        ty,
        ExprKind::LocalIndex {
            arg: Box::new(a),
            local: local.into(),
            slot,
        },
    )
}
fn reduce(op: ReduceOp, local: &str, a: Expr, ty: Type) -> Expr {
    Expr::new(
        ty,
        ExprKind::Reduce {
            op,
            local: local.into(),
            arg: Box::new(a),
        },
    )
}
fn call(callee: &str, args: Vec<Expr>, ty: Type) -> Expr {
    Expr::new(
        ty,
        ExprKind::Call {
            callee: callee.into(),
            args,
        },
    )
}
fn pp(name: &str, ty: Type, role: Role) -> ProgramParam {
    ProgramParam {
        name: name.into(),
        ty,
        role,
        is_static: false,
    }
}
fn range(dim: &str, start: Expr, end: Expr) -> DomainRange {
    DomainRange {
        dim: dim.into(),
        start,
        end,
    }
}
fn dims() -> Vec<DimInfo> {
    let d = |n: &str, kind| DimInfo {
        name: n.into(),
        kind,
    };
    vec![
        d("Cell", DimKind::Horizontal),
        d("Edge", DimKind::Horizontal),
        d("Vertex", DimKind::Horizontal),
        d("I", DimKind::Horizontal),
        d("J", DimKind::Horizontal),
        d("E2C", DimKind::Local),
        d("E2C2V", DimKind::Local),
        d("C2E", DimKind::Local),
        d("K", DimKind::Vertical),
    ]
}
fn offsets() -> Vec<OffsetInfo> {
    let o = |n: &str, from: &str, to: &str, count| OffsetInfo {
        name: n.into(),
        from: from.into(),
        to: to.into(),
        count,
    };
    vec![
        o("E2C", "Edge", "Cell", 2),
        o("E2C2V", "Edge", "Vertex", 4),
        o("C2E", "Cell", "Edge", 3),
    ]
}
fn bundle(operators: Vec<Operator>) -> Bundle {
    Bundle {
        operators,
        dims: dims(),
        offsets: offsets(),
    }
}

struct Generated {
    signature: &'static str,
    program: Program,
}

fn nabla4() -> Generated {
    let vk = fty(&["Vertex", "K"], F64);
    let ek = fty(&["Edge", "K"], F64);
    let sparse = fty(&["Edge", "E2C2V"], F64);
    let e = fty(&["Edge"], F64);
    let evk = fty(&["Edge", "E2C2V", "K"], F64);
    // p_j = u@E2C2V[j]·v1[j] + v@E2C2V[j]·v2[j]; u through the sparse shift + local index,
    // v through the fixed-slot shift.
    let p = |j: u32| {
        let u_sparse = var(0, evk.clone());
        let u = local(u_sparse, "E2C2V", j, ek.clone());
        let v = nshift(param(1, vk.clone()), "E2C2V", Some(j), ek.clone());
        add(
            mul(u, local(param(2, sparse.clone()), "E2C2V", j, e.clone())),
            mul(v, local(param(3, sparse.clone()), "E2C2V", j, e.clone())),
        )
    };
    let two_z = mul(float(2.0), param(4, ek.clone()));
    let tang = add(p(0), p(1));
    let norm = add(p(2), p(3));
    let ivv = param(5, e.clone());
    let ipe = param(6, e.clone());
    let body = let_(
        0,
        nshift(param(0, vk.clone()), "E2C2V", None, evk.clone()),
        let_(
            1,
            two_z,
            mul(
                float(4.0),
                add(
                    mul(mul(sub(norm, var(1, ek.clone())), ivv.clone()), ivv),
                    mul(mul(sub(tang, var(1, ek.clone())), ipe.clone()), ipe),
                ),
            ),
        ),
    );
    let op = Operator {
        key: "nabla4_op_0".into(),
        name: "nabla4_op".into(),
        params: vec![
            Param {
                name: "u".into(),
                ty: vk.clone(),
            },
            Param {
                name: "v".into(),
                ty: vk.clone(),
            },
            Param {
                name: "pn1".into(),
                ty: sparse.clone(),
            },
            Param {
                name: "pn2".into(),
                ty: sparse.clone(),
            },
            Param {
                name: "z".into(),
                ty: ek.clone(),
            },
            Param {
                name: "ivv".into(),
                ty: e.clone(),
            },
            Param {
                name: "ipe".into(),
                ty: e.clone(),
            },
        ],
        ret: ek.clone(),
        body,
        kind: OperatorKind::Field,
    };
    let i32s = Type::Scalar(I32);
    let program = Program {
        name: "calculate_nabla4".into(),
        params: vec![
            pp("u_vert", vk.clone(), Role::In),
            pp("v_vert", vk.clone(), Role::In),
            pp("primal_normal_vert_v1", sparse.clone(), Role::In),
            pp("primal_normal_vert_v2", sparse.clone(), Role::In),
            pp("z_nabla2_e", ek.clone(), Role::In),
            pp("inv_vert_vert_length", e.clone(), Role::In),
            pp("inv_primal_edge_length", e.clone(), Role::In),
            pp("z_nabla4_e2", ek.clone(), Role::Out),
            pp("horizontal_start", i32s.clone(), Role::In),
            pp("horizontal_end", i32s.clone(), Role::In),
            pp("vertical_start", i32s.clone(), Role::In),
            pp("vertical_end", i32s.clone(), Role::In),
        ],
        calls: vec![ProgramCall {
            value: call(
                "nabla4_op_0",
                (0..7)
                    .map(|i| param(i, op.params[i as usize].ty.clone()))
                    .collect(),
                ek.clone(),
            ),
            target: Target::Field {
                param: 7,
                domain: vec![
                    range("Edge", param(8, i32s.clone()), param(9, i32s.clone())),
                    range("K", param(10, i32s.clone()), param(11, i32s.clone())),
                ],
            },
        }],
        bundle: bundle(vec![op]),
    };
    Generated {
        signature: "fn calculate_nabla4(u_vert: &Field<(Vertex, K), f64>, v_vert: &Field<(Vertex, K), f64>, primal_normal_vert_v1: &Field<(Edge, E2C2V), f64>, primal_normal_vert_v2: &Field<(Edge, E2C2V), f64>, z_nabla2_e: &Field<(Edge, K), f64>, inv_vert_vert_length: &Field<(Edge,), f64>, inv_primal_edge_length: &Field<(Edge,), f64>, z_nabla4_e2: &mut Field<(Edge, K), f64>, horizontal_start: i32, horizontal_end: i32, vertical_start: i32, vertical_end: i32) {}",
        program,
    }
}

fn laplacian() -> Generated {
    let t = fty(&["I", "J", "K"], F64);
    let a = || param(0, t.clone());
    let value = add(
        add(
            mul(float(-4.0), a()),
            add(cshift(a(), "I", 1), cshift(a(), "I", -1)),
        ),
        add(cshift(a(), "J", 1), cshift(a(), "J", -1)),
    );
    Generated {
        signature: "fn laplacian(a: &Field<(I, J, K), f64>, out: &mut Field<(I, J, K), f64>) {}",
        program: Program {
            name: "laplacian".into(),
            params: vec![
                pp("a", t.clone(), Role::In),
                pp("out", t.clone(), Role::Out),
            ],
            calls: vec![ProgramCall {
                value,
                target: Target::Field {
                    param: 1,
                    domain: vec![],
                },
            }],
            bundle: bundle(vec![]),
        },
    }
}

fn reductions() -> Generated {
    let ck = fty(&["Cell", "K"], F64);
    let ek = fty(&["Edge", "K"], F64);
    let eck = fty(&["Edge", "E2C", "K"], F64);
    let w = fty(&["Edge", "E2C"], F64);
    let f_sparse = || nshift(param(0, ck.clone()), "E2C", None, eck.clone());
    let sum = reduce(
        ReduceOp::Sum,
        "E2C",
        mul(f_sparse(), param(1, w.clone())),
        ek.clone(),
    );
    let max = reduce(ReduceOp::Max, "E2C", f_sparse(), ek.clone());
    // A reduction read through a Cartesian shift: the shift is pushed into its leaves.
    let shifted = cshift(reduce(ReduceOp::Min, "E2C", f_sparse(), ek.clone()), "K", 1);
    let k = fty(&["K"], F64);
    let value = add(add(sum, max), mul(shifted, param(2, k.clone())));
    Generated {
        signature: "fn reductions(f: &Field<(Cell, K), f64>, w: &Field<(Edge, E2C), f64>, kf: &Field<(K,), f64>, out: &mut Field<(Edge, K), f64>, vertical_end: i32) {}",
        program: Program {
            name: "reductions".into(),
            params: vec![
                pp("f", ck.clone(), Role::In),
                pp("w", w.clone(), Role::In),
                pp("kf", k.clone(), Role::In),
                pp("out", ek.clone(), Role::Out),
                pp("vertical_end", Type::Scalar(I32), Role::In),
            ],
            calls: vec![ProgramCall {
                value,
                target: Target::Field {
                    param: 3,
                    domain: vec![range("K", int(0), param(4, Type::Scalar(I32)))],
                },
            }],
            bundle: bundle(vec![]),
        },
    }
}

fn concat_select() -> Generated {
    let ck = fty(&["Cell", "K"], F64);
    let a = || param(0, ck.clone());
    let nlev = || param(1, Type::Scalar(I32));
    let cond = DomainCond::And(
        Box::new(DomainCond::Cmp {
            dim: "K".into(),
            op: CmpOp::Gt,
            value: Box::new(int(0)),
        }),
        Box::new(DomainCond::Cmp {
            dim: "K".into(),
            op: CmpOp::Lt,
            value: Box::new(sub(nlev(), int(1))),
        }),
    );
    let inner = Expr::new(
        ck.clone(),
        ExprKind::ConcatWhere {
            cond,
            if_true: Box::new(mul(
                float(0.5),
                add(cshift(a(), "K", -1), cshift(a(), "K", 1)),
            )),
            if_false: Box::new(a()),
        },
    );
    // Read the concat_where shifted: the condition is evaluated at the shifted point.
    let shifted = cshift(inner.clone(), "K", 1);
    let positive = Expr::new(
        fty(&["Cell", "K"], ScalarType::Bool),
        ExprKind::Compare {
            op: CmpOp::Gt,
            lhs: Box::new(a()),
            rhs: Box::new(float(0.0)),
        },
    );
    let sqrt = Expr::new(
        ck.clone(),
        ExprKind::Math {
            fun: MathFun::Sqrt,
            args: vec![a()],
        },
    );
    let sel = Expr::new(
        ck.clone(),
        ExprKind::Select {
            cond: Box::new(positive),
            if_true: Box::new(sqrt),
            if_false: Box::new(mul(a(), a())),
        },
    );
    Generated {
        signature: "fn concat_select(a: &Field<(Cell, K), f64>, nlev: i32, out1: &mut Field<(Cell, K), f64>, out2: &mut Field<(Cell, K), f64>, out3: &mut Field<(Cell, K), f64>) {}",
        program: Program {
            name: "concat_select".into(),
            params: vec![
                pp("a", ck.clone(), Role::In),
                pp("nlev", Type::Scalar(I32), Role::In),
                pp("out1", ck.clone(), Role::Out),
                pp("out2", ck.clone(), Role::Out),
                pp("out3", ck.clone(), Role::Out),
            ],
            calls: vec![
                ProgramCall {
                    value: inner,
                    target: Target::Field { param: 2, domain: vec![] },
                },
                ProgramCall {
                    value: shifted,
                    target: Target::Field {
                        param: 3,
                        domain: vec![range("K", int(0), sub(nlev(), int(1)))],
                    },
                },
                ProgramCall {
                    value: sel,
                    target: Target::Field { param: 4, domain: vec![] },
                },
            ],
            bundle: bundle(vec![]),
        },
    }
}

fn scans() -> Generated {
    let ck = fty(&["Cell", "K"], F64);
    let f = Type::Scalar(F64);
    let carry_ty = Type::Tuple(vec![f.clone(), f.clone()]);
    let tget = |e: Expr, i: u32| {
        Expr::new(
            Type::Scalar(F64),
            ExprKind::TupleGet {
                arg: Box::new(e),
                index: i,
            },
        )
    };
    let carry = || param(0, carry_ty.clone());
    // (s, p) → (s + x, 0.5 * p + s)
    let body = Expr::new(
        carry_ty.clone(),
        ExprKind::Tuple(vec![
            add(tget(carry(), 0), param(1, f.clone())),
            add(mul(float(0.5), tget(carry(), 1)), tget(carry(), 0)),
        ]),
    );
    let init = Expr::new(
        carry_ty.clone(),
        ExprKind::Tuple(vec![float(0.0), float(1.0)]),
    );
    let op = |forward: bool| Operator {
        key: format!("scan_{forward}"),
        name: "scan".into(),
        params: vec![
            Param {
                name: "carry".into(),
                ty: carry_ty.clone(),
            },
            Param {
                name: "x".into(),
                ty: f.clone(),
            },
        ],
        ret: carry_ty.clone(),
        body: body.clone(),
        kind: OperatorKind::Scan {
            axis: "K".into(),
            forward,
            init: init.clone(),
        },
    };
    let tuple_ty = Type::Tuple(vec![ck.clone(), ck.clone()]);
    let target = |a: u32, b: u32| {
        Target::Tuple(vec![
            Target::Field {
                param: a,
                domain: vec![],
            },
            Target::Field {
                param: b,
                domain: vec![],
            },
        ])
    };
    Generated {
        signature: "fn scans(a: &Field<(Cell, K), f64>, fs: &mut Field<(Cell, K), f64>, fp: &mut Field<(Cell, K), f64>, bs: &mut Field<(Cell, K), f64>, bp: &mut Field<(Cell, K), f64>) {}",
        program: Program {
            name: "scans".into(),
            params: vec![
                pp("a", ck.clone(), Role::In),
                pp("fs", ck.clone(), Role::Out),
                pp("fp", ck.clone(), Role::Out),
                pp("bs", ck.clone(), Role::Out),
                pp("bp", ck.clone(), Role::Out),
            ],
            calls: vec![
                ProgramCall {
                    value: call("scan_true", vec![param(0, ck.clone())], tuple_ty.clone()),
                    target: target(1, 2),
                },
                ProgramCall {
                    // The argument shifted before it is passed.
                    value: call("scan_false", vec![cshift(param(0, ck.clone()), "K", 0)], tuple_ty.clone()),
                    target: target(3, 4),
                },
            ],
            bundle: bundle(vec![op(true), op(false)]),
        },
    }
}

fn dynamic_and_domains() -> Generated {
    let ck = fty(&["Cell", "K"], F64);
    let off = fty(&["Cell", "K"], I32);
    let dynamic = Expr::new(
        ck.clone(),
        ExprKind::DynamicShift {
            arg: Box::new(param(0, ck.clone())),
            dim: "K".into(),
            offset: Box::new(param(1, off.clone())),
        },
    );
    let i32s = Type::Scalar(I32);
    let nk = || param(4, i32s.clone());
    let a = || param(0, ck.clone());
    Generated {
        signature: "fn dynamic_and_domains(a: &Field<(Cell, K), f64>, off: &Field<(Cell, K), i32>, out: &mut Field<(Cell, K), f64>, out2: &mut Field<(Cell, K), f64>, nk: i32) {}",
        program: Program {
            name: "dynamic_and_domains".into(),
            params: vec![
                pp("a", ck.clone(), Role::In),
                pp("off", off.clone(), Role::In),
                pp("out", ck.clone(), Role::Out),
                pp("out2", ck.clone(), Role::Out),
                pp("nk", i32s.clone(), Role::In),
            ],
            calls: vec![
                ProgramCall {
                    value: dynamic,
                    target: Target::Field { param: 2, domain: vec![] },
                },
                // Two calls with different domains into one output, and a tuple whose
                // elements have different domains.
                ProgramCall {
                    value: Expr::new(
                        Type::Tuple(vec![ck.clone(), ck.clone()]),
                        ExprKind::Tuple(vec![mul(a(), float(2.0)), add(a(), float(1.0))]),
                    ),
                    target: Target::Tuple(vec![
                        Target::Field {
                            param: 3,
                            domain: vec![range("K", int(0), int(1))],
                        },
                        Target::Field {
                            param: 3,
                            domain: vec![range("K", int(1), nk())],
                        },
                    ]),
                },
            ],
            bundle: bundle(vec![]),
        },
    }
}

/// A gather read through a neighbour shift: `cell_sum(x) = Σ x@C2E` read at both cells of each
/// edge, so the lowering materialises it as a temporary over all cells.
fn nested_gather() -> Generated {
    let ek = fty(&["Edge", "K"], F64);
    let ck = fty(&["Cell", "K"], F64);
    let cell_sum = Operator {
        key: "cell_sum_0".into(),
        name: "cell_sum".into(),
        params: vec![Param {
            name: "x".into(),
            ty: ek.clone(),
        }],
        ret: ck.clone(),
        body: reduce(
            ReduceOp::Sum,
            "C2E",
            nshift(
                param(0, ek.clone()),
                "C2E",
                None,
                fty(&["Cell", "C2E", "K"], F64),
            ),
            ck.clone(),
        ),
        kind: OperatorKind::Field,
    };
    let inner = call("cell_sum_0", vec![param(0, ek.clone())], ck.clone());
    let value = reduce(
        ReduceOp::Sum,
        "E2C",
        nshift(inner, "E2C", None, fty(&["Edge", "E2C", "K"], F64)),
        ek.clone(),
    );
    Generated {
        signature: "fn nested_gather(x: &Field<(Edge, K), f64>, out: &mut Field<(Edge, K), f64>, vertical_start: i32) {}",
        program: Program {
            name: "nested_gather".into(),
            params: vec![
                pp("x", ek.clone(), Role::In),
                pp("out", ek.clone(), Role::Out),
                pp("vertical_start", Type::Scalar(I32), Role::In),
            ],
            calls: vec![ProgramCall {
                value,
                target: Target::Field {
                    param: 1,
                    domain: vec![range("K", param(2, Type::Scalar(I32)), int(4))],
                },
            }],
            bundle: bundle(vec![cell_sum]),
        },
    }
}

/// An output that is also read (pointwise) by the call writing it.
fn in_place() -> Generated {
    let ck = fty(&["Cell", "K"], F64);
    Generated {
        signature: "fn in_place(a: &Field<(Cell, K), f64>, b: &mut Field<(Cell, K), f64>) {}",
        program: Program {
            name: "in_place".into(),
            params: vec![
                pp("a", ck.clone(), Role::In),
                pp("b", ck.clone(), Role::InOut),
            ],
            calls: vec![ProgramCall {
                value: add(mul(param(1, ck.clone()), float(2.0)), param(0, ck.clone())),
                target: Target::Field {
                    param: 1,
                    domain: vec![],
                },
            }],
            bundle: bundle(vec![]),
        },
    }
}

/// The Thomas algorithm in one expression: a forward scan whose results a backward scan reads
/// (GT4Py's `test_solve_triag`), so the forward scan gets a stage and temporaries of its own.
fn solve_triag(fused: bool) -> Generated {
    let ck = fty(&["Cell", "K"], F64);
    let f = Type::Scalar(F64);
    let pair = Type::Tuple(vec![f.clone(), f.clone()]);
    let tget = |e: Expr, i: u32, ty: Type| {
        Expr::new(
            ty,
            ExprKind::TupleGet {
                arg: Box::new(e),
                index: i,
            },
        )
    };
    let div = |a: Expr, b: Expr| bin(BinaryOp::Div, a, b);
    // g = b - a * c'; (c / g, (d - a * d') / g)
    let g = sub(
        param(2, f.clone()),
        mul(
            param(1, f.clone()),
            tget(param(0, pair.clone()), 0, f.clone()),
        ),
    );
    let forward_body = let_(
        0,
        g,
        Expr::new(
            pair.clone(),
            ExprKind::Tuple(vec![
                div(param(3, f.clone()), var(0, f.clone())),
                div(
                    sub(
                        param(4, f.clone()),
                        mul(
                            param(1, f.clone()),
                            tget(param(0, pair.clone()), 1, f.clone()),
                        ),
                    ),
                    var(0, f.clone()),
                ),
            ]),
        ),
    );
    let scalar = |n: &str| Param {
        name: n.into(),
        ty: f.clone(),
    };
    let forward = Operator {
        key: "triag_forward".into(),
        name: "triag_forward".into(),
        params: vec![
            Param {
                name: "carry".into(),
                ty: pair.clone(),
            },
            scalar("a"),
            scalar("b"),
            scalar("c"),
            scalar("d"),
        ],
        ret: pair.clone(),
        body: forward_body,
        kind: OperatorKind::Scan {
            axis: "K".into(),
            forward: true,
            init: Expr::new(pair.clone(), ExprKind::Tuple(vec![float(0.0), float(0.0)])),
        },
    };
    // x = d' - c' * x_above
    let backward = Operator {
        key: "triag_backward".into(),
        name: "triag_backward".into(),
        params: vec![scalar("x"), scalar("cp"), scalar("dp")],
        ret: f.clone(),
        body: sub(
            param(2, f.clone()),
            mul(param(1, f.clone()), param(0, f.clone())),
        ),
        kind: OperatorKind::Scan {
            axis: "K".into(),
            forward: false,
            init: float(0.0),
        },
    };
    let pair_field = Type::Tuple(vec![ck.clone(), ck.clone()]);
    let fw = call(
        "triag_forward",
        (0..4).map(|i| param(i, ck.clone())).collect(),
        pair_field.clone(),
    );
    if fused {
        return fused_triag(fw, forward, backward);
    }
    let value = let_(
        0,
        fw,
        call(
            "triag_backward",
            vec![
                tget(var(0, pair_field.clone()), 0, ck.clone()),
                tget(var(0, pair_field.clone()), 1, ck.clone()),
            ],
            ck.clone(),
        ),
    );
    Generated {
        signature: "fn solve_triag(a: &Field<(Cell, K), f64>, b: &Field<(Cell, K), f64>, c: &Field<(Cell, K), f64>, d: &Field<(Cell, K), f64>, x: &mut Field<(Cell, K), f64>) {}",
        program: Program {
            name: "solve_triag".into(),
            params: vec![
                pp("a", ck.clone(), Role::In),
                pp("b", ck.clone(), Role::In),
                pp("c", ck.clone(), Role::In),
                pp("d", ck.clone(), Role::In),
                pp("x", ck.clone(), Role::Out),
            ],
            calls: vec![ProgramCall {
                value,
                target: Target::Field { param: 4, domain: vec![] },
            }],
            bundle: bundle(vec![forward, backward]),
        },
    }
}

/// ICON's fused solver shape: the forward sweep only where `K > 0` (zero above), the back
/// substitution only where `K < nk - 1` (the sweep's value below). Each scan starts at its
/// region's first level.
fn fused_triag(fw: Expr, forward: Operator, backward: Operator) -> Generated {
    let ck = fty(&["Cell", "K"], F64);
    let pair_field = Type::Tuple(vec![ck.clone(), ck.clone()]);
    let tget = |e: Expr, i: u32| {
        Expr::new(
            ck.clone(),
            ExprKind::TupleGet {
                arg: Box::new(e),
                index: i,
            },
        )
    };
    let k_cmp = |op: CmpOp, value: Expr| DomainCond::Cmp {
        dim: "K".into(),
        op,
        value: Box::new(value),
    };
    let nk = || param(5, Type::Scalar(I32));
    let zero = || {
        Expr::new(
            ck.clone(),
            ExprKind::Broadcast {
                arg: Box::new(float(0.0)),
                dims: vec!["Cell".into(), "K".into()],
            },
        )
    };
    let sweep = Expr::new(
        pair_field.clone(),
        ExprKind::ConcatWhere {
            cond: k_cmp(CmpOp::Gt, int(0)),
            if_true: Box::new(fw),
            if_false: Box::new(Expr::new(
                pair_field.clone(),
                ExprKind::Tuple(vec![zero(), zero()]),
            )),
        },
    );
    let back = call(
        "triag_backward",
        vec![
            tget(var(0, pair_field.clone()), 0),
            tget(var(0, pair_field.clone()), 1),
        ],
        ck.clone(),
    );
    let value = let_(
        0,
        sweep,
        Expr::new(
            ck.clone(),
            ExprKind::ConcatWhere {
                cond: k_cmp(CmpOp::Lt, sub(nk(), int(1))),
                if_true: Box::new(back),
                if_false: Box::new(tget(var(0, pair_field.clone()), 1)),
            },
        ),
    );
    Generated {
        signature: "fn fused_triag(a: &Field<(Cell, K), f64>, b: &Field<(Cell, K), f64>, c: &Field<(Cell, K), f64>, d: &Field<(Cell, K), f64>, x: &mut Field<(Cell, K), f64>, nk: i32) {}",
        program: Program {
            name: "fused_triag".into(),
            params: vec![
                pp("a", ck.clone(), Role::In),
                pp("b", ck.clone(), Role::In),
                pp("c", ck.clone(), Role::In),
                pp("d", ck.clone(), Role::In),
                pp("x", ck.clone(), Role::Out),
                pp("nk", Type::Scalar(I32), Role::In),
            ],
            calls: vec![ProgramCall {
                value,
                target: Target::Field { param: 4, domain: vec![] },
            }],
            bundle: bundle(vec![forward, backward]),
        },
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let mut text = String::new();
    for g in [
        nabla4(),
        laplacian(),
        reductions(),
        concat_select(),
        scans(),
        dynamic_and_domains(),
        nested_gather(),
        in_place(),
        solve_triag(false),
        solve_triag(true),
    ] {
        let json = g.program.to_json();
        text.push_str(&format!(
            "::gt4rs::__private::__program_from_ir! {{ {} , {:?} }}\n",
            g.signature, json
        ));
    }
    std::fs::write(format!("{out_dir}/cpu_programs.rs"), text).expect("OUT_DIR is writable");
}

//! Builds fieldview IR for the CPU backend tests (which run before the frontend exists) and
//! writes `__program_from_ir!` invocations into `OUT_DIR/cpu_programs.rs`.

use gt4rs_ir::build::*;
use gt4rs_ir::fieldview::{Bundle, Expr, MathFun, Operator, Program, ReduceOp, Role, Target};
use gt4rs_ir::{CmpOp, ScalarType, Type};

use ScalarType::{F64, I32};

/// The dimensions and offsets of every program here.
fn mesh(operators: Vec<Operator>) -> Bundle {
    bundle(
        operators,
        &["Cell", "Edge", "Vertex", "I", "J"],
        &["K"],
        &[
            // The cases put -1 in both (skip values in reductions, errors in plain shifts).
            offset_with_skip_values("E2C", "Edge", "Cell", 2),
            offset_with_skip_values("E2C2V", "Edge", "Vertex", 4),
            offset("C2E", "Cell", "Edge", 3),
        ],
    )
}

struct Generated {
    signature: &'static str,
    program: Program,
}

fn nabla4() -> Generated {
    let vk = Type::field(&["Vertex", "K"], F64);
    let ek = Type::field(&["Edge", "K"], F64);
    let sparse = Type::field(&["Edge", "E2C2V"], F64);
    let e = Type::field(&["Edge"], F64);
    let evk = Type::field(&["Edge", "E2C2V", "K"], F64);
    // p_j = u@E2C2V[j]·v1[j] + v@E2C2V[j]·v2[j]; u through the sparse shift + local index,
    // v through the fixed-slot shift.
    let p = |j: u32| {
        let u_sparse = var(0, evk.clone());
        let u = local_index(u_sparse, "E2C2V", j);
        let v = neighbor_shift(param(1, vk.clone()), "E2C2V", Some(j), ek.clone());
        add(
            mul(u, local_index(param(2, sparse.clone()), "E2C2V", j)),
            mul(v, local_index(param(3, sparse.clone()), "E2C2V", j)),
        )
    };
    let two_z = mul(float(2.0), param(4, ek.clone()));
    let tang = add(p(0), p(1));
    let norm = add(p(2), p(3));
    let ivv = param(5, e.clone());
    let ipe = param(6, e.clone());
    let body = let_(
        0,
        neighbor_shift(param(0, vk.clone()), "E2C2V", None, evk.clone()),
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
        ..field_operator(
            "nabla4_op",
            vec![
                operator_param("u", vk.clone()),
                operator_param("v", vk.clone()),
                operator_param("pn1", sparse.clone()),
                operator_param("pn2", sparse.clone()),
                operator_param("z", ek.clone()),
                operator_param("ivv", e.clone()),
                operator_param("ipe", e.clone()),
            ],
            body,
        )
    };
    let i32s = Type::Scalar(I32);
    let value = call(
        "nabla4_op_0",
        (0..7)
            .map(|i| param(i, op.params[i as usize].ty.clone()))
            .collect(),
        ek.clone(),
    );
    let program = program(
        "calculate_nabla4",
        vec![
            program_param("u_vert", vk.clone(), Role::In),
            program_param("v_vert", vk.clone(), Role::In),
            program_param("primal_normal_vert_v1", sparse.clone(), Role::In),
            program_param("primal_normal_vert_v2", sparse.clone(), Role::In),
            program_param("z_nabla2_e", ek.clone(), Role::In),
            program_param("inv_vert_vert_length", e.clone(), Role::In),
            program_param("inv_primal_edge_length", e.clone(), Role::In),
            program_param("z_nabla4_e2", ek.clone(), Role::Out),
            program_param("horizontal_start", i32s.clone(), Role::In),
            program_param("horizontal_end", i32s.clone(), Role::In),
            program_param("vertical_start", i32s.clone(), Role::In),
            program_param("vertical_end", i32s.clone(), Role::In),
        ],
        vec![write(
            value,
            field_target(
                7,
                vec![
                    range("Edge", param(8, i32s.clone()), param(9, i32s.clone())),
                    range("K", param(10, i32s.clone()), param(11, i32s.clone())),
                ],
            ),
        )],
        mesh(vec![op]),
    );
    Generated {
        signature: "fn calculate_nabla4(u_vert: &Field<(Vertex, K), f64>, v_vert: &Field<(Vertex, K), f64>, primal_normal_vert_v1: &Field<(Edge, E2C2V), f64>, primal_normal_vert_v2: &Field<(Edge, E2C2V), f64>, z_nabla2_e: &Field<(Edge, K), f64>, inv_vert_vert_length: &Field<(Edge,), f64>, inv_primal_edge_length: &Field<(Edge,), f64>, z_nabla4_e2: &mut Field<(Edge, K), f64>, horizontal_start: i32, horizontal_end: i32, vertical_start: i32, vertical_end: i32) {}",
        program,
    }
}

fn laplacian() -> Generated {
    let t = Type::field(&["I", "J", "K"], F64);
    let a = || param(0, t.clone());
    let value = add(
        add(
            mul(float(-4.0), a()),
            add(cartesian_shift(a(), "I", 1), cartesian_shift(a(), "I", -1)),
        ),
        add(cartesian_shift(a(), "J", 1), cartesian_shift(a(), "J", -1)),
    );
    Generated {
        signature: "fn laplacian(a: &Field<(I, J, K), f64>, out: &mut Field<(I, J, K), f64>) {}",
        program: program(
            "laplacian",
            vec![
                program_param("a", t.clone(), Role::In),
                program_param("out", t.clone(), Role::Out),
            ],
            vec![write(value, whole_field(1))],
            mesh(vec![]),
        ),
    }
}

fn reductions() -> Generated {
    let ck = Type::field(&["Cell", "K"], F64);
    let ek = Type::field(&["Edge", "K"], F64);
    let eck = Type::field(&["Edge", "E2C", "K"], F64);
    let w = Type::field(&["Edge", "E2C"], F64);
    let f_sparse = || neighbor_shift(param(0, ck.clone()), "E2C", None, eck.clone());
    let sum = reduce(ReduceOp::Sum, "E2C", mul(f_sparse(), param(1, w.clone())));
    let max = reduce(ReduceOp::Max, "E2C", f_sparse());
    // A reduction read through a Cartesian shift: the shift is pushed into its leaves.
    let shifted = cartesian_shift(reduce(ReduceOp::Min, "E2C", f_sparse()), "K", 1);
    let k = Type::field(&["K"], F64);
    let value = add(add(sum, max), mul(shifted, param(2, k.clone())));
    Generated {
        signature: "fn reductions(f: &Field<(Cell, K), f64>, w: &Field<(Edge, E2C), f64>, kf: &Field<(K,), f64>, out: &mut Field<(Edge, K), f64>, vertical_end: i32) {}",
        program: program(
            "reductions",
            vec![
                program_param("f", ck.clone(), Role::In),
                program_param("w", w.clone(), Role::In),
                program_param("kf", k.clone(), Role::In),
                program_param("out", ek.clone(), Role::Out),
                program_param("vertical_end", Type::Scalar(I32), Role::In),
            ],
            vec![write(
                value,
                field_target(3, vec![range("K", int(0), param(4, Type::Scalar(I32)))]),
            )],
            mesh(vec![]),
        ),
    }
}

fn concat_select() -> Generated {
    let ck = Type::field(&["Cell", "K"], F64);
    let a = || param(0, ck.clone());
    let nlev = || param(1, Type::Scalar(I32));
    let cond = domain_and(
        index_cmp("K", CmpOp::Gt, int(0)),
        index_cmp("K", CmpOp::Lt, sub(nlev(), int(1))),
    );
    let inner = concat_where(
        cond,
        mul(
            float(0.5),
            add(cartesian_shift(a(), "K", -1), cartesian_shift(a(), "K", 1)),
        ),
        a(),
        ck.clone(),
    );
    // Read the concat_where shifted: the condition is evaluated at the shifted point.
    let shifted = cartesian_shift(inner.clone(), "K", 1);
    let positive = compare(
        CmpOp::Gt,
        a(),
        float(0.0),
        Type::field(&["Cell", "K"], ScalarType::Bool),
    );
    let sqrt = math(MathFun::Sqrt, vec![a()], ck.clone());
    let sel = select(positive, sqrt, mul(a(), a()), ck.clone());
    Generated {
        signature: "fn concat_select(a: &Field<(Cell, K), f64>, nlev: i32, out1: &mut Field<(Cell, K), f64>, out2: &mut Field<(Cell, K), f64>, out3: &mut Field<(Cell, K), f64>) {}",
        program: program(
            "concat_select",
            vec![
                program_param("a", ck.clone(), Role::In),
                program_param("nlev", Type::Scalar(I32), Role::In),
                program_param("out1", ck.clone(), Role::Out),
                program_param("out2", ck.clone(), Role::Out),
                program_param("out3", ck.clone(), Role::Out),
            ],
            vec![
                write(inner, whole_field(2)),
                write(
                    shifted,
                    field_target(3, vec![range("K", int(0), sub(nlev(), int(1)))]),
                ),
                write(sel, whole_field(4)),
            ],
            mesh(vec![]),
        ),
    }
}

fn scans() -> Generated {
    let ck = Type::field(&["Cell", "K"], F64);
    let f = Type::Scalar(F64);
    let carry_ty = Type::Tuple(vec![f.clone(), f.clone()]);
    let carry = || param(0, carry_ty.clone());
    // (s, p) → (s + x, 0.5 * p + s)
    let body = tuple(vec![
        add(tuple_get(carry(), 0), param(1, f.clone())),
        add(
            mul(float(0.5), tuple_get(carry(), 1)),
            tuple_get(carry(), 0),
        ),
    ]);
    let init = tuple(vec![float(0.0), float(1.0)]);
    let op = |forward: bool| Operator {
        key: format!("scan_{forward}"),
        ..scan_operator(
            "scan",
            vec![
                operator_param("carry", carry_ty.clone()),
                operator_param("x", f.clone()),
            ],
            body.clone(),
            "K",
            forward,
            init.clone(),
        )
    };
    let tuple_ty = Type::Tuple(vec![ck.clone(), ck.clone()]);
    let target = |a: u32, b: u32| Target::Tuple(vec![whole_field(a), whole_field(b)]);
    Generated {
        signature: "fn scans(a: &Field<(Cell, K), f64>, fs: &mut Field<(Cell, K), f64>, fp: &mut Field<(Cell, K), f64>, bs: &mut Field<(Cell, K), f64>, bp: &mut Field<(Cell, K), f64>) {}",
        program: program(
            "scans",
            vec![
                program_param("a", ck.clone(), Role::In),
                program_param("fs", ck.clone(), Role::Out),
                program_param("fp", ck.clone(), Role::Out),
                program_param("bs", ck.clone(), Role::Out),
                program_param("bp", ck.clone(), Role::Out),
            ],
            vec![
                write(
                    call("scan_true", vec![param(0, ck.clone())], tuple_ty.clone()),
                    target(1, 2),
                ),
                // The argument shifted before it is passed.
                write(
                    call(
                        "scan_false",
                        vec![cartesian_shift(param(0, ck.clone()), "K", 0)],
                        tuple_ty.clone(),
                    ),
                    target(3, 4),
                ),
            ],
            mesh(vec![op(true), op(false)]),
        ),
    }
}

fn dynamic_and_domains() -> Generated {
    let ck = Type::field(&["Cell", "K"], F64);
    let off = Type::field(&["Cell", "K"], I32);
    let dynamic = dynamic_shift(param(0, ck.clone()), "K", param(1, off.clone()));
    let i32s = Type::Scalar(I32);
    let nk = || param(4, i32s.clone());
    let a = || param(0, ck.clone());
    Generated {
        signature: "fn dynamic_and_domains(a: &Field<(Cell, K), f64>, off: &Field<(Cell, K), i32>, out: &mut Field<(Cell, K), f64>, out2: &mut Field<(Cell, K), f64>, nk: i32) {}",
        program: program(
            "dynamic_and_domains",
            vec![
                program_param("a", ck.clone(), Role::In),
                program_param("off", off.clone(), Role::In),
                program_param("out", ck.clone(), Role::Out),
                program_param("out2", ck.clone(), Role::Out),
                program_param("nk", i32s.clone(), Role::In),
            ],
            vec![
                write(dynamic, whole_field(2)),
                // Two calls with different domains into one output, and a tuple whose
                // elements have different domains.
                write(
                    tuple(vec![mul(a(), float(2.0)), add(a(), float(1.0))]),
                    Target::Tuple(vec![
                        field_target(3, literal_domain(&[("K", 0, 1)])),
                        field_target(3, vec![range("K", int(1), nk())]),
                    ]),
                ),
            ],
            mesh(vec![]),
        ),
    }
}

/// A gather read through a neighbour shift: `cell_sum(x) = Σ x@C2E` read at both cells of each
/// edge, so the lowering materialises it as a temporary over all cells.
fn nested_gather() -> Generated {
    let ek = Type::field(&["Edge", "K"], F64);
    let ck = Type::field(&["Cell", "K"], F64);
    let cell_sum = Operator {
        key: "cell_sum_0".into(),
        ..field_operator(
            "cell_sum",
            vec![operator_param("x", ek.clone())],
            reduce(
                ReduceOp::Sum,
                "C2E",
                neighbor_shift(
                    param(0, ek.clone()),
                    "C2E",
                    None,
                    Type::field(&["Cell", "C2E", "K"], F64),
                ),
            ),
        )
    };
    let inner = call("cell_sum_0", vec![param(0, ek.clone())], ck.clone());
    let value = reduce(
        ReduceOp::Sum,
        "E2C",
        neighbor_shift(inner, "E2C", None, Type::field(&["Edge", "E2C", "K"], F64)),
    );
    Generated {
        signature: "fn nested_gather(x: &Field<(Edge, K), f64>, out: &mut Field<(Edge, K), f64>, vertical_start: i32) {}",
        program: program(
            "nested_gather",
            vec![
                program_param("x", ek.clone(), Role::In),
                program_param("out", ek.clone(), Role::Out),
                program_param("vertical_start", Type::Scalar(I32), Role::In),
            ],
            vec![write(
                value,
                field_target(1, vec![range("K", param(2, Type::Scalar(I32)), int(4))]),
            )],
            mesh(vec![cell_sum]),
        ),
    }
}

/// A sparse output: each cell's edges weighted, written slot by slot over a vertical range,
/// beside their sum (a dense output of the same tuple).
fn sparse_gather() -> Generated {
    let ek = Type::field(&["Edge", "K"], F64);
    let ck = Type::field(&["Cell", "K"], F64);
    let w = Type::field(&["Cell", "C2E"], F64);
    let sparse = Type::field(&["Cell", "C2E", "K"], F64);
    let weighted = || {
        mul(
            neighbor_shift(param(0, ek.clone()), "C2E", None, sparse.clone()),
            param(1, w.clone()),
        )
    };
    let value = Expr {
        ty: Type::Tuple(vec![sparse.clone(), ck.clone()]),
        ..tuple(vec![weighted(), reduce(ReduceOp::Sum, "C2E", weighted())])
    };
    let k_range = || vec![range("K", int(1), param(4, Type::Scalar(I32)))];
    Generated {
        signature: "fn sparse_gather(x: &Field<(Edge, K), f64>, w: &Field<(Cell, C2E), f64>, each: &mut Field<(Cell, C2E, K), f64>, sum: &mut Field<(Cell, K), f64>, nk: i32) {}",
        program: program(
            "sparse_gather",
            vec![
                program_param("x", ek.clone(), Role::In),
                program_param("w", w.clone(), Role::In),
                program_param("each", sparse.clone(), Role::Out),
                program_param("sum", ck.clone(), Role::Out),
                program_param("nk", Type::Scalar(I32), Role::In),
            ],
            vec![write(
                value,
                Target::Tuple(vec![field_target(2, k_range()), field_target(3, k_range())]),
            )],
            mesh(vec![]),
        ),
    }
}

/// An output that is also read (pointwise) by the call writing it.
fn in_place() -> Generated {
    let ck = Type::field(&["Cell", "K"], F64);
    Generated {
        signature: "fn in_place(a: &Field<(Cell, K), f64>, b: &mut Field<(Cell, K), f64>) {}",
        program: program(
            "in_place",
            vec![
                program_param("a", ck.clone(), Role::In),
                program_param("b", ck.clone(), Role::InOut),
            ],
            vec![write(
                add(mul(param(1, ck.clone()), float(2.0)), param(0, ck.clone())),
                whole_field(1),
            )],
            mesh(vec![]),
        ),
    }
}

/// The Thomas algorithm in one expression: a forward scan whose results a backward scan reads
/// (GT4Py's `test_solve_triag`), so the forward scan gets a stage and temporaries of its own.
fn solve_triag(fused: bool) -> Generated {
    let ck = Type::field(&["Cell", "K"], F64);
    let f = Type::Scalar(F64);
    let pair = Type::Tuple(vec![f.clone(), f.clone()]);
    // g = b - a * c'; (c / g, (d - a * d') / g)
    let g = sub(
        param(2, f.clone()),
        mul(param(1, f.clone()), tuple_get(param(0, pair.clone()), 0)),
    );
    let forward_body = let_(
        0,
        g,
        tuple(vec![
            div(param(3, f.clone()), var(0, f.clone())),
            div(
                sub(
                    param(4, f.clone()),
                    mul(param(1, f.clone()), tuple_get(param(0, pair.clone()), 1)),
                ),
                var(0, f.clone()),
            ),
        ]),
    );
    let scalar = |n: &str| operator_param(n, f.clone());
    let forward = scan_operator(
        "triag_forward",
        vec![
            operator_param("carry", pair.clone()),
            scalar("a"),
            scalar("b"),
            scalar("c"),
            scalar("d"),
        ],
        forward_body,
        "K",
        true,
        tuple(vec![float(0.0), float(0.0)]),
    );
    // x = d' - c' * x_above
    let backward = scan_operator(
        "triag_backward",
        vec![scalar("x"), scalar("cp"), scalar("dp")],
        sub(
            param(2, f.clone()),
            mul(param(1, f.clone()), param(0, f.clone())),
        ),
        "K",
        false,
        float(0.0),
    );
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
                tuple_get(var(0, pair_field.clone()), 0),
                tuple_get(var(0, pair_field.clone()), 1),
            ],
            ck.clone(),
        ),
    );
    Generated {
        signature: "fn solve_triag(a: &Field<(Cell, K), f64>, b: &Field<(Cell, K), f64>, c: &Field<(Cell, K), f64>, d: &Field<(Cell, K), f64>, x: &mut Field<(Cell, K), f64>) {}",
        program: program(
            "solve_triag",
            vec![
                program_param("a", ck.clone(), Role::In),
                program_param("b", ck.clone(), Role::In),
                program_param("c", ck.clone(), Role::In),
                program_param("d", ck.clone(), Role::In),
                program_param("x", ck.clone(), Role::Out),
            ],
            vec![write(value, whole_field(4))],
            mesh(vec![forward, backward]),
        ),
    }
}

/// ICON's fused solver shape: the forward sweep only where `K > 0` (zero above), the back
/// substitution only where `K < nk - 1` (the sweep's value below). Each scan starts at its
/// region's first level.
fn fused_triag(fw: Expr, forward: Operator, backward: Operator) -> Generated {
    let ck = Type::field(&["Cell", "K"], F64);
    let pair_field = Type::Tuple(vec![ck.clone(), ck.clone()]);
    let nk = || param(5, Type::Scalar(I32));
    let zero = || broadcast(float(0.0), &["Cell", "K"]);
    let sweep = concat_where(
        index_cmp("K", CmpOp::Gt, int(0)),
        fw,
        tuple(vec![zero(), zero()]),
        pair_field.clone(),
    );
    let back = call(
        "triag_backward",
        vec![
            tuple_get(var(0, pair_field.clone()), 0),
            tuple_get(var(0, pair_field.clone()), 1),
        ],
        ck.clone(),
    );
    let value = let_(
        0,
        sweep,
        concat_where(
            index_cmp("K", CmpOp::Lt, sub(nk(), int(1))),
            back,
            tuple_get(var(0, pair_field.clone()), 1),
            ck.clone(),
        ),
    );
    Generated {
        signature: "fn fused_triag(a: &Field<(Cell, K), f64>, b: &Field<(Cell, K), f64>, c: &Field<(Cell, K), f64>, d: &Field<(Cell, K), f64>, x: &mut Field<(Cell, K), f64>, nk: i32) {}",
        program: program(
            "fused_triag",
            vec![
                program_param("a", ck.clone(), Role::In),
                program_param("b", ck.clone(), Role::In),
                program_param("c", ck.clone(), Role::In),
                program_param("d", ck.clone(), Role::In),
                program_param("x", ck.clone(), Role::Out),
                program_param("nk", Type::Scalar(I32), Role::In),
            ],
            vec![write(value, whole_field(4))],
            mesh(vec![forward, backward]),
        ),
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // This crate's programs test the semantics: one copy of their CPU kernels (the library's
    // programs are run in both copies by `gt4rs-stencils`' tests), which halves its build.
    println!("cargo:rustc-env=GT4RS_KERNEL_COPIES=portable");
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
        sparse_gather(),
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

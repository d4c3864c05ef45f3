//! The emitted code's structure, on IR fixtures written by `tests/build.rs`. Set
//! `GT4RS_PRINT_CPU=1` to print the emitted code (pipe through rustfmt to read it).

use gt4rs_ir::fieldview::{Expr, Program, ProgramParam, ReduceOp, Role};
use gt4rs_ir::lower::lower;
use gt4rs_ir::{CmpOp, ScalarType, Type};
use quote::quote;

use crate::codegen::program::ArgsInfo;

/// The CPU code of `program`, lowered as the program emitter lowers it.
fn emit(program: &Program) -> proc_macro2::TokenStream {
    let lowered = lower(program).map_err(|e| e.message);
    super::emit(
        program,
        lowered.as_ref().map_err(String::as_str),
        &ArgsInfo {
            ty: quote!(Args<'_>),
        },
    )
}

fn emitted(json: &str) -> String {
    let program = Program::from_json(json).expect("fixture parses");
    let code = emit(&program).to_string();
    if std::env::var_os("GT4RS_PRINT_CPU").is_some() {
        println!("{code}");
    }
    code
}

/// The text of the fast-path level function of stage 0 (empty if there is none): from `fn`
/// to the brace that closes its body (it holds no string literals).
fn fast_path(code: &str) -> &str {
    let Some(start) = code.find("fn stage0_levels") else {
        return "";
    };
    let rest = &code[start..];
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &rest[..=i];
                }
            }
            _ => {}
        }
    }
    rest
}

#[test]
fn laplacian_has_a_checked_fast_path_over_slices() {
    let code = emitted(include_str!("laplacian.json"));
    assert!(!code.contains("compile_error"), "{code}");
    let fast = fast_path(&code);
    assert!(!fast.is_empty(), "no fast path: {code}");
    // Five column reads of `a` and one output column, all slices; no error exits inside.
    assert_eq!(fast.matches("_col : & [f64]").count(), 5, "{fast}");
    assert!(fast.contains("out0 : & mut [f64]"), "{fast}");
    assert!(!fast.contains("continue 'points"), "{fast}");
    // Horizontal shifts are checked once, outside the loops (the failure names the read
    // outside its domain).
    assert!(code.contains("ShiftedReadOutside"));
}

#[test]
fn nabla4_hoists_neighbour_indices_and_horizontal_loads() {
    let code = emitted(include_str!("calculate_nabla4.json"));
    let fast = fast_path(&code);
    assert!(!fast.is_empty(), "no fast path: {code}");
    // The level loop reads 8 gathered columns (u and v at 4 neighbours) and z; the
    // neighbour table is not touched inside it.
    assert_eq!(fast.matches("_col : & [f64]").count(), 9, "{fast}");
    assert!(!fast.contains("get_unchecked"), "{fast}");
}

#[test]
fn lowering_failures_become_a_reason_compile_reports() {
    let mut program = Program::from_json(include_str!("laplacian.json")).expect("fixture parses");
    program.bundle.dims.retain(|d| d.name != "I");
    let code = emit(&program).to_string();
    assert!(!code.contains("compile_error"), "{code}");
    assert!(code.contains("CPU_UNSUPPORTED : :: core :: option :: Option < & str > = :: core :: option :: Option :: Some"), "{code}");
}

/// ICON's `apply_diffusion_to_vn` (its `IR_JSON`): an update of `vn` in place whose values are
/// all read inside `concat_where` branches, some through `E2C2V`.
#[test]
fn branch_reads_take_the_fast_path_and_update_in_place() {
    let code = emitted(include_str!("apply_diffusion_to_vn.json"));
    let fast = fast_path(&code);
    assert!(!fast.is_empty(), "no fast path: {code}");
    // The neighbour table is read per column, not per level; `vn` is read from the output's
    // own slice; no error exit inside, only the note that an undefined value was written.
    assert!(!fast.contains("get_unchecked"), "{fast}");
    assert!(fast.contains("out0 [lev] ;"), "{fast}");
    assert!(!fast.contains("continue 'points"), "{fast}");
    assert!(fast.contains("report_again |="), "{fast}");
    // The general loop runs the column again to report where.
    assert!(code.contains("if stage0_levels ("), "{code}");
}

/// A developer's tool, not a check: prints the CPU code emitted for the fieldview IR (a
/// program module's `ir().to_json()`) in the file named by `GT4RS_CPU_IR`, to read what the
/// emitter makes of a program (`cargo test -p gt4rs-macros --lib print_cpu_code -- --ignored
/// --nocapture | rustfmt`).
#[test]
#[ignore]
fn print_cpu_code() {
    let path = std::env::var("GT4RS_CPU_IR").expect("GT4RS_CPU_IR names an IR file");
    let json = std::fs::read_to_string(&path).expect("the IR file reads");
    let program = Program::from_json(&json).expect("the IR file parses");
    println!("fn program() {{ {} }}", emit(&program));
}

/// ICON's `apply_diffusion_to_theta_and_exner` (its `IR_JSON`): with `apply_zdiffusion_t`, a
/// `bool` static argument, false, the truly horizontal diffusion is not computed and its
/// fields are not read, so the cell stage takes the fast path; with it true, both are there.
#[test]
fn bool_static_arguments_get_a_loop_nest_each() {
    let code = emitted(include_str!("apply_diffusion_to_theta_and_exner.json"));
    assert!(
        code.contains("match (args . apply_zdiffusion_t ,)"),
        "{code}"
    );
    let (start, middle) = (
        code.find("fn run_cpu_v0").expect("the false copy"),
        code.find("fn run_cpu_v1").expect("the true copy"),
    );
    let (off, on) = if start < middle {
        (&code[start..middle], &code[middle..])
    } else {
        (&code[start..], &code[middle..start])
    };
    // Parameter 4 is `zd_vertoffset`, read only by the truly horizontal diffusion.
    assert!(!off.contains("f4 . get ()"), "{off}");
    assert!(on.contains("f4 . get ()"), "{on}");
    // One stage in each (the edge flux, two neighbour reads, is recomputed per cell, see
    // `gt4rs_ir::lower`), with a fast path over slices in both.
    assert!(off.contains("fn stage0_levels"), "{off}");
    assert!(on.contains("fn stage0_levels"), "{on}");
    // θ read at `K + zd_vertoffset` in the branch: a dynamic column, whose neighbour rows are
    // read once per column, so the cell stage's general level loop (the last one) reads no
    // table; the fast path reads each such column as a slice of all its levels, clamped and
    // flagged.
    let level_loop = &on[on.rfind("for k in").expect("a level loop")..];
    assert!(!level_loop.contains("get_unchecked"), "{level_loop}");
    assert!(level_loop.contains("_kout"), "{level_loop}");
    let fast = &on[on.find("fn stage0_levels").expect("a fast path")..];
    let fast = &fast[..fast.find("for lev in").expect("the fast path's loop")];
    assert_eq!(fast.matches("_dcol : & [f64]").count(), 6, "{fast}");
}

/// ICON4Py's `truly_horizontal_diffusion_nabla_of_theta_over_steep_points` (its `IR_JSON`): θ
/// of each neighbour read at `K + zd_vertoffset` outside any branch. The neighbour's column is
/// found once per column; the fast path reads it as a slice of all its levels and notes a level
/// outside the field, which the general loop, run again, reports as an error.
#[test]
fn reads_at_a_dynamic_level_take_the_fast_path() {
    let code = emitted(include_str!(
        "truly_horizontal_diffusion_nabla_of_theta_over_steep_points.json"
    ));
    let fast = fast_path(&code);
    assert_eq!(fast.matches("_dcol : & [f64]").count(), 6, "{fast}");
    assert!(fast.contains("report_again |="), "{fast}");
    assert!(!fast.contains("continue"), "{fast}");
    let general = &code[code.rfind("for k in").expect("a level loop")..];
    assert!(!general.contains("get_unchecked"), "{general}");
    assert!(general.contains("ReadOutside"), "{general}");
}

/// The body of `fn name` in `code`: from its first brace to the one that closes it.
fn function_body<'a>(code: &'a str, name: &str) -> &'a str {
    let start = code
        .find(&format!("fn {name} ("))
        .unwrap_or_else(|| panic!("no {name}: {code}"));
    let rest = &code[start..];
    let open = rest.find('{').expect("a body");
    let mut depth = 0usize;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &rest[open..=open + i];
                }
            }
            _ => {}
        }
    }
    rest
}

/// Each kernel is compiled three times on x86-64 (once in a crate's unit tests): for the
/// build's target, with AVX2 and FMA, and with AVX-512 too, the same loops; the widest the
/// options allow runs.
#[test]
fn kernels_have_a_copy_per_vector_width() {
    for json in [
        include_str!("laplacian.json"),
        include_str!("apply_diffusion_to_theta_and_exner.json"),
    ] {
        let code = emitted(json);
        // The variable that asks for one copy is named where rustc tracks it.
        assert!(
            code.contains("option_env ! (\"GT4RS_KERNEL_COPIES\")"),
            "{code}"
        );
        let names: Vec<&str> = if code.contains("fn run_cpu_v0 (") {
            // The match on the static values is compiled once, not per copy.
            assert!(!code.contains("fn run_cpu_portable ("), "{code}");
            vec!["run_cpu_v0", "run_cpu_v1"]
        } else {
            vec!["run_cpu"]
        };
        for name in names {
            let dispatch = function_body(&code, name);
            let widest = dispatch
                .find("if self . cpu . vectors == :: gt4rs :: Vectors :: Avx512 {")
                .expect(dispatch);
            let avx2 = dispatch
                .find("if self . cpu . vectors >= :: gt4rs :: Vectors :: Avx2 {")
                .expect(dispatch);
            assert!(widest < avx2, "the widest copy is tried first: {dispatch}");
            let portable = function_body(&code, &format!("{name}_portable"));
            assert!(portable.contains("for k in"), "{portable}");
            for (copy, features) in [
                ("avx2", "avx2,fma"),
                (
                    "avx512",
                    "avx2,fma,avx512f,avx512vl,avx512bw,avx512dq,avx512cd",
                ),
            ] {
                assert_eq!(portable, function_body(&code, &format!("{name}_{copy}")));
                let function = format!("fn {name}_{copy} (");
                let attributes = &code[..code.find(&function).expect(&function)];
                let attributes = &attributes[attributes.rfind("fn ").expect("a function before")..];
                assert!(
                    attributes.contains(&format!("target_feature (enable = \"{features}\")")),
                    "{attributes}"
                );
                // A crate's own unit tests build the portable copy only.
                assert!(attributes.contains("not (test)"), "{attributes}");
            }
        }
    }
}

/// ICON's `apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence` (its
/// `IR_JSON`): ∇²w sums over `C2E2CO`, whose slots are present or not per column. The fast path
/// has a second call of its level function with every slot present and nothing undefined
/// written in, taken where the column's flags say so; the vector loop comes from that copy.
#[test]
fn neighbour_sums_get_a_level_loop_with_every_slot_present() {
    let code = emitted(include_str!(
        "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence.json"
    ));
    let calls: Vec<&str> = code
        .match_indices("stage0_levels (")
        .map(|(at, _)| &code[at..])
        .filter(|rest| !rest.starts_with("stage0_levels (n :"))
        .collect();
    // Two per copy of the program (`type_shear` is 2 or not, below), in each of its
    // compilations (for the build's target, with AVX2 and with AVX-512).
    assert_eq!(calls.len(), 12, "{code}");
    let argument_list = |call: &str| call[..call.find("} ;").unwrap_or(call.len())].to_string();
    for pair in calls.chunks(2) {
        let (usual, general) = (argument_list(pair[0]), argument_list(pair[1]));
        assert!(usual.contains("true , true , true , true"), "{usual}");
        assert!(!general.contains("true , true , true , true"), "{general}");
    }
    // Which copy runs: every slot present and no flag of an undefined value set.
    assert!(
        code.contains("v14_ok0 && v14_ok1 && v14_ok2 && v14_ok3 {"),
        "{code}"
    );
    assert!(code.contains("if ! v11_0_hout &&"), "{code}");
}

/// The same program: `type_shear` (an `i32` static argument) is only tested with
/// `type_shear == 2`, so the kernels have a copy for 2 and one for any other value, where the
/// gradients of w are not computed and `geofac_grg_x`/`_y` not read. `nrdmax` (not static, and
/// compared with `K`) is not such a value.
#[test]
fn integer_statics_tested_for_equality_get_a_copy_per_literal() {
    let json =
        include_str!("apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence.json");
    let program = Program::from_json(json).expect("fixture parses");
    let position = |name: &str| {
        program
            .params
            .iter()
            .position(|p| p.name == name)
            .expect("a parameter of the program") as u32
    };
    let lowered = lower(&program).expect("the program lowers");
    let tested = lowered.equality_tests_of(position("type_shear"));
    assert_eq!(tested, Some([2].into_iter().collect()));
    assert_eq!(lowered.equality_tests_of(position("nrdmax")), None);

    let code = emitted(json);
    assert!(
        code.contains("match (args . type_shear ,) { (2i32 ,) => self . run_cpu_v0 (args) ? , (_ ,) => self . run_cpu_v1 (args) ? , }"),
        "{code}"
    );
    let (two, other) = code.split_at(code.find("fn run_cpu_v1").expect("a second copy"));
    let grg_x = format!("f{} . get ()", position("geofac_grg_x"));
    assert!(two.contains(&grg_x), "{two}");
    assert!(!other.contains(&grg_x), "{other}");
}

/// ICON4Py's `solve_tridiagonal_matrix_for_w_forward_sweep` (its `IR_JSON`): a forward scan
/// whose levels divide by a value of the level before. Its columns are walked in groups side
/// by side (one level loop for the group, each column's values renamed apart), its undefined
/// writes recorded once per column; the points no group takes walk one column at a time.
#[test]
fn a_scan_walks_groups_of_columns_side_by_side() {
    let code = emitted(include_str!(
        "solve_tridiagonal_matrix_for_w_forward_sweep.json"
    ));
    let width = super::stage::interleave_width();
    assert!(
        code.contains(&format!("while first + {width}usize <= hi")),
        "{code}"
    );
    let group = &code[code.find("while first").expect("a group loop")..];
    let group = &group[..group.find("'points").expect("the one-column loop")];
    assert_eq!(group.matches("for k in").count(), 1, "{group}");
    for w in 0..width {
        assert!(
            group.contains(&format!("let mut failed_c{w} = false")),
            "{group}"
        );
        assert!(group.contains(&format!("failed_c{w} = true")), "{group}");
    }
    assert!(!group.contains("continue"), "{group}");
    assert!(code.contains("'points : for p in first .. hi"), "{code}");
}

/// A program over `Edge × K` of `a` (and `c` at cells, read through `E2C`) with the static
/// arguments `statics` after them, writing `value` to `out`.
fn program_with_statics(statics: &[(&str, ScalarType)], value: Expr) -> Program {
    use gt4rs_ir::build::{bundle, offset, program, program_param, whole_field, write};
    let mut params = vec![
        program_param("a", ek(), Role::In),
        program_param("c", Type::field(&["Cell", "K"], F), Role::In),
        program_param("out", ek(), Role::Out),
    ];
    params.extend(statics.iter().map(|&(name, dtype)| ProgramParam {
        is_static: true,
        ..program_param(name, Type::Scalar(dtype), Role::In)
    }));
    program(
        "statics",
        params,
        vec![write(value, whole_field(2))],
        bundle(
            vec![],
            &["Cell", "Edge"],
            &["K"],
            &[offset("E2C", "Edge", "Cell", 2)],
        ),
    )
}

const F: ScalarType = ScalarType::F64;

fn ek() -> Type {
    Type::field(&["Edge", "K"], F)
}

/// The `match` of a specialised program's `run_cpu`, from `match` to its closing brace.
fn specialisation_match(code: &str) -> &str {
    let start = code.find("match (args").expect("a specialised program");
    let end = code[start..].find("} Ok").expect("the match closes") + start;
    &code[start..=end]
}

/// `mode >= 3` on a static `i32`: a copy for `..=2` and one for the rest (the ICON solver's
/// `divdamp_type >= 3`); a static `bool` the stages never read makes no copies.
#[test]
fn integer_statics_compared_in_order_get_a_copy_per_class() {
    use gt4rs_ir::build::{add, compare, float, if_else, int, mul, param};
    let value = if_else(
        compare(
            CmpOp::Ge,
            param(3, Type::Scalar(ScalarType::I32)),
            int(3),
            Type::Scalar(ScalarType::Bool),
        ),
        mul(param(0, ek()), float(2.0)),
        add(param(0, ek()), float(1.0)),
        ek(),
    );
    let program = program_with_statics(
        &[("mode", ScalarType::I32), ("unread", ScalarType::Bool)],
        value,
    );
    let code = emit(&program).to_string();
    assert!(!code.contains("compile_error"), "{code}");
    assert_eq!(
        specialisation_match(&code),
        "match (args . mode ,) { (..= 2i32 ,) => self . run_cpu_v0 (args) ? , (_ ,) => self . run_cpu_v1 (args) ? , }"
    );
    assert!(
        code.contains("\"mode in ..=2\""),
        "the copies' stage-time names: {code}"
    );
    assert!(code.contains("\"mode in 3..\""), "{code}");
}

/// Four `bool` static arguments that each guard a product and one that guards a neighbour
/// sum: of the 32 combinations the kernels get 8, and the neighbour sum's flag is among the
/// three arguments specialised (taken in parameter order, it would have been left out).
#[test]
fn statics_that_take_the_most_work_out_are_specialised_first() {
    use gt4rs_ir::build::{add, float, if_else, mul, neighbor_shift, param, reduce};
    let flag = |i: u32| param(3 + i, Type::Scalar(ScalarType::Bool));
    let mut value = param(0, ek());
    for i in 0..4 {
        value = if_else(
            flag(i),
            mul(value.clone(), float(2.0 + f64::from(i))),
            value,
            ek(),
        );
    }
    let sparse = Type::field(&["Edge", "E2C", "K"], F);
    let gathered = reduce(
        ReduceOp::Sum,
        "E2C",
        neighbor_shift(
            param(1, Type::field(&["Cell", "K"], F)),
            "E2C",
            None,
            sparse,
        ),
    );
    let value = if_else(flag(4), add(value.clone(), gathered), value, ek());
    let statics: Vec<(String, ScalarType)> = (0..5)
        .map(|i| (format!("b{i}"), ScalarType::Bool))
        .collect();
    let statics: Vec<(&str, ScalarType)> = statics.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    let code = emit(&program_with_statics(&statics, value)).to_string();
    let matched = specialisation_match(&code);
    assert!(
        matched.starts_with("match (args . b0 , args . b1 , args . b4 ,)"),
        "{matched}"
    );
    assert!(code.contains("fn run_cpu_v7"), "8 copies: {code}");
    assert!(!code.contains("fn run_cpu_v8"), "{code}");
}

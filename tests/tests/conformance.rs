//! GT4Py's fieldview feature tests (`tests/next_tests/…/ffront_tests/`), ported: one module per
//! test file. Every case runs on every backend (see `gt4rs_tests::for_each_backend`: embedded,
//! CPU, CPU split into tiny parallel chunks, and CPU with columns split into blocks of levels) against a reference written as plain loops, on
//! random inputs, with outputs poisoned before each run so that unwritten points and points
//! written outside the program's domain are caught. `GT4RS_TEST_BACKENDS=embedded` (or `cpu`)
//! restricts the loop. Tests marked `#[ignore]` reproduce open backend questions (see their
//! doc comments); run them with `--include-ignored`.

#[path = "../conformance/common.rs"]
mod common;

#[path = "../conformance/arg_call_interface.rs"]
mod arg_call_interface;
#[path = "../conformance/basic.rs"]
mod basic;
#[path = "../conformance/broadcast.rs"]
mod broadcast;
#[path = "../conformance/cartesian_shifts.rs"]
mod cartesian_shifts;
#[path = "../conformance/concat_where.rs"]
mod concat_where;
#[path = "../conformance/conditionals.rs"]
mod conditionals;
#[path = "../conformance/domain.rs"]
mod domain;
#[path = "../conformance/external_local_field.rs"]
mod external_local_field;
#[path = "../conformance/icon_like_scan.rs"]
mod icon_like_scan;
#[path = "../conformance/laplacian.rs"]
mod laplacian;
#[path = "../conformance/math_builtin_execution.rs"]
mod math_builtin_execution;
#[path = "../conformance/math_unary_builtins.rs"]
mod math_unary_builtins;
#[path = "../conformance/multiple_output_domains.rs"]
mod multiple_output_domains;
#[path = "../conformance/program.rs"]
mod program;
#[path = "../conformance/reductions.rs"]
mod reductions;
#[path = "../conformance/scalar_args.rs"]
mod scalar_args;
#[path = "../conformance/scan.rs"]
mod scan;
#[path = "../conformance/tuples.rs"]
mod tuples;
#[path = "../conformance/type_conversion.rs"]
mod type_conversion;
#[path = "../conformance/where.rs"]
mod r#where;

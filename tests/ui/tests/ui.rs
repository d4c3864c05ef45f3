//! Compile-time behaviour of the macros: programs that must compile and diagnostics that must
//! appear (one file per diagnostic, with its expected `.stderr`; `TRYBUILD=overwrite cargo
//! test --release -p gt4rs-ui` rewrites them).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("pass/*.rs");
    cases.compile_fail("fail/*.rs");
}

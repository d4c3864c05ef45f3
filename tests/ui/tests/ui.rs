//! Compile-time behaviour of the macros: programs that must compile and diagnostics that must
//! appear (one file per diagnostic, with its expected `.stderr`).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("ui/pass/*.rs");
    cases.compile_fail("ui/fail/*.rs");
}

//! `GT4RS_DEBUG` reaches every program at `compile()`; an unknown check is an error naming it.
//! (A test binary of its own: it sets the process's environment.)

use gt4rs::prelude::*;
use gt4rs_tests::*;

#[field_operator]
fn twice(a: Field<(I, J), f64>) -> Field<(I, J), f64> {
    2.0 * a
}

#[program]
fn double(a: &Field<(I, J), f64>, out: &mut Field<(I, J), f64>) {
    twice(a).write_to(out, domain![I: 0..2, J: 0..2]);
}

#[test]
fn the_environment_switches_checks_on_and_unknown_checks_are_refused() {
    let options = Options::new(Backend::Cpu);
    std::env::set_var("GT4RS_DEBUG", "nan,progress");
    let program = double::compile(&options).expect("compiles");
    assert!(program.debug_checks().nan && program.debug_checks().progress);
    std::env::set_var("GT4RS_DEBUG", "bogus");
    expect_error(double::compile(&options), &["GT4RS_DEBUG", "`bogus`"]);
    std::env::remove_var("GT4RS_DEBUG");
    assert!(!double::compile(&options)
        .expect("compiles")
        .debug_checks()
        .is_on());
}

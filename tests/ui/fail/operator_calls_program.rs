use gt4rs::prelude::*;

gt4rs::dimensions! { pub Edge: horizontal; pub K: vertical; }

#[field_operator]
pub fn double(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    a * 2.0
}

#[program]
pub fn run_double(a: &Field<(Edge, K), f64>, out: &mut Field<(Edge, K), f64>) {
    double(a).write_to(out);
}

#[field_operator]
pub fn quadruple(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    run_double(a) * 2.0
}

fn main() {}

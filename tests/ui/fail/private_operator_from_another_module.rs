use gt4rs::prelude::*;

gt4rs::dimensions! { pub Edge: horizontal; pub K: vertical; }

mod ops {
    use super::*;

    #[field_operator]
    fn double(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
        a * 2.0
    }
}

#[field_operator]
pub fn quadruple(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    ops::double(a) * 2.0
}

fn main() {}

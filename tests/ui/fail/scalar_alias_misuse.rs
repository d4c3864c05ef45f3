use gt4rs::prelude::*;

gt4rs::dimensions! { pub Edge: horizontal; pub K: vertical; }
gt4rs::scalar_types! { pub vpfloat = f32; }
gt4rs::scalar_types! { pub notascalar = Edge; }

// A dimension is no element type.
#[field_operator]
pub fn dimension_as_element(a: Field<(Edge, K), Edge>) -> Field<(Edge, K), Edge> {
    a
}

// Nor a cast target.
#[field_operator]
pub fn cast_to_dimension(a: Field<(Edge, K), vpfloat>) -> Field<(Edge, K), vpfloat> {
    let b = a as K;
    a
}

// Aliases resolve like the primitive they stand for, so f32 and f64 still do not mix.
#[field_operator]
pub fn alias_is_f32(a: Field<(Edge, K), vpfloat>, b: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    a + b
}

fn main() {}

use gt4rs::prelude::*;

gt4rs::dimensions! { pub Edge: horizontal; pub K: vertical; }

mod steps {
    use super::*;

    #[field_operator]
    pub fn first(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
        self::inner::second(a)
    }

    pub mod inner {
        use super::super::*;

        #[field_operator]
        pub fn second(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
            third(a * 0.5)
        }

        #[field_operator]
        pub fn third(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
            super::first(a) + a
        }
    }
}

fn main() {}

use gt4rs::prelude::*;

gt4rs::dimensions! { pub Cell, Edge: horizontal; }

mod coarse {
    use super::*;
    gt4rs::offsets! { pub E2C: super::Edge => super::Cell [2]; }

    #[field_operator]
    pub fn first(cell: Field<Cell, f64>) -> Field<Edge, f64> {
        cell.at(E2C[0])
    }
}

mod fine {
    use super::*;
    gt4rs::offsets! { pub E2C: super::Edge => super::Cell [2]; }

    #[field_operator]
    pub fn second(cell: Field<Cell, f64>) -> Field<Edge, f64> {
        cell.at(E2C[1])
    }
}

// Each operator names one `E2C`; the program that calls both meets the two.
#[program]
pub fn both(cell: &Field<Cell, f64>, a: &mut Field<Edge, f64>, b: &mut Field<Edge, f64>) {
    coarse::first(cell).write_to(a);
    fine::second(cell).write_to(b);
}

fn main() {}

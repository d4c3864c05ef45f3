use gt4rs::prelude::*;

gt4rs::dimensions! { pub Cell, Edge: horizontal; }

mod coarse {
    gt4rs::offsets! { pub E2C: super::Edge => super::Cell [2]; }
}
mod fine {
    gt4rs::offsets! { pub E2C: super::Edge => super::Cell [2]; }
}

#[field_operator]
pub fn both(cell: Field<Cell, f64>) -> Field<Edge, f64> {
    cell.at(coarse::E2C[0]) + cell.at(fine::E2C[0])
}

fn main() {}

gt4rs::dimensions! { pub Cell, Edge: horizontal; }
gt4rs::offsets! { pub E2C: Edge => Cell [2] with skip; }

fn main() {}

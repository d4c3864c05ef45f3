use gt4rs::prelude::*;

gt4rs::dimensions! { pub Edge: horizontal; pub K: vertical; }

#[field_operator]
pub fn scaled(a: Field<(Edge, K), f64>, area: Field<Edge, f64>) -> Field<(Edge, K), f64> {
    a * area
}

#[program]
pub fn scale(
    a: &Field<(Edge, K), f64>,
    area: &Field<Edge, f64>,
    out: &mut Field<(Edge, K), f64>,
    horizontal_start: i32,
    horizontal_end: i32,
) {
    scaled(a, area).write_to(out, domain![Edge: horizontal_start..horizontal_end]);
}

gt4rs::bind! {
    mod scale_bound = scale(area, horizontal_start, horizontal_end);
}

fn run(a: &Field<(Edge, K), f64>, out: &mut Field<(Edge, K), f64>, area: &std::sync::Arc<Field<Edge, f64>>) {
    let compiled = scale_bound::compile(
        &Options::new(Backend::Cpu),
        scale_bound::Bound {
            area: std::sync::Arc::clone(area),
            horizontal_start: 0,
            horizontal_end: 4,
        },
    );
    if let Ok(compiled) = compiled {
        let _ = compiled.call(scale_bound::Args { a, area, out });
    }
}

fn main() {}

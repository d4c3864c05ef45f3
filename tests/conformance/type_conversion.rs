//! GT4Py `test_type_conversion.py` (`astype` is gt4rs's `as`): to int, of local fields, to
//! bool, to f32 (field and scalar), and typed literals (`2.0f32` for `float32(2.0)`). `astype`
//! of a whole tuple has no gt4rs spelling: each element is converted.

use super::common::*;

#[field_operator]
fn conversions(
    a: Field<(Vertex, K), f64>,
    sparse: Field<(Vertex, V2E), f64>,
    n: Field<(Vertex, K), i32>,
    s: f64,
) -> (
    Field<(Vertex, K), i32>,
    Field<(Vertex, K), f32>,
    Field<Vertex, f32>,
    Field<(Vertex, K), i64>,
    Field<(Vertex, K), bool>,
) {
    let truncated = (a * 10.0) as i32;
    let single = a as f32 * 2.0f32 + s as f32;
    let local = (sparse as f32)[V2E(1)] + neighbor_sum(sparse as f32, V2E);
    let widened = n as i64 * 3_000_000_000i64;
    let nonzero = (n as f64 * a) > 0.0;
    (truncated, single, local, widened, nonzero)
}

#[program]
fn conversions_prog(
    a: &Field<(Vertex, K), f64>,
    sparse: &Field<(Vertex, V2E), f64>,
    n: &Field<(Vertex, K), i32>,
    s: f64,
    truncated: &mut Field<(Vertex, K), i32>,
    single: &mut Field<(Vertex, K), f32>,
    local: &mut Field<Vertex, f32>,
    widened: &mut Field<(Vertex, K), i64>,
    nonzero: &mut Field<(Vertex, K), bool>,
) {
    conversions(a, sparse, n, s).write_to((truncated, single, local, widened, nonzero));
}

#[test]
fn dtype_conversions_of_fields_local_fields_and_scalars() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1201);
    let dom = sized(&[mesh.n_vertices, NK]);
    let v = sized(&[mesh.n_vertices]);
    let a: Field<(Vertex, K), f64> = random_field(&mut rng, &dom);
    let sparse: Field<(Vertex, V2E), f64> = random_field(&mut rng, &sized(&[mesh.n_vertices, 4]));
    let n: Field<(Vertex, K), i32> = random_field(&mut rng, &dom);
    let s = 0.3;
    for_each_backend(|backend| {
        let mut truncated = poisoned(&dom);
        let mut single = poisoned(&dom);
        let mut local = poisoned(&v);
        let mut widened = poisoned(&dom);
        // Bools have no poison: the output starts as the negation of its expected value.
        let want_nonzero = |p: &[i64]| at(&n, p) as f64 * at(&a, p) > 0.0;
        let mut nonzero = Field::from_fn(&dom, Layout::default(), |p| !want_nonzero(p))?;
        conversions_prog::compile(&backend.options_with(mesh.connectivities()))?.call(
            conversions_prog::Args {
                a: &a,
                sparse: &sparse,
                n: &n,
                s,
                truncated: &mut truncated,
                single: &mut single,
                local: &mut local,
                widened: &mut widened,
                nonzero: &mut nonzero,
            },
        )?;
        expect_field("truncated", &truncated, &dom, |p| (at(&a, p) * 10.0) as i32);
        expect_field("single", &single, &dom, |p| {
            at(&a, p) as f32 * 2.0 + s as f32
        });
        expect_field("local", &local, &v, |p| {
            let row: Vec<f32> = (0..4).map(|j| at(&sparse, &[p[0], j]) as f32).collect();
            row[1] + row.iter().sum::<f32>()
        });
        expect_field("widened", &widened, &dom, |p| {
            at(&n, p) as i64 * 3_000_000_000
        });
        expect_field("nonzero", &nonzero, &dom, want_nonzero);
        Ok(())
    });
}

/// GT4Py's `astype(x, bool)` (non-zero is true) and back to numbers.
#[field_operator]
fn to_bool(
    n: Field<(I, K), i32>,
    x: Field<(I, K), f64>,
) -> (Field<(I, K), bool>, Field<(I, K), f64>) {
    let as_bool = n as bool;
    (
        as_bool & (x as bool),
        (as_bool as i32) as f64 + (x > 0.0) as f64,
    )
}
#[program]
fn to_bool_prog(
    n: &Field<(I, K), i32>,
    x: &Field<(I, K), f64>,
    both: &mut Field<(I, K), bool>,
    count: &mut Field<(I, K), f64>,
) {
    to_bool(n, x).write_to((both, count));
}

#[test]
fn conversions_to_and_from_bool() {
    let mut rng = rng(1202);
    let dom = sized(&[NI, NK]);
    // Zeros on purpose: they are the false values.
    let n = random_int_field(&mut rng, &dom, -2..3);
    let x = Field::from_fn(&dom, Layout::default(), |p| {
        if (p[0] + p[1]) % 3 == 0 {
            0.0
        } else {
            p[1] as f64 - 4.5
        }
    })
    .unwrap();
    for_each_backend(|backend| {
        let want_both = |p: &[i64]| at(&n, p) != 0 && at(&x, p) != 0.0;
        let mut both = Field::from_fn(&dom, Layout::default(), |p| !want_both(p))?;
        let mut count = poisoned(&dom);
        to_bool_prog::compile(&backend.options())?.call(to_bool_prog::Args {
            n: &n,
            x: &x,
            both: &mut both,
            count: &mut count,
        })?;
        expect_field("both", &both, &dom, want_both);
        expect_field("count", &count, &dom, |p| {
            (at(&n, p) != 0) as i32 as f64 + (at(&x, p) > 0.0) as i32 as f64
        });
        Ok(())
    });
}

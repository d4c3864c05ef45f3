//! The sign of a zero maximum or minimum: `gt4rs_ir::scalar` orders -0.0 below +0.0 (IEEE
//! 754-2019's maximumNumber and minimumNumber), and every backend follows, whatever the order of
//! the operands. Rust's `f64::max` and C's `fmax` each leave that sign to the order: the
//! differential fuzzer (seed 20260244) found `max_over` of zeros of both signs giving -0.0 on
//! the embedded and CPU backends and +0.0 on the emulated CUDA kernels.

use gt4rs::prelude::*;
use gt4rs_tests::*;
use rand::RngExt;

#[field_operator]
fn largest_neighbour(e: Field<(Edge, K), f64>) -> Field<(Vertex, K), f64> {
    max_over(e.at(V2E), V2E)
}

#[field_operator]
fn smallest_neighbour(e: Field<(Edge, K), f64>) -> Field<(Vertex, K), f64> {
    min_over(e.at(V2E), V2E)
}

#[field_operator]
fn larger_of(a: Field<(Edge, K), f32>, b: Field<(Edge, K), f32>) -> Field<(Edge, K), f32> {
    a.max(b)
}

#[field_operator]
fn smaller_of(a: Field<(Edge, K), f32>, b: Field<(Edge, K), f32>) -> Field<(Edge, K), f32> {
    f32::min(a, b)
}

#[program]
fn zero_extrema(
    nonpositive: &Field<(Edge, K), f64>,
    nonnegative: &Field<(Edge, K), f64>,
    a: &Field<(Edge, K), f32>,
    b: &Field<(Edge, K), f32>,
    largest: &mut Field<(Vertex, K), f64>,
    smallest: &mut Field<(Vertex, K), f64>,
    larger: &mut Field<(Edge, K), f32>,
    smaller: &mut Field<(Edge, K), f32>,
) {
    largest_neighbour(nonpositive).write_to(largest);
    smallest_neighbour(nonnegative).write_to(smallest);
    larger_of(a, b).write_to(larger);
    smaller_of(a, b).write_to(smaller);
}

/// A field of zeros of both signs and, at one point in `1 / other_share`, `other` times a
/// random magnitude, each drawn at random.
fn signed_zeros<T: Copy>(
    rng: &mut TestRng,
    domain: &[std::ops::Range<i64>],
    zero: T,
    negative_zero: T,
    mut other: impl FnMut(f64) -> T,
    other_share: u32,
) -> Vec<T> {
    let n = domain.iter().map(|r| (r.end - r.start) as usize).product();
    (0..n)
        .map(|_| {
            if rng.random_ratio(1, other_share) {
                other(rng.random_range(0.5..2.0))
            } else if rng.random_bool(0.5) {
                zero
            } else {
                negative_zero
            }
        })
        .collect()
}

fn field<D: gt4rs::Dims, T: TestScalar>(
    domain: &[std::ops::Range<i64>],
    values: &[T],
) -> Field<D, T> {
    let mut next = values.iter();
    Field::from_fn(domain, Layout::default(), |_| {
        *next.next().expect("one value per point")
    })
    .expect("test domain")
}

/// The greater of two floats with -0.0 below +0.0 (`total_cmp` orders exactly so on numbers).
fn greater(a: f64, b: f64) -> f64 {
    if a.total_cmp(&b).is_ge() {
        a
    } else {
        b
    }
}

fn lesser(a: f64, b: f64) -> f64 {
    if a.total_cmp(&b).is_le() {
        a
    } else {
        b
    }
}

/// Checks every point of `got` bit for bit (the sign of a zero included) against `want`.
fn expect_bits<D: gt4rs::Dims>(label: &str, got: &Field<D, f64>, want: impl Fn(&[i64]) -> f64) {
    let mut wrong = Vec::new();
    for point in points(&got.domain()) {
        let value = got.get(&point).expect("a point of the field's domain");
        let expected = want(&point);
        if value.to_bits() != expected.to_bits() {
            wrong.push(format!("{point:?}: got {value:?}, want {expected:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{label}: {} wrong points: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(8)]
    );
}

#[test]
fn zero_extrema_have_one_sign_on_every_backend() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(20_260_244);
    let edges = [0..mesh.n_edges as i64, 0..NK as i64];
    let vertices = [0..mesh.n_vertices as i64, 0..NK as i64];
    // Mostly zeros of both signs; the other values lie on the side that never wins, so most
    // extrema are zeros, but a few are not.
    let nonpositive_values = signed_zeros(&mut rng, &edges, 0.0, -0.0, |m| -m, 4);
    let nonnegative_values = signed_zeros(&mut rng, &edges, 0.0, -0.0, |m| m, 4);
    let a_values = signed_zeros(&mut rng, &edges, 0.0f32, -0.0, |m| m as f32, 6);
    let b_values = signed_zeros(&mut rng, &edges, 0.0f32, -0.0, |m| -m as f32, 6);
    let nonpositive: Field<(Edge, K), f64> = field(&edges, &nonpositive_values);
    let nonnegative: Field<(Edge, K), f64> = field(&edges, &nonnegative_values);
    let a: Field<(Edge, K), f32> = field(&edges, &a_values);
    let b: Field<(Edge, K), f32> = field(&edges, &b_values);
    let reduce = |input: &Field<(Edge, K), f64>, p: &[i64], pick: fn(f64, f64) -> f64| {
        neighbours(&mesh.v2e, p[0])
            .iter()
            .map(|&e| at(input, &[i64::from(e), p[1]]))
            .reduce(pick)
            .expect("every vertex has neighbours")
    };
    let mut zero_maxima = [0usize; 2];
    for p in points(&vertices) {
        let m = reduce(&nonpositive, &p, greater);
        if m == 0.0 {
            zero_maxima[usize::from(m.is_sign_negative())] += 1;
        }
    }
    assert!(
        zero_maxima[0] > 0 && zero_maxima[1] > 0,
        "the inputs give zero maxima of both signs: {zero_maxima:?}"
    );
    for_each_backend(|backend| {
        let mut largest = poisoned(&vertices);
        let mut smallest = poisoned(&vertices);
        let mut larger = poisoned(&edges);
        let mut smaller = poisoned(&edges);
        zero_extrema::compile(&backend.options_with(mesh.connectivities()))?.call(
            zero_extrema::Args {
                nonpositive: &nonpositive,
                nonnegative: &nonnegative,
                a: &a,
                b: &b,
                largest: &mut largest,
                smallest: &mut smallest,
                larger: &mut larger,
                smaller: &mut smaller,
            },
        )?;
        let name = backend.name();
        expect_bits(&format!("{name}: max_over"), &largest, |p| {
            reduce(&nonpositive, p, greater)
        });
        expect_bits(&format!("{name}: min_over"), &smallest, |p| {
            reduce(&nonnegative, p, lesser)
        });
        let widened = |f: &Field<(Edge, K), f32>| -> Field<(Edge, K), f64> {
            Field::from_fn(&edges, Layout::default(), |p| f64::from(at(f, p))).expect("test domain")
        };
        let (larger, smaller) = (widened(&larger), widened(&smaller));
        let pointwise =
            |p: &[i64], pick: fn(f64, f64) -> f64| pick(f64::from(at(&a, p)), f64::from(at(&b, p)));
        expect_bits(&format!("{name}: f32 max"), &larger, |p| {
            pointwise(p, greater)
        });
        expect_bits(&format!("{name}: f32 min"), &smaller, |p| {
            pointwise(p, lesser)
        });
        Ok(())
    });
}

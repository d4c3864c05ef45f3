//! GT4Py `test_math_unary_builtins.py`: arithmetic, power, floor division, remainder with
//! negative operands, `^ & |` on bools and integers, unary `-` and `!`, conversions of negative
//! numbers, trigonometric, exponential, gamma, roots, predicates and rounding on fields and
//! scalars. gt4rs's `%` is Rust's remainder (truncated; GT4Py's is Python's floored one), and
//! GT4Py's `//` (floor division) is `div_euclid` with a positive divisor here.

use super::common::*;

#[field_operator]
fn arithmetic(
    a: Field<(I, K), f64>,
    b: Field<(I, K), f64>,
    n: Field<(I, K), i32>,
    m: Field<(I, K), i32>,
) -> (
    Field<(I, K), f64>,
    Field<(I, K), f64>,
    Field<(I, K), i32>,
    Field<(I, K), i32>,
    Field<(I, K), i32>,
    Field<(I, K), f64>,
) {
    let mixed = (a + b) * (a - b) / b - -a;
    let power = a.abs().powf(b) + a.powi(2);
    let floor_div = n.div_euclid(3);
    let remainder = n % m;
    let bits = (n & m) | (n ^ 5) | !m;
    let modulo = a % b;
    (mixed, power, floor_div, remainder, bits, modulo)
}

#[program]
fn arithmetic_prog(
    a: &Field<(I, K), f64>,
    b: &Field<(I, K), f64>,
    n: &Field<(I, K), i32>,
    m: &Field<(I, K), i32>,
    mixed: &mut Field<(I, K), f64>,
    power: &mut Field<(I, K), f64>,
    floor_div: &mut Field<(I, K), i32>,
    remainder: &mut Field<(I, K), i32>,
    bits: &mut Field<(I, K), i32>,
    modulo: &mut Field<(I, K), f64>,
) {
    arithmetic(a, b, n, m).write_to(
        (mixed, power, floor_div, remainder, bits, modulo),
        domain![K: 1..8],
    );
}

#[test]
fn arithmetic_power_division_and_bit_operations() {
    let mut rng = rng(1401);
    let dom = sized(&[NI, NK]);
    let written = [0..NI as i64, 1..8];
    let a: Field<(I, K), f64> = random_field(&mut rng, &dom);
    let b: Field<(I, K), f64> = random_field(&mut rng, &dom);
    // Random signs: the remainder sees negative operands on both sides.
    let n: Field<(I, K), i32> = random_field(&mut rng, &dom);
    let m: Field<(I, K), i32> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let (mut mixed, mut power, mut modulo) = (poisoned(&dom), poisoned(&dom), poisoned(&dom));
        let (mut floor_div, mut remainder, mut bits) =
            (poisoned(&dom), poisoned(&dom), poisoned(&dom));
        arithmetic_prog::compile(&backend.options())?.call(arithmetic_prog::Args {
            a: &a,
            b: &b,
            n: &n,
            m: &m,
            mixed: &mut mixed,
            power: &mut power,
            floor_div: &mut floor_div,
            remainder: &mut remainder,
            bits: &mut bits,
            modulo: &mut modulo,
        })?;
        let (fa, fb) = (|p: &[i64]| at(&a, p), |p: &[i64]| at(&b, p));
        let (fnn, fm) = (|p: &[i64]| at(&n, p), |p: &[i64]| at(&m, p));
        expect_field("mixed", &mixed, &written, |p| {
            (fa(p) + fb(p)) * (fa(p) - fb(p)) / fb(p) + fa(p)
        });
        expect_field("power", &power, &written, |p| {
            fa(p).abs().powf(fb(p)) + fa(p).powi(2)
        });
        expect_field("floor_div", &floor_div, &written, |p| fnn(p).div_euclid(3));
        expect_field("remainder", &remainder, &written, |p| fnn(p) % fm(p));
        expect_field("bits", &bits, &written, |p| {
            (fnn(p) & fm(p)) | (fnn(p) ^ 5) | !fm(p)
        });
        expect_field("modulo", &modulo, &written, |p| fa(p) % fb(p));
        Ok(())
    });
}

#[field_operator]
fn logic(
    x: Field<(I, K), bool>,
    y: Field<(I, K), bool>,
    flag: bool,
) -> (
    Field<(I, K), bool>,
    Field<(I, K), bool>,
    Field<(I, K), bool>,
    Field<(I, K), bool>,
) {
    (x ^ y, x & !y, x | (y & flag), !x)
}
#[program]
fn logic_prog(
    x: &Field<(I, K), bool>,
    y: &Field<(I, K), bool>,
    flag: bool,
    xor: &mut Field<(I, K), bool>,
    and_not: &mut Field<(I, K), bool>,
    or: &mut Field<(I, K), bool>,
    not: &mut Field<(I, K), bool>,
) {
    logic(x, y, flag).write_to((xor, and_not, or, not));
}

#[test]
fn logic_on_bool_fields_and_scalars() {
    let mut rng = rng(1402);
    let dom = sized(&[NI, NK]);
    let x: Field<(I, K), bool> = random_field(&mut rng, &dom);
    let y: Field<(I, K), bool> = random_field(&mut rng, &dom);
    for flag in [true, false] {
        for_each_backend(|backend| {
            // Bools have no poison: each output starts as the negation of its expected value.
            let start = |f: &dyn Fn(&[i64]) -> bool| {
                Field::from_fn(&dom, Layout::default(), |p| !f(p)).unwrap()
            };
            let (fx, fy) = (|p: &[i64]| at(&x, p), |p: &[i64]| at(&y, p));
            let want_xor = |p: &[i64]| fx(p) ^ fy(p);
            let want_and_not = |p: &[i64]| fx(p) & !fy(p);
            let want_or = |p: &[i64]| fx(p) | (fy(p) & flag);
            let want_not = |p: &[i64]| !fx(p);
            let (mut xor, mut and_not, mut or, mut not) = (
                start(&want_xor),
                start(&want_and_not),
                start(&want_or),
                start(&want_not),
            );
            logic_prog::compile(&backend.options())?.call(logic_prog::Args {
                x: &x,
                y: &y,
                flag,
                xor: &mut xor,
                and_not: &mut and_not,
                or: &mut or,
                not: &mut not,
            })?;
            expect_field("xor", &xor, &dom, want_xor);
            expect_field("and_not", &and_not, &dom, want_and_not);
            expect_field("or", &or, &dom, want_or);
            expect_field("not", &not, &dom, want_not);
            Ok(())
        });
    }
}

/// Unary operators and functions on scalars, broadcast: GT4Py's `float(-1)`, `-x`, `~x`.
#[field_operator]
fn scalar_unary(s: f64, n: i32) -> (Field<K, f64>, Field<K, i32>, Field<K, f64>) {
    let negated = -(-1 as f64) * s.sin().exp() + s.floor() + s.ceil().abs() + s.trunc().sqrt();
    let bitwise = !n + (-n) + n.abs();
    let gamma_and_roots = gamma(s.abs() + 1.0) + s.cbrt() + s.tanh().atanh();
    (
        broadcast(negated, K),
        broadcast(bitwise, K),
        broadcast(gamma_and_roots, K),
    )
}
#[program]
fn scalar_unary_prog(
    s: f64,
    n: i32,
    a: &mut Field<K, f64>,
    b: &mut Field<K, i32>,
    c: &mut Field<K, f64>,
) {
    scalar_unary(s, n).write_to((a, b, c), domain![K: 0..3]);
}

#[test]
fn unary_operators_and_functions_on_scalars() {
    let dom = sized(&[NK]);
    let (s, n) = (2.75, -13);
    for_each_backend(|backend| {
        let (mut a, mut c) = (poisoned(&dom), poisoned(&dom));
        let mut b = poisoned(&dom);
        scalar_unary_prog::compile(&backend.options())?.call(scalar_unary_prog::Args {
            s,
            n,
            a: &mut a,
            b: &mut b,
            c: &mut c,
        })?;
        let want_a = 1.0 * s.sin().exp() + s.floor() + s.ceil().abs() + s.trunc().sqrt();
        expect_field("negated", &a, &[0..3], |_| want_a);
        expect_field("bitwise", &b, &[0..3], |_| !n + (-n) + n.abs());
        // Γ(3.75) = 2.75 · 1.75 · 0.75 · Γ(0.75), Γ(0.75) = 1.2254167024651776.
        let gamma = 2.75 * 1.75 * 0.75 * 1.225_416_702_465_177_6;
        expect_field("gamma_and_roots", &c, &[0..3], |_| {
            gamma + s.cbrt() + s.tanh().atanh()
        });
        Ok(())
    });
}

/// Integer arithmetic wraps on overflow (the embedded backend's documented choice; debug builds
/// of Rust would panic, which a library must not do on user data).
#[field_operator]
fn overflowing(
    n: Field<(I, K), i32>,
    big: i32,
) -> (Field<(I, K), i32>, Field<(I, K), i32>, Field<(I, K), i32>) {
    (n * big, n + big, -(n - big) - big)
}
#[program]
fn overflowing_prog(
    n: &Field<(I, K), i32>,
    big: i32,
    product: &mut Field<(I, K), i32>,
    sum: &mut Field<(I, K), i32>,
    negated: &mut Field<(I, K), i32>,
) {
    overflowing(n, big).write_to((product, sum, negated));
}

#[test]
fn integer_overflow_wraps() {
    let mut rng = rng(1403);
    let dom = sized(&[NI, NK]);
    let n: Field<(I, K), i32> = random_field(&mut rng, &dom);
    let big = i32::MAX - 3;
    for_each_backend(|backend| {
        let (mut product, mut sum, mut negated) = (poisoned(&dom), poisoned(&dom), poisoned(&dom));
        overflowing_prog::compile(&backend.options())?.call(overflowing_prog::Args {
            n: &n,
            big,
            product: &mut product,
            sum: &mut sum,
            negated: &mut negated,
        })?;
        expect_field("product", &product, &dom, |p| at(&n, p).wrapping_mul(big));
        expect_field("sum", &sum, &dom, |p| at(&n, p).wrapping_add(big));
        expect_field("negated", &negated, &dom, |p| {
            at(&n, p).wrapping_sub(big).wrapping_neg().wrapping_sub(big)
        });
        Ok(())
    });
}

/// Integer division and remainder by zero never panic. The embedded backend reports an error
/// (its documented choice); the fused CPU backend computes some value at that point without a
/// check per point (GT4Py leaves it undefined), and every other point must still be right.
#[field_operator]
fn divide(
    n: Field<(I, K), i32>,
    m: Field<(I, K), i32>,
) -> (Field<(I, K), i32>, Field<(I, K), i32>) {
    (n / m, n % m)
}
#[program]
fn divide_prog(
    n: &Field<(I, K), i32>,
    m: &Field<(I, K), i32>,
    q: &mut Field<(I, K), i32>,
    r: &mut Field<(I, K), i32>,
) {
    divide(n, m).write_to((q, r));
}

#[test]
fn integer_division_by_zero_is_an_error() {
    let mut rng = rng(1404);
    let dom = sized(&[NI, NK]);
    let n: Field<(I, K), i32> = random_field(&mut rng, &dom);
    let mut m: Field<(I, K), i32> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let prog = divide_prog::compile(&backend.options())?;
        let (mut q, mut r) = (poisoned(&dom), poisoned(&dom));
        prog.call(divide_prog::Args {
            n: &n,
            m: &m,
            q: &mut q,
            r: &mut r,
        })?;
        expect_field("quotient", &q, &dom, |p| at(&n, p) / at(&m, p));
        expect_field("remainder", &r, &dom, |p| at(&n, p) % at(&m, p));
        Ok(())
    });
    m.set(&[2, 3], 0).expect("inside the domain");
    for_each_backend(|backend| {
        let prog = divide_prog::compile(&backend.options())?;
        let (mut q, mut r) = (poisoned(&dom), poisoned(&dom));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            prog.call(divide_prog::Args {
                n: &n,
                m: &m,
                q: &mut q,
                r: &mut r,
            })
        }));
        match result {
            Err(_) => panic!("backend {}: division by zero panicked", backend.name()),
            Ok(result) => expect_error(result, &["divide_prog", "zero"]),
        }
        Ok(())
    });
}

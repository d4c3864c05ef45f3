//! Field operators as big as a dynamical core's, written out as source text: the size
//! benchmark (`benches/benches/build_size.rs`) builds them at growing sizes, and the size test
//! (`tests/tests/size.rs`) runs the largest on every backend from `tests/tests/size/generated.rs`,
//! which is this module's output (checked by this module's test; `GT4RS_BLESS=1` rewrites it).
//!
//! Every operator maps two fields `a`, `b` over `(Edge, K)` to one. The recurrences keep values
//! of order one, and [`reference`] computes each at a point as plain Rust.

use std::fmt::Write;

/// The field type of every parameter and result.
const FIELD: &str = "Field<(Edge, K), f64>";

/// The shapes of operator the benchmark and the test build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One operator of `n` `let` statements, each using the two before it (so every value is
    /// used twice) and a parameter.
    Lets(usize),
    /// One expression of `n` chained `+`/`-` (left-nested `n` deep), some terms products.
    Chain(usize),
    /// `operators` operators of `statements` statements each, each calling the one before.
    Calls { operators: usize, statements: usize },
}

impl Shape {
    /// The statements (or binary operations, for a chain) the operator has, for tables.
    pub fn size(self) -> usize {
        match self {
            Shape::Lets(n) | Shape::Chain(n) => n,
            Shape::Calls {
                operators,
                statements,
            } => operators * statements,
        }
    }

    /// The name of the operator a program calls.
    pub fn operator(self) -> String {
        match self {
            Shape::Lets(n) => format!("lets_{n}"),
            Shape::Chain(n) => format!("chain_{n}"),
            Shape::Calls {
                operators,
                statements,
            } => format!("calls_{operators}x{statements}_{}", operators - 1),
        }
    }

    /// The name of the program that writes the operator's result.
    pub fn program(self) -> String {
        format!("run_{}", self.operator())
    }

    /// The operators (as source) and the program `program()`: `(a, b, out)`.
    pub fn source(self) -> String {
        let mut s = String::new();
        match self {
            Shape::Lets(n) => lets_operator(&mut s, &self.operator(), n),
            Shape::Chain(n) => chain_operator(&mut s, &self.operator(), n),
            Shape::Calls {
                operators,
                statements,
            } => {
                for j in 0..operators {
                    let callee =
                        (j > 0).then(|| format!("calls_{operators}x{statements}_{}", j - 1));
                    let name = format!("calls_{operators}x{statements}_{j}");
                    calling_operator(&mut s, &name, callee.as_deref(), statements);
                }
            }
        }
        let (program, operator) = (self.program(), self.operator());
        let _ = write!(
            s,
            "\n#[program]\npub fn {program}(a: &{FIELD}, b: &{FIELD}, out: &mut {FIELD}) {{\n    \
             {operator}(a, b).write_to(out);\n}}\n"
        );
        s
    }

    /// The operator's value at a point where the inputs are `a` and `b`.
    pub fn reference(self, a: f64, b: f64) -> f64 {
        match self {
            Shape::Lets(n) => lets_reference(a, b, n),
            Shape::Chain(n) => chain_reference(a, b, n),
            Shape::Calls {
                operators,
                statements,
            } => (0..operators).fold(a, |previous, _| {
                calling_reference(previous, a, b, statements)
            }),
        }
    }
}

/// `t0 = a + b`, `t1 = a - b`, then `t_i` from `t_{i-1}`, `t_{i-2}` by one of four rules.
fn lets_operator(s: &mut String, name: &str, n: usize) {
    let _ = writeln!(
        s,
        "#[field_operator]\npub fn {name}(a: {FIELD}, b: {FIELD}) -> {FIELD} {{"
    );
    let _ = writeln!(s, "    let t0 = a + b;\n    let t1 = a - b;");
    for i in 2..n {
        let (p, q) = (i - 1, i - 2);
        let value = match i % 4 {
            0 => format!("t{p} * 0.5 + t{q} * 0.25 + a * 0.25"),
            1 => format!("(t{p} - b) * 0.5 + t{q} * 0.5"),
            2 => format!("t{p}.max(t{q}) * 0.75 + b * 0.25"),
            _ => format!("t{p} * t{q} * 0.125 + a"),
        };
        let _ = writeln!(s, "    let t{i} = {value};");
    }
    let _ = writeln!(s, "    t{}\n}}", n.max(2) - 1);
}

fn lets_reference(a: f64, b: f64, n: usize) -> f64 {
    let mut t = vec![a + b, a - b];
    for i in 2..n {
        let (p, q) = (t[i - 1], t[i - 2]);
        t.push(match i % 4 {
            0 => p * 0.5 + q * 0.25 + a * 0.25,
            1 => (p - b) * 0.5 + q * 0.5,
            2 => p.max(q) * 0.75 + b * 0.25,
            _ => p * q * 0.125 + a,
        });
    }
    t[n.max(2) - 1]
}

/// The `i`-th term of a chain: `+ b`, `- a * 0.5`, `+ a`, `- b * 0.25`, repeating.
fn chain_term(i: usize) -> &'static str {
    match i % 4 {
        0 => " + b",
        1 => " - a * 0.5",
        2 => " + a",
        _ => " - b * 0.25",
    }
}

fn chain_operator(s: &mut String, name: &str, n: usize) {
    let _ = writeln!(
        s,
        "#[field_operator]\npub fn {name}(a: {FIELD}, b: {FIELD}) -> {FIELD} {{"
    );
    s.push_str("    a");
    for i in 0..n {
        if i % 8 == 7 {
            s.push_str("\n       ");
        }
        s.push_str(chain_term(i));
    }
    s.push_str("\n}\n");
}

fn chain_reference(a: f64, b: f64, n: usize) -> f64 {
    (0..n).fold(a, |x, i| match i % 4 {
        0 => x + b,
        1 => x - a * 0.5,
        2 => x + a,
        _ => x - b * 0.25,
    })
}

/// `t0` from the callee's value (or `a`), then `t_i` from `t_{i-1}`.
fn calling_operator(s: &mut String, name: &str, callee: Option<&str>, statements: usize) {
    let _ = writeln!(
        s,
        "#[field_operator]\npub fn {name}(a: {FIELD}, b: {FIELD}) -> {FIELD} {{"
    );
    let first = callee.map_or_else(|| "a".to_string(), |c| format!("{c}(a, b)"));
    let _ = writeln!(s, "    let t0 = {first} * 0.5 + b * 0.25;");
    for i in 1..statements {
        let p = i - 1;
        let value = if i % 2 == 0 {
            format!("t{p} * 0.5 + a * 0.25 + b * 0.125")
        } else {
            format!("(t{p} - b).max(a) * 0.5")
        };
        let _ = writeln!(s, "    let t{i} = {value};");
    }
    let _ = writeln!(s, "    t{}\n}}", statements.max(1) - 1);
}

fn calling_reference(previous: f64, a: f64, b: f64, statements: usize) -> f64 {
    (1..statements).fold(previous * 0.5 + b * 0.25, |t, i| {
        if i % 2 == 0 {
            t * 0.5 + a * 0.25 + b * 0.125
        } else {
            (t - b).max(a) * 0.5
        }
    })
}

/// The shapes of `tests/tests/size/generated.rs`: the sizes the issue asks for.
pub const TESTED: [Shape; 3] = [
    Shape::Lets(1000),
    Shape::Chain(2000),
    Shape::Calls {
        operators: 50,
        statements: 25,
    },
];

/// The text of `tests/tests/size/generated.rs`.
pub fn tested_source() -> String {
    let mut s = String::from(
        "// @generated by gt4rs_benches::sizes::tested_source (GT4RS_BLESS=1 cargo test --release \
         -p gt4rs-benches --lib sizes); do not edit.\n",
    );
    for shape in TESTED {
        s.push('\n');
        s.push_str(&shape.source());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const GENERATED: &str = "../tests/tests/size/generated.rs";

    #[test]
    fn the_size_test_runs_what_this_module_generates() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GENERATED);
        let want = tested_source();
        if std::env::var_os("GT4RS_BLESS").is_some() {
            std::fs::write(&path, &want).expect("the generated file is writable");
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is stale: rerun with GT4RS_BLESS=1",
            path.display()
        );
    }

    #[test]
    fn the_shapes_have_the_sizes_they_name() {
        let lets = Shape::Lets(10).source();
        assert_eq!(lets.matches("    let ").count(), 10);
        let chain = Shape::Chain(10).source();
        assert_eq!(
            chain.matches(" + ").count() + chain.matches(" - ").count(),
            10
        );
        let calls = Shape::Calls {
            operators: 3,
            statements: 4,
        };
        assert_eq!(calls.source().matches("#[field_operator]").count(), 3);
        assert_eq!(calls.source().matches("    let ").count(), 12);
        assert!(calls.reference(0.5, 0.25).is_finite());
    }
}

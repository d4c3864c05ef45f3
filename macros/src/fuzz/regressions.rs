//! Inputs the fuzzer found mishandled, each now a test of what the macros do with it, run
//! through the same in-process chain.

use proc_macro2::Span;

use super::chain::{self, Outcome};
use super::corpus::{CorpusItem, Macro, Unit};
use super::{compile_errors, prepare};
use crate::definitions::ItemKind;

const ENTITIES: &str = "pub Edge: horizontal; pub K: vertical;";

/// Expands `item` after `ENTITIES` and checks it has one error, containing `message`, at the
/// source text `at`.
fn expect_one_error(kind: ItemKind, attr: &str, item: &str, message: &str, at: &str) {
    let errors = errors_of(kind, attr, item);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].0.contains(message), "{errors:?}");
    assert_eq!(errors[0].1.as_deref(), Some(at), "{errors:?}");
}

/// The errors (message, source text at their span) of `item` expanded after `ENTITIES`.
fn errors_of(kind: ItemKind, attr: &str, item: &str) -> Vec<(String, Option<String>)> {
    let entities = CorpusItem {
        name: "dimensions".into(),
        kind: Macro::Dimensions,
        attr: String::new(),
        item: ENTITIES.into(),
    };
    let unit = Unit {
        name: "regression",
        items: vec![entities],
    };
    let prepared = prepare(unit).unwrap_or_else(|e| panic!("{e}"));
    let (attr, item) = (
        attr.parse().expect("attr lexes"),
        item.parse().expect("item lexes"),
    );
    let outcome = chain::expand(Macro::Attribute(kind), attr, item, &prepared.registry);
    let Ok(Outcome::Code { code, .. }) = outcome else {
        panic!("the expansion did not end in code");
    };
    let mut errors = Vec::new();
    compile_errors(&code, &mut errors);
    errors
        .into_iter()
        .map(|(message, span): (String, Span)| (message, span.source_text()))
        .collect()
}

/// Found as case 177 of seed 20250601: `;;` in a program body was an empty statement whose
/// error had no tokens to point at, so it landed at the call site of the last hop (another
/// item's definition macro).
#[test]
fn a_stray_semicolon_in_a_program_is_reported_at_the_semicolon() {
    expect_one_error(
        ItemKind::Program,
        "",
        "fn run(a: &Field<(Edge, K), f64>, out: &mut Field<(Edge, K), f64>) { a.write_to(out);; }",
        "ends no statement",
        ";",
    );
}

/// The same in an operator body.
#[test]
fn a_stray_semicolon_in_an_operator_is_reported_at_the_semicolon() {
    expect_one_error(
        ItemKind::FieldOperator,
        "",
        "fn f(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> { let b = a;; b }",
        "ends no statement",
        ";",
    );
}

/// Found as a case of seed 11: a scan attribute ending in `init =` lacks its last token; syn
/// reported that at the end of the whole input, the call site, which after the chain's hops is
/// another item's definition macro.
#[test]
fn a_scan_attribute_cut_short_is_reported_at_its_last_token() {
    expect_one_error(
        ItemKind::ScanOperator,
        "axis = K, forward = false, init =",
        "fn s(state: f64, x: f64) -> f64 { state + x }",
        "expected an expression",
        "=",
    );
}

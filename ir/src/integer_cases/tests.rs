use super::*;

fn cmp(op: CmpOp, literal: i64) -> LiteralComparison {
    LiteralComparison { op, literal }
}

const I32_MIN: i64 = i32::MIN as i64;
const I32_MAX: i64 = i32::MAX as i64;

#[test]
fn equality_tests_give_a_case_per_literal_and_one_for_the_rest() {
    let cases = integer_cases(&[cmp(CmpOp::Eq, -1), cmp(CmpOp::Ne, 3)], ScalarType::I32);
    let singles: Vec<i64> = cases
        .iter()
        .filter(|c| c.is_single())
        .map(|c| c.representative)
        .collect();
    assert_eq!(singles, [-1, 3]);
    let rest = cases.last().expect("three cases");
    assert_eq!(cases.len(), 3);
    assert_eq!(
        rest.ranges,
        [(I32_MIN, -2), (0, 2), (4, I32_MAX)],
        "every other value, in one case"
    );
    assert_eq!(rest.representative, 0);
}

#[test]
fn an_order_comparison_splits_the_line_in_two() {
    let cases = integer_cases(&[cmp(CmpOp::Ge, 3)], ScalarType::I32);
    assert_eq!(
        cases,
        [
            IntegerCase {
                representative: 0,
                ranges: vec![(I32_MIN, 2)]
            },
            IntegerCase {
                representative: 3,
                ranges: vec![(3, I32_MAX)]
            },
        ]
    );
}

#[test]
fn mixed_comparisons_give_each_distinct_outcome_one_case() {
    // `x < 2`, `x == 4`, `x > 6`: ..=1, 2..=3 and 5..=6 (nothing holds), 4, 7..
    let cases = integer_cases(
        &[cmp(CmpOp::Lt, 2), cmp(CmpOp::Eq, 4), cmp(CmpOp::Gt, 6)],
        ScalarType::I64,
    );
    let ranges: Vec<&[(i64, i64)]> = cases.iter().map(|c| c.ranges.as_slice()).collect();
    assert_eq!(
        ranges,
        [
            &[(i64::MIN, 1)][..],
            &[(2, 3), (5, 6)][..],
            &[(4, 4)][..],
            &[(7, i64::MAX)][..],
        ]
    );
    for case in &cases {
        let inside = case
            .ranges
            .iter()
            .any(|&(a, b)| (a..=b).contains(&case.representative));
        assert!(inside, "{case:?} holds its representative");
    }
    // Every sampled value sits in the case whose representative compares as it does.
    let comparisons = [cmp(CmpOp::Lt, 2), cmp(CmpOp::Eq, 4), cmp(CmpOp::Gt, 6)];
    for v in -3..10 {
        let case = cases
            .iter()
            .find(|c| c.ranges.iter().any(|&(a, b)| (a..=b).contains(&v)))
            .expect("the cases cover every value");
        for c in &comparisons {
            assert_eq!(
                c.holds_for(v),
                c.holds_for(case.representative),
                "{v} {c:?}"
            );
        }
    }
}

#[test]
fn literals_outside_the_type_split_nothing() {
    let beyond = i64::from(i32::MAX) + 10;
    assert_eq!(
        integer_cases(&[cmp(CmpOp::Eq, beyond)], ScalarType::I32),
        [IntegerCase {
            representative: 0,
            ranges: vec![(I32_MIN, I32_MAX)]
        }],
        "one case: no i32 equals it"
    );
    assert_eq!(integer_cases(&[], ScalarType::I32), []);
}

#[test]
fn a_comparison_at_the_types_edge_stays_in_range() {
    let cases = integer_cases(&[cmp(CmpOp::Lt, i64::MIN + 1)], ScalarType::I64);
    let ranges: Vec<&[(i64, i64)]> = cases.iter().map(|c| c.ranges.as_slice()).collect();
    assert_eq!(
        ranges,
        [&[(i64::MIN, i64::MIN)][..], &[(i64::MIN + 1, i64::MAX)][..]]
    );
}

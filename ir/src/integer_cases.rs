//! The cases of an integer scalar parameter that the stages only compare with literals
//! (ICON's `type_shear == 2`, `divdamp_type >= 3`): the integers fall into a few classes, the
//! values of each class giving every comparison the same result, so the stages lowered with
//! any member of a class are the stages of the whole class. The CPU emitter compiles a copy of
//! the kernels per class and picks it with a `match` at the call.

use std::collections::BTreeSet;

use crate::fieldview::Literal;
use crate::scalar::ops::compare;
use crate::scalar::ScalarValue;
use crate::stage::{Node, NodeId, StageProgram};
use crate::types::{CmpOp, ScalarType};

/// `parameter op literal`, the parameter on the left (a comparison written the other way
/// round is turned around).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiteralComparison {
    /// The comparison.
    pub op: CmpOp,
    /// The literal compared with.
    pub literal: i64,
}

impl LiteralComparison {
    /// The comparison's result for the parameter's value `value`.
    pub fn holds_for(&self, value: i64) -> bool {
        let result = compare(
            self.op,
            ScalarValue::I64(value),
            ScalarValue::I64(self.literal),
        );
        matches!(result, Ok(ScalarValue::Bool(true)))
    }
}

/// A class of values: the ranges it covers (inclusive, in increasing order, not adjacent) and
/// the member the stages are lowered with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntegerCase {
    /// The member lowered with: a literal of the comparisons where the class is one, else the
    /// member nearest zero.
    pub representative: i64,
    /// `(first, last)` of each range, both inclusive.
    pub ranges: Vec<(i64, i64)>,
}

impl IntegerCase {
    /// Whether the class holds exactly one value.
    pub fn is_single(&self) -> bool {
        matches!(self.ranges.as_slice(), [(a, b)] if a == b)
    }
}

impl StageProgram {
    /// Every comparison of scalar parameter `param` with an integer literal, when such
    /// comparisons are all the stages do with it: its value then matters only through their
    /// results. `None` where the stages use it in any other way (arithmetic, a bound, a
    /// stored value, a comparison with anything but a literal).
    pub fn literal_comparisons_of(&self, param: u32) -> Option<Vec<LiteralComparison>> {
        let mut found = Vec::new();
        for stage in &self.stages {
            let is_param =
                |id: NodeId| matches!(stage.node(id), Node::Scalar { param: p, .. } if *p == param);
            let bounds = stage
                .domain
                .iter()
                .flat_map(|r| r.start.nodes().into_iter().chain(r.end.nodes()));
            let carries = stage.scan.iter().flat_map(|scan| {
                scan.carry
                    .iter()
                    .flat_map(|c| [Some(c.init), Some(c.next), c.active])
                    .flatten()
            });
            let stored = stage.outputs.iter().map(|o| o.value);
            if bounds.chain(carries).chain(stored).any(is_param) {
                return None;
            }
            for node in &stage.nodes {
                if !node.children().into_iter().any(is_param) {
                    continue;
                }
                let Node::Compare { op, lhs, rhs } = node else {
                    return None;
                };
                let (other, op) = if is_param(*lhs) {
                    (*rhs, *op)
                } else {
                    (*lhs, turned_around(*op))
                };
                match stage.node(other) {
                    Node::Literal {
                        value: Literal::Int(literal),
                        ..
                    } => {
                        let c = LiteralComparison {
                            op,
                            literal: *literal,
                        };
                        if !found.contains(&c) {
                            found.push(c);
                        }
                    }
                    _ => return None,
                }
            }
        }
        Some(found)
    }

    /// The integer literals scalar parameter `param` is compared with, when testing it for
    /// equality (`==`, `!=`) with literals is all the stages do with it. `None` where the
    /// stages use it in any other way, an order comparison included.
    pub fn equality_tests_of(&self, param: u32) -> Option<BTreeSet<i64>> {
        let comparisons = self.literal_comparisons_of(param)?;
        comparisons
            .iter()
            .map(|c| matches!(c.op, CmpOp::Eq | CmpOp::Ne).then_some(c.literal))
            .collect()
    }
}

/// `a op b` as `b op' a`.
fn turned_around(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        same => same,
    }
}

/// The classes of the values of an integer of type `dtype` (`I32` or `I64`) under
/// `comparisons`: two values share a class where every comparison gives both the same result.
/// The class holding the type's greatest value comes last (an emitter may match it with `_`);
/// the others are in order of their least member. Literals outside the type are left out (no
/// value of the type equals them, and an order comparison with one holds for all or none).
/// Empty where `comparisons` is.
pub fn integer_cases(comparisons: &[LiteralComparison], dtype: ScalarType) -> Vec<IntegerCase> {
    if comparisons.is_empty() {
        return Vec::new();
    }
    let (min, max) = if dtype == ScalarType::I32 {
        (i64::from(i32::MIN), i64::from(i32::MAX))
    } else {
        (i64::MIN, i64::MAX)
    };
    // Between two consecutive samples no literal lies, so the values from one sample up to
    // the next share the first's results.
    let mut samples = BTreeSet::from([min, max]);
    for c in comparisons {
        for s in [
            c.literal.checked_sub(1),
            Some(c.literal),
            c.literal.checked_add(1),
        ] {
            if let Some(s) = s.filter(|s| (min..=max).contains(s)) {
                samples.insert(s);
            }
        }
    }
    let samples: Vec<i64> = samples.into_iter().collect();
    let results = |v: i64| -> Vec<bool> { comparisons.iter().map(|c| c.holds_for(v)).collect() };
    let literals: BTreeSet<i64> = comparisons.iter().map(|c| c.literal).collect();
    let mut classes: Vec<(Vec<bool>, IntegerCase)> = Vec::new();
    for (i, &first) in samples.iter().enumerate() {
        let last = samples.get(i + 1).map_or(max, |next| next - 1);
        let key = results(first);
        let class = match classes.iter_mut().find(|(k, _)| *k == key) {
            Some((_, class)) => class,
            None => {
                classes.push((
                    key,
                    IntegerCase {
                        representative: first,
                        ranges: Vec::new(),
                    },
                ));
                &mut classes.last_mut().expect("just pushed").1
            }
        };
        match class.ranges.last_mut() {
            Some((_, end)) if *end + 1 == first => *end = last,
            _ => class.ranges.push((first, last)),
        }
    }
    let mut cases: Vec<IntegerCase> = classes
        .into_iter()
        .map(|(_, mut case)| {
            case.representative = representative(&case.ranges, &literals);
            case
        })
        .collect();
    let last = cases
        .iter()
        .position(|c| c.ranges.iter().any(|&(_, end)| end == max))
        .expect("some class holds the greatest value");
    let greatest = cases.remove(last);
    cases.push(greatest);
    cases
}

/// A literal in `ranges` if there is one, else the member nearest zero.
fn representative(ranges: &[(i64, i64)], literals: &BTreeSet<i64>) -> i64 {
    if let Some(l) = literals
        .iter()
        .find(|&&l| ranges.iter().any(|&(a, b)| (a..=b).contains(&l)))
    {
        return *l;
    }
    ranges
        .iter()
        .map(|&(a, b)| 0i64.clamp(a, b))
        .min_by_key(|v| v.unsigned_abs())
        .expect("a class has a range")
}

#[cfg(test)]
mod tests;

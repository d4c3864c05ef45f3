//! The failures a kernel reports, defined once for every backend.
//!
//! A [`Failure`] is what the emitter knows of a check when it generates it (the field, the
//! dimension, the connectivity, the slot, the stage); [`Failure::message`] formats it with what
//! only the run knows (the index read, the field's range, the table's rows, the point). The fused
//! CPU kernels call it in their cold error path; the CUDA launcher calls it with the values a
//! kernel recorded in its error record and for the [`Precondition`]s it checks on the host, which
//! are the checks the CPU kernels make before their loop. So a failure reads the same on every
//! backend.

use serde::{Deserialize, Serialize};

use crate::stage::Source;

/// A field as failures name it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum FieldName {
    /// A program argument, by its parameter name.
    Argument(String),
    /// A temporary of the lowered program, by its index.
    Temporary(u32),
}

impl FieldName {
    /// `<role> `name`` for an argument (`argument `a``, `output `out``), `temporary <n>` for a
    /// temporary.
    fn described(&self, role: &str) -> String {
        match self {
            FieldName::Argument(name) => format!("{role} `{name}`"),
            FieldName::Temporary(t) => format!("temporary {t}"),
        }
    }
}

/// What a failing check was about. The comment of each kind lists the values its message takes,
/// in order.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The domain of stage `stage` along `dim` is not inside an output. Values: the domain's
    /// start and end, the output's start and end along `dim`.
    OutputTooSmall {
        /// The stage whose domain is checked.
        stage: usize,
        /// The output the stage writes.
        field: FieldName,
        /// The dimension along which the domain leaves the output.
        dim: String,
    },
    /// A read shifted by `shift` along `dim` leaves its field somewhere in the domain of stage
    /// `stage`. Values: the domain's start and end, the field's start and end along `dim`.
    ShiftedReadOutside {
        /// The stage whose domain is checked.
        stage: usize,
        /// The field read.
        field: FieldName,
        /// The dimension of the shift.
        dim: String,
        /// The static shift of the read along `dim`.
        shift: i64,
    },
    /// A sparse argument's local dimension does not hold the offset's `count` neighbours.
    /// Values: the argument's start and end along `dim`.
    LocalDimension {
        /// The sparse argument's parameter name.
        arg: String,
        /// Its local dimension (the offset's name).
        dim: String,
        /// The number of neighbours the offset declares.
        count: u32,
    },
    /// An argument that is read has no point along `dim`. No values.
    EmptyArgument {
        /// The argument's parameter name.
        arg: String,
        /// The dimension along which it is empty.
        dim: String,
    },
    /// A read at a point outside its field. Values: the index read, the field's start and end
    /// along `dim`.
    ReadOutside {
        /// The field read.
        field: FieldName,
        /// The dimension along which the index falls outside.
        dim: String,
    },
    /// A neighbour step or a reduction from an index along `from` outside the rows of the table
    /// of `offset`. Values: the index, the table's rows.
    RowOutside {
        /// The offset whose table is indexed.
        offset: String,
        /// The offset's source dimension (the table's rows).
        from: String,
    },
    /// Slot `slot` of the table of `offset` is -1 where a neighbour is needed. Values: the
    /// table's row.
    MissingNeighbour {
        /// The offset whose table holds the -1.
        offset: String,
        /// The offset's source dimension (the table's rows).
        from: String,
        /// The column of the table that was read.
        slot: u32,
    },
    /// An integer division or remainder by zero. No values.
    DivisionByZero,
    /// A domain whose start along `dim` is past its end. Values: the start and the end.
    ReversedDomain {
        /// The dimension whose range is reversed.
        dim: String,
    },
    /// The value `field` needs at a point reads a skipped neighbour (a -1 entry) or a point
    /// outside a field or a table, where that read sits in a branch (`concat_where`, `if`) or
    /// a reduction slot that is taken there. No values.
    Undefined {
        /// The output (or temporary) whose value is undefined.
        field: FieldName,
    },
}

/// Which error of the runtime a failure is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureClass {
    /// The domain of a call does not fit its fields.
    Domain,
    /// An argument is unfit for the program, whatever the domain.
    Argument {
        /// The argument's parameter name.
        arg: String,
    },
    /// A value met at a point of the domain.
    Execution,
}

/// The point a failure happened at: each coordinate with its dimension's name.
pub type Point<'a> = [(&'a str, i64)];

/// `I 3, K 7`.
pub fn format_point(point: &Point<'_>) -> String {
    let parts: Vec<String> = point.iter().map(|(d, i)| format!("{d} {i}")).collect();
    parts.join(", ")
}

impl Failure {
    /// Which runtime error this failure becomes: a domain error, an argument error naming the
    /// argument, or an error met while executing.
    pub fn class(&self) -> FailureClass {
        match self {
            Failure::OutputTooSmall { .. }
            | Failure::ShiftedReadOutside { .. }
            | Failure::ReversedDomain { .. } => FailureClass::Domain,
            Failure::LocalDimension { arg, .. } | Failure::EmptyArgument { arg, .. } => {
                FailureClass::Argument { arg: arg.clone() }
            }
            Failure::ReadOutside { .. }
            | Failure::RowOutside { .. }
            | Failure::MissingNeighbour { .. }
            | Failure::DivisionByZero
            | Failure::Undefined { .. } => FailureClass::Execution,
        }
    }

    /// The message, from the `values` the kind lists (missing ones read 0) and the `point` (empty
    /// where the failure is not at a point of the domain).
    pub fn message(&self, values: &[i64], point: &Point<'_>) -> String {
        let v = |i: usize| values.get(i).copied().unwrap_or(0);
        let at = format_point(point);
        match self {
            Failure::OutputTooSmall { stage, field, dim } => format!(
                "stage {stage}: the domain {}..{} along {dim} is not inside {}, which covers {}..{}",
                v(0),
                v(1),
                field.described("output"),
                v(2),
                v(3)
            ),
            Failure::ShiftedReadOutside {
                stage,
                field,
                dim,
                shift,
            } => format!(
                "stage {stage}: {} is read at {dim} {}..{} (shift {shift}), outside its domain {}..{}",
                field.described("argument"),
                // Exact: the shifted range may lie beyond i64, which is why it is outside.
                i128::from(v(0)) + i128::from(*shift),
                i128::from(v(1)) + i128::from(*shift),
                v(2),
                v(3)
            ),
            Failure::LocalDimension { dim, count, .. } => format!(
                "its local dimension {dim} covers {}..{}, but must cover 0..{count}",
                v(0),
                v(1)
            ),
            Failure::EmptyArgument { dim, .. } => format!("it is read, but is empty along {dim}"),
            Failure::ReadOutside { field, dim } => format!(
                "{} is read at {dim} index {} (from point {at}), outside its domain {}..{}",
                field.described("argument"),
                v(0),
                v(1),
                v(2)
            ),
            Failure::RowOutside { offset, from } => format!(
                "{from} index {} (reached from point {at}) is outside the {} rows of connectivity `{offset}`",
                v(0),
                v(1)
            ),
            Failure::MissingNeighbour { offset, from, slot } => format!(
                "slot {slot} of connectivity `{offset}` at {from} index {} (reached from point {at}) is -1 (no neighbour), but the point is inside the domain",
                v(0)
            ),
            Failure::ReversedDomain { dim } => format!(
                "the domain along {dim} is {}..{}: its start is past its end",
                v(0),
                v(1)
            ),
            Failure::Undefined { field } => format!(
                "the value written to {} is undefined at point {at}: it reads a skipped neighbour (table entry -1) or a point outside a field or a table",
                field.described("output")
            ),
            Failure::DivisionByZero if point.is_empty() => "integer division by zero".into(),
            Failure::DivisionByZero => format!("integer division by zero at point {at}"),
        }
    }
}

/// A failure a kernel may record at a point, and the dimensions of the coordinates it records
/// with it (those its check depends on, outer to inner).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct FailureSite {
    /// The failure reported.
    pub failure: Failure,
    /// The names of the dimensions of the recorded coordinates, outer to inner.
    pub point: Vec<String>,
}

/// A condition a call must meet before a stage's loop runs, checked once per call: inline by
/// the CPU kernels, on the host by the CUDA launcher before any launch.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Precondition {
    /// The field checked, and the position of the checked dimension among its dimensions.
    pub field: Source,
    /// The position of the checked dimension among the field's dimensions.
    pub dim: usize,
    /// What is checked along that dimension.
    pub kind: PreconditionKind,
    /// What is reported when the condition does not hold.
    pub failure: Failure,
}

/// What a [`Precondition`] checks along one dimension of a field.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreconditionKind {
    /// The domain along its dimension `domain_dim`, shifted by `shift`, lies inside the field
    /// (an output: shift 0; a read with a static shift).
    Covers {
        /// The position of the checked dimension in the stage's domain.
        domain_dim: usize,
        /// The static shift of the read (0 for an output).
        shift: i64,
    },
    /// The field has a point along the dimension (clamped and masked reads need one).
    NotEmpty,
    /// The field spans exactly `0..count` along the dimension (a local dimension).
    Spans {
        /// The number of neighbours of the offset (the local dimension's width).
        count: i64,
    },
}

impl Precondition {
    /// `None` where the condition holds for the `domain` (start and end per dimension) and the
    /// field's `origin` and `extent` along the checked dimension; else the failure's values.
    pub fn violation(&self, domain: &[(i64, i64)], origin: i64, extent: i64) -> Option<Vec<i64>> {
        let end = origin.saturating_add(extent);
        match self.kind {
            PreconditionKind::Covers { domain_dim, shift } => {
                let (lo, hi) = domain.get(domain_dim).copied().unwrap_or((0, 0));
                (!covers(lo, hi, shift, origin, extent)).then(|| vec![lo, hi, origin, end])
            }
            PreconditionKind::NotEmpty => (extent == 0).then(Vec::new),
            PreconditionKind::Spans { count } => {
                (origin != 0 || extent != count).then(|| vec![origin, end])
            }
        }
    }
}

/// Whether the range `lo + shift .. hi + shift` lies inside `origin .. origin + extent`,
/// computed exactly: no sum can wrap around and land inside (a shift of `i64::MAX`, an origin
/// near `i64::MIN`). The CPU kernels call it before their loop, the CUDA launcher through
/// [`Precondition::violation`].
pub fn covers(lo: i64, hi: i64, shift: i64, origin: i64, extent: i64) -> bool {
    let (lo, hi, shift) = (i128::from(lo), i128::from(hi), i128::from(shift));
    let (origin, extent) = (i128::from(origin), i128::from(extent));
    lo + shift >= origin && hi + shift <= origin + extent
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_field_the_values_and_the_point() {
        let read = Failure::ReadOutside {
            field: FieldName::Argument("a".into()),
            dim: "I".into(),
        };
        assert_eq!(
            read.message(&[7, 0, 7], &[("I", 6), ("J", 2)]),
            "argument `a` is read at I index 7 (from point I 6, J 2), outside its domain 0..7"
        );
        let output = Failure::OutputTooSmall {
            stage: 0,
            field: FieldName::Argument("out".into()),
            dim: "I".into(),
        };
        assert_eq!(
            output.message(&[0, 8, 0, 3], &[]),
            "stage 0: the domain 0..8 along I is not inside output `out`, which covers 0..3"
        );
        assert_eq!(output.class(), FailureClass::Domain);
        assert_eq!(
            Failure::DivisionByZero.message(&[], &[("Edge", 3), ("K", 0)]),
            "integer division by zero at point Edge 3, K 0"
        );
        assert_eq!(
            Failure::DivisionByZero.message(&[], &[]),
            "integer division by zero"
        );
    }

    #[test]
    fn coverage_is_computed_without_wrapping_around() {
        assert!(covers(0, 9, 1, 0, 10));
        assert!(!covers(0, 9, 2, 0, 10));
        // Sums past i64 used to wrap around and land inside the field.
        assert!(!covers(0, 9, i64::MAX, 0, 10));
        assert!(!covers(i64::MIN, i64::MIN + 9, -1, i64::MIN, 10));
        assert!(covers(i64::MIN + 1, i64::MIN + 10, -1, i64::MIN, 10));
        assert!(!covers(i64::MAX - 9, i64::MAX, i64::MAX, i64::MAX - 10, 10));
        let read = Failure::ShiftedReadOutside {
            stage: 0,
            field: FieldName::Argument("a".into()),
            dim: "K".into(),
            shift: i64::MAX,
        };
        assert_eq!(
            read.message(&[0, 9, 0, 10], &[]),
            "stage 0: argument `a` is read at K 9223372036854775807..9223372036854775816 (shift 9223372036854775807), outside its domain 0..10"
        );
        let reversed = Failure::ReversedDomain { dim: "K".into() };
        assert_eq!(
            reversed.message(&[5, 3], &[]),
            "the domain along K is 5..3: its start is past its end"
        );
        assert_eq!(reversed.class(), FailureClass::Domain);
    }

    #[test]
    fn preconditions_report_the_values_their_failure_takes() {
        let covers = Precondition {
            field: Source::Param(0),
            dim: 0,
            kind: PreconditionKind::Covers {
                domain_dim: 1,
                shift: 1,
            },
            failure: Failure::ShiftedReadOutside {
                stage: 0,
                field: FieldName::Argument("a".into()),
                dim: "I".into(),
                shift: 1,
            },
        };
        assert_eq!(covers.violation(&[(0, 9), (0, 4)], 0, 5), None);
        let values = covers
            .violation(&[(0, 9), (0, 5)], 0, 5)
            .expect("I = 5 is read");
        assert_eq!(
            covers.failure.message(&values, &[]),
            "stage 0: argument `a` is read at I 1..6 (shift 1), outside its domain 0..5"
        );
        let spans = Precondition {
            kind: PreconditionKind::Spans { count: 4 },
            ..covers.clone()
        };
        assert_eq!(spans.violation(&[], 0, 3), Some(vec![0, 3]));
        let not_empty = Precondition {
            kind: PreconditionKind::NotEmpty,
            ..covers
        };
        assert_eq!(not_empty.violation(&[], 2, 0), Some(vec![]));
    }
}

//! Orchestration checks run after each program of a granule: NaN in written fields, negative
//! values in named fields, a progress line. Off by default; when off, a check is one branch.
//!
//! Switched on by `GT4RS_DEBUG`, a comma-separated list: `nan`, `progress`, `negative=a:b`
//! (field names), or `all` (nan and progress).

use ndarray::Dimension as _;

use crate::dims::Dims;
use crate::error::Error;
use crate::field::{Field, Scalar};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct DebugChecks {
    pub nan: bool,
    pub progress: bool,
    /// Fields that must never hold negative values (e.g. tracers, temperature).
    pub non_negative: Vec<String>,
}

impl DebugChecks {
    pub fn off() -> Self {
        Self::default()
    }

    pub fn is_on(&self) -> bool {
        self.nan || self.progress || !self.non_negative.is_empty()
    }

    /// Parses a `GT4RS_DEBUG`-style specification.
    pub fn parse(spec: &str) -> Result<Self, Error> {
        let mut checks = DebugChecks::default();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item.split_once('=') {
                None if item == "nan" => checks.nan = true,
                None if item == "progress" => checks.progress = true,
                None if item == "all" => {
                    checks.nan = true;
                    checks.progress = true;
                }
                Some(("negative", fields)) => {
                    checks.non_negative.extend(fields.split(':').filter(|f| !f.is_empty()).map(String::from))
                }
                _ => {
                    return Err(Error::Config(format!(
                        "GT4RS_DEBUG: unknown check `{item}` (expected nan, progress, all or negative=field:field)"
                    )))
                }
            }
        }
        Ok(checks)
    }

    /// From `GT4RS_DEBUG`; off when unset.
    pub fn from_env() -> Result<Self, Error> {
        match std::env::var("GT4RS_DEBUG") {
            Ok(spec) => Self::parse(&spec),
            Err(_) => Ok(Self::off()),
        }
    }

    /// Prints a progress line naming the program, if enabled.
    pub fn progress(&self, step: usize, program: &str) {
        if self.progress {
            eprintln!("[gt4rs] step {step}: {program} done");
        }
    }

    /// Checks a field written by `program`: no NaN (if enabled) and no negative value (if the
    /// field is named). The error names program, field and the first bad index.
    pub fn check<D: Dims, T: CheckedScalar>(
        &self,
        program: &str,
        name: &str,
        field: &Field<D, T>,
    ) -> Result<(), Error> {
        let negative = self.non_negative.iter().any(|f| f == name);
        if !self.nan && !negative {
            return Ok(());
        }
        for (index, value) in field.as_array().indexed_iter() {
            let bad = if self.nan && value.is_nan() {
                Some("NaN")
            } else if negative && value.is_negative() {
                Some("a negative value")
            } else {
                None
            };
            if let Some(what) = bad {
                let point: Vec<i64> = index
                    .as_array_view()
                    .iter()
                    .zip(field.origin())
                    .map(|(&i, &o)| i as i64 + o)
                    .collect();
                return Err(Error::Execution {
                    program: program.to_string(),
                    message: format!(
                        "debug check: field `{name}` holds {what} ({value:?}) at index {point:?} ({})",
                        D::names().join(", ")
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Element types the checks understand.
pub trait CheckedScalar: Scalar {
    fn is_nan(self) -> bool;
    fn is_negative(self) -> bool;
}
impl CheckedScalar for f64 {
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    fn is_negative(self) -> bool {
        self < 0.0
    }
}
impl CheckedScalar for f32 {
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn is_negative(self) -> bool {
        self < 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DimKind, Dimension};

    #[derive(Clone, Copy, Default)]
    struct X;
    impl Dimension for X {
        const NAME: &'static str = "X";
        const KIND: DimKind = DimKind::Horizontal;
    }

    #[test]
    fn parse_and_check() {
        assert!(!DebugChecks::parse("").expect("empty is off").is_on());
        let checks = DebugChecks::parse("nan, negative=theta:rho").expect("valid");
        assert!(checks.nan && !checks.progress);
        assert_eq!(checks.non_negative, vec!["theta", "rho"]);
        assert!(DebugChecks::parse("nan,bogus").is_err());

        let mut f =
            Field::<X, f64>::from_fn(&[3..8], Default::default(), |i| i[0] as f64).expect("ok");
        checks.check("p", "theta", &f).expect("all fine");
        f.set(&[6], -1.0).expect("inside");
        let err = checks.check("p", "theta", &f).unwrap_err().to_string();
        assert!(
            err.contains("`theta`") && err.contains("[6]") && err.contains("program `p`"),
            "{err}"
        );
        checks
            .check("p", "other", &f)
            .expect("negative only checked on named fields");
        f.set(&[4], f64::NAN).expect("inside");
        let err = checks.check("p", "other", &f).unwrap_err().to_string();
        assert!(err.contains("NaN") && err.contains("[4]"), "{err}");
    }
}

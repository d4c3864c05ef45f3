//! Checks run after a program call: NaN in what it wrote, negative values in named fields, a
//! progress line. Every program has them: `compile()` takes them from `Options::with_debug`,
//! else from `GT4RS_DEBUG` (an unknown check is a `compile()` error); a granule can also run
//! them on whole fields between its programs. Off by default; when off, a call pays one branch.
//!
//! `GT4RS_DEBUG` is a comma-separated list: `nan`, `progress`, `negative=a:b` (field names), or
//! `all` (nan and progress).

use std::ops::Range;

use gt4rs_ir::fieldview::Program;
use ndarray::Dimension as _;
use ndarray::{ArrayViewD, Slice};

use crate::args::{Arg, FieldViewMut};
use crate::dims::Dims;
use crate::error::Error;
use crate::field::{Field, Scalar};
use crate::view::FieldRef;

/// Which checks run after each call of a program (see the module's documentation). Off by
/// default; [`DebugChecks::parse`] reads `GT4RS_DEBUG`'s syntax.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DebugChecks {
    /// Fails a call whose written points hold a NaN, naming the field and the first point.
    pub nan: bool,
    /// Prints a line on standard error after each call, naming the program.
    pub progress: bool,
    /// Fields that must never hold negative values (e.g. tracers, temperature).
    pub non_negative: Vec<String>,
}

impl DebugChecks {
    /// No checks.
    pub fn off() -> Self {
        Self::default()
    }

    /// Whether any check is on (a call with none pays a single branch).
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
        self.check_view(program, name, field.view())
    }

    /// [`check`](Self::check) on a view (a field a foreign caller owns).
    pub fn check_view<D: Dims, T: CheckedScalar>(
        &self,
        program: &str,
        name: &str,
        field: FieldRef<'_, D, T>,
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

/// Runs `checks` after a call of `program` with `args`: every output over the region the call
/// wrote (its domains, evaluated as the embedded backend does), then the progress line.
pub fn after_call(checks: &DebugChecks, program: &Program, args: &[Arg<'_>]) -> Result<(), Error> {
    if checks.nan || !checks.non_negative.is_empty() {
        for written in crate::backend::embedded::written_regions(program, args)? {
            let (param, region) = (written.param, written.region);
            let (Some(p), Some(Arg::FieldMut(view))) = (program.params.get(param), args.get(param))
            else {
                continue;
            };
            let negative = checks.non_negative.iter().any(|f| f == &p.name);
            let dims = p.ty.dims().unwrap_or(&[]).join(", ");
            let bad = match view {
                FieldViewMut::F32(a, origin) => {
                    first_bad(a.view(), origin, &region, checks.nan, negative)
                }
                FieldViewMut::F64(a, origin) => {
                    first_bad(a.view(), origin, &region, checks.nan, negative)
                }
                FieldViewMut::I32(a, origin) => {
                    first_bad(a.view(), origin, &region, false, negative)
                }
                FieldViewMut::I64(a, origin) => {
                    first_bad(a.view(), origin, &region, false, negative)
                }
                FieldViewMut::Bool(..) => None,
            };
            if let Some((what, value, point)) = bad {
                return Err(Error::Execution {
                    program: program.name.clone(),
                    message: format!(
                        "debug check: output `{}` holds {what} ({value}) at index {point:?} ({dims}), inside the domain the call wrote",
                        p.name
                    ),
                });
            }
        }
    }
    if checks.progress {
        eprintln!("[gt4rs] {} done", program.name);
    }
    Ok(())
}

/// The first NaN (where `nan`) or negative value (where `negative`) of `a` (first element at
/// `origin`) inside `region`: what it is, the value and its index.
fn first_bad<T: CheckedScalar>(
    a: ArrayViewD<'_, T>,
    origin: &[i64],
    region: &[Range<i64>],
    nan: bool,
    negative: bool,
) -> Option<(&'static str, String, Vec<i64>)> {
    if !nan && !negative {
        return None;
    }
    let mut inside = a;
    for (axis, (r, o)) in region.iter().zip(origin).enumerate() {
        let n = inside.shape()[axis] as i64;
        let (lo, hi) = ((r.start - o).clamp(0, n), (r.end - o).clamp(0, n));
        inside.slice_axis_inplace(
            ndarray::Axis(axis),
            Slice::from(lo as isize..hi.max(lo) as isize),
        );
    }
    let offset: Vec<i64> = region
        .iter()
        .zip(origin)
        .map(|(r, o)| r.start.max(*o))
        .collect();
    inside.indexed_iter().find_map(|(index, &v)| {
        let what = if nan && v.is_nan() {
            "NaN"
        } else if negative && v.is_negative() {
            "a negative value"
        } else {
            return None;
        };
        let point = index
            .as_array_view()
            .iter()
            .zip(&offset)
            .map(|(&i, &o)| i as i64 + o)
            .collect();
        Some((what, format!("{v:?}"), point))
    })
}

/// Element types the checks understand.
pub trait CheckedScalar: Scalar {
    /// Whether the value is a NaN (never, for integers).
    fn is_nan(self) -> bool;
    /// Whether the value is below zero.
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
impl CheckedScalar for i32 {
    fn is_nan(self) -> bool {
        false
    }
    fn is_negative(self) -> bool {
        self < 0
    }
}
impl CheckedScalar for i64 {
    fn is_nan(self) -> bool {
        false
    }
    fn is_negative(self) -> bool {
        self < 0
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

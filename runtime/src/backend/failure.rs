//! A kernel's failure as an [`Error`]: the fused CPU kernels call [`failed`] in their cold error
//! path, the CUDA launcher with the values a kernel recorded or a precondition it checked. The
//! failures and their messages are defined once, in `gt4rs_ir::failure`.

use gt4rs_ir::failure::{Failure, FailureClass, Point};

use crate::error::Error;

/// The error of `failure` in `program`, with its `message`.
pub fn error(program: &str, failure: &Failure, message: String) -> Error {
    let program = program.to_string();
    match failure.class() {
        FailureClass::Domain => Error::Domain { program, message },
        FailureClass::Argument { arg } => Error::Argument {
            program,
            arg,
            message,
        },
        FailureClass::Execution => Error::Execution { program, message },
    }
}

/// The error of `failure` in `program`, its message formatted from `values` and `point`.
#[cold]
#[inline(never)]
pub fn failed(program: &str, failure: &Failure, values: &[i64], point: &Point<'_>) -> Error {
    error(program, failure, failure.message(values, point))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gt4rs_ir::failure::FieldName;

    #[test]
    fn failures_become_the_error_of_their_class() {
        let e = failed("p", &Failure::DivisionByZero, &[], &[("I", 2)]);
        assert_eq!(
            e.to_string(),
            "program `p`: integer division by zero at point I 2"
        );
        let local = Failure::LocalDimension {
            arg: "w".into(),
            dim: "E2C".into(),
            count: 2,
        };
        assert!(matches!(
            failed("p", &local, &[0, 3], &[]),
            Error::Argument { arg, .. } if arg == "w"
        ));
        let output = Failure::OutputTooSmall {
            stage: 1,
            field: FieldName::Temporary(0),
            dim: "K".into(),
        };
        assert!(matches!(
            failed("p", &output, &[], &[]),
            Error::Domain { .. }
        ));
    }
}

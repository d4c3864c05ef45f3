//! The one error type of the run-time API.

/// Everything that can go wrong when building fields, binding connectivities, compiling or
/// calling a program. Messages name the program, argument and index involved.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum Error {
    #[error("shape mismatch: {0}")]
    Shape(String),
    #[error("connectivity {offset}: {message}")]
    Connectivity { offset: String, message: String },
    #[error("program `{program}`: {message}")]
    Domain { program: String, message: String },
    #[error("program `{program}`, argument `{arg}`: {message}")]
    Argument {
        program: String,
        arg: String,
        message: String,
    },
    #[error("backend {backend} is not available: {reason}")]
    BackendUnavailable { backend: String, reason: String },
    #[error("program `{program}`: {message}")]
    Execution { program: String, message: String },
    #[error("invalid program IR for `{program}`: {message}")]
    Ir { program: String, message: String },
    #[error("configuration: {0}")]
    Config(String),
    #[error("i/o: {0}")]
    Io(String),
}

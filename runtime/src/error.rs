//! The one error type of the run-time API.

/// Everything that can go wrong when building fields, binding connectivities, compiling or
/// calling a program. Messages name the program, argument and index involved; the variant says
/// which kind of mistake it is, so a caller can tell a bad argument from an unusable backend.
///
/// ```
/// use gt4rs::prelude::*;
///
/// gt4rs::dimensions! { pub Cell: horizontal; pub K: vertical; }
///
/// // A field over (Cell, K) needs two ranges.
/// let err = Field::<(Cell, K), f64>::filled(&[0..4], 0.0, Layout::default()).unwrap_err();
/// assert!(matches!(err, Error::Shape(_)));
/// assert!(err.to_string().contains("2 dimensions"));
/// ```
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum Error {
    /// A field or table of the wrong rank or size, an index outside a field, or a domain that
    /// an index cannot count.
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// A neighbour table that does not fit its offset (width, entries outside `0..target_size`,
    /// a -1 in the table of an offset declared without skip values), or one a program needs but
    /// the options lack.
    #[error("connectivity {offset}: {message}")]
    Connectivity {
        /// The offset's name.
        offset: String,
        /// What is wrong.
        message: String,
    },
    /// The domain of a call does not fit its fields: an output does not cover it, a shifted
    /// read leaves its field, or a range is reversed.
    #[error("program `{program}`: {message}")]
    Domain {
        /// The program called.
        program: String,
        /// The dimension, the ranges and the field involved.
        message: String,
    },
    /// An argument is unfit for the program whatever the domain: a sparse field of the wrong
    /// width, an empty field that is read, a static value that was not compiled.
    #[error("program `{program}`, argument `{arg}`: {message}")]
    Argument {
        /// The program called.
        program: String,
        /// The parameter's name.
        arg: String,
        /// What is wrong with it.
        message: String,
    },
    /// The backend asked for cannot run here: CUDA without the `cuda` feature or without a
    /// usable device, or a program the CPU backend cannot run.
    #[error("backend {backend} is not available: {reason}")]
    BackendUnavailable {
        /// The backend's name (`cuda`, `cpu`).
        backend: String,
        /// Why, naming the program.
        reason: String,
    },
    /// A failure while running: a value met at a point (a read of a missing neighbour or
    /// outside a field, an integer division by zero), a failed debug check (NaN, a negative
    /// value), or an error of the CUDA driver or compiler.
    #[error("program `{program}`: {message}")]
    Execution {
        /// The program called.
        program: String,
        /// What happened, and at which point.
        message: String,
    },
    /// A program's IR that the backends cannot run (IR built by hand, bypassing the checker).
    #[error("invalid program IR for `{program}`: {message}")]
    Ir {
        /// The program.
        program: String,
        /// What is wrong with its IR.
        message: String,
    },
    /// An options file, `GT4RS_CONFIG` or `GT4RS_DEBUG` that cannot be read, or options naming
    /// a program or a static argument that does not exist.
    #[error("configuration: {0}")]
    Config(String),
    /// A file (grid, cache entry, trace) that cannot be read or written.
    #[error("i/o: {0}")]
    Io(String),
}

//! Status codes, the failure of an entry and the per-thread message of the last one.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::Error;

/// What a C entry returns: 0 for success, otherwise the kind of failure (its message is
/// [`last_error`]). The values are part of the ABI: the bindings declare them as
/// `GT4RS_<NAME>` constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Status {
    /// Success.
    Ok = 0,
    /// A null pointer where data or a handle was needed.
    NullPointer = 1,
    /// Sizes or strides that disagree with the program's layout or with each other.
    Shape = 2,
    /// A neighbour table that cannot be one (entries out of range, a 0-based table passed as
    /// 1-based, blocks where none are supported).
    Connectivity = 3,
    /// A call before the init it needs (or on a freed handle).
    NotInitialised = 4,
    /// An init called a second time.
    AlreadyInitialised = 5,
    /// A configuration the library does not support.
    Config = 6,
    /// An argument value a program refuses (a static value not compiled, shared memory).
    Argument = 7,
    /// A domain outside a field.
    Domain = 8,
    /// A program failed while it ran (a read through a missing neighbour, a division by zero).
    Execution = 9,
    /// The backend asked for is not available.
    Backend = 10,
    /// A bug: the library panicked (the panic was stopped at the boundary).
    Panic = 11,
    /// Reading or writing a file failed.
    Io = 12,
}

impl Status {
    /// Every status, in code order (the bindings declare each).
    pub const ALL: [Status; 13] = [
        Status::Ok,
        Status::NullPointer,
        Status::Shape,
        Status::Connectivity,
        Status::NotInitialised,
        Status::AlreadyInitialised,
        Status::Config,
        Status::Argument,
        Status::Domain,
        Status::Execution,
        Status::Backend,
        Status::Panic,
        Status::Io,
    ];

    /// The name in the bindings' constants (`GT4RS_` + this).
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::NullPointer => "NULL_POINTER",
            Status::Shape => "SHAPE",
            Status::Connectivity => "CONNECTIVITY",
            Status::NotInitialised => "NOT_INITIALISED",
            Status::AlreadyInitialised => "ALREADY_INITIALISED",
            Status::Config => "CONFIG",
            Status::Argument => "ARGUMENT",
            Status::Domain => "DOMAIN",
            Status::Execution => "EXECUTION",
            Status::Backend => "BACKEND",
            Status::Panic => "PANIC",
            Status::Io => "IO",
        }
    }

    /// The code an entry returns.
    pub fn code(self) -> c_int {
        self as c_int
    }
}

/// Why an entry failed: a status and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What kind of failure.
    pub status: Status,
    /// What happened, naming the entry and the argument.
    pub message: String,
}

impl Failure {
    /// A failure of `status` saying `message`.
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
        }
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        let status = match &error {
            Error::Shape(_) => Status::Shape,
            Error::Connectivity { .. } => Status::Connectivity,
            Error::Domain { .. } => Status::Domain,
            Error::Argument { .. } => Status::Argument,
            Error::BackendUnavailable { .. } => Status::Backend,
            Error::Execution { .. } => Status::Execution,
            Error::Ir { .. } | Error::Config(_) => Status::Config,
            Error::Io(_) => Status::Io,
        };
        Failure::new(status, error.to_string())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn remember(message: &str) {
    // A NUL inside a message would end the C string early; it becomes a space.
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

/// The message of the last failure on this thread (empty if none).
pub fn last_error() -> String {
    LAST_ERROR.with(|last| last.borrow().to_string_lossy().into_owned())
}

pub(super) fn last_error_ptr() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// Runs the body of the C entry `function`: its status code, with the message of a failure
/// kept for [`last_error`]. A panic stops here (it would be undefined behaviour to unwind into
/// C) and is reported as [`Status::Panic`].
pub fn entry(function: &str, body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return Status::Ok.code(),
        Ok(Err(failure)) => failure,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            Failure::new(
                Status::Panic,
                format!("{function}: internal error (a panic, stopped at the C boundary): {what}"),
            )
        }
    };
    remember(&failure.message);
    failure.status.code()
}

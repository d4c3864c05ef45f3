//! The C ABI of gt4rs programs and granules: what the entries that `gt4rs::export_c!` and
//! `#[gt4rs::export_c]` generate call at run time (see docs/fortran.md).
//!
//! * [`entry`] runs an entry's body: a panic is caught there, never unwinds into C, and every
//!   failure becomes a [`Status`] code with its message kept for [`last_error`] (per thread);
//! * [`view_parts`] and the checks beside it turn a caller's pointer, sizes and strides into
//!   the parts of a [`crate::view`] view, refusing what cannot be one (a null pointer, a
//!   negative size, overlapping arguments);
//! * [`icon`] converts ICON's 1-based `idx`/`blk` neighbour tables, once;
//! * [`bindings`] writes the C header, the Fortran module and the pkg-config file of a
//!   library from the declarations the macros generated.

pub mod bindings;
pub mod icon;
mod status;

pub use status::{entry, last_error, Failure, Status};

use std::ffi::c_char;

use crate::error::Error;
use crate::options::{Backend, Options};

/// Element sizes from the caller: each must be 0 or more.
pub fn sizes<const R: usize>(
    function: &str,
    arg: &str,
    sizes: [i64; R],
) -> Result<[usize; R], Failure> {
    let mut out = [0usize; R];
    for (d, (&n, o)) in sizes.iter().zip(&mut out).enumerate() {
        *o = usize::try_from(n).map_err(|_| {
            Failure::new(
                Status::Shape,
                format!("{function}: `{arg}` has size {n} along dimension {}", d + 1),
            )
        })?;
    }
    Ok(out)
}

/// Element strides from the caller.
pub fn strides<const R: usize>(
    function: &str,
    arg: &str,
    strides: [i64; R],
) -> Result<[isize; R], Failure> {
    let mut out = [0isize; R];
    for (d, (&s, o)) in strides.iter().zip(&mut out).enumerate() {
        *o = isize::try_from(s).map_err(|_| {
            Failure::new(
                Status::Shape,
                format!("{function}: `{arg}` has stride {s} along dimension {}, more than an address holds", d + 1),
            )
        })?;
    }
    Ok(out)
}

/// A null pointer where the array has elements is an error naming the argument; an empty
/// array may be null.
pub fn non_null<T>(
    function: &str,
    arg: &str,
    ptr: *const T,
    shape: &[usize],
) -> Result<(), Failure> {
    if ptr.is_null() && !shape.contains(&0) {
        return Err(Failure::new(
            Status::NullPointer,
            format!("{function}: `{arg}` is a null pointer (sizes {shape:?})"),
        ));
    }
    Ok(())
}

/// The error of a view the caller described badly, naming the argument.
pub fn bad_view(function: &str, arg: &str, error: Error) -> Failure {
    let message = match error {
        Error::Shape(m) => m,
        other => other.to_string(),
    };
    Failure::new(Status::Shape, format!("{function}: `{arg}`: {message}"))
}

/// Every element of a `bool` array the caller passes must be 0 or 1 (a Fortran compiler may
/// store `.true.` as another byte): checked before anything reads it as `bool`.
pub fn check_bools(
    function: &str,
    arg: &str,
    ptr: *const bool,
    shape: &[usize],
    strides: &[isize],
) -> Result<(), Failure> {
    if shape.contains(&0) {
        return Ok(());
    }
    let bytes = ptr as *const u8;
    let mut index = vec![0usize; shape.len()];
    loop {
        let offset: isize = index
            .iter()
            .zip(strides)
            .map(|(&i, &s)| i as isize * s)
            .sum();
        // SAFETY: the caller has checked the view's parts (non-null, span inside isize) and the
        // index is inside the shape; the byte is read as a `u8`, which any value is.
        let byte = unsafe { *bytes.offset(offset) };
        if byte > 1 {
            return Err(Failure::new(
                Status::Argument,
                format!(
                    "{function}: `{arg}` holds the byte {byte} at index {index:?} (0-based); logical values must be 0 or 1 (`logical(c_bool)`)"
                ),
            ));
        }
        let mut d = 0;
        loop {
            if d == shape.len() {
                return Ok(());
            }
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
            d += 1;
        }
    }
}

/// The memory one array argument of a call spans.
#[derive(Clone, Copy, Debug)]
pub struct Extent<'a> {
    /// The argument's name, for the message.
    pub name: &'a str,
    /// `[lowest, highest]` byte address (`None` for an empty or absent array).
    pub range: Option<(usize, usize)>,
    /// The call writes it.
    pub written: bool,
}

/// No array a call writes may share memory with another argument: the kernels read and write
/// them in parallel, and a Fortran caller passing one array twice would get a race. Address
/// ranges are compared (two sections interleaved in one array count as overlapping).
pub fn check_disjoint(function: &str, arrays: &[Extent<'_>]) -> Result<(), Failure> {
    // Only pairs with a written array can race: each written one against every other.
    for (i, written) in arrays.iter().enumerate().filter(|(_, a)| a.written) {
        let Some((lo_a, hi_a)) = written.range else {
            continue;
        };
        for (j, other) in arrays.iter().enumerate() {
            // A pair of written arrays is seen once, from the first of them.
            if j == i || (other.written && j < i) {
                continue;
            }
            let Some((lo_b, hi_b)) = other.range else {
                continue;
            };
            if lo_a <= hi_b && lo_b <= hi_a {
                let (a, b) = if i < j {
                    (written.name, other.name)
                } else {
                    (other.name, written.name)
                };
                let shared_by = written.name;
                return Err(Failure::new(
                    Status::Argument,
                    format!(
                        "{function}: `{a}` and `{b}` share memory, and `{shared_by}` is written; pass separate arrays"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The object behind a handle the caller passes back, or an error if it is null (a call before
/// the handle was made, or after it was freed and nulled).
///
/// # Safety
/// A non-null `handle` must be a pointer this library returned for a `T` and not yet freed.
pub unsafe fn handle<'a, T>(
    function: &str,
    what: &str,
    handle: *const T,
) -> Result<&'a T, Failure> {
    // SAFETY: the caller's contract: non-null handles point to a live `T`.
    unsafe { handle.as_ref() }.ok_or_else(|| {
        Failure::new(
            Status::NotInitialised,
            format!("{function}: the {what} is a null handle (not made yet, or freed)"),
        )
    })
}

/// The object behind a handle the caller passes back to be changed (see [`handle`]).
///
/// # Safety
/// A non-null `handle` must be a pointer this library returned for a `T`, not yet freed and
/// not in use elsewhere during the call.
pub unsafe fn handle_mut<'a, T>(
    function: &str,
    what: &str,
    handle: *mut T,
) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller's contract: non-null handles point to a live `T` used by this call only.
    unsafe { handle.as_mut() }.ok_or_else(|| {
        Failure::new(
            Status::NotInitialised,
            format!("{function}: the {what} is a null handle (not made yet, or freed)"),
        )
    })
}

/// Stores `value` behind a new handle in `*out`.
///
/// # Safety
/// `out` must be null (an error) or valid for a write of one pointer.
pub unsafe fn give_handle<T>(function: &str, out: *mut *mut T, value: T) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::new(
            Status::NullPointer,
            format!("{function}: the place for the new handle is a null pointer"),
        ));
    }
    // SAFETY: `out` is non-null and, by the caller's contract, valid for a write.
    unsafe { *out = Box::into_raw(Box::new(value)) };
    Ok(())
}

/// Frees a handle made by [`give_handle`] and nulls the caller's copy; a null handle is left
/// alone.
///
/// # Safety
/// `handle` must be null, or point to a handle this library made for a `T` and not yet freed.
pub unsafe fn free_handle<T>(handle: *mut *mut T) {
    if handle.is_null() {
        return;
    }
    // SAFETY: `handle` is valid for reads and writes of one pointer (the caller's contract).
    let inner = unsafe { std::mem::replace(&mut *handle, std::ptr::null_mut()) };
    if !inner.is_null() {
        // SAFETY: `inner` came from `Box::into_raw` in `give_handle` and is freed once: the
        // caller's copy is nulled first.
        drop(unsafe { Box::from_raw(inner) });
    }
}

/// The backend a caller names by number (the `GT4RS_BACKEND_*` constants of the bindings).
pub fn backend(function: &str, code: i32) -> Result<Backend, Failure> {
    match code {
        0 => Ok(Backend::Cpu),
        1 => Ok(Backend::Embedded),
        2 => Ok(Backend::Cuda),
        other => Err(Failure::new(
            Status::Argument,
            format!("{function}: backend {other} is not one of 0 (cpu), 1 (embedded), 2 (cuda)"),
        )),
    }
}

/// Compile options a foreign caller builds: a backend and the connectivities it sets.
#[derive(Clone, Debug)]
pub struct OptionsHandle(pub Options);

/// The message of the last failure on this thread, as a NUL-terminated string owned by the
/// library (valid until the next failing call on this thread); empty if none.
pub fn last_error_ptr() -> *const c_char {
    status::last_error_ptr()
}

#[cfg(test)]
mod tests;

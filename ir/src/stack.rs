//! Recursion whose depth the user's source decides.
//!
//! An expression tree is as deep as the longest chain of operators or `let`s in an operator
//! (a chain of 2,000 additions is 2,000 levels), and every pass over it (checking, lowering,
//! serialising, interpreting) recurses once per level. The macros run on rustc's own thread
//! and the embedded backend on the caller's (2 MiB for a test thread), so no fixed stack is
//! deep enough: each recursive step goes through [`grow`], which moves onto a fresh segment of
//! the heap when the current stack runs low, as rustc itself does.

use serde::de::DeserializeOwned;

/// Below this much stack left a recursive step moves to a new segment. One step (a few frames
/// of a checker or a deserialiser, unoptimised in the proc macro) stays far below it.
const RED_ZONE: usize = 256 * 1024;

/// The size of each new segment.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `step` (one level of a recursion over user input) with enough stack for it.
#[inline]
pub fn grow<R>(step: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, step)
}

/// Runs `f` on a fresh stack of `size` bytes (on the same thread), for a recursion that cannot
/// be cut into [`grow`] steps (a library's own: syn's clone and drop of a deep expression).
pub fn with_stack<R>(size: usize, f: impl FnOnce() -> R) -> R {
    stacker::grow(size, f)
}

/// Parses JSON nested as deep as the expressions it holds: without serde_json's recursion
/// limit of 128 levels (the recursive types grow the stack instead, see [`grow`]).
pub fn from_json<T: DeserializeOwned>(json: &str) -> Result<T, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(json);
    deserializer.disable_recursion_limit();
    let value = T::deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

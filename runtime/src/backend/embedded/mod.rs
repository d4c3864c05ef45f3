//! The embedded backend: the semantic reference.
//!
//! It interprets the typed fieldview IR directly, one operation at a time over whole fields
//! (ndarray), with GT4Py's domain semantics, and shares no code with the fused lowering. The
//! fused backends are tested against it.
//!
//! Every expression evaluates to a whole value: a field over a domain (one
//! half-open range per dimension, any start; a broadcast dimension is unbounded until it meets
//! a bounded one), a scalar (a field without dimensions) or a tuple. Operators combine the
//! intersection of their operands' domains over the union of their dimensions. Choices where
//! GT4Py leaves the behaviour open or the IR is more general:
//!
//! * A neighbour read through a skipped slot (-1), or outside the range of the field read, and
//!   a dynamic shift reading outside its field are *undefined*: they propagate through
//!   elementwise operations, `select` and reductions that skip the slot discard them, and a
//!   program writing one inside a domain fails with an error naming the output and the point
//!   (nothing of that call is written).
//! * Integer arithmetic wraps; integer division or remainder by zero is an error. `min`/`max`
//!   (and `max_over`/`min_over`) ignore NaN, as Rust's `f64::max`/`f64::min` do, and order
//!   -0.0 below +0.0 (`gt4rs_ir::scalar::Arithmetic`, the rule of every backend).
//! * `concat_where`: along dimensions the condition does not name, the result covers the
//!   intersection of both branches; along the named ones, the union of the branches' regions
//!   must be a range. An end reached only by broadcast (unbounded) branches has to be stored
//!   somewhere: it extends to the call's reach along the dimension (the written range and the
//!   ranges of the field arguments), or further to the outermost index the condition or a
//!   bounded branch names. (A value stored over a finite range can still fall short when it is
//!   read shifted beyond every field argument; domain inference would be needed for that.)
//! * A scan runs along its axis over the range the program call writes (GT4Py's column range),
//!   within the range its field arguments cover; outside a program call, over the latter.
//!   Inside `concat_where` branches it is active only in their region: where it is not, its
//!   carry goes back to `init`, so it starts again at the region's first level in scan
//!   direction (the compiled backends' rule).
//!   In a scan body, an `if` whose condition differs between columns is applied per column.

mod concat;
mod elem;
mod eval;
mod ops;
mod program;
mod scan;
#[cfg(test)]
mod tests;
mod value;

use gt4rs_ir::fieldview::Program;

use crate::args::Arg;
use crate::connectivity::ConnectivityTable;
use crate::error::Error;

/// Runs every call of `program`, op by op. `connectivities` are in the order of
/// `program.used_offsets()`.
///
/// Each call's value is evaluated completely (GT4Py embedded semantics: every node is a whole
/// field over its own domain) before it is written, so a call may read the field it writes.
/// Points outside a call's domain are left untouched. A point whose value reads a skipped
/// neighbour (table entry -1) is undefined: evaluation carries it as such, and writing it
/// inside a domain is an error naming the point (values that discard it, e.g. through
/// `select` or a reduction skipping the slot, are fine).
pub fn run_program(
    program: &Program,
    args: &mut [Arg<'_>],
    connectivities: &[&ConnectivityTable],
) -> Result<(), Error> {
    program::run(program, args, connectivities)
}

/// What one call of a program writes into one output.
#[derive(Clone, Debug, PartialEq)]
pub struct WrittenRegion {
    /// The output's parameter index.
    pub param: usize,
    /// One range per dimension of the output.
    pub region: Vec<std::ops::Range<i64>>,
}

/// The region each call of `program` writes into each output, in call order, for the
/// arguments `args`: the calls' domains evaluated, no value.
pub fn written_regions(program: &Program, args: &[Arg<'_>]) -> Result<Vec<WrittenRegion>, Error> {
    program::written_regions(program, args)
}

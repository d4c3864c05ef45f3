//! Hand-built IR programs run by the embedded backend and compared with hand-written loops on
//! random data. Outputs are poisoned with NaN first, and points outside each domain must keep
//! the poison.

mod fixtures;

mod arithmetic;
mod branches;
mod domains;
mod errors;
mod reductions;
mod reference_data;
mod scans;
mod shifts;

//! Run-time support for the fused CPU kernels that `#[program]` generates: argument checks
//! shared by all programs, and the parallel driver over horizontal blocks.

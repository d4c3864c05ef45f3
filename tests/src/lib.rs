//! Shared helpers of the gt4rs test suite.

//! Nothing to link: this package holds the macros' compile-time tests (`tests/ui.rs`, one
//! file per case under `pass/` and `fail/`, each failing case with its expected `.stderr`).
//! It depends on `gt4rs` alone, so trybuild builds only that for the cases.

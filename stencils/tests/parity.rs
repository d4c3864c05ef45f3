//! Parity of the backends: every program of the library that the embedded backend accepts, the
//! fused backends compile too (the CPU kernels, and the CUDA kernels emulated on the host where
//! g++ exists, on a device where one is present). The conformance suite and the differential
//! fuzzer's 320 programs hold every backend to the same outputs, each program on every
//! configuration (`tests/tests/conformance.rs`, `tests/tests/fuzz.rs`); this test holds the
//! library's programs in both precisions to compiling everywhere, so a restriction of a fused
//! backend cannot hide behind a program no test runs on it.

use gt4rs::grid::IcosahedralGrid;
use gt4rs::Backend;
use gt4rs_stencils::icon::calls;
use gt4rs_stencils::programs::{ALL, MIXED};
use gt4rs_tests::available_backends;

#[test]
fn every_program_the_embedded_backend_accepts_compiles_on_every_backend() {
    let grid = IcosahedralGrid::generate(2, 1).expect("R2B1 generates");
    let connectivities = calls::connectivities(&grid).expect("every table of a generated grid");
    let backends = available_backends();
    assert!(
        backends.iter().any(|b| b.backend == Backend::Cpu),
        "the CPU backend always runs"
    );
    let mut refused = Vec::new();
    let mut compiled = 0;
    for entry in ALL.iter().chain(MIXED) {
        let embedded = backends
            .iter()
            .find(|b| b.backend == Backend::Embedded)
            .expect("the embedded backend always runs");
        if let Err(e) = (entry.compile)(&embedded.options_with(connectivities.clone())) {
            panic!("{}: the embedded backend refuses it: {e}", entry.name);
        }
        for backend in &backends {
            match (entry.compile)(&backend.options_with(connectivities.clone())) {
                Ok(_) => compiled += 1,
                Err(e) => refused.push(format!("{} on {}: {e}", entry.name, backend.name())),
            }
        }
    }
    assert!(
        refused.is_empty(),
        "the fused backends refuse programs the embedded backend accepts:\n{}",
        refused.join("\n")
    );
    assert!(compiled >= (ALL.len() + MIXED.len()) * 2, "{compiled}");
}

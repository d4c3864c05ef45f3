//! Two runs of the diffusion granule compared field by field (the CPU backend against the
//! embedded one, over flat terrain in `diffusion.rs` and over mountains in `terrain.rs`).

use gt4rs::Field;
use gt4rs_stencils::diffusion::{DiagnosticState, PrognosticState};
use gt4rs_stencils::icon::dims::{Cell, K};
use ndarray::{s, ArrayD, ArrayViewD};

/// Asserts that the prognostic fields of `cpu` and `embedded` and their turbulence diagnostics
/// (their levels `1..nlev`, which must all be finite) agree to `1e-12` relative to the
/// larger magnitude (at least 1).
pub fn assert_cpu_equals_embedded(
    cpu: (&PrognosticState, &DiagnosticState),
    embedded: (&PrognosticState, &DiagnosticState),
) {
    let compare = |a: ArrayViewD<'_, f64>, b: ArrayViewD<'_, f64>, name: &str| {
        assert_eq!(a.shape(), b.shape(), "{name}: shapes");
        for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
            let scale = x.abs().max(y.abs()).max(1.0);
            assert!(
                (x - y).abs() <= 1e-12 * scale,
                "{name}[{i}]: cpu {x} vs embedded {y}"
            );
        }
    };
    let ((state, diag), (other, other_diag)) = (cpu, embedded);
    compare(state.vn.as_array(), other.vn.as_array(), "vn");
    compare(state.w.as_array(), other.w.as_array(), "w");
    compare(
        state.theta_v.as_array(),
        other.theta_v.as_array(),
        "theta_v",
    );
    compare(state.exner.as_array(), other.exner.as_array(), "exner");
    // The diagnostics live on the nlev + 1 half levels; the granule writes levels 1..nlev.
    let written = |f: &Field<(Cell, K), f64>| -> ArrayD<f64> {
        let half_levels = f.as_array().shape()[1];
        f.as_array()
            .slice(s![.., 1..half_levels - 1])
            .into_owned()
            .into_dyn()
    };
    for (name, a, b) in [
        ("div_ic", &diag.div_ic, &other_diag.div_ic),
        ("hdef_ic", &diag.hdef_ic, &other_diag.hdef_ic),
        ("dwdx", &diag.dwdx, &other_diag.dwdx),
        ("dwdy", &diag.dwdy, &other_diag.dwdy),
    ] {
        let (a, b) = (written(a), written(b));
        assert!(a.iter().all(|v| v.is_finite()), "{name} not written");
        compare(a.view(), b.view(), name);
    }
}

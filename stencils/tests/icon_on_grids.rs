//! Every ICON program of the registry (double precision) on generated grids, through the
//! dynamic interface on both backends, against the hand-written loop references:
//! - a global R2B2 grid, whose V2E, V2C and V2E2V rows keep a -1 in slot 5 at the 12
//!   pentagons (the only skip values ICON keeps on a global grid);
//! - a limited-area grid cut from R2B3, whose boundary tables hold -1 outside the region, with
//!   the domains ICON's diffusion granule and stencil tests use (zone starts, e.g. edges from
//!   `LATERAL_BOUNDARY_LEVEL_5`), so that no direct neighbour read meets a -1;
//! - the same cut with every -1 replaced by its row's largest valid index, as ICON4Py loads
//!   limited-area grids for its stencil tests (`keep_skip_values=False`).
//!
//! Grids, ICON's domains and random arguments come from `support` (shared with
//! `static_variants.rs` and `mixed_precision.rs`). On the limited-area grid, programs that only
//! reduce over neighbours also run over the whole grid, so that their reductions skip boundary
//! -1 entries. Every static argument takes each of its values. Inputs are seeded uniform random
//! numbers (in [-1, 1) unless ICON's ranges are needed, `gt4rs_stencils::icon::calls::Draw`); pure outputs are
//! poisoned with NaN before the run, and whole arrays are compared, so values outside the
//! domain must survive. Both backends and the references agree bit for bit today; the bound is
//! `RTOL`. The CPU kernels run in each of their copies (`CpuOptions::vectors`), which must
//! agree bit for bit.

mod support;

use gt4rs::grid::{GridDim, Zone, TABLE_WIDTHS};
use gt4rs::{Backend, Connectivities, CpuOptions, Options, Vectors};
use gt4rs_stencils::icon::reference::{self, PROGRAMS};
use gt4rs_stencils::programs;
use ndarray::ArrayD;
use support::{
    assert_static_values_covered, bit_equal, calls_on, connectivities_of, float_param, global_grid,
    limited_area_grid, limited_area_grid_with_skips_replaced, random_call, rows_with_skips,
    run_dynamic, written_by, TestGrid, PENTAGON_TABLES,
};

/// Largest relative error accepted between the DSL and the reference (f64).
const RTOL: f64 = 1e-12;

/// Programs the CPU backend cannot run on a limited-area grid that keeps its -1 entries, with
/// the table it meets one in (the test asserts that failure). None now: a temporary (a value
/// gathered through a neighbour shift, `ir/src/lower.rs`) covers only the reach of the domain
/// that reads it, so `calculate_nabla2_for_theta`'s `z_nabla2_e` no longer reads the -1 `E2C`
/// slots of the outermost boundary edges, which ICON's domain (cells from the nudging zone)
/// never reaches.
const CPU_TEMPORARY_MEETS_SKIP: &[(&str, &str)] = &[];

#[test]
fn generated_grids_have_skip_values_where_icon_has_them() {
    let g = global_grid();
    for (offset, _) in TABLE_WIDTHS {
        let rows = rows_with_skips(&g.grid, offset);
        if PENTAGON_TABLES.contains(offset) {
            assert_eq!(rows.len(), 12, "{offset}: one row per pentagon");
            let table = g.grid.table(offset).expect("table");
            for &r in &rows {
                assert_eq!(
                    table[[r, 5]],
                    -1,
                    "{offset}: pentagon {r} skips slot 5 only"
                );
                assert!(table.row(r).iter().take(5).all(|&n| n >= 0), "{offset} {r}");
            }
        } else {
            assert!(rows.is_empty(), "{offset}: a global grid has no boundary");
        }
    }
    let lam = limited_area_grid();
    for offset in ["E2C", "C2E2C", "C2E2CO", "E2C2V", "E2C2E", "V2E", "V2C"] {
        assert!(
            !rows_with_skips(&lam.grid, offset).is_empty(),
            "{offset}: the limited-area cut has a boundary"
        );
    }
    for dim in GridDim::ALL {
        let interior = lam.grid.start(dim, Zone::Interior).expect("zone");
        assert!(interior > 0 && interior < lam.grid.size(dim), "{dim:?}");
    }
}

/// `max |a - e| / max(|a|, |e|)`; NaN matches NaN only.
fn max_rel_err(actual: &ArrayD<f64>, expected: &ArrayD<f64>) -> f64 {
    assert_eq!(actual.shape(), expected.shape());
    actual
        .iter()
        .zip(expected)
        .map(|(&a, &e)| {
            if a == e || (a.is_nan() && e.is_nan()) {
                0.0
            } else if a.is_nan() || e.is_nan() {
                f64::INFINITY
            } else {
                (a - e).abs() / a.abs().max(e.abs())
            }
        })
        .fold(0.0, f64::max)
}

/// Runs every variant of `program` on `g` with both backends; returns the largest error.
fn check_program(program: &str, g: &TestGrid, conns: &Connectivities, seed: u64) -> f64 {
    let entry = programs::find(program).unwrap_or_else(|| panic!("`{program}` not registered"));
    let mut worst = 0.0f64;
    let setups = calls_on(program, g);
    let embedded_options = Options::new(Backend::Embedded).with_connectivities(conns.clone());
    let signature = (entry.compile)(&embedded_options)
        .unwrap_or_else(|e| panic!("{program}: {e}"))
        .signature();
    assert_static_values_covered(program, &signature, &setups);
    let written = written_by(&signature);
    for (variant, setup) in setups.iter().enumerate() {
        let call = random_call(&signature, &g.grid, setup, seed + variant as u64);
        let mut expected = call.clone();
        reference::run(program, &mut expected)
            .unwrap_or_else(|e| panic!("{program} on {}: reference: {e}", g.label));
        // Some outputs are written only under one static value (`dwdx` for `type_shear`
        // 2), but every call must write something.
        let changed = written
            .iter()
            .any(|name| !bit_equal(float_param(&call, name), float_param(&expected, name)));
        assert!(
            changed,
            "{program} on {} (variant {variant}): the reference writes nothing",
            g.label
        );
        // The CPU kernels run in each copy this CPU has (the widest first, the default), which
        // must agree bit for bit.
        let mut widest_outputs = None;
        let widest_here = gt4rs::__private::cpu::widest_vectors_here();
        let runs = [
            (Backend::Embedded, Vectors::Avx512),
            (Backend::Cpu, Vectors::Avx512),
            (Backend::Cpu, Vectors::Avx2),
            (Backend::Cpu, Vectors::Baseline),
        ];
        for (backend, vectors) in runs {
            if backend == Backend::Cpu && vectors < Vectors::Avx512 && vectors >= widest_here {
                continue; // the same copy as the run before
            }
            let options = Options::new(backend)
                .with_connectivities(conns.clone())
                .with_cpu(CpuOptions {
                    vectors,
                    ..CpuOptions::default()
                });
            let compiled = (entry.compile)(&options).unwrap_or_else(|e| panic!("{program}: {e}"));
            let outcome = run_dynamic(&*compiled, &call, &written);
            if backend == Backend::Cpu && g.keeps_boundary_skips() {
                if let Some(&(_, offset)) =
                    CPU_TEMPORARY_MEETS_SKIP.iter().find(|(p, _)| *p == program)
                {
                    let message = match outcome {
                        Err(e) => e.to_string(),
                        Ok(_) => panic!(
                            "{program} now runs on the CPU backend with boundary skip values: \
                             drop it from CPU_TEMPORARY_MEETS_SKIP"
                        ),
                    };
                    assert!(
                        message.contains(&format!("connectivity `{offset}`"))
                            && message.contains("is -1 (no neighbour)"),
                        "{program}: {message}"
                    );
                    continue;
                }
            }
            let outputs =
                outcome.unwrap_or_else(|e| panic!("{program} on {} ({backend:?}): {e}", g.label));
            if backend == Backend::Cpu {
                match &widest_outputs {
                    None => widest_outputs = Some(outputs.clone()),
                    Some(widest) => {
                        for name in &written {
                            assert!(
                                bit_equal(&outputs[name], &widest[name]),
                                "{program} on {} (variant {variant}): `{name}` differs between the \
                                 CPU kernels' copy for {vectors} and the widest this CPU has \
                                 ({widest_here})",
                                g.label
                            );
                        }
                    }
                }
            }
            for name in &written {
                let got = &outputs[name];
                let err = max_rel_err(got, float_param(&expected, name));
                assert!(
                    err <= RTOL,
                    "{program} on {} ({backend:?}, variant {variant}): `{name}` max rel err {err:e}",
                    g.label
                );
                worst = worst.max(err);
            }
        }
    }
    worst
}

fn check_all_programs(g: &TestGrid) {
    let conns = connectivities_of(&g.grid);
    let icon: Vec<&str> = programs::ALL
        .iter()
        .map(|p| p.name)
        .filter(|name| PROGRAMS.contains(name))
        .collect();
    assert_eq!(icon.len(), PROGRAMS.len(), "every reference has a program");
    for (i, program) in icon.iter().enumerate() {
        let err = check_program(program, g, &conns, 1000 * i as u64 + 7);
        eprintln!(
            "{:<72} {} embedded+cpu: max rel err {err:.1e}",
            program, g.label
        );
    }
}

#[test]
fn every_icon_program_matches_its_reference_on_a_global_grid_with_pentagons() {
    check_all_programs(&global_grid());
}

#[test]
fn every_icon_program_matches_its_reference_on_a_limited_area_grid() {
    check_all_programs(&limited_area_grid());
}

#[test]
fn every_icon_program_matches_its_reference_on_a_limited_area_grid_with_replaced_skips() {
    let g = limited_area_grid_with_skips_replaced();
    assert!(!g.keeps_boundary_skips());
    check_all_programs(&g);
}

/// `compute_diagnostics_from_normal_wind` over every edge of a limited-area grid, the boundary
/// edges included: in its `if !skip_compute_predictor_vertical_advection` branch, `w(E2C[1])`
/// meets the -1 of the outermost edges. The embedded backend finds the value undefined there,
/// and so do the CPU kernels (they used to read cell 0 instead). With the branch not taken
/// the same call succeeds.
#[test]
fn a_skipped_neighbour_read_in_a_taken_branch_on_a_limited_area_grid_is_an_error() {
    let g = limited_area_grid();
    let conns = connectivities_of(&g.grid);
    let program = "compute_diagnostics_from_normal_wind";
    let entry = programs::find(program).expect("registered");
    let embedded_options = Options::new(Backend::Embedded).with_connectivities(conns.clone());
    let signature = (entry.compile)(&embedded_options)
        .unwrap_or_else(|e| panic!("{program}: {e}"))
        .signature();
    let written = written_by(&signature);
    for setup in calls_on(program, &g) {
        let skip = setup
            .flags
            .iter()
            .any(|&(name, value)| name == "skip_compute_predictor_vertical_advection" && value);
        let whole = support::Setup {
            horizontal: (0, g.grid.size(GridDim::Edge)),
            ..setup
        };
        let call = random_call(&signature, &g.grid, &whole, 1207);
        for backend in [Backend::Embedded, Backend::Cpu] {
            let options = Options::new(backend).with_connectivities(conns.clone());
            let compiled = (entry.compile)(&options).unwrap_or_else(|e| panic!("{program}: {e}"));
            let outcome = run_dynamic(&*compiled, &call, &written);
            match (skip, outcome) {
                (true, outcome) => {
                    outcome.unwrap_or_else(|e| panic!("{program} ({backend:?}), branch not taken: {e}"));
                }
                (false, Ok(_)) => panic!(
                    "{program} ({backend:?}) read a skipped neighbour on a boundary edge without an error"
                ),
                (false, Err(e)) => {
                    let message = e.to_string();
                    assert!(
                        message.contains("is undefined at point Edge "),
                        "{program} ({backend:?}): {message}"
                    );
                }
            }
        }
    }
}

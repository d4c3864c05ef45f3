//! ICON's mixed precision (`vpfloat = f32`, `wpfloat = f64`): every program of the `mixed`
//! modules (`interpolation`, `diffusion`, `velocity_advection`, `solver`, `diffusion_utils`),
//! listed in [`MIXED`], runs through the dynamic interface on the embedded and the CPU backend,
//! on the shared generated grids (`support`: a global R2B2 grid with pentagons and a
//! limited-area cut of R2B3 that keeps its -1 entries) with ICON's domains and every value of
//! each static argument, and is compared over whole arrays with an f64 oracle: the
//! hand-written reference (`icon::reference::run`) or, for the diffusion setup programs that
//! have none, ICON's formulas written out here.
//!
//! Inputs are seeded random numbers (`support::random_call`); a parameter that is f32 in the
//! mixed signature gets the f64 value rounded to f32, and the oracle gets the same rounded
//! value. Pure outputs are NaN before the call. Every output is compared at every point: where
//! the oracle leaves a point as it was, the program must too, bit for bit (NaN where the output
//! was poisoned, the input where it is read and written: this covers the vpfloat inputs that
//! come back unchanged, e.g. `dwdx` above the shear levels or `z_temp` where `zd_diffcoef` is
//! 0); everywhere else within [`RELATIVE_TOLERANCE`]. Programs that do only f64 math also
//! equal the `double` program or the oracle bit for bit ([`Exact`]), and some calls check
//! that their inputs reach the branches the mixed path rounds differently ([`MixedProgram`]'s
//! `check`).
//!
//! The `double` configuration is what every other test of these programs runs
//! (`gt4rs_stencils::icon::dsl::diffusion::calculate_nabla4` is
//! `diffusion::double::calculate_nabla4`). One test calls a mixed program through its typed
//! `Args` with f32 fields, so that the typed API of the mixed modules stays covered.

mod support;

use std::collections::BTreeMap;

use gt4rs::__private::dynamic::DynProgram;
use gt4rs::prelude::*;
use gt4rs::Dims;
use gt4rs_stencils::icon::dims::*;
use gt4rs_stencils::icon::dsl::{
    diffusion, diffusion_utils, interpolation, solver, velocity_advection,
};
use gt4rs_stencils::icon::reference::{self, Call, PROGRAMS};
use gt4rs_stencils::programs;
use ndarray::ArrayD;
use support::{
    assert_static_values_covered, bit_equal, calls_on, connectivities_of, float_param, global_grid,
    icon_calls, icon_smagorinsky_enhancement, limited_area_grid, outputs, random_call, written_by,
    TestGrid,
};

/// ICON4Py's stencil tests accept a relative error of 3e-6 (`_RELATIVE_TOLERANCE`), about 50
/// roundings to f32 (unit roundoff 2^-24 ≈ 6e-8). A mixed-mode program rounds a few
/// intermediates to f32; each such rounding is relative to the intermediate, not to the output,
/// so where terms cancel the error is relative to the output's scale. Hence the bound
/// `|got − expected| ≤ 3e-6 · (|expected| + max |expected|)`, the maximum taken over the
/// points the oracle writes.
///
/// The forward sweep (`solve_tridiagonal_matrix_for_w_forward_sweep`) needs no looser bound for
/// its scan: its inputs are drawn in the ranges of a real column (`support::icon_calls`):
/// positive weights and layer thicknesses, `dtime·cpd` such that
/// `z_gamma = dtime·cpd·vwind_impl_wgt·theta_v_ic/ddqz_z_half` lies in (0, 0.2], and `z_alpha`,
/// `z_beta` in [0.1, 1). Then `b ≥ 1` and `|a| + |c| ≤ z_gamma·(β[k−1]·α[k−1] + β·α[k+1]) ≤ 0.4`:
/// the matrix is strictly diagonally dominant, so `|c'| ≤ 0.2/(1 − 0.2·0.25) < 0.22` on every
/// level and an error in the carry `(c', d')` reaches the next level multiplied by at most
/// `|a|/|b + a·c'| < 0.22`. The f32 roundings of one level (z_gamma; a, b and c with three
/// each; the normalisation with three; c' with one more) make a relative error below about 12
/// f32 unit roundoffs (12·2⁻²⁴ ≈ 7e-7) of the level's terms, and the carried errors add at most
/// the geometric factor 1/(1 − 0.22) ≈ 1.3: below 1e-6 of the output's scale.
const RELATIVE_TOLERANCE: f64 = 3e-6;

type Compile = fn(&Options) -> Result<Box<dyn DynProgram>, Error>;

/// What a mixed program's outputs are compared with.
enum Oracle {
    /// The hand-written reference of the program of the same name.
    Reference,
    /// ICON's formulas, written out here for programs without a hand-written reference: they
    /// overwrite the outputs of the call inside its domain.
    Formula(fn(&mut Call)),
}

/// Where a mixed program must equal an f64 computation bit for bit, not only lie within
/// [`RELATIVE_TOLERANCE`] of its oracle.
#[derive(Clone, Copy)]
struct Exact {
    /// ICON4Py declares every field and scalar wpfloat (or plain float): the mixed program is
    /// the double one, bit for bit.
    double: bool,
    /// The program widens its vpfloat inputs (exactly) and computes in wpfloat, in the
    /// oracle's order: it equals the oracle bit for bit.
    oracle: bool,
}

/// Within the tolerance only.
const ROUNDED: Exact = Exact {
    double: false,
    oracle: false,
};
/// All f64, but the oracle (ICON's formulas) groups its terms otherwise.
const DOUBLE_BITS: Exact = Exact {
    double: true,
    oracle: false,
};
/// Widened vpfloat inputs, wpfloat arithmetic: the vn updates with ∇² and ∇⁴, the w updates
/// with ∇²w, ∇²θ for z, the θ/exner update and the back substitution.
const ORACLE_BITS: Exact = Exact {
    double: false,
    oracle: true,
};
/// All f64, in the oracle's order.
const ALL_BITS: Exact = Exact {
    double: true,
    oracle: true,
};

/// One call's inputs and results, for the checks of [`MixedProgram::check`].
struct Outcome<'a> {
    /// The arguments before the call.
    before: &'a Call,
    /// The oracle's results.
    expected: &'a Call,
    /// The mixed program's outputs, widened to f64.
    got: &'a BTreeMap<String, ArrayD<f64>>,
}

/// A mixed program, its double twin, and how its results are judged.
struct MixedProgram {
    name: &'static str,
    mixed: Compile,
    double: Compile,
    oracle: Oracle,
    exact: Exact,
    /// Asserts that a call reaches what the comparison alone would not show (a branch both of
    /// whose sides must run, a profile whose zones the heights must span).
    check: Option<fn(&Outcome)>,
}

/// A [`MixedProgram`] for `$module::{mixed, double}::$program`.
macro_rules! mixed {
    ($module:ident :: $program:ident, $oracle:expr, $exact:expr, $check:expr) => {
        MixedProgram {
            check: Some($check),
            ..mixed!($module::$program, $oracle, $exact)
        }
    };
    ($module:ident :: $program:ident, $oracle:expr, $exact:expr) => {
        MixedProgram {
            name: stringify!($program),
            mixed: |options| Ok(Box::new($module::mixed::$program::compile(options)?)),
            double: |options| Ok(Box::new($module::double::$program::compile(options)?)),
            oracle: $oracle,
            exact: $exact,
            check: None,
        }
    };
}

/// Every program of the mixed modules.
const MIXED: &[MixedProgram] = &[
    mixed!(
        interpolation::mo_intp_rbf_rbf_vec_interpol_vertex,
        Oracle::Reference,
        ALL_BITS
    ),
    mixed!(
        diffusion_utils::setup_fields_for_initial_step,
        Oracle::Reference,
        ALL_BITS
    ),
    mixed!(diffusion_utils::scale_k, Oracle::Reference, ALL_BITS),
    mixed!(
        diffusion_utils::init_diffusion_local_fields_for_regular_timestep,
        Oracle::Formula(init_diffusion_local_fields_for_regular_timestep),
        DOUBLE_BITS,
        heights_span_the_smagorinsky_profile
    ),
    mixed!(
        diffusion_utils::init_nabla2_factor_in_upper_damping_zone,
        Oracle::Formula(init_nabla2_factor_in_upper_damping_zone),
        DOUBLE_BITS
    ),
    mixed!(
        diffusion_utils::copy_field,
        Oracle::Formula(copy_field),
        ALL_BITS
    ),
    mixed!(diffusion::calculate_nabla4, Oracle::Reference, ROUNDED),
    mixed!(
        diffusion::calculate_nabla2_and_smag_coefficients_for_vn,
        Oracle::Reference,
        ROUNDED,
        both_smagorinsky_bounds_are_reached
    ),
    mixed!(
        diffusion::apply_nabla2_and_nabla4_to_vn,
        Oracle::Reference,
        ORACLE_BITS
    ),
    mixed!(
        diffusion::apply_nabla2_and_nabla4_global_to_vn,
        Oracle::Reference,
        ORACLE_BITS
    ),
    mixed!(
        diffusion::apply_nabla2_to_vn_in_lateral_boundary,
        Oracle::Reference,
        ALL_BITS
    ),
    mixed!(diffusion::apply_diffusion_to_vn, Oracle::Reference, ROUNDED),
    mixed!(
        diffusion::temporary_fields_for_turbulence_diagnostics,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(
        diffusion::calculate_diagnostic_quantities_for_turbulence,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(
        diffusion::calculate_nabla2_for_w,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(diffusion::apply_nabla2_to_w, Oracle::Reference, ORACLE_BITS),
    mixed!(
        diffusion::apply_nabla2_to_w_in_upper_damping_layer,
        Oracle::Reference,
        ORACLE_BITS
    ),
    mixed!(
        diffusion::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(
        diffusion::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools,
        Oracle::Reference,
        ROUNDED,
        some_but_not_all_coefficients_are_enhanced
    ),
    mixed!(
        diffusion::calculate_nabla2_for_z,
        Oracle::Reference,
        ORACLE_BITS
    ),
    mixed!(
        diffusion::calculate_nabla2_of_theta,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(
        diffusion::calculate_nabla2_for_theta,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(
        diffusion::truly_horizontal_diffusion_nabla_of_theta_over_steep_points,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(
        diffusion::update_theta_and_exner,
        Oracle::Reference,
        ORACLE_BITS
    ),
    mixed!(
        diffusion::apply_diffusion_to_theta_and_exner,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(
        velocity_advection::compute_tangential_wind,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(
        velocity_advection::compute_horizontal_kinetic_energy,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(
        velocity_advection::interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(
        velocity_advection::compute_diagnostics_from_normal_wind,
        Oracle::Reference,
        ROUNDED,
        the_flag_decides_whether_half_level_outputs_are_kept
    ),
    mixed!(
        solver::solve_tridiagonal_matrix_for_w_forward_sweep,
        Oracle::Reference,
        ROUNDED
    ),
    mixed!(
        solver::solve_tridiagonal_matrix_for_w_back_substitution,
        Oracle::Reference,
        ORACLE_BITS
    ),
];

// ---------------------------------------------------------------------------------------------
// Formulas of the programs without a hand-written reference
// ---------------------------------------------------------------------------------------------

fn scalar(call: &Call, name: &str) -> f64 {
    call.params
        .float64_scalar(name)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn int(call: &Call, name: &str) -> i32 {
    call.params
        .int32_scalar(name)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The levels `vertical_start..vertical_end` of the call.
fn levels(call: &Call) -> std::ops::Range<usize> {
    int(call, "vertical_start") as usize..int(call, "vertical_end") as usize
}

/// Overwrites `name` at the call's levels with `value(k)`.
fn write_levels(call: &mut Call, name: &str, value: impl Fn(usize) -> f64) {
    let mut out = float_param(call, name).clone();
    for k in levels(call) {
        out[[k]] = value(k);
    }
    *call = std::mem::take(call).with_field(name, out);
}

/// ICON's regular-step factors (the smaller of 1/128 and K4·substeps/3) and its Smagorinsky
/// enhancement profile at the full levels between the half-level heights `vect_a`, written
/// out independently of the DSL.
fn init_diffusion_local_fields_for_regular_timestep(call: &mut Call) {
    let multfac = (scalar(call, "k4") * scalar(call, "dyn_substeps") / 3.0).min(1.0 / 128.0);
    let fac = ["", "2", "3", "4"].map(|i| scalar(call, &format!("hdiff_smag_fac{i}")));
    let z = ["", "2", "3", "4"].map(|i| scalar(call, &format!("hdiff_smag_z{i}")));
    let vect_a = float_param(call, "vect_a").clone();
    let enh =
        |k: usize| icon_smagorinsky_enhancement(0.5 * (vect_a[[k]] + vect_a[[k + 1]]), fac, z);
    write_levels(call, "diff_multfac_vn", |_| multfac);
    write_levels(call, "smag_limit", |_| 0.125 - 4.0 * multfac);
    write_levels(call, "enh_smag_fac", enh);
}

/// `((h[k] − h[nrdmax+1]) / (h[1] − h[nrdmax+1]))⁴ / 12` on levels `1..=nrdmax`, 0 elsewhere.
fn init_nabla2_factor_in_upper_damping_zone(call: &mut Call) {
    let nrdmax = int(call, "nrdmax") as usize;
    let (shift, top) = (scalar(call, "heights_nrd_shift"), scalar(call, "heights_1"));
    let heights = float_param(call, "physical_heights").clone();
    write_levels(call, "diff_multfac_n2w", |k| {
        if (1..=nrdmax).contains(&k) {
            ((heights[[k]] - shift) / (top - shift)).powi(4) / 12.0
        } else {
            0.0
        }
    });
}

fn copy_field(call: &mut Call) {
    let old = float_param(call, "old_f").clone();
    *call = std::mem::take(call).with_field("new_f", old);
}

// ---------------------------------------------------------------------------------------------
// Checks of single calls
// ---------------------------------------------------------------------------------------------

/// `kh_smag_e = max(0, min(smag_limit, kh_smag_ec − smag_offset))` in the mixed path rounds
/// its operands: both bounds must be reached for the comparison to cover both.
fn both_smagorinsky_bounds_are_reached(o: &Outcome) {
    let kh_smag_e = float_param(o.expected, "kh_smag_e");
    let kh_smag_ec = float_param(o.expected, "kh_smag_ec");
    let offset = scalar(o.before, "smag_offset");
    let clipped_below = kh_smag_e.iter().filter(|x| **x == 0.0).count();
    let limited = kh_smag_e
        .iter()
        .zip(kh_smag_ec)
        .filter(|(e, ec)| e.is_finite() && **e > 0.0 && **e < **ec - offset)
        .count();
    assert!(
        clipped_below > 0 && limited > 0,
        "clipped at 0: {clipped_below}, limited: {limited}"
    );
}

/// The cold-pool enhancement takes the larger of the f32 coefficient and the enhancement: both
/// must win somewhere in the domain.
fn some_but_not_all_coefficients_are_enhanced(o: &Outcome) {
    let before = float_param(o.before, "kh_smag_e");
    let got = &o.got["kh_smag_e"];
    let extent = |start, end| (int(o.before, end) - int(o.before, start)) as usize;
    let domain =
        extent("horizontal_start", "horizontal_end") * extent("vertical_start", "vertical_end");
    let enhanced = got.iter().zip(before).filter(|(g, b)| g > b).count();
    assert!(enhanced > 0 && enhanced < domain, "{enhanced} of {domain}");
}

/// `skip_compute_predictor_vertical_advection` decides whether the two vpfloat half-level
/// outputs are computed or kept (read and written: their inputs come back bit for bit).
fn the_flag_decides_whether_half_level_outputs_are_kept(o: &Outcome) {
    let skip = o
        .before
        .params
        .bool_scalar("skip_compute_predictor_vertical_advection")
        .expect("flag");
    for name in [
        "tangential_wind_on_half_levels",
        "horizontal_advection_of_w_at_edges_on_half_levels",
    ] {
        let kept = bit_equal(&o.got[name], float_param(o.before, name));
        assert_eq!(kept, skip, "`{name}` kept with the flag {skip}");
    }
}

/// The heights reach both the constant and the quadratic zone of the enhancement profile.
fn heights_span_the_smagorinsky_profile(o: &Outcome) {
    let fac = scalar(o.before, "hdiff_smag_fac");
    let enh = &o.got["enh_smag_fac"];
    assert!(
        enh.iter().any(|&e| e > fac + 1e-3) && enh.iter().any(|&e| e == fac),
        "the heights span the profile's zones: {enh}"
    );
}

// ---------------------------------------------------------------------------------------------
// The comparison
// ---------------------------------------------------------------------------------------------

/// `got` against the oracle's `expected`: bit for bit where the oracle left `before` as it
/// was, within [`RELATIVE_TOLERANCE`] of the written points' scale elsewhere.
fn assert_mixed_output(
    context: &str,
    before: &ArrayD<f64>,
    expected: &ArrayD<f64>,
    got: &ArrayD<f64>,
) {
    assert_eq!(got.shape(), expected.shape(), "{context}: shape");
    let written = |(b, e): (&f64, &f64)| b.to_bits() != e.to_bits();
    let scale = before
        .iter()
        .zip(expected)
        .filter(|p| written(*p))
        .fold(0.0_f64, |m, (_, e)| m.max(e.abs()));
    for ((ix, g), (b, e)) in got.indexed_iter().zip(before.iter().zip(expected)) {
        let ix = ndarray::Dimension::slice(&ix);
        if !written((b, e)) {
            assert_eq!(
                g.to_bits(),
                e.to_bits(),
                "{context}{ix:?}: got {g}, the oracle left {e}"
            );
        } else if e.is_nan() {
            assert!(g.is_nan(), "{context}{ix:?}: got {g}, expected NaN");
        } else {
            let bound = RELATIVE_TOLERANCE * (e.abs() + scale);
            assert!(
                (g - e).abs() <= bound,
                "{context}{ix:?}: got {g}, expected {e} (bound {bound:e})"
            );
        }
    }
}

/// The oracle's results for `call`.
fn oracle(entry: &MixedProgram, call: &Call) -> Call {
    let mut expected = call.clone();
    match entry.oracle {
        Oracle::Reference => reference::run(entry.name, &mut expected)
            .unwrap_or_else(|e| panic!("{}: reference: {e}", entry.name)),
        Oracle::Formula(formula) => formula(&mut expected),
    }
    expected
}

/// Runs every call of `entry` on `g` with both backends against its oracle.
fn check_mixed_program(entry: &MixedProgram, g: &TestGrid, conns: &Connectivities, seed: u64) {
    for backend in [Backend::Embedded, Backend::Cpu] {
        let options = Options::new(backend).with_connectivities(conns.clone());
        let mixed = (entry.mixed)(&options).unwrap_or_else(|e| panic!("{}: {e}", entry.name));
        let double = entry
            .exact
            .double
            .then(|| (entry.double)(&options).unwrap_or_else(|e| panic!("{}: {e}", entry.name)));
        assert_eq!(mixed.name(), entry.name);
        let signature = mixed.signature();
        let written = written_by(&signature);
        let calls = calls_on(entry.name, g);
        assert_static_values_covered(entry.name, &signature, &calls);
        for (variant, setup) in calls.iter().enumerate() {
            let context = format!(
                "{} on {} ({backend:?}, variant {variant})",
                entry.name, g.label
            );
            let call = random_call(&signature, &g.grid, setup, seed + variant as u64);
            let expected = oracle(entry, &call);
            assert!(
                written
                    .iter()
                    .any(|n| !bit_equal(float_param(&call, n), float_param(&expected, n))),
                "{context}: the oracle writes nothing"
            );
            let got = outputs(&*mixed, &call, &written);
            for name in &written {
                let (before, want) = (float_param(&call, name), float_param(&expected, name));
                assert_mixed_output(&format!("{context} `{name}`"), before, want, &got[name]);
                if entry.exact.oracle {
                    assert!(bit_equal(&got[name], want), "{context}: `{name}` ≠ oracle");
                }
            }
            if let Some(double) = &double {
                let double = outputs(&**double, &call, &written);
                for name in &written {
                    assert!(
                        bit_equal(&got[name], &double[name]),
                        "{context}: `{name}` ≠ double"
                    );
                }
            }
            if let Some(check) = entry.check {
                check(&Outcome {
                    before: &call,
                    expected: &expected,
                    got: &got,
                });
            }
        }
    }
}

fn check_all_mixed_programs(g: &TestGrid) {
    let conns = connectivities_of(&g.grid);
    for (i, entry) in MIXED.iter().enumerate() {
        check_mixed_program(entry, g, &conns, 1000 * i as u64 + 11);
        eprintln!(
            "{:<72} {}: mixed matches on embedded and cpu",
            entry.name, g.label
        );
    }
}

#[test]
fn every_mixed_program_matches_its_oracle_on_a_global_grid_with_pentagons() {
    check_all_mixed_programs(&global_grid());
}

#[test]
fn every_mixed_program_matches_its_oracle_on_a_limited_area_grid() {
    check_all_mixed_programs(&limited_area_grid());
}

/// Every ICON program of the registry (its double version) has its mixed version in [`MIXED`],
/// each listed once, and every program named in the table exists in both modes.
#[test]
fn every_registered_icon_program_has_a_mixed_version_in_the_table() {
    let options =
        Options::new(Backend::Embedded).with_connectivities(connectivities_of(&global_grid().grid));
    let listed: Vec<&str> = MIXED.iter().map(|m| m.name).collect();
    for (i, name) in listed.iter().enumerate() {
        assert!(!listed[..i].contains(name), "`{name}` is listed twice");
    }
    let icon = programs::ALL.iter().filter(|p| PROGRAMS.contains(&p.name));
    let mut registered = 0;
    for entry in icon {
        assert!(
            listed.contains(&entry.name),
            "`{}` has no mixed version in MIXED",
            entry.name
        );
        registered += 1;
    }
    assert_eq!(
        registered,
        PROGRAMS.len(),
        "every reference has a registered program"
    );
    for m in MIXED {
        let mixed = (m.mixed)(&options).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let double = (m.double)(&options).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        assert_eq!((mixed.name(), double.name()), (m.name, m.name));
        if let Some(registered) = programs::find(m.name) {
            let registered = (registered.compile)(&options).expect("compiles");
            assert_eq!(registered.signature(), double.signature(), "{}", m.name);
        }
        if matches!(m.oracle, Oracle::Reference) {
            assert!(PROGRAMS.contains(&m.name), "`{}` has no reference", m.name);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The typed API of a mixed module
// ---------------------------------------------------------------------------------------------

fn field<D: Dims>(call: &Call, name: &str) -> Field<D, f64> {
    Field::from_array_zero_origin(float_param(call, name).clone()).expect("valid field")
}

fn f32_field<D: Dims>(call: &Call, name: &str) -> Field<D, f32> {
    let values = float_param(call, name).mapv(|x| x as f32);
    Field::from_array_zero_origin(values).expect("valid field")
}

/// `diffusion::mixed::calculate_nabla4` through its generated `Args`, with f32 fields for the
/// vpfloat inputs and output: within the tolerance of the reference, and equal bit for bit to
/// the same call through the dynamic interface.
#[test]
fn calculate_nabla4_mixed_through_its_typed_args_matches_reference_and_dynamic_call() {
    use diffusion::mixed::calculate_nabla4 as program;
    let g = global_grid();
    let conns = connectivities_of(&g.grid);
    let setup = &icon_calls(program::NAME, &g)[0];
    for backend in [Backend::Embedded, Backend::Cpu] {
        let compiled = program::compile(&Options::new(backend).with_connectivities(conns.clone()))
            .expect("compiles");
        let signature = DynProgram::signature(&compiled);
        let call = random_call(&signature, &g.grid, setup, 4);
        let mut out = f32_field::<(Edge, K)>(&call, "z_nabla4_e2");
        assert!(out.as_array().iter().all(|x| x.is_nan()), "poisoned");
        compiled
            .call(program::Args {
                u_vert: &f32_field(&call, "u_vert"),
                v_vert: &f32_field(&call, "v_vert"),
                primal_normal_vert_v1: &field(&call, "primal_normal_vert_v1"),
                primal_normal_vert_v2: &field(&call, "primal_normal_vert_v2"),
                z_nabla2_e: &field(&call, "z_nabla2_e"),
                inv_vert_vert_length: &field(&call, "inv_vert_vert_length"),
                inv_primal_edge_length: &field(&call, "inv_primal_edge_length"),
                z_nabla4_e2: &mut out,
                horizontal_start: setup.horizontal.0 as i32,
                horizontal_end: setup.horizontal.1 as i32,
                vertical_start: setup.vertical.0 as i32,
                vertical_end: setup.vertical.1 as i32,
            })
            .expect("runs");
        let got = out.as_array().mapv(f64::from);
        let mut expected = call.clone();
        reference::run(program::NAME, &mut expected).expect("reference runs");
        let name = "z_nabla4_e2";
        let context = format!("typed {} ({backend:?})", program::NAME);
        let (before, want) = (float_param(&call, name), float_param(&expected, name));
        assert!(
            !bit_equal(before, want),
            "{context}: the reference writes nothing"
        );
        assert_mixed_output(&context, before, want, &got);
        let dynamic = outputs(&compiled, &call, &[name.to_string()]);
        assert!(
            bit_equal(&got, &dynamic[name]),
            "{context}: typed ≠ dynamic"
        );
    }
}

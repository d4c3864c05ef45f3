//! The hand-written references against ICON4Py's own outputs (`refs/icon4py/*.npz`), plus
//! randomized internal-consistency checks of the references that have no reference file.

use gt4rs::testing::{largest_relative_difference, random_array};
use gt4rs_stencils::cartesian::reference as cartesian;
use gt4rs_stencils::icon::reference::{self, Call, PROGRAMS};
use gt4rs_stencils::reference_data::{
    reference_files, ArraySet, NeighborTable, RefArray, ReferenceData,
};
use gt4rs_tests::refs::{icon4py_ref, icon4py_refs};
use ndarray::{Array1, Array2, Array3, ArrayD, IxDyn};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MAX_REL_ERR: f64 = 1e-12;

/// Names of the write-only outputs (sidecar role `out`; `inout` ones are read by the program).
fn write_only_outputs(data: &ReferenceData) -> Vec<String> {
    let Some(params) = data.sidecar.as_ref().and_then(|s| s["params"].as_array()) else {
        return Vec::new();
    };
    params
        .iter()
        .filter(|p| p["role"] == "out")
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .collect()
}

/// Poisons, with NaN, every point of a write-only output whose value the call must change, so
/// that a reference that skips such a point fails.
fn poison_changed_points(call: &mut Call, expected: &ArraySet, write_only: &[String]) {
    for name in write_only.iter().filter(|n| expected.contains(n)).cloned() {
        let Ok(RefArray::Float64(want)) = expected.get(&name).cloned() else {
            continue;
        };
        let Ok(RefArray::Float64(mut before)) = call.params.take(&name) else {
            panic!("output `{name}` has no pre-call value");
        };
        let mut poisoned = 0usize;
        for (b, w) in before.iter_mut().zip(&want) {
            if *b != *w {
                *b = f64::NAN;
                poisoned += 1;
            }
        }
        assert!(
            poisoned > 0 || want.is_empty(),
            "`{name}` does not change in this call"
        );
        call.params.insert(name, RefArray::Float64(before));
    }
}

/// Loads one file, runs its program's reference and returns the worst relative error.
fn check_file(path: &std::path::Path) -> Vec<(String, f64)> {
    let data = ReferenceData::load(path).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        PROGRAMS.contains(&data.program.as_str()),
        "no reference for `{}`",
        data.program
    );
    assert!(
        data.expected.names().next().is_some(),
        "no outputs in {path:?}"
    );
    let mut call = Call::from_reference(&data);
    poison_changed_points(&mut call, &data.expected, &write_only_outputs(&data));
    reference::run(&data.program, &mut call).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    data.output_names()
        .into_iter()
        .map(|name| {
            let Ok(RefArray::Float64(want)) = data.expected.get(&name) else {
                panic!("{path:?}: expected output `{name}` is not float64");
            };
            let got = call
                .params
                .float64(&name, want.ndim())
                .unwrap_or_else(|e| panic!("{e}"));
            (
                name,
                largest_relative_difference(want.view(), got.view()).expect("one shape"),
            )
        })
        .collect()
}

fn assert_file_reproduced(stem: &str) {
    for (output, err) in check_file(&icon4py_ref(stem)) {
        eprintln!("{stem}: {output} max rel err {err:e}");
        assert!(err < MAX_REL_ERR, "{stem}: `{output}` max rel err {err:e}");
    }
}

#[test]
fn every_reference_file_loads_and_is_reproduced() {
    let dir = icon4py_refs();
    let files = reference_files(&dir).expect("readable refs dir");
    assert!(!files.is_empty(), "no .npz in {}", dir.display());
    for path in files {
        for (output, err) in check_file(&path) {
            eprintln!("{}: {output} max rel err {err:e}", path.display());
            assert!(
                err < MAX_REL_ERR,
                "{path:?}: `{output}` max rel err {err:e}"
            );
        }
    }
}

#[test]
fn calculate_nabla4_matches_icon4py() {
    assert_file_reproduced("calculate_nabla4");
}

#[test]
fn calculate_nabla2_for_w_matches_icon4py() {
    assert_file_reproduced("calculate_nabla2_for_w");
}

#[test]
fn apply_diffusion_to_vn_matches_icon4py() {
    assert_file_reproduced("apply_diffusion_to_vn");
}

#[test]
fn compute_horizontal_kinetic_energy_matches_icon4py() {
    assert_file_reproduced("compute_horizontal_kinetic_energy");
}

#[test]
fn solve_tridiagonal_matrix_for_w_forward_sweep_matches_icon4py() {
    assert_file_reproduced("solve_tridiagonal_matrix_for_w_forward_sweep");
}

#[test]
fn loader_reads_dtypes_scalars_and_tables() {
    let data = ReferenceData::load(icon4py_ref("apply_diffusion_to_vn")).expect("loads");
    assert_eq!(data.program, "apply_diffusion_to_vn");
    assert_eq!(data.variant, None);
    assert!(data
        .params
        .bool_scalar("limited_area")
        .expect("bool scalar"));
    assert_eq!(
        data.params.int32_scalar("horizontal_start").expect("int"),
        3
    );
    assert_eq!(
        data.params.float64_scalar("nudgezone_diff").expect("f64"),
        0.9
    );
    assert_eq!(
        data.params.float64("vn", 2).expect("field").shape(),
        &[27, 10]
    );
    assert_eq!(
        data.params
            .float64("diff_multfac_vn", 1)
            .expect("K field")
            .shape(),
        &[10]
    );
    let table = data.table("E2C2V").expect("table");
    assert_eq!(table.table.shape(), &[27, 4]);
    assert!(!table.has_skip_values());
    assert_eq!(data.output_names(), vec!["vn".to_owned()]);
    assert!(data.sidecar.is_some());
    // Clear errors, not panics, for wrong requests.
    assert!(data.params.float64("vn", 1).is_err());
    assert!(data.params.int32_scalar("nudgezone_diff").is_err());
    assert!(data.params.float64("no_such_array", 2).is_err());
    assert!(data.table("V2E").is_err());
}

/// A sidecar that disagrees with its archive (here: a shape) is reported, not trusted.
#[test]
fn loader_reports_a_sidecar_that_disagrees_with_the_archive() {
    let dir = icon4py_refs();
    let src = icon4py_ref("calculate_nabla4");
    let tmp = std::env::temp_dir().join(format!("gt4rs-sidecar-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let npz = tmp.join("calculate_nabla4.npz");
    std::fs::copy(&src, &npz).expect("copy");
    let json = std::fs::read_to_string(dir.join("calculate_nabla4.json")).expect("sidecar");
    let mut sidecar: serde_json::Value = serde_json::from_str(&json).expect("json");
    std::fs::write(tmp.join("calculate_nabla4.json"), sidecar.to_string()).expect("write");
    assert!(
        ReferenceData::load(&npz).is_ok(),
        "an unchanged sidecar agrees"
    );
    sidecar["params"][0]["shape"] = serde_json::json!([9, 11]);
    std::fs::write(tmp.join("calculate_nabla4.json"), sidecar.to_string()).expect("write");
    let err = ReferenceData::load(&npz).expect_err("shape mismatch");
    assert!(err.to_string().contains("u_vert"), "{err}");
    sidecar["params"][0]["shape"] = serde_json::json!([9, 10]);
    sidecar["params"][0]["dtype"] = serde_json::json!("int32");
    std::fs::write(tmp.join("calculate_nabla4.json"), sidecar.to_string()).expect("write");
    assert!(ReferenceData::load(&npz).is_err(), "dtype mismatch");
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn loader_reports_missing_and_corrupt_files() {
    let dir = std::env::temp_dir().join(format!("gt4rs-refs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    assert!(ReferenceData::load(dir.join("absent.npz")).is_err());
    let corrupt = dir.join("corrupt.npz");
    std::fs::write(&corrupt, b"not a zip archive").expect("write");
    assert!(ReferenceData::load(&corrupt).is_err());
    std::fs::remove_dir_all(&dir).ok();
}

fn random_table(
    rng: &mut ChaCha8Rng,
    offset: &str,
    points: usize,
    width: usize,
    targets: usize,
) -> NeighborTable {
    let table = Array2::from_shape_fn((points, width), |_| rng.random_range(0..targets as i32));
    NeighborTable::new(offset, table).expect("valid table")
}

fn f64_param(call: &Call, name: &str, ndim: usize) -> ArrayD<f64> {
    call.params.float64(name, ndim).expect("present").clone()
}

/// Dense Gaussian elimination with partial pivoting, independent of the Thomas algorithm.
fn dense_solve(mut m: Array2<f64>, mut rhs: Array1<f64>) -> Array1<f64> {
    let n = rhs.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&a, &b| m[[a, col]].abs().total_cmp(&m[[b, col]].abs()))
            .expect("non-empty");
        for j in 0..n {
            m.swap([col, j], [pivot, j]);
        }
        rhs.swap(col, pivot);
        for row in col + 1..n {
            let f = m[[row, col]] / m[[col, col]];
            for j in col..n {
                m[[row, j]] -= f * m[[col, j]];
            }
            rhs[row] -= f * rhs[col];
        }
    }
    let mut x = Array1::zeros(n);
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|j| m[[row, j]] * x[j]).sum();
        x[row] = (rhs[row] - s) / m[[row, row]];
    }
    x
}

/// Forward sweep then back substitution on K [1, nlev) solve the tridiagonal system of
/// "stencil 52" with w = 0 above the top row and below the bottom row.
#[test]
fn forward_sweep_and_back_substitution_solve_the_tridiagonal_system() {
    let mut rng = ChaCha8Rng::seed_from_u64(52);
    let (n_cells, nlev) = (5usize, 12usize);
    let positive = |rng: &mut ChaCha8Rng, shape: &[usize]| {
        ArrayD::from_shape_fn(IxDyn(shape), |_| rng.random_range(0.5..1.5))
    };
    let mut call = Call::new()
        .with_field("vwind_impl_wgt", positive(&mut rng, &[n_cells]))
        .with_field("theta_v_ic", positive(&mut rng, &[n_cells, nlev]))
        .with_field("ddqz_z_half", positive(&mut rng, &[n_cells, nlev]))
        .with_field("z_alpha", random_array(&mut rng, &[n_cells, nlev + 1]))
        .with_field("z_beta", random_array(&mut rng, &[n_cells, nlev]))
        .with_field("z_w_expl", random_array(&mut rng, &[n_cells, nlev + 1]))
        .with_field("z_exner_expl", random_array(&mut rng, &[n_cells, nlev]))
        .with_field("z_q", ArrayD::from_elem(IxDyn(&[n_cells, nlev]), f64::NAN))
        .with_field("w", ArrayD::from_elem(IxDyn(&[n_cells, nlev]), f64::NAN))
        .with_scalar("dtime", 1e-3)
        .with_scalar("cpd", 1004.64)
        .with_domain(0..n_cells as i32, 1..nlev as i32);
    reference::run("solve_tridiagonal_matrix_for_w_forward_sweep", &mut call).expect("runs");
    reference::run(
        "solve_tridiagonal_matrix_for_w_back_substitution",
        &mut call,
    )
    .expect("runs");
    let w = f64_param(&call, "w", 2);
    let g = |name: &str| f64_param(&call, name, 2);
    let (alpha, beta, w_expl, exner) =
        (g("z_alpha"), g("z_beta"), g("z_w_expl"), g("z_exner_expl"));
    let (theta, ddqz) = (g("theta_v_ic"), g("ddqz_z_half"));
    let vwind = f64_param(&call, "vwind_impl_wgt", 1);
    for c in 0..n_cells {
        assert!(w[[c, 0]].is_nan(), "level 0 lies outside the domain");
        let n = nlev - 1;
        let mut m = Array2::<f64>::zeros((n, n));
        let mut rhs = Array1::<f64>::zeros(n);
        for row in 0..n {
            let k = row + 1;
            let gamma = 1e-3 * 1004.64 * vwind[[c]] * theta[[c, k]] / ddqz[[c, k]];
            if row > 0 {
                m[[row, row - 1]] = -gamma * beta[[c, k - 1]] * alpha[[c, k - 1]];
            }
            m[[row, row]] = 1.0 + gamma * alpha[[c, k]] * (beta[[c, k - 1]] + beta[[c, k]]);
            if row + 1 < n {
                m[[row, row + 1]] = -gamma * beta[[c, k]] * alpha[[c, k + 1]];
            }
            rhs[row] = w_expl[[c, k]] - gamma * (exner[[c, k - 1]] - exner[[c, k]]);
        }
        let x = dense_solve(m, rhs);
        for row in 0..n {
            let err = (w[[c, row + 1]] - x[row]).abs() / x[row].abs().max(1e-300);
            assert!(
                err < 1e-10,
                "cell {c} level {}: {} vs {}",
                row + 1,
                w[[c, row + 1]],
                x[row]
            );
        }
    }
}

#[test]
fn vadv_solves_its_tridiagonal_system() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (ni, nj, nk) = (3usize, 4usize, 9usize);
    let r3 = |rng: &mut ChaCha8Rng, s: (usize, usize, usize)| {
        Array3::from_shape_fn(s, |_| rng.random_range(-1.0..1.0))
    };
    let u_stage = r3(&mut rng, (ni, nj, nk));
    let wcon = r3(&mut rng, (ni + 1, nj, nk));
    let u_pos = r3(&mut rng, (ni, nj, nk));
    let utens = r3(&mut rng, (ni, nj, nk));
    let utens_stage_in = r3(&mut rng, (ni, nj, nk));
    let dtr_stage = 3.0 / 20.0;
    let mut utens_stage = utens_stage_in.clone();
    cartesian::vadv(
        utens_stage.view_mut(),
        u_stage.view(),
        wcon.view(),
        u_pos.view(),
        utens.view(),
        dtr_stage,
    )
    .expect("valid shapes");
    for i in 0..ni {
        for j in 0..nj {
            let mut m = Array2::<f64>::zeros((nk, nk));
            let mut rhs = Array1::<f64>::zeros(nk);
            for k in 0..nk {
                let mut correction = 0.0;
                let mut diag = dtr_stage;
                if k > 0 {
                    let gav = -0.25 * (wcon[[i + 1, j, k]] + wcon[[i, j, k]]);
                    m[[k, k - 1]] = gav * cartesian::BET_P;
                    diag -= gav * cartesian::BET_P;
                    correction -=
                        gav * cartesian::BET_M * (u_stage[[i, j, k - 1]] - u_stage[[i, j, k]]);
                }
                if k + 1 < nk {
                    let gcv = 0.25 * (wcon[[i + 1, j, k + 1]] + wcon[[i, j, k + 1]]);
                    m[[k, k + 1]] = gcv * cartesian::BET_P;
                    diag -= gcv * cartesian::BET_P;
                    correction -=
                        gcv * cartesian::BET_M * (u_stage[[i, j, k + 1]] - u_stage[[i, j, k]]);
                }
                m[[k, k]] = diag;
                rhs[k] = dtr_stage * u_pos[[i, j, k]]
                    + utens[[i, j, k]]
                    + utens_stage_in[[i, j, k]]
                    + correction;
            }
            let x = dense_solve(m, rhs);
            for k in 0..nk {
                let want = dtr_stage * (x[k] - u_pos[[i, j, k]]);
                let got = utens_stage[[i, j, k]];
                assert!(
                    (got - want).abs() <= 1e-10 * want.abs().max(1.0),
                    "{i},{j},{k}: {got} vs {want}"
                );
            }
        }
    }
}

#[test]
fn laplap_matches_the_thirteen_point_stencil_and_keeps_the_frame() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let f = Array2::from_shape_fn((9, 11), |_| rng.random_range(-1.0..1.0));
    let mut out = Array2::from_elem((9, 11), f64::NAN);
    cartesian::laplap(f.view(), out.view_mut()).expect("valid shapes");
    for i in 0..9 {
        for j in 0..11 {
            let interior = (2..7).contains(&i) && (2..9).contains(&j);
            if !interior {
                assert!(out[[i, j]].is_nan(), "frame point {i},{j} was written");
                continue;
            }
            let n4 = f[[i + 1, j]] + f[[i - 1, j]] + f[[i, j + 1]] + f[[i, j - 1]];
            let diag =
                f[[i + 1, j + 1]] + f[[i + 1, j - 1]] + f[[i - 1, j + 1]] + f[[i - 1, j - 1]];
            let far = f[[i + 2, j]] + f[[i - 2, j]] + f[[i, j + 2]] + f[[i, j - 2]];
            let want = 20.0 * f[[i, j]] - 8.0 * n4 + 2.0 * diag + far;
            assert!((out[[i, j]] - want).abs() < 1e-12 * want.abs().max(1.0));
        }
    }
    assert!(cartesian::laplap(f.view(), Array2::zeros((3, 3)).view_mut()).is_err());
}

#[test]
fn hdiff_keeps_linear_fields_and_the_halo() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (ni, nj, nk) = (9usize, 11usize, 3usize);
    let (a, b) = (rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    let f = Array3::from_shape_fn((ni, nj, nk), |(i, j, k)| {
        a * i as f64 + b * j as f64 + k as f64
    });
    let coeff = Array3::from_shape_fn((ni, nj, nk), |_| rng.random_range(0.0..1.0));
    let mut out = Array3::from_elem((ni, nj, nk), f64::NAN);
    cartesian::hdiff(f.view(), coeff.view(), out.view_mut()).expect("valid shapes");
    for ((i, j, k), &v) in out.indexed_iter() {
        if (2..ni - 2).contains(&i) && (2..nj - 2).contains(&j) {
            assert!(
                (v - f[[i, j, k]]).abs() < 1e-12,
                "linear field changed at {i},{j},{k}"
            );
        } else {
            assert!(v.is_nan(), "halo point {i},{j},{k} was written");
        }
    }
}

#[test]
fn hdiff_limits_fluxes_against_the_gradient() {
    // Unlimited, hdiff is f − coeff·Δ(lap) with the 5-point Δ; on a random field at least one
    // flux must be limited, so the two differ somewhere, and nowhere by more than the fluxes.
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let (ni, nj) = (9usize, 9usize);
    let f = Array3::from_shape_fn((ni, nj, 1), |_| rng.random_range(-1.0..1.0));
    let coeff = Array3::from_elem((ni, nj, 1), 0.025);
    let mut out = Array3::from_elem((ni, nj, 1), f64::NAN);
    cartesian::hdiff(f.view(), coeff.view(), out.view_mut()).expect("valid shapes");
    let f2 = f.index_axis(ndarray::Axis(2), 0).to_owned();
    let mut ll = Array2::from_elem((ni, nj), f64::NAN);
    cartesian::laplap(f2.view(), ll.view_mut()).expect("valid shapes");
    let mut differs = false;
    for i in 2..ni - 2 {
        for j in 2..nj - 2 {
            let unlimited = f2[[i, j]] + 0.025 * ll[[i, j]];
            differs |= (out[[i, j, 0]] - unlimited).abs() > 1e-12;
            assert!(out[[i, j, 0]].is_finite());
        }
    }
    assert!(differs, "no flux was limited on a random field");
}

#[test]
fn rbf_vertex_interpolation_skips_minus_one_neighbours() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (nv, ne, nk) = (7usize, 12usize, 4usize);
    let mut table = Array2::from_shape_fn((nv, 6), |_| rng.random_range(0..ne as i32));
    table[[0, 5]] = -1; // a pentagon
    table[[3, 5]] = -1;
    table[[3, 4]] = -1;
    let c1 = random_array(&mut rng, &[nv, 6]);
    let c2 = random_array(&mut rng, &[nv, 6]);
    let p_e_in = random_array(&mut rng, &[ne, nk]);
    let poison = ArrayD::from_elem(IxDyn(&[nv, nk]), f64::NAN);
    let mut call = Call::new()
        .with_field("p_e_in", p_e_in.clone())
        .with_field("ptr_coeff_1", c1.clone())
        .with_field("ptr_coeff_2", c2.clone())
        .with_field("p_u_out", poison.clone())
        .with_field("p_v_out", poison)
        .with_domain(1..nv as i32, 0..nk as i32)
        .with_table(NeighborTable::new("V2E", table.clone()).expect("valid"));
    reference::run("mo_intp_rbf_rbf_vec_interpol_vertex", &mut call).expect("runs");
    let (u, v) = (
        f64_param(&call, "p_u_out", 2),
        f64_param(&call, "p_v_out", 2),
    );
    for k in 0..nk {
        assert!(
            u[[0, k]].is_nan() && v[[0, k]].is_nan(),
            "vertex 0 is outside the domain"
        );
        for vtx in 1..nv {
            let (mut su, mut sv) = (0.0, 0.0);
            for j in 0..6 {
                if table[[vtx, j]] >= 0 {
                    let e = table[[vtx, j]] as usize;
                    su += c1[[vtx, j]] * p_e_in[[e, k]];
                    sv += c2[[vtx, j]] * p_e_in[[e, k]];
                }
            }
            assert!((u[[vtx, k]] - su).abs() < 1e-14 && (v[[vtx, k]] - sv).abs() < 1e-14);
        }
    }
}

/// `apply_diffusion_to_vn` in both `limited_area` settings equals its parts run one after the
/// other on the reference grid.
#[test]
fn apply_diffusion_to_vn_equals_its_parts_in_both_configurations() {
    let data = ReferenceData::load(icon4py_ref("apply_diffusion_to_vn")).expect("loads");
    for limited_area in [true, false] {
        let mut fused = Call::from_reference(&data).with_flag("limited_area", limited_area);
        reference::run("apply_diffusion_to_vn", &mut fused).expect("runs");

        let (n_edges, nlev) = (27, 10);
        let mut parts = Call::from_reference(&data).with_field(
            "z_nabla4_e2",
            ArrayD::from_elem(IxDyn(&[n_edges, nlev]), f64::NAN),
        );
        let start = parts.params.int32_scalar("horizontal_start").expect("int");
        let end = parts.params.int32_scalar("horizontal_end").expect("int");
        let nudge = parts
            .params
            .int32_scalar("start_2nd_nudge_line_idx_e")
            .expect("int");
        parts = parts.with_domain(start..end, 0..nlev as i32);
        reference::run("calculate_nabla4", &mut parts).expect("runs");
        let main = if limited_area {
            "apply_nabla2_and_nabla4_to_vn"
        } else {
            "apply_nabla2_and_nabla4_global_to_vn"
        };
        parts = parts.with_domain(nudge..end, 0..nlev as i32);
        reference::run(main, &mut parts).expect("runs");
        if limited_area {
            parts = parts.with_domain(start..nudge, 0..nlev as i32);
            reference::run("apply_nabla2_to_vn_in_lateral_boundary", &mut parts).expect("runs");
        }
        let err = largest_relative_difference(
            f64_param(&parts, "vn", 2).view(),
            f64_param(&fused, "vn", 2).view(),
        )
        .expect("one shape");
        assert!(err < 1e-15, "limited_area={limited_area}: {err:e}");
    }
}

fn theta_diffusion_call(rng: &mut ChaCha8Rng, apply_zdiffusion_t: bool) -> Call {
    let (nc, ne, nlev) = (10usize, 15usize, 8usize);
    // Offsets reach every level but the last, as in ICON4Py's test.
    let offsets = ArrayD::from_shape_fn(IxDyn(&[nc, 3, nlev]), |ix| {
        let k = ix[2] as i32;
        rng.random_range(-k..nlev as i32 - k - 1)
    });
    let mut diffcoef = random_array(rng, &[nc, nlev]);
    for c in 0..nc {
        diffcoef[[c, c % nlev]] = 0.0;
    }
    let theta = ArrayD::from_shape_fn(IxDyn(&[nc, nlev]), |_| rng.random_range(250.0..300.0));
    Call::new()
        .with_field("kh_smag_e", random_array(rng, &[ne, nlev]))
        .with_field("inv_dual_edge_length", random_array(rng, &[ne]))
        .with_field("theta_v_in", theta.clone())
        .with_field("geofac_div", random_array(rng, &[nc, 3]))
        .with_int_field("zd_vertoffset", offsets)
        .with_field("zd_diffcoef", diffcoef)
        .with_field("geofac_n2s_c", random_array(rng, &[nc]))
        .with_field("geofac_n2s_nbh", random_array(rng, &[nc, 3]))
        .with_field("vcoef", random_array(rng, &[nc, 3, nlev]))
        .with_field("area", random_array(rng, &[nc]))
        .with_field("theta_v", ArrayD::from_elem(IxDyn(&[nc, nlev]), f64::NAN))
        .with_field("exner", random_array(rng, &[nc, nlev]))
        .with_scalar("rd_o_cvd", 5.0)
        .with_flag("apply_zdiffusion_t", apply_zdiffusion_t)
        .with_domain(2..nc as i32, 0..nlev as i32)
        .with_table(random_table(rng, "E2C", ne, 2, nc))
        .with_table(random_table(rng, "C2E", nc, 3, ne))
        .with_table(random_table(rng, "C2E2C", nc, 3, nc))
}

/// `apply_diffusion_to_theta_and_exner` equals ∇²θ, the steep-point z-diffusion (where
/// `zd_diffcoef ≠ 0`) and the θ/exner update run one after the other.
#[test]
fn apply_diffusion_to_theta_and_exner_equals_its_parts() {
    for apply_zdiffusion_t in [true, false] {
        let mut rng = ChaCha8Rng::seed_from_u64(14);
        let mut fused = theta_diffusion_call(&mut rng, apply_zdiffusion_t);
        let (nc, nlev) = (10usize, 8usize);
        let mut parts = fused.clone();
        reference::run("apply_diffusion_to_theta_and_exner", &mut fused).expect("runs");

        let theta_in = f64_param(&parts, "theta_v_in", 2);
        parts = parts
            .with_field("theta_v", theta_in.clone())
            .with_field("z_temp", ArrayD::from_elem(IxDyn(&[nc, nlev]), f64::NAN));
        let mut p = parts.clone().with_field("theta_v", theta_in.clone());
        reference::run("calculate_nabla2_for_theta", &mut p).expect("runs");
        let plain = f64_param(&p, "z_temp", 2);
        let z_temp = if apply_zdiffusion_t {
            reference::run(
                "truly_horizontal_diffusion_nabla_of_theta_over_steep_points",
                &mut p,
            )
            .expect("runs");
            let steep = f64_param(&p, "z_temp", 2);
            let coef = f64_param(&p, "zd_diffcoef", 2);
            ndarray::Zip::from(&plain)
                .and(&steep)
                .and(&coef)
                .map_collect(|&pl, &st, &c| if c != 0.0 { st } else { pl })
        } else {
            plain
        };
        let mut u = p
            .with_field("z_temp", z_temp)
            .with_field("theta_v", theta_in);
        reference::run("update_theta_and_exner", &mut u).expect("runs");
        for name in ["theta_v", "exner"] {
            let (a, b) = (f64_param(&fused, name, 2), f64_param(&u, name, 2));
            for c in 0..2 {
                assert!(
                    a[[c, 0]].is_nan() || name == "exner",
                    "cell {c} is outside the domain"
                );
            }
            let a_in = a.slice(ndarray::s![2.., ..]).to_owned().into_dyn();
            let b_in = b.slice(ndarray::s![2.., ..]).to_owned().into_dyn();
            let err = largest_relative_difference(b_in.view(), a_in.view()).expect("one shape");
            assert!(
                err < 1e-14,
                "{name} apply_zdiffusion_t={apply_zdiffusion_t}: {err:e}"
            );
        }
    }
}

fn normal_wind_call(rng: &mut ChaCha8Rng, skip: bool) -> Call {
    let (nc, ne, nv, nlev) = (8usize, 12usize, 4usize, 7usize);
    let ek = |rng: &mut ChaCha8Rng| random_array(rng, &[ne, nlev]);
    Call::new()
        .with_field(
            "tangential_wind",
            ArrayD::from_elem(IxDyn(&[ne, nlev]), f64::NAN),
        )
        .with_field("tangential_wind_on_half_levels", ek(rng))
        .with_field("vn_on_half_levels", random_array(rng, &[ne, nlev + 1]))
        .with_field(
            "horizontal_kinetic_energy_at_edges_on_model_levels",
            ek(rng),
        )
        .with_field("contravariant_correction_at_edges_on_model_levels", ek(rng))
        .with_field("horizontal_advection_of_w_at_edges_on_half_levels", ek(rng))
        .with_field("vn", ek(rng))
        .with_field("w", random_array(rng, &[nc, nlev + 1]))
        .with_field("rbf_vec_coeff_e", random_array(rng, &[ne, 4]))
        .with_field("wgtfac_e", random_array(rng, &[ne, nlev + 1]))
        .with_field("ddxn_z_full", ek(rng))
        .with_field("ddxt_z_full", ek(rng))
        .with_field("wgtfacq_e", random_array(rng, &[ne, nlev + 1]))
        .with_field("c_intp", random_array(rng, &[nv, 6]))
        .with_field("inv_dual_edge_length", random_array(rng, &[ne]))
        .with_field("inv_primal_edge_length", random_array(rng, &[ne]))
        .with_field("tangent_orientation", random_array(rng, &[ne]))
        .with_flag("skip_compute_predictor_vertical_advection", skip)
        .with_int("nflatlev", 3)
        .with_domain(1..ne as i32 - 1, 0..nlev as i32 + 1)
        .with_table(random_table(rng, "E2C2E", ne, 4, ne))
        .with_table(random_table(rng, "E2C", ne, 2, nc))
        .with_table(random_table(rng, "E2V", ne, 2, nv))
        .with_table(random_table(rng, "V2C", nv, 6, nc))
}

/// Both values of the skip flag: the skipped outputs keep their pre-call values, the others are
/// identical, and the tangential wind and kinetic energy agree with their own programs.
#[test]
fn compute_diagnostics_from_normal_wind_honours_its_skip_flag() {
    let mut runs = Vec::new();
    for skip in [false, true] {
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        let before = normal_wind_call(&mut rng, skip);
        let mut call = before.clone();
        reference::run("compute_diagnostics_from_normal_wind", &mut call).expect("runs");
        runs.push((before, call));
    }
    let (ref before, ref computed) = runs[0];
    let (_, ref skipped) = runs[1];
    for name in [
        "tangential_wind_on_half_levels",
        "horizontal_advection_of_w_at_edges_on_half_levels",
    ] {
        assert_eq!(
            f64_param(skipped, name, 2),
            f64_param(before, name, 2),
            "{name}"
        );
        assert_ne!(
            f64_param(computed, name, 2),
            f64_param(before, name, 2),
            "{name}"
        );
    }
    for name in [
        "tangential_wind",
        "vn_on_half_levels",
        "horizontal_kinetic_energy_at_edges_on_model_levels",
        "contravariant_correction_at_edges_on_model_levels",
    ] {
        let (a, b) = (f64_param(computed, name, 2), f64_param(skipped, name, 2));
        assert_eq!(
            largest_relative_difference(b.view(), a.view()).expect("one shape"),
            0.0,
            "{name}"
        );
    }
    // Edges 0 and 11 lie outside the domain; contravariant correction only from nflatlev on.
    let vt = f64_param(computed, "tangential_wind", 2);
    assert!(vt[[0, 0]].is_nan() && vt[[11, 3]].is_nan() && !vt[[1, 6]].is_nan());
    let concorr = f64_param(
        computed,
        "contravariant_correction_at_edges_on_model_levels",
        2,
    );
    let concorr_before = f64_param(
        before,
        "contravariant_correction_at_edges_on_model_levels",
        2,
    );
    assert_eq!(concorr[[5, 2]], concorr_before[[5, 2]]);
    assert_ne!(concorr[[5, 3]], concorr_before[[5, 3]]);

    let mut tw = before
        .clone()
        .with_field("vt", ArrayD::from_elem(IxDyn(&[12, 7]), f64::NAN))
        .with_domain(1..11, 0..7);
    reference::run("compute_tangential_wind", &mut tw).expect("runs");
    assert_eq!(
        largest_relative_difference(vt.view(), f64_param(&tw, "vt", 2).view()).expect("one shape"),
        0.0
    );
}

#[test]
fn references_report_bad_input_instead_of_panicking() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    // A domain beyond the output's extent.
    let mut call = Call::new()
        .with_field("w", random_array(&mut rng, &[4, 3]))
        .with_field("geofac_n2s", random_array(&mut rng, &[4, 4]))
        .with_field("z_nabla2_c", random_array(&mut rng, &[4, 3]))
        .with_domain(0..5, 0..3)
        .with_table(random_table(&mut rng, "C2E2CO", 4, 4, 4));
    assert!(reference::run("calculate_nabla2_for_w", &mut call).is_err());
    // A missing table, a negative bound and an unknown program.
    let mut call = call.with_domain(0..4, 0..3);
    call.tables.clear();
    assert!(reference::run("calculate_nabla2_for_w", &mut call).is_err());
    let mut call = call.with_domain(-1..4, 0..3);
    assert!(reference::run("calculate_nabla2_for_w", &mut call).is_err());
    assert!(reference::run("no_such_program", &mut call).is_err());
    // A skip value where the stencil reads one neighbour directly.
    let mut e2c = Array2::from_elem((3, 2), 0);
    e2c[[1, 1]] = -1;
    let mut call = Call::new()
        .with_field("kh_smag_e", random_array(&mut rng, &[3, 2]))
        .with_field("inv_dual_edge_length", random_array(&mut rng, &[3]))
        .with_field("theta_v", random_array(&mut rng, &[2, 2]))
        .with_field("z_nabla2_e", random_array(&mut rng, &[3, 2]))
        .with_domain(0..3, 0..2)
        .with_table(NeighborTable::new("E2C", e2c).expect("valid"));
    assert!(reference::run("calculate_nabla2_for_z", &mut call).is_err());
}

#[test]
fn setup_helpers_fill_every_level() {
    let mut call = Call::new()
        .with_scalar("k4", 0.15)
        .with_scalar("hdiff_efdt_ratio", 24.0)
        .with_field("diff_multfac_vn", ArrayD::from_elem(IxDyn(&[6]), f64::NAN))
        .with_field("smag_limit", ArrayD::from_elem(IxDyn(&[6]), f64::NAN));
    reference::run("setup_fields_for_initial_step", &mut call).expect("runs");
    let dmf = f64_param(&call, "diff_multfac_vn", 1);
    let limit = f64_param(&call, "smag_limit", 1);
    for k in 0..6 {
        assert_eq!(dmf[[k]], 0.15 / 3.0 * 24.0);
        assert_eq!(limit[[k]], 0.125 - 4.0 * dmf[[k]]);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let field = random_array(&mut rng, &[6]);
    let mut call = Call::new()
        .with_field("field", field.clone())
        .with_scalar("factor", 0.7)
        .with_field("scaled_field", ArrayD::from_elem(IxDyn(&[6]), f64::NAN));
    reference::run("scale_k", &mut call).expect("runs");
    assert_eq!(f64_param(&call, "scaled_field", 1), field.mapv(|x| x * 0.7));
}

//! Physics and consistency tests of the diffusion granule on a small icosahedral grid.

mod support;

use gt4rs::debug::DebugChecks;
use gt4rs::grid::{Grid, IcosahedralGrid};
use gt4rs::{Backend, Field};
use gt4rs_stencils::diffusion::initial::{diffusion_on, jet_state, JetSpec};
use gt4rs_stencils::diffusion::{
    DiagnosticState, DiffusionConfig, PrognosticState, RunOptions, TurbulenceShearForcing,
    VerticalGrid,
};
use gt4rs_stencils::icon::dims::{Cell, K};
use ndarray::Array2;

const NLEV: usize = 8;
const DTIME: f64 = 300.0;

fn grid() -> Grid {
    IcosahedralGrid::generate(2, 2).expect("R2B2 generates")
}

fn options(backend: Backend) -> RunOptions {
    RunOptions {
        backend,
        debug: DebugChecks::off(),
        trace: false,
    }
}

fn nan_diagnostics(grid: &Grid) -> DiagnosticState {
    let nan = |_: ()| {
        Field::<(Cell, K), f64>::filled(
            &[0..grid.num_cells as i64, 0..NLEV as i64 + 1],
            f64::NAN,
            Default::default(),
        )
        .expect("valid domain")
    };
    DiagnosticState {
        hdef_ic: nan(()),
        div_ic: nan(()),
        dwdx: nan(()),
        dwdy: nan(()),
    }
}

fn variance(a: ndarray::ArrayViewD<'_, f64>) -> f64 {
    let n = a.len() as f64;
    let mean = a.sum() / n;
    a.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n
}

#[test]
fn constant_fields_stay_constant() {
    let grid = grid();
    let vertical = VerticalGrid::default_for(NLEV).expect("valid");
    let (mut granule, mut diagnostic) = diffusion_on(
        &grid,
        &vertical,
        DiffusionConfig::default(),
        options(Backend::Embedded),
    )
    .expect("granule initialises");
    let (nc, ne) = (grid.num_cells, grid.num_edges);
    fn filled<D: gt4rs::Dims>(shape: [usize; 2], v: f64) -> Field<D, f64> {
        Field::from_array_zero_origin(Array2::from_elem(shape, v).into_dyn()).expect("2-d")
    }
    let mut state = PrognosticState {
        vn: filled([ne, NLEV], 0.0),
        w: filled([nc, NLEV + 1], 0.37),
        theta_v: filled([nc, NLEV], 301.5),
        exner: filled([nc, NLEV], 0.83),
    };
    let before = state.clone();
    granule
        .initial_run(DTIME, &mut state, &mut diagnostic)
        .expect("runs");
    for _ in 0..3 {
        granule
            .run(DTIME, &mut state, &mut diagnostic)
            .expect("runs");
    }
    let close =
        |a: ndarray::ArrayViewD<'_, f64>, b: ndarray::ArrayViewD<'_, f64>, tol: f64, name: &str| {
            let err = (&a - &b).iter().fold(0.0_f64, |m, d| m.max(d.abs()));
            assert!(err <= tol, "{name} changed by {err}");
        };
    close(state.vn.as_array(), before.vn.as_array(), 1e-14, "vn");
    close(state.w.as_array(), before.w.as_array(), 1e-13, "w");
    close(
        state.theta_v.as_array(),
        before.theta_v.as_array(),
        1e-10,
        "theta_v",
    );
    close(
        state.exner.as_array(),
        before.exner.as_array(),
        1e-13,
        "exner",
    );
}

#[test]
fn variance_of_vn_decays_monotonically() {
    let grid = grid();
    let vertical = VerticalGrid::default_for(NLEV).expect("valid");
    let (mut granule, mut diagnostic) = diffusion_on(
        &grid,
        &vertical,
        DiffusionConfig::default(),
        options(Backend::Cpu),
    )
    .expect("granule initialises");
    let mut state = jet_state(&grid, &vertical, &JetSpec::default()).expect("state");
    let mut last = variance(state.vn.as_array());
    let first = last;
    for step in 0..6 {
        if step == 0 {
            granule.initial_run(DTIME, &mut state, &mut diagnostic)
        } else {
            granule.run(DTIME, &mut state, &mut diagnostic)
        }
        .expect("runs");
        let now = variance(state.vn.as_array());
        assert!(
            now.is_finite() && now < last,
            "step {step}: variance {last} -> {now}"
        );
        last = now;
    }
    assert!(
        last < 0.999 * first,
        "diffusion removed too little: {first} -> {last}"
    );
}

#[test]
fn cpu_granule_equals_embedded_granule() {
    let grid = grid();
    let vertical = VerticalGrid::default_for(NLEV).expect("valid");
    let config = DiffusionConfig {
        // Also computes the turbulence diagnostics and the w gradients.
        shear_type: TurbulenceShearForcing::VerticalHorizontalOfHorizontalVerticalWind,
        ..DiffusionConfig::default()
    };
    let spec = JetSpec::default();
    let run = |backend| {
        let (mut granule, _) = diffusion_on(&grid, &vertical, config.clone(), options(backend))
            .expect("granule initialises");
        let mut diagnostic = nan_diagnostics(&grid);
        let mut state = jet_state(&grid, &vertical, &spec).expect("state");
        granule
            .initial_run(DTIME, &mut state, &mut diagnostic)
            .expect("runs");
        for _ in 0..4 {
            granule
                .run(DTIME, &mut state, &mut diagnostic)
                .expect("runs");
        }
        (state, diagnostic)
    };
    let (cpu, cpu_diag) = run(Backend::Cpu);
    let (embedded, embedded_diag) = run(Backend::Embedded);
    support::granule::assert_cpu_equals_embedded((&cpu, &cpu_diag), (&embedded, &embedded_diag));
}

#[test]
fn debug_check_names_program_field_and_index_of_an_injected_nan() {
    let grid = grid();
    let vertical = VerticalGrid::default_for(NLEV).expect("valid");
    let mut run_options = options(Backend::Cpu);
    run_options.debug = DebugChecks::parse("nan").expect("valid spec");
    let (mut granule, mut diagnostic) =
        diffusion_on(&grid, &vertical, DiffusionConfig::default(), run_options)
            .expect("granule initialises");
    let mut state = jet_state(&grid, &vertical, &JetSpec::default()).expect("state");
    granule
        .run(DTIME, &mut state, &mut diagnostic)
        .expect("a clean state passes the checks");
    let (edge, level) = (grid.num_edges / 3, NLEV / 2);
    state
        .vn
        .set(&[edge as i64, level as i64], f64::NAN)
        .expect("inside");
    let err = granule
        .run(DTIME, &mut state, &mut diagnostic)
        .expect_err("the NaN is caught")
        .to_string();
    // The first program to read vn is the RBF reconstruction at vertices; the first vertex it
    // spoils is the edge's vertex with the lower index.
    let e2v = grid.table("E2V").expect("E2V");
    let vertex = e2v[[edge, 0]].min(e2v[[edge, 1]]);
    assert!(
        err.contains("mo_intp_rbf_rbf_vec_interpol_vertex")
            && err.contains("`u_vert`")
            && err.contains(&format!("[{vertex}, {level}]")),
        "{err}"
    );
}

#[test]
fn k_fields_follow_icon_formulas() {
    let grid = grid();
    let vertical = VerticalGrid::default_for(NLEV).expect("valid");
    let (granule, _) = diffusion_on(
        &grid,
        &vertical,
        DiffusionConfig::default(),
        options(Backend::Embedded),
    )
    .expect("granule initialises");
    let params = granule.params().clone();
    let substeps = granule.config().substeps();
    let [diff_multfac_vn, smag_limit, enh_smag_fac, diff_multfac_n2w] = granule.k_fields();
    let multfac = (params.k4 * substeps / 3.0).min(1.0 / 128.0);
    let a = &vertical.vct_a;
    let nrdmax = vertical.nrdmax;
    for k in 0..NLEV {
        let at = |f: &Field<K, f64>| f.get(&[k as i64]).expect("inside");
        assert!((at(diff_multfac_vn) - multfac).abs() < 1e-15);
        assert!((at(smag_limit) - (0.125 - 4.0 * multfac)).abs() < 1e-15);
        let enh = support::icon_smagorinsky_enhancement(
            0.5 * (a[k] + a[k + 1]),
            params.smagorinski_factor,
            params.smagorinski_height,
        );
        assert!((at(enh_smag_fac) - enh).abs() < 1e-15);
        let n2w = if (1..=nrdmax).contains(&k) {
            ((a[k] - a[nrdmax + 1]) / (a[1] - a[nrdmax + 1])).powi(4) / 12.0
        } else {
            0.0
        };
        assert!((at(diff_multfac_n2w) - n2w).abs() < 1e-15, "level {k}");
    }
    assert!(nrdmax >= 1, "the damping layer has levels");
}

#[test]
fn job_writes_pictures_and_a_valid_trace() {
    use gt4rs_stencils::diffusion::job::{self, JobSpec};
    let out = std::env::temp_dir().join(format!("gt4rs-diffusion-job-{}", std::process::id()));
    let trace = out.join("trace.json");
    let spec = JobSpec {
        grid: "r2b2".into(),
        levels: NLEV,
        steps: 3,
        trace: Some(trace.clone()),
        out: out.clone(),
        progress_bar: false,
        ..JobSpec::default()
    };
    let report = job::run(&spec).expect("the job runs");
    assert_eq!(report.small_scale_variance.len(), 4);
    assert!(report.small_scale_variance.windows(2).all(|w| w[1] < w[0]));
    assert!(report.table.contains("apply_diffusion_to_vn"));
    // The default terrain is mountains: the truly horizontal θ diffusion runs.
    assert_eq!(report.terrain, job::JobSpec::default().terrain);
    assert!(
        report.zdiffusion_active && report.steep_columns > 0,
        "{report:?}"
    );
    assert!(report.summary().contains("z-diffusion of θ: on"));
    for name in [
        "vn_small_scale.png",
        "vn.png",
        "vn_variance.png",
        "terrain.png",
        "theta_change.png",
    ] {
        let bytes = std::fs::read(out.join(name)).expect("picture written");
        assert_eq!(&bytes[1..4], b"PNG", "{name}");
    }
    let events: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).expect("trace written"))
            .expect("valid JSON");
    let events = events.as_array().expect("an array of events");
    assert!(events
        .iter()
        .any(|e| e["name"] == "apply_diffusion_to_vn" && e["cat"] == "run"));
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn job_over_flat_terrain_finds_no_steep_points() {
    use gt4rs_stencils::diffusion::job::{self, JobSpec};
    use gt4rs_stencils::diffusion::TerrainKind;
    let out = std::env::temp_dir().join(format!("gt4rs-diffusion-flat-{}", std::process::id()));
    let spec = JobSpec {
        grid: "r2b2".into(),
        levels: NLEV,
        steps: 2,
        out: out.clone(),
        progress_bar: false,
        terrain: TerrainKind::Flat,
        ..JobSpec::default()
    };
    let report = job::run(&spec).expect("the job runs");
    assert!(!report.zdiffusion_active);
    assert_eq!((report.steep_columns, report.steep_points), (0, 0));
    assert_eq!(report.max_height, 0.0);
    assert!(report.summary().contains("off (no steep points)"));
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn limited_area_grid_runs_and_stays_finite() {
    let global = IcosahedralGrid::generate(2, 4).expect("R2B4 generates");
    let grid = global
        .regional(gt4rs::grid::RegionSpec {
            center_lat_deg: 46.8,
            center_lon_deg: 8.2,
            radius: 1.5e6,
        })
        .expect("regional cut");
    let vertical = VerticalGrid::default_for(NLEV).expect("valid");
    let (mut granule, mut diagnostic) = diffusion_on(
        &grid,
        &vertical,
        DiffusionConfig::default(),
        options(Backend::Cpu),
    )
    .expect("granule initialises");
    assert!(granule.config().limited_area);
    let mut state = jet_state(&grid, &vertical, &JetSpec::default()).expect("state");
    let before = variance(state.vn.as_array());
    granule
        .initial_run(DTIME, &mut state, &mut diagnostic)
        .expect("runs");
    granule
        .run(DTIME, &mut state, &mut diagnostic)
        .expect("runs");
    assert!(state.vn.as_array().iter().all(|v| v.is_finite()));
    assert!(state.theta_v.as_array().iter().all(|v| v.is_finite()));
    assert!(variance(state.vn.as_array()) < before);
}

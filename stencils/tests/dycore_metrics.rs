//! The dycore's metric fields (`MetricState::compute`) against ICON4Py's metrics factory, and
//! their properties.
//!
//! `refs/icon4py/dymetrics/GRID/metrics.npz` holds ICON4Py's fields (recorded by
//! `tools/icon4py/record_dymetrics`: ICON4Py 0.4.1's `MetricsFieldsFactory` on GT4Py's
//! gtfn_cpu backend) on the global R2B2 grid and a limited-area cut of R2B3 (2500 km around
//! the Alps), 12 levels over the diffusion job's mountains, computed from this crate's
//! half-level heights, topography and `vct_a`, which the file also holds (exported by the
//! ignored test `export_inputs` below). The test recomputes the heights, checks that they are
//! the recorded ones bit for bit, and compares every field.

use std::path::PathBuf;

use gt4rs::grid::{Grid, IcosahedralGrid, RegionSpec};
use gt4rs::Error;
use gt4rs_stencils::diffusion::terrain::{orography, Mountain, SleveParams};
use gt4rs_stencils::diffusion::{Terrain, TerrainKind, VerticalGrid};
use gt4rs_stencils::dycore::metrics::MetricArray;
use gt4rs_stencils::dycore::reference_atmosphere;
use gt4rs_stencils::dycore::{MetricState, MetricsConfig, VerticalIndices};
use gt4rs_tests::refs::icon4py_refs;
use ndarray::{s, ArrayD};
use ndarray_npy::{NpzReader, NpzWriter};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const NLEV: usize = 12;

/// The recorded grids: label, bisections of the R2 grid, limited-area radius (km).
const GRIDS: [(&str, u32, Option<f64>); 2] =
    [("r2b2", 2, None), ("r2b3-regional", 3, Some(2500.0))];

/// The fields agree with ICON4Py's bit for bit today, the transcendental ones included.
///
/// Largest relative difference of a field computed with `exp`, `ln`, `powf` or `tanh` (the
/// reference atmosphere, the Rayleigh damping, `exner_exfac`, `vwind_impl_wgt`): ICON4Py's
/// gtfn code and numpy call the C library of ICON4Py's environment, this crate the one it is
/// linked with; each may round a transcendental function's result differently by one unit in
/// the last place (2.2e-16 relative), which the reference atmosphere's chain of up to four
/// such functions (exp, ln, exp, pow) and their products carries through with a condition
/// number of order 10 (the exponent g·h/(R·ΔT) ≈ 1.7 times ln of order 1, and κ = 0.29 in
/// the pow): 10 ulp in all.
const TRANSCENDENTAL_RTOL: f64 = 10.0 * f64::EPSILON;

/// Fields built from those with transcendental functions.
const TRANSCENDENTAL: [&str; 11] = [
    "rayleigh_w",
    "exner_exfac",
    "exner_ref_mc",
    "rho_ref_mc",
    "theta_ref_mc",
    "rho_ref_me",
    "theta_ref_me",
    "theta_ref_ic",
    "d_exner_dz_ref_ic",
    "d2dexdz2_fac1_mc",
    "d2dexdz2_fac2_mc",
];

/// `vwind_impl_wgt` and `vwind_expl_wgt` take `x^0.75` of the steepest slope.
const WITH_POW: [&str; 2] = ["vwind_impl_wgt", "vwind_expl_wgt"];

fn grid(bisections: u32, radius_km: Option<f64>) -> Grid {
    let global = IcosahedralGrid::generate(2, bisections).expect("the grid generates");
    match radius_km {
        // The centre `gt4rs grid info --regional` cuts around by default.
        Some(radius_km) => global
            .regional(RegionSpec {
                center_lat_deg: 46.8,
                center_lon_deg: 8.2,
                radius: radius_km * 1e3,
            })
            .expect("the region cuts"),
        None => global,
    }
}

fn mountains(grid: &Grid) -> (VerticalGrid, Terrain) {
    let vertical = VerticalGrid::default_for(NLEV).expect("valid");
    let terrain =
        Terrain::of_kind(TerrainKind::Mountains, grid, &vertical).expect("the terrain builds");
    (vertical, terrain)
}

/// Six mountains of random place (within 60° of the equator), height (0.5-3.5 km) and radius
/// (150-600 km) under ICON's SLEVE coordinate.
fn random_mountains(grid: &Grid, seed: u64) -> (VerticalGrid, Terrain) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mountains: Vec<Mountain> = (0..6)
        .map(|_| Mountain {
            lat_deg: rng.random_range(-60.0..60.0),
            lon_deg: rng.random_range(-180.0..180.0),
            height: rng.random_range(500.0..3500.0),
            radius: rng.random_range(150.0e3..600.0e3),
        })
        .collect();
    let vertical = VerticalGrid::default_for(NLEV).expect("valid");
    let topography = orography(grid, &mountains).expect("orography");
    let terrain = Terrain::sleve(grid, &vertical, topography, &SleveParams::default())
        .expect("the terrain builds");
    (vertical, terrain)
}

fn refs_dir() -> PathBuf {
    icon4py_refs().join("dymetrics")
}

/// Writes each recorded grid (`LABEL-grid.npz`, as `gt4rs grid info --npz` writes it) and its
/// terrain (`LABEL-terrain.npz`: z_ifc, topography, vct_a, the damping and flat heights) into
/// `$GT4RS_DYMETRICS_EXPORT`, the inputs of `tools/icon4py/record_dymetrics.py`.
#[test]
#[ignore = "writes the recorder's inputs; run by tools/icon4py/record_dymetrics"]
fn export_inputs() {
    let dir = PathBuf::from(
        std::env::var_os("GT4RS_DYMETRICS_EXPORT").expect("GT4RS_DYMETRICS_EXPORT names a folder"),
    );
    for (label, bisections, radius) in GRIDS {
        let mut grid = grid(bisections, radius);
        let (vertical, terrain) = mountains(&grid);
        // The recorder takes the grid file's `c_intp` as ICON4Py's `cells_aw_verts`: the
        // weights `MetricState::compute` uses, ICON's.
        grid.geometry.c_intp =
            gt4rs_stencils::dycore::coefficients::cell_to_vertex_weights(&grid).expect("c_intp");
        grid.write_npz(dir.join(format!("{label}-grid.npz")))
            .expect("the grid writes");
        let file = std::fs::File::create(dir.join(format!("{label}-terrain.npz"))).expect("file");
        let mut npz = NpzWriter::new(file);
        npz.add_array("z_ifc", &terrain.z_ifc).expect("z_ifc");
        npz.add_array("topography", &terrain.topography)
            .expect("topography");
        npz.add_array("vct_a", &ndarray::Array1::from(vertical.vct_a.clone()))
            .expect("vct_a");
        let scalars = ndarray::arr1(&[vertical.damping_height, 16_000.0]);
        npz.add_array("damping_and_flat_height", &scalars)
            .expect("heights");
        npz.finish().expect("the terrain writes");
    }
}

fn read_f64(npz: &mut NpzReader<std::fs::File>, name: &str) -> ArrayD<f64> {
    npz.by_name(name)
        .unwrap_or_else(|e| panic!("`{name}` in the recorded file: {e}"))
}

/// `(exactly equal, largest relative difference)` of two arrays of one shape; ±0 are equal.
fn difference(name: &str, got: &ArrayD<f64>, want: &ArrayD<f64>) -> (usize, f64) {
    assert_eq!(got.shape(), want.shape(), "`{name}`: shapes differ");
    let mut exact = 0;
    let mut worst = 0.0f64;
    for (&g, &w) in got.iter().zip(want) {
        assert!(g.is_finite(), "`{name}`: {g} is not finite");
        if g == w {
            exact += 1;
        } else {
            worst = worst.max((g - w).abs() / w.abs().max(f64::MIN_POSITIVE));
        }
    }
    (exact, worst)
}

fn compare_with_icon4py(label: &str, bisections: u32, radius: Option<f64>) {
    let path = refs_dir().join(label).join("metrics.npz");
    let mut npz = NpzReader::new(
        std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .expect("npz");
    let grid = grid(bisections, radius);
    let (vertical, terrain) = mountains(&grid);
    // The inputs the recording started from are this crate's, bit for bit.
    assert_eq!(
        read_f64(&mut npz, "z_ifc"),
        terrain.z_ifc.clone().into_dyn(),
        "{label}: z_ifc changed since the recording"
    );
    assert_eq!(
        read_f64(&mut npz, "topography"),
        terrain.topography.clone().into_dyn()
    );
    let config = MetricsConfig::default();
    let metrics = MetricState::compute(&grid, &terrain, &vertical, &config).expect("metrics");
    for (name, array) in metrics.arrays() {
        match array {
            MetricArray::Float(got) => {
                let want = read_f64(&mut npz, name);
                let (exact, worst) = difference(name, &got.to_owned(), &want);
                let tolerance = if TRANSCENDENTAL.contains(&name) || WITH_POW.contains(&name) {
                    TRANSCENDENTAL_RTOL
                } else {
                    0.0
                };
                eprintln!(
                    "{label} {name:<18} {exact:>6} of {:>6} equal, largest relative difference {worst:.1e}",
                    want.len()
                );
                assert!(
                    worst <= tolerance,
                    "{label}: `{name}` differs from ICON4Py's by {worst:.2e} relative (allowed {tolerance:.1e})"
                );
            }
            MetricArray::Int(got) => {
                let want: ArrayD<i32> = npz.by_name(name).expect(name);
                assert_eq!(got.to_owned(), want, "{label}: `{name}` differs");
            }
            MetricArray::Bool(got) => {
                let want: ArrayD<bool> = npz.by_name(name).expect(name);
                assert_eq!(got.to_owned(), want, "{label}: `{name}` differs");
            }
        }
    }
    let scalars: ArrayD<i32> = npz.by_name("vertical_indices").expect("indices");
    let indices = VerticalIndices::of(&vertical, &terrain, &config).expect("indices");
    assert_eq!(
        scalars.iter().copied().collect::<Vec<_>>(),
        [
            metrics.nflat_gradp,
            indices.nflatlev as i32,
            indices.end_index_of_damping_layer as i32,
            indices.kstart_moist as i32
        ],
        "{label}: nflat_gradp, nflatlev, end_index_of_damping_layer, kstart_moist"
    );
}

#[test]
fn metric_fields_match_icon4py_on_the_global_r2b2_grid() {
    let (label, bisections, radius) = GRIDS[0];
    compare_with_icon4py(label, bisections, radius);
}

#[test]
fn metric_fields_match_icon4py_on_a_limited_area_r2b3_grid() {
    let (label, bisections, radius) = GRIDS[1];
    compare_with_icon4py(label, bisections, radius);
}

fn f64s(field: &MetricState, name: &str) -> ArrayD<f64> {
    match field.arrays().into_iter().find(|(n, _)| *n == name) {
        Some((_, MetricArray::Float(a))) => a.to_owned(),
        _ => panic!("no float field `{name}`"),
    }
}

#[test]
fn flat_terrain_has_no_slopes_and_reads_its_own_level() {
    let grid = grid(2, None);
    let vertical = VerticalGrid::default_for(NLEV).expect("valid");
    let terrain = Terrain::flat(grid.num_cells, &vertical);
    let config = MetricsConfig::default();
    let m = MetricState::compute(&grid, &terrain, &vertical, &config).expect("metrics");
    for name in ["ddxn_z_full", "pg_exdist"] {
        assert!(f64s(&m, name).iter().all(|&x| x == 0.0), "{name}");
    }
    // The tangential slope goes through the heights at the vertices, ICON's `cells_aw_verts`
    // means of equal heights. Those planar weights sum to 1 only to within the difference of
    // planar kites and the grid's spherical dual areas, as in ICON, so a flat height `h` reads
    // `h Σw` at a vertex: the slope is at most `2 h max|Σw - 1|` over the shortest edge.
    let weights =
        gt4rs_stencils::dycore::coefficients::cell_to_vertex_weights(&grid).expect("c_intp");
    // A global grid: every vertex's row is computed (no lateral boundary), so every row counts.
    let departure = weights
        .outer_iter()
        .map(|row| (row.sum() - 1.0).abs())
        .fold(0.0f64, f64::max);
    let top = terrain.z_ifc.iter().fold(0.0f64, |m, &z| m.max(z));
    let shortest = grid
        .geometry
        .primal_edge_length
        .iter()
        .fold(f64::INFINITY, |m, &l| m.min(l));
    let bound = 2.0 * top * departure / shortest * (1.0 + 1e-9);
    let steepest = f64s(&m, "ddxt_z_full")
        .iter()
        .fold(0.0f64, |s, &x| s.max(x.abs()));
    eprintln!("flat terrain: ddxt_z_full up to {steepest:.2e}, bound {bound:.2e} (weights sum to 1 within {departure:.1e})");
    assert!(
        steepest <= bound && departure < 1e-3,
        "{steepest:e} {bound:e}"
    );
    // z at the edge is c_lin_e's mean of equal heights: equal up to its rounding.
    let zdiff = f64s(&m, "zdiff_gradp");
    assert!(zdiff.iter().all(|&d| d.abs() <= 1e-11), "zdiff_gradp");
    assert!(m.vertoffset_gradp.as_array().iter().all(|&o| o == 0));
    assert_eq!(m.nflat_gradp as usize, NLEV - 1);
    // No slope: the default off-centring and the full exner extrapolation.
    let implicit = f64s(&m, "vwind_impl_wgt");
    assert!(
        implicit.iter().all(|&w| (w - 0.65).abs() < 1e-15),
        "{implicit:?}"
    );
    assert!(f64s(&m, "exner_exfac")
        .iter()
        .all(|&x| (x - config.exner_expol).abs() < 1e-15));
}

#[test]
fn weights_interpolate_and_extrapolate_polynomials_exactly() {
    let grid = grid(2, None);
    for seed in 0..3 {
        let (vertical, terrain) = random_mountains(&grid, seed);
        check_polynomial_weights(&grid, &vertical, &terrain);
    }
    let (vertical, terrain) = mountains(&grid);
    check_polynomial_weights(&grid, &vertical, &terrain);
}

fn check_polynomial_weights(grid: &Grid, vertical: &VerticalGrid, terrain: &Terrain) {
    let m =
        MetricState::compute(grid, terrain, vertical, &MetricsConfig::default()).expect("metrics");
    let (z_ifc, z_mc) = (&terrain.z_ifc, &terrain.z_mc);
    let wgtfac_c = f64s(&m, "wgtfac_c");
    let wgtfacq_c = f64s(&m, "wgtfacq_c");
    let linear = |z: f64| 3.0 - 2.0e-4 * z;
    let quadratic = |z: f64| 1.0 + 1.0e-3 * z - 3.0e-8 * z * z;
    for c in 0..grid.num_cells {
        for k in 1..NLEV {
            let w = wgtfac_c[[c, k]];
            let at_half = w * linear(z_mc[[c, k]]) + (1.0 - w) * linear(z_mc[[c, k - 1]]);
            assert!(
                (at_half - linear(z_ifc[[c, k]])).abs() < 1e-12,
                "wgtfac_c {c} {k}"
            );
        }
        let surface: f64 = (1..=3)
            .map(|j| wgtfacq_c[[c, NLEV - j]] * quadratic(z_mc[[c, NLEV - j]]))
            .sum();
        assert!(
            (surface - quadratic(z_ifc[[c, NLEV]])).abs() < 1e-10,
            "wgtfacq_c {c}: {surface} {}",
            quadratic(z_ifc[[c, NLEV]])
        );
        assert!(wgtfacq_c.slice(s![c, ..NLEV - 3]).iter().all(|&w| w == 0.0));
    }
    // Edge weights are the cells' weights interpolated with c_lin_e, which sum to 1.
    let wgtfacq_e = f64s(&m, "wgtfacq_e");
    for e in 0..grid.num_edges {
        let sum: f64 = (1..=3).map(|j| wgtfacq_e[[e, NLEV - j]]).sum();
        assert!((sum - 1.0).abs() < 1e-12, "wgtfacq_e {e}: {sum}");
    }
}

#[test]
fn the_reference_atmosphere_is_hydrostatic_on_the_columns() {
    let grid = grid(2, None);
    let (vertical, terrain) = mountains(&grid);
    let m = MetricState::compute(&grid, &terrain, &vertical, &MetricsConfig::default())
        .expect("metrics");
    let exner = f64s(&m, "exner_ref_mc");
    let dexner = f64s(&m, "d_exner_dz_ref_ic");
    let ddqz_z_half = f64s(&m, "ddqz_z_half");
    for c in 0..grid.num_cells {
        for k in 0..=NLEV {
            // dπ/dz at the half level's height, by a centred difference of the full-level
            // formula over ±1 m: the hydrostatic balance -g / (c_pd θ) of the field.
            let z = terrain.z_ifc[[c, k]];
            let at = |z: f64| reference_atmosphere::at_full_level(z).exner;
            let slope = (at(z + 1.0) - at(z - 1.0)) / 2.0;
            let rel = (slope - dexner[[c, k]]).abs() / dexner[[c, k]].abs();
            assert!(rel < 1e-7, "{c} {k}: {slope} {}", dexner[[c, k]]);
        }
        for k in 1..NLEV {
            // The difference of the full levels around half level k, whose midpoint is not
            // the half level on stretched layers: within 1 %.
            let slope = (exner[[c, k - 1]] - exner[[c, k]]) / ddqz_z_half[[c, k]];
            let rel = (slope - dexner[[c, k]]).abs() / dexner[[c, k]].abs();
            assert!(rel < 1e-2, "{c} {k}: {slope} {}", dexner[[c, k]]);
        }
    }
    // The Rayleigh damping: the coefficient at the top, falling to the damping height, 0 below.
    let rayleigh = m.rayleigh_w.as_array();
    assert_eq!(rayleigh[0], MetricsConfig::default().rayleigh_coeff);
    assert!(rayleigh.iter().skip(vertical.nrdmax + 1).all(|&r| r == 0.0));
    assert!((1..=vertical.nrdmax).all(|k| rayleigh[k] > 0.0 && rayleigh[k] < rayleigh[k - 1]));
    let sea_level = reference_atmosphere::at_full_level(0.0);
    assert!((sea_level.exner - (101_325.0f64 / 100_000.0).powf(287.04 / 1004.64)).abs() < 1e-15);
}

#[test]
fn steep_columns_get_more_off_centring_and_less_extrapolation() {
    let grid = grid(3, None);
    check_steep_columns(&grid, mountains(&grid));
    for seed in 10..12 {
        check_steep_columns(&grid, random_mountains(&grid, seed));
    }
}

fn check_steep_columns(grid: &Grid, (vertical, terrain): (VerticalGrid, Terrain)) {
    let config = MetricsConfig::default();
    let m = MetricState::compute(grid, &terrain, &vertical, &config).expect("metrics");
    let implicit = f64s(&m, "vwind_impl_wgt");
    let explicit = f64s(&m, "vwind_expl_wgt");
    assert!(implicit.iter().all(|&w| (0.65..=1.25 + 1e-12).contains(&w)));
    assert!(
        implicit.iter().any(|&w| w > 0.65),
        "the mountains are steep somewhere"
    );
    for (i, e) in implicit.iter().zip(&explicit) {
        assert_eq!(*e, 1.0 - i);
    }
    let exfac = f64s(&m, "exner_exfac");
    assert!(exfac
        .iter()
        .all(|&x| (-1.0 / 6.0..=config.exner_expol).contains(&x)));
    assert!(exfac.iter().any(|&x| x < config.exner_expol));
    // Steep edges read other levels: some offsets point down the column, every one inside
    // it, none on the levels down to nflat_gradp (flat at every edge).
    let offsets = m.vertoffset_gradp.as_array();
    let nflat = m.nflat_gradp as usize;
    assert!(nflat < NLEV);
    assert!(offsets.iter().any(|&o| o > 0));
    for ((_, _, k), &o) in offsets.indexed_iter().map(|(i, o)| ((i[0], i[1], i[2]), o)) {
        assert!(
            (0..NLEV as i32).contains(&(k as i32 + o)),
            "offset {o} at level {k}"
        );
        if k <= nflat {
            assert_eq!(o, 0, "an offset at level {k} <= nflat_gradp {nflat}");
        }
    }
    // Below the higher cell's ground the edge's level lies lower: a negative distance.
    let pg_exdist = f64s(&m, "pg_exdist");
    assert!(pg_exdist.iter().all(|&d| d <= 0.0));
    assert!(pg_exdist.iter().any(|&d| d < 0.0));
}

#[test]
fn bad_input_is_refused() {
    let grid = grid(2, None);
    let (vertical, terrain) = mountains(&grid);
    let config = MetricsConfig::default();
    let expect_err = |result: Result<MetricState, Error>, what: &str| match result {
        Err(e) => eprintln!("{what}: {e}"),
        Ok(_) => panic!("{what}: accepted"),
    };
    let mut short = terrain.clone();
    short.z_ifc = terrain.z_ifc.slice(s![1.., ..]).to_owned();
    expect_err(
        MetricState::compute(&grid, &short, &vertical, &config),
        "too few columns",
    );
    let mut two_levels = vertical.clone();
    two_levels.nlev = 2;
    two_levels.vct_a.truncate(3);
    expect_err(
        MetricState::compute(&grid, &terrain, &two_levels, &config),
        "two levels",
    );
    let mut folded = terrain.clone();
    folded.z_ifc[[7, 5]] = folded.z_ifc[[7, 6]] - 1.0;
    expect_err(
        MetricState::compute(&grid, &folded, &vertical, &config),
        "a folded column",
    );
    let mut nan = terrain.clone();
    nan.z_ifc[[3, 3]] = f64::NAN;
    expect_err(MetricState::compute(&grid, &nan, &vertical, &config), "NaN");
    for bad in [
        MetricsConfig {
            igradp_method: 1,
            ..config.clone()
        },
        MetricsConfig {
            vwind_offctr: -0.1,
            ..config.clone()
        },
        MetricsConfig {
            divdamp_type: 32,
            divdamp_trans_end: 1.0,
            ..config.clone()
        },
    ] {
        expect_err(
            MetricState::compute(&grid, &terrain, &vertical, &bad),
            "a bad configuration",
        );
    }
}

#[test]
fn the_reference_atmosphere_is_in_balance_at_any_height() {
    use reference_atmosphere as ra;

    let sea = ra::at_full_level(0.0);
    assert!((ra::pressure(0.0) - ra::P0SL_BG).abs() < 1e-9);
    assert!((ra::temperature(0.0) - ra::T0SL_BG).abs() < 1e-12);
    assert!((sea.rho - ra::P0SL_BG / (287.04 * ra::T0SL_BG)).abs() < 1e-12);
    for z in [0.0, 1_000.0, 5_000.0, 15_000.0, 30_000.0] {
        // dπ/dz = -g / (c_pd θ), by central differences of the full-level exner.
        let dz = 0.5;
        let slope =
            (ra::at_full_level(z + dz).exner - ra::at_full_level(z - dz).exner) / (2.0 * dz);
        let (theta_ic, dexner_dz) = ra::at_half_level(z);
        assert!(
            (slope - dexner_dz).abs() < 1e-9 * dexner_dz.abs(),
            "{z}: {slope} {dexner_dz}"
        );
        assert!((theta_ic - ra::at_full_level(z).theta).abs() < 1e-9 * theta_ic);
        let (rho_e, theta_e) = ra::at_edge(z);
        assert!((rho_e - ra::at_full_level(z).rho).abs() < 1e-12 * rho_e);
        assert!((theta_e - theta_ic).abs() < 1e-9 * theta_e);
    }
    // A stable stratification: θ grows with height.
    assert!(ra::at_full_level(10_000.0).theta > ra::at_full_level(1_000.0).theta);
}

/// The time of `MetricState::compute` at R2B4 x 65 levels over the mountains (one thread).
#[test]
#[ignore = "a timing: cargo test --release -p gt4rs-stencils --test dycore_metrics -- --ignored --nocapture compute_time"]
fn compute_time_at_r2b4_by_65_levels() {
    let grid = IcosahedralGrid::generate(2, 4).expect("R2B4");
    let vertical = VerticalGrid::default_for(65).expect("valid");
    let terrain =
        Terrain::of_kind(TerrainKind::Mountains, &grid, &vertical).expect("the terrain builds");
    let config = MetricsConfig::default();
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let started = std::time::Instant::now();
        let m = MetricState::compute(&grid, &terrain, &vertical, &config).expect("metrics");
        best = best.min(started.elapsed().as_secs_f64());
        assert!(m.nflat_gradp > 0);
    }
    eprintln!(
        "MetricState::compute at R2B4 x 65: {best:.3} s (best of 3; {} cells, {} edges)",
        grid.num_cells, grid.num_edges
    );
}

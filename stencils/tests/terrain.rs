//! The mountain terrain, its SLEVE coordinate and the terrain-dependent metric fields of the
//! diffusion granule, checked against hand-written formulas, and the granule over mountains.

mod support;

use gt4rs::debug::DebugChecks;
use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, Zone};
use gt4rs::{Backend, Field, Options};
use gt4rs_stencils::diffusion::initial::{diffusion_over, jet_state_over, JetSpec};
use gt4rs_stencils::diffusion::metrics::{wgtfac_c_column, SlopeMeasures};
use gt4rs_stencils::diffusion::{
    connectivities, DiagnosticState, DiffusionConfig, InterpolationState, MetricState,
    PrognosticState, RunOptions, Terrain, TerrainKind, TurbulenceShearForcing, VerticalGrid,
    ZDiffusionFields,
};
use gt4rs_stencils::icon::dims::{Cell, K};
use gt4rs_stencils::icon::dsl::diffusion::truly_horizontal_diffusion_nabla_of_theta_over_steep_points as zdiffusion_program;
use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const NLEV: usize = 12;
const DTIME: f64 = 300.0;

fn grid() -> Grid {
    IcosahedralGrid::generate(2, 3).expect("R2B3 generates")
}

fn mountains(grid: &Grid) -> (VerticalGrid, Terrain) {
    let vertical = VerticalGrid::default_for(NLEV).expect("valid");
    let terrain =
        Terrain::of_kind(TerrainKind::Mountains, grid, &vertical).expect("the terrain builds");
    (vertical, terrain)
}

fn options(backend: Backend) -> RunOptions {
    RunOptions {
        backend,
        debug: DebugChecks::off(),
        trace: false,
    }
}

fn zdiffusion(grid: &Grid, terrain: &Terrain) -> ZDiffusionFields {
    MetricState::over_terrain(grid, terrain, &DiffusionConfig::default())
        .expect("metrics")
        .zdiffusion
        .expect("the mountains have steep points")
}

fn c2e2c(grid: &Grid) -> Array2<usize> {
    grid.table("C2E2C")
        .expect("C2E2C")
        .mapv(|n| usize::try_from(n).expect("a global grid has every neighbour"))
}

#[test]
fn sleve_columns_follow_the_ground_decrease_and_flatten() {
    let grid = grid();
    let (vertical, terrain) = mountains(&grid);
    let (z_ifc, z_mc) = (&terrain.z_ifc, &terrain.z_mc);
    assert_eq!(z_ifc.dim(), (grid.num_cells, NLEV + 1));
    let highest = terrain.topography.iter().copied().fold(0.0, f64::max);
    assert!(
        (2_000.0..=4_000.0).contains(&highest),
        "highest point {highest} m"
    );
    assert!(vertical.vct_a[terrain.nflatlev] >= 16_000.0);
    assert!(vertical.vct_a[terrain.nflatlev + 1] < 16_000.0);
    for c in 0..grid.num_cells {
        assert_eq!(z_ifc[[c, NLEV]], terrain.topography[c], "cell {c}: ground");
        for k in 0..NLEV {
            assert!(
                z_ifc[[c, k]] > z_ifc[[c, k + 1]],
                "cell {c}: half levels {k} and {} cross",
                k + 1
            );
            assert_eq!(z_mc[[c, k]], 0.5 * (z_ifc[[c, k]] + z_ifc[[c, k + 1]]));
        }
        for k in 0..=terrain.nflatlev {
            assert_eq!(z_ifc[[c, k]], vertical.vct_a[k], "cell {c}: flat level {k}");
        }
        // The terrain's imprint never exceeds the highest mountain.
        for k in 0..NLEV {
            assert!((z_ifc[[c, k]] - vertical.vct_a[k]).abs() <= highest + 1e-9);
        }
    }
    // Under the highest peak (where the ground is above its smoothed version) the imprint
    // shrinks with height.
    let peak = (0..grid.num_cells)
        .max_by(|&a, &b| terrain.topography[a].total_cmp(&terrain.topography[b]))
        .unwrap();
    let lift = |k: usize| z_ifc[[peak, k]] - vertical.vct_a[k];
    for k in 0..NLEV {
        assert!(
            lift(k) <= lift(k + 1),
            "level {k}: {} > {}",
            lift(k),
            lift(k + 1)
        );
    }
    let flat = Terrain::flat(grid.num_cells, &vertical);
    assert!(flat.topography.iter().all(|&h| h == 0.0));
    assert!(flat
        .z_ifc
        .rows()
        .into_iter()
        .all(|column| column.to_vec() == vertical.vct_a));
}

#[test]
fn slope_measures_are_the_largest_neighbour_differences() {
    let grid = grid();
    let (_, terrain) = mountains(&grid);
    let slopes = SlopeMeasures::of(&grid, &terrain).expect("slopes");
    let (c2e, e2c) = (grid.table("C2E").unwrap(), grid.table("E2C").unwrap());
    let neighbours = c2e2c(&grid);
    let g = &grid.geometry;
    for c in 0..grid.num_cells {
        for k in 0..NLEV {
            // The gradient of the full-level height across each edge, written out directly.
            let (mut slope, mut difference) = (0.0_f64, 0.0_f64);
            for &e in c2e.row(c) {
                let e = e as usize;
                let (c0, c1) = (e2c[[e, 0]] as usize, e2c[[e, 1]] as usize);
                let dz = (terrain.z_mc[[c1, k]] - terrain.z_mc[[c0, k]]).abs();
                slope = slope.max(dz / g.dual_edge_length[e]);
                difference = difference.max(dz);
            }
            // Heights of ~10 km are exact to ~1e-12 m; the two forms round differently.
            let close = |a: f64, b: f64, unit: f64| (a - b).abs() <= 1e-9 * unit;
            let slope_unit = 1.0 / g.dual_edge_length.iter().copied().fold(f64::MAX, f64::min);
            assert!(
                close(slopes.maxslp[[c, k]], slope, slope_unit),
                "maxslp [{c}, {k}]: {} vs {slope}",
                slopes.maxslp[[c, k]]
            );
            assert!(
                close(slopes.maxhgtd[[c, k]], difference, 1.0),
                "maxhgtd [{c}, {k}]: {} vs {difference}",
                slopes.maxhgtd[[c, k]]
            );
            let average = |f: &Array2<f64>| {
                0.5 * f[[c, k]] + neighbours.row(c).iter().map(|&n| f[[n, k]]).sum::<f64>() / 6.0
            };
            assert!(close(
                slopes.maxslp_avg[[c, k]],
                average(&slopes.maxslp),
                slope_unit
            ));
            assert!(close(
                slopes.maxhgtd_avg[[c, k]],
                average(&slopes.maxhgtd),
                1.0
            ));
        }
    }
}

#[test]
fn zdiffusion_reads_inside_columns_and_interpolates_to_the_points_height() {
    let grid = grid();
    let (_, terrain) = mountains(&grid);
    let zd = zdiffusion(&grid, &terrain);
    let (mask, offset, intcoef, diffcoef) = (
        zd.mask_hdiff.as_array(),
        zd.zd_vertoffset.as_array(),
        zd.zd_intcoef.as_array(),
        zd.zd_diffcoef.as_array(),
    );
    let neighbours = c2e2c(&grid);
    let z = &terrain.z_mc;
    for c in 0..grid.num_cells {
        for k in 0..NLEV {
            let steep = mask[[c, k]];
            let coef = diffcoef[[c, k]];
            assert!(
                (0.0..=0.002).contains(&coef),
                "zd_diffcoef [{c}, {k}] = {coef}"
            );
            if !steep {
                assert_eq!(coef, 0.0, "zd_diffcoef outside the mask at [{c}, {k}]");
            }
            for j in 0..3 {
                let upper = k as i64 + i64::from(offset[[c, j, k]]);
                assert!(
                    upper >= 0 && upper + 1 < NLEV as i64,
                    "[{c}, {j}, {k}]: levels {upper} and {} leave the column",
                    upper + 1
                );
                let w = intcoef[[c, j, k]];
                assert!((0.0..=1.0).contains(&w), "zd_intcoef [{c}, {j}, {k}] = {w}");
                if steep {
                    let n = neighbours[[c, j]];
                    let (u, l) = (upper as usize, upper as usize + 1);
                    let height = w * z[[n, u]] + (1.0 - w) * z[[n, l]];
                    assert!(
                        (height - z[[c, k]]).abs() < 1e-6,
                        "[{c}, {j}, {k}]: interpolated to {height} m, the point is at {} m",
                        z[[c, k]]
                    );
                }
            }
        }
    }
}

#[test]
fn mask_hdiff_is_exactly_where_icons_criteria_hold() {
    let grid = grid();
    let (_, terrain) = mountains(&grid);
    let config = DiffusionConfig::default();
    let (thslp, thhgtd) = (config.thslp_zdiffu, config.thhgtd_zdiffu);
    let zd = zdiffusion(&grid, &terrain);
    let slopes = SlopeMeasures::of(&grid, &terrain).expect("slopes");
    let neighbours = c2e2c(&grid);
    let z = &terrain.z_mc;
    let criteria = |c: usize, k: usize| {
        slopes.maxslp_avg[[c, k]] >= thslp || slopes.maxhgtd_avg[[c, k]] >= thhgtd
    };
    let start = grid.start(GridDim::Cell, Zone::Nudging).unwrap();
    let end = grid.end(GridDim::Cell, Zone::Local).unwrap();
    let mut steep_columns = 0;
    for c in 0..grid.num_cells {
        let nbh: Vec<usize> = neighbours.row(c).to_vec();
        let lowest_neighbour = nbh
            .iter()
            .map(|&n| z[[n, NLEV - 1]])
            .fold(f64::MIN, f64::max);
        let highest_neighbour = nbh.iter().map(|&n| z[[n, 0]]).fold(f64::MAX, f64::min);
        let first_steep = (0..NLEV).find(|&k| criteria(c, k));
        let mut any = false;
        for k in 0..NLEV {
            let expected = (start..end).contains(&c)
                && criteria(c, NLEV - 1)
                && first_steep.is_some_and(|first| k >= first)
                && z[[c, k]] >= lowest_neighbour
                && z[[c, k]] <= highest_neighbour;
            assert_eq!(
                zd.mask_hdiff.as_array()[[c, k]],
                expected,
                "cell {c}, level {k}"
            );
            any |= expected;
            if expected {
                let by_slope = (slopes.maxslp_avg[[c, k]] - thslp).max(0.0).sqrt() / 250.0;
                let by_height = 2e-4 * (slopes.maxhgtd_avg[[c, k]] - thhgtd).max(0.0).sqrt();
                let want = by_slope.max(by_height).min(0.002);
                assert!((zd.zd_diffcoef.as_array()[[c, k]] - want).abs() < 1e-15);
            }
        }
        steep_columns += usize::from(any);
    }
    assert!(steep_columns > 0);
    assert_eq!(zd.steep_columns(), steep_columns);
    assert!(zd.steep_points() >= steep_columns);
}

#[test]
fn flat_terrain_has_no_steep_points_and_the_flat_metrics() {
    let grid = grid();
    let vertical = VerticalGrid::default_for(NLEV).expect("valid");
    let flat = Terrain::flat(grid.num_cells, &vertical);
    let over_flat =
        MetricState::over_terrain(&grid, &flat, &DiffusionConfig::default()).expect("metrics");
    let reference = MetricState::flat(grid.num_cells, &vertical).expect("metrics");
    assert!(over_flat.zdiffusion.is_none());
    assert_eq!(over_flat, reference);
    // Over mountains, columns differ where the ground is high, and wgtfac_c and θ_ref follow.
    let (_, terrain) = mountains(&grid);
    let metric =
        MetricState::over_terrain(&grid, &terrain, &DiffusionConfig::default()).expect("metrics");
    let peak = (0..grid.num_cells)
        .max_by(|&a, &b| terrain.topography[a].total_cmp(&terrain.topography[b]))
        .unwrap();
    let wgtfac = wgtfac_c_column(&terrain.z_ifc.row(peak).to_vec()).expect("12 levels");
    assert!(wgtfac_c_column(&[2.0, 1.0]).is_err());
    for (k, &w) in wgtfac.iter().enumerate() {
        assert_eq!(metric.wgtfac_c.as_array()[[peak, k]], w);
    }
    for k in 1..NLEV {
        let zi = terrain.z_ifc.row(peak);
        let zm = terrain.z_mc.row(peak);
        // Linear interpolation in height of the full levels to half level k.
        let w = (zi[k] - zm[k - 1]) / (zm[k] - zm[k - 1]);
        assert!(
            (wgtfac[k] - w).abs() < 1e-12,
            "level {k}: {} vs {w}",
            wgtfac[k]
        );
    }
    let theta = VerticalGrid::reference_theta(terrain.z_mc[[peak, NLEV - 1]]);
    assert_eq!(metric.theta_ref_mc.as_array()[[peak, NLEV - 1]], theta);
    assert!(theta > reference.theta_ref_mc.as_array()[[peak, NLEV - 1]] + 1.0);
}

/// The truly horizontal term vanishes for a θ that depends on height only and linearly (the
/// neighbours are read at the point's height), but not for one that also varies horizontally.
#[test]
fn truly_horizontal_term_vanishes_for_theta_linear_in_height() {
    let grid = grid();
    let (_, terrain) = mountains(&grid);
    let zd = zdiffusion(&grid, &terrain);
    let interpolation = InterpolationState::from_grid(&grid, false, 0.1, 2.0).expect("coeffs");
    let program = zdiffusion_program::compile(
        &Options::new(Backend::Cpu).with_connectivities(connectivities(&grid).expect("tables")),
    )
    .expect("compiles");
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let z_temp_in =
        Array2::from_shape_fn((grid.num_cells, NLEV), |_| rng.random_range(-1e-13..1e-13));
    let run = |theta: Array2<f64>| -> Array2<f64> {
        let theta_v: Field<(Cell, K), f64> =
            Field::from_array_zero_origin(theta.into_dyn()).expect("field");
        let mut z_temp: Field<(Cell, K), f64> =
            Field::from_array_zero_origin(z_temp_in.clone().into_dyn()).expect("field");
        program
            .call(zdiffusion_program::Args {
                zd_vertoffset: &zd.zd_vertoffset,
                zd_diffcoef: &zd.zd_diffcoef,
                geofac_n2s_c: &interpolation.geofac_n2s_c,
                geofac_n2s_nbh: &interpolation.geofac_n2s_nbh,
                vcoef: &zd.zd_intcoef,
                theta_v: &theta_v,
                z_temp: &mut z_temp,
                horizontal_start: 0,
                horizontal_end: grid.num_cells as i32,
                vertical_start: 0,
                vertical_end: NLEV as i32,
            })
            .expect("runs");
        z_temp
            .as_array()
            .to_owned()
            .into_dimensionality()
            .expect("2-d")
    };
    let linear = terrain.z_mc.mapv(|z| 280.0 + 0.004 * z);
    let lon = |c: usize| {
        let p = grid.geometry.cell_center.row(c);
        p[1].atan2(p[0])
    };
    let varying = Array2::from_shape_fn((grid.num_cells, NLEV), |(c, k)| {
        linear[[c, k]] + 3.0 * (3.0 * lon(c)).sin()
    });
    let (after_linear, after_varying) = (run(linear), run(varying));
    let (mask, diffcoef) = (zd.mask_hdiff.as_array(), zd.zd_diffcoef.as_array());
    let (mut changed, mut diffused) = (0, 0);
    for c in 0..grid.num_cells {
        // The size of one term of the sum: zd_diffcoef · geofac · θ.
        let term = |coef: f64| coef * interpolation.geofac_n2s_c.as_array()[[c]].abs() * 300.0;
        for k in 0..NLEV {
            let before = z_temp_in[[c, k]];
            let linear_change = (after_linear[[c, k]] - before).abs();
            assert!(
                linear_change <= 1e-10 * term(0.002) + 1e-15 * before.abs(),
                "[{c}, {k}]: θ linear in height changed z_temp by {linear_change}"
            );
            if mask[[c, k]] && diffcoef[[c, k]] > 0.0 {
                diffused += 1;
                let change = (after_varying[[c, k]] - before).abs();
                changed += usize::from(change > 1e-6 * term(diffcoef[[c, k]]));
            } else {
                assert_eq!(after_varying[[c, k]], before, "[{c}, {k}] outside the mask");
            }
        }
    }
    assert!(
        diffused > 0 && changed * 10 >= diffused * 9,
        "{changed} of {diffused} steep points changed"
    );
}

fn run_granule(
    grid: &Grid,
    vertical: &VerticalGrid,
    terrain: &Terrain,
    config: &DiffusionConfig,
    backend: Backend,
    state: &mut PrognosticState,
    steps: usize,
) -> DiagnosticState {
    let (mut granule, _) =
        diffusion_over(grid, vertical, terrain, config.clone(), options(backend))
            .expect("granule initialises");
    assert_eq!(
        granule.zdiffusion_active(),
        config.apply_zdiffusion_t,
        "the mountains have steep points"
    );
    let nan = || {
        Field::<(Cell, K), f64>::filled(
            &[0..grid.num_cells as i64, 0..NLEV as i64 + 1],
            f64::NAN,
            Default::default(),
        )
        .expect("valid domain")
    };
    let mut diagnostic = DiagnosticState {
        hdef_ic: nan(),
        div_ic: nan(),
        dwdx: nan(),
        dwdy: nan(),
    };
    granule
        .initial_run(DTIME, state, &mut diagnostic)
        .expect("runs");
    for _ in 1..steps {
        granule.run(DTIME, state, &mut diagnostic).expect("runs");
    }
    diagnostic
}

#[test]
fn cpu_granule_equals_embedded_granule_over_mountains() {
    let grid = grid();
    let (vertical, terrain) = mountains(&grid);
    let config = DiffusionConfig {
        shear_type: TurbulenceShearForcing::VerticalHorizontalOfHorizontalVerticalWind,
        ..DiffusionConfig::default()
    };
    let initial = jet_state_over(&grid, &vertical, &terrain, &JetSpec::default()).expect("state");
    let (mut cpu, mut embedded) = (initial.clone(), initial);
    let cpu_diag = run_granule(
        &grid,
        &vertical,
        &terrain,
        &config,
        Backend::Cpu,
        &mut cpu,
        4,
    );
    let embedded_diag = run_granule(
        &grid,
        &vertical,
        &terrain,
        &config,
        Backend::Embedded,
        &mut embedded,
        4,
    );
    support::granule::assert_cpu_equals_embedded((&cpu, &cpu_diag), (&embedded, &embedded_diag));
}

#[test]
fn constant_fields_stay_constant_over_mountains() {
    let grid = grid();
    let (vertical, terrain) = mountains(&grid);
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
    run_granule(
        &grid,
        &vertical,
        &terrain,
        &DiffusionConfig::default(),
        Backend::Cpu,
        &mut state,
        4,
    );
    fn max_change<D: gt4rs::Dims>(a: &Field<D, f64>, b: &Field<D, f64>) -> f64 {
        (&a.as_array() - &b.as_array())
            .iter()
            .fold(0.0_f64, |m, d| m.max(d.abs()))
    }
    assert!(max_change(&state.vn, &before.vn) <= 1e-14);
    assert!(max_change(&state.w, &before.w) <= 1e-13);
    assert!(max_change(&state.theta_v, &before.theta_v) <= 1e-10);
    assert!(max_change(&state.exner, &before.exner) <= 1e-13);
}

/// One step with and without `apply_zdiffusion_t` from the same state: θ_v and exner differ
/// exactly at the steep points, and vn and w not at all.
#[test]
fn zdiffusion_changes_theta_exactly_at_steep_points() {
    let grid = grid();
    let (vertical, terrain) = mountains(&grid);
    let initial = jet_state_over(&grid, &vertical, &terrain, &JetSpec::default()).expect("state");
    let with = DiffusionConfig::default();
    let without = DiffusionConfig {
        apply_zdiffusion_t: false,
        ..DiffusionConfig::default()
    };
    let (mut on, mut off) = (initial.clone(), initial);
    run_granule(&grid, &vertical, &terrain, &with, Backend::Cpu, &mut on, 1);
    run_granule(
        &grid,
        &vertical,
        &terrain,
        &without,
        Backend::Cpu,
        &mut off,
        1,
    );
    assert_eq!(on.vn, off.vn);
    assert_eq!(on.w, off.w);
    let zd = zdiffusion(&grid, &terrain);
    let mask = zd.mask_hdiff.as_array();
    let (theta_on, theta_off) = (on.theta_v.as_array(), off.theta_v.as_array());
    let (mut steep, mut changed) = (0, 0);
    for c in 0..grid.num_cells {
        for k in 0..NLEV {
            let differ = theta_on[[c, k]] != theta_off[[c, k]];
            if mask[[c, k]] {
                steep += 1;
                changed += usize::from(differ && zd.zd_diffcoef.as_array()[[c, k]] > 0.0);
            } else {
                assert!(!differ, "θ_v changed off the mask at [{c}, {k}]");
                assert_eq!(on.exner.as_array()[[c, k]], off.exner.as_array()[[c, k]]);
            }
        }
    }
    let positive = zd
        .zd_diffcoef
        .as_array()
        .iter()
        .filter(|&&d| d > 0.0)
        .count();
    assert!(
        steep > 0 && changed == positive,
        "{changed} of {positive} changed"
    );
}

/// A limited-area grid around the Alps: boundary cells lack neighbours, the steep points lie in
/// the interior, and the granule runs with them.
#[test]
fn limited_area_grid_over_the_alps_runs_with_steep_points() {
    let global = IcosahedralGrid::generate(2, 4).expect("R2B4 generates");
    let grid = global
        .regional(gt4rs::grid::RegionSpec {
            center_lat_deg: 46.8,
            center_lon_deg: 8.2,
            radius: 1.5e6,
        })
        .expect("regional cut");
    let (vertical, terrain) = mountains(&grid);
    let zd = zdiffusion(&grid, &terrain);
    assert!(zd.steep_columns() > 0);
    let start = grid.start(GridDim::Cell, Zone::Nudging).unwrap();
    let end = grid.end(GridDim::Cell, Zone::Local).unwrap();
    let mask = zd.mask_hdiff.as_array();
    for c in (0..start).chain(end..grid.num_cells) {
        assert!(
            (0..NLEV).all(|k| !mask[[c, k]]),
            "cell {c} outside the diffused rows is steep"
        );
    }
    let mut state = jet_state_over(&grid, &vertical, &terrain, &JetSpec::default()).expect("state");
    let before = state.theta_v.clone();
    run_granule(
        &grid,
        &vertical,
        &terrain,
        &DiffusionConfig::default(),
        Backend::Cpu,
        &mut state,
        2,
    );
    assert!(state.theta_v.as_array().iter().all(|v| v.is_finite()));
    assert!(state.vn.as_array().iter().all(|v| v.is_finite()));
    assert_ne!(state.theta_v, before);
}

/// `gt4rs run diffusion --terrain flat|mountains`: the summary names the terrain and its steep
/// points; an unknown terrain is refused with the choices.
#[test]
fn cli_runs_the_job_over_the_chosen_terrain() {
    let out = std::env::temp_dir().join(format!("gt4rs-terrain-cli-{}", std::process::id()));
    let run = |terrain: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_gt4rs"))
            .args([
                "run",
                "diffusion",
                "--grid",
                "r2b2",
                "--levels",
                "8",
                "--steps",
                "1",
            ])
            .args(["--terrain", terrain, "--out"])
            .arg(&out)
            .output()
            .expect("the binary starts")
    };
    let flat = run("flat");
    let text = String::from_utf8_lossy(&flat.stdout);
    assert!(flat.status.success(), "{text}");
    assert!(
        text.contains("terrain flat (highest point 0 m): 0 steep columns"),
        "{text}"
    );
    let mountains = run("mountains");
    let text = String::from_utf8_lossy(&mountains.stdout);
    assert!(mountains.status.success(), "{text}");
    assert!(
        text.contains("terrain mountains") && text.contains("z-diffusion of θ: on"),
        "{text}"
    );
    let unknown = run("hills");
    assert!(!unknown.status.success());
    let message = String::from_utf8_lossy(&unknown.stderr);
    assert!(message.contains("flat or mountains"), "{message}");
    let _ = std::fs::remove_dir_all(out);
}

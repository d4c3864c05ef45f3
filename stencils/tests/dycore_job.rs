//! The dynamical core's main job on a small grid: the solver keeps an atmosphere at rest at
//! rest, keeps the balanced solid-body rotation nearly steady over flat ground, and makes
//! mountain waves where the wind crosses the mountains.

use gt4rs::Error;
use gt4rs_stencils::diffusion::TerrainKind;
use gt4rs_stencils::dycore::initial::RotatingAtmosphere;
use gt4rs_stencils::dycore::job::{self, JobReport, JobSpec};

/// R2B2 (1,280 cells) × 12 levels, 2 model steps of 5 substeps of 120 s, no pictures.
fn small_run(terrain: TerrainKind, u0: f64) -> Result<JobReport, Error> {
    job::run(&JobSpec {
        grid: "r2b2".into(),
        levels: 12,
        steps: 2,
        substeps: 5,
        dtime: 600.0,
        out: None,
        progress_bar: false,
        terrain,
        atmosphere: RotatingAtmosphere {
            u0,
            ..RotatingAtmosphere::default()
        },
        ..JobSpec::default()
    })
}

#[test]
fn an_atmosphere_at_rest_over_flat_ground_stays_at_rest() -> Result<(), Error> {
    let report = small_run(TerrainKind::Flat, 0.0)?;
    // The initial state is in the solver's discrete hydrostatic balance and horizontally
    // uniform: every tendency is zero up to rounding of O(1) values.
    let (w, vn) = (report.max_w[2], report.max_vn_change[2]);
    assert!(w < 1e-9 && vn < 1e-9, "|w| {w:e} m/s, |Δvn| {vn:e} m/s");
    Ok(())
}

#[test]
fn the_balanced_solid_body_rotation_stays_nearly_steady_over_flat_ground() -> Result<(), Error> {
    let report = small_run(TerrainKind::Flat, 20.0)?;
    // A steady solution of the continuous equations: what changes is the discretisation error
    // (measured 0.023 m/s of vn and 5e-5 m/s of w after 20 minutes). A Coriolis or vorticity
    // term of the wrong sign leaves the flow unbalanced by 2fu, about 3.6 m/s in that time.
    let (w, vn) = (report.max_w[2], report.max_vn_change[2]);
    assert!(vn < 0.1 && w < 1e-3, "|w| {w:e} m/s, |Δvn| {vn:e} m/s");
    Ok(())
}

#[test]
fn the_wind_over_the_mountains_makes_waves_and_a_resting_atmosphere_stays_nearly_at_rest(
) -> Result<(), Error> {
    let flat = small_run(TerrainKind::Flat, 20.0)?;
    let windy = small_run(TerrainKind::Mountains, 20.0)?;
    let resting = small_run(TerrainKind::Mountains, 0.0)?;
    // Forced up the mountains, the flow gets vertical motion far beyond the flat case's
    // (measured 0.037 against 5e-5 m/s).
    let (w_flat, w_mountains) = (flat.max_w[2], windy.max_w[2]);
    assert!(
        w_mountains.is_finite() && w_mountains > 100.0 * w_flat && w_mountains < 1.0,
        "|w| over mountains {w_mountains:e} m/s, over flat ground {w_flat:e} m/s"
    );
    // At rest over the mountains, only the error of the pressure gradient along sloping
    // levels moves the air (measured 0.047 m/s of vn after 20 minutes).
    let spurious = resting.max_vn_change[2];
    assert!(spurious < 0.1, "spurious wind {spurious:e} m/s");
    Ok(())
}

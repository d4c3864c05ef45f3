//! `gt4rs grid info`: build a grid, print its sizes, zones and geometry statistics, and run
//! the consistency checks.

use crate::cli::stdout::{out, outln};
use std::fmt::Write as _;
use std::time::Instant;

use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, RegionSpec, Zone};
use gt4rs::Error;

/// What to build: `rNbK` (e.g. `r2b4`), `torus:NXxNY`, a `.npz` file written by gt4rs, or
/// (feature `netcdf`) an ICON grid file `.nc`.
pub fn build(spec: &str) -> Result<Grid, Error> {
    let lower = spec.to_ascii_lowercase();
    if lower.ends_with(".npz") {
        return Grid::read_npz(spec);
    }
    if lower.ends_with(".nc") {
        #[cfg(feature = "netcdf")]
        return gt4rs::grid::netcdf::read_icon_grid(spec);
        #[cfg(not(feature = "netcdf"))]
        return Err(Error::Config(format!(
            "`{spec}`: reading ICON grid files needs gt4rs built with the `netcdf` feature"
        )));
    }
    if let Some(size) = lower.strip_prefix("torus:") {
        let (nx, ny) = size
            .split_once('x')
            .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
            .ok_or_else(|| {
                Error::Config(format!("`{spec}`: expected torus:NXxNY, e.g. torus:32x32"))
            })?;
        return Grid::torus(nx, ny, 1000.0);
    }
    let parsed = lower
        .strip_prefix('r')
        .and_then(|rest| rest.split_once('b'))
        .and_then(|(root, bis)| Some((root.parse().ok()?, bis.parse().ok()?)));
    let (root, bisections) = parsed.ok_or_else(|| {
        Error::Config(format!(
            "`{spec}` is not a grid: use rNbK (e.g. r2b4), torus:NXxNY or a .npz file"
        ))
    })?;
    IcosahedralGrid::generate(root, bisections)
}

fn stats(values: impl Iterator<Item = f64>) -> (f64, f64, f64) {
    let (mut min, mut max, mut sum, mut n) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0usize);
    for v in values {
        min = min.min(v);
        max = max.max(v);
        sum += v;
        n += 1;
    }
    (min, max, sum / n.max(1) as f64)
}

/// The report `gt4rs grid info` prints.
pub fn describe(grid: &Grid) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "grid {}", grid.kind.label());
    let _ = writeln!(
        w,
        "  cells {}, edges {}, vertices {}",
        grid.num_cells, grid.num_edges, grid.num_vertices
    );
    let _ = writeln!(w, "zones [start, end):");
    for dim in GridDim::ALL {
        let mut line = format!("  {:<7}", dim.name());
        for zone in Zone::ALL {
            if let (Ok(s), Ok(e)) = (grid.start(dim, zone), grid.end(dim, zone)) {
                let name = zone.name().replace("LATERAL_BOUNDARY_LEVEL_", "LB");
                let _ = write!(line, " {name} [{s}, {e})");
            }
        }
        let _ = writeln!(w, "{line}");
    }
    let g = &grid.geometry;
    let mut row = |name: &str, unit: &str, v: (f64, f64, f64)| {
        let _ = writeln!(
            w,
            "  {name:<18} min {:.6e} max {:.6e} mean {:.6e} {unit}",
            v.0, v.1, v.2
        );
    };
    row(
        "edge length",
        "m",
        stats(g.primal_edge_length.iter().copied()),
    );
    row(
        "dual edge length",
        "m",
        stats(g.dual_edge_length.iter().copied()),
    );
    row("cell area", "m^2", stats(g.cell_area.iter().copied()));
    row("dual area", "m^2", stats(g.dual_area.iter().copied()));
    out
}

/// Runs `gt4rs grid info`; returns whether every check passed.
pub fn info(spec: &str, region: Option<RegionSpec>, npz_out: Option<&str>) -> Result<bool, Error> {
    let started = Instant::now();
    let mut grid = build(spec)?;
    let built = started.elapsed();
    if let Some(region) = region {
        grid = grid.regional(region)?;
    }
    out!("{}", describe(&grid));
    outln!(
        "built in {:.3} s (cut and geometry included: {:.3} s)",
        built.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    let report = grid.check();
    outln!("checks:");
    out!("{report}");
    if let Some(path) = npz_out {
        grid.write_npz(path)?;
        outln!("written to {path}");
    }
    Ok(report.is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_names_are_parsed() {
        let grid = build("R1B1").unwrap();
        assert_eq!(
            (grid.num_cells, grid.num_edges, grid.num_vertices),
            (80, 120, 42)
        );
        let torus = build("torus:4x4").unwrap();
        assert_eq!(torus.num_cells, 32);
        for bad in ["r2", "b4", "r2bx", "torus:4", "torus:ax4", "hello"] {
            assert!(build(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn description_lists_sizes_zones_and_statistics() {
        let grid = build("r2b2").unwrap();
        let text = describe(&grid);
        assert!(
            text.contains("cells 1280, edges 1920, vertices 642"),
            "{text}"
        );
        assert!(text.contains("INTERIOR [0, 1280)"), "{text}");
        assert!(text.contains("edge length"), "{text}");
        let lam = grid
            .regional(RegionSpec {
                center_lat_deg: 10.0,
                center_lon_deg: 20.0,
                radius: 4.0e6,
            })
            .unwrap();
        assert!(describe(&lam).contains("LB1 [0, "));
    }
}

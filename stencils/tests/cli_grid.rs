//! `gt4rs grid info` as a user runs it: negative coordinates, a grid written with `--npz` and
//! read back, a file that is no grid, and (feature `netcdf`) an ICON grid file.

use std::process::{Command, Stdio};

fn gt4rs(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gt4rs"))
        .args(args)
        .output()
        .expect("the gt4rs binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn a_region_west_and_south_of_the_origin_is_accepted() {
    let (ok, text) = gt4rs(&[
        "grid",
        "info",
        "r2b3",
        "--regional",
        "--center-lon",
        "-18",
        "--center-lat",
        "-10",
        "--radius-km",
        "2500",
    ]);
    assert!(ok, "{text}");
    assert!(text.contains("checks:"), "{text}");
}

#[test]
fn a_written_grid_reads_back_and_a_stray_file_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("r2b2.npz");
    let path = path.to_str().expect("utf-8 path");
    let (ok, text) = gt4rs(&["grid", "info", "r2b2", "--npz", path]);
    assert!(ok, "{text}");
    let (ok, text) = gt4rs(&["grid", "info", path]);
    assert!(ok, "{text}");
    assert!(
        text.contains("cells 1280, edges 1920, vertices 642"),
        "{text}"
    );
    let stray = dir.path().join("stray.npz");
    let mut npz = ndarray_npy::NpzWriter::new(std::fs::File::create(&stray).expect("writable"));
    npz.add_array("something", &ndarray::Array1::<f64>::zeros(3))
        .expect("writable");
    npz.finish().expect("writable");
    let (ok, text) = gt4rs(&["grid", "info", stray.to_str().expect("utf-8 path")]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("`num_cells`") && text.contains("grid_meta"),
        "{text}"
    );
}

/// An ICON NetCDF grid file, written by `gt4rs::grid::netcdf`, read by the command (feature
/// `netcdf`; `.ci/run` runs it).
#[cfg(feature = "netcdf")]
#[test]
fn an_icon_grid_file_is_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("r2b2.nc");
    let grid = gt4rs::grid::IcosahedralGrid::generate(2, 2).expect("r2b2");
    gt4rs::grid::netcdf::write_icon_grid(&grid, &path).expect("writes");
    let (ok, text) = gt4rs(&["grid", "info", path.to_str().expect("utf-8 path")]);
    assert!(ok, "{text}");
    assert!(
        text.contains("cells 1280, edges 1920, vertices 642"),
        "{text}"
    );
}

/// `gt4rs grid info … | head`: a reader that has closed the pipe before the first line ends
/// the command quietly (status 0, nothing on stderr); `print!` used to panic there.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gt4rs"))
        .args(["grid", "info", "r2b0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gt4rs binary runs");
    // Closing the read end before the grid is built: every write then fails.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("it ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(stderr.is_empty(), "{stderr}");
}

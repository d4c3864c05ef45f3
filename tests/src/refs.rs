//! Where the ICON4Py reference data lies: the repository's `refs/icon4py`, or the folder named
//! by `GT4RS_REFS` to check against other recordings.
//!
//! gt4rs's own unit tests compile this file too (gt4rs-tests depends on gt4rs, so they cannot
//! depend on it): it uses only std, and every crate that compiles it sits one level below the
//! repository root.

use std::path::PathBuf;

/// The environment variable that overrides the folder of reference data.
pub const REFS_VAR: &str = "GT4RS_REFS";

/// The folder of ICON4Py reference data: `$GT4RS_REFS`, else the repository's `refs/icon4py`.
///
/// # Panics
/// If the folder does not exist: the data is part of the repository, so a test that needs it
/// fails rather than passing without having checked anything.
pub fn icon4py_refs() -> PathBuf {
    match std::env::var_os(REFS_VAR) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(dir.is_dir(), "{REFS_VAR}={} is not a folder", dir.display());
            dir
        }
        None => {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../refs/icon4py");
            assert!(
                dir.is_dir(),
                "the repository's reference data {} is missing",
                dir.display()
            );
            dir
        }
    }
}

/// The reference file `NAME.npz` in [`icon4py_refs`].
///
/// # Panics
/// If the folder or the file does not exist.
pub fn icon4py_ref(name: &str) -> PathBuf {
    let path = icon4py_refs().join(format!("{name}.npz"));
    assert!(
        path.is_file(),
        "no reference file {} (the repository's refs/icon4py has every file the tests read)",
        path.display()
    );
    path
}

/// The `.npz` files directly in `dir`, sorted by path.
///
/// # Panics
/// If `dir` cannot be read.
pub fn npz_files_in(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "npz"))
        .collect();
    files.sort();
    files
}

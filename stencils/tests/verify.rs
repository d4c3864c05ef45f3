//! `gt4rs verify` on ICON4Py's reference files and on damaged copies of them.

use std::path::{Path, PathBuf};

use gt4rs::Backend;
use gt4rs_stencils::cli::verify::{verify_file, FileOutcome};
use gt4rs_tests::refs::{icon4py_ref, icon4py_refs, npz_files_in};
use ndarray::ArrayD;
use ndarray_npy::{NpzReader, NpzWriter};

fn reference_files() -> Vec<PathBuf> {
    npz_files_in(&icon4py_refs())
}

#[test]
fn every_reference_file_passes_on_both_cpu_backends() {
    let files = reference_files();
    assert!(!files.is_empty(), "no .npz in {}", icon4py_refs().display());
    for backend in [Backend::Embedded, Backend::Cpu] {
        for file in &files {
            match verify_file(file, backend, 1e-12) {
                FileOutcome::Checked { outputs, .. } => {
                    for o in &outputs {
                        assert!(
                            o.pass && o.max_rel < 1e-12,
                            "{backend:?} {}: {o:?}",
                            file.display()
                        );
                    }
                }
                FileOutcome::Unrunnable(why) => panic!("{backend:?} {}: {why}", file.display()),
            }
        }
    }
}

/// Copies the archive `from` to `to` (no sidecar), letting `edit` change the arrays.
fn rewrite(from: &Path, to: &Path, edit: impl Fn(&str, ArrayD<f64>) -> Option<ArrayD<f64>>) {
    let mut reader = NpzReader::new(std::fs::File::open(from).expect("open")).expect("npz");
    let names = reader.names().expect("names");
    let mut writer = NpzWriter::new(std::fs::File::create(to).expect("create"));
    for name in names {
        let key = name.trim_end_matches(".npy").to_string();
        if let Ok(a) = reader.by_name::<ndarray::OwnedRepr<f64>, ndarray::IxDyn>(&name) {
            if let Some(a) = edit(&key, a) {
                writer.add_array(key.as_str(), &a).expect("write");
            }
        } else if let Ok(a) = reader.by_name::<ndarray::OwnedRepr<i32>, ndarray::IxDyn>(&name) {
            writer.add_array(key.as_str(), &a).expect("write");
        } else if let Ok(a) = reader.by_name::<ndarray::OwnedRepr<bool>, ndarray::IxDyn>(&name) {
            writer.add_array(key.as_str(), &a).expect("write");
        }
    }
    writer.finish().expect("finish");
}

#[test]
fn damaged_files_get_one_clear_message_and_wrong_results_fail() {
    let source = icon4py_ref("calculate_nabla4");
    let tmp = std::env::temp_dir().join(format!("gt4rs-verify-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");

    let unknown = tmp.join("no_such_program.npz");
    rewrite(&source, &unknown, |_, a| Some(a));
    match verify_file(&unknown, Backend::Cpu, 1e-12) {
        FileOutcome::Unrunnable(why) => {
            assert!(why.contains("unknown program `no_such_program`"), "{why}")
        }
        other => panic!("{other:?}"),
    }

    let missing = tmp.join("calculate_nabla4.npz");
    rewrite(&source, &missing, |name, a| (name != "u_vert").then_some(a));
    match verify_file(&missing, Backend::Cpu, 1e-12) {
        FileOutcome::Unrunnable(why) => assert!(why.contains("u_vert"), "{why}"),
        other => panic!("{other:?}"),
    }

    let variant = tmp.join("calculate_nabla4__perturbed.npz");
    rewrite(&source, &variant, |name, a| {
        Some(if name == "out__z_nabla4_e2" {
            a.mapv(|v| v * (1.0 + 1e-9))
        } else {
            a
        })
    });
    match verify_file(&variant, Backend::Embedded, 1e-12) {
        FileOutcome::Checked { program, outputs } => {
            assert_eq!(
                program, "calculate_nabla4",
                "the __VARIANT suffix is ignored"
            );
            assert!(
                !outputs[0].pass && outputs[0].max_rel > 1e-10,
                "{outputs:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_dir_all(tmp);
}

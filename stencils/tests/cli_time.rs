//! `gt4rs time` as a user runs it: threads from RAYON_NUM_THREADS, the outputs and the report
//! written, and a bad request refused with a message.

use std::process::Command;

use gt4rs_tests::refs::icon4py_ref;

fn gt4rs(args: &[&str], threads: &str) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gt4rs"))
        .args(args)
        .env("RAYON_NUM_THREADS", threads)
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
fn times_a_recorded_call_on_the_threads_asked_for() {
    let dir = tempfile::tempdir().expect("temp dir");
    let inputs = icon4py_ref("calculate_nabla4");
    let (out, report) = (dir.path().join("out.npz"), dir.path().join("t.json"));
    for threads in ["1", "2"] {
        let (ok, text) = gt4rs(
            &[
                "time",
                "calculate_nabla4",
                "--inputs",
                inputs.to_str().expect("utf-8 path"),
                "--calls",
                "5",
                "--out",
                out.to_str().expect("utf-8 path"),
                "--report",
                report.to_str().expect("utf-8 path"),
            ],
            threads,
        );
        assert!(ok, "{text}");
        assert!(
            text.contains("5 calls: median") && text.contains(&format!("{threads} threads")),
            "{text}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
        assert_eq!(json["threads"].as_u64(), threads.parse().ok(), "{json}");
        assert_eq!(json["calls_ms"].as_array().map(Vec::len), Some(5), "{json}");
        assert!(out.is_file());
    }
}

#[test]
fn a_missing_file_or_another_programs_call_is_refused() {
    let inputs = icon4py_ref("calculate_nabla4");
    let inputs = inputs.to_str().expect("utf-8 path");
    let (ok, text) = gt4rs(&["time", "apply_diffusion_to_vn", "--inputs", inputs], "1");
    assert!(!ok);
    assert!(text.contains("not of `apply_diffusion_to_vn`"), "{text}");
    let (ok, text) = gt4rs(
        &["time", "calculate_nabla4", "--inputs", "/no/such/file.npz"],
        "1",
    );
    assert!(!ok);
    assert!(text.contains("/no/such/file.npz"), "{text}");
}

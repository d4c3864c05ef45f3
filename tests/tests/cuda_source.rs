//! The CUDA emitter without a GPU: snapshots of the generated source, structural checks (balanced
//! delimiters, every kernel defined, C parameter structs field for field equal to their Rust
//! twins), and, where `g++` exists, a syntax and layout check of the source compiled as C++
//! against a small shim of the CUDA built-ins.
//!
//! Re-bless snapshots with `GT4RS_BLESS=1 cargo test -p gt4rs-tests --test cuda_source`.

use std::path::{Path, PathBuf};
use std::process::Command;

use gt4rs::__private::cuda_source::{FieldRole, Translation};
use gt4rs::Field;
use gt4rs_tests::cuda_host::{gxx_available, host_source};

gt4rs::dimensions! {
    pub Cell, Edge, Vertex, I, J: horizontal;
    pub K: vertical;
}
gt4rs::offsets! {
    // Both as `tests/build.rs` declares them: the cases put -1 in their tables.
    pub E2C: Edge => Cell [2] with skip_values;
    pub E2C2V: Edge => Vertex [4] with skip_values;
    // The sparse output of `sparse_gather`.
    pub C2E: Cell => Edge [3];
}

include!(concat!(env!("OUT_DIR"), "/cpu_programs.rs"));

fn programs() -> Vec<Translation> {
    vec![
        calculate_nabla4::cuda::translation(),
        laplacian::cuda::translation(),
        reductions::cuda::translation(),
        concat_select::cuda::translation(),
        scans::cuda::translation(),
        dynamic_and_domains::cuda::translation(),
        sparse_gather::cuda::translation(),
    ]
}

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/cuda")
}

#[test]
fn every_program_translates() {
    for p in programs() {
        assert_eq!(p.kernels.err(), None, "{}", p.name);
        assert!(!p.kernels().is_empty(), "{}: no kernels", p.name);
    }
}

/// The prelude every generated source starts with; snapshots hold only what follows it.
const PRELUDE: &str = include_str!("../../macros/src/codegen/cuda/prelude.cuh");

fn without_prelude(name: &str, source: &str) -> String {
    assert!(
        source.contains(PRELUDE),
        "{name}: the generated source lacks the prelude"
    );
    source.replacen(
        PRELUDE,
        "// (the gt4rs CUDA prelude: macros/src/codegen/cuda/prelude.cuh)\n",
        1,
    )
}

#[test]
fn sources_match_snapshots() {
    let bless = std::env::var_os("GT4RS_BLESS").is_some();
    let mut mismatched = Vec::new();
    for p in programs() {
        let path = snapshot_dir().join(format!("{}.cu", p.name));
        if bless {
            std::fs::create_dir_all(snapshot_dir()).expect("snapshot dir is writable");
            std::fs::write(&path, without_prelude(p.name, p.source)).expect("snapshot is writable");
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (bless with GT4RS_BLESS=1)", path.display()));
        if expected != without_prelude(p.name, p.source) {
            mismatched.push(p.name);
        }
    }
    assert!(
        mismatched.is_empty(),
        "generated CUDA differs from the snapshot for {mismatched:?} (GT4RS_BLESS=1 to accept)"
    );
}

#[test]
fn delimiters_balance() {
    for p in programs() {
        let mut stack = Vec::new();
        for (line_no, line) in p.source.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for c in code.chars() {
                match c {
                    '{' | '(' | '[' => stack.push(c),
                    '}' | ')' | ']' => {
                        let open = stack.pop();
                        let want = match c {
                            '}' => '{',
                            ')' => '(',
                            _ => '[',
                        };
                        assert_eq!(
                            open,
                            Some(want),
                            "{} line {}: `{line}`",
                            p.name,
                            line_no + 1
                        );
                    }
                    _ => {}
                }
            }
        }
        assert!(stack.is_empty(), "{}: unclosed {stack:?}", p.name);
    }
}

/// The fields of `struct NAME_params { … };` as written in the source.
fn c_struct_fields(source: &str, kernel: &str) -> Vec<(String, String)> {
    let head = format!("struct {kernel}_params {{");
    let start = source.find(&head).unwrap_or_else(|| panic!("no {head}")) + head.len();
    let end = start + source[start..].find("};").expect("struct closes");
    source[start..end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let l = l.trim_end_matches(';');
            let (ty, name) = l.rsplit_once(' ').expect("`type name;`");
            (ty.to_string(), name.to_string())
        })
        .collect()
}

#[test]
fn kernels_and_param_structs_agree_with_metadata() {
    for p in programs() {
        for (i, k) in p.kernels().iter().enumerate() {
            assert_eq!(k.stage, i);
            let def = format!(
                "extern \"C\" __global__ void __launch_bounds__(GT4RS_BLOCK_SIZE) {}(const {}_params p)",
                k.name, k.name
            );
            assert_eq!(p.source.matches(&def).count(), 1, "{}: {def}", p.name);
            let fields = c_struct_fields(p.source, &k.name);
            let meta: Vec<(String, String)> = k
                .fields
                .iter()
                .map(|f| (f.ty.c_decl(), f.name.clone()))
                .collect();
            assert_eq!(fields, meta, "{}: C struct vs metadata", k.name);
            // Rust offsets increase in declaration order and the struct has no padding.
            let mut expected: usize = 0;
            for f in &k.fields {
                let size = f.ty.size();
                expected = expected.next_multiple_of(size);
                assert_eq!(f.offset, expected, "{}.{}", k.name, f.name);
                expected += size;
            }
            assert_eq!(k.size, expected.next_multiple_of(8), "{}", k.name);
            let names: std::collections::BTreeSet<_> = k.fields.iter().map(|f| &f.name).collect();
            assert_eq!(names.len(), k.fields.len(), "{}: duplicate fields", k.name);
            assert!(k.fields.iter().any(|f| f.name == "error"));
        }
    }
}

#[test]
fn nabla4_kernel_reads_inputs_through_restrict_pointers_and_walks_a_k_block() {
    let nabla4 = calculate_nabla4::cuda::translation();
    let k = &nabla4.kernels()[0];
    assert!(!k.scan);
    assert!(k
        .fields
        .iter()
        .any(|f| f.ty.c_decl() == "const double* __restrict__"));
    assert!(calculate_nabla4::cuda::SOURCE.contains("#pragma unroll"));
    assert!(calculate_nabla4::cuda::SOURCE.contains("kk < GT4RS_K_BLOCK"));
    let scans = scans::cuda::translation();
    assert!(scans.kernels().iter().any(|k| k.scan));
    assert!(k.grid(1000, 80, 128, 8) == (8, 10));
}

#[test]
fn sources_compile_as_cpp_with_a_cuda_shim() {
    if !gxx_available() {
        eprintln!("skipped: no g++ on this machine");
        return;
    }
    let dir = tempfile_dir();
    for p in programs() {
        // The shim, the source, a size and offset check of every parameter struct, the runners.
        let text = host_source(p.source, p.kernels());
        let file = dir.join(format!("{}.cpp", p.name));
        std::fs::write(&file, &text).expect("temp file is writable");
        // Once as launched with run-time values, once with static arguments and domain bounds
        // fixed at compile() (the `constexpr` branches).
        let mut fixed = Vec::new();
        for k in p.kernels() {
            for f in &k.fields {
                match f.role {
                    FieldRole::Scalar { param } => {
                        fixed.push(format!("-DGT4RS_STATIC_S{param}=1"));
                    }
                    FieldRole::Bound { dim, end } => fixed.push(format!(
                        "-DGT4RS_S{}_D{dim}_{}={}",
                        k.stage,
                        if end { "HI" } else { "LO" },
                        if end { 4 } else { 1 }
                    )),
                    _ => {}
                }
            }
        }
        fixed.sort();
        fixed.dedup();
        for defines in [Vec::new(), fixed] {
            // `-Wall` warns on unused variables too: the kernels declare only what they use, as
            // NVRTC warns on the rest (#177, #550).
            let out = Command::new("g++")
                .args([
                    "-std=c++17",
                    "-fsyntax-only",
                    "-Wall",
                    "-Wno-unknown-pragmas",
                ])
                .args(&defines)
                .arg(&file)
                .output()
                .expect("g++ runs");
            assert!(
                out.status.success() && out.stderr.is_empty(),
                "{} {defines:?}: g++ rejects the generated source:\n{}",
                p.name,
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gt4rs-cuda-source-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir is writable");
    dir
}

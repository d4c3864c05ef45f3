//! `gt4rs time PROGRAM --inputs FILE.npz`: times a program on the arguments of a recorded call
//! (refs convention, see `refs/icon4py/README.md`, read as `gt4rs verify` reads it). Compiles
//! the program once (timed apart), makes one call whose outputs it can write (`--out`), then
//! times repeated calls with the arguments taken from the file once
//! ([`DynProgram::call_dynamic_timed`](gt4rs::__private::dynamic::DynProgram)). Threads: the CPU
//! backend's pool (`RAYON_NUM_THREADS`).

use crate::cli::stdout::outln;
use std::fs::File;
use std::path::Path;
use std::time::{Duration, Instant};

use gt4rs::__private::dynamic::{DynArray, DynField};
use gt4rs::{Backend, Error, Options};
use ndarray_npy::NpzWriter;

use super::verify::{connectivities_of, FileArgs};
use crate::programs;
use crate::reference_data::ReferenceData;

/// What `gt4rs time` measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub program: String,
    pub backend: String,
    /// Threads of the CPU backend's pool.
    pub threads: usize,
    pub compile_ms: f64,
    /// The first call (on the file's arguments, whose outputs `--out` writes), not in `calls_ms`.
    /// Call times leave out the conversion of the arguments.
    pub first_call_ms: f64,
    pub calls_ms: Vec<f64>,
    pub median_ms: f64,
}

impl Timing {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "program": self.program,
            "backend": self.backend,
            "threads": self.threads,
            "compile_ms": self.compile_ms,
            "first_call_ms": self.first_call_ms,
            "calls_ms": self.calls_ms,
            "median_ms": self.median_ms,
        })
    }
}

/// What to time and where to write the results.
pub struct Request<'a> {
    pub program: &'a str,
    pub inputs: &'a Path,
    pub calls: usize,
    pub backend: Backend,
    /// The outputs of the first call, each under its parameter name.
    pub out: Option<&'a Path>,
    /// The timings as JSON.
    pub report: Option<&'a Path>,
}

/// Runs `gt4rs time`, printing one line of figures.
pub fn run(request: &Request) -> Result<bool, Error> {
    let timing = measure(request)?;
    outln!(
        "{}: compile {:.1} ms, first call {:.3} ms, {} calls: median {:.3} ms, min {:.3} ms, max {:.3} ms ({} backend, {} threads)",
        timing.program,
        timing.compile_ms,
        timing.first_call_ms,
        timing.calls_ms.len(),
        timing.median_ms,
        timing.calls_ms.iter().copied().fold(f64::INFINITY, f64::min),
        timing.calls_ms.iter().copied().fold(0.0, f64::max),
        timing.backend,
        timing.threads
    );
    if let Some(path) = request.report {
        let json = serde_json::to_string_pretty(&timing.to_json())
            .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        std::fs::write(path, json + "\n")
            .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    }
    Ok(true)
}

/// Compiles, calls once (writing the outputs where asked) and times `calls` more calls.
pub fn measure(request: &Request) -> Result<Timing, Error> {
    if request.calls == 0 {
        return Err(Error::Config("time: --calls must be at least 1".into()));
    }
    let config =
        |message: String| Error::Config(format!("{}: {message}", request.inputs.display()));
    let data = ReferenceData::load(request.inputs).map_err(|e| Error::Config(e.to_string()))?;
    if data.program != request.program {
        return Err(config(format!(
            "the file holds a call of `{}`, not of `{}`",
            data.program, request.program
        )));
    }
    let entry = programs::find(request.program).ok_or_else(|| {
        Error::Config(format!(
            "unknown program `{}` (see `gt4rs verify --list`)",
            request.program
        ))
    })?;
    let options = Options::new(request.backend)
        .with_connectivities(connectivities_of(&data).map_err(config)?);

    let started = Instant::now();
    let program = (entry.compile)(&options)?;
    let compile = started.elapsed();

    // The first call warms up (pages, caches, the thread pool); its outputs are the file's
    // call's.
    let mut first = FileArgs::new(&data);
    let first_call = program
        .call_dynamic_timed(&mut first, 1)?
        .first()
        .copied()
        .unwrap_or_default();
    if let Some(path) = request.out {
        write_outputs(path, &first.outputs)?;
    }

    // Fresh arguments: the first call may have updated fields in place.
    let mut source = FileArgs::new(&data);
    let durations: Vec<Duration> = program.call_dynamic_timed(&mut source, request.calls)?;
    let calls_ms: Vec<f64> = durations.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    Ok(Timing {
        program: request.program.to_string(),
        backend: request.backend.name().to_string(),
        threads: gt4rs::__private::rayon::current_num_threads(),
        compile_ms: compile.as_secs_f64() * 1e3,
        first_call_ms: first_call.as_secs_f64() * 1e3,
        median_ms: median(&calls_ms),
        calls_ms,
    })
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]),
    }
}

/// Writes each output field under its parameter name.
fn write_outputs(
    path: &Path,
    outputs: &std::collections::BTreeMap<String, DynField>,
) -> Result<(), Error> {
    let io = |e: &dyn std::fmt::Display| Error::Io(format!("{}: {e}", path.display()));
    let mut npz = NpzWriter::new(File::create(path).map_err(|e| io(&e))?);
    for (name, field) in outputs {
        match &field.data {
            DynArray::Bool(a) => npz.add_array(name.as_str(), a),
            DynArray::I32(a) => npz.add_array(name.as_str(), a),
            DynArray::I64(a) => npz.add_array(name.as_str(), a),
            DynArray::F32(a) => npz.add_array(name.as_str(), a),
            DynArray::F64(a) => npz.add_array(name.as_str(), a),
        }
        .map_err(|e| io(&e))?;
    }
    npz.finish().map_err(|e| io(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    use ndarray::ArrayD;
    use ndarray_npy::NpzReader;

    use crate::reference_data::RefArray;

    fn reference(name: &str) -> PathBuf {
        gt4rs_tests::refs::icon4py_ref(name)
    }

    /// `apply_diffusion_to_vn` updates `vn` in place, so the timed calls change it further:
    /// the written outputs must be those of the first call, on the file's arguments.
    #[test]
    fn writes_the_first_calls_outputs_and_times_each_call() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let (out, report) = (dir.path().join("out.npz"), dir.path().join("timing.json"));
        let inputs = reference("apply_diffusion_to_vn");
        let timing = measure(&Request {
            program: "apply_diffusion_to_vn",
            inputs: &inputs,
            calls: 3,
            backend: Backend::Cpu,
            out: Some(&out),
            report: Some(&report),
        })
        .expect("times");
        assert_eq!(timing.calls_ms.len(), 3);
        assert!(timing.calls_ms.iter().all(|&t| t > 0.0), "{timing:?}");
        assert!(timing.calls_ms.contains(&timing.median_ms), "{timing:?}");

        let data = ReferenceData::load(&inputs).expect("reference");
        let Ok(RefArray::Float64(want)) = data.expected.get("vn") else {
            panic!("the reference holds out__vn");
        };
        let mut npz = NpzReader::new(File::open(&out).expect("outputs")).expect("npz");
        assert_eq!(npz.names().expect("names"), ["vn"]);
        let got: ArrayD<f64> = npz.by_name("vn").expect("vn");
        assert_eq!(got.shape(), want.shape());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= 1e-12 * w.abs(), "{g} != {w}");
        }

        run(&Request {
            program: "apply_diffusion_to_vn",
            inputs: &inputs,
            calls: 2,
            backend: Backend::Cpu,
            out: None,
            report: Some(&report),
        })
        .expect("runs");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
        assert_eq!(json["program"], "apply_diffusion_to_vn");
        assert_eq!(json["calls_ms"].as_array().map(Vec::len), Some(2));
        assert!(
            json["median_ms"].as_f64().is_some_and(|m| m > 0.0),
            "{json}"
        );
    }

    #[test]
    fn a_call_of_another_program_or_no_calls_is_an_error() {
        let inputs = reference("calculate_nabla4");
        let request = |program, calls| Request {
            program,
            inputs: &inputs,
            calls,
            backend: Backend::Cpu,
            out: None,
            report: None,
        };
        let message = measure(&request("apply_diffusion_to_vn", 3))
            .expect_err("another program's call")
            .to_string();
        assert!(
            message.contains("`calculate_nabla4`") && message.contains("`apply_diffusion_to_vn`"),
            "{message}"
        );
        let message = measure(&request("no_such_program", 3))
            .expect_err("unknown program")
            .to_string();
        assert!(message.contains("calculate_nabla4"), "{message}");
        let message = measure(&request("calculate_nabla4", 0))
            .expect_err("no calls")
            .to_string();
        assert!(message.contains("--calls"), "{message}");
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }
}

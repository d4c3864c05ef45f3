//! Host emulation of the CUDA backend: the CUDA C a program's macro emitted runs on the CPU,
//! thread by thread, with the parameter blocks, grids, temporaries and error slots of the real
//! launcher (`gt4rs::cuda::launch`, the code `CudaProgram::call_device` runs), so that the
//! emitter's indexing, level blocks, masks, reductions, scans, compile-time constants, bounds
//! checks and error codes are executed without a GPU.
//!
//! The source is compiled by `g++` against `tests/cuda_shim.h` (the CUDA built-ins as C++)
//! into a shared library, with the `-D` options the launcher gives NVRTC, plus one
//! `extern "C"` runner per kernel that walks the grid (`blockIdx.y`, `blockIdx.x`, then
//! `threadIdx.x`) and calls the kernel with the parameter block. Device pointers are host
//! pointers: fields are dense row-major copies (as uploaded), tables the tables' own rows.
//!
//! What it cannot show: timing, streams, graphs, NVRTC's dialect, the driver, concurrent
//! threads (the real memory model, races between threads), device math libraries and FMA
//! contraction.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use gt4rs::__private::args::ScalarValue;
use gt4rs::__private::cuda_backend::launch::{
    dense_strides, recorded_error, tuning_defines, CallArg, FieldMeta, LaunchPlan,
};
use gt4rs::__private::cuda_source::{KernelInfo, Translation};
use gt4rs::__private::dynamic::{ArgSource, DynArray, DynField};
use gt4rs::__private::ir::fieldview::Role;
use gt4rs::__private::ir::Type;
use gt4rs::__private::static_variants;
use gt4rs::{ConnectivityTable, CudaOptions, Error, Options, ScalarType};

/// The CUDA built-ins for g++ (shared with the g++ syntax checks).
pub const SHIM: &str = include_str!("../cuda_shim.h");

/// Whether `g++` can be run here (the emulation skips without it).
pub fn gxx_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        Command::new("g++")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// The name of kernel `k`'s host runner.
fn runner_name(k: &KernelInfo) -> String {
    format!("gt4rs_host_run_{}", k.name)
}

/// The translation unit g++ compiles: the shim, the generated source and one runner per
/// kernel. A runner copies the parameter block into the kernel's struct and runs every
/// thread of the grid in turn.
pub fn host_source(source: &str, kernels: &[KernelInfo]) -> String {
    let mut text = String::from(SHIM);
    text.push_str(source);
    text.push('\n');
    for k in kernels {
        text.push_str(&format!(
            "static_assert(sizeof({n}_params) == {size}, \"size of {n}_params\");\n\
             extern \"C\" void {runner}(const void* block, unsigned grid_x, unsigned grid_y, unsigned threads) {{\n\
             \x20   {n}_params p;\n\
             \x20   memcpy(&p, block, sizeof p);\n\
             \x20   gridDim = gt4rs_dim3{{grid_x, grid_y, 1}};\n\
             \x20   blockDim = gt4rs_dim3{{threads, 1, 1}};\n\
             \x20   for (unsigned by = 0; by < grid_y; ++by)\n\
             \x20       for (unsigned bx = 0; bx < grid_x; ++bx)\n\
             \x20           for (unsigned tx = 0; tx < threads; ++tx) {{\n\
             \x20               blockIdx = gt4rs_dim3{{bx, by, 0}};\n\
             \x20               threadIdx = gt4rs_dim3{{tx, 0, 0}};\n\
             \x20               {n}(p);\n\
             \x20           }}\n\
             }}\n",
            n = k.name,
            size = k.size,
            runner = runner_name(k),
        ));
    }
    text
}

/// Shared libraries built in this process, by source and options (each test binary builds a
/// program once per set of defines).
fn library_cache() -> &'static Mutex<HashMap<u64, Arc<libloading::Library>>> {
    static CACHE: OnceLock<Mutex<HashMap<u64, Arc<libloading::Library>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn build_dir() -> PathBuf {
    std::env::temp_dir().join(format!("gt4rs-cuda-host-{}", std::process::id()))
}

fn emulation_error(name: &str, message: String) -> Error {
    Error::Execution {
        program: name.to_string(),
        message: format!("host emulation: {message}"),
    }
}

/// Compiles `text` with `defines` into a shared library (once per process) and loads it.
fn load_library(
    name: &str,
    text: &str,
    defines: &[String],
) -> Result<Arc<libloading::Library>, Error> {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    defines.hash(&mut hasher);
    let key = hasher.finish();
    // Held while compiling: tests of one binary compile each library once.
    let mut cache = library_cache()
        .lock()
        .map_err(|_| emulation_error(name, "a previous build panicked".into()))?;
    if let Some(lib) = cache.get(&key) {
        return Ok(lib.clone());
    }
    let dir = build_dir();
    std::fs::create_dir_all(&dir).map_err(|e| emulation_error(name, e.to_string()))?;
    let cpp = dir.join(format!("{name}-{key:016x}.cpp"));
    let so = dir.join(format!("{name}-{key:016x}.so"));
    std::fs::write(&cpp, text).map_err(|e| emulation_error(name, e.to_string()))?;
    let out = Command::new("g++")
        .args(["-O1", "-shared", "-fPIC", "-std=c++17", "-w"])
        .args(defines)
        .arg("-o")
        .arg(&so)
        .arg(&cpp)
        .output()
        .map_err(|e| emulation_error(name, format!("cannot run g++: {e}")))?;
    if !out.status.success() {
        // The source stays in the temp dir for a look.
        return Err(emulation_error(
            name,
            format!(
                "g++ rejects the generated source ({defines:?}, {}):\n{}",
                cpp.display(),
                String::from_utf8_lossy(&out.stderr)
            ),
        ));
    }
    // SAFETY: the library is the one just built from the generated source and the shim; its
    // initialisers only set up plain static data.
    let lib = unsafe { libloading::Library::new(&so) }
        .map_err(|e| emulation_error(name, format!("cannot load {}: {e}", so.display())))?;
    // The loaded library stays mapped: its files can go (nothing is left behind in the temp
    // dir; the directory goes with the last of them).
    let _ = std::fs::remove_file(&so);
    let _ = std::fs::remove_file(&cpp);
    let _ = std::fs::remove_dir(&dir);
    let lib = Arc::new(lib);
    cache.insert(key, lib.clone());
    Ok(lib)
}

type Runner = unsafe extern "C" fn(*const u64, u32, u32, u32);

/// A program compiled for the host emulation: what `CudaProgram::compile` holds, with a
/// shared library in place of the CUDA module.
pub struct HostProgram {
    name: &'static str,
    /// The launcher's own plan, as `CudaProgram::compile` builds it.
    plan: LaunchPlan,
    /// Keeps the tables `table_args` points into alive.
    _tables: Vec<Arc<ConnectivityTable>>,
    /// Address and row count of each table, as parameter blocks take them.
    table_args: Vec<(u64, i64)>,
    /// The compile-time defines (tuning and static values), as NVRTC would get them.
    defines: Vec<String>,
    runners: Vec<Runner>,
    /// Keeps `runners` valid.
    _library: Arc<libloading::Library>,
    /// Temporary buffers, kept and grown across calls as on the device.
    temporaries: Mutex<Vec<Vec<u64>>>,
}

impl HostProgram {
    /// Compiles `translation` as `compile()` would for CUDA with `options` (connectivities,
    /// static arguments), with the tuning `cuda` in place of the per-architecture options.
    pub fn compile(
        translation: &Translation,
        options: &Options,
        cuda: CudaOptions,
    ) -> Result<HostProgram, Error> {
        let Translation {
            name,
            source,
            kernels,
            program,
            ..
        } = *translation;
        let tables = options.connectivities.bind(program)?;
        let statics = static_variants::single_values(options, name);
        let plan = LaunchPlan::new(translation, &tables, Some(&statics), cuda)?;
        let mut defines = tuning_defines(&cuda);
        defines.extend(plan.static_defines());
        let library = load_library(name, &host_source(source, kernels), &defines)?;
        let runners = kernels
            .iter()
            .map(|k| {
                let symbol = runner_name(k);
                // SAFETY: `host_source` defines this symbol with exactly the `Runner`
                // signature; the pointer stays valid while `_library` is held.
                unsafe { library.get::<Runner>(symbol.as_bytes()) }
                    .map(|s| *s)
                    .map_err(|e| emulation_error(name, format!("{symbol}: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(HostProgram {
            name,
            plan,
            table_args: tables
                .iter()
                .map(|t| (t.as_slice().as_ptr() as u64, t.rows() as i64))
                .collect(),
            _tables: tables,
            defines,
            runners,
            _library: library,
            temporaries: Mutex::new(Vec::new()),
        })
    }

    /// The `-D` options the library was built with.
    pub fn defines(&self) -> &[String] {
        &self.defines
    }

    /// Runs the program like `CudaProgram::call_host`: uploads (copies) every field, plans
    /// the launches with the launcher's code, runs every kernel's grid, reads the error slots
    /// and, when no kernel failed, copies the outputs back. Arguments come from `source` by
    /// name, as `DynProgram::call_dynamic` takes them; the outputs go back to it.
    pub fn call_dynamic(&self, source: &mut dyn ArgSource) -> Result<(), Error> {
        let mut fields: Vec<Option<(DeviceBuffer, Vec<i64>)>> = Vec::new();
        let mut call_args = Vec::with_capacity(self.plan.program.params.len());
        for p in &self.plan.program.params {
            match &p.ty {
                Type::Field { dims, dtype } => {
                    let dims: Vec<&str> = dims.iter().map(String::as_str).collect();
                    let DynField { data, origin } = source.field(&p.name, &dims, *dtype)?;
                    let buffer = DeviceBuffer::upload(&data);
                    let shape: Vec<usize> = data.shape().to_vec();
                    call_args.push(CallArg::Field {
                        dtype: data.dtype(),
                        meta: FieldMeta {
                            address: buffer.address(),
                            origin: origin.clone(),
                            shape: shape.iter().map(|&n| n as i64).collect(),
                            strides: dense_strides(&shape),
                        },
                    });
                    fields.push(Some((buffer, origin)));
                }
                Type::Scalar(t) => {
                    call_args.push(CallArg::Scalar(source.scalar(&p.name, *t)?));
                    fields.push(None);
                }
                Type::Tuple(_) => {
                    return Err(emulation_error(
                        self.name,
                        format!("parameter `{}` is a tuple", p.name),
                    ))
                }
            }
        }
        let mut errors = vec![0i32; self.plan.kernels.len().max(1)];
        let mut temporaries = self
            .temporaries
            .lock()
            .map_err(|_| emulation_error(self.name, "a previous call panicked".into()))?;
        temporaries.resize_with(self.plan.stages.temporaries.len(), Vec::new);
        let mut temporary = |t: usize, bytes: usize| -> Result<u64, Error> {
            let words = bytes.div_ceil(8);
            let slot = temporaries
                .get_mut(t)
                .ok_or_else(|| emulation_error(self.name, "temporary out of range".into()))?;
            if slot.len() < words {
                *slot = vec![0u64; words];
            }
            Ok(slot.as_mut_ptr() as u64)
        };
        let launches = self.plan.plan_call(
            &call_args,
            &self.table_args,
            errors.as_mut_ptr() as u64,
            &mut temporary,
        )?;
        for launch in &launches {
            let (gx, gy) = launch.grid;
            let runner = self.runners[launch.kernel];
            // SAFETY: `runner` is the generated entry of this kernel; `launch.params` is its
            // parameter struct laid out by the launcher (the runner's `static_assert` checks
            // the size); every address in it points into `fields`, `self._tables`,
            // `temporaries` or `errors`, all alive and unmoved until the loop ends, and the
            // kernel checks every index against the extents it is given before it reads or
            // writes.
            unsafe { runner(launch.params.as_ptr(), gx, gy, launch.block) };
        }
        drop(temporaries);
        recorded_error(self.name, self.plan.kernels, &errors)?;
        for (p, field) in self.plan.program.params.iter().zip(fields) {
            if let (Role::Out | Role::InOut, Some((buffer, origin))) = (p.role, field) {
                source.output(
                    &p.name,
                    DynField {
                        data: buffer.download(),
                        origin,
                    },
                )?;
            }
        }
        Ok(())
    }
}

/// A field's "device" copy: its elements dense and row-major, 8-byte aligned, with the shape
/// and element type it came from.
struct DeviceBuffer {
    words: Vec<u64>,
    shape: Vec<usize>,
    dtype: ScalarType,
}

fn dense_bytes<T: Copy + Default>(a: &ndarray::ArrayD<T>) -> Vec<u64> {
    let values: Vec<T> = a.iter().copied().collect();
    let bytes = std::mem::size_of_val(values.as_slice());
    let mut words = vec![0u64; bytes.div_ceil(8).max(1)];
    // SAFETY: `words` holds at least `bytes` bytes; the elements are plain scalars (bool,
    // i32, i64, f32, f64) copied byte for byte, as the launcher uploads them.
    unsafe {
        std::ptr::copy_nonoverlapping(
            values.as_ptr().cast::<u8>(),
            words.as_mut_ptr().cast::<u8>(),
            bytes,
        );
    }
    words
}

fn from_dense<T: Copy + Default>(words: &[u64], shape: &[usize]) -> ndarray::ArrayD<T> {
    let n: usize = shape.iter().product();
    let mut values = vec![T::default(); n];
    // SAFETY: `words` was made by `dense_bytes` from `n` elements of `T` (the dtype is kept
    // with the buffer) and holds at least their bytes; for `bool` the kernels store only
    // `true`/`false` (0 or 1) through `bool*`.
    unsafe {
        std::ptr::copy_nonoverlapping(
            words.as_ptr().cast::<u8>(),
            values.as_mut_ptr().cast::<u8>(),
            std::mem::size_of_val(values.as_slice()),
        );
    }
    ndarray::ArrayD::from_shape_vec(shape.to_vec(), values)
        .expect("the buffer was made from an array of this shape")
}

impl DeviceBuffer {
    fn upload(data: &DynArray) -> DeviceBuffer {
        let words = match data {
            DynArray::Bool(a) => dense_bytes(a),
            DynArray::I32(a) => dense_bytes(a),
            DynArray::I64(a) => dense_bytes(a),
            DynArray::F32(a) => dense_bytes(a),
            DynArray::F64(a) => dense_bytes(a),
        };
        DeviceBuffer {
            words,
            shape: data.shape().to_vec(),
            dtype: data.dtype(),
        }
    }

    fn address(&self) -> u64 {
        self.words.as_ptr() as u64
    }

    fn download(&self) -> DynArray {
        let (w, s) = (&self.words, &self.shape);
        match self.dtype {
            ScalarType::Bool => DynArray::Bool(from_dense(w, s)),
            ScalarType::I32 => DynArray::I32(from_dense(w, s)),
            ScalarType::I64 => DynArray::I64(from_dense(w, s)),
            ScalarType::F32 => DynArray::F32(from_dense(w, s)),
            ScalarType::F64 => DynArray::F64(from_dense(w, s)),
        }
    }
}

/// Named arguments for `call_dynamic` (of a compiled program or a [`HostProgram`]): fields
/// and scalars by parameter name; the outputs a call hands back replace their inputs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NamedArgs {
    pub program: String,
    pub fields: BTreeMap<String, DynField>,
    pub scalars: BTreeMap<String, ScalarValue>,
}

impl NamedArgs {
    fn missing(&self, name: &str, what: &str) -> Error {
        Error::Argument {
            program: self.program.clone(),
            arg: name.to_string(),
            message: what.to_string(),
        }
    }
}

impl ArgSource for NamedArgs {
    fn field(&mut self, name: &str, dims: &[&str], dtype: ScalarType) -> Result<DynField, Error> {
        let f = self
            .fields
            .get(name)
            .ok_or_else(|| self.missing(name, "no such field"))?;
        if f.data.dtype() != dtype || f.data.shape().len() != dims.len() {
            return Err(self.missing(name, "another dtype or rank"));
        }
        Ok(f.clone())
    }
    fn scalar(&mut self, name: &str, dtype: ScalarType) -> Result<ScalarValue, Error> {
        let v = *self
            .scalars
            .get(name)
            .ok_or_else(|| self.missing(name, "no such scalar"))?;
        if v.dtype() != dtype {
            return Err(self.missing(name, "another dtype"));
        }
        Ok(v)
    }
    fn output(&mut self, name: &str, value: DynField) -> Result<(), Error> {
        self.fields.insert(name.to_string(), value);
        Ok(())
    }
}

/// The tunings the comparisons run with: the default, one level per thread with warp-sized
/// blocks, and blocks of 3 levels (so that a column's last block is partial).
pub const TUNINGS: [CudaOptions; 3] = [
    CudaOptions {
        block_size: 128,
        k_block: 8,
        max_registers: 0,
    },
    CudaOptions {
        block_size: 32,
        k_block: 1,
        max_registers: 0,
    },
    CudaOptions {
        block_size: 32,
        k_block: 3,
        max_registers: 0,
    },
];

/// The largest difference of two arrays as `|a - b| / max(|a|, |b|)`, bitwise equal values
/// (NaN included) counting 0; `None` when their dtypes or shapes differ.
pub fn max_rel_diff(a: &DynArray, b: &DynArray) -> Option<f64> {
    fn rel(x: f64, y: f64) -> f64 {
        if x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) {
            0.0
        } else if x.is_nan() || y.is_nan() {
            f64::INFINITY
        } else {
            (x - y).abs() / x.abs().max(y.abs())
        }
    }
    if a.shape() != b.shape() {
        return None;
    }
    let worst = |it: &mut dyn Iterator<Item = f64>| it.fold(0.0, f64::max);
    Some(match (a, b) {
        (DynArray::F64(a), DynArray::F64(b)) => {
            worst(&mut a.iter().zip(b).map(|(x, y)| rel(*x, *y)))
        }
        (DynArray::F32(a), DynArray::F32(b)) => worst(
            &mut a
                .iter()
                .zip(b)
                .map(|(x, y)| rel(f64::from(*x), f64::from(*y))),
        ),
        (DynArray::I32(a), DynArray::I32(b)) => f64::from(u8::from(a != b)),
        (DynArray::I64(a), DynArray::I64(b)) => f64::from(u8::from(a != b)),
        (DynArray::Bool(a), DynArray::Bool(b)) => f64::from(u8::from(a != b)),
        _ => return None,
    })
}

/// Whether a call changed `after` from `before` anywhere (bitwise).
pub fn changed(before: &DynArray, after: &DynArray) -> bool {
    max_rel_diff(before, after).is_none_or(|d| d != 0.0)
        || match (before, after) {
            // NaN-poisoned outputs compare equal to NaN results; look at the bits.
            (DynArray::F64(a), DynArray::F64(b)) => {
                a.iter().zip(b).any(|(x, y)| x.to_bits() != y.to_bits())
            }
            (DynArray::F32(a), DynArray::F32(b)) => {
                a.iter().zip(b).any(|(x, y)| x.to_bits() != y.to_bits())
            }
            _ => false,
        }
}

/// Runs `args` through the CPU backend (`cpu`, compiled with `options`; any other backend's
/// program serves as the reference too) and through the host
/// emulation of `translation`'s CUDA kernels for every tuning of `tunings` (compiled with the
/// same `options`, so with its connectivities and static values), and compares every output
/// over its whole array: bit for bit where `rtol` is 0. Every output the program has must
/// change somewhere. Returns the largest relative difference seen.
pub fn check_against_cpu(
    cpu: &dyn gt4rs::__private::dynamic::DynProgram,
    translation: &Translation,
    options: &Options,
    args: &NamedArgs,
    tunings: &[CudaOptions],
    rtol: f64,
) -> Result<f64, String> {
    let name = translation.name;
    let mut expected = args.clone();
    cpu.call_dynamic(&mut expected)
        .map_err(|e| format!("{name}: the CPU backend fails: {e}"))?;
    let outputs: Vec<&str> = translation
        .program
        .params
        .iter()
        .filter(|p| p.role != Role::In && p.ty.is_field())
        .map(|p| p.name.as_str())
        .collect();
    if !outputs
        .iter()
        .any(|o| changed(&args.fields[*o].data, &expected.fields[*o].data))
    {
        return Err(format!("{name}: the CPU backend writes nothing"));
    }
    let mut worst = 0.0f64;
    for cuda in tunings {
        let host = HostProgram::compile(translation, options, *cuda)
            .map_err(|e| format!("{name} {cuda:?}: {e}"))?;
        let mut got = args.clone();
        host.call_dynamic(&mut got).map_err(|e| {
            format!(
                "{name} {:?}: the emulated kernels fail: {e}",
                host.defines()
            )
        })?;
        for o in &outputs {
            let (e, g) = (&expected.fields[*o], &got.fields[*o]);
            let diff = max_rel_diff(&e.data, &g.data)
                .ok_or_else(|| format!("{name}: output `{o}` changed type or shape"))?;
            if diff > rtol {
                return Err(format!(
                    "{name} {:?}: output `{o}` differs from the CPU backend by {diff:e}{}",
                    host.defines(),
                    first_difference(&e.data, &g.data)
                ));
            }
            worst = worst.max(diff);
        }
    }
    Ok(worst)
}

/// Where two f64 arrays first differ, for messages.
fn first_difference(expected: &DynArray, got: &DynArray) -> String {
    if let (DynArray::F64(e), DynArray::F64(g)) = (expected, got) {
        for ((ix, a), b) in e.indexed_iter().zip(g) {
            if a.to_bits() != b.to_bits() && !(a.is_nan() && b.is_nan()) {
                return format!(
                    " (first at {:?}: CPU {a:e}, CUDA {b:e})",
                    ndarray::Dimension::slice(&ix)
                );
            }
        }
    }
    String::new()
}

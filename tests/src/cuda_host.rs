//! Host emulation of the CUDA backend: a [`CudaEmulator`] that `Options::with_cuda_emulator`
//! hands to `compile()`, so a `Backend::Cuda` program takes the runtime's whole CUDA path (the
//! macro's source and kernel program, the launch plan, static values and tuning as `-D`
//! options, parameter blocks, temporaries, error records) with the host in place of the device:
//! the emitter's indexing, level blocks, masks, reductions, scans, compile-time constants,
//! bounds checks and error records are executed without a GPU.
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

use gt4rs::__private::args::{Arg, FieldView, FieldViewMut, ScalarValue};
use gt4rs::__private::cuda_backend::emulator::{CudaEmulator, EmulatedProgram};
use gt4rs::__private::cuda_backend::launch::{
    dense_strides, recorded_error, CallArg, FieldMeta, LaunchPlan,
};
use gt4rs::__private::dynamic::{ArgSource, DynArray, DynField, DynProgram};
use gt4rs::__private::ir::fieldview::Role;
use gt4rs::__private::ir::kernel::{KernelInfo, ERROR_RECORD_LEN};
use gt4rs::{Backend, CudaOptions, Error, Options, ParamKind, ScalarType};

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
        // The launcher fills parameter blocks at the offsets of the kernel program: the C
        // struct must agree field by field.
        for f in &k.fields {
            text.push_str(&format!(
                "static_assert(offsetof({n}_params, {f}) == {o}, \"offset of {n}_params.{f}\");\n",
                n = k.name,
                f = f.name,
                o = f.offset,
            ));
        }
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

/// The emulator: builds kernels with g++ and runs them on the calling thread.
#[derive(Debug, Default)]
pub struct HostEmulator {
    /// The `-D` options each program was last built with, by program name (for tests that
    /// check what was compiled in).
    defines: Mutex<HashMap<String, Vec<String>>>,
}

/// The process's one emulator (its libraries are shared by every program built through it).
pub fn emulator() -> Arc<HostEmulator> {
    static EMULATOR: OnceLock<Arc<HostEmulator>> = OnceLock::new();
    EMULATOR.get_or_init(Default::default).clone()
}

impl HostEmulator {
    /// The `-D` options `program` was last built with.
    pub fn defines_of(&self, program: &str) -> Vec<String> {
        self.defines
            .lock()
            .map(|d| d.get(program).cloned().unwrap_or_default())
            .unwrap_or_default()
    }
}

impl CudaEmulator for HostEmulator {
    fn name(&self) -> &str {
        "host emulation (g++)"
    }

    fn load(
        &self,
        source: &str,
        plan: LaunchPlan,
        defines: Vec<String>,
    ) -> Result<Box<dyn EmulatedProgram>, Error> {
        let name = plan.name;
        let library = load_library(name, &host_source(source, plan.kernels), &defines)?;
        let runners = plan
            .kernels
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
        if let Ok(mut all) = self.defines.lock() {
            all.insert(name.to_string(), defines);
        }
        Ok(Box::new(HostProgram {
            name,
            table_args: plan
                .named_tables
                .iter()
                .map(|(_, t)| (t.as_slice().as_ptr() as u64, t.rows() as i64))
                .collect(),
            plan,
            runners,
            _library: library,
            temporaries: Mutex::new(Vec::new()),
        }))
    }
}

/// A program built by the [`HostEmulator`]: what `CudaProgram::compile` holds, with a shared
/// library in place of the CUDA module.
struct HostProgram {
    name: &'static str,
    /// The launcher's own plan, as `CudaProgram::compile` builds it (it also keeps the tables
    /// `table_args` points into alive).
    plan: LaunchPlan,
    /// Address and row count of each table, as parameter blocks take them.
    table_args: Vec<(u64, i64)>,
    runners: Vec<Runner>,
    /// Keeps `runners` valid.
    _library: Arc<libloading::Library>,
    /// Temporary buffers, kept and grown across calls as on the device.
    temporaries: Mutex<Vec<Vec<u64>>>,
}

impl EmulatedProgram for HostProgram {
    /// Runs the program like `CudaProgram::call_host`: uploads (copies) every field, plans the
    /// launches with the launcher's code, runs every kernel's grid, reads the error records and,
    /// when no kernel failed, copies the outputs back.
    fn call_host(&self, args: &mut [Arg<'_>]) -> Result<(), Error> {
        let mut buffers: Vec<Option<DeviceBuffer>> = Vec::with_capacity(args.len());
        let mut call_args = Vec::with_capacity(args.len());
        for a in args.iter() {
            let (buffer, origin) = match a {
                Arg::Scalar(v) => {
                    call_args.push(CallArg::Scalar(*v));
                    buffers.push(None);
                    continue;
                }
                Arg::Field(v) => DeviceBuffer::upload(v),
                Arg::FieldMut(v) => DeviceBuffer::upload_mut(v),
            };
            call_args.push(CallArg::Field {
                dtype: buffer.dtype,
                meta: FieldMeta {
                    address: buffer.address(),
                    origin: origin.to_vec(),
                    shape: buffer.shape.iter().map(|&n| n as i64).collect(),
                    strides: dense_strides(&buffer.shape),
                },
            });
            buffers.push(Some(buffer));
        }
        let mut errors = vec![0i64; self.plan.kernels.len().max(1) * ERROR_RECORD_LEN];
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
            // parameter struct laid out by the launcher (the runner's `static_assert`s check
            // size and offsets); every address in it points into `buffers`, the plan's tables,
            // `temporaries` or `errors`, all alive and unmoved until the loop ends, and the
            // kernel checks every index against the extents it is given before it reads or
            // writes.
            unsafe { runner(launch.params.as_ptr(), gx, gy, launch.block) };
        }
        drop(temporaries);
        recorded_error(self.name, self.plan.kernels, &errors)?;
        for (a, buffer) in args.iter_mut().zip(&buffers) {
            if let (Arg::FieldMut(view), Some(buffer)) = (a, buffer) {
                buffer.download_into(view);
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

/// The elements of `view` in row-major order, as bytes in 8-byte words.
fn dense_words<T: Copy>(view: ndarray::ArrayViewD<'_, T>) -> Vec<u64> {
    let values: Vec<T> = view.iter().copied().collect();
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

/// Writes the dense row-major elements in `words` back into `view` (of the same shape).
fn write_back<T: Copy + Default>(words: &[u64], mut view: ndarray::ArrayViewMutD<'_, T>) {
    let mut values = vec![T::default(); view.len()];
    // SAFETY: `words` was made by `dense_words` from a view of this shape and element type
    // (the dtype is kept with the buffer) and holds at least its bytes; for `bool` the
    // kernels store only `true`/`false` (0 or 1) through `bool*`.
    unsafe {
        std::ptr::copy_nonoverlapping(
            words.as_ptr().cast::<u8>(),
            values.as_mut_ptr().cast::<u8>(),
            std::mem::size_of_val(values.as_slice()),
        );
    }
    for (dst, src) in view.iter_mut().zip(values) {
        *dst = src;
    }
}

macro_rules! by_dtype {
    ($enum:ident, $view:expr, $v:ident, $origin:ident => $body:expr) => {
        match $view {
            $enum::Bool($v, $origin) => $body,
            $enum::I32($v, $origin) => $body,
            $enum::I64($v, $origin) => $body,
            $enum::F32($v, $origin) => $body,
            $enum::F64($v, $origin) => $body,
        }
    };
}

impl DeviceBuffer {
    fn of<T: gt4rs::field::Scalar>(view: ndarray::ArrayViewD<'_, T>) -> DeviceBuffer {
        DeviceBuffer {
            shape: view.shape().to_vec(),
            words: dense_words(view),
            dtype: T::DTYPE,
        }
    }

    /// The copy of a read-only field, and its origin.
    fn upload<'a>(view: &'a FieldView<'_>) -> (DeviceBuffer, &'a [i64]) {
        by_dtype!(FieldView, view, v, origin => (DeviceBuffer::of(v.view()), *origin))
    }

    /// The copy of a written field, and its origin.
    fn upload_mut<'a>(view: &'a FieldViewMut<'_>) -> (DeviceBuffer, &'a [i64]) {
        by_dtype!(FieldViewMut, view, v, origin => (DeviceBuffer::of(v.view()), *origin))
    }

    fn address(&self) -> u64 {
        self.words.as_ptr() as u64
    }

    fn download_into(&self, view: &mut FieldViewMut<'_>) {
        by_dtype!(FieldViewMut, view, v, _origin => write_back(&self.words, v.view_mut()))
    }
}

/// Named arguments for `call_dynamic` (of a compiled program): fields
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
/// blocks, and blocks of 3 levels (so that a column's last block is partial) with the column
/// work hoisted (`CudaOptions::hoist_column_work`).
pub const TUNINGS: [CudaOptions; 3] = [
    CudaOptions {
        block_size: 128,
        k_block: 8,
        max_registers: 0,
        fma_contraction: false,
        hoist_column_work: false,
    },
    CudaOptions {
        block_size: 32,
        k_block: 1,
        max_registers: 0,
        fma_contraction: false,
        hoist_column_work: false,
    },
    CudaOptions {
        block_size: 32,
        k_block: 3,
        max_registers: 0,
        fma_contraction: false,
        hoist_column_work: true,
    },
];

/// The largest difference of two arrays as `|a - b| / max(|a|, |b|)`
/// ([`gt4rs::testing::largest_relative_difference`], floats widened to f64; NaN against NaN
/// counts 0), and for integers and bools 1 where any element differs; `None` when their dtypes or
/// shapes differ.
pub fn max_rel_diff(a: &DynArray, b: &DynArray) -> Option<f64> {
    if a.shape() != b.shape() {
        return None;
    }
    use gt4rs::testing::largest_relative_difference;
    match (a, b) {
        (DynArray::F64(a), DynArray::F64(b)) => {
            largest_relative_difference(b.view(), a.view()).ok()
        }
        (DynArray::F32(a), DynArray::F32(b)) => {
            largest_relative_difference(b.mapv(f64::from).view(), a.mapv(f64::from).view()).ok()
        }
        (DynArray::I32(a), DynArray::I32(b)) => Some(f64::from(u8::from(a != b))),
        (DynArray::I64(a), DynArray::I64(b)) => Some(f64::from(u8::from(a != b))),
        (DynArray::Bool(a), DynArray::Bool(b)) => Some(f64::from(u8::from(a != b))),
        _ => None,
    }
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

/// `options` running `Backend::Cuda` on the host emulator with the tuning `cuda`.
pub fn emulated(options: &Options, cuda: CudaOptions) -> Options {
    let mut options = options.clone().with_cuda(cuda);
    options.settings.backend = Some(Backend::Cuda);
    options.with_cuda_emulator(emulator())
}

/// A program's `compile` as a function of the options (a registry entry's, or
/// `|o| Ok(Box::new(p::compile(o)?))`).
pub type CompileFn<'a> = &'a dyn Fn(&Options) -> Result<Box<dyn DynProgram>, Error>;

/// Runs `args` through `reference` (a program compiled for the CPU or embedded backend) and
/// through the program `compile` builds for the emulated CUDA backend with `options` (its
/// connectivities and static values) under every tuning of `tunings`, and compares every
/// output over its whole array: bit for bit where `rtol` is 0. Every output the program has
/// must change somewhere. Returns the largest relative difference seen.
pub fn check_against_cpu(
    reference: &dyn DynProgram,
    compile: CompileFn<'_>,
    options: &Options,
    args: &NamedArgs,
    tunings: &[CudaOptions],
    rtol: f64,
) -> Result<f64, String> {
    let name = reference.name();
    let mut expected = args.clone();
    reference
        .call_dynamic(&mut expected)
        .map_err(|e| format!("{name}: the reference backend fails: {e}"))?;
    let outputs: Vec<String> = reference
        .signature()
        .params
        .into_iter()
        .filter(|p| p.role != Role::In && matches!(p.kind, ParamKind::Field { .. }))
        .map(|p| p.name)
        .collect();
    if !outputs
        .iter()
        .any(|o| changed(&args.fields[o].data, &expected.fields[o].data))
    {
        return Err(format!("{name}: the reference backend writes nothing"));
    }
    let mut worst = 0.0f64;
    for cuda in tunings {
        let program =
            compile(&emulated(options, *cuda)).map_err(|e| format!("{name} {cuda:?}: {e}"))?;
        let defines = emulator().defines_of(name);
        let mut got = args.clone();
        program
            .call_dynamic(&mut got)
            .map_err(|e| format!("{name} {defines:?}: the emulated kernels fail: {e}"))?;
        for o in &outputs {
            let (e, g) = (&expected.fields[o], &got.fields[o]);
            let diff = max_rel_diff(&e.data, &g.data)
                .ok_or_else(|| format!("{name}: output `{o}` changed type or shape"))?;
            if diff > rtol {
                return Err(format!(
                    "{name} {defines:?}: output `{o}` differs from the reference by {diff:e}{}",
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

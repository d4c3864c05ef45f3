//! The CUDA backend proper (cargo feature `cuda`): device probing, NVRTC compilation through
//! the persistent cache, device fields, launches on the device's one stream, timing events and
//! graph capture.
//!
//! cudarc panics instead of returning an error when the driver or NVRTC library is missing,
//! so every entry point probes the libraries first and runs cudarc inside `catch_unwind`.

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaFunction, CudaGraph, CudaSlice, CudaStream, DevicePtr,
    DevicePtrMut,
};
use cudarc::nvrtc::Ptx;

use gt4rs_ir::kernel::ERROR_RECORD_LEN;
use gt4rs_ir::ScalarType;

use crate::args::{Arg, FieldView, FieldViewMut, ScalarValue};
use crate::backend::cuda::launch::{
    cache_key, dense_strides, nvrtc_options, recorded_error, CallArg, FieldMeta, LaunchPlan,
};
use crate::backend::cuda::nvrtc::{self, Output};
use crate::backend::cuda::source::Translation;
use crate::backend::cuda::target::{code_target, version_number, CodeTarget, Toolchain};
use crate::cache::{KernelCache, Outcome};
use crate::config::{CudaOptions, ProgramOptions};
use crate::connectivity::ConnectivityTable;
use crate::dims::Dims;
use crate::error::Error;
use crate::field::{Field, Scalar};

fn unavailable(reason: impl Into<String>) -> Error {
    Error::BackendUnavailable {
        backend: "cuda".into(),
        reason: reason.into(),
    }
}

/// Runs `f`, turning a cudarc panic into an error.
fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(unavailable(format!(
                "{what}: the CUDA library panicked: {msg}"
            )))
        }
    }
}

fn driver(what: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error::Execution {
        program: what.to_string(),
        message: format!("CUDA driver: {e:?}"),
    }
}

/// The device every program runs on (device 0), probed once, and the one stream all programs
/// enqueue on: stream order alone orders every upload, launch, download and free, so programs
/// of a granule chain without events, and a capture sees the whole sequence.
struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    arch: String,
    driver_version: i32,
    /// What NVRTC makes for this device and driver.
    target: CodeTarget,
}

fn device() -> Result<&'static Device, Error> {
    static DEVICE: OnceLock<Result<Device, Error>> = OnceLock::new();
    DEVICE
        .get_or_init(|| guarded("probing the GPU", probe))
        .as_ref()
        .map_err(Clone::clone)
}

fn probe() -> Result<Device, Error> {
    // SAFETY: this only tries to open the shared library by name; no symbol is called.
    let driver_present = unsafe { cudarc::driver::sys::is_culib_present() };
    if !driver_present {
        return Err(unavailable(
            "no CUDA driver library (libcuda) on this machine",
        ));
    }
    nvrtc::probe()?;
    let count = CudaContext::device_count()
        .map_err(|e| unavailable(format!("cannot count CUDA devices: {e:?}")))?;
    if count < 1 {
        return Err(unavailable("the CUDA driver reports no device"));
    }
    let ctx =
        CudaContext::new(0).map_err(|e| unavailable(format!("cannot open device 0: {e:?}")))?;
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| unavailable(format!("cannot read the compute capability: {e:?}")))?;
    // SAFETY: called before this context allocates anything; all gt4rs work runs on the one
    // stream created below, so stream order synchronises every use of every buffer (cudarc's
    // per-buffer events would only add waits, and waits on outside events break captures).
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx
        .new_stream()
        .map_err(|e| unavailable(format!("cannot create a stream: {e:?}")))?;
    let mut driver_version = 0i32;
    // SAFETY: `cuDriverGetVersion` writes one int through a valid pointer; the driver library
    // is loaded (probed above).
    let rc = unsafe { sys::cuDriverGetVersion(&mut driver_version) };
    if rc != sys::CUresult::CUDA_SUCCESS {
        return Err(unavailable(format!(
            "cannot read the driver version: {rc:?}"
        )));
    }
    let (nvrtc_major, nvrtc_minor) = nvrtc::version()?;
    let nvrtc_archs = nvrtc::supported_archs()?;
    let target = code_target(&Toolchain {
        nvrtc: version_number(nvrtc_major, nvrtc_minor),
        driver: driver_version,
        compute_capability: (major, minor),
        nvrtc_archs: &nvrtc_archs,
    })
    .map_err(unavailable)?;
    Ok(Device {
        ctx,
        stream,
        arch: format!("sm_{major}{minor}"),
        driver_version,
        target,
    })
}

/// True when a CUDA device, its driver and NVRTC can be used. Never panics.
pub fn cuda_available() -> bool {
    device().is_ok()
}

/// Why CUDA cannot be used here, or `None` when it can.
pub fn unavailable_reason() -> Option<Error> {
    device().err()
}

/// The device's architecture, e.g. `sm_90`.
pub fn device_arch() -> Option<String> {
    device().ok().map(|d| d.arch.clone())
}

/// A module image for `source` (a cubin or PTX, as the device's [`CodeTarget`] says), from the
/// cache or NVRTC.
fn image_for(
    label: &str,
    source: &str,
    options: &CudaOptions,
    defines: &[String],
    dev: &Device,
) -> Result<(Ptx, Outcome), Error> {
    let target = &dev.target;
    let mut opts = nvrtc_options(target.arch(), options);
    opts.extend(defines.iter().cloned());
    let key = cache_key(
        source,
        &opts,
        &format!("{} {}", target.arch(), target.kind()),
        dev.driver_version,
    );
    let cache = KernelCache::open_default()?;
    let output = match target {
        CodeTarget::Cubin { .. } => Output::Cubin,
        CodeTarget::Ptx { .. } => Output::Ptx,
    };
    let (bytes, outcome) =
        cache.get_or_build(&key, &format!("{label} {}", target.arch()), || {
            nvrtc::compile(label, source, &opts, output).map(|o| o.image)
        })?;
    let image = match target {
        CodeTarget::Cubin { .. } => Ptx::from_binary(bytes),
        CodeTarget::Ptx { .. } => Ptx::from_src(
            String::from_utf8(bytes)
                .map_err(|_| Error::Io(format!("{label}: cached PTX is not text")))?,
        ),
    };
    Ok((image, outcome))
}

/// One program's translation to compile ahead of time (see [`compile_all`]).
pub struct CompileJob<'a> {
    /// The program's name (the cache entry's label).
    pub name: &'a str,
    /// Its CUDA C translation unit.
    pub source: &'a str,
    /// The tuning it is compiled with (block size, K block, register cap).
    pub options: CudaOptions,
}

/// Compiles the programs of a granule in parallel (rayon), filling the persistent cache, so
/// that each program's `compile()` afterwards is a cache hit with no NVRTC call.
pub fn compile_all(jobs: &[CompileJob<'_>]) -> Vec<Result<Outcome, Error>> {
    use rayon::prelude::*;
    let dev = match device() {
        Ok(d) => d,
        Err(e) => return jobs.iter().map(|_| Err(e.clone())).collect(),
    };
    jobs.par_iter()
        .map(|j| image_for(j.name, j.source, &j.options, &[], dev).map(|(_, o)| o))
        .collect()
}

/// A field in device memory, with the index space of the host field it came from.
pub struct RawDeviceField {
    data: CudaSlice<u8>,
    dtype: ScalarType,
    origin: Vec<i64>,
    shape: Vec<usize>,
    /// In elements, of a dense row-major buffer.
    strides: Vec<i64>,
}

/// The bytes of a slice of plain scalars.
fn as_bytes<T: Scalar>(values: &[T]) -> &[u8] {
    // SAFETY: every `Scalar` (bool, i32, i64, f32, f64) is plain data without padding, and
    // any byte pattern of a valid value is a valid `u8`; the length covers exactly the slice.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

impl RawDeviceField {
    fn upload<T: Scalar>(
        stream: &Arc<CudaStream>,
        view: ndarray::ArrayViewD<'_, T>,
        origin: &[i64],
    ) -> Result<Self, Error> {
        let shape = view.shape().to_vec();
        let dense = view.as_standard_layout();
        let slice = dense
            .as_slice()
            .ok_or_else(|| Error::Shape("a standard-layout copy is contiguous".into()))?;
        let data = stream
            .clone_htod(as_bytes(slice))
            .map_err(driver("upload"))?;
        Ok(RawDeviceField {
            data,
            dtype: T::DTYPE,
            origin: origin.to_vec(),
            strides: dense_strides(&shape),
            shape,
        })
    }

    fn download_into<T: Scalar>(
        &self,
        stream: &Arc<CudaStream>,
        mut view: ndarray::ArrayViewMutD<'_, T>,
    ) -> Result<(), Error> {
        let bytes = stream.clone_dtoh(&self.data).map_err(driver("download"))?;
        let n = view.len();
        if bytes.len() != n * std::mem::size_of::<T>() {
            return Err(Error::Shape(format!(
                "device field holds {} bytes, host field {} elements",
                bytes.len(),
                n
            )));
        }
        let mut host: Vec<T> = vec![T::default(); n];
        // SAFETY: `host` has exactly `bytes.len()` bytes of plain scalars, and the bytes came
        // from a buffer of the same type (the dtype is checked by the caller).
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                host.as_mut_ptr().cast::<u8>(),
                bytes.len(),
            );
        }
        let shape = view.shape().to_vec();
        let array = ndarray::ArrayD::from_shape_vec(shape, host)
            .map_err(|e| Error::Shape(e.to_string()))?;
        view.assign(&array);
        Ok(())
    }

    fn meta(&self, stream: &CudaStream) -> FieldMeta {
        let (address, _sync) = self.data.device_ptr(stream);
        FieldMeta {
            address,
            origin: self.origin.clone(),
            shape: self.shape.iter().map(|&n| n as i64).collect(),
            strides: self.strides.clone(),
        }
    }
}

impl RawDeviceField {
    /// Copies `data` (index 0 at `origin`) to the device, on the stream of `program`.
    pub fn from_array<T: Scalar>(
        program: &CudaProgram,
        data: ndarray::ArrayViewD<'_, T>,
        origin: &[i64],
    ) -> Result<Self, Error> {
        if origin.len() != data.ndim() {
            return Err(Error::Shape(format!(
                "{} origins for a {}-d array",
                origin.len(),
                data.ndim()
            )));
        }
        guarded("upload", || {
            RawDeviceField::upload(&program.stream, data, origin)
        })
    }
    /// The number of points per dimension.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
}

/// Device-to-device copy bandwidth in GB/s (bytes read plus bytes written per second) over
/// `bytes`-sized buffers on `program`'s stream, the median of `reps` copies.
pub fn copy_bandwidth_gbps(program: &CudaProgram, bytes: usize, reps: usize) -> Result<f64, Error> {
    guarded("copy bandwidth", || {
        let stream = &program.stream;
        let src = stream
            .alloc_zeros::<u8>(bytes.max(1))
            .map_err(driver("copy"))?;
        let mut dst = stream
            .alloc_zeros::<u8>(bytes.max(1))
            .map_err(driver("copy"))?;
        let mut times = Vec::with_capacity(reps.max(1));
        for _ in 0..reps.max(1) {
            let timer = Timer::start(program)?;
            stream.memcpy_dtod(&src, &mut dst).map_err(driver("copy"))?;
            times.push(timer.stop_ms()?);
        }
        times.sort_by(f32::total_cmp);
        let ms = f64::from(times[times.len() / 2]).max(1e-6);
        Ok(2.0 * bytes as f64 / (ms * 1e-3) / 1e9)
    })
}

/// A typed field in device memory: upload from a [`Field`], download into one or into a new
/// ndarray.
pub struct DeviceField<D: Dims, T: Scalar> {
    raw: RawDeviceField,
    stream: Arc<CudaStream>,
    _marker: PhantomData<(D, T)>,
}

impl<D: Dims, T: Scalar> DeviceField<D, T> {
    /// Copies `field` to the device (on the stream of `program`).
    pub fn upload(program: &CudaProgram, field: &Field<D, T>) -> Result<Self, Error> {
        guarded("upload", || {
            Ok(DeviceField {
                raw: RawDeviceField::upload(&program.stream, field.as_array(), field.origin())?,
                stream: program.stream.clone(),
                _marker: PhantomData,
            })
        })
    }
    /// Waits for the stream and copies the device data into `field` (same domain).
    pub fn download_into(&self, field: &mut Field<D, T>) -> Result<(), Error> {
        if field.shape() != self.raw.shape.as_slice() || field.origin() != self.raw.origin {
            return Err(Error::Shape(
                "download into a field of another domain".into(),
            ));
        }
        guarded("download", || {
            self.raw.download_into(&self.stream, field.as_array_mut())
        })
    }
    /// Waits for the stream and returns the data as an ndarray (index 0 is `origin`).
    pub fn to_ndarray(&self) -> Result<ndarray::ArrayD<T>, Error> {
        let mut a = ndarray::ArrayD::from_elem(self.raw.shape.clone(), T::default());
        guarded("download", || {
            self.raw.download_into(&self.stream, a.view_mut())
        })?;
        Ok(a)
    }
    /// The index of the first element per dimension.
    pub fn origin(&self) -> &[i64] {
        &self.raw.origin
    }
    /// The number of points per dimension.
    pub fn shape(&self) -> &[usize] {
        &self.raw.shape
    }
}

/// One argument of [`CudaProgram::call_device`], in the order of the program's parameters.
pub enum DeviceArg<'a> {
    /// A device field the program reads only.
    Field(&'a RawDeviceField),
    /// A device field the program writes.
    FieldMut(&'a mut RawDeviceField),
    /// A scalar.
    Scalar(ScalarValue),
}

impl<'a> DeviceArg<'a> {
    /// A read-only device field argument.
    pub fn field<D: Dims, T: Scalar>(f: &'a DeviceField<D, T>) -> Self {
        DeviceArg::Field(&f.raw)
    }
    /// A written device field argument.
    pub fn field_mut<D: Dims, T: Scalar>(f: &'a mut DeviceField<D, T>) -> Self {
        DeviceArg::FieldMut(&mut f.raw)
    }
    /// A scalar argument.
    pub fn scalar<T: crate::field::Scalar>(v: T) -> Self {
        DeviceArg::Scalar(v.into_value())
    }
}

/// A captured sequence of launches, replayed with one call.
pub struct Graph {
    graph: CudaGraph,
}

impl Graph {
    /// Enqueues the whole captured sequence on its stream (no synchronisation).
    pub fn replay(&self) -> Result<(), Error> {
        guarded("graph replay", || {
            self.graph.launch().map_err(driver("graph replay"))
        })
    }
}

/// Elapsed time between two points of a stream, measured by CUDA events.
pub struct Timer {
    start: CudaEvent,
    stream: Arc<CudaStream>,
}

impl Timer {
    /// Records the start event on `program`'s stream.
    pub fn start(program: &CudaProgram) -> Result<Timer, Error> {
        guarded("timer", || {
            let ctx = program.stream.context();
            // Timing needs CU_EVENT_DEFAULT (events created with DISABLE_TIMING cannot time).
            let start = ctx
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(driver("timer"))?;
            start.record(&program.stream).map_err(driver("timer"))?;
            Ok(Timer {
                start,
                stream: program.stream.clone(),
            })
        })
    }
    /// Records the stop event, waits for it, and returns the milliseconds since `start`.
    pub fn stop_ms(self) -> Result<f32, Error> {
        guarded("timer", || {
            let stop = self
                .stream
                .context()
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(driver("timer"))?;
            stop.record(&self.stream).map_err(driver("timer"))?;
            stop.synchronize().map_err(driver("timer"))?;
            self.start.elapsed_ms(&stop).map_err(driver("timer"))
        })
    }
}

/// A program compiled for the GPU: its module, kernels, stream, connectivity tables on the
/// device and per-kernel error records.
pub struct CudaProgram {
    name: &'static str,
    /// Stages, kernels, static values and host tables: everything but the device objects.
    plan: LaunchPlan,
    functions: Vec<CudaFunction>,
    stream: Arc<CudaStream>,
    /// The connectivity tables on the device (`used_offsets` order), which `table_args`
    /// points into.
    _tables: Vec<CudaSlice<i32>>,
    /// Device address and row count of each table, as parameter blocks take them (the
    /// buffers never move, so every call reuses these).
    table_args: Vec<(u64, i64)>,
    temporaries: Mutex<Vec<Option<CudaSlice<u8>>>>,
    /// One error record per kernel (`ERROR_RECORD_LEN` words each).
    errors: Mutex<CudaSlice<i64>>,
    outcome: Outcome,
}

impl CudaProgram {
    /// Compiles `source` (through the persistent cache) for the device and uploads the tables.
    pub fn compile(
        translation: &Translation,
        options: &ProgramOptions,
        tables: &[Arc<ConnectivityTable>],
        static_args: Option<&BTreeMap<String, ScalarValue>>,
    ) -> Result<CudaProgram, Error> {
        let Translation { name, source, .. } = *translation;
        let plan = LaunchPlan::new(translation, tables, static_args, options.cuda)?;
        let kernels = plan.kernels;
        // Static arguments known now are compiled in, with the domain bounds they fix.
        let defines = plan.static_defines();
        let dev = device()?;
        guarded(name, || {
            let (image, outcome) = image_for(name, source, &options.cuda, &defines, dev)?;
            let module = dev.ctx.load_module(image).map_err(driver(name))?;
            let functions = kernels
                .iter()
                .map(|k| module.load_function(&k.name).map_err(driver(name)))
                .collect::<Result<Vec<_>, _>>()?;
            let stream = dev.stream.clone();
            let device_tables = tables
                .iter()
                .map(|t| stream.clone_htod(t.as_slice()).map_err(driver(name)))
                .collect::<Result<Vec<_>, _>>()?;
            let table_args = device_tables
                .iter()
                .zip(tables)
                .map(|(d, t)| (d.device_ptr(&stream).0, t.rows() as i64))
                .collect();
            let errors = stream
                .alloc_zeros::<i64>(kernels.len().max(1) * ERROR_RECORD_LEN)
                .map_err(driver(name))?;
            let temporaries =
                Mutex::new((0..plan.stages.temporaries.len()).map(|_| None).collect());
            Ok(CudaProgram {
                name,
                plan,
                temporaries,
                functions,
                stream,
                _tables: device_tables,
                table_args,
                errors: Mutex::new(errors),
                outcome,
            })
        })
    }

    /// Whether the module came from the cache (no NVRTC call) or was built.
    pub fn cache_outcome(&self) -> Outcome {
        self.outcome
    }

    /// Runs with host fields: uploads every field, launches, downloads the outputs and waits.
    pub fn call_host(&self, args: &mut [Arg<'_>]) -> Result<(), Error> {
        guarded(self.name, || {
            let mut device: Vec<Option<RawDeviceField>> = Vec::with_capacity(args.len());
            for a in args.iter() {
                device.push(match a {
                    Arg::Field(v) => Some(upload_view(&self.stream, v)?),
                    Arg::FieldMut(v) => Some(upload_view_mut(&self.stream, v)?),
                    Arg::Scalar(_) => None,
                });
            }
            {
                let mut dargs: Vec<DeviceArg<'_>> = Vec::with_capacity(args.len());
                for (a, d) in args.iter().zip(device.iter_mut()) {
                    dargs.push(match (a, d) {
                        (Arg::Scalar(s), _) => DeviceArg::Scalar(*s),
                        (Arg::Field(_), Some(d)) => DeviceArg::Field(d),
                        (_, Some(d)) => DeviceArg::FieldMut(d),
                        (_, None) => return Err(self.arg_error("?", "missing device copy")),
                    });
                }
                self.call_device(&mut dargs)?;
            }
            self.sync()?;
            for (a, d) in args.iter_mut().zip(device.iter()) {
                if let (Arg::FieldMut(v), Some(d)) = (a, d) {
                    download_view_mut(&self.stream, d, v)?;
                }
            }
            Ok(())
        })
    }

    fn arg_error(&self, arg: &str, message: &str) -> Error {
        Error::Argument {
            program: self.name.to_string(),
            arg: arg.to_string(),
            message: message.to_string(),
        }
    }

    /// Enqueues every kernel on the shared stream and returns without waiting; errors
    /// recorded by kernels surface at [`CudaProgram::sync`].
    pub fn call_device(&self, args: &mut [DeviceArg<'_>]) -> Result<(), Error> {
        let call_args: Vec<CallArg> = args
            .iter()
            .map(|a| match a {
                DeviceArg::Field(f) => CallArg::Field {
                    dtype: f.dtype,
                    meta: f.meta(&self.stream),
                },
                DeviceArg::FieldMut(f) => CallArg::Field {
                    dtype: f.dtype,
                    meta: f.meta(&self.stream),
                },
                DeviceArg::Scalar(s) => CallArg::Scalar(*s),
            })
            .collect();
        let mut errors = self
            .errors
            .lock()
            .map_err(|_| self.arg_error("", "a previous call panicked"))?;
        let (error_base, _sync) = errors.device_ptr_mut(&self.stream);
        let mut temps = self
            .temporaries
            .lock()
            .map_err(|_| self.arg_error("", "a previous call panicked"))?;
        // Temporary buffers are kept (and grown) across calls, so a call allocates nothing in
        // steady state.
        let mut temporary = |t: usize, bytes: usize| -> Result<u64, Error> {
            let slot = temps
                .get_mut(t)
                .ok_or_else(|| self.arg_error("", "temporary out of range"))?;
            if slot.as_ref().is_none_or(|b| b.len() < bytes) {
                *slot = Some(
                    self.stream
                        .alloc_zeros::<u8>(bytes)
                        .map_err(driver(self.name))?,
                );
            }
            let buf = slot
                .as_ref()
                .ok_or_else(|| self.arg_error("", "temporary not allocated"))?;
            Ok(buf.device_ptr(&self.stream).0)
        };
        let launches =
            self.plan
                .plan_call(&call_args, &self.table_args, error_base, &mut temporary)?;
        for mut launch in launches {
            let (gx, gy) = launch.grid;
            let mut kernel_params = [launch.params.as_mut_ptr().cast::<std::ffi::c_void>()];
            // SAFETY: the kernel takes exactly one by-value parameter, its `_params` struct,
            // whose layout `params` reproduces (offsets recorded from the Rust twin and checked
            // against the C struct in tests); every pointer in it is a live device allocation
            // of this context, kept alive by `args`, `self._tables`, `self.temporaries` and
            // `errors` until the stream has run the kernel (callers sync before freeing).
            unsafe {
                cudarc::driver::result::launch_kernel(
                    self.functions[launch.kernel].cu_function(),
                    (gx, gy, 1),
                    (launch.block, 1, 1),
                    0,
                    self.stream.cu_stream(),
                    &mut kernel_params,
                )
            }
            .map_err(driver(self.name))?;
        }
        Ok(())
    }

    /// Waits for every enqueued launch and reports the first error a kernel recorded.
    pub fn sync(&self) -> Result<(), Error> {
        guarded(self.name, || {
            self.stream.synchronize().map_err(driver(self.name))?;
            let mut errors = self
                .errors
                .lock()
                .map_err(|_| self.arg_error("", "a previous call panicked"))?;
            let records = self
                .stream
                .clone_dtoh(&*errors)
                .map_err(driver(self.name))?;
            let recorded = recorded_error(self.name, self.plan.kernels, &records);
            if recorded.is_err() {
                self.stream
                    .memset_zeros(&mut *errors)
                    .map_err(driver(self.name))?;
            }
            recorded
        })
    }

    /// Captures the launches `body` enqueues (on the shared stream) as a graph to replay.
    /// Call each captured program once before capturing, so that its temporaries are
    /// allocated outside the graph.
    pub fn capture(&self, body: impl FnOnce() -> Result<(), Error>) -> Result<Graph, Error> {
        guarded(self.name, || {
            self.stream
                .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
                .map_err(driver(self.name))?;
            let ran = body();
            let graph = self
                .stream
                .end_capture(sys::CUgraphInstantiate_flags(0))
                .map_err(driver(self.name))?;
            ran?;
            let graph = graph.ok_or_else(|| Error::Execution {
                program: self.name.to_string(),
                message: "the capture recorded nothing".into(),
            })?;
            Ok(Graph { graph })
        })
    }

    /// The stream every program enqueues on (for timing with [`Timer`] or ordering other
    /// work after the launches).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

macro_rules! by_dtype {
    ($view:expr, $v:ident, $origin:ident => $body:expr) => {
        match $view {
            FieldView::Bool($v, $origin) => $body,
            FieldView::I32($v, $origin) => $body,
            FieldView::I64($v, $origin) => $body,
            FieldView::F32($v, $origin) => $body,
            FieldView::F64($v, $origin) => $body,
        }
    };
}

macro_rules! by_dtype_mut {
    ($view:expr, $v:ident, $origin:ident => $body:expr) => {
        match $view {
            FieldViewMut::Bool($v, $origin) => $body,
            FieldViewMut::I32($v, $origin) => $body,
            FieldViewMut::I64($v, $origin) => $body,
            FieldViewMut::F32($v, $origin) => $body,
            FieldViewMut::F64($v, $origin) => $body,
        }
    };
}

fn upload_view(stream: &Arc<CudaStream>, view: &FieldView<'_>) -> Result<RawDeviceField, Error> {
    by_dtype!(view, v, origin => RawDeviceField::upload(stream, v.view(), origin))
}

fn upload_view_mut(
    stream: &Arc<CudaStream>,
    view: &FieldViewMut<'_>,
) -> Result<RawDeviceField, Error> {
    by_dtype_mut!(view, v, origin => RawDeviceField::upload(stream, v.view(), origin))
}

fn download_view_mut(
    stream: &Arc<CudaStream>,
    device: &RawDeviceField,
    view: &mut FieldViewMut<'_>,
) -> Result<(), Error> {
    by_dtype_mut!(view, v, _origin => device.download_into(stream, v.view_mut()))
}

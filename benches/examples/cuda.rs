//! The GPU benchmark: generated CUDA kernels against the device's own copy bandwidth.
//!
//! * `calculate_nabla4`, `apply_diffusion_to_vn` and `compute_diagnostics_from_normal_wind` on
//!   the generated R2B6 grid × 80 levels, `hdiff` on 512×512×80: time per call and effective
//!   GB/s (bytes of every field argument read or written once) next to the device-to-device
//!   copy bandwidth measured in the same run;
//! * each of them compiled with `CudaOptions::hoist_column_work` beside the default;
//! * a K-block sweep of `calculate_nabla4`;
//! * a "granule step" (all of the above in sequence) launched call by call and replayed as a
//!   CUDA graph;
//! * `compile()` with a cold and a warm kernel cache.
//!
//! `cargo run --release -p gt4rs-benches --features cuda --example cuda`

use std::collections::BTreeMap;
use std::time::Instant;

use gt4rs::__private::ir::Type;
use gt4rs::cuda::{copy_bandwidth_gbps, CudaProgram, DeviceArg, RawDeviceField, Timer};
use gt4rs::grid::IcosahedralGrid;
use gt4rs::prelude::*;
use gt4rs::{CudaOptions, ScalarType, Settings};
use gt4rs_stencils::cartesian::dsl::hdiff;
use gt4rs_stencils::icon::dsl::diffusion::{apply_diffusion_to_vn, calculate_nabla4};
use gt4rs_stencils::icon::dsl::velocity_advection::compute_diagnostics_from_normal_wind;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const NLEV: usize = 80;
const REPS: usize = 20;

/// Random device arguments for every parameter of a program, by dimension name; scalars from
/// `scalar(name, dtype)`.
struct Arguments {
    fields: Vec<Option<RawDeviceField>>,
    scalars: Vec<Option<gt4rs::__private::args::ScalarValue>>,
    bytes: usize,
}

fn arguments(
    cuda: &CudaProgram,
    ir: &gt4rs::__private::ir::fieldview::Program,
    sizes: &BTreeMap<&str, usize>,
    scalar: &dyn Fn(&str, ScalarType) -> gt4rs::__private::args::ScalarValue,
    rng: &mut ChaCha8Rng,
) -> Arguments {
    use gt4rs::__private::args::ScalarValue;
    let mut out = Arguments {
        fields: vec![],
        scalars: vec![],
        bytes: 0,
    };
    for p in &ir.params {
        match &p.ty {
            Type::Field { dims, dtype } => {
                let shape: Vec<usize> = dims
                    .iter()
                    .map(|d| {
                        *sizes
                            .get(d.as_str())
                            .unwrap_or_else(|| panic!("no size for {d}"))
                    })
                    .collect();
                let origin = vec![0i64; shape.len()];
                let n: usize = shape.iter().product();
                let field = match dtype {
                    ScalarType::F64 => {
                        let a =
                            ndarray::ArrayD::from_shape_fn(shape, |_| rng.random_range(0.5..1.5));
                        out.bytes += n * 8;
                        RawDeviceField::from_array(cuda, a.view(), &origin)
                    }
                    ScalarType::F32 => {
                        let a = ndarray::ArrayD::from_shape_fn(shape, |_| {
                            rng.random_range(0.5f32..1.5)
                        });
                        out.bytes += n * 4;
                        RawDeviceField::from_array(cuda, a.view(), &origin)
                    }
                    ScalarType::Bool => {
                        let a = ndarray::ArrayD::from_shape_fn(shape, |_| rng.random_bool(0.5));
                        out.bytes += n;
                        RawDeviceField::from_array(cuda, a.view(), &origin)
                    }
                    ScalarType::I32 => {
                        let a = ndarray::ArrayD::from_elem(shape, 0i32);
                        out.bytes += n * 4;
                        RawDeviceField::from_array(cuda, a.view(), &origin)
                    }
                    ScalarType::I64 => {
                        let a = ndarray::ArrayD::from_elem(shape, 0i64);
                        out.bytes += n * 8;
                        RawDeviceField::from_array(cuda, a.view(), &origin)
                    }
                }
                .expect("upload");
                out.fields.push(Some(field));
                out.scalars.push(None);
            }
            Type::Scalar(t) => {
                out.fields.push(None);
                out.scalars.push(Some(scalar(&p.name, *t)));
            }
            _ => {
                out.fields.push(None);
                out.scalars.push(Some(ScalarValue::I32(0)));
            }
        }
    }
    out
}

fn device_args<'a>(
    ir: &gt4rs::__private::ir::fieldview::Program,
    a: &'a mut Arguments,
) -> Vec<DeviceArg<'a>> {
    use gt4rs::__private::ir::fieldview::Role;
    a.fields
        .iter_mut()
        .zip(&a.scalars)
        .zip(&ir.params)
        .map(|((f, s), p)| match (f.as_mut(), s) {
            (Some(f), _) => {
                if p.role == Role::In {
                    DeviceArg::Field(f)
                } else {
                    DeviceArg::FieldMut(f)
                }
            }
            (None, Some(s)) => DeviceArg::Scalar(*s),
            (None, None) => unreachable!("every parameter is a field or a scalar"),
        })
        .collect()
}

/// Median milliseconds of `REPS` timed runs of `f` (after one warm-up), synchronised.
fn time_ms(cuda: &CudaProgram, mut f: impl FnMut()) -> f64 {
    f();
    cuda.sync().expect("sync");
    let mut times: Vec<f32> = (0..REPS)
        .map(|_| {
            let t = Timer::start(cuda).expect("timer");
            f();
            t.stop_ms().expect("timer")
        })
        .collect();
    cuda.sync().expect("sync");
    times.sort_by(f32::total_cmp);
    f64::from(times[times.len() / 2])
}

fn scalar_for<'a>(
    sizes: &'a BTreeMap<&'a str, usize>,
    horizontal: &'static str,
) -> impl Fn(&str, ScalarType) -> gt4rs::__private::args::ScalarValue + 'a {
    use gt4rs::__private::args::ScalarValue;
    move |name: &str, t: ScalarType| {
        let int = |v: i64| match t {
            ScalarType::I64 => ScalarValue::I64(v),
            ScalarType::Bool => ScalarValue::Bool(v != 0),
            ScalarType::F64 => ScalarValue::F64(v as f64),
            ScalarType::F32 => ScalarValue::F32(v as f32),
            ScalarType::I32 => ScalarValue::I32(v as i32),
        };
        match name {
            "horizontal_start" => int(0),
            "horizontal_end" => int(sizes[horizontal] as i64),
            "vertical_start" => int(1),
            "vertical_end" => int(NLEV as i64 - 1),
            "nflatlev" => int(10),
            "ni" | "nj" => int(512),
            "nk" => int(NLEV as i64),
            "start_2nd_nudge_line_idx_e" => int(0),
            _ => match t {
                ScalarType::F64 => ScalarValue::F64(0.25),
                ScalarType::F32 => ScalarValue::F32(0.25),
                ScalarType::Bool => ScalarValue::Bool(false),
                _ => int(0),
            },
        }
    }
}

fn main() -> Result<(), Error> {
    // A private kernel cache, so that the first compile() below is a cold one.
    let cache_dir = std::env::temp_dir().join(format!("gt4rs-bench-cache-{}", std::process::id()));
    // SAFETY: no other thread exists yet (the rayon pool and CUDA start later), so nothing
    // reads the environment concurrently.
    unsafe { std::env::set_var("GT4RS_CACHE_DIR", &cache_dir) };
    if !gt4rs::cuda::cuda_available() {
        eprintln!(
            "no usable CUDA device: {}",
            gt4rs::cuda::unavailable_reason()
                .map(|e| e.to_string())
                .unwrap_or_default()
        );
        std::process::exit(2);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let grid = IcosahedralGrid::generate(2, 6)?;
    println!(
        "R2B6: {} cells, {} edges, {} vertices, {NLEV} levels",
        grid.num_cells, grid.num_edges, grid.num_vertices
    );
    let mut conns = Connectivities::new();
    use gt4rs_stencils::icon::dims::{C2E, E2C, E2C2E, E2C2V, E2V, V2C};
    conns = conns
        .with(&grid.connectivity::<E2C2V>()?)
        .with(&grid.connectivity::<E2C>()?)
        .with(&grid.connectivity::<E2V>()?)
        .with(&grid.connectivity::<E2C2E>()?)
        .with(&grid.connectivity::<V2C>()?)
        .with(&grid.connectivity::<C2E>()?);
    let sizes: BTreeMap<&str, usize> = [
        ("Cell", grid.num_cells),
        ("Edge", grid.num_edges),
        ("Vertex", grid.num_vertices),
        ("K", NLEV + 1),
        ("E2C2V", 4),
        ("E2C", 2),
        ("E2V", 2),
        ("E2C2E", 4),
        ("V2C", 6),
        ("C2E", 3),
        ("I", 512),
        ("J", 512),
    ]
    .into_iter()
    .collect();

    // Init: compile with a cold cache, then with a warm one.
    let options = Options::new(Backend::Cuda).with_connectivities(conns.clone());
    let t = Instant::now();
    let nabla4 = calculate_nabla4::compile(&options)?;
    let cold = t.elapsed();
    let t = Instant::now();
    let _again = calculate_nabla4::compile(&options)?;
    let warm = t.elapsed();
    println!("init calculate_nabla4: cold cache {cold:?}, warm cache {warm:?}");

    let probe = nabla4.cuda_program().expect("cuda");
    let copy = copy_bandwidth_gbps(probe, 1 << 30, 10)?;
    println!("device-to-device copy: {copy:.0} GB/s");
    println!(
        "{:<42} {:>10} {:>10} {:>8}",
        "program", "ms", "GB/s", "% copy"
    );

    let diffusion = apply_diffusion_to_vn::compile(&options)?;
    let diagnostics = compute_diagnostics_from_normal_wind::compile(&options)?;
    let hdiff_prog = hdiff::compile(&Options::new(Backend::Cuda))?;
    let runs: Vec<(
        &str,
        &CudaProgram,
        &gt4rs::__private::ir::fieldview::Program,
        &'static str,
    )> = vec![
        (
            "calculate_nabla4 (R2B6×80)",
            nabla4.cuda_program().expect("cuda"),
            calculate_nabla4::ir(),
            "Edge",
        ),
        (
            "apply_diffusion_to_vn (R2B6×80)",
            diffusion.cuda_program().expect("cuda"),
            apply_diffusion_to_vn::ir(),
            "Edge",
        ),
        (
            "compute_diagnostics_from_normal_wind (R2B6×80)",
            diagnostics.cuda_program().expect("cuda"),
            compute_diagnostics_from_normal_wind::ir(),
            "Edge",
        ),
        (
            "hdiff (512×512×80)",
            hdiff_prog.cuda_program().expect("cuda"),
            hdiff::ir(),
            "I",
        ),
    ];
    let mut all_args = Vec::new();
    for (name, cuda, ir, horizontal) in &runs {
        let scalar = scalar_for(&sizes, horizontal);
        let mut sizes_k = sizes.clone();
        if *name == "hdiff (512×512×80)" {
            sizes_k.insert("K", NLEV);
        }
        let mut args = arguments(cuda, ir, &sizes_k, &scalar, &mut rng);
        let bytes = args.bytes;
        let ms = time_ms(cuda, || {
            cuda.call_device(&mut device_args(ir, &mut args))
                .expect("launch");
        });
        let gbps = bytes as f64 / (ms * 1e-3) / 1e9;
        println!(
            "{name:<42} {ms:>10.3} {gbps:>10.0} {:>7.0}%",
            100.0 * gbps / copy
        );
        all_args.push(args);
    }

    // The column-work trade (`CudaOptions::hoist_column_work`): each program compiled again
    // with its column work kept across levels, timed on the same arguments beside the default.
    let hoisting = CudaOptions {
        hoist_column_work: true,
        ..CudaOptions::default()
    };
    let hoisted_options = options.clone().with_cuda(hoisting);
    let nabla4_hoisted = calculate_nabla4::compile(&hoisted_options)?;
    let diffusion_hoisted = apply_diffusion_to_vn::compile(&hoisted_options)?;
    let diagnostics_hoisted = compute_diagnostics_from_normal_wind::compile(&hoisted_options)?;
    let hdiff_hoisted = hdiff::compile(&Options::new(Backend::Cuda).with_cuda(hoisting))?;
    let hoisted = [
        nabla4_hoisted.cuda_program(),
        diffusion_hoisted.cuda_program(),
        diagnostics_hoisted.cuda_program(),
        hdiff_hoisted.cuda_program(),
    ];
    println!(
        "{:<42} {:>10} {:>10} {:>8}",
        "column work (same arguments)", "default", "hoisted", "ratio"
    );
    for (((name, cuda, ir, _), args), program) in runs.iter().zip(all_args.iter_mut()).zip(&hoisted)
    {
        let hoisted_cuda = program.expect("cuda");
        let default_ms = time_ms(cuda, || {
            cuda.call_device(&mut device_args(ir, args))
                .expect("launch");
        });
        let hoisted_ms = time_ms(hoisted_cuda, || {
            hoisted_cuda
                .call_device(&mut device_args(ir, args))
                .expect("launch");
        });
        println!(
            "{name:<42} {default_ms:>10.3} {hoisted_ms:>10.3} {:>8.2}",
            hoisted_ms / default_ms
        );
    }

    // K-block sweep of nabla4.
    for k_block in [1u32, 2, 4, 8, 16, 32] {
        let o = options.clone().with_program(
            "calculate_nabla4",
            Settings {
                cuda_k_block: Some(k_block),
                ..Settings::default()
            },
        );
        let p = calculate_nabla4::compile(&o)?;
        let cuda = p.cuda_program().expect("cuda");
        let ir = calculate_nabla4::ir();
        let mut args = arguments(cuda, ir, &sizes, &scalar_for(&sizes, "Edge"), &mut rng);
        let ms = time_ms(cuda, || {
            cuda.call_device(&mut device_args(ir, &mut args))
                .expect("launch");
        });
        println!("calculate_nabla4 k_block {k_block:>2}: {ms:.3} ms");
    }

    // A granule step (every program once, in sequence on the shared stream), call by call
    // and replayed as one CUDA graph.
    let step_ms = {
        let t = Instant::now();
        for _ in 0..REPS {
            for ((_, cuda, ir, _), args) in runs.iter().zip(all_args.iter_mut()) {
                cuda.call_device(&mut device_args(ir, args))
                    .expect("launch");
            }
        }
        for (_, cuda, _, _) in &runs {
            cuda.sync()?;
        }
        t.elapsed().as_secs_f64() * 1e3 / REPS as f64
    };
    let graph = probe.capture(|| {
        for ((_, cuda, ir, _), args) in runs.iter().zip(all_args.iter_mut()) {
            cuda.call_device(&mut device_args(ir, args))?;
        }
        Ok(())
    })?;
    let graph_ms = {
        let t = Instant::now();
        for _ in 0..REPS {
            graph.replay()?;
        }
        for (_, cuda, _, _) in &runs {
            cuda.sync()?;
        }
        t.elapsed().as_secs_f64() * 1e3 / REPS as f64
    };
    println!("granule step: {step_ms:.3} ms call by call, {graph_ms:.3} ms as one graph");
    let _ = std::fs::remove_dir_all(&cache_dir);
    Ok(())
}

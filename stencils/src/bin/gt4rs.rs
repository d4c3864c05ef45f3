//! The gt4rs command-line tool.

use clap::{Parser, Subcommand};

use gt4rs::cache::KernelCache;
use gt4rs::grid::RegionSpec;
use gt4rs_stencils::cli;

#[derive(Parser)]
#[command(name = "gt4rs", version, about = "gt4rs stencil tools")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The persistent cache of compiled CUDA kernels.
    Cache {
        #[command(subcommand)]
        command: CacheCommand,
    },
    /// CUDA kernels without a device.
    Cuda {
        #[command(subcommand)]
        command: CudaCommand,
    },
    /// ICON grids.
    Grid {
        #[command(subcommand)]
        command: GridCommand,
    },
    /// Per-program backend options.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Run a granule's main job.
    Run {
        #[command(subcommand)]
        command: RunCommand,
    },
    /// Time a program on the arguments of a recorded call (.npz, the refs convention): compile
    /// once, call once (the outputs `--out` writes), then time CALLS calls with the arguments
    /// taken from the file once. Threads: RAYON_NUM_THREADS (default: every core).
    Time {
        /// A program name (see `gt4rs verify --list`); the file must hold a call of it.
        program: String,
        /// The recorded call (`PROGRAM.npz`, optionally with a `PROGRAM.json` sidecar).
        #[arg(long)]
        inputs: std::path::PathBuf,
        /// Timed calls after the first.
        #[arg(long, default_value_t = 20)]
        calls: usize,
        /// Backend to run on: embedded, cpu or cuda.
        #[arg(long, default_value = "cpu")]
        backend: gt4rs::Backend,
        /// Write the outputs of the first call to this .npz, each under its parameter name.
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Write the timings to this .json file.
        #[arg(long)]
        report: Option<std::path::PathBuf>,
    },
    /// Run recorded program calls (.npz, the refs convention) and compare every output with the
    /// recorded one; exit status 1 if any file fails or cannot be run.
    Verify {
        /// Reference files (`NAME.npz`, optionally with a `NAME.json` sidecar).
        files: Vec<String>,
        /// Backend to run on: embedded, cpu or cuda.
        #[arg(long, default_value = "cpu")]
        backend: gt4rs::Backend,
        /// Largest relative error accepted per element.
        #[arg(long, default_value_t = 1e-12)]
        rtol: f64,
        /// List the programs gt4rs knows instead.
        #[arg(long)]
        list: bool,
    },
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Print the options PROGRAM runs with and where each comes from.
    Show {
        /// A program name (see `gt4rs verify --list`).
        program: String,
        /// Options file (default: the file named by GT4RS_CONFIG, if set).
        #[arg(long)]
        config: Option<std::path::PathBuf>,
        /// Device architecture used when the backend resolves to CUDA (e.g. sm_90).
        #[arg(long)]
        arch: Option<String>,
    },
}

#[derive(Subcommand)]
enum CudaCommand {
    /// Compile programs' kernels with NVRTC as `compile()` would for ARCH, with no device or
    /// driver (NVRTC's folder must be on LD_LIBRARY_PATH; build with `--features gt4rs/cuda`),
    /// and, where ptxas is found (GT4RS_PTXAS or PATH), assemble them and print registers,
    /// spills and PTX size per kernel; exit status 1 if a program fails.
    Ptx {
        /// Program names (see `gt4rs verify --list`); none or `all`: every registered program.
        programs: Vec<String>,
        /// The architecture, e.g. sm_80 or sm_90.
        #[arg(long, default_value = "sm_90")]
        arch: String,
        /// Folder for the PTX (and cubin) files.
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Options file (default: the file named by GT4RS_CONFIG, if set).
        #[arg(long)]
        config: Option<std::path::PathBuf>,
        /// NAME=VALUE: compile static argument NAME of every picked program that has one with
        /// VALUE compiled in, as a single listed value makes `compile()` do (repeatable).
        #[arg(long = "static")]
        statics: Vec<String>,
    },
}

#[derive(Subcommand)]
enum CacheCommand {
    /// List the cached kernels (label, size, key, integrity).
    List,
    /// Remove every cached kernel.
    Clear,
}

#[derive(Subcommand)]
enum RunCommand {
    /// Diffusion of a perturbed zonal jet: progress bar, per-program timings, pictures.
    Diffusion {
        /// `rNbK` (e.g. r2b4) or a grid file; the initial jet needs a spherical grid.
        #[arg(long, default_value = "r2b4")]
        grid: String,
        /// Full vertical levels.
        #[arg(long, default_value_t = 65)]
        levels: usize,
        /// Time steps (of 300 s).
        #[arg(long, default_value_t = gt4rs_stencils::diffusion::job::DEFAULT_STEPS)]
        steps: usize,
        /// Backend: embedded, cpu, cuda or auto.
        #[arg(long, default_value = "cpu")]
        backend: gt4rs::Backend,
        /// Write a Chrome trace (open in Perfetto) to this .json file.
        #[arg(long)]
        trace: Option<std::path::PathBuf>,
        /// Folder for the pictures.
        #[arg(long, default_value = "out/diffusion")]
        out: std::path::PathBuf,
        /// The ground: mountains (SLEVE coordinate; θ is also diffused truly horizontally over
        /// steep points) or flat.
        #[arg(long, default_value = "mountains")]
        terrain: gt4rs_stencils::diffusion::TerrainKind,
        /// After a run on several MPI ranks (feature `mpi`, started by mpirun), run again on
        /// one rank and compare every field bit for bit (exit status 2 on a difference).
        #[arg(long)]
        compare_single_rank: bool,
    },
    /// ICON's dynamical core (velocity advection, the nonhydrostatic solver's substeps and
    /// diffusion) on an atmosphere in solid-body rotation over mountains: progress bar,
    /// per-program timings, pictures of the mountain waves.
    Dycore {
        /// `rNbK` (e.g. r2b4) or a spherical grid file.
        #[arg(long, default_value = "r2b4")]
        grid: String,
        /// Full vertical levels.
        #[arg(long, default_value_t = 65)]
        levels: usize,
        /// Model steps (of 300 s, five dynamical substeps each).
        #[arg(long, default_value_t = 12)]
        steps: usize,
        /// Backend: embedded, cpu, cuda or auto.
        #[arg(long, default_value = "cpu")]
        backend: gt4rs::Backend,
        /// Write a Chrome trace (open in Perfetto) to this .json file.
        #[arg(long)]
        trace: Option<std::path::PathBuf>,
        /// Folder for the pictures.
        #[arg(long, default_value = "out/dycore")]
        out: std::path::PathBuf,
        /// The ground: mountains (SLEVE coordinate) or flat.
        #[arg(long, default_value = "mountains")]
        terrain: gt4rs_stencils::diffusion::TerrainKind,
        /// Zonal wind at the equator (m/s) of the solid-body rotation.
        #[arg(long, default_value_t = 20.0)]
        u0: f64,
        /// Leave out the diffusion granule after each model step.
        #[arg(long)]
        no_diffusion: bool,
    },
}

#[derive(Subcommand)]
enum GridCommand {
    /// Build a grid and print its sizes, zone bounds, edge lengths and areas, and the
    /// result of the consistency checks (exit status 1 if one fails).
    // Western longitudes and southern latitudes are negative numbers, not options.
    #[command(allow_negative_numbers = true)]
    Info {
        /// `rNbK` (e.g. r2b4), `torus:NXxNY`, a .npz grid file, or an ICON .nc grid file
        /// (feature `netcdf`).
        grid: String,
        /// Cut a limited-area grid out of the global one.
        #[arg(long)]
        regional: bool,
        /// Centre latitude of the region, degrees.
        #[arg(long, default_value_t = 46.8)]
        center_lat: f64,
        /// Centre longitude of the region, degrees.
        #[arg(long, default_value_t = 8.2)]
        center_lon: f64,
        /// Radius of the region, km.
        #[arg(long, default_value_t = 3000.0)]
        radius_km: f64,
        /// Also write the grid to this .npz file.
        #[arg(long)]
        npz: Option<String>,
    },
}

fn main() {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Cache { command } => KernelCache::open_default().and_then(|cache| {
            let mut out = std::io::stdout();
            match command {
                CacheCommand::List => cli::cache::list(&cache, &mut out),
                CacheCommand::Clear => cli::cache::clear(&cache, &mut out),
            }
            .map(|()| true)
        }),
        Command::Cuda {
            command:
                CudaCommand::Ptx {
                    programs,
                    arch,
                    out,
                    config,
                    statics,
                },
        } => cli::cuda::ptx(
            &programs,
            &arch,
            out.as_deref(),
            config.as_deref(),
            &statics,
            &mut std::io::stdout(),
        ),
        Command::Grid {
            command:
                GridCommand::Info {
                    grid,
                    regional,
                    center_lat,
                    center_lon,
                    radius_km,
                    npz,
                },
        } => {
            let region = regional.then_some(RegionSpec {
                center_lat_deg: center_lat,
                center_lon_deg: center_lon,
                radius: radius_km * 1e3,
            });
            cli::grid::info(&grid, region, npz.as_deref())
        }
        Command::Run {
            command:
                RunCommand::Diffusion {
                    grid,
                    levels,
                    steps,
                    backend,
                    trace,
                    out,
                    terrain,
                    compare_single_rank,
                },
        } => cli::run::diffusion(
            &grid,
            levels,
            steps,
            backend,
            trace,
            out,
            terrain,
            compare_single_rank,
        ),
        Command::Run {
            command:
                RunCommand::Dycore {
                    grid,
                    levels,
                    steps,
                    backend,
                    trace,
                    out,
                    terrain,
                    u0,
                    no_diffusion,
                },
        } => cli::run::dycore(&gt4rs_stencils::dycore::job::JobSpec {
            grid,
            levels,
            steps,
            backend,
            trace,
            out: Some(out),
            terrain,
            atmosphere: gt4rs_stencils::dycore::initial::RotatingAtmosphere {
                u0,
                ..Default::default()
            },
            diffusion: !no_diffusion,
            ..Default::default()
        }),
        Command::Config {
            command:
                ConfigCommand::Show {
                    program,
                    config,
                    arch,
                },
        } => cli::config::show(&program, config.as_deref(), arch.as_deref()),
        Command::Time {
            program,
            inputs,
            calls,
            backend,
            out,
            report,
        } => cli::time::run(&cli::time::Request {
            program: &program,
            inputs: &inputs,
            calls,
            backend,
            out: out.as_deref(),
            report: report.as_deref(),
        }),
        Command::Verify {
            files,
            backend,
            rtol,
            list,
        } => {
            if list {
                for p in gt4rs_stencils::programs::ALL {
                    cli::stdout::write(format_args!("{}\n", p.name));
                }
                Ok(true)
            } else if files.is_empty() {
                Err(gt4rs::Error::Config(
                    "verify: name at least one .npz file (or --list)".to_string(),
                ))
            } else {
                Ok(cli::verify::run(&files, backend, rtol))
            }
        }
    };
    match outcome {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("gt4rs: {e}");
            std::process::exit(2);
        }
    }
}

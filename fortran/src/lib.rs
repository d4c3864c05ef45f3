//! gt4rs-icon: ICON's programs and the diffusion granule behind a generated C ABI, for a
//! Fortran model (docs/fortran.md).
//!
//! The library builds as a static and a shared library (`libgt4rs_icon.a`, `.so`); its C
//! header and Fortran module (`gt4rs_icon.h`, `gt4rs_icon.f90`) are written by the
//! `gt4rs-icon-bindings` command from the declarations `gt4rs::export_c!` generated below.
//!
//! * programs: `calculate_nabla4`, `apply_diffusion_to_vn` (each `_compile`, call, `_free`),
//!   with options taking ICON's neighbour tables;
//! * the granule: [`granule::grid_init`], [`granule::diffusion_init`],
//!   [`granule::diffusion_run`], [`granule::finalize`];
//! * the main job's setup for a Fortran driver ([`main_job`]).

pub mod granule;
pub mod main_job;

use gt4rs_stencils::icon::dims::{C2E, C2E2C, E2C, E2C2V, V2E};

gt4rs::dimensions! {
    /// ICON's refinement levels (`min_rl:max_rl`), indexing the zone start and end indices.
    pub RefinLevel: horizontal;
    /// The steps of a timed run.
    pub Step: horizontal;
    /// The elements of a small array of values (sizes, settings).
    pub Item: horizontal;
}

gt4rs::export_c! {
    library gt4rs_icon;
    offsets { E2C2V, E2C, C2E, C2E2C, V2E }
    programs {
        calculate_nabla4 = gt4rs_stencils::icon::dsl::diffusion::calculate_nabla4;
        apply_diffusion_to_vn = gt4rs_stencils::icon::dsl::diffusion::apply_diffusion_to_vn;
    }
    functions {
        granule::grid_init,
        granule::diffusion_init,
        granule::diffusion_run,
        granule::diffusion_run_timed_in_rust,
        granule::finalize,
        main_job::main_job_setup,
        main_job::main_job_sizes,
        main_job::main_job_grid,
        main_job::main_job_fields,
        main_job::main_job_reference,
    }
}

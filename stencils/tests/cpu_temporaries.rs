//! The CPU backend's temporaries: ∇²θ with its edge gradient written as a sum over E2C (a
//! reduction, so the lowering gathers it on edges into a temporary that the cell sum reads
//! through C2E; the library's `calculate_nabla2_for_theta`, an edge difference of two reads, is
//! recomputed per cell instead). On a limited-area grid that keeps its -1 entries, the
//! temporary must cover only the edges the domain (cells from the nudging zone) reaches, whose
//! E2C slots are valid; its buffers are kept by the compiled program, so a repeated call
//! allocates nothing, and calls on several threads at once stay correct.

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell as StdCell;

use gt4rs::grid::{Grid, GridDim, Zone};
use gt4rs::prelude::*;
use gt4rs::testing::{self, Tolerance};
use gt4rs::{Backend, CpuOptions, Options};
use gt4rs_stencils::icon::dims::{Cell, Edge, C2E, E2C, K};

/// The edge gradient of θ as a weighted sum over the edge's two cells (ICON's weights are ±1).
#[field_operator]
fn _edge_gradient(
    kh_smag_e: Field<(Edge, K), f64>,
    inv_dual_edge_length: Field<Edge, f64>,
    theta_v: Field<(Cell, K), f64>,
    e2c_weights: Field<(Edge, E2C), f64>,
) -> Field<(Edge, K), f64> {
    kh_smag_e * inv_dual_edge_length * neighbor_sum(e2c_weights * theta_v.at(E2C), E2C)
}

#[field_operator]
fn _nabla2_through_edges(
    kh_smag_e: Field<(Edge, K), f64>,
    inv_dual_edge_length: Field<Edge, f64>,
    theta_v: Field<(Cell, K), f64>,
    e2c_weights: Field<(Edge, E2C), f64>,
    geofac_div: Field<(Cell, C2E), f64>,
) -> Field<(Cell, K), f64> {
    let gradient = _edge_gradient(kh_smag_e, inv_dual_edge_length, theta_v, e2c_weights);
    neighbor_sum(gradient.at(C2E) * geofac_div, C2E)
}

#[allow(clippy::too_many_arguments)]
#[program]
fn nabla2_through_edges(
    kh_smag_e: &Field<(Edge, K), f64>,
    inv_dual_edge_length: &Field<Edge, f64>,
    theta_v: &Field<(Cell, K), f64>,
    e2c_weights: &Field<(Edge, E2C), f64>,
    geofac_div: &Field<(Cell, C2E), f64>,
    z_temp: &mut Field<(Cell, K), f64>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _nabla2_through_edges(
        kh_smag_e,
        inv_dual_edge_length,
        theta_v,
        e2c_weights,
        geofac_div,
    )
    .write_to(
        z_temp,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Counts the allocations of the calling thread while it is counting.
struct CountingAllocator;

thread_local! {
    static COUNTING: StdCell<bool> = const { StdCell::new(false) };
    static ALLOCATIONS: StdCell<usize> = const { StdCell::new(0) };
}

fn note_allocation() {
    // `try_with`: the thread-locals may be gone while a thread exits.
    let counting = COUNTING.try_with(|c| c.get()).unwrap_or(false);
    if counting {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every call forwards to the system allocator unchanged; the counting touches only
// const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: the caller's contract is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation();
        // SAFETY: `ptr` came from `System` with `layout`; the caller's contract is `realloc`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The allocations `f` makes on the calling thread.
fn allocations_of(f: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(|n| n.get())
}

const NLEV: i64 = 6;

/// A limited-area grid cut from R2B3 that keeps its boundary -1 entries.
fn limited_area_grid() -> Grid {
    support::limited_area_grid().grid
}

struct Inputs {
    kh_smag_e: Field<(Edge, K), f64>,
    inv_dual_edge_length: Field<Edge, f64>,
    theta_v: Field<(Cell, K), f64>,
    e2c_weights: Field<(Edge, E2C), f64>,
    geofac_div: Field<(Cell, C2E), f64>,
    cells: (i32, i32),
}

fn random_inputs(grid: &Grid, seed: u64) -> Inputs {
    let mut rng = testing::rng(seed);
    fn random<D: gt4rs::Dims>(
        rng: &mut testing::TestRng,
        domain: &[std::ops::Range<i64>],
    ) -> Field<D, f64> {
        testing::random_field_in(rng, domain, -1.0..1.0).expect("field")
    }
    let (nc, ne) = (
        grid.size(GridDim::Cell) as i64,
        grid.size(GridDim::Edge) as i64,
    );
    let start = grid.start(GridDim::Cell, Zone::Nudging).expect("zone") as i32;
    let end = grid.end(GridDim::Cell, Zone::Local).expect("zone") as i32;
    Inputs {
        kh_smag_e: random(&mut rng, &[0..ne, 0..NLEV]),
        inv_dual_edge_length: random(&mut rng, &[0..ne]),
        theta_v: random(&mut rng, &[0..nc, 0..NLEV]),
        e2c_weights: random(&mut rng, &[0..ne, 0..2]),
        geofac_div: random(&mut rng, &[0..nc, 0..3]),
        cells: (start, end),
    }
}

fn poisoned(grid: &Grid) -> Field<(Cell, K), f64> {
    let nc = grid.size(GridDim::Cell) as i64;
    testing::poisoned(&[0..nc, 0..NLEV]).expect("field")
}

fn run(
    program: &nabla2_through_edges::Compiled,
    inputs: &Inputs,
    z_temp: &mut Field<(Cell, K), f64>,
) -> Result<(), gt4rs::Error> {
    program.call(nabla2_through_edges::Args {
        kh_smag_e: &inputs.kh_smag_e,
        inv_dual_edge_length: &inputs.inv_dual_edge_length,
        theta_v: &inputs.theta_v,
        e2c_weights: &inputs.e2c_weights,
        geofac_div: &inputs.geofac_div,
        z_temp,
        horizontal_start: inputs.cells.0,
        horizontal_end: inputs.cells.1,
        vertical_start: 0,
        vertical_end: NLEV as i32,
    })
}

/// Equal within 1e-12 relative to `a`, the poison (outside the domain) in the same places.
fn same(a: &Field<(Cell, K), f64>, b: &Field<(Cell, K), f64>) -> bool {
    testing::compare(a, b, Tolerance::Relative(1e-12)).is_ok()
}

fn compile(grid: &Grid, backend: Backend, cpu: CpuOptions) -> nabla2_through_edges::Compiled {
    let options = Options::new(backend)
        .with_connectivities(support::connectivities_of(grid))
        .with_cpu(cpu);
    nabla2_through_edges::compile(&options).expect("compiles")
}

#[test]
fn the_temporary_covers_only_the_reach_of_the_domain_on_a_grid_with_skips() {
    let lowered = gt4rs::__private::ir::lower::lower(nabla2_through_edges::ir()).expect("lowers");
    assert_eq!(lowered.stages.len(), 2, "the edge gradient is a temporary");
    let grid = limited_area_grid();
    assert!(
        grid.table("E2C").expect("E2C").iter().any(|&n| n < 0),
        "the cut keeps -1 entries in E2C"
    );
    let inputs = random_inputs(&grid, 7);
    let mut expected = poisoned(&grid);
    run(
        &compile(&grid, Backend::Embedded, CpuOptions::default()),
        &inputs,
        &mut expected,
    )
    .expect("the embedded backend runs it");
    for cpu in [
        CpuOptions {
            parallel_threshold: usize::MAX,
            chunk: 64,
            k_block: 0,
            stage_group_chunk: 64,
            vectors: gt4rs::Vectors::Avx512,
        },
        CpuOptions {
            parallel_threshold: 0,
            chunk: 7,
            k_block: 2,
            stage_group_chunk: 5,
            vectors: gt4rs::Vectors::Baseline,
        },
    ] {
        let mut actual = poisoned(&grid);
        run(&compile(&grid, Backend::Cpu, cpu), &inputs, &mut actual)
            .expect("the CPU backend runs it");
        assert!(same(&actual, &expected));
        let (start, end) = inputs.cells;
        let inside = actual
            .as_array()
            .slice(ndarray::s![start as usize..end as usize, ..])
            .iter()
            .all(|v| v.is_finite());
        assert!(inside, "every point of the domain is written");
    }
}

/// Options that run every stage on the calling thread only: rayon's task queue, which
/// allocates, is no part of the program.
fn serial_options() -> CpuOptions {
    CpuOptions {
        parallel_threshold: usize::MAX,
        chunk: 64,
        k_block: 0,
        stage_group_chunk: 64,
        vectors: gt4rs::Vectors::Avx512,
    }
}

#[test]
fn a_repeated_call_allocates_nothing() {
    let grid = limited_area_grid();
    let inputs = random_inputs(&grid, 11);
    let serial = serial_options();
    let program = compile(&grid, Backend::Cpu, serial);
    let mut first = poisoned(&grid);
    let first_allocations = allocations_of(|| run(&program, &inputs, &mut first).expect("runs"));
    assert!(
        first_allocations > 0,
        "the first call allocates its temporary"
    );
    let mut again = poisoned(&grid);
    let allocations = allocations_of(|| run(&program, &inputs, &mut again).expect("runs"));
    assert_eq!(allocations, 0, "a repeated call allocates");
    assert!(same(&first, &again));
}

#[test]
fn calls_on_several_threads_at_once_agree() {
    let grid = limited_area_grid();
    let program = compile(&grid, Backend::Cpu, CpuOptions::default());
    let all_inputs: Vec<Inputs> = (0..4).map(|s| random_inputs(&grid, 100 + s)).collect();
    let expected: Vec<_> = all_inputs
        .iter()
        .map(|inputs| {
            let mut out = poisoned(&grid);
            run(&program, inputs, &mut out).expect("runs");
            out
        })
        .collect();
    std::thread::scope(|scope| {
        for (inputs, expected) in all_inputs.iter().zip(&expected) {
            let (program, grid) = (&program, &grid);
            scope.spawn(move || {
                for _ in 0..20 {
                    let mut out = poisoned(grid);
                    run(program, inputs, &mut out).expect("runs");
                    assert!(same(&out, expected));
                }
            });
        }
    });
}

#[field_operator]
fn _doubled(theta_v: Field<(Cell, K), f64>) -> Field<(Cell, K), f64> {
    theta_v * 2.0
}

/// Two calls over cells whose stages run tile by tile together (`gt4rs_ir::tile_groups`).
#[program]
fn doubled_twice(
    theta_v: &Field<(Cell, K), f64>,
    a: &mut Field<(Cell, K), f64>,
    b: &mut Field<(Cell, K), f64>,
) {
    _doubled(theta_v).write_to(a);
    _doubled(a).write_to(b);
}

#[test]
fn a_repeated_call_of_stages_run_together_allocates_nothing() {
    let serial = serial_options();
    let program =
        doubled_twice::compile(&Options::new(Backend::Cpu).with_cpu(serial)).expect("compiles");
    let domain = [0..10, 0..NLEV];
    let field = |v: f64| Field::filled(&domain, v, gt4rs::Layout::default()).expect("valid");
    let theta_v: Field<(Cell, K), f64> = field(1.5);
    let (mut a, mut b) = (field(f64::NAN), field(f64::NAN));
    let mut call = || {
        program
            .call(doubled_twice::Args {
                theta_v: &theta_v,
                a: &mut a,
                b: &mut b,
            })
            .expect("runs")
    };
    call();
    assert_eq!(allocations_of(&mut call), 0, "a repeated call allocates");
    assert!(b.as_array().iter().all(|&v| v == 6.0));
}

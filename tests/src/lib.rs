//! Shared helpers of the gt4rs test suite: the dimensions and meshes of GT4Py's test cases,
//! seeded random fields, NaN poisoning, comparison with tolerance, the backend loop, and where
//! the ICON4Py reference data lies ([`refs`]).
//!
//! A conformance case declares its operators and program, builds inputs with [`random_field`],
//! poisons its outputs with [`poisoned`], runs on every backend through [`for_each_backend`]
//! and checks each output with [`expect_field`] against a reference written as plain loops.

pub mod cuda_host;
pub mod fuzz;
pub mod refs;

/// The user's guide: every Rust block of docs/guide.md runs as a doctest of this crate, so the
/// guide cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../docs/guide.md")]
pub struct UserGuide;

use std::ops::Range;

use gt4rs::prelude::*;
use gt4rs::testing;
use gt4rs::Dims;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

pub use rand_chacha::ChaCha8Rng as TestRng;

gt4rs::dimensions! {
    /// GT4Py's `unstructured_case` dimensions.
    pub Vertex, Edge, Cell: horizontal;
    /// GT4Py's `cartesian_case` dimensions.
    pub I, J: horizontal;
    /// Full levels.
    pub K: vertical;
    /// Half levels (ICON4Py's `KHalfDim`), a second vertical dimension.
    pub KHalf: vertical;
}

gt4rs::offsets! {
    /// The four edges of a vertex of the periodic simple mesh.
    pub V2E: Vertex => Edge [4];
    /// The two vertices of an edge.
    pub E2V: Edge => Vertex [2];
    /// The four vertices of a cell.
    pub C2V: Cell => Vertex [4];
    /// The four edges of a cell.
    pub C2E: Cell => Edge [4];
    /// The edges of a vertex of the skip-value mesh: up to five, -1 where there are fewer.
    pub V2E5: Vertex => Edge [5] with skip_values;
}

/// Sizes of GT4Py's `cartesian_case`.
pub const NI: usize = 5;
pub const NJ: usize = 7;
pub const NK: usize = 9;

/// One configuration a case runs on: a backend, and its tuning. The CPU backend runs three
/// times: with its defaults (small cases stay on the calling thread), with every stage split
/// into tiny parallel chunks (and stages that may share tiles run tile by tile together, in
/// tiles cut elsewhere), and with columns split into blocks of levels (`k_block`), so the
/// rayon path, chunk and tile borders and level-block borders are tested on small meshes too. The CUDA
/// kernels run emulated on the host (where g++ exists) with level blocks of 3, so a column's
/// last block is partial, and on a device where one is present.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TestBackend {
    pub backend: Backend,
    pub cpu: Option<gt4rs::CpuOptions>,
    pub cuda: Option<gt4rs::CudaOptions>,
    /// The CUDA kernels run on the host emulator instead of a device.
    pub emulated: bool,
}

impl TestBackend {
    /// Options running on this configuration, without connectivities.
    pub fn options(self) -> Options {
        let mut options = Options::new(self.backend);
        if let Some(cpu) = self.cpu {
            options = options.with_cpu(cpu);
        }
        if let Some(cuda) = self.cuda {
            options = options.with_cuda(cuda);
        }
        if self.emulated {
            options = options.with_cuda_emulator(cuda_host::emulator());
        }
        options
    }
    /// Options running on this configuration with `connectivities` bound.
    pub fn options_with(self, connectivities: Connectivities) -> Options {
        self.options().with_connectivities(connectivities)
    }
    /// The name `GT4RS_TEST_BACKENDS` selects it by: the backend's, with `-emulated` for the
    /// host emulation of the CUDA kernels.
    pub fn short_name(self) -> String {
        if self.emulated {
            format!("{}-emulated", self.backend.name())
        } else {
            self.backend.name().to_string()
        }
    }
    pub fn name(self) -> String {
        match (self.cpu, self.cuda) {
            (Some(cpu), _) => format!(
                "{} (parallel threshold {}, chunk {}, k block {}, stage group chunk {}{})",
                self.short_name(),
                cpu.parallel_threshold,
                cpu.chunk,
                cpu.k_block,
                cpu.stage_group_chunk,
                match cpu.vectors {
                    gt4rs::Vectors::Avx512 => "",
                    gt4rs::Vectors::Avx2 => ", at most AVX2",
                    gt4rs::Vectors::Baseline => ", the build target's vectors",
                }
            ),
            (_, Some(cuda)) => format!(
                "{} (block size {}, k block {})",
                self.short_name(),
                cuda.block_size,
                cuda.k_block
            ),
            _ => self.short_name(),
        }
    }
}

/// Every configuration this machine can run: see [`TestBackend`]. Without g++ the emulated CUDA
/// configuration is left out, without a device the CUDA one; each says so once.
pub fn available_backends() -> Vec<TestBackend> {
    let chunked = gt4rs::CpuOptions {
        parallel_threshold: 0,
        chunk: 2,
        k_block: 0,
        // Tiles of stages run together cut elsewhere than single stages' chunks.
        stage_group_chunk: 3,
        // The kernels' copy for the build's target (the default runs the widest copy the CPU
        // has). This crate's own programs have that copy only (`build.rs`); the library's,
        // which its tests call too, have one per vector width.
        vectors: gt4rs::Vectors::Baseline,
    };
    // One horizontal tile, so every column is split into one block of levels per thread.
    let split_columns = gt4rs::CpuOptions {
        parallel_threshold: 0,
        chunk: 1 << 30,
        k_block: 1,
        // Split columns: stages of a group run one after the other.
        stage_group_chunk: 1 << 30,
        // The library's programs' AVX2 copy, where the CPU has AVX-512 too.
        vectors: gt4rs::Vectors::Avx2,
    };
    let plain = |backend| TestBackend {
        backend,
        cpu: None,
        cuda: None,
        emulated: false,
    };
    let cpu = |tuning| TestBackend {
        cpu: Some(tuning),
        ..plain(Backend::Cpu)
    };
    let mut all = vec![
        plain(Backend::Embedded),
        plain(Backend::Cpu),
        cpu(chunked),
        cpu(split_columns),
    ];
    // Warp-sized blocks and level blocks of 3: partial blocks along both axes; the column
    // work hoisted, as the default's tunings do not.
    let odd_blocks = gt4rs::CudaOptions {
        block_size: 32,
        k_block: 3,
        max_registers: 0,
        fma_contraction: false,
        hoist_column_work: true,
    };
    static SAID: std::sync::Once = std::sync::Once::new();
    let mut skipped = Vec::new();
    if cuda_host::gxx_available() {
        all.push(TestBackend {
            cuda: Some(odd_blocks),
            emulated: true,
            ..plain(Backend::Cuda)
        });
    } else {
        skipped.push("cuda-emulated (no g++)");
    }
    if gt4rs::cuda::cuda_available() {
        all.push(TestBackend {
            cuda: Some(odd_blocks),
            ..plain(Backend::Cuda)
        });
    } else {
        skipped.push("cuda (no usable CUDA device)");
    }
    SAID.call_once(|| {
        for s in &skipped {
            eprintln!("skipped configuration: {s}");
        }
    });
    all
}

/// The configurations every conformance case runs on: [`available_backends`], restricted by
/// `GT4RS_TEST_BACKENDS` (a comma separated list of [`TestBackend::short_name`]s, e.g.
/// `embedded,cuda-emulated`). A list that selects nothing is an error: a run that checked
/// nothing must not pass.
pub fn backends() -> Vec<TestBackend> {
    let all = available_backends();
    match std::env::var("GT4RS_TEST_BACKENDS") {
        Ok(list) if !list.trim().is_empty() => {
            let chosen: Vec<TestBackend> = all
                .iter()
                .copied()
                .filter(|b| list.split(',').any(|name| name.trim() == b.short_name()))
                .collect();
            let mut names: Vec<String> = all.iter().map(|b| b.short_name()).collect();
            names.dedup();
            assert!(
                !chosen.is_empty(),
                "GT4RS_TEST_BACKENDS={list} selects no configuration this machine can run (it can run: {})",
                names.join(", ")
            );
            chosen
        }
        _ => all,
    }
}

/// Runs `case` once per configuration; an `Err` fails the test naming the configuration.
pub fn for_each_backend(mut case: impl FnMut(TestBackend) -> Result<(), Error>) {
    for backend in backends() {
        // Failed checks panic inside `case`: this line names the configuration they ran on.
        eprintln!("running on backend {}", backend.name());
        if let Err(e) = case(backend) {
            panic!("backend {}: {e}", backend.name());
        }
    }
}

/// The widest vectors a program of this crate runs: `gt4rs-tests` builds one copy of the kernels
/// (its build script sets `GT4RS_KERNEL_COPIES`), the build target's, and `compile()` lowers
/// `cpu.vectors` to that copy and to what the CPU has.
pub fn widest_vectors_of_this_build() -> gt4rs::Vectors {
    use gt4rs::Vectors;
    let target = if cfg!(all(target_arch = "x86_64", target_feature = "avx512f")) {
        Vectors::Avx512
    } else if cfg!(all(target_arch = "x86_64", target_feature = "avx2")) {
        Vectors::Avx2
    } else {
        Vectors::Baseline
    };
    target.min(gt4rs::__private::cpu::widest_vectors_here())
}

/// The seeded generator of one case (each case picks its own seed, so cases stay independent).
pub fn rng(seed: u64) -> ChaCha8Rng {
    testing::rng(seed)
}

/// Element types the helpers can draw, poison and compare.
pub use gt4rs::testing::TestScalar;

/// `got` equals `want` within the type's rounding (`TestScalar::ROUNDING`): the conformance
/// references are hand-written loops that may compute in another order.
pub fn close_to<T: TestScalar>(got: T, want: T) -> bool {
    got.close(want, T::ROUNDING)
}

/// A field over `domain` (one half-open range per dimension, any start) of random values.
pub fn random_field<D: Dims, T: TestScalar>(
    rng: &mut ChaCha8Rng,
    domain: &[Range<i64>],
) -> Field<D, T> {
    testing::random_field(rng, domain).expect("test domain")
}

/// A field of floats drawn uniformly from `lo..hi` (for math functions with a restricted domain).
pub fn random_field_in<D: Dims>(
    rng: &mut ChaCha8Rng,
    domain: &[Range<i64>],
    range: Range<f64>,
) -> Field<D, f64> {
    testing::random_field_in(rng, domain, range).expect("test domain")
}

/// A field of integers drawn uniformly from `range`.
pub fn random_int_field<D: Dims>(
    rng: &mut ChaCha8Rng,
    domain: &[Range<i64>],
    range: Range<i32>,
) -> Field<D, i32> {
    Field::from_fn(domain, Layout::default(), |_| {
        rng.random_range(range.clone())
    })
    .expect("test domain")
}

/// An output field over `domain` filled with the poison value.
pub fn poisoned<D: Dims, T: TestScalar>(domain: &[Range<i64>]) -> Field<D, T> {
    testing::poisoned(domain).expect("test domain")
}

/// Every point of `domain`, in row-major order.
pub fn points(domain: &[Range<i64>]) -> Vec<Vec<i64>> {
    let mut all = vec![Vec::new()];
    for range in domain {
        all = all
            .into_iter()
            .flat_map(|prefix| {
                range.clone().map(move |i| {
                    let mut p = prefix.clone();
                    p.push(i);
                    p
                })
            })
            .collect();
    }
    all
}

fn inside(point: &[i64], domain: &[Range<i64>]) -> bool {
    point.iter().zip(domain).all(|(i, r)| r.contains(i))
}

/// Checks `got`: inside `written` every point must be close to `want(point)`; every other point
/// of the field must still hold the poison.
pub fn expect_field<D: Dims, T: TestScalar>(
    label: &str,
    got: &Field<D, T>,
    written: &[Range<i64>],
    want: impl Fn(&[i64]) -> T,
) {
    assert_eq!(
        got.domain().len(),
        written.len(),
        "{label}: rank of the written domain"
    );
    let mut wrong = Vec::new();
    for point in points(&got.domain()) {
        let value = got.get(&point).expect("a point of the field's own domain");
        if inside(&point, written) {
            let expected = want(&point);
            if !close_to(value, expected) {
                wrong.push(format!("{point:?}: got {value:?}, want {expected:?}"));
            }
        } else if !value.is_poison() {
            wrong.push(format!(
                "{point:?} is outside {written:?} but was written: {value:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{label}: {} wrong points, the first ones:\n  {}",
        wrong.len(),
        wrong
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

/// Reads an input at a point the reference needs (panics with the point if the case is wrong).
pub fn at<D: Dims, T: TestScalar>(field: &Field<D, T>, point: &[i64]) -> T {
    field
        .get(point)
        .unwrap_or_else(|| panic!("reference reads {point:?} outside {:?}", field.domain()))
}

/// The failure an error's message describes, without the note the CPU kernels add about what
/// a call that failed inside a loop had written (the rest is the same on every backend).
pub fn failure_described(message: &str) -> &str {
    message
        .split(gt4rs::__private::cpu::WROTE_IN_PLACE)
        .next()
        .unwrap_or(message)
}

/// Asserts that `result` is an error whose message contains every one of `needles`.
pub fn expect_error<T>(result: Result<T, Error>, needles: &[&str]) {
    match result {
        Ok(_) => panic!("expected an error mentioning {needles:?}, but the call succeeded"),
        Err(e) => {
            let message = e.to_string();
            eprintln!("expected error: {message}");
            for needle in needles {
                assert!(
                    message.contains(needle),
                    "error `{message}` does not mention `{needle}`"
                );
            }
        }
    }
}

/// GT4Py's `simple_mesh` sizes: a 3 × 3 periodic quad mesh (9 vertices, 18 edges), with the
/// neighbour tables of the first 8 of its 9 cells.
pub struct SimpleMesh {
    pub n_vertices: usize,
    pub n_edges: usize,
    pub n_cells: usize,
    pub v2e: Connectivity<V2E>,
    pub e2v: Connectivity<E2V>,
    pub c2v: Connectivity<C2V>,
    pub c2e: Connectivity<C2E>,
}

impl SimpleMesh {
    pub fn new() -> Self {
        const N: usize = 3;
        let vertex = |r: usize, c: usize| ((r % N) * N + c % N) as i32;
        // Edge h(r, c) joins (r, c)–(r, c+1); edge v(r, c) = 9 + h joins (r, c)–(r+1, c).
        let horizontal = |r: usize, c: usize| ((r % N) * N + c % N) as i32;
        let vertical = |r: usize, c: usize| (N * N + (r % N) * N + c % N) as i32;
        let mut v2e = Vec::new();
        let mut e2v = vec![0; 2 * 2 * N * N];
        for r in 0..N {
            for c in 0..N {
                v2e.extend([
                    horizontal(r, c),
                    horizontal(r, c + N - 1),
                    vertical(r, c),
                    vertical(r + N - 1, c),
                ]);
                let h = horizontal(r, c) as usize;
                e2v[2 * h] = vertex(r, c);
                e2v[2 * h + 1] = vertex(r, c + 1);
                let v = vertical(r, c) as usize;
                e2v[2 * v] = vertex(r, c);
                e2v[2 * v + 1] = vertex(r + 1, c);
            }
        }
        let n_cells = 8;
        let mut c2v = Vec::new();
        let mut c2e = Vec::new();
        for cell in 0..n_cells {
            let (r, c) = (cell / N, cell % N);
            c2v.extend([
                vertex(r, c),
                vertex(r, c + 1),
                vertex(r + 1, c + 1),
                vertex(r + 1, c),
            ]);
            c2e.extend([
                horizontal(r, c),
                vertical(r, c + 1),
                horizontal(r + 1, c),
                vertical(r, c),
            ]);
        }
        let (n_vertices, n_edges) = (N * N, 2 * N * N);
        SimpleMesh {
            n_vertices,
            n_edges,
            n_cells,
            v2e: Connectivity::from_vec(v2e, n_vertices, n_edges).expect("valid V2E"),
            e2v: Connectivity::from_vec(e2v, n_edges, n_vertices).expect("valid E2V"),
            c2v: Connectivity::from_vec(c2v, n_cells, n_vertices).expect("valid C2V"),
            c2e: Connectivity::from_vec(c2e, n_cells, n_edges).expect("valid C2E"),
        }
    }

    /// All four tables.
    pub fn connectivities(&self) -> Connectivities {
        Connectivities::new()
            .with(&self.v2e)
            .with(&self.e2v)
            .with(&self.c2v)
            .with(&self.c2e)
    }
}

impl Default for SimpleMesh {
    fn default() -> Self {
        Self::new()
    }
}

/// GT4Py's "skip_value_mesh" sizes (7 vertices, 12 edges, 6 cells): a strip of triangles whose
/// vertices have 2 to 4 edges, so every row of the 5-wide V2E table ends in skip values (-1).
pub struct SkipValueMesh {
    pub n_vertices: usize,
    pub n_edges: usize,
    pub v2e: Connectivity<V2E5>,
    pub e2v: Connectivity<E2V>,
}

impl SkipValueMesh {
    pub fn new() -> Self {
        const EDGES: [[i32; 2]; 12] = [
            [0, 1],
            [1, 2],
            [2, 3],
            [4, 5],
            [5, 6],
            [0, 4],
            [1, 4],
            [1, 5],
            [2, 5],
            [2, 6],
            [3, 6],
            [3, 4],
        ];
        let n_vertices = 7;
        let mut v2e = vec![-1; n_vertices * 5];
        let mut filled = vec![0; n_vertices];
        for (e, ends) in EDGES.iter().enumerate() {
            for &v in ends {
                let v = v as usize;
                // Skip values are not only trailing: the second slot stays empty for vertex 3.
                if v == 3 && filled[v] == 1 {
                    filled[v] += 1;
                }
                v2e[v * 5 + filled[v]] = e as i32;
                filled[v] += 1;
            }
        }
        SkipValueMesh {
            n_vertices,
            n_edges: EDGES.len(),
            v2e: Connectivity::from_vec(v2e, n_vertices, EDGES.len()).expect("valid V2E5"),
            e2v: Connectivity::from_vec(EDGES.concat(), EDGES.len(), n_vertices)
                .expect("valid E2V"),
        }
    }

    pub fn connectivities(&self) -> Connectivities {
        Connectivities::new().with(&self.v2e).with(&self.e2v)
    }
}

impl Default for SkipValueMesh {
    fn default() -> Self {
        Self::new()
    }
}

/// The neighbours of `row` in `table` (skip values included), as indices.
pub fn neighbours(table: &gt4rs::ConnectivityTable, row: i64) -> Vec<i32> {
    table.table().row(row as usize).to_vec()
}

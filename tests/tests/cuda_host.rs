//! The CUDA kernels of the IR fixtures (the programs of `cuda_source.rs`) executed on the
//! host (`gt4rs_tests::cuda_host`: g++ builds the emitted CUDA C against the shim, the
//! launcher's own code builds parameter blocks, grids, temporaries and error slots) and
//! compared with the CPU backend bit for bit over whole arrays, with several block sizes and
//! level blocks, and nonzero domain starts and origins. Error paths: a missing neighbour, a
//! dynamic offset leaving its field and an integer division by zero are reported through the
//! kernels' error slots. Skips where g++ is missing.

use std::collections::BTreeMap;
use std::ops::Range;

use gt4rs::__private::cuda_source::Translation;
use gt4rs::__private::dynamic::{DynArray, DynField, DynProgram};
use gt4rs::__private::embedded::ScalarValue;
use gt4rs::{Backend, Connectivities, Connectivity, Error, Field, Options};
use gt4rs_tests::cuda_host::{check_against_cpu, gxx_available, HostProgram, NamedArgs, TUNINGS};
use ndarray::{Array2, ArrayD, IxDyn};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

gt4rs::dimensions! {
    pub Cell, Edge, Vertex, I, J: horizontal;
    pub K: vertical;
}
gt4rs::offsets! {
    pub E2C: Edge => Cell [2];
    pub E2C2V: Edge => Vertex [4];
}

include!(concat!(env!("OUT_DIR"), "/cpu_programs.rs"));

macro_rules! translation {
    ($m:ident) => {
        Translation {
            name: $m::NAME,
            source: $m::cuda::SOURCE,
            kernels: $m::cuda::KERNELS,
            unsupported: $m::cuda::UNSUPPORTED,
            program: $m::ir(),
        }
    };
}

fn skip() -> bool {
    if gxx_available() {
        return false;
    }
    eprintln!("skipped: no g++");
    true
}

fn random_f64(rng: &mut ChaCha8Rng, ranges: &[Range<i64>]) -> DynField {
    let shape: Vec<usize> = ranges.iter().map(|r| (r.end - r.start) as usize).collect();
    DynField {
        data: DynArray::F64(ArrayD::from_shape_fn(IxDyn(&shape), |_| {
            rng.random_range(-1.0..1.0)
        })),
        origin: ranges.iter().map(|r| r.start).collect(),
    }
}

fn poisoned(ranges: &[Range<i64>]) -> DynField {
    let shape: Vec<usize> = ranges.iter().map(|r| (r.end - r.start) as usize).collect();
    DynField {
        data: DynArray::F64(ArrayD::from_elem(IxDyn(&shape), f64::NAN)),
        origin: ranges.iter().map(|r| r.start).collect(),
    }
}

fn args(program: &str, fields: Vec<(&str, DynField)>, scalars: Vec<(&str, i32)>) -> NamedArgs {
    NamedArgs {
        program: program.to_string(),
        fields: fields
            .into_iter()
            .map(|(n, f)| (n.to_string(), f))
            .collect(),
        scalars: scalars
            .into_iter()
            .map(|(n, v)| (n.to_string(), ScalarValue::I32(v)))
            .collect::<BTreeMap<_, _>>(),
    }
}

fn cpu(options: &Options) -> Options {
    Options::new(Backend::Cpu).with_connectivities(options.connectivities.clone())
}

fn random_table(rng: &mut ChaCha8Rng, rows: usize, cols: usize, target: usize) -> Array2<i32> {
    Array2::from_shape_fn((rows, cols), |_| rng.random_range(0..target as i32))
}

const NE: i64 = 45;
const NV: i64 = 23;
const NC: i64 = 29;
const NK: i64 = 10;

struct Nabla4 {
    options: Options,
    args: NamedArgs,
}

fn nabla4_case(seed: u64, table: Array2<i32>) -> Nabla4 {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let e2c2v = Connectivity::<E2C2V>::new(table, NV as usize).expect("valid table");
    let options =
        Options::new(Backend::Cpu).with_connectivities(Connectivities::new().with(&e2c2v));
    // Fields start at nonzero origins; the domain starts inside them.
    let vk = [-2..NV - 2, 1..NK + 1];
    let ek = [0..NE, 1..NK + 1];
    let fields = vec![
        ("u_vert", random_f64(&mut r, &vk)),
        ("v_vert", random_f64(&mut r, &vk)),
        ("primal_normal_vert_v1", random_f64(&mut r, &[0..NE, 0..4])),
        ("primal_normal_vert_v2", random_f64(&mut r, &[0..NE, 0..4])),
        ("z_nabla2_e", random_f64(&mut r, &ek)),
        ("inv_vert_vert_length", random_f64(&mut r, &[0..NE])),
        ("inv_primal_edge_length", random_f64(&mut r, &[0..NE])),
        ("z_nabla4_e2", poisoned(&ek)),
    ];
    Nabla4 {
        options,
        args: args(
            "calculate_nabla4",
            fields,
            vec![
                ("horizontal_start", 3),
                ("horizontal_end", NE as i32 - 4),
                ("vertical_start", 2),
                ("vertical_end", NK as i32),
            ],
        ),
    }
}

#[test]
fn nabla4_agrees_with_the_cpu_backend() {
    if skip() {
        return;
    }
    let mut r = ChaCha8Rng::seed_from_u64(1);
    // The vertex fields cover -2..NV-2: the table's entries 0..NV-2 lie inside them.
    let table = random_table(&mut r, NE as usize, 4, NV as usize - 2);
    let c = nabla4_case(2, table);
    let prog = calculate_nabla4::compile(&cpu(&c.options)).expect("compiles");
    check_against_cpu(
        &prog,
        &translation!(calculate_nabla4),
        &c.options,
        &c.args,
        &TUNINGS,
        0.0,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

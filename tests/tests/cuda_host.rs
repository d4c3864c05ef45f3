//! The CUDA kernels of the IR fixtures (the programs of `cuda_source.rs`) executed on the
//! host (`gt4rs_tests::cuda_host`: g++ builds the emitted CUDA C against the shim, the
//! launcher's own code builds parameter blocks, grids, temporaries and error records) and
//! compared with the CPU backend bit for bit over whole arrays, with several block sizes and
//! level blocks, and nonzero domain starts and origins. Error paths: a missing neighbour, a
//! dynamic offset leaving its field and an integer division by zero are reported through the
//! kernels' error records, a domain outside its output by the launcher before any launch; each
//! as the same error, with the same message, as on the CPU backend. Skips where g++ is missing.

use std::collections::BTreeMap;

use gt4rs::prelude::*;
use std::ops::Range;

use gt4rs::__private::args::ScalarValue;
use gt4rs::__private::dynamic::{DynArray, DynField, DynProgram};
use gt4rs::testing::{poisoned_array, random_array, rng, TestRng};
use gt4rs::{Backend, Connectivities, Connectivity, CudaOptions, Error, Field, Options};
use gt4rs_tests::cuda_host::{
    changed, check_against_cpu, emulated, emulator, gxx_available, max_rel_diff, CompileFn,
    NamedArgs, TUNINGS,
};
use ndarray::{Array2, ArrayD, IxDyn};
use rand::RngExt;

gt4rs::dimensions! {
    pub Cell, Edge, Vertex, I, J: horizontal;
    pub K: vertical;
}
gt4rs::offsets! {
    // Both as `tests/build.rs` declares them: the cases put -1 in their tables.
    pub E2C: Edge => Cell [2] with skip_values;
    pub E2C2V: Edge => Vertex [4] with skip_values;
    pub C2E: Cell => Edge [3];
}

include!(concat!(env!("OUT_DIR"), "/cpu_programs.rs"));

/// `$m::compile` as a [`CompileFn`].
macro_rules! compiler {
    ($m:ident) => {
        |o: &Options| -> Result<Box<dyn DynProgram>, Error> { Ok(Box::new($m::compile(o)?)) }
    };
}

/// Compiles `$m` for the CPU backend (with the connectivities of `$options`) and asserts that
/// its emulated kernels, compiled with `$options`, agree with it bit for bit under every tuning.
macro_rules! assert_agrees {
    ($m:ident, $options:expr, $args:expr) => {{
        let options: &Options = $options;
        let prog = $m::compile(&cpu(options)).expect("compiles");
        assert_agrees(&prog, &compiler!($m), options, $args, &TUNINGS);
    }};
}

/// The emulated kernels of the program `compile` builds agree with `reference` bit for bit
/// under `tunings`.
fn assert_agrees(
    reference: &dyn DynProgram,
    compile: CompileFn<'_>,
    options: &Options,
    args: &NamedArgs,
    tunings: &[CudaOptions],
) {
    check_against_cpu(reference, compile, options, args, tunings, 0.0)
        .unwrap_or_else(|e| panic!("{e}"));
}

fn skip() -> bool {
    if gxx_available() {
        return false;
    }
    eprintln!("skipped: no g++");
    true
}

fn random_f64(rng: &mut TestRng, ranges: &[Range<i64>]) -> DynField {
    let shape: Vec<usize> = ranges.iter().map(|r| (r.end - r.start) as usize).collect();
    DynField {
        data: DynArray::F64(random_array(rng, &shape)),
        origin: ranges.iter().map(|r| r.start).collect(),
    }
}

fn poisoned(ranges: &[Range<i64>]) -> DynField {
    let shape: Vec<usize> = ranges.iter().map(|r| (r.end - r.start) as usize).collect();
    DynField {
        data: DynArray::F64(poisoned_array(&shape)),
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

/// Arguments of `program` with every field over `ranges`: seeded random `inputs` (drawn in
/// their order), NaN in `outputs`.
fn random_case(
    seed: u64,
    program: &str,
    ranges: &[Range<i64>],
    inputs: &[&str],
    outputs: &[&str],
    scalars: Vec<(&str, i32)>,
) -> NamedArgs {
    let mut r = rng(seed);
    let drawn = inputs.iter().map(|&n| (n, random_f64(&mut r, ranges)));
    let poison = outputs.iter().map(|&n| (n, poisoned(ranges)));
    args(program, drawn.chain(poison).collect(), scalars)
}

fn cpu(options: &Options) -> Options {
    Options::new(Backend::Cpu).with_connectivities(options.connectivities.clone())
}

fn random_table(rng: &mut TestRng, rows: usize, cols: usize, target: usize) -> Array2<i32> {
    Array2::from_shape_fn((rows, cols), |_| rng.random_range(0..target as i32))
}

/// [`random_table`] with a skip value in slot `slot(row)` of every `every`-th row.
fn random_table_with_skips(
    rng: &mut TestRng,
    [rows, cols]: [usize; 2],
    target: usize,
    every: usize,
    slot: impl Fn(usize) -> usize,
) -> Array2<i32> {
    let mut table = random_table(rng, rows, cols, target);
    for row in (0..rows).step_by(every) {
        table[[row, slot(row)]] = -1;
    }
    table
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
    let mut r = rng(seed);
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
    let mut r = rng(1);
    // The vertex fields cover -2..NV-2: the table's entries 0..NV-2 lie inside them.
    let table = random_table(&mut r, NE as usize, 4, NV as usize - 2);
    let c = nabla4_case(2, table);
    assert_agrees!(calculate_nabla4, &c.options, &c.args);
}

/// The message of the error both the CPU backend and the emulated CUDA call report: the same
/// error, with the same message.
fn both_fail(
    cpu_program: &dyn DynProgram,
    compile: CompileFn<'_>,
    options: &Options,
    args: &NamedArgs,
) -> String {
    let cpu_error = cpu_program
        .call_dynamic(&mut args.clone())
        .expect_err("the CPU backend reports the failure");
    let host = compile(&emulated(options, TUNINGS[0])).expect("compiles");
    let mut got = args.clone();
    let cuda_error = host
        .call_dynamic(&mut got)
        .expect_err("the emulated kernels report the failure");
    assert_eq!(
        std::mem::discriminant(&cuda_error),
        std::mem::discriminant(&cpu_error),
        "{cuda_error:?} where the CPU backend reports {cpu_error:?}"
    );
    // The CPU kernels write in place, and say what (the embedded kernels hand nothing back).
    assert_eq!(
        cuda_error.to_string(),
        gt4rs_tests::failure_described(&cpu_error.to_string())
    );
    // A failed call hands no outputs back (the launcher downloads only after a clean sync).
    for (name, before) in &args.fields {
        assert!(
            !changed(&before.data, &got.fields[name].data),
            "`{name}` changed in a failed call"
        );
    }
    cpu_error.to_string()
}

/// On `clean` the emulated kernels of the program `compile` builds agree with `cpu_program` (compiled for the
/// CPU backend without options) under `tunings`; on `broken` both fail alike, with a message
/// that contains every string of `named`.
fn agrees_then_both_fail(
    cpu_program: &dyn DynProgram,
    compile: CompileFn<'_>,
    clean: &NamedArgs,
    broken: &NamedArgs,
    tunings: &[CudaOptions],
    named: &[&str],
) {
    let options = Options::new(Backend::Cpu);
    assert_agrees(cpu_program, compile, &options, clean, tunings);
    let msg = both_fail(cpu_program, compile, &options, broken);
    assert!(named.iter().all(|n| msg.contains(n)), "{msg}");
}

#[test]
fn nabla4_reports_a_missing_neighbour_and_a_domain_outside_its_output() {
    if skip() {
        return;
    }
    let mut r = rng(3);
    let mut table = random_table(&mut r, NE as usize, 4, NV as usize - 2);
    // A skip value in a row inside the domain, read by a fixed-slot shift.
    table[[10, 2]] = -1;
    let c = nabla4_case(4, table);
    let prog = calculate_nabla4::compile(&cpu(&c.options)).expect("compiles");
    let t = compiler!(calculate_nabla4);
    let msg = both_fail(&prog, &t, &c.options, &c.args);
    assert!(msg.contains("E2C2V"), "{msg}");
    // A vertical domain beyond the output's levels.
    let table = random_table(&mut r, NE as usize, 4, NV as usize - 2);
    let mut c = nabla4_case(5, table);
    c.args
        .scalars
        .insert("vertical_end".into(), ScalarValue::I32(NK as i32 + 2));
    let prog = calculate_nabla4::compile(&cpu(&c.options)).expect("compiles");
    let msg = both_fail(&prog, &t, &c.options, &c.args);
    // Levels past the output are also past the inputs: the output is checked first.
    assert!(msg.contains("along K is not inside output"), "{msg}");
}

#[test]
fn laplacian_with_nonzero_origins_agrees_with_the_cpu_backend() {
    if skip() {
        return;
    }
    let mut r = rng(6);
    let n = 37;
    let a = random_f64(&mut r, &[-1..n + 1, -1..n / 2 + 1, 2..2 + NK]);
    let out = poisoned(&[0..n, 0..n / 2, 2..2 + NK]);
    let args = args("laplacian", vec![("a", a), ("out", out)], vec![]);
    assert_agrees!(laplacian, &Options::new(Backend::Cpu), &args);
}

#[test]
fn reductions_skip_missing_neighbours_as_on_the_cpu() {
    if skip() {
        return;
    }
    let mut r = rng(7);
    let table = random_table_with_skips(&mut r, [NE as usize, 2], NC as usize, 5, |e| e % 2);
    let e2c = Connectivity::<E2C>::new(table, NC as usize).expect("valid table");
    let options = Options::new(Backend::Cpu).with_connectivities(Connectivities::new().with(&e2c));
    let args = args(
        "reductions",
        vec![
            ("f", random_f64(&mut r, &[0..NC, 0..NK])),
            ("w", random_f64(&mut r, &[0..NE, 0..2])),
            ("kf", random_f64(&mut r, &[0..NK])),
            ("out", poisoned(&[0..NE, 0..NK])),
        ],
        vec![("vertical_end", NK as i32 - 1)],
    );
    assert_agrees!(reductions, &options, &args);
}

#[test]
fn concat_where_and_select_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    let outputs = ["out1", "out2", "out3"];
    let nlev = vec![("nlev", NK as i32)];
    let args = random_case(8, "concat_select", &[0..NC, 0..NK], &["a"], &outputs, nlev);
    assert_agrees!(concat_select, &Options::new(Backend::Cpu), &args);
}

#[test]
fn scans_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    let outputs = ["fs", "fp", "bs", "bp"];
    let args = random_case(9, "scans", &[3..NC + 3, 0..NK], &["a"], &outputs, vec![]);
    assert_agrees!(scans, &Options::new(Backend::Cpu), &args);
}

fn dynamic_case(r: &mut TestRng, leave_at: Option<(usize, usize)>) -> NamedArgs {
    let ck = [0..NC, 0..NK];
    let mut off = ArrayD::from_shape_fn(IxDyn(&[NC as usize, NK as usize]), |ix| {
        let k = ix[1] as i32;
        r.random_range(-k..NK as i32 - k)
    });
    if let Some((c, k)) = leave_at {
        off[[c, k]] = NK as i32 - k as i32;
    }
    args(
        "dynamic_and_domains",
        vec![
            ("a", random_f64(r, &ck)),
            (
                "off",
                DynField {
                    data: DynArray::I32(off),
                    origin: vec![0, 0],
                },
            ),
            ("out", poisoned(&ck)),
            ("out2", poisoned(&ck)),
        ],
        vec![("nk", NK as i32 - 2)],
    )
}

#[test]
fn dynamic_shifts_and_per_call_domains_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    let mut r = rng(10);
    let clean = dynamic_case(&mut r, None);
    // An offset that leaves the field inside the domain.
    let broken = dynamic_case(&mut r, Some((NC as usize - 1, 4)));
    let prog = dynamic_and_domains::compile(&Options::new(Backend::Cpu)).expect("compiles");
    let t = compiler!(dynamic_and_domains);
    agrees_then_both_fail(&prog, &t, &clean, &broken, &TUNINGS, &["`a`", "K"]);
}

#[field_operator]
fn integer_ops(
    n: Field<(Cell, K), i32>,
    m: Field<(Cell, K), i32>,
) -> (
    Field<(Cell, K), i32>,
    Field<(Cell, K), i32>,
    Field<(Cell, K), i32>,
    Field<(Cell, K), i32>,
) {
    (n / m, n % m, n.div_euclid(m), n.rem_euclid(m))
}

#[program]
fn integer_division(
    n: &Field<(Cell, K), i32>,
    m: &Field<(Cell, K), i32>,
    q: &mut Field<(Cell, K), i32>,
    r: &mut Field<(Cell, K), i32>,
    qe: &mut Field<(Cell, K), i32>,
    re: &mut Field<(Cell, K), i32>,
) {
    integer_ops(n, m).write_to((q, r, qe, re));
}

fn int_field(values: ArrayD<i32>) -> DynField {
    DynField {
        origin: vec![0; values.ndim()],
        data: DynArray::I32(values),
    }
}

fn division_case(r: &mut TestRng, zero_at: Option<[usize; 2]>) -> NamedArgs {
    let shape = IxDyn(&[NC as usize, NK as usize]);
    let n = ArrayD::from_shape_fn(shape.clone(), |_| r.random_range(-1000..1000));
    let mut m = ArrayD::from_shape_fn(shape.clone(), |_| {
        let v: i32 = r.random_range(1..20);
        if r.random_bool(0.5) {
            -v
        } else {
            v
        }
    });
    // Rust's wrapping MIN / -1 and MIN % -1.
    m[[0, 0]] = -1;
    let mut n = n;
    n[[0, 0]] = i32::MIN;
    if let Some(at) = zero_at {
        m[at] = 0;
    }
    let poison = || int_field(ArrayD::from_elem(shape.clone(), i32::MIN + 7));
    args(
        "integer_division",
        vec![
            ("n", int_field(n)),
            ("m", int_field(m)),
            ("q", poison()),
            ("r", poison()),
            ("qe", poison()),
            ("re", poison()),
        ],
        vec![],
    )
}

#[test]
fn integer_division_agrees_and_a_zero_divisor_is_an_error() {
    if skip() {
        return;
    }
    let mut r = rng(11);
    let clean = division_case(&mut r, None);
    let broken = division_case(&mut r, Some([NC as usize / 2, 3]));
    let prog = integer_division::compile(&Options::new(Backend::Cpu)).expect("compiles");
    let t = compiler!(integer_division);
    let named = ["integer_division", "division by zero"];
    agrees_then_both_fail(&prog, &t, &clean, &broken, &TUNINGS[..1], &named);
}

#[field_operator]
fn math_ops(
    a: Field<(Cell, K), f64>,
    b: Field<(Cell, K), f64>,
    n: Field<(Cell, K), i32>,
) -> (
    Field<(Cell, K), f64>,
    Field<(Cell, K), f64>,
    Field<(Cell, K), f64>,
    Field<(Cell, K), f64>,
    Field<(Cell, K), bool>,
    Field<(Cell, K), i32>,
    Field<(Cell, K), f64>,
) {
    let trig =
        a.sin() * b.cos() + a.tan() + a.asin() + b.acos() + a.atan() + a.atan2(b) + a.hypot(b);
    let library_dependent = a.sinh()
        + a.cosh()
        + a.tanh()
        + a.asinh()
        + (b.abs() + 2.0).acosh()
        + (a * 0.5).atanh()
        + a.cbrt()
        + a.powi(3);
    let logs = (a.abs() + 0.1).ln()
        + (b.abs() + 0.1).log10()
        + (a.abs() + 0.2).log2()
        + a.exp()
        + b.abs().sqrt();
    let gammas = gamma(a.abs() + 1.0) + gamma(b * 3.0);
    let rounding = (a * 10.0).floor()
        + (a * 10.0).ceil()
        + (b * 10.0).trunc()
        + (b * 10.0).round()
        + a.min(b)
        + a.max(b)
        + a.abs().powf(b)
        + a.div_euclid(b)
        + a.rem_euclid(b)
        + a % b;
    let finite = (a / (b * 0.0)).is_finite() | (a * 0.0 / 0.0).is_nan();
    let ints = n.abs() + n * n + n.min(3) - n.max(-3) + (n & 7) - (n | 2) + (n ^ 5);
    (
        trig,
        library_dependent,
        logs,
        rounding,
        finite,
        ints,
        gammas,
    )
}

#[program]
fn math_functions(
    a: &Field<(Cell, K), f64>,
    b: &Field<(Cell, K), f64>,
    n: &Field<(Cell, K), i32>,
    trig: &mut Field<(Cell, K), f64>,
    library_dependent: &mut Field<(Cell, K), f64>,
    logs: &mut Field<(Cell, K), f64>,
    rounding: &mut Field<(Cell, K), f64>,
    finite: &mut Field<(Cell, K), bool>,
    ints: &mut Field<(Cell, K), i32>,
    gammas: &mut Field<(Cell, K), f64>,
    vertical_start: i32,
) {
    math_ops(a, b, n).write_to(
        (
            trig,
            library_dependent,
            logs,
            rounding,
            finite,
            ints,
            gammas,
        ),
        domain![Cell: 2..25, K: vertical_start..9],
    );
}

#[test]
fn math_functions_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    let mut r = rng(12);
    let options = Options::new(Backend::Cpu);
    let prog = math_functions::compile(&options).expect("compiles");
    let ck = [0..NC, 0..NK];
    let shape = IxDyn(&[NC as usize, NK as usize]);
    let n = ArrayD::from_shape_fn(shape.clone(), |_| r.random_range(-40..40));
    let flags = DynField {
        data: DynArray::Bool(ArrayD::from_elem(shape.clone(), true)),
        origin: vec![0, 0],
    };
    let args = args(
        "math_functions",
        vec![
            ("a", random_f64(&mut r, &ck)),
            ("b", random_f64(&mut r, &ck)),
            ("n", int_field(n)),
            ("trig", poisoned(&ck)),
            ("library_dependent", poisoned(&ck)),
            ("logs", poisoned(&ck)),
            ("rounding", poisoned(&ck)),
            ("finite", flags),
            ("ints", int_field(ArrayD::from_elem(shape, i32::MIN + 3))),
            ("gammas", poisoned(&ck)),
        ],
        vec![("vertical_start", 1)],
    );
    // Every output within the library-dependent tolerance below; the loop after it holds the
    // others to bit equality.
    check_against_cpu(
        &prog,
        &compiler!(math_functions),
        &options,
        &args,
        &TUNINGS[1..2],
        1e-13,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut cpu_out = args.clone();
    prog.call_dynamic(&mut cpu_out).expect("runs");
    let host = math_functions::compile(&emulated(&options, TUNINGS[0])).expect("compiles");
    let mut host_out = args.clone();
    host.call_dynamic(&mut host_out).expect("runs");
    // Rust computes asinh, acosh and atanh with formulas of its own (acosh near 1 is up to
    // ~140 ulp from glibc's; its argument here is at least 2) and links compiler-builtins'
    // cbrt (a musl port), and its powi multiplies where the kernels call pow: a few ulp.
    // Everything else calls the same glibc functions in the same order: bit for bit.
    for (name, rtol) in [
        ("trig", 0.0),
        ("logs", 0.0),
        ("rounding", 0.0),
        ("finite", 0.0),
        ("ints", 0.0),
        // Both call libm's tgamma (`gt4rs_ir::scalar::gamma` on the CPU).
        ("gammas", 0.0),
        // A few ulp per term, relative to a sum whose terms partly cancel.
        ("library_dependent", 1e-13),
    ] {
        let diff = max_rel_diff(&cpu_out.fields[name].data, &host_out.fields[name].data)
            .expect("same shape");
        assert!(diff <= rtol, "{name}: {diff:e}");
    }
}

#[field_operator]
fn scaled(a: Field<(Cell, K), f64>, factor: f64) -> Field<(Cell, K), f64> {
    a * factor + a.at(K + 1)
}

#[program]
fn static_bounds(
    a: &Field<(Cell, K), f64>,
    out: &mut Field<(Cell, K), f64>,
    factor: f64,
    #[static_arg] cell_start: i32,
    cell_end: i32,
    #[static_arg] nlev: i32,
) {
    scaled(a, factor).write_to(out, domain![Cell: cell_start..cell_end, K: 1..nlev - 1]);
}

#[test]
fn static_arguments_and_the_bounds_they_fix_are_compiled_in() {
    if skip() {
        return;
    }
    let mut r = rng(13);
    let ck = [0..NC, 0..NK];
    let mut args = args(
        "static_bounds",
        vec![("a", random_f64(&mut r, &ck)), ("out", poisoned(&ck))],
        vec![
            ("cell_start", 4),
            ("cell_end", NC as i32 - 3),
            ("nlev", NK as i32),
        ],
    );
    args.scalars
        .insert("factor".into(), ScalarValue::F64(r.random_range(0.5..2.0)));
    let t = compiler!(static_bounds);
    let cpu_options = Options::new(Backend::Cpu);
    let prog = static_bounds::compile(&cpu_options).expect("compiles");
    let compiled_in = Options::new(Backend::Cpu)
        .with_static_arg("static_bounds", "cell_start", 4)
        .with_static_arg("static_bounds", "nlev", NK as i32);
    // Run-time values, then compiled in (the static values and the bounds they fix).
    for options in [&cpu_options, &compiled_in] {
        assert_agrees(&prog, &t, options, &args, &TUNINGS);
    }
    let host = static_bounds::compile(&emulated(&compiled_in, TUNINGS[2])).expect("compiles");
    let defines = emulator().defines_of("static_bounds");
    for define in [
        "-DGT4RS_STATIC_S3=(4)",
        "-DGT4RS_STATIC_S5=(10)",
        "-DGT4RS_S0_D0_LO=(4LL)",
        "-DGT4RS_S0_D1_LO=(1LL)",
        "-DGT4RS_S0_D1_HI=(9LL)",
    ] {
        assert!(
            defines.iter().any(|d| d == define),
            "{define} in {defines:?}"
        );
    }
    // Another value than the compiled one is an argument error, before any launch.
    let mut other = args.clone();
    other
        .scalars
        .insert("nlev".into(), ScalarValue::I32(NK as i32 - 1));
    let e = host
        .call_dynamic(&mut other)
        .expect_err("a static mismatch");
    assert!(
        matches!(&e, Error::Argument { arg, .. } if arg == "nlev"),
        "{e:?}"
    );
}

#[test]
fn gathers_through_a_reach_bounded_temporary_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    let mut r = rng(14);
    // Some E2C entries are -1 (skipped by the reduction); the temporary over cells covers
    // the reach of the edges' rows.
    let e2c = random_table_with_skips(&mut r, [NE as usize, 2], NC as usize, 4, |_| 1);
    let c2e = random_table(&mut r, NC as usize, 3, NE as usize);
    let options = Options::new(Backend::Cpu).with_connectivities(
        Connectivities::new()
            .with(&Connectivity::<E2C>::new(e2c, NC as usize).expect("valid"))
            .with(&Connectivity::<C2E>::new(c2e, NE as usize).expect("valid")),
    );
    let ek = [0..NE, 0..NK];
    let args = args(
        "nested_gather",
        vec![("x", random_f64(&mut r, &ek)), ("out", poisoned(&ek))],
        vec![("vertical_start", 1)],
    );
    assert_agrees!(nested_gather, &options, &args);
    // Rows without any neighbour: the temporary's reach is empty (its stage runs on no
    // point) and every sum is 0; the masked-out slots read the temporary's origin. Checked
    // against the embedded backend and the CPU backend.
    let none = Array2::from_elem((NE as usize, 2), -1);
    let c2e = random_table(&mut r, NC as usize, 3, NE as usize);
    let options = Options::new(Backend::Cpu).with_connectivities(
        Connectivities::new()
            .with(&Connectivity::<E2C>::new(none, NC as usize).expect("valid"))
            .with(&Connectivity::<C2E>::new(c2e, NE as usize).expect("valid")),
    );
    let embedded =
        Options::new(Backend::Embedded).with_connectivities(options.connectivities.clone());
    let t = compiler!(nested_gather);
    let prog = nested_gather::compile(&embedded).expect("compiles");
    assert_agrees(&prog, &t, &options, &args, &TUNINGS);
    let cpu = nested_gather::compile(&options).expect("compiles");
    assert_agrees(&cpu, &t, &options, &args, &TUNINGS[1..2]);
}

/// A sparse output (each cell's edges weighted, over levels `1..nk - 1`) and its sum, from one
/// tuple: the kernels store one slot per output and agree bit for bit with the CPU backend and
/// with the embedded one; the launcher checks the output's local dimension before it launches.
#[test]
fn a_sparse_output_agrees_with_the_cpu_and_embedded_backends() {
    if skip() {
        return;
    }
    let mut r = rng(15);
    let c2e = random_table(&mut r, NC as usize, 3, NE as usize);
    let options = Options::new(Backend::Cpu).with_connectivities(
        Connectivities::new().with(&Connectivity::<C2E>::new(c2e, NE as usize).expect("valid")),
    );
    let case = |each: [Range<i64>; 3]| {
        args(
            "sparse_gather",
            vec![
                ("x", random_f64(&mut rng(16), &[0..NE, 0..NK])),
                ("w", random_f64(&mut rng(17), &[0..NC, 0..3])),
                ("each", poisoned(&each)),
                ("sum", poisoned(&[0..NC, 0..NK])),
            ],
            vec![("nk", NK as i32 - 1)],
        )
    };
    let args = case([0..NC, 0..3, 0..NK]);
    assert_agrees!(sparse_gather, &options, &args);
    let embedded =
        Options::new(Backend::Embedded).with_connectivities(options.connectivities.clone());
    let prog = sparse_gather::compile(&embedded).expect("compiles");
    assert_agrees(&prog, &compiler!(sparse_gather), &options, &args, &TUNINGS);
    // Two slots of three: an argument error on the host, as on the CPU.
    let narrow = case([0..NC, 0..2, 0..NK]);
    let prog = sparse_gather::compile(&options).expect("compiles");
    let message = both_fail(&prog, &compiler!(sparse_gather), &options, &narrow);
    assert!(
        message.contains("its local dimension C2E covers 0..2, but must cover 0..3"),
        "{message}"
    );
}

#[test]
fn an_output_read_by_its_own_call_agrees_with_the_cpu_backend() {
    if skip() {
        return;
    }
    let args = random_case(15, "in_place", &[0..NC, 0..NK], &["a", "b"], &[], vec![]);
    assert_agrees!(in_place, &Options::new(Backend::Cpu), &args);
}

fn triag_args(r: &mut TestRng, program: &str, nk: Option<i32>) -> NamedArgs {
    let ck = [0..NC, 0..NK];
    let mut b = random_f64(r, &ck);
    if let DynArray::F64(b) = &mut b.data {
        // Diagonally dominant.
        b.mapv_inplace(|v| 4.0 + v.abs());
    }
    args(
        program,
        vec![
            ("a", random_f64(r, &ck)),
            ("b", b),
            ("c", random_f64(r, &ck)),
            ("d", random_f64(r, &ck)),
            ("x", poisoned(&ck)),
        ],
        nk.map(|n| vec![("nk", n)]).unwrap_or_default(),
    )
}

#[test]
fn tridiagonal_solves_by_scans_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    let mut r = rng(16);
    let options = Options::new(Backend::Cpu);
    let args = triag_args(&mut r, "solve_triag", None);
    assert_agrees!(solve_triag, &options, &args);
    let args = triag_args(&mut r, "fused_triag", Some(NK as i32));
    assert_agrees!(fused_triag, &options, &args);
}

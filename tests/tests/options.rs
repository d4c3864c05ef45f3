//! Options reach `compile()`: per-program backends from code and from a TOML file, with the
//! documented precedence.

use gt4rs::prelude::*;
use gt4rs::{Config, CpuOptions, Settings};

gt4rs::dimensions! { pub X: horizontal; }

#[field_operator]
fn twice(a: Field<X, f64>) -> Field<X, f64> {
    2.0 * a
}

#[program]
fn double_a(a: &Field<X, f64>, out: &mut Field<X, f64>) {
    twice(a).write_to(out);
}

#[program]
fn double_b(a: &Field<X, f64>, out: &mut Field<X, f64>) {
    twice(a).write_to(out);
}

fn run(
    program_backend: Backend,
    compiled: impl Fn(&Field<X, f64>, &mut Field<X, f64>) -> Result<(), Error>,
) {
    let a = Field::from_fn(&[0..17], Layout::default(), |i| i[0] as f64 - 3.5).expect("valid");
    let mut out = Field::filled(&[0..17], f64::NAN, Layout::default()).expect("valid");
    compiled(&a, &mut out).unwrap_or_else(|e| panic!("{program_backend:?}: {e}"));
    for i in 0..17 {
        assert_eq!(out.get(&[i]), Some(2.0 * (i as f64 - 3.5)));
    }
}

#[test]
fn per_program_backends_from_code_and_file() -> Result<(), Error> {
    let file = Config::parse(
        "[default]\nbackend = \"cpu\"\n[program.double_b]\nbackend = \"embedded\"\n",
        std::path::Path::new("test.toml"),
    )?;
    let options = Options::default().with_config(file);
    let a = double_a::compile(&options)?;
    let b = double_b::compile(&options)?;
    assert_eq!(a.backend(), Backend::Cpu);
    assert_eq!(b.backend(), Backend::Embedded);
    run(a.backend(), |x, o| a.call(double_a::Args { a: x, out: o }));
    run(b.backend(), |x, o| b.call(double_b::Args { a: x, out: o }));

    // Code wins over the file: all programs, then one program.
    let in_code = Options::new(Backend::Embedded).with_config(Config::parse(
        "[program.double_a]\nbackend = \"cpu\"\n",
        std::path::Path::new("test.toml"),
    )?);
    assert_eq!(double_a::compile(&in_code)?.backend(), Backend::Embedded);
    let per_program = in_code.with_program(
        "double_a",
        Settings {
            backend: Some(Backend::Cpu),
            ..Settings::default()
        },
    );
    assert_eq!(double_a::compile(&per_program)?.backend(), Backend::Cpu);
    assert_eq!(
        double_b::compile(&per_program)?.backend(),
        Backend::Embedded
    );
    Ok(())
}

#[test]
fn cpu_tuning_from_the_file_reaches_the_program() -> Result<(), Error> {
    let file = Config::parse(
        "[default]\ncpu.parallel_threshold = 0\n[program.double_a]\ncpu.chunk = 3\ncpu.k_block = 4\n\
         cpu.stage_group_chunk = 6\ncpu.vectors = \"baseline\"\n",
        std::path::Path::new("test.toml"),
    )?;
    let options = Options::new(Backend::Cpu).with_config(file);
    let a = double_a::compile(&options)?;
    let b = double_b::compile(&options)?;
    let (ta, tb) = (a.cpu_options(), b.cpu_options());
    assert_eq!(
        (
            ta.parallel_threshold,
            ta.chunk,
            ta.k_block,
            ta.stage_group_chunk,
            ta.vectors
        ),
        (0, 3, 4, 6, gt4rs::Vectors::Baseline)
    );
    let default = CpuOptions::default();
    assert_eq!(
        (
            tb.parallel_threshold,
            tb.chunk,
            tb.k_block,
            tb.stage_group_chunk,
            tb.vectors
        ),
        (
            0,
            default.chunk,
            default.k_block,
            default.stage_group_chunk,
            // The widest copy this build holds and this CPU runs (`compile()` lowers the
            // default to it).
            gt4rs_tests::widest_vectors_of_this_build()
        )
    );
    // Explicit options in code win over the file.
    let explicit = CpuOptions {
        parallel_threshold: 5,
        chunk: 2,
        k_block: 8,
        stage_group_chunk: 9,
        vectors: gt4rs::Vectors::Baseline,
    };
    assert_eq!(
        double_a::compile(&options.clone().with_cpu(explicit))?.cpu_options(),
        explicit
    );
    run(a.backend(), |x, o| a.call(double_a::Args { a: x, out: o }));
    run(b.backend(), |x, o| b.call(double_b::Args { a: x, out: o }));
    Ok(())
}

#[test]
fn cuda_without_a_gpu_is_a_clear_error() {
    if gt4rs::cuda::cuda_available() {
        eprintln!("skipped: a GPU is present");
        return;
    }
    let err = double_a::compile(&Options::new(Backend::Cuda))
        .err()
        .expect("no GPU here");
    assert!(err.to_string().contains("double_a"), "{err}");
}

/// Every program of this file, as a model lists its own.
const PROGRAMS: &[&str] = &[double_a::NAME, double_b::NAME];

#[test]
fn options_in_code_for_a_misspelt_program_are_an_error() {
    let options = Options::new(Backend::Cpu)
        .with_programs(PROGRAMS)
        .with_program(
            "double_bb",
            Settings {
                backend: Some(Backend::Embedded),
                ..Settings::default()
            },
        );
    let message = double_a::compile(&options)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        message.contains("`double_bb`") && message.contains("did you mean `double_b`?"),
        "compiling with options for an unknown program: `{message}`"
    );
    let options = Options::new(Backend::Cpu)
        .with_programs(PROGRAMS)
        .with_static_variants("doubel_a", "flip", [true]);
    let message = double_b::compile(&options)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        message.contains("with_static_variants")
            && message.contains("`doubel_a`")
            && message.contains("did you mean `double_a`?"),
        "{message}"
    );
    // The program being compiled counts as known even where the list leaves it out.
    let own = Options::new(Backend::Cpu)
        .with_programs(&[double_b::NAME])
        .with_program("double_a", Settings::default());
    assert!(double_a::compile(&own).is_ok());
}

#[test]
fn a_file_section_for_a_misspelt_program_is_an_error() -> Result<(), Error> {
    let file = Config::parse(
        "[program.double_a]\nbackend = \"embedded\"\n[program.dubble_b.arch.sm_90]\ncuda.k_block = 2\n",
        std::path::Path::new("misspelt.toml"),
    )?;
    let options = Options::default().with_config(file).with_programs(PROGRAMS);
    let message = double_a::compile(&options)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        message.contains("misspelt.toml")
            && message.contains("[program.dubble_b]")
            && message.contains("did you mean `double_b`?"),
        "{message}"
    );
    // Checked against a list without compiling, as `gt4rs config show` does.
    assert!(options.check_programs(PROGRAMS).is_err());
    assert!(options.check_programs(&["double_a", "dubble_b"]).is_ok());
    Ok(())
}

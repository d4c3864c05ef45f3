use proc_macro2::TokenStream;
use quote::quote;

use gt4rs_ir::ScalarType;

use super::*;

fn sample() -> CFunction {
    CFunction {
        c_name: "lib_scale".into(),
        fortran_name: "scale".into(),
        doc: "Scales `a` into `b`.".into(),
        args: vec![
            Arg::Array(Array {
                name: "a".into(),
                dtype: ScalarType::F64,
                dims: vec!["Cell".into(), "K".into()],
                writes: false,
                optional: false,
                view: quote!(::gt4rs::view::FieldRef<'_, (Cell, K), f64>),
            }),
            Arg::Array(Array {
                name: "b".into(),
                dtype: ScalarType::F64,
                dims: vec!["Cell".into(), "K".into()],
                writes: true,
                optional: true,
                view: quote!(::gt4rs::view::FieldMut<'_, (Cell, K), f64>),
            }),
            Arg::Scalar {
                name: "flag".into(),
                dtype: ScalarType::Bool,
            },
            Arg::Scalar {
                name: "factor".into(),
                dtype: ScalarType::F32,
            },
        ],
        body: quote!(Ok(())),
    }
}

#[test]
fn the_c_declaration_spells_every_array_as_pointer_sizes_and_strides() {
    let c = text::c_declaration(&sample());
    let expected = "int lib_scale(\n    const double *a /* (Cell, K) */,\n    int64_t a_size_0,\n    int64_t a_size_1,\n    int64_t a_stride_0,\n    int64_t a_stride_1,\n    double *b /* (Cell, K), may be NULL */,\n    int64_t b_size_0,\n    int64_t b_size_1,\n    int64_t b_stride_0,\n    int64_t b_stride_1,\n    bool flag,\n    float factor);\n";
    assert!(c.ends_with(expected), "{c}");
    assert!(c.starts_with("/*\n * Scales `a` into `b`.\n */\n"), "{c}");
}

#[test]
fn the_fortran_interface_passes_the_same_arguments_by_value() {
    let f = text::fortran_interface(&sample());
    assert!(
        f.contains("function c_lib_scale(a, &\n        a_size_0, &"),
        "{f}"
    );
    assert!(
        f.contains("bind(C, name=\"lib_scale\") result(status)"),
        "{f}"
    );
    assert!(f.contains("      type(c_ptr), value :: a\n"), "{f}");
    assert!(
        f.contains("      integer(c_int64_t), value :: b_stride_1\n"),
        "{f}"
    );
    assert!(f.contains("      logical(c_bool), value :: flag\n"), "{f}");
    assert!(f.contains("      real(c_float), value :: factor\n"), "{f}");
}

#[test]
fn the_fortran_wrapper_takes_arrays_in_place_and_an_optional_one() {
    let f = text::fortran_wrapper(&sample());
    assert!(
        f.contains("real(c_double), intent(in), target :: a(:, :)"),
        "{f}"
    );
    assert!(
        f.contains("real(c_double), intent(inout), target, optional :: b(:, :)"),
        "{f}"
    );
    assert!(f.contains("    if (present(b)) then\n"), "{f}");
    assert!(f.contains("a_p = c_loc(a(1, 1))"), "{f}");
    assert!(f.contains("c_loc(a(1, 2))"), "{f}");
    assert!(f.contains("logical(flag, c_bool)"), "{f}");
    // gfortran's free form stops at 132 characters a line.
    assert!(f.lines().all(|l| l.len() <= 132), "{f}");
}

#[test]
fn the_entry_checks_views_overlap_and_bools_before_the_body() {
    let tokens: TokenStream = entry::emit(&sample());
    let text = tokens.to_string();
    assert!(
        text.contains("pub unsafe extern \"C\" fn lib_scale"),
        "{text}"
    );
    assert!(text.contains("flag : u8"), "{text}");
    assert!(text.contains("let flag : bool = flag != 0 ;"), "{text}");
    assert!(
        text.contains(":: gt4rs :: ffi :: non_null (\"lib_scale\" , \"a\""),
        "{text}"
    );
    assert!(text.contains("if b . is_null () { None }"), "{text}");
    assert!(text.contains(":: gt4rs :: ffi :: check_disjoint"), "{text}");
    assert!(text.contains("unsafe (no_mangle)"), "{text}");
}

#[test]
fn long_fortran_names_are_refused() {
    let name = "x".repeat(64);
    assert!(check_fortran_name(&name, proc_macro2::Span::call_site()).is_err());
    assert!(check_fortran_name(&name[..63], proc_macro2::Span::call_site()).is_ok());
}

#[test]
fn an_attribute_function_takes_views_options_and_scalars() {
    let attr: TokenStream = quote!(lib);
    let item: TokenStream = quote! {
        /// Runs one step.
        pub fn step(w: FieldMut<'_, (Cell, K), f64>, mask: Option<FieldRef<'_, (Cell, K), bool>>, dtime: f64) -> Result<(), gt4rs::Error> { Ok(()) }
    };
    let out = function::emit(attr, item).to_string();
    assert!(out.contains("pub unsafe extern \"C\" fn lib_step"), "{out}");
    assert!(out.contains(":: gt4rs :: ffi :: check_bools"), "{out}");
    assert!(out.contains("super :: step (w , mask , dtime)"), "{out}");
    let bad: TokenStream = quote!(
        fn step(w: Vec<f64>) -> Result<(), E> {
            Ok(())
        }
    );
    let out = function::emit(quote!(lib), bad).to_string();
    assert!(out.contains("compile_error"), "{out}");
}

//! The C ABI that `gt4rs::export_c!` and `#[gt4rs::export_c_fn]` generate, called as a C
//! caller would (raw pointers, sizes, strides, handles): results in the caller's memory, and
//! every bad input a status and a message, never a crash.

use std::ffi::CStr;
use std::ptr;

use gt4rs::ffi::Status;
use gt4rs::prelude::*;
use gt4rs::{FieldMut, FieldRef};
use gt4rs_tests::{poisoned, random_field, rng};

gt4rs::dimensions! { pub Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub E2V: Edge => Vertex [2]; }

#[field_operator]
fn gradient(
    p: Field<(Vertex, K), f64>,
    inv_length: Field<Edge, f64>,
    c: f64,
    flip: bool,
) -> Field<(Edge, K), f64> {
    let s = if flip { -c } else { c };
    s * (p.at(E2V[1]) - p.at(E2V[0])) * inv_length
}

#[program]
pub fn edge_gradient(
    p: &Field<(Vertex, K), f64>,
    inv_length: &Field<Edge, f64>,
    grad: &mut Field<(Edge, K), f64>,
    c: f64,
    #[static_arg] flip: bool,
    start: i32,
    end: i32,
) {
    gradient(p, inv_length, c, flip).write_to(grad, domain![Edge: start..end]);
}

/// Adds `w` to `theta` where `mask` holds (a granule-like function with views).
#[gt4rs::export_c_fn(test_lib)]
pub fn add_masked(
    theta: FieldMut<'_, (Vertex, K), f64>,
    w: FieldRef<'_, (Vertex, K), f64>,
    mask: Option<FieldRef<'_, (Vertex, K), bool>>,
    scale: f64,
) -> Result<(), Error> {
    let mut theta = theta;
    let (w, mut out) = (w.as_array(), theta.as_array_mut());
    for ((index, t), &x) in out.indexed_iter_mut().zip(w.iter()) {
        if mask.as_ref().is_none_or(|m| m.as_array()[index.clone()]) {
            *t += scale * x;
        }
    }
    Ok(())
}

gt4rs::export_c! {
    library test_lib;
    offsets { E2V }
    programs { edge_gradient = edge_gradient; }
    functions { add_masked }
}

use test_lib::test_lib_edge_gradient::{
    test_lib_edge_gradient_call as call, test_lib_edge_gradient_compile as compile,
    test_lib_edge_gradient_free as free,
};
use test_lib::{
    test_lib_connectivity_e2v as set_e2v, test_lib_last_error as last_error,
    test_lib_options_free as options_free, test_lib_options_new as options_new,
};

const NE: usize = 10;
const NV: usize = 6;
const NK: usize = 4;
const NPROMA: usize = 12;

/// ICON's `e2v` idx and blk, `(nproma, 1, 2)`, 1-based.
fn icon_e2v() -> (Vec<i32>, Vec<i32>) {
    let mut idx = vec![0; NPROMA * 2];
    for e in 0..NE {
        idx[e] = (e % NV) as i32 + 1;
        idx[e + NPROMA] = ((e + 2) % NV) as i32 + 1;
    }
    (idx, vec![1; NPROMA * 2])
}

fn message() -> String {
    // SAFETY: the library returns a NUL-terminated string it owns.
    unsafe { CStr::from_ptr(last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Options with E2V, and the program compiled with them.
fn compiled() -> *mut edge_gradient::Compiled {
    let (idx, blk) = icon_e2v();
    let mut options = ptr::null_mut();
    let mut program = ptr::null_mut();
    // SAFETY: the arrays hold (NPROMA, 1, 2) elements, column-major; the handles are ours.
    unsafe {
        assert_eq!(options_new(0, &mut options), 0, "{}", message());
        let status = set_e2v(
            options,
            idx.as_ptr(),
            NPROMA as i64,
            1,
            2,
            1,
            NPROMA as i64,
            NPROMA as i64,
            blk.as_ptr(),
            NPROMA as i64,
            1,
            2,
            1,
            NPROMA as i64,
            NPROMA as i64,
            NE as i64,
            NV as i64,
        );
        assert_eq!(status, 0, "{}", message());
        assert_eq!(compile(options, &mut program), 0, "{}", message());
        options_free(&mut options);
        assert!(options.is_null(), "freeing nulls the handle");
    }
    program
}

/// A call on Fortran-ordered arrays (`p(nproma, nk)`, `grad(nproma, nk)`); `grad_len` and
/// `p_ptr` let a case pass bad sizes or pointers.
#[allow(clippy::too_many_arguments)]
fn call_with(
    program: *const edge_gradient::Compiled,
    p_ptr: *const f64,
    p_rows: i64,
    inv: &[f64],
    grad: *mut f64,
    grad_rows: i64,
    flip: u8,
    end: i32,
) -> i32 {
    let np = NPROMA as i64;
    let nk = NK as i64;
    // SAFETY: the tests pass arrays of the sizes given (or bad ones the entry must refuse).
    unsafe {
        call(
            program,
            p_ptr,
            p_rows,
            nk,
            1,
            np,
            inv.as_ptr(),
            NE as i64,
            1,
            grad,
            grad_rows,
            nk,
            1,
            np,
            2.0,
            flip,
            0,
            end,
        )
    }
}

#[test]
fn a_c_call_writes_the_callers_array_with_the_bits_of_a_rust_call() {
    let mut rng = rng(1510);
    let p: Field<(Vertex, K), f64> = random_field(&mut rng, &[0..NV as i64, 0..NK as i64]);
    let inv: Field<Edge, f64> = random_field(&mut rng, &[0..NE as i64]);
    let e2v = {
        let entries = (0..NE)
            .flat_map(|e| [(e % NV) as i32, ((e + 2) % NV) as i32])
            .collect();
        Connectivity::<E2V>::from_vec(entries, NE, NV).expect("table")
    };
    let rust = edge_gradient::compile(
        &Options::new(Backend::Cpu).with_connectivities(Connectivities::new().with(&e2v)),
    )
    .expect("compiles");
    let mut expected = poisoned(&[0..NE as i64, 0..NK as i64]);
    rust.call(edge_gradient::Args {
        p: &p,
        inv_length: &inv,
        grad: &mut expected,
        c: 2.0,
        flip: true,
        start: 0,
        end: NE as i32,
    })
    .expect("runs");

    let mut p_fortran = vec![f64::NAN; NPROMA * NK];
    for v in 0..NV {
        for k in 0..NK {
            p_fortran[v + NPROMA * k] = p.get(&[v as i64, k as i64]).expect("inside");
        }
    }
    let inv_values: Vec<f64> = inv.as_array().iter().copied().collect();
    let mut grad = vec![f64::NAN; NPROMA * NK];
    let program = compiled();
    let status = call_with(
        program,
        p_fortran.as_ptr(),
        NPROMA as i64,
        &inv_values,
        grad.as_mut_ptr(),
        NPROMA as i64,
        1,
        NE as i32,
    );
    assert_eq!(status, 0, "{}", message());
    for e in 0..NPROMA {
        for k in 0..NK {
            let got = grad[e + NPROMA * k];
            match expected.get(&[e as i64, k as i64]) {
                Some(want) => assert_eq!(got.to_bits(), want.to_bits(), "edge {e}, level {k}"),
                None => assert!(got.is_nan(), "padding row {e} written"),
            }
        }
    }
    let mut program = program;
    // SAFETY: our handle, freed once; a second free of the nulled handle does nothing.
    unsafe {
        free(&mut program);
        free(&mut program);
    }
    assert!(program.is_null());
}

#[test]
fn bad_calls_return_a_status_and_a_message() {
    let program = compiled();
    let p = vec![1.0; NPROMA * NK];
    let inv = vec![0.5; NE];
    let mut grad = vec![f64::NAN; NPROMA * NK];
    let np = NPROMA as i64;
    let expect = |status: i32, want: Status, needle: &str| {
        assert_eq!(status, want.code(), "{}", message());
        let text = message();
        assert!(text.contains(needle), "`{text}` lacks `{needle}`");
    };
    // A null array.
    let status = call_with(program, ptr::null(), np, &inv, grad.as_mut_ptr(), np, 0, 5);
    expect(status, Status::NullPointer, "`p` is a null pointer");
    // A size that disagrees with the program's layout: the domain reaches past the output.
    let status = call_with(program, p.as_ptr(), np, &inv, grad.as_mut_ptr(), 3, 0, 5);
    expect(status, Status::Domain, "grad");
    // A negative size.
    let status = call_with(program, p.as_ptr(), -1, &inv, grad.as_mut_ptr(), np, 0, 5);
    expect(status, Status::Shape, "`p` has size -1");
    // The output passed as an input too.
    let status = call_with(
        program,
        grad.as_ptr(),
        np,
        &inv,
        grad.as_mut_ptr(),
        np,
        0,
        5,
    );
    expect(status, Status::Argument, "share memory");
    // A call before compile: a null handle.
    let status = call_with(
        ptr::null(),
        p.as_ptr(),
        np,
        &inv,
        grad.as_mut_ptr(),
        np,
        0,
        5,
    );
    expect(status, Status::NotInitialised, "null handle");
    assert!(grad.iter().all(|g| g.is_nan()), "a refused call wrote");
    // A good call after the bad ones works, and clears nothing it should not.
    let status = call_with(program, p.as_ptr(), np, &inv, grad.as_mut_ptr(), np, 0, 5);
    assert_eq!(status, 0, "{}", message());
    let mut program = program;
    // SAFETY: our handle.
    unsafe { free(&mut program) };
}

#[test]
fn bad_tables_and_options_are_refused() {
    let mut options = ptr::null_mut();
    // SAFETY: our handles and arrays of the sizes given.
    unsafe {
        assert_eq!(options_new(7, &mut options), Status::Argument.code());
        assert!(message().contains("backend 7"), "{}", message());
        assert_eq!(options_new(0, ptr::null_mut()), Status::NullPointer.code());
        assert_eq!(options_new(0, &mut options), 0);
        // A 0-based table passed where ICON's 1-based one belongs.
        let (mut idx, blk) = icon_e2v();
        for i in idx.iter_mut() {
            *i -= 1;
        }
        let np = NPROMA as i64;
        let status = set_e2v(
            options,
            idx.as_ptr(),
            np,
            1,
            2,
            1,
            np,
            np,
            blk.as_ptr(),
            np,
            1,
            2,
            1,
            np,
            np,
            NE as i64,
            NV as i64,
        );
        assert_eq!(status, Status::Connectivity.code(), "{}", message());
        assert!(message().contains("0-based"), "{}", message());
        // Compiling without the table the program needs.
        let mut program = ptr::null_mut();
        assert_eq!(compile(options, &mut program), Status::Connectivity.code());
        assert!(message().contains("E2V"), "{}", message());
        assert!(program.is_null());
        options_free(&mut options);
    }
}

#[test]
fn a_function_entry_takes_optional_and_logical_arrays() {
    let mut theta = vec![1.0; NV * NK];
    let w = [2.0; NV * NK];
    let mut mask = [0u8; NV * NK];
    mask[3] = 1;
    let (n, nk) = (NV as i64, NK as i64);
    // SAFETY: arrays of NV x NK elements, column-major.
    unsafe {
        let status = add_masked::test_lib_add_masked(
            theta.as_mut_ptr(),
            n,
            nk,
            1,
            n,
            w.as_ptr(),
            n,
            nk,
            1,
            n,
            mask.as_ptr() as *const bool,
            n,
            nk,
            1,
            n,
            0.5,
        );
        assert_eq!(status, 0, "{}", message());
        assert_eq!(theta[3], 2.0);
        assert_eq!(theta[4], 1.0);
        // Without the mask (a null pointer: an absent optional argument) every point adds.
        let status = add_masked::test_lib_add_masked(
            theta.as_mut_ptr(),
            n,
            nk,
            1,
            n,
            w.as_ptr(),
            n,
            nk,
            1,
            n,
            ptr::null(),
            0,
            0,
            0,
            0,
            1.0,
        );
        assert_eq!(status, 0, "{}", message());
        assert_eq!(theta[3], 4.0);
        // A logical array holding a byte other than 0 and 1 (another compiler's .true.).
        mask[5] = 255;
        let status = add_masked::test_lib_add_masked(
            theta.as_mut_ptr(),
            n,
            nk,
            1,
            n,
            w.as_ptr(),
            n,
            nk,
            1,
            n,
            mask.as_ptr() as *const bool,
            n,
            nk,
            1,
            n,
            1.0,
        );
        assert_eq!(status, Status::Argument.code());
        assert!(message().contains("byte 255"), "{}", message());
    }
}

#[test]
fn the_bindings_declare_every_entry() {
    let header = test_lib::LIBRARY.header();
    for name in [
        "int test_lib_edge_gradient_compile(",
        "int test_lib_edge_gradient_call(",
        "void test_lib_edge_gradient_free(",
        "int test_lib_add_masked(",
        "int test_lib_connectivity_e2v(",
        "const char *test_lib_last_error(void);",
        "#define GT4RS_NULL_POINTER 1",
    ] {
        assert!(header.contains(name), "the header lacks {name}:\n{header}");
    }
    let module = test_lib::LIBRARY.fortran_module();
    for name in [
        "module test_lib",
        "function edge_gradient(program",
        "bind(C, name=\"test_lib_edge_gradient_call\")",
        "type, public :: edge_gradient_program",
        "function add_masked(theta",
        "public :: add_masked",
    ] {
        assert!(module.contains(name), "the module lacks {name}:\n{module}");
    }
}

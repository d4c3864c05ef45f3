//! Programs called on views (`Compiled::call_views`): a Fortran model's arrays used in place,
//! column-major and as sections, give the same bits as the fields of a typed call, on every
//! backend, bound or not, with the debug checks on.

use gt4rs::debug::DebugChecks;
use gt4rs::prelude::*;
use gt4rs::{FieldMut, FieldRef};
use gt4rs_tests::{for_each_backend, poisoned, random_field, rng};

gt4rs::dimensions! { pub Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub E2V: Edge => Vertex [2]; }

#[field_operator]
fn gradient(
    p: Field<(Vertex, K), f64>,
    inv_length: Field<Edge, f64>,
    c: f64,
) -> Field<(Edge, K), f64> {
    c * (p.at(E2V[1]) - p.at(E2V[0])) * inv_length
}

#[program]
pub fn edge_gradient(
    p: &Field<(Vertex, K), f64>,
    inv_length: &Field<Edge, f64>,
    grad: &mut Field<(Edge, K), f64>,
    c: f64,
    start: i32,
    end: i32,
) {
    gradient(p, inv_length, c).write_to(grad, domain![Edge: start..end]);
}

gt4rs::bind! {
    mod bound_gradient = edge_gradient(inv_length, c);
}

const NE: usize = 11;
const NV: usize = 7;
const NK: usize = 5;

fn e2v() -> Connectivity<E2V> {
    let entries: Vec<i32> = (0..NE)
        .flat_map(|e| [(e % NV) as i32, ((3 * e + 1) % NV) as i32])
        .collect();
    Connectivity::from_vec(entries, NE, NV).expect("table")
}

/// A Fortran `a(nproma, nlev)` holding `field` in its first rows, column-major, the padding
/// rows poisoned.
fn fortran_copy(field: &Field<(Vertex, K), f64>, nproma: usize) -> Vec<f64> {
    let (n, nk) = (field.shape()[0], field.shape()[1]);
    let mut a = vec![f64::NAN; nproma * nk];
    for k in 0..nk {
        for i in 0..n {
            a[i + nproma * k] = field.get(&[i as i64, k as i64]).expect("inside");
        }
    }
    a
}

#[test]
fn fortran_arrays_in_place_give_the_bits_of_typed_fields() {
    for_each_backend(|backend| {
        let mut rng = rng(1501);
        let p: Field<(Vertex, K), f64> = random_field(&mut rng, &[0..NV as i64, 0..NK as i64]);
        let inv: Field<Edge, f64> = random_field(&mut rng, &[0..NE as i64]);
        let options = backend.options_with(Connectivities::new().with(&e2v()));
        let program = edge_gradient::compile(&options)?;
        let mut expected = poisoned(&[0..NE as i64, 0..NK as i64]);
        program.call(edge_gradient::Args {
            p: &p,
            inv_length: &inv,
            grad: &mut expected,
            c: 1.5,
            start: 2,
            end: 9,
        })?;

        // The model's arrays: nproma 9 for vertices, 14 for edges, horizontal index fastest.
        let (np_v, np_e) = (9usize, 14usize);
        let p_fortran = fortran_copy(&p, np_v);
        let mut grad_fortran = vec![f64::NAN; np_e * NK];
        let (p_shape, p_strides, origin) = ([np_v, NK], [1isize, np_v as isize], [0i64, 0]);
        let (g_shape, g_strides) = ([np_e, NK], [1isize, np_e as isize]);
        // SAFETY: the vectors hold the sizes given, column-major, alive for the call and not
        // used by anything else meanwhile.
        let (p_view, grad_view) = unsafe {
            (
                FieldRef::<(Vertex, K), f64>::from_raw_parts(
                    p_fortran.as_ptr(),
                    &p_shape,
                    &p_strides,
                    &origin,
                )?,
                FieldMut::<(Edge, K), f64>::from_raw_parts(
                    grad_fortran.as_mut_ptr(),
                    &g_shape,
                    &g_strides,
                    &origin,
                )?,
            )
        };
        program.call_views(edge_gradient::Views {
            p: p_view,
            inv_length: inv.view(),
            grad: grad_view,
            c: 1.5,
            start: 2,
            end: 9,
        })?;
        for e in 0..np_e {
            for k in 0..NK {
                let got = grad_fortran[e + np_e * k];
                match expected.get(&[e as i64, k as i64]) {
                    Some(want) if (2..9).contains(&e) => {
                        assert_eq!(got.to_bits(), want.to_bits(), "edge {e}, level {k}")
                    }
                    _ => assert!(
                        got.is_nan(),
                        "edge {e}, level {k} outside the domain was written"
                    ),
                }
            }
        }
        Ok(())
    });
}

#[test]
fn sections_and_bound_programs_run_on_views() {
    for_each_backend(|backend| {
        let mut rng = rng(1502);
        let p: Field<(Vertex, K), f64> = random_field(&mut rng, &[0..NV as i64, 0..NK as i64]);
        let inv: Field<Edge, f64> = random_field(&mut rng, &[0..NE as i64]);
        let options = backend
            .options_with(Connectivities::new().with(&e2v()))
            .with_debug(DebugChecks::parse("nan").expect("checks"));
        let bound = bound_gradient::compile(
            &options,
            bound_gradient::Bound {
                inv_length: std::sync::Arc::new(inv.clone()),
                c: -0.5,
            },
        )?;
        let mut expected = poisoned(&[0..NE as i64, 0..NK as i64]);
        bound.call(bound_gradient::Args {
            p: &p,
            grad: &mut expected,
            start: 0,
            end: NE as i32,
        })?;

        // Every other column of a wider array: the Fortran section `g(:, 1::2)`.
        let mut wide = vec![f64::NAN; NE * 2 * NK];
        let (shape, strides, origin) = ([NE, NK], [1isize, 2 * NE as isize], [0i64, 0]);
        // SAFETY: the section's elements are elements of `wide`, alive and unshared.
        let section = unsafe {
            FieldMut::<(Edge, K), f64>::from_raw_parts(
                wide.as_mut_ptr(),
                &shape,
                &strides,
                &origin,
            )?
        };
        bound.call_views(bound_gradient::Views {
            p: p.view(),
            grad: section,
            start: 0,
            end: NE as i32,
        })?;
        for e in 0..NE {
            for k in 0..NK {
                let want = expected.get(&[e as i64, k as i64]).expect("inside");
                assert_eq!(
                    wide[e + 2 * NE * k].to_bits(),
                    want.to_bits(),
                    "edge {e}, level {k}"
                );
                assert!(
                    wide[e + NE + 2 * NE * k].is_nan(),
                    "the other columns stay untouched"
                );
            }
        }
        Ok(())
    });
}

#[test]
fn a_view_too_small_for_the_domain_is_an_error_not_a_read() {
    let mut rng = rng(1503);
    let p: Field<(Vertex, K), f64> = random_field(&mut rng, &[0..NV as i64, 0..NK as i64]);
    let inv: Field<Edge, f64> = random_field(&mut rng, &[0..NE as i64]);
    let program = edge_gradient::compile(
        &Options::new(Backend::Cpu).with_connectivities(Connectivities::new().with(&e2v())),
    )
    .expect("compiles");
    let mut short = vec![f64::NAN; 4 * NK];
    let (shape, strides, origin) = ([4usize, NK], [1isize, 4], [0i64, 0]);
    // SAFETY: `short` holds 4 x NK elements.
    let grad = unsafe {
        FieldMut::<(Edge, K), f64>::from_raw_parts(short.as_mut_ptr(), &shape, &strides, &origin)
    }
    .expect("view");
    let result = program.call_views(edge_gradient::Views {
        p: p.view(),
        inv_length: inv.view(),
        grad,
        c: 1.0,
        start: 0,
        end: 9,
    });
    let message = result
        .expect_err("the domain reaches past the output")
        .to_string();
    assert!(message.contains("grad"), "{message}");
    assert!(short.iter().all(|v| v.is_nan()));
}

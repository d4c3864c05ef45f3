//! Reads inside branches on the CPU kernels' fast path (the vertical loop over slices): a read
//! shifted in K that leaves its field at the column's ends runs those levels through the
//! general loop, which flags them; a field updated in place is read from the output's own
//! slice; an undefined value the fast loop writes is reported at its point by running the
//! levels again through the general loop. Every backend computes the same values or errors.

use gt4rs_tests::*;

use gt4rs::prelude::*;

#[field_operator]
fn to_half_levels(a: Field<(I, K), f64>, w: Field<(I, K), f64>) -> Field<(I, K), f64> {
    concat_where(K > 0, w * a + (1.0 - w) * a.at(K - 1), a)
}
#[program]
fn to_half_levels_prog(
    a: &Field<(I, K), f64>,
    w: &Field<(I, K), f64>,
    out: &mut Field<(I, K), f64>,
    k_start: i32,
    k_end: i32,
) {
    to_half_levels(a, w).write_to(out, domain![I: 0..2, K: k_start..k_end]);
}

/// ICON's interpolation to half levels: `a[k-1]` is read in the branch that level 0 does not
/// take. Over every level (level 0 runs apart from the others), from level 1 and over a
/// middle range, with columns tall enough that the CPU backend splits them into blocks.
#[test]
fn a_level_below_read_in_a_branch_runs_the_bottom_level_apart() {
    let mut rng = rng(1301);
    let nk = 300i64;
    let a: Field<(I, K), f64> = random_field(&mut rng, &[0..2, 0..nk]);
    let w: Field<(I, K), f64> = random_field(&mut rng, &[0..2, 0..nk]);
    for_each_backend(|backend| {
        let prog = to_half_levels_prog::compile(&backend.options())?;
        for (k_start, k_end) in [(0, nk), (1, nk), (0, 1), (37, 211)] {
            let mut out = poisoned(&[0..2, 0..nk]);
            prog.call(to_half_levels_prog::Args {
                a: &a,
                w: &w,
                out: &mut out,
                k_start: k_start as i32,
                k_end: k_end as i32,
            })?;
            expect_field("out", &out, &[0..2, k_start..k_end], |p| {
                if p[1] > 0 {
                    let wk = at(&w, p);
                    wk * at(&a, p) + (1.0 - wk) * at(&a, &[p[0], p[1] - 1])
                } else {
                    at(&a, p)
                }
            });
        }
        Ok(())
    });
}

#[field_operator]
fn below_from(a: Field<(I, K), f64>, lowest: i32) -> Field<(I, K), f64> {
    concat_where(K >= lowest, a.at(K - 1), a * 2.0)
}
#[program]
fn below_from_prog(a: &Field<(I, K), f64>, out: &mut Field<(I, K), f64>, lowest: i32) {
    below_from(a, lowest).write_to(out);
}

/// The same read in a branch that level 0 takes: level 0 is undefined, an error on every
/// backend; from level 1 on it is fine.
#[test]
fn a_level_below_read_in_a_branch_taken_at_the_bottom_is_an_error() {
    let mut rng = rng(1302);
    let (ni, nk) = (NI as i64, 120i64);
    let a: Field<(I, K), f64> = random_field(&mut rng, &[0..ni, 0..nk]);
    for_each_backend(|backend| {
        let prog = below_from_prog::compile(&backend.options())?;
        let mut out = poisoned(&[0..ni, 0..nk]);
        prog.call(below_from_prog::Args {
            a: &a,
            out: &mut out,
            lowest: 1,
        })?;
        expect_field("out", &out, &[0..ni, 0..nk], |p| {
            if p[1] >= 1 {
                at(&a, &[p[0], p[1] - 1])
            } else {
                2.0 * at(&a, p)
            }
        });
        let mut out = poisoned(&[0..ni, 0..nk]);
        let result = prog.call(below_from_prog::Args {
            a: &a,
            out: &mut out,
            lowest: 0,
        });
        let needle = if backend.backend == Backend::Embedded {
            "K 0..1 is missing".to_string()
        } else {
            "is undefined at point I ".to_string()
        };
        expect_error(result, &[&needle]);
        Ok(())
    });
}

#[field_operator]
fn add_below(x: Field<(I, K), f64>, a: Field<(I, K), f64>, top: i32) -> Field<(I, K), f64> {
    concat_where(K < top, x + a, x)
}
#[program]
fn add_below_prog(x: &mut Field<(I, K), f64>, a: &Field<(I, K), f64>, top: i32) {
    add_below(x, a, top).write_to(x);
}

/// An update in place whose branches read the field they write, at the point written (as
/// `apply_diffusion_to_vn` updates `vn`).
#[test]
fn a_field_updated_in_place_in_branches() {
    let mut rng = rng(1303);
    let (ni, nk) = (NI as i64, 77i64);
    let x0: Field<(I, K), f64> = random_field(&mut rng, &[0..ni, 0..nk]);
    let a: Field<(I, K), f64> = random_field(&mut rng, &[0..ni, 0..nk]);
    for_each_backend(|backend| {
        let prog = add_below_prog::compile(&backend.options())?;
        let mut x = x0.clone();
        prog.call(add_below_prog::Args {
            x: &mut x,
            a: &a,
            top: 30,
        })?;
        expect_field("x", &x, &[0..ni, 0..nk], |p| {
            if p[1] < 30 {
                at(&x0, p) + at(&a, p)
            } else {
                at(&x0, p)
            }
        });
        Ok(())
    });
}

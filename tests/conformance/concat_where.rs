//! GT4Py `test_concat_where.py`: conditions on K (`> 0`, `== 0`, in the middle), branches
//! defined only on their own region, scalar branches, a boundary level broadcast into 3-D,
//! nested conditions, `&` and `|`, a lap-like boundary frame and tuples. GT4Py runs each case
//! with dynamic and static domains; here the bounds are program parameters (dynamic) and the
//! `#[static_arg]` cases cover compile-time values.

use super::common::*;

#[field_operator]
fn above_ground(
    a: Field<(I, J, K), f64>,
    b: Field<(I, J, K), f64>,
    surface: Field<(I, J), f64>,
) -> (
    Field<(I, J, K), f64>,
    Field<(I, J, K), f64>,
    Field<(I, J, K), f64>,
) {
    let positive = concat_where(K > 0, a, b);
    let bottom = concat_where(K == 0, surface, a);
    let scalar_branch = concat_where(K < 3, 1.5, a * 2.0);
    (positive, bottom, scalar_branch + a)
}

#[program]
fn above_ground_prog(
    a: &Field<(I, J, K), f64>,
    b: &Field<(I, J, K), f64>,
    surface: &Field<(I, J), f64>,
    positive: &mut Field<(I, J, K), f64>,
    bottom: &mut Field<(I, J, K), f64>,
    scalars: &mut Field<(I, J, K), f64>,
) {
    above_ground(a, b, surface).write_to((positive, bottom, scalars));
}

#[test]
fn conditions_on_k_scalar_branches_and_a_broadcast_level() {
    let mut rng = rng(501);
    let dom = sized(&[NI, NJ, NK]);
    let a: Field<(I, J, K), f64> = random_field(&mut rng, &dom);
    let b: Field<(I, J, K), f64> = random_field(&mut rng, &dom);
    let surface: Field<(I, J), f64> = random_field(&mut rng, &sized(&[NI, NJ]));
    for_each_backend(|backend| {
        let (mut positive, mut bottom, mut scalars) =
            (poisoned(&dom), poisoned(&dom), poisoned(&dom));
        let prog = above_ground_prog::compile(&backend.options())?;
        prog.call(above_ground_prog::Args {
            a: &a,
            b: &b,
            surface: &surface,
            positive: &mut positive,
            bottom: &mut bottom,
            scalars: &mut scalars,
        })?;
        expect_field("positive", &positive, &dom, |p| {
            if p[2] > 0 {
                at(&a, p)
            } else {
                at(&b, p)
            }
        });
        expect_field("bottom", &bottom, &dom, |p| {
            if p[2] == 0 {
                at(&surface, &p[..2])
            } else {
                at(&a, p)
            }
        });
        expect_field("scalars", &scalars, &dom, |p| {
            if p[2] < 3 {
                1.5 + at(&a, p)
            } else {
                3.0 * at(&a, p)
            }
        });
        Ok(())
    });
}

/// Branch fields that do not overlap: `interior` covers levels 1..nk, `top` only level 0
/// (a field starting at a non-zero level and a single-level field).
#[field_operator]
fn glue(top: Field<(I, J, K), f64>, interior: Field<(I, J, K), f64>) -> Field<(I, J, K), f64> {
    concat_where(K == 0, top, interior)
}
#[program]
fn glue_prog(
    top: &Field<(I, J, K), f64>,
    interior: &Field<(I, J, K), f64>,
    out: &mut Field<(I, J, K), f64>,
) {
    glue(top, interior).write_to(out);
}

#[test]
fn non_overlapping_branch_fields() {
    let mut rng = rng(502);
    let (ni, nj, nk) = (NI as i64, NJ as i64, NK as i64);
    let dom = sized(&[NI, NJ, NK]);
    let top: Field<(I, J, K), f64> = random_field(&mut rng, &[0..ni, 0..nj, 0..1]);
    let interior: Field<(I, J, K), f64> = random_field(&mut rng, &[0..ni, 0..nj, 1..nk]);
    for_each_backend(|backend| {
        let mut out = poisoned(&dom);
        glue_prog::compile(&backend.options())?.call(glue_prog::Args {
            top: &top,
            interior: &interior,
            out: &mut out,
        })?;
        expect_field("out", &out, &dom, |p| {
            if p[2] == 0 {
                at(&top, p)
            } else {
                at(&interior, p)
            }
        });
        Ok(())
    });
}

/// Nested conditions, `&`, `|`, equality in the middle of the domain and bounds from scalar
/// parameters.
#[field_operator]
fn regions(
    a: Field<(I, J, K), f64>,
    b: Field<(I, J, K), f64>,
    c: Field<(I, J, K), f64>,
    nlev: i32,
    mid: i32,
) -> (
    Field<(I, J, K), f64>,
    Field<(I, J, K), f64>,
    Field<(I, J, K), f64>,
) {
    let nested = concat_where(K < 2, a, concat_where(K >= nlev - 2, b, c));
    let inner = concat_where((0 < K) & (K < nlev - 1), a, b);
    let outer = concat_where((K == 0) | (K == nlev - 1), a, concat_where(K == mid, b, c));
    (nested, inner, outer)
}
#[program]
fn regions_prog(
    a: &Field<(I, J, K), f64>,
    b: &Field<(I, J, K), f64>,
    c: &Field<(I, J, K), f64>,
    nested: &mut Field<(I, J, K), f64>,
    inner: &mut Field<(I, J, K), f64>,
    outer: &mut Field<(I, J, K), f64>,
    nlev: i32,
    mid: i32,
) {
    regions(a, b, c, nlev, mid).write_to((nested, inner, outer));
}

#[test]
fn nested_and_combined_conditions() {
    let mut rng = rng(503);
    let dom = sized(&[NI, NJ, NK]);
    let nk = NK as i64;
    let a: Field<(I, J, K), f64> = random_field(&mut rng, &dom);
    let b: Field<(I, J, K), f64> = random_field(&mut rng, &dom);
    let c: Field<(I, J, K), f64> = random_field(&mut rng, &dom);
    let mid = 4;
    for_each_backend(|backend| {
        let (mut nested, mut inner, mut outer) = (poisoned(&dom), poisoned(&dom), poisoned(&dom));
        let prog = regions_prog::compile(&backend.options())?;
        prog.call(regions_prog::Args {
            a: &a,
            b: &b,
            c: &c,
            nested: &mut nested,
            inner: &mut inner,
            outer: &mut outer,
            nlev: NK as i32,
            mid,
        })?;
        expect_field("nested", &nested, &dom, |p| match p[2] {
            k if k < 2 => at(&a, p),
            k if k >= nk - 2 => at(&b, p),
            _ => at(&c, p),
        });
        expect_field("inner", &inner, &dom, |p| {
            if 0 < p[2] && p[2] < nk - 1 {
                at(&a, p)
            } else {
                at(&b, p)
            }
        });
        expect_field("outer", &outer, &dom, |p| match p[2] {
            k if k == 0 || k == nk - 1 => at(&a, p),
            k if k == mid as i64 => at(&b, p),
            _ => at(&c, p),
        });
        Ok(())
    });
}

/// A lap-like boundary frame: the interior of a halo'd field gets a Laplacian, the frame keeps
/// the input (conditions on two horizontal dimensions).
#[field_operator]
fn framed_lap(a: Field<(I, J), f64>, ni: i32, nj: i32) -> Field<(I, J), f64> {
    let lap = a.at(I + 1) + a.at(I - 1) + a.at(J + 1) + a.at(J - 1) - 4.0 * a;
    concat_where((I == 0) | (I == ni - 1) | (J == 0) | (J == nj - 1), a, lap)
}
#[program]
fn framed_lap_prog(a: &Field<(I, J), f64>, out: &mut Field<(I, J), f64>, ni: i32, nj: i32) {
    framed_lap(a, ni, nj).write_to(out, domain![I: 0..ni, J: 0..nj]);
}

#[test]
fn boundary_frame_around_a_laplacian() {
    let mut rng = rng(504);
    let (ni, nj) = (NI as i64, NJ as i64);
    // `a` covers exactly the frame's box: the Laplacian is defined on its interior only.
    let dom = sized(&[NI, NJ]);
    let a: Field<(I, J), f64> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let mut out = poisoned(&dom);
        framed_lap_prog::compile(&backend.options())?.call(framed_lap_prog::Args {
            a: &a,
            out: &mut out,
            ni: NI as i32,
            nj: NJ as i32,
        })?;
        expect_field("out", &out, &dom, |p| {
            let (i, j) = (p[0], p[1]);
            if i == 0 || i == ni - 1 || j == 0 || j == nj - 1 {
                at(&a, p)
            } else {
                at(&a, &[i + 1, j])
                    + at(&a, &[i - 1, j])
                    + at(&a, &[i, j + 1])
                    + at(&a, &[i, j - 1])
                    - 4.0 * at(&a, p)
            }
        });
        Ok(())
    });
}

/// Tuples in both branches, written to outputs with different domains, and a static bound.
#[field_operator]
fn tuple_branches(
    a: Field<(I, K), f64>,
    b: Field<(I, K), f64>,
    split: i32,
) -> (Field<(I, K), f64>, Field<(I, K), f64>) {
    concat_where(K < split, (a, b), (b, a * 2.0))
}
#[program]
fn tuple_branches_prog(
    a: &Field<(I, K), f64>,
    b: &Field<(I, K), f64>,
    first: &mut Field<(I, K), f64>,
    second: &mut Field<(I, K), f64>,
    #[static_arg] split: i32,
) {
    tuple_branches(a, b, split).write_to((first, second), (domain![K: 1..9], domain![I: 2..5]));
}

#[test]
fn tuple_branches_with_different_output_domains() {
    let mut rng = rng(505);
    let (ni, nk) = (NI as i64, NK as i64);
    let dom = sized(&[NI, NK]);
    let a: Field<(I, K), f64> = random_field(&mut rng, &dom);
    let b: Field<(I, K), f64> = random_field(&mut rng, &dom);
    let split = 5;
    for_each_backend(|backend| {
        let (mut first, mut second) = (poisoned(&dom), poisoned(&dom));
        tuple_branches_prog::compile(&backend.options())?.call(tuple_branches_prog::Args {
            a: &a,
            b: &b,
            first: &mut first,
            second: &mut second,
            split,
        })?;
        let low = |p: &[i64]| p[1] < split as i64;
        expect_field("first", &first, &[0..ni, 1..nk], |p| {
            if low(p) {
                at(&a, p)
            } else {
                at(&b, p)
            }
        });
        expect_field("second", &second, &[2..ni, 0..nk], |p| {
            if low(p) {
                at(&b, p)
            } else {
                2.0 * at(&a, p)
            }
        });
        Ok(())
    });
}

/// Both branches scalars: the result is defined at every level, so it broadcasts against `a`.
#[field_operator]
fn two_scalar_branches(a: Field<(I, K), f64>) -> Field<(I, K), f64> {
    broadcast(concat_where(K < 3, 1.5, -2.5), (I, K)) + a
}
#[program]
fn two_scalar_branches_prog(a: &Field<(I, K), f64>, out: &mut Field<(I, K), f64>) {
    two_scalar_branches(a).write_to(out);
}

/// Both branches broadcast along K: the result is defined at every level the call writes, not
/// only between the indices the condition names.
#[test]
fn two_scalar_branches_cover_every_level() {
    let mut rng = rng(506);
    let dom = sized(&[NI, NK]);
    let a: Field<(I, K), f64> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let mut out = poisoned(&dom);
        two_scalar_branches_prog::compile(&backend.options())?.call(
            two_scalar_branches_prog::Args {
                a: &a,
                out: &mut out,
            },
        )?;
        expect_field("out", &out, &dom, |p| {
            at(&a, p) + if p[1] < 3 { 1.5 } else { -2.5 }
        });
        Ok(())
    });
}

/// A condition on a horizontal dimension of an unstructured mesh (ICON's lateral boundary
/// zones are index ranges of the horizontal dimension).
#[field_operator]
fn boundary_zone(
    interior: Field<(Edge, K), f64>,
    boundary: Field<K, f64>,
    zone_end: i32,
) -> Field<(Edge, K), f64> {
    concat_where(Edge < zone_end, boundary, interior * 0.5)
}
#[program]
fn boundary_zone_prog(
    interior: &Field<(Edge, K), f64>,
    boundary: &Field<K, f64>,
    out: &mut Field<(Edge, K), f64>,
    zone_end: i32,
) {
    boundary_zone(interior, boundary, zone_end).write_to(out, domain![Edge: 2..16]);
}

#[test]
fn condition_on_a_horizontal_dimension() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(507);
    let e_dom = sized(&[mesh.n_edges, NK]);
    let interior: Field<(Edge, K), f64> = random_field(&mut rng, &e_dom);
    let boundary: Field<K, f64> = random_field(&mut rng, &sized(&[NK]));
    for_each_backend(|backend| {
        let mut out = poisoned(&e_dom);
        boundary_zone_prog::compile(&backend.options())?.call(boundary_zone_prog::Args {
            interior: &interior,
            boundary: &boundary,
            out: &mut out,
            zone_end: 6,
        })?;
        expect_field("out", &out, &[2..16, 0..NK as i64], |p| {
            if p[0] < 6 {
                at(&boundary, &[p[1]])
            } else {
                0.5 * at(&interior, p)
            }
        });
        Ok(())
    });
}

/// A scan inside a `concat_where` branch, with arguments covering exactly the branch's region
/// (ICON's fused vertical solvers: level 0 from one branch, a scan over 1..nlev in the other).
#[scan_operator(axis = K, forward = true, init = 0.0)]
fn running_sum(total: f64, x: f64) -> f64 {
    total + x
}
#[scan_operator(axis = K, forward = false, init = 1.0)]
fn product_down(total: f64, x: f64) -> f64 {
    total * x
}
#[field_operator]
fn scans_in_branches(
    x: Field<(I, K), f64>,
    x_scan_up: Field<(I, K), f64>,
    x_scan_down: Field<(I, K), f64>,
    top: i32,
) -> (Field<(I, K), f64>, Field<(I, K), f64>) {
    let upward = concat_where(K == 0, broadcast(0.0, (I, K)), running_sum(x_scan_up));
    let downward = concat_where(K >= top, x, product_down(x_scan_down));
    (upward, downward)
}
#[program]
fn scans_in_branches_prog(
    x: &Field<(I, K), f64>,
    x_scan_up: &Field<(I, K), f64>,
    x_scan_down: &Field<(I, K), f64>,
    upward: &mut Field<(I, K), f64>,
    downward: &mut Field<(I, K), f64>,
    top: i32,
) {
    scans_in_branches(x, x_scan_up, x_scan_down, top).write_to((upward, downward));
}

/// Runs `scans_in_branches_prog` with the scans' arguments over `up` and `down` (copies of
/// `x` there) and checks that each scan's carry starts at its region's first level.
fn check_scans_in_branches(seed: u64, up: std::ops::Range<i64>, down: std::ops::Range<i64>) {
    let mut rng = rng(seed);
    let ni = NI as i64;
    let top = 6;
    let dom = sized(&[NI, NK]);
    let x: Field<(I, K), f64> = random_field(&mut rng, &dom);
    let restrict = |levels: std::ops::Range<i64>| {
        Field::from_fn(&[0..ni, levels], Layout::default(), |p| at(&x, p)).unwrap()
    };
    let (x_scan_up, x_scan_down) = (restrict(up), restrict(down));
    for_each_backend(|backend| {
        let (mut upward, mut downward) = (poisoned(&dom), poisoned(&dom));
        scans_in_branches_prog::compile(&backend.options())?.call(
            scans_in_branches_prog::Args {
                x: &x,
                x_scan_up: &x_scan_up,
                x_scan_down: &x_scan_down,
                upward: &mut upward,
                downward: &mut downward,
                top,
            },
        )?;
        expect_field("upward", &upward, &dom, |p| {
            if p[1] == 0 {
                0.0
            } else {
                (1..=p[1]).map(|k| at(&x, &[p[0], k])).sum()
            }
        });
        expect_field("downward", &downward, &dom, |p| {
            if p[1] >= top as i64 {
                at(&x, p)
            } else {
                (p[1]..top as i64).map(|k| at(&x, &[p[0], k])).product()
            }
        });
        Ok(())
    });
}

#[test]
fn scans_inside_branches_with_arguments_on_their_region() {
    check_scans_in_branches(508, 1..NK as i64, 0..6);
}

/// With arguments covering the whole column, each scan still runs over its branch's region
/// only (as GT4Py's gtfn/dace domain inference does): level 0 does not feed the carry of
/// `running_sum`, nor levels 6..9 that of `product_down`.
#[test]
fn scans_inside_branches_with_arguments_on_the_whole_column() {
    check_scans_in_branches(509, 0..NK as i64, 0..NK as i64);
}

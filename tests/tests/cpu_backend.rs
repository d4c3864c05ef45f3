//! The fused CPU backend against hand-written loops, on random data (outputs NaN-poisoned).
//! Programs come from fieldview IR built in `build.rs` (see there), so these tests run the real
//! program codegen and CPU emitter without the frontend.
// 1-d field domains are arrays of one range.
#![allow(clippy::single_range_in_vec_init)]

use gt4rs::prelude::*;
use gt4rs::testing::{random_field_laid_out, rng, TestRng, TestScalar};
use gt4rs::CpuOptions;
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

fn random<D: gt4rs::Dims>(
    r: &mut TestRng,
    domain: &[std::ops::Range<i64>],
    layout: Layout,
) -> Field<D, f64> {
    random_field_laid_out(r, domain, layout).expect("a valid test domain")
}

fn close(got: f64, want: f64) -> bool {
    got.close(want, f64::ROUNDING)
}

/// Options that force the parallel path (threshold 0) or the sequential one.
fn options(parallel: bool, conns: Connectivities) -> Options {
    Options::new(Backend::Cpu)
        .with_connectivities(conns)
        .with_cpu(CpuOptions {
            parallel_threshold: if parallel { 0 } else { usize::MAX },
            chunk: 7,
            k_block: 0,
            stage_group_chunk: 5,
            vectors: gt4rs::Vectors::Avx512,
        })
}

struct Nabla4Case {
    u: Field<(Vertex, K), f64>,
    v: Field<(Vertex, K), f64>,
    pn1: Field<(Edge, E2C2V), f64>,
    pn2: Field<(Edge, E2C2V), f64>,
    z: Field<(Edge, K), f64>,
    ivv: Field<(Edge,), f64>,
    ipe: Field<(Edge,), f64>,
    table: Vec<i32>,
}

fn nabla4_case(seed: u64, ne: i64, nv: i64, nk: i64, layout: Layout) -> Nabla4Case {
    let mut r = rng(seed);
    let table = (0..ne * 4).map(|_| r.random_range(0..nv as i32)).collect();
    Nabla4Case {
        u: random(&mut r, &[0..nv, 0..nk], layout),
        v: random(&mut r, &[0..nv, 0..nk], layout),
        pn1: random(&mut r, &[0..ne, 0..4], layout),
        pn2: random(&mut r, &[0..ne, 0..4], layout),
        z: random(&mut r, &[0..ne, 0..nk], layout),
        ivv: random(&mut r, &[0..ne], layout),
        ipe: random(&mut r, &[0..ne], layout),
        table,
    }
}

fn nabla4_reference(c: &Nabla4Case, e: i64, k: i64) -> f64 {
    let nb = |j: i64| c.table[(e * 4 + j) as usize] as i64;
    let p = |j: i64| {
        c.u.get(&[nb(j), k]).unwrap() * c.pn1.get(&[e, j]).unwrap()
            + c.v.get(&[nb(j), k]).unwrap() * c.pn2.get(&[e, j]).unwrap()
    };
    let z2 = 2.0 * c.z.get(&[e, k]).unwrap();
    let ivv = c.ivv.get(&[e]).unwrap();
    let ipe = c.ipe.get(&[e]).unwrap();
    4.0 * ((p(2) + p(3) - z2) * ivv * ivv + (p(0) + p(1) - z2) * ipe * ipe)
}

#[test]
fn cpu_nabla4_matches_hand_loop_both_layouts_and_paths() {
    for (layout, parallel) in [
        (Layout::LastContiguous, false),
        (Layout::LastContiguous, true),
        (Layout::FirstContiguous, false),
        (Layout::FirstContiguous, true),
    ] {
        let (ne, nv, nk) = (61, 23, 9);
        let c = nabla4_case(7, ne, nv, nk, layout);
        let e2c2v =
            Connectivity::<E2C2V>::from_vec(c.table.clone(), ne as usize, nv as usize).unwrap();
        let prog =
            calculate_nabla4::compile(&options(parallel, Connectivities::new().with(&e2c2v)))
                .unwrap();
        let mut out: Field<(Edge, K), f64> =
            Field::filled(&[0..ne, 0..nk], f64::NAN, layout).unwrap();
        let (hs, he, vs, ve) = (3, 57, 1, 8);
        prog.call(calculate_nabla4::Args {
            u_vert: &c.u,
            v_vert: &c.v,
            primal_normal_vert_v1: &c.pn1,
            primal_normal_vert_v2: &c.pn2,
            z_nabla2_e: &c.z,
            inv_vert_vert_length: &c.ivv,
            inv_primal_edge_length: &c.ipe,
            z_nabla4_e2: &mut out,
            horizontal_start: hs,
            horizontal_end: he,
            vertical_start: vs,
            vertical_end: ve,
        })
        .unwrap();
        for e in 0..ne {
            for k in 0..nk {
                let got = out.get(&[e, k]).unwrap();
                if (hs as i64..he as i64).contains(&e) && (vs as i64..ve as i64).contains(&k) {
                    let want = nabla4_reference(&c, e, k);
                    assert!(close(got, want), "{layout:?} e={e} k={k}: {got} vs {want}");
                } else {
                    assert!(
                        got.is_nan(),
                        "{layout:?}: point ({e}, {k}) outside the domain was written"
                    );
                }
            }
        }
    }
}

#[test]
fn cpu_nabla4_reports_skip_values_and_bad_domains() {
    let (ne, nv, nk) = (20, 9, 4);
    let mut c = nabla4_case(3, ne, nv, nk, Layout::LastContiguous);
    c.table[5 * 4 + 2] = -1;
    let e2c2v = Connectivity::<E2C2V>::from_vec(c.table.clone(), ne as usize, nv as usize).unwrap();
    let prog =
        calculate_nabla4::compile(&options(false, Connectivities::new().with(&e2c2v))).unwrap();
    let mut out: Field<(Edge, K), f64> =
        Field::filled(&[0..ne, 0..nk], f64::NAN, Layout::LastContiguous).unwrap();
    let run = |hs: i32, he: i32, ve: i32, out: &mut Field<(Edge, K), f64>| {
        prog.call(calculate_nabla4::Args {
            u_vert: &c.u,
            v_vert: &c.v,
            primal_normal_vert_v1: &c.pn1,
            primal_normal_vert_v2: &c.pn2,
            z_nabla2_e: &c.z,
            inv_vert_vert_length: &c.ivv,
            inv_primal_edge_length: &c.ipe,
            z_nabla4_e2: out,
            horizontal_start: hs,
            horizontal_end: he,
            vertical_start: 0,
            vertical_end: ve,
        })
    };
    // Edge 5 has a -1 in slot 2, read directly: an error naming the offset.
    let e = run(0, ne as i32, nk as i32, &mut out).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("E2C2V") && text.contains("-1"), "{text}");
    // Outside edge 5 the same program runs.
    run(6, ne as i32, nk as i32, &mut out).unwrap();
    // A domain beyond the output.
    let e = run(0, ne as i32 + 1, nk as i32, &mut out).unwrap_err();
    assert!(matches!(e, gt4rs::Error::Domain { .. }), "{e}");
    assert!(e.to_string().contains("z_nabla4_e2"), "{e}");
    // Vertical reach beyond an input: z_nabla2_e only has nk levels.
    let mut big: Field<(Edge, K), f64> =
        Field::filled(&[0..ne, 0..nk + 1], f64::NAN, Layout::LastContiguous).unwrap();
    let e = run(6, ne as i32, nk as i32 + 1, &mut big).unwrap_err();
    assert!(
        e.to_string().contains("u_vert") || e.to_string().contains("z_nabla2_e"),
        "{e}"
    );
}

#[test]
fn cpu_laplacian_with_nonzero_origins() {
    for layout in [Layout::LastContiguous, Layout::FirstContiguous] {
        for parallel in [false, true] {
            let mut r = rng(11);
            let (n, nk) = (12i64, 5i64);
            let a: Field<(I, J, K), f64> =
                random(&mut r, &[-1..n + 1, -1..n + 1, 2..2 + nk], layout);
            let mut out: Field<(I, J, K), f64> =
                Field::filled(&[0..n, 0..n, 2..2 + nk], f64::NAN, layout).unwrap();
            let prog = laplacian::compile(&options(parallel, Connectivities::new())).unwrap();
            prog.call(laplacian::Args {
                a: &a,
                out: &mut out,
            })
            .unwrap();
            for i in 0..n {
                for j in 0..n {
                    for k in 2..2 + nk {
                        let g = |di: i64, dj: i64| a.get(&[i + di, j + dj, k]).unwrap();
                        let want = -4.0 * g(0, 0) + g(1, 0) + g(-1, 0) + g(0, 1) + g(0, -1);
                        let got = out.get(&[i, j, k]).unwrap();
                        assert!(close(got, want), "({i},{j},{k}) {got} vs {want}");
                    }
                }
            }
            // An input too small for the shifts: an error naming it.
            let small: Field<(I, J, K), f64> =
                random(&mut r, &[0..n, -1..n + 1, 2..2 + nk], layout);
            let e = prog
                .call(laplacian::Args {
                    a: &small,
                    out: &mut out,
                })
                .unwrap_err();
            assert!(e.to_string().contains("`a`"), "{e}");
        }
    }
}

#[test]
fn cpu_reductions_skip_missing_neighbours() {
    let (ne, nc, nk) = (40i64, 15i64, 6i64);
    let mut r = rng(5);
    let table: Vec<i32> = (0..ne * 2)
        .map(|i| {
            if i % 7 == 3 {
                -1
            } else {
                r.random_range(0..nc as i32)
            }
        })
        .collect();
    let e2c = Connectivity::<E2C>::from_vec(table.clone(), ne as usize, nc as usize).unwrap();
    for layout in [Layout::LastContiguous, Layout::FirstContiguous] {
        let f: Field<(Cell, K), f64> = random(&mut r, &[0..nc, 0..nk], layout);
        let w: Field<(Edge, E2C), f64> = random(&mut r, &[0..ne, 0..2], layout);
        let kf: Field<(K,), f64> = random(&mut r, &[0..nk], layout);
        let mut out: Field<(Edge, K), f64> =
            Field::filled(&[0..ne, 0..nk], f64::NAN, layout).unwrap();
        let prog = reductions::compile(&options(true, Connectivities::new().with(&e2c))).unwrap();
        let ve = (nk - 1) as i32;
        prog.call(reductions::Args {
            f: &f,
            w: &w,
            kf: &kf,
            out: &mut out,
            vertical_end: ve,
        })
        .unwrap();
        for e in 0..ne {
            for k in 0..nk {
                let got = out.get(&[e, k]).unwrap();
                if k >= ve as i64 {
                    assert!(got.is_nan());
                    continue;
                }
                let (mut sum, mut max, mut min) = (0.0, f64::MIN, f64::MAX);
                for j in 0..2 {
                    let c = table[(e * 2 + j) as usize];
                    if c < 0 {
                        continue;
                    }
                    let c = c as i64;
                    sum += f.get(&[c, k]).unwrap() * w.get(&[e, j]).unwrap();
                    max = f64::max(max, f.get(&[c, k]).unwrap());
                    min = f64::min(min, f.get(&[c, k + 1]).unwrap());
                }
                let want = sum + max + min * kf.get(&[k]).unwrap();
                assert!(close(got, want), "e={e} k={k}: {got} vs {want}");
            }
        }
    }
}

#[test]
fn cpu_concat_where_and_select() {
    for layout in [Layout::LastContiguous, Layout::FirstContiguous] {
        let mut r = rng(9);
        let (nc, nk) = (13i64, 7i64);
        let a: Field<(Cell, K), f64> = random(&mut r, &[0..nc, 0..nk], layout);
        let nan = || Field::<(Cell, K), f64>::filled(&[0..nc, 0..nk], f64::NAN, layout).unwrap();
        let (mut o1, mut o2, mut o3) = (nan(), nan(), nan());
        let prog = concat_select::compile(&options(false, Connectivities::new())).unwrap();
        prog.call(concat_select::Args {
            a: &a,
            nlev: nk as i32,
            out1: &mut o1,
            out2: &mut o2,
            out3: &mut o3,
        })
        .unwrap();
        let inner = |c: i64, k: i64| {
            if k > 0 && k < nk - 1 {
                0.5 * (a.get(&[c, k - 1]).unwrap() + a.get(&[c, k + 1]).unwrap())
            } else {
                a.get(&[c, k]).unwrap()
            }
        };
        for c in 0..nc {
            for k in 0..nk {
                assert!(close(o1.get(&[c, k]).unwrap(), inner(c, k)));
                let g2 = o2.get(&[c, k]).unwrap();
                if k < nk - 1 {
                    assert!(close(g2, inner(c, k + 1)), "c={c} k={k}");
                } else {
                    assert!(g2.is_nan());
                }
                let x = a.get(&[c, k]).unwrap();
                let want = if x > 0.0 { x.sqrt() } else { x * x };
                assert!(close(o3.get(&[c, k]).unwrap(), want));
            }
        }
    }
}

#[test]
fn cpu_scans_forward_and_backward_with_tuple_carry() {
    for (layout, parallel) in [
        (Layout::LastContiguous, true),
        (Layout::FirstContiguous, false),
    ] {
        let mut r = rng(13);
        let (nc, nk) = (9i64, 6i64);
        let a: Field<(Cell, K), f64> = random(&mut r, &[0..nc, 1..1 + nk], layout);
        let nan =
            || Field::<(Cell, K), f64>::filled(&[0..nc, 1..1 + nk], f64::NAN, layout).unwrap();
        let (mut fs, mut fp, mut bs, mut bp) = (nan(), nan(), nan(), nan());
        let prog = scans::compile(&options(parallel, Connectivities::new())).unwrap();
        prog.call(scans::Args {
            a: &a,
            fs: &mut fs,
            fp: &mut fp,
            bs: &mut bs,
            bp: &mut bp,
        })
        .unwrap();
        for c in 0..nc {
            let (mut s, mut p) = (0.0, 1.0);
            for k in 1..1 + nk {
                let (ns, np) = (s + a.get(&[c, k]).unwrap(), 0.5 * p + s);
                (s, p) = (ns, np);
                assert!(close(fs.get(&[c, k]).unwrap(), s));
                assert!(close(fp.get(&[c, k]).unwrap(), p));
            }
            let (mut s, mut p) = (0.0, 1.0);
            for k in (1..1 + nk).rev() {
                let (ns, np) = (s + a.get(&[c, k]).unwrap(), 0.5 * p + s);
                (s, p) = (ns, np);
                assert!(close(bs.get(&[c, k]).unwrap(), s));
                assert!(close(bp.get(&[c, k]).unwrap(), p));
            }
        }
    }
}

#[test]
fn cpu_dynamic_shift_and_per_element_domains() {
    let mut r = rng(17);
    let (nc, nk) = (10i64, 8i64);
    let layout = Layout::LastContiguous;
    let a: Field<(Cell, K), f64> = random(&mut r, &[0..nc, 0..nk], layout);
    let mut off: Field<(Cell, K), i32> = Field::from_fn(&[0..nc, 0..nk], layout, |i| {
        if i[1] + 2 < nk {
            2
        } else {
            -i[1] as i32
        }
    })
    .unwrap();
    let nan = || Field::<(Cell, K), f64>::filled(&[0..nc, 0..nk], f64::NAN, layout).unwrap();
    let (mut out, mut out2) = (nan(), nan());
    let prog = dynamic_and_domains::compile(&options(false, Connectivities::new())).unwrap();
    prog.call(dynamic_and_domains::Args {
        a: &a,
        off: &off,
        out: &mut out,
        out2: &mut out2,
        nk: nk as i32,
    })
    .unwrap();
    for c in 0..nc {
        for k in 0..nk {
            let o = off.get(&[c, k]).unwrap() as i64;
            assert!(close(
                out.get(&[c, k]).unwrap(),
                a.get(&[c, k + o]).unwrap()
            ));
            let x = a.get(&[c, k]).unwrap();
            let want = if k == 0 { 2.0 * x } else { x + 1.0 };
            assert!(close(out2.get(&[c, k]).unwrap(), want), "c={c} k={k}");
        }
    }
    // Dynamic offsets leaving the field: an error naming the argument, the level read and the
    // least point that reads outside (the fast path notes it, the general loop reports it).
    off.set(&[7, 1], -50).unwrap();
    off.set(&[4, 5], 100).unwrap();
    off.set(&[4, 3], 100).unwrap();
    let e = prog
        .call(dynamic_and_domains::Args {
            a: &a,
            off: &off,
            out: &mut out,
            out2: &mut out2,
            nk: nk as i32,
        })
        .unwrap_err();
    assert!(
        e.to_string().contains(
            "argument `a` is read at K index 103 (from point Cell 4, K 3), outside its domain 0..8"
        ),
        "{e}"
    );
}

#[test]
fn cpu_gathers_read_through_neighbour_shifts_are_materialised() {
    // The lowering decides on a temporary over all cells for `cell_sum`, and its mask.
    let lowered = gt4rs::__private::ir::lower::lower(nested_gather::ir()).unwrap();
    assert_eq!(lowered.temporaries.len(), 2);
    assert_eq!(lowered.temporaries[0].mask, Some(1));
    let (ne, nc, nk) = (30i64, 12i64, 5i64);
    let mut r = rng(23);
    let e2c: Vec<i32> = (0..ne * 2)
        .map(|i| {
            if i % 5 == 1 {
                -1
            } else {
                r.random_range(0..nc as i32)
            }
        })
        .collect();
    let c2e: Vec<i32> = (0..nc * 3).map(|_| r.random_range(0..ne as i32)).collect();
    let conns = Connectivities::new()
        .with(&Connectivity::<E2C>::from_vec(e2c.clone(), ne as usize, nc as usize).unwrap())
        .with(&Connectivity::<C2E>::from_vec(c2e.clone(), nc as usize, ne as usize).unwrap());
    for (layout, parallel) in [
        (Layout::LastContiguous, true),
        (Layout::FirstContiguous, false),
    ] {
        let x: Field<(Edge, K), f64> = random(&mut r, &[0..ne, 0..nk], layout);
        let mut out: Field<(Edge, K), f64> =
            Field::filled(&[0..ne, 0..nk], f64::NAN, layout).unwrap();
        let prog = nested_gather::compile(&options(parallel, conns.clone())).unwrap();
        prog.call(nested_gather::Args {
            x: &x,
            out: &mut out,
            vertical_start: 1,
        })
        .unwrap();
        let cell_sum = |c: i64, k: i64| -> f64 {
            (0..3)
                .map(|j| x.get(&[c2e[(c * 3 + j) as usize] as i64, k]).unwrap())
                .sum()
        };
        for e in 0..ne {
            for k in 0..nk {
                let got = out.get(&[e, k]).unwrap();
                if !(1..4).contains(&k) {
                    assert!(got.is_nan());
                    continue;
                }
                let want: f64 = (0..2)
                    .filter_map(|j| {
                        let c = e2c[(e * 2 + j) as usize];
                        (c >= 0).then(|| cell_sum(c as i64, k))
                    })
                    .sum();
                assert!(close(got, want), "e={e} k={k}: {got} vs {want}");
            }
        }
    }
}

#[test]
fn cpu_outputs_read_pointwise_by_their_own_call() {
    let mut r = rng(29);
    let (nc, nk) = (17i64, 6i64);
    let layout = Layout::LastContiguous;
    let a: Field<(Cell, K), f64> = random(&mut r, &[0..nc, 0..nk], layout);
    let mut b: Field<(Cell, K), f64> = random(&mut r, &[0..nc, 0..nk], layout);
    let before = b.clone();
    let prog = in_place::compile(&options(true, Connectivities::new())).unwrap();
    prog.call(in_place::Args { a: &a, b: &mut b }).unwrap();
    for c in 0..nc {
        for k in 0..nk {
            let want = before.get(&[c, k]).unwrap() * 2.0 + a.get(&[c, k]).unwrap();
            assert!(close(b.get(&[c, k]).unwrap(), want));
        }
    }
}

#[test]
fn cpu_reports_tables_and_sparse_fields_that_do_not_fit() {
    let (ne, nv, nk) = (20, 9, 4);
    let c = nabla4_case(31, ne, nv, nk, Layout::LastContiguous);
    // A table with fewer rows than the domain's edges.
    let short =
        Connectivity::<E2C2V>::from_vec(c.table[..(10 * 4) as usize].to_vec(), 10, nv as usize)
            .unwrap();
    let prog =
        calculate_nabla4::compile(&options(false, Connectivities::new().with(&short))).unwrap();
    let mut out: Field<(Edge, K), f64> =
        Field::filled(&[0..ne, 0..nk], f64::NAN, Layout::LastContiguous).unwrap();
    let e = prog
        .call(calculate_nabla4::Args {
            u_vert: &c.u,
            v_vert: &c.v,
            primal_normal_vert_v1: &c.pn1,
            primal_normal_vert_v2: &c.pn2,
            z_nabla2_e: &c.z,
            inv_vert_vert_length: &c.ivv,
            inv_primal_edge_length: &c.ipe,
            z_nabla4_e2: &mut out,
            horizontal_start: 0,
            horizontal_end: ne as i32,
            vertical_start: 0,
            vertical_end: nk as i32,
        })
        .unwrap_err();
    assert!(
        e.to_string().contains("rows of connectivity `E2C2V`"),
        "{e}"
    );
    // A sparse field whose local dimension does not hold the offset's 4 slots.
    let full = Connectivity::<E2C2V>::from_vec(c.table.clone(), ne as usize, nv as usize).unwrap();
    let prog =
        calculate_nabla4::compile(&options(false, Connectivities::new().with(&full))).unwrap();
    let mut r = rng(37);
    let narrow: Field<(Edge, E2C2V), f64> = random(&mut r, &[0..ne, 0..3], Layout::LastContiguous);
    let e = prog
        .call(calculate_nabla4::Args {
            u_vert: &c.u,
            v_vert: &c.v,
            primal_normal_vert_v1: &narrow,
            primal_normal_vert_v2: &c.pn2,
            z_nabla2_e: &c.z,
            inv_vert_vert_length: &c.ivv,
            inv_primal_edge_length: &c.ipe,
            z_nabla4_e2: &mut out,
            horizontal_start: 0,
            horizontal_end: ne as i32,
            vertical_start: 0,
            vertical_end: nk as i32,
        })
        .unwrap_err();
    assert!(
        matches!(&e, gt4rs::Error::Argument { arg, .. } if arg == "primal_normal_vert_v1"),
        "{e}"
    );
}

#[test]
fn cpu_scans_in_conflicting_directions_solve_a_tridiagonal_system() {
    let lowered = gt4rs::__private::ir::lower::lower(solve_triag::ir()).unwrap();
    assert_eq!(
        lowered.stages.len(),
        2,
        "the forward scan runs in a stage of its own"
    );
    assert_eq!(lowered.temporaries.len(), 2);
    for (layout, parallel) in [
        (Layout::LastContiguous, true),
        (Layout::FirstContiguous, false),
    ] {
        let mut r = rng(41);
        let (nc, nk) = (11i64, 9i64);
        let dom = [0..nc, 0..nk];
        let a: Field<(Cell, K), f64> = random(&mut r, &dom, layout);
        let b: Field<(Cell, K), f64> =
            Field::from_fn(&dom, layout, |_| 4.0 + r.random_range(0.0..1.0)).unwrap();
        let c: Field<(Cell, K), f64> = random(&mut r, &dom, layout);
        let d: Field<(Cell, K), f64> = random(&mut r, &dom, layout);
        let mut x: Field<(Cell, K), f64> = Field::filled(&dom, f64::NAN, layout).unwrap();
        let prog = solve_triag::compile(&options(parallel, Connectivities::new())).unwrap();
        prog.call(solve_triag::Args {
            a: &a,
            b: &b,
            c: &c,
            d: &d,
            x: &mut x,
        })
        .unwrap();
        for cell in 0..nc {
            let at = |f: &Field<(Cell, K), f64>, k: i64| f.get(&[cell, k]).unwrap();
            // The system itself: a x[k-1] + b x[k] + c x[k+1] = d (a[0] and c[nk-1] unused).
            for k in 0..nk {
                let below = if k > 0 {
                    at(&a, k) * at(&x, k - 1)
                } else {
                    0.0
                };
                let above = if k + 1 < nk {
                    at(&c, k) * at(&x, k + 1)
                } else {
                    0.0
                };
                let lhs = below + at(&b, k) * at(&x, k) + above;
                assert!(
                    (lhs - at(&d, k)).abs() < 1e-10,
                    "cell {cell} k {k}: {lhs} vs {}",
                    at(&d, k)
                );
            }
        }
    }
}

#[test]
fn cpu_scans_in_concat_where_branches_start_at_their_region() {
    for (layout, parallel) in [
        (Layout::LastContiguous, true),
        (Layout::FirstContiguous, false),
    ] {
        let mut r = rng(43);
        let (nc, nk) = (7i64, 8i64);
        let dom = [0..nc, 0..nk];
        let a: Field<(Cell, K), f64> = random(&mut r, &dom, layout);
        let b: Field<(Cell, K), f64> =
            Field::from_fn(&dom, layout, |_| 4.0 + r.random_range(0.0..1.0)).unwrap();
        let c: Field<(Cell, K), f64> = random(&mut r, &dom, layout);
        let d: Field<(Cell, K), f64> = random(&mut r, &dom, layout);
        let mut x: Field<(Cell, K), f64> = Field::filled(&dom, f64::NAN, layout).unwrap();
        let prog = fused_triag::compile(&options(parallel, Connectivities::new())).unwrap();
        prog.call(fused_triag::Args {
            a: &a,
            b: &b,
            c: &c,
            d: &d,
            x: &mut x,
            nk: nk as i32,
        })
        .unwrap();
        for cell in 0..nc {
            let at = |f: &Field<(Cell, K), f64>, k: i64| f.get(&[cell, k]).unwrap();
            let n = nk as usize;
            let (mut cp, mut dp) = (vec![0.0; n], vec![0.0; n]);
            let (mut s0, mut s1) = (0.0, 0.0);
            for k in 1..nk {
                let g = at(&b, k) - at(&a, k) * s0;
                (s0, s1) = (at(&c, k) / g, (at(&d, k) - at(&a, k) * s1) / g);
                (cp[k as usize], dp[k as usize]) = (s0, s1);
            }
            let mut want = vec![0.0; n];
            want[n - 1] = dp[n - 1];
            let mut carry = 0.0;
            for k in (0..n - 1).rev() {
                carry = dp[k] - cp[k] * carry;
                want[k] = carry;
            }
            for k in 0..nk {
                let got = at(&x, k);
                assert!(
                    close(got, want[k as usize]),
                    "cell {cell} k {k}: {got} vs {}",
                    want[k as usize]
                );
            }
        }
    }
}

/// `gt4rs-tests` builds one copy of the kernels (its build script sets `GT4RS_KERNEL_COPIES`),
/// compiled for the build's target: asked for AVX-512, a compiled program's options name that
/// copy (and no more than the CPU has), the copy it runs.
#[test]
fn a_one_copy_build_names_its_copy_in_the_options() {
    let prog = laplacian::compile(&options(true, Connectivities::new())).expect("compiles");
    assert_eq!(
        prog.cpu_options().vectors,
        gt4rs_tests::widest_vectors_of_this_build()
    );
}

//! Bad input gets a correct answer or a clear error, never a silent wrong one, on every
//! backend (embedded, CPU, emulated CUDA): reads of skipped neighbours and of points outside a
//! field in branches, neighbours a temporary reaches outside the domain, sparse fields that do
//! not hold a reduction's neighbours, index arithmetic that overflows, domains whose start is
//! past their end. docs/reliability.md lists each case with its test.

use gt4rs_tests::*;

use gt4rs::prelude::*;

/// The point of every backend's error about an undefined value: the embedded backend names it
/// as `Vertex 3, K <level>` as the kernels do (which level depends on the
/// order the points run in).
fn undefined_at(vertex: i64) -> String {
    format!("is undefined at point Vertex {vertex}, K ")
}

#[field_operator]
fn second_edge_if(edge_f: Field<(Edge, K), f64>, take: bool) -> Field<(Vertex, K), f64> {
    if take {
        edge_f.at(V2E5[1])
    } else {
        edge_f.at(V2E5[0])
    }
}
#[program]
fn second_edge_if_prog(
    edge_f: &Field<(Edge, K), f64>,
    out: &mut Field<(Vertex, K), f64>,
    take: bool,
    end: i32,
) {
    second_edge_if(edge_f, take).write_to(out, domain![Vertex: 0..end]);
}

/// `if take { f(V2E5[1]) }` on a vertex whose slot 1 is -1: an error naming the point where
/// the branch is taken (the kernels used to read the field's first edge there), the value
/// where it is not, and no error where no such vertex is in the domain.
#[test]
fn a_skipped_neighbour_read_in_a_taken_branch_is_an_error() {
    let mesh = SkipValueMesh::new();
    assert!(neighbours(&mesh.v2e, 3)[1] < 0);
    assert!((0..3).all(|v| neighbours(&mesh.v2e, v)[1] >= 0));
    let mut rng = rng(1201);
    let nv = mesh.n_vertices as i64;
    let nk = NK as i64;
    let edge_f: Field<(Edge, K), f64> = random_field(&mut rng, &[0..mesh.n_edges as i64, 0..nk]);
    for_each_backend(|backend| {
        let prog = second_edge_if_prog::compile(&backend.options_with(mesh.connectivities()))?;
        let mut out = poisoned(&[0..nv, 0..nk]);
        let taken = prog.call(second_edge_if_prog::Args {
            edge_f: &edge_f,
            out: &mut out,
            take: true,
            end: nv as i32,
        });
        expect_error(taken, &[&undefined_at(3), "output `out`"]);
        let mut out = poisoned(&[0..nv, 0..nk]);
        prog.call(second_edge_if_prog::Args {
            edge_f: &edge_f,
            out: &mut out,
            take: false,
            end: nv as i32,
        })?;
        expect_field("slot 0", &out, &[0..nv, 0..nk], |p| {
            at(&edge_f, &[neighbours(&mesh.v2e, p[0])[0] as i64, p[1]])
        });
        let mut out = poisoned(&[0..nv, 0..nk]);
        prog.call(second_edge_if_prog::Args {
            edge_f: &edge_f,
            out: &mut out,
            take: true,
            end: 3,
        })?;
        expect_field("slot 1", &out, &[0..3, 0..nk], |p| {
            at(&edge_f, &[neighbours(&mesh.v2e, p[0])[1] as i64, p[1]])
        });
        Ok(())
    });
}

#[field_operator]
fn second_edge_where(edge_f: Field<(Edge, K), f64>, split: i32) -> Field<(Vertex, K), f64> {
    concat_where(Vertex < split, edge_f.at(V2E5[1]), edge_f.at(V2E5[0]) * 2.0)
}
#[program]
fn second_edge_where_prog(
    edge_f: &Field<(Edge, K), f64>,
    out: &mut Field<(Vertex, K), f64>,
    split: i32,
) {
    second_edge_where(edge_f, split).write_to(out);
}

/// The same through `concat_where`: vertex 3 in the branch that reads slot 1 is an error, in
/// the other branch it is fine.
#[test]
fn a_skipped_neighbour_read_in_a_concat_where_branch_is_an_error_where_it_applies() {
    let mesh = SkipValueMesh::new();
    let mut rng = rng(1202);
    let nv = mesh.n_vertices as i64;
    let nk = NK as i64;
    let edge_f: Field<(Edge, K), f64> = random_field(&mut rng, &[0..mesh.n_edges as i64, 0..nk]);
    for_each_backend(|backend| {
        let prog = second_edge_where_prog::compile(&backend.options_with(mesh.connectivities()))?;
        let mut out = poisoned(&[0..nv, 0..nk]);
        prog.call(second_edge_where_prog::Args {
            edge_f: &edge_f,
            out: &mut out,
            split: 3,
        })?;
        expect_field("out", &out, &[0..nv, 0..nk], |p| {
            let e = neighbours(&mesh.v2e, p[0]);
            if p[0] < 3 {
                at(&edge_f, &[e[1] as i64, p[1]])
            } else {
                2.0 * at(&edge_f, &[e[0] as i64, p[1]])
            }
        });
        let mut out = poisoned(&[0..nv, 0..nk]);
        let wrong = prog.call(second_edge_where_prog::Args {
            edge_f: &edge_f,
            out: &mut out,
            split: 4,
        });
        expect_error(wrong, &[&undefined_at(3)]);
        Ok(())
    });
}

/// The true branch reads two levels up, so it has values on levels 0..5 of a field over 0..7;
/// the false branch starts at level 6: level 5 lies in neither part.
#[field_operator]
fn two_up_below_six(a: Field<(Cell, K), f64>, b: Field<(Cell, K), f64>) -> Field<(Cell, K), f64> {
    concat_where(K < 6, a.at(K + 2), b)
}
#[program]
fn two_up_below_six_prog(
    a: &Field<(Cell, K), f64>,
    b: &Field<(Cell, K), f64>,
    out: &mut Field<(Cell, K), f64>,
    k_end: i32,
) {
    two_up_below_six(a, b).write_to(out, domain![K: 0..k_end]);
}

/// A `concat_where` whose branches leave a hole (level 5 above): written around the hole, every
/// backend computes the branches' values; written over it, every backend names the point. The
/// embedded backend used to refuse the union of the branches' parts when it was not a box even
/// where the call writes none of the hole (the differential fuzzer's seed 20260314 and, before
/// that, its open disagreement of seed 20260194), while the fused backends computed the call.
#[test]
fn a_concat_where_with_a_hole_between_its_branches_is_undefined_only_in_the_hole() {
    let nk = 7i64;
    let mut rng = rng(1203);
    let a: Field<(Cell, K), f64> = random_field(&mut rng, &[0..4, 0..nk]);
    let b: Field<(Cell, K), f64> = random_field(&mut rng, &[0..4, 0..nk]);
    for_each_backend(|backend| {
        let prog = two_up_below_six_prog::compile(&backend.options())?;
        let mut out = poisoned(&[0..4, 0..nk]);
        prog.call(two_up_below_six_prog::Args {
            a: &a,
            b: &b,
            out: &mut out,
            k_end: 5,
        })?;
        expect_field("around the hole", &out, &[0..4, 0..5], |p| {
            at(&a, &[p[0], p[1] + 2])
        });
        let mut out = poisoned(&[0..4, 0..nk]);
        let over = prog.call(two_up_below_six_prog::Args {
            a: &a,
            b: &b,
            out: &mut out,
            k_end: 7,
        });
        expect_error(over, &["is undefined at point Cell ", ", K 5"]);
        Ok(())
    });
}

#[field_operator]
fn shifted_if(a: Field<I, f64>, shift: bool) -> Field<I, f64> {
    if shift {
        a.at(I + 1)
    } else {
        a
    }
}
#[program]
fn shifted_if_prog(a: &Field<I, f64>, out: &mut Field<I, f64>, shift: bool) {
    shifted_if(a, shift).write_to(out);
}

/// A taken branch that reads past the end of its field: an error on every backend (the kernels
/// used to clamp the position and read the last element).
#[test]
fn a_read_outside_its_field_in_a_taken_branch_is_an_error() {
    let mut rng = rng(1203);
    let n = NI as i64;
    let a: Field<I, f64> = random_field(&mut rng, &[0..n]);
    for_each_backend(|backend| {
        let prog = shifted_if_prog::compile(&backend.options())?;
        let mut out = poisoned(&[0..n]);
        let result = prog.call(shifted_if_prog::Args {
            a: &a,
            out: &mut out,
            shift: true,
        });
        let needle = if backend.backend == Backend::Embedded {
            format!("I {}..{} is missing", n - 1, n)
        } else {
            format!("is undefined at point I {}", n - 1)
        };
        expect_error(result, &[&needle]);
        Ok(())
    });
}

#[field_operator]
fn weighted_sum(
    edge_f: Field<(Edge, K), f64>,
    w: Field<(Vertex, V2E), f64>,
) -> Field<(Vertex, K), f64> {
    neighbor_sum(edge_f.at(V2E) * w, V2E)
}
#[program]
fn weighted_sum_prog(
    edge_f: &Field<(Edge, K), f64>,
    w: &Field<(Vertex, V2E), f64>,
    out: &mut Field<(Vertex, K), f64>,
) {
    weighted_sum(edge_f, w).write_to(out);
}

/// A sparse field whose local dimension does not cover exactly the offset's 4 neighbours
/// (narrower, or with another origin) is the same argument error on every backend; the
/// embedded backend used to drop the missing terms (or, with origin 5, every term).
#[test]
fn a_sparse_field_without_every_neighbour_is_an_argument_error() {
    let mesh = SimpleMesh::new();
    let mut rng = rng(1204);
    let (nv, nk) = (mesh.n_vertices as i64, NK as i64);
    let edge_f: Field<(Edge, K), f64> = random_field(&mut rng, &[0..mesh.n_edges as i64, 0..nk]);
    let full: Field<(Vertex, V2E), f64> = random_field(&mut rng, &[0..nv, 0..4]);
    let narrow: Field<(Vertex, V2E), f64> = random_field(&mut rng, &[0..nv, 0..2]);
    let shifted: Field<(Vertex, V2E), f64> = random_field(&mut rng, &[0..nv, 5..7]);
    for_each_backend(|backend| {
        let prog = weighted_sum_prog::compile(&backend.options_with(mesh.connectivities()))?;
        let mut out = poisoned(&[0..nv, 0..nk]);
        prog.call(weighted_sum_prog::Args {
            edge_f: &edge_f,
            w: &full,
            out: &mut out,
        })?;
        expect_field("out", &out, &[0..nv, 0..nk], |p| {
            let e = neighbours(&mesh.v2e, p[0]);
            (0..4)
                .map(|j| at(&edge_f, &[e[j] as i64, p[1]]) * at(&full, &[p[0], j as i64]))
                .sum()
        });
        for (w, covers) in [(&narrow, "0..2"), (&shifted, "5..7")] {
            let mut out = poisoned(&[0..nv, 0..nk]);
            let result = prog.call(weighted_sum_prog::Args {
                edge_f: &edge_f,
                w,
                out: &mut out,
            });
            let message = format!("its local dimension V2E covers {covers}, but must cover 0..4");
            expect_error(result, &["argument `w`", &message]);
        }
        Ok(())
    });
}

#[field_operator]
fn far_above(a: Field<(I, K), f64>) -> Field<(I, K), f64> {
    a.at(K + 9223372036854775807)
}
#[program]
fn far_above_prog(a: &Field<(I, K), f64>, out: &mut Field<(I, K), f64>) {
    far_above(a).write_to(out);
}

#[field_operator]
fn below(a: Field<(I, K), f64>) -> Field<(I, K), f64> {
    a.at(K - 1)
}
#[program]
fn below_prog(a: &Field<(I, K), f64>, out: &mut Field<(I, K), f64>) {
    below(a).write_to(out);
}

/// The message each backend gives for a read whose range leaves its field: the kernels check
/// the shifted range before their loop, the embedded backend finds the value undefined where
/// it is written.
fn read_outside(backend: TestBackend, kernels: &str) -> String {
    if backend.backend == Backend::Embedded {
        "which does not cover the domain".into()
    } else {
        kernels.into()
    }
}

/// `K + i64::MAX` and a field starting at `i64::MIN` read through `K - 1`: index sums that
/// leave i64. Each is a clear error on every backend, in release and in debug builds (the
/// test profile checks overflow): the CPU kernels used to wrap the sum around, pass their
/// bounds check and read outside the field.
#[test]
fn index_sums_that_leave_i64_are_errors() {
    let mut rng = rng(1205);
    let (ni, nk) = (NI as i64, NK as i64);
    let a: Field<(I, K), f64> = random_field(&mut rng, &[0..ni, 0..nk]);
    let low = i64::MIN..i64::MIN + nk;
    let a_low: Field<(I, K), f64> = random_field(&mut rng, &[0..ni, low.clone()]);
    for_each_backend(|backend| {
        let mut out = poisoned(&[0..ni, 0..nk]);
        let far = far_above_prog::compile(&backend.options())?.call(far_above_prog::Args {
            a: &a,
            out: &mut out,
        });
        let kernels = "argument `a` is read at K 9223372036854775807..9223372036854775816 (shift 9223372036854775807), outside its domain 0..9";
        expect_error(far, &[&read_outside(backend, kernels)]);
        let below = below_prog::compile(&backend.options())?;
        let mut out = poisoned(&[0..ni, low.clone()]);
        let under = below.call(below_prog::Args {
            a: &a_low,
            out: &mut out,
        });
        let kernels =
            "argument `a` is read at K -9223372036854775809..-9223372036854775800 (shift -1)";
        expect_error(under, &[&read_outside(backend, kernels)]);
        // From the second level on, the same read is fine.
        let mut out = poisoned(&[0..ni, low.start + 1..low.end]);
        below.call(below_prog::Args {
            a: &a_low,
            out: &mut out,
        })?;
        expect_field("below", &out, &[0..ni, low.start + 1..low.end], |p| {
            at(&a_low, &[p[0], p[1] - 1])
        });
        Ok(())
    });
}

#[field_operator]
fn at_dynamic_level(a: Field<(I, K), f64>, off: Field<(I, K), i32>) -> Field<(I, K), f64> {
    a.at(K + off)
}
#[program]
fn at_dynamic_level_prog(
    a: &Field<(I, K), f64>,
    off: &Field<(I, K), i32>,
    out: &mut Field<(I, K), f64>,
) {
    at_dynamic_level(a, off).write_to(out);
}

#[field_operator]
fn at_dynamic_level_if(
    a: Field<(I, K), f64>,
    off: Field<(I, K), i32>,
    take: bool,
) -> Field<(I, K), f64> {
    if take {
        a.at(K + off)
    } else {
        a
    }
}
#[program]
fn at_dynamic_level_if_prog(
    a: &Field<(I, K), f64>,
    off: &Field<(I, K), i32>,
    out: &mut Field<(I, K), f64>,
    take: bool,
) {
    at_dynamic_level_if(a, off, take).write_to(out);
}

/// Reads at a level that depends on the level (`K + off`, GT4Py's `as_offset`) leaving the
/// field, at two points: an error naming the lesser point on every backend, in a branch and
/// not (the CPU kernels read such a column as a slice of all its levels, the level clamped
/// into it; valgrind runs this test in CI). The kernels name the argument and the level read,
/// the embedded backend the undefined value written.
#[test]
fn reads_at_a_dynamic_level_outside_the_field_are_errors() {
    let mut rng = rng(1207);
    let (ni, nk) = (NI as i64, NK as i64);
    let a: Field<(I, K), f64> = random_field(&mut rng, &[0..ni, 0..nk]);
    let mut off: Field<(I, K), i32> =
        Field::filled(&[0..ni, 0..nk], 0, Layout::LastContiguous).expect("a field");
    off.set(&[3, 1], -50).expect("inside");
    off.set(&[2, 5], 100).expect("inside");
    for_each_backend(|backend| {
        let unguarded = at_dynamic_level_prog::compile(&backend.options())?;
        let mut out = poisoned(&[0..ni, 0..nk]);
        let result = unguarded.call(at_dynamic_level_prog::Args {
            a: &a,
            off: &off,
            out: &mut out,
        });
        let kernels =
            "argument `a` is read at K index 105 (from point I 2, K 5), outside its domain 0..9";
        let embedded = "is undefined at point I 2, K 5";
        let wording = if backend.backend == Backend::Embedded {
            embedded
        } else {
            kernels
        };
        expect_error(result, &[wording]);
        let guarded = at_dynamic_level_if_prog::compile(&backend.options())?;
        let mut out = poisoned(&[0..ni, 0..nk]);
        let taken = guarded.call(at_dynamic_level_if_prog::Args {
            a: &a,
            off: &off,
            out: &mut out,
            take: true,
        });
        expect_error(taken, &[embedded, "output `out`"]);
        let mut out = poisoned(&[0..ni, 0..nk]);
        guarded.call(at_dynamic_level_if_prog::Args {
            a: &a,
            off: &off,
            out: &mut out,
            take: false,
        })?;
        expect_field("not taken", &out, &[0..ni, 0..nk], |p| at(&a, p));
        Ok(())
    });
}

/// A field whose end would pass `i64::MAX`, or a range with more points than an index
/// counts, cannot be built: every backend may then compute a field's end without overflow.
#[test]
fn fields_whose_end_leaves_i64_cannot_be_built() {
    let data = ndarray::ArrayD::<f64>::zeros(ndarray::IxDyn(&[2, 3]));
    let built = Field::<(I, K), f64>::from_array(data.clone(), &[0, i64::MAX - 1]);
    assert!(matches!(built, Err(Error::Shape(_))), "{built:?}");
    assert!(Field::<(I, K), f64>::from_array(data, &[0, i64::MAX - 3]).is_ok());
    let huge = Field::<(I,), f64>::filled(&[i64::MIN..i64::MAX], 0.0, Layout::default());
    assert!(matches!(huge, Err(Error::Shape(_))), "{huge:?}");
}

#[field_operator]
fn copy(a: Field<(I, K), f64>) -> Field<(I, K), f64> {
    a
}
#[program]
fn copy_prog(a: &Field<(I, K), f64>, out: &mut Field<(I, K), f64>, start: i32, end: i32) {
    copy(a).write_to(out, domain![K: start..end]);
}

/// A domain whose start is past its end is the same error on every backend (it used to run
/// and write nothing); an empty one (start = end) writes nothing.
#[test]
fn a_domain_whose_start_is_past_its_end_is_an_error() {
    let mut rng = rng(1206);
    let (ni, nk) = (NI as i64, NK as i64);
    let a: Field<(I, K), f64> = random_field(&mut rng, &[0..ni, 0..nk]);
    for_each_backend(|backend| {
        let prog = copy_prog::compile(&backend.options())?;
        let mut out = poisoned(&[0..ni, 0..nk]);
        let reversed = prog.call(copy_prog::Args {
            a: &a,
            out: &mut out,
            start: 5,
            end: 3,
        });
        expect_error(
            reversed,
            &["the domain along K is 5..3: its start is past its end"],
        );
        expect_field("untouched", &out, &[0..0, 0..0], |_| 0.0);
        prog.call(copy_prog::Args {
            a: &a,
            out: &mut out,
            start: 4,
            end: 4,
        })?;
        expect_field("empty", &out, &[0..0, 0..0], |_| 0.0);
        prog.call(copy_prog::Args {
            a: &a,
            out: &mut out,
            start: 2,
            end: 6,
        })?;
        expect_field("copied", &out, &[0..ni, 2..6], |p| at(&a, p));
        Ok(())
    });
}

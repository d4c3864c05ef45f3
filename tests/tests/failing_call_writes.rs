//! What a call that fails has written, on every backend (issue 18). A failure that a check
//! finds before the first write (an output too small for its domain) leaves every output as
//! it was everywhere. A failure met while computing (a read through a -1 table entry in a
//! taken branch) leaves every output as it was on the embedded backend and on the CUDA
//! kernels' host calls; the CPU kernels write in place, and their error names what the call
//! had written when it stopped. docs/reliability.md states the rule.

use gt4rs_tests::*;

use gt4rs::prelude::*;

#[field_operator]
fn doubled(edge_f: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    edge_f * 2.0
}

#[field_operator]
fn second_edge_if(edge_f: Field<(Edge, K), f64>, take: bool) -> Field<(Vertex, K), f64> {
    if take {
        edge_f.at(V2E5[1])
    } else {
        edge_f.at(V2E5[0])
    }
}

/// Two calls over different dimensions (two stages on the kernels): the first cannot fail,
/// the second fails where `take` holds on a vertex without a second edge.
#[program]
fn doubled_then_second_edge(
    edge_f: &Field<(Edge, K), f64>,
    first: &mut Field<(Edge, K), f64>,
    second: &mut Field<(Vertex, K), f64>,
    take: bool,
    end: i32,
) {
    doubled(edge_f).write_to(first);
    second_edge_if(edge_f, take).write_to(second, domain![Vertex: 0..end]);
}

fn same_bits<D: gt4rs::Dims>(a: &Field<D, f64>, b: &Field<D, f64>) -> bool {
    a.as_array()
        .iter()
        .zip(b.as_array().iter())
        .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// `second` too small for the second call's domain: every backend refuses the call before
/// writing anything, so the first call's output keeps its poison.
#[test]
fn a_call_refused_by_a_check_writes_nothing() {
    let mesh = SkipValueMesh::new();
    let mut rng = rng(1801);
    let (ne, nv, nk) = (mesh.n_edges as i64, mesh.n_vertices as i64, NK as i64);
    let edge_f: Field<(Edge, K), f64> = random_field(&mut rng, &[0..ne, 0..nk]);
    for_each_backend(|backend| {
        let prog = doubled_then_second_edge::compile(&backend.options_with(mesh.connectivities()))?;
        let mut first = poisoned(&[0..ne, 0..nk]);
        let mut second = poisoned(&[0..nv - 2, 0..nk]);
        let (first_before, second_before) = (first.clone(), second.clone());
        let refused = prog.call(doubled_then_second_edge::Args {
            edge_f: &edge_f,
            first: &mut first,
            second: &mut second,
            take: false,
            end: nv as i32,
        });
        expect_error(refused, &["second"]);
        assert!(same_bits(&first, &first_before), "`first` was written");
        assert!(same_bits(&second, &second_before), "`second` was written");
        Ok(())
    });
}

/// Vertex 3 has no second edge, and the second call reads it there: every backend refuses
/// the call. The embedded backend and the emulated CUDA kernels leave both outputs as they
/// were; the CPU kernels have written `first` (whole, and right) and say so, and name
/// `second` as possibly written in part.
#[test]
fn a_call_failing_while_computing_writes_nothing_or_says_what_it_wrote() {
    let mesh = SkipValueMesh::new();
    assert!(neighbours(&mesh.v2e, 3)[1] < 0);
    let mut rng = rng(1802);
    let (ne, nv, nk) = (mesh.n_edges as i64, mesh.n_vertices as i64, NK as i64);
    let edge_f: Field<(Edge, K), f64> = random_field(&mut rng, &[0..ne, 0..nk]);
    for_each_backend(|backend| {
        let prog = doubled_then_second_edge::compile(&backend.options_with(mesh.connectivities()))?;
        let mut first = poisoned(&[0..ne, 0..nk]);
        let mut second = poisoned(&[0..nv, 0..nk]);
        let (first_before, second_before) = (first.clone(), second.clone());
        let failed = prog.call(doubled_then_second_edge::Args {
            edge_f: &edge_f,
            first: &mut first,
            second: &mut second,
            take: true,
            end: nv as i32,
        });
        if backend.backend == Backend::Cpu {
            expect_error(
                failed,
                &[
                    "is undefined at point Vertex 3",
                    "it had written `first` over the earlier stages' domains",
                    "any part of `second` over the failing stage's domain",
                    "every other output is as it was",
                ],
            );
            expect_field("first", &first, &[0..ne, 0..nk], |p| at(&edge_f, p) * 2.0);
        } else {
            let message = failed.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(
                message.contains("is undefined at point Vertex 3"),
                "unexpected outcome: {message:?}"
            );
            assert!(!message.contains("had written"), "{message}");
            assert!(same_bits(&first, &first_before), "`first` was written");
            assert!(same_bits(&second, &second_before), "`second` was written");
        }
        Ok(())
    });
}

#[field_operator]
fn halved(vertex_f: Field<(Vertex, K), f64>) -> Field<(Vertex, K), f64> {
    vertex_f * 0.5
}

/// Two calls over vertices, whose stages the CPU kernels run tile by tile together
/// (`gt4rs_ir::tile_groups`): the first cannot fail, the second fails as above.
#[program]
fn halved_then_second_edge(
    vertex_f: &Field<(Vertex, K), f64>,
    edge_f: &Field<(Edge, K), f64>,
    first: &mut Field<(Vertex, K), f64>,
    second: &mut Field<(Vertex, K), f64>,
    take: bool,
) {
    halved(vertex_f).write_to(first);
    second_edge_if(edge_f, take).write_to(second);
}

/// A failure in a stage run tile by tile with another: the CPU kernels name the outputs of
/// both as possibly written in part (tiles of the first may have run, or not, when the second
/// failed); the other backends leave both as they were.
#[test]
fn a_call_failing_in_stages_run_together_names_each_of_their_outputs() {
    let mesh = SkipValueMesh::new();
    let mut rng = rng(1803);
    let (ne, nv, nk) = (mesh.n_edges as i64, mesh.n_vertices as i64, NK as i64);
    let edge_f: Field<(Edge, K), f64> = random_field(&mut rng, &[0..ne, 0..nk]);
    let vertex_f: Field<(Vertex, K), f64> = random_field(&mut rng, &[0..nv, 0..nk]);
    for_each_backend(|backend| {
        let prog = halved_then_second_edge::compile(&backend.options_with(mesh.connectivities()))?;
        let mut first = poisoned(&[0..nv, 0..nk]);
        let mut second = poisoned(&[0..nv, 0..nk]);
        let (first_before, second_before) = (first.clone(), second.clone());
        let failed = prog.call(halved_then_second_edge::Args {
            vertex_f: &vertex_f,
            edge_f: &edge_f,
            first: &mut first,
            second: &mut second,
            take: true,
        });
        if backend.backend == Backend::Cpu {
            expect_error(
                failed,
                &[
                    "is undefined at point Vertex 3",
                    "it had written any part of `first`, `second` over the domains of the \
                     failing stage and of the stages run tile by tile with it",
                    "every other output is as it was",
                ],
            );
        } else {
            let message = failed.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(
                message.contains("is undefined at point Vertex 3"),
                "unexpected outcome: {message:?}"
            );
            assert!(same_bits(&first, &first_before), "`first` was written");
            assert!(same_bits(&second, &second_before), "`second` was written");
        }
        Ok(())
    });
}

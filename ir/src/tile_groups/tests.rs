//! Which consecutive stages may run tile by tile together.

use super::*;
use crate::build::{
    self, add, bundle, cartesian_shift, float, mul, neighbor_shift, offset, param, program_param,
    whole_field, write,
};
use crate::fieldview::{ProgramCall, Role};
use crate::lower::lower;
use crate::types::{ScalarType, Type};

const F: ScalarType = ScalarType::F64;

fn ck() -> Type {
    Type::field(&["Cell", "K"], F)
}

fn ek() -> Type {
    Type::field(&["Edge", "K"], F)
}

/// The groups of a program over fields `a`, `b`, `c` (cells × levels), `e` (edges × levels)
/// and `ij` (`I` × `J` × levels), lowered from `calls`.
fn groups_of(calls: Vec<ProgramCall>) -> Vec<Range<usize>> {
    let ijk = Type::field(&["I", "J", "K"], F);
    let program = build::program(
        "prog",
        vec![
            program_param("a", ck(), Role::In),
            program_param("b", ck(), Role::InOut),
            program_param("c", ck(), Role::InOut),
            program_param("e", ek(), Role::InOut),
            program_param("ij", ijk, Role::InOut),
        ],
        calls,
        bundle(
            vec![],
            &["Cell", "Edge", "I", "J"],
            &["K"],
            &[
                offset("C2C", "Cell", "Cell", 3),
                offset("E2C", "Edge", "Cell", 2),
            ],
        ),
    );
    let lowered = lower(&program).expect("lowers");
    let groups = tile_groups(&lowered);
    assert_eq!(
        groups.last().map_or(0, |g| g.end),
        lowered.stages.len(),
        "the groups cover every stage"
    );
    groups
}

fn a() -> crate::fieldview::Expr {
    param(0, ck())
}
fn b() -> crate::fieldview::Expr {
    param(1, ck())
}

#[test]
fn a_stage_reading_what_the_one_before_wrote_at_other_levels_of_its_column_joins_it() {
    let groups = groups_of(vec![
        write(mul(a(), float(2.0)), whole_field(1)),
        write(add(cartesian_shift(b(), "K", -1), b()), whole_field(2)),
    ]);
    assert_eq!(groups, vec![0..2]);
}

#[test]
fn a_stage_reading_what_the_one_before_wrote_at_a_neighbour_does_not() {
    let groups = groups_of(vec![
        write(mul(a(), float(2.0)), whole_field(1)),
        write(neighbor_shift(b(), "C2C", Some(0), ck()), whole_field(2)),
    ]);
    assert_eq!(groups, vec![0..1, 1..2]);
}

#[test]
fn a_stage_overwriting_what_the_one_before_read_at_a_neighbour_does_not() {
    let groups = groups_of(vec![
        write(neighbor_shift(b(), "C2C", Some(1), ck()), whole_field(2)),
        write(mul(a(), float(3.0)), whole_field(1)),
    ]);
    assert_eq!(groups, vec![0..1, 1..2]);
}

#[test]
fn stages_sharing_only_inputs_read_at_neighbours_join() {
    // Both read `a` through a neighbour; neither writes it.
    let groups = groups_of(vec![
        write(neighbor_shift(a(), "C2C", Some(0), ck()), whole_field(1)),
        write(neighbor_shift(a(), "C2C", Some(2), ck()), whole_field(2)),
    ]);
    assert_eq!(groups, vec![0..2]);
}

#[test]
fn stages_over_other_horizontal_dimensions_do_not_join() {
    let groups = groups_of(vec![
        write(mul(a(), float(2.0)), whole_field(1)),
        write(neighbor_shift(a(), "E2C", Some(0), ek()), whole_field(3)),
        write(
            mul(param(4, Type::field(&["I", "J", "K"], F)), float(2.0)),
            whole_field(4),
        ),
        write(
            add(param(4, Type::field(&["I", "J", "K"], F)), float(1.0)),
            whole_field(4),
        ),
    ]);
    assert_eq!(groups, vec![0..1, 1..2, 2..3, 3..4]);
}

#[test]
fn a_stage_joins_only_where_it_may_share_tiles_with_every_stage_of_the_group() {
    // The third reads the first's output at a neighbour, though the second's only at the point.
    let groups = groups_of(vec![
        write(mul(a(), float(2.0)), whole_field(1)),
        write(add(a(), float(1.0)), whole_field(2)),
        write(
            add(neighbor_shift(b(), "C2C", Some(0), ck()), param(2, ck())),
            whole_field(2),
        ),
    ]);
    assert_eq!(groups, vec![0..2, 2..3]);
}

//! Consecutive stages that may run tile by tile together.
//!
//! A program's stages run one after the other over their whole domains, so a stage that reads
//! what an earlier one read or wrote reads it from memory again once the domain no longer fits
//! in cache: the vertically implicit solver's last stage reads most of its sweep's inputs and
//! the temporaries the sweep and the back substitution wrote, 40 % of the step at R2B5. Stages
//! over the same horizontal dimension whose shared fields are only ever accessed at the
//! stage's own horizontal point (any level) can instead run a tile of columns at a time, every
//! stage of the group over the tile before the next tile: each column a stage reads of another
//! stage's fields is one the tile has computed already, and no tile touches another's columns
//! of them, so tiles still run in parallel. A tile holds whole columns, so reads at other
//! levels of the same column are as they were.
//!
//! [`tile_groups`] partitions the stages into such runs; the CPU loop nest runs a group of
//! several stages tile by tile where the call's domains allow it (`gt4rs::__private::cpu`).

use std::collections::BTreeSet;
use std::ops::Range;

use crate::stage::{Node, Source, Stage, StageProgram, Step};
use crate::types::DimKind;

/// The program's stages as consecutive ranges covering `0..stages.len()`, each of stages that
/// may run tile by tile together (a range of one stage where a stage may not join the one
/// before it). A stage joins the group before it when both have one horizontal dimension, the
/// same, and every field one of them writes the other accesses only at its own horizontal
/// point.
pub fn tile_groups(program: &StageProgram) -> Vec<Range<usize>> {
    let mut groups: Vec<Range<usize>> = Vec::new();
    for (index, stage) in program.stages.iter().enumerate() {
        let joins = groups.last().is_some_and(|group| {
            group
                .clone()
                .all(|earlier| may_share_tiles(program, &program.stages[earlier], stage))
        });
        match groups.last_mut() {
            Some(group) if joins => group.end = index + 1,
            _ => groups.push(index..index + 1),
        }
    }
    groups
}

/// Whether `a` and `b` may run tile by tile together (in either order).
fn may_share_tiles(program: &StageProgram, a: &Stage, b: &Stage) -> bool {
    let (Some(dim_a), Some(dim_b)) = (horizontal_dim(program, a), horizontal_dim(program, b))
    else {
        return false;
    };
    if dim_a != dim_b {
        return false;
    }
    let (written_a, written_b) = (written(a), written(b));
    reads_at_point_only(program, b, &written_a) && reads_at_point_only(program, a, &written_b)
}

/// The stage's one horizontal dimension, if its domain has exactly one.
fn horizontal_dim<'p>(program: &StageProgram, stage: &'p Stage) -> Option<&'p str> {
    let mut horizontal = stage.domain.iter().filter(|r| {
        program
            .dim(&r.dim)
            .is_some_and(|d| d.kind == DimKind::Horizontal)
    });
    let first = horizontal.next()?;
    horizontal.next().is_none().then_some(first.dim.as_str())
}

fn written(stage: &Stage) -> BTreeSet<Source> {
    stage.outputs.iter().map(|o| o.target).collect()
}

/// Whether every load of `stage` from a field in `fields` reads at the stage's own horizontal
/// point: no neighbour step, and shifts along vertical dimensions only.
fn reads_at_point_only(program: &StageProgram, stage: &Stage, fields: &BTreeSet<Source>) -> bool {
    let vertical = |dim: &str| {
        program
            .dim(dim)
            .is_some_and(|d| d.kind == DimKind::Vertical)
    };
    stage.nodes.iter().all(|node| match node {
        Node::Load { source, path, .. } if fields.contains(source) => {
            path.steps.iter().all(|step| match step {
                Step::Cartesian { dim, .. } | Step::Dynamic { dim, .. } => vertical(dim),
                Step::Neighbor { .. } => false,
            })
        }
        _ => true,
    })
}

#[cfg(test)]
mod tests;

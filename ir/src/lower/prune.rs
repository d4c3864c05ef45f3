//! Stages a lowered program does not need.
//!
//! Each output domain of a call is lowered on its own, and each lowering materialises the
//! temporaries of the whole call value it walks, so a call with outputs of several domains
//! built the same temporaries once per domain, most of them read by no stage (ICON4Py's
//! `compute_rho_theta_pgrad_and_update_vn`: 21 stages, 9 of them writing temporaries nothing
//! reads). After lowering, a stage that computes into temporaries what an earlier stage
//! computes is dropped and its readers read the earlier stage's temporaries; then a stage
//! whose temporaries no later stage reads is dropped; the temporaries left are renumbered.
//!
//! Dropping such a stage changes no result and no error: a temporary's stage writes only its
//! temporaries, and its reads are guarded (a point it cannot compute is undefined in its mask,
//! not an error).

use std::collections::{BTreeSet, HashMap};

use super::builder::{remap_bound, Interner, StageBuilder};
use super::cover_every_row;
use crate::fieldview::Literal;
use crate::stage::{Bound, Node, Source, Stage, StageProgram, Temporary};
use crate::types::ScalarType;

/// `program` without the stages nobody needs (see the module doc).
pub(super) fn prune(program: &mut StageProgram) {
    drop_unread_stages(program);
    share_equal_stages(program);
    drop_unread_stages(program);
    fuse_sibling_stages(program);
    renumber_temporaries(program);
}

/// Fuses each temporaries-only stage into the one before it where both run over the same
/// domain, neither scans and it reads none of that stage's temporaries: one pass over the
/// domain then reads their shared inputs (a table row, the columns both gather) once.
/// ICON4Py's Green-Gauss gradients of ρ and θ_v (four sums over `C2E2CO` of two fields) were
/// four passes over the cells.
fn fuse_sibling_stages(program: &mut StageProgram) {
    let mut kept: Vec<Stage> = Vec::with_capacity(program.stages.len());
    for stage in std::mem::take(&mut program.stages) {
        let fusable = kept.last().is_some_and(|last| {
            let (Some(theirs), Some(_)) = (temporaries_only(last), temporaries_only(&stage))
            else {
                return false;
            };
            let masks = theirs
                .iter()
                .filter_map(|&t| program.temporaries.get(t as usize)?.mask);
            let written: BTreeSet<u32> = theirs.iter().copied().chain(masks).collect();
            let rows = same_domain(last, &stage, 0)
                || (same_domain(last, &stage, 1)
                    && rows_offset(last).is_some()
                    && rows_offset(last) == rows_offset(&stage));
            last.scan.is_none()
                && stage.scan.is_none()
                && rows
                && !stage.nodes.iter().any(|n| {
                    matches!(n, Node::Load { source: Source::Temporary(t), .. } if written.contains(t))
                })
        });
        match kept.pop() {
            Some(mut last) if fusable => {
                // Over other rows of the same dimension (readers' reaches of other domains):
                // every row, as where equal values are shared.
                let mut stage = stage;
                if !same_domain(&last, &stage, 0) {
                    widen_to_every_row(&mut last);
                    widen_to_every_row(&mut stage);
                }
                kept.push(StageBuilder::fuse(last, stage))
            }
            last => {
                kept.extend(last);
                kept.push(stage);
            }
        }
    }
    program.stages = kept;
}

/// Whether two stages run over the same domain, but for its first `skip` ranges: the same
/// ranges, their bounds the same expressions of the program's parameters.
fn same_domain(a: &Stage, b: &Stage, skip: usize) -> bool {
    let mut interner = Interner::default();
    let (x, y) = (interner.ids(&a.nodes, |c| c), interner.ids(&b.nodes, |c| c));
    a.domain.len() == b.domain.len()
        && a.domain.iter().zip(&b.domain).skip(skip).all(|(r, s)| {
            r.dim == s.dim
                && remap_bound(r.start.clone(), &x) == remap_bound(s.start.clone(), &y)
                && remap_bound(r.end.clone(), &x) == remap_bound(s.end.clone(), &y)
        })
}

/// Whether `later` computes what `earlier` does into temporaries of the same types: the same
/// domain, nodes (so the same reads), scan and stored values, each stored into a temporary.
/// The lowering asks it of each temporary's stage it builds (`same_stage`), and the prune of
/// each stage of the lowered program.
pub(super) fn same_computation(earlier: &Stage, later: &Stage, temporaries: &[Temporary]) -> bool {
    let layout = |target| temporary_layout(temporaries, target);
    earlier.domain == later.domain
        && earlier.nodes == later.nodes
        && earlier.scan == later.scan
        && earlier.outputs.len() == later.outputs.len()
        && earlier.outputs.iter().zip(&later.outputs).all(|(a, b)| {
            a.value == b.value
                && a.local == b.local
                && layout(a.target).is_some()
                && layout(a.target) == layout(b.target)
        })
}

/// Whether `later` stores what `earlier` stores, into temporaries of the same types, over the
/// same vertical range, whatever horizontal rows each covers: the same values computed by
/// stages built for readers of different domains (each output domain of a call lowers the
/// call value again). Neither may scan: a scan's values depend on where its range starts.
fn same_values(earlier: &Stage, later: &Stage, temporaries: &[Temporary]) -> bool {
    if earlier.scan.is_some()
        || later.scan.is_some()
        || earlier.outputs.len() != later.outputs.len()
    {
        return false;
    }
    let layout = |target| temporary_layout(temporaries, target);
    let mut interner = Interner::default();
    let (a, b) = (
        interner.ids(&earlier.nodes, |c| c),
        interner.ids(&later.nodes, |c| c),
    );
    same_domain(earlier, later, 1)
        && earlier.outputs.iter().zip(&later.outputs).all(|(x, y)| {
            a[x.value as usize] == b[y.value as usize]
                && x.local == y.local
                && layout(x.target).is_some()
                && layout(x.target) == layout(y.target)
        })
}

/// The temporaries `stage` writes, when it writes nothing else.
fn temporaries_only(stage: &Stage) -> Option<Vec<u32>> {
    stage
        .outputs
        .iter()
        .map(|o| match o.target {
            Source::Temporary(t) => Some(t),
            Source::Param(_) => None,
        })
        .collect()
}

/// Every `Source::Temporary(t)` that `stage` reads, renamed by `rename`.
fn rename_reads(stage: &mut Stage, rename: &HashMap<u32, u32>) {
    for node in &mut stage.nodes {
        if let Node::Load {
            source: Source::Temporary(t),
            ..
        } = node
        {
            if let Some(&to) = rename.get(t) {
                *t = to;
            }
        }
    }
}

/// The offset through whose `to` dimension a temporary's stage runs, where its rows are a
/// reader's reach through it or all of them (the two forms [`cover_every_row`] widens
/// between); `None` for any other range.
fn rows_offset(stage: &Stage) -> Option<String> {
    let range = stage.domain.first()?;
    match (&range.start, &range.end) {
        (Bound::Reach { offset: a, .. }, Bound::Reach { offset: b, .. }) if a == b => {
            Some(a.clone())
        }
        (Bound::Node(_), Bound::TargetSize { offset }) if covers_every_row(stage) => {
            Some(offset.clone())
        }
        _ => None,
    }
}

/// Makes a temporary's stage over a reader's reach (see [`rows_offset`]) run over every row.
fn widen_to_every_row(stage: &mut Stage) {
    if let Some(offset) = rows_offset(stage).filter(|_| !covers_every_row(stage)) {
        cover_every_row(stage, offset);
    }
}

/// Where a stage stores into temporary `target`: its dimensions, type and whether it has a
/// mask; `None` for a program parameter.
fn temporary_layout(
    temporaries: &[Temporary],
    target: Source,
) -> Option<(&Vec<String>, ScalarType, bool)> {
    match target {
        Source::Temporary(t) => temporaries
            .get(t as usize)
            .map(|t| (&t.dims, t.dtype, t.mask.is_some())),
        Source::Param(_) => None,
    }
}

/// Whether `stage` runs over every row of its horizontal dimension: `0..target_size`.
fn covers_every_row(stage: &Stage) -> bool {
    stage.domain.first().is_some_and(|range| {
        matches!(range.end, Bound::TargetSize { .. })
            && matches!(range.start, Bound::Node(n) if matches!(
                stage.nodes.get(n as usize),
                Some(Node::Literal { value: Literal::Int(0), .. })
            ))
    })
}

/// Drops each temporaries-only stage equal to an earlier kept one (the same domain, nodes,
/// scan and stored values, into temporaries of the same types) and makes its readers read the
/// earlier stage's temporaries. Stages are visited in order, so a stage that becomes equal to
/// an earlier one once its own reads are renamed is shared too.
fn share_equal_stages(program: &mut StageProgram) {
    let mut rename: HashMap<u32, u32> = HashMap::new();
    let mut kept: Vec<Stage> = Vec::with_capacity(program.stages.len());
    for mut stage in std::mem::take(&mut program.stages) {
        rename_reads(&mut stage, &rename);
        let written = temporaries_only(&stage);
        let temporaries = &program.temporaries;
        let earlier = written.as_ref().and_then(|_| {
            kept.iter()
                .find(|k| same_computation(k, &stage, temporaries))
                .and_then(temporaries_only)
                .or_else(|| {
                    // The same values over other rows: the earlier stage covers every row.
                    let k = kept.iter_mut().find(|k| {
                        temporaries_only(k).is_some()
                            && same_values(k, &stage, temporaries)
                            && rows_offset(k).is_some()
                            && rows_offset(&stage).is_some()
                    })?;
                    widen_to_every_row(k);
                    temporaries_only(k)
                })
        });
        match (written, earlier) {
            (Some(written), Some(theirs)) => rename.extend(written.into_iter().zip(theirs)),
            _ => kept.push(stage),
        }
    }
    program.stages = kept;
}

/// Drops each temporaries-only stage none of whose temporaries a later stage reads. A read of
/// a temporary reads its mask too.
fn drop_unread_stages(program: &mut StageProgram) {
    let mut read: BTreeSet<u32> = BTreeSet::new();
    let mut kept = Vec::with_capacity(program.stages.len());
    for stage in std::mem::take(&mut program.stages).into_iter().rev() {
        let needed = match temporaries_only(&stage) {
            Some(written) => written.iter().any(|t| read.contains(t)),
            None => true,
        };
        if !needed {
            continue;
        }
        for node in &stage.nodes {
            if let Node::Load {
                source: Source::Temporary(t),
                ..
            } = node
            {
                read.insert(*t);
                if let Some(mask) = program.temporaries[*t as usize].mask {
                    read.insert(mask);
                }
            }
        }
        kept.push(stage);
    }
    kept.reverse();
    program.stages = kept;
}

/// Keeps the temporaries the stages write, in their order, and renumbers every use.
fn renumber_temporaries(program: &mut StageProgram) {
    let written: BTreeSet<u32> = program
        .stages
        .iter()
        .flat_map(|s| s.outputs.iter())
        .filter_map(|o| match o.target {
            Source::Temporary(t) => Some(t),
            Source::Param(_) => None,
        })
        .collect();
    let new_index: HashMap<u32, u32> = written
        .iter()
        .enumerate()
        .map(|(new, &old)| (old, new as u32))
        .collect();
    let renamed = |t: &mut u32| {
        if let Some(&to) = new_index.get(t) {
            *t = to;
        }
    };
    for stage in &mut program.stages {
        for node in &mut stage.nodes {
            if let Node::Load {
                source: Source::Temporary(t),
                ..
            } = node
            {
                renamed(t);
            }
        }
        for output in &mut stage.outputs {
            if let Source::Temporary(t) = &mut output.target {
                renamed(t);
            }
        }
    }
    let old = std::mem::take(&mut program.temporaries);
    program.temporaries = written
        .iter()
        .map(|&t| {
            let mut temporary = old[t as usize].clone();
            temporary.mask = temporary.mask.and_then(|m| new_index.get(&m).copied());
            temporary
        })
        .collect();
}

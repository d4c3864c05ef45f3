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

use crate::stage::{Node, Source, Stage, StageProgram, Temporary};

/// `program` without the stages nobody needs (see the module doc).
pub(super) fn prune(program: &mut StageProgram) {
    share_equal_stages(program);
    drop_unread_stages(program);
    renumber_temporaries(program);
}

/// Whether `later` computes what `earlier` does into temporaries of the same types: the same
/// domain, nodes (so the same reads), scan and stored values, each stored into a temporary.
/// The lowering asks it of each temporary's stage it builds (`same_stage`), and the prune of
/// each stage of the lowered program.
pub(super) fn same_computation(earlier: &Stage, later: &Stage, temporaries: &[Temporary]) -> bool {
    let layout = |target: Source| match target {
        Source::Temporary(t) => temporaries
            .get(t as usize)
            .map(|t| (&t.dims, t.dtype, t.mask.is_some())),
        Source::Param(_) => None,
    };
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
        let earlier = written.as_ref().and_then(|_| {
            kept.iter()
                .find(|k| same_computation(k, &stage, &program.temporaries))
                .and_then(temporaries_only)
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

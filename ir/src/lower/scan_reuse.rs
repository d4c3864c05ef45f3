//! A scan a stage carries that an earlier stage already stored in temporaries.
//!
//! A scan's result read through a vertical shift is computed by a stage of its own into
//! temporaries, which the reader loads through the shift; read at the reader's own point too,
//! the same scan is lowered into the reader's carry once more. ICON4Py's vertically implicit
//! solver reads its back substitution at K and at K + 1, so the update of ρ, θ_v and the Exner
//! pressure that follows ran inside a scan, level after level, though only the back
//! substitution depends on the level before. Here the reader's nodes that compute what the
//! earlier stage stored load its temporaries instead; a reader whose carry nobody reads then is
//! a map, whose levels are independent (and vectorise).
//!
//! The values are the same: the earlier stage runs the same carry (the same initial values,
//! activity and next values, over the same domain, along the same axis in the same direction),
//! and reads only fields that neither the reader nor any stage between the two writes, so it
//! stored at each point what the reader computes there.

use std::collections::{BTreeSet, HashMap};

use super::builder::{remap_bound, Interner, StageBuilder};
use crate::stage::{Bound, Node, NodeId, Source, Stage, StageProgram};

/// Every scan stage of `program` reads what an earlier stage stored instead of carrying it
/// again (see the module doc).
pub(super) fn reuse_scan_temporaries(program: &mut StageProgram) {
    for reader in 0..program.stages.len() {
        for earlier in (0..reader).rev() {
            let substitutes = substitutes(&program.stages, earlier, reader);
            if substitutes.is_empty() {
                continue;
            }
            let stage = std::mem::replace(
                &mut program.stages[reader],
                Stage {
                    domain: Vec::new(),
                    nodes: Vec::new(),
                    outputs: Vec::new(),
                    scan: None,
                },
            );
            program.stages[reader] = StageBuilder::substitute(stage, &substitutes);
            if program.stages[reader].scan.is_none() {
                break;
            }
        }
    }
}

/// The nodes of stage `reader` that load a temporary of stage `earlier` instead, where the
/// earlier one runs the reader's carry (see the module doc); empty where it does not.
fn substitutes(stages: &[Stage], earlier: usize, reader: usize) -> HashMap<NodeId, Node> {
    let (p, s) = (&stages[earlier], &stages[reader]);
    let (Some(ps), Some(ss)) = (&p.scan, &s.scan) else {
        return HashMap::new();
    };
    if ps.axis != ss.axis || ps.forward != ss.forward || ps.carry.len() != ss.carry.len() {
        return HashMap::new();
    }
    let mut interner = Interner::default();
    let (pc, sc) = (interner.ids(&p.nodes, |c| c), interner.ids(&s.nodes, |c| c));
    // A stage's domain with its node bounds by canonical id, and `OutputFull` spelt as the
    // extent of the field it stands for (a reader's whole output, a scan stage's copy of it).
    let bounds = |stage: &Stage, canon: &[u32]| -> Vec<String> {
        let output = stage.outputs.first().and_then(|o| match o.target {
            Source::Param(p) => Some(p),
            Source::Temporary(_) => None,
        });
        stage
            .domain
            .iter()
            .map(|r| {
                let (start, end) = match (&r.start, &r.end, output) {
                    (Bound::OutputFull, Bound::OutputFull, Some(p)) => {
                        Bound::field_range(p, &r.dim)
                    }
                    _ => (r.start.clone(), r.end.clone()),
                };
                format!(
                    "{} {:?} {:?}",
                    r.dim,
                    remap_bound(start, canon),
                    remap_bound(end, canon)
                )
            })
            .collect()
    };
    let same_carry = ps.carry.iter().zip(&ss.carry).all(|(a, b)| {
        pc[a.init as usize] == sc[b.init as usize]
            && pc[a.next as usize] == sc[b.next as usize]
            && a.active.map(|n| pc[n as usize]) == b.active.map(|n| sc[n as usize])
            && a.dtype == b.dtype
    });
    if !same_carry || bounds(p, &pc) != bounds(s, &sc) {
        return HashMap::new();
    }
    // What the earlier stage reads must hold the same values when the reader runs.
    let reads: BTreeSet<Source> = p
        .nodes
        .iter()
        .filter_map(|n| match n {
            Node::Load { source, .. } => Some(*source),
            _ => None,
        })
        .collect();
    let written_since = stages[earlier + 1..=reader]
        .iter()
        .flat_map(|st| st.outputs.iter().map(|o| o.target));
    if written_since
        .into_iter()
        .any(|target| reads.contains(&target))
    {
        return HashMap::new();
    }
    let mut substitutes = HashMap::new();
    for o in &p.outputs {
        let Source::Temporary(_) = o.target else {
            return HashMap::new();
        };
        let stored = pc[o.value as usize];
        let dtype = p.nodes[o.value as usize].dtype();
        for (n, id) in sc.iter().enumerate() {
            if *id == stored {
                substitutes.insert(
                    n as NodeId,
                    Node::Load {
                        source: o.target,
                        path: Default::default(),
                        local: None,
                        dtype,
                        guarded: false,
                    },
                );
            }
        }
    }
    substitutes
}

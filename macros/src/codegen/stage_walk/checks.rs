//! What a stage checks, and where: the conditions a call must meet before the stage's loop
//! (its domain inside every output, read arguments holding what is read of them, reads with
//! static shifts inside their fields over the whole domain), which both emitters take from
//! here, so the CPU kernel and the CUDA launcher check the same things in the same order; and
//! the points a failure inside the loop names.

use std::collections::BTreeSet;

use gt4rs_ir::failure::{Failure, FieldName, Precondition, PreconditionKind};
use gt4rs_ir::stage::{AccessPath, Node, NodeId, Output, Source, Step};

use super::{Section, StageWalk};

/// The dimensions of the point, and the names of its coordinates in generated code, of code in
/// `section`: the horizontal ones from the column on, the vertical one at the level (and, for
/// a value stored into a sparse output, the slot: a number).
pub(crate) type PointNames = Vec<(String, String)>;

impl StageWalk<'_> {
    /// How failures name `source`.
    pub fn field_name(&self, source: Source) -> FieldName {
        match source {
            Source::Param(p) => FieldName::Argument(
                self.program
                    .params
                    .get(p as usize)
                    .map_or_else(|| format!("parameter {p}"), |param| param.name.clone()),
            ),
            Source::Temporary(t) => FieldName::Temporary(t),
        }
    }

    /// The point code in `section` knows.
    pub fn point(&self, section: Section) -> PointNames {
        let mut point = PointNames::new();
        if section >= Section::Column {
            for (j, (_, d)) in self.outer.iter().enumerate() {
                point.push((d.clone(), format!("i{j}")));
            }
        }
        if let (Some((_, d)), Section::Level) = (&self.vertical, section) {
            point.push((d.clone(), "k".into()));
        }
        point
    }

    /// The point a failure of the value stored by `output` names in `section`: the point of
    /// `section` and, for a sparse output, the slot it is stored at (among the dimensions in
    /// the output's order, as the embedded backend names it).
    pub fn write_point(&self, section: Section, output: &Output) -> Result<PointNames, String> {
        let mut point = self.point(section);
        let Some(slot) = output.local else {
            return Ok(point);
        };
        let f = self.field(output.target)?;
        let (dpos, local) = self
            .local_dim(&f)
            .ok_or("a field without a local dimension is written at a slot")?;
        let before = point
            .iter()
            .filter(|(d, _)| f.dims[..dpos].contains(d))
            .count();
        point.insert(before, (local.to_string(), slot.to_string()));
        Ok(point)
    }

    /// Where the position of load `id` is resolved (and its failures name the point of): per
    /// column for an unguarded read at the level plus a static shift whose horizontal position
    /// does not depend on the level, at the level for any other read of a field with a
    /// vertical dimension, where the load's value lives otherwise.
    pub fn position_section(&self, id: NodeId) -> Result<Section, String> {
        self.load_section(id, false)
    }

    /// As [`Self::position_section`], but a guarded read (in a branch) of that shape too is
    /// resolved per column: for an emitter that checks and clamps its level at every level
    /// itself, through the column's base pointer.
    pub fn column_position_section(&self, id: NodeId) -> Result<Section, String> {
        self.load_section(id, true)
    }

    fn load_section(&self, id: NodeId, guarded_per_column: bool) -> Result<Section, String> {
        let Node::Load {
            source,
            path,
            guarded,
            ..
        } = self.node(id)
        else {
            return Err("not a load".into());
        };
        let f = self.field(*source)?;
        if !f.dims.iter().any(|d| self.is_vertical(d)) {
            return Ok(self.sections[id as usize]);
        }
        let (deps, shift) = self.path_deps(path)?;
        let horizontal = f
            .dims
            .iter()
            .filter(|d| !self.is_local(d) && !self.is_vertical(d))
            .filter_map(|d| deps.get(d).copied())
            .max()
            .unwrap_or(Section::Uniform);
        Ok(match shift {
            Some(_) if (guarded_per_column || !*guarded) && horizontal < Section::Level => {
                Section::Column
            }
            _ => Section::Level,
        })
    }

    /// Whether the position of load `id` along dimension `dpos` of its field is checked once,
    /// before the loop (a [`Precondition`]), instead of at every point.
    pub fn checked_before_loop(&self, id: NodeId, dpos: usize) -> bool {
        let Node::Load {
            source,
            path,
            guarded: false,
            ..
        } = self.node(id)
        else {
            return false;
        };
        let Ok(f) = self.field(*source) else {
            return false;
        };
        match f.dims.get(dpos) {
            Some(d) if self.is_vertical(d) => self.vertical_shift(path).is_some(),
            Some(d) => only_static_shifts(path) && self.outer.iter().any(|(_, od)| od == d),
            None => false,
        }
    }

    /// The vertical position's shift from the level when it is static.
    fn vertical_shift(&self, path: &AccessPath) -> Option<i64> {
        self.path_deps(path).ok().and_then(|(_, shift)| shift)
    }

    /// What a call must meet before the stage's loop runs, in the order it is checked.
    pub(super) fn preconditions(&self) -> Result<Vec<Precondition>, String> {
        let mut checks = Vec::new();
        let mut outputs = BTreeSet::new();
        for o in &self.stage.outputs {
            // A sparse output has one output per slot, and one set of checks.
            if !outputs.insert(o.target) {
                continue;
            }
            let f = self.field(o.target)?;
            for (j, r) in self.stage.domain.iter().enumerate() {
                let dim = f
                    .dims
                    .iter()
                    .position(|d| d == &r.dim)
                    .ok_or("output without a domain dimension")?;
                checks.push(Precondition {
                    field: o.target,
                    dim,
                    kind: PreconditionKind::Covers {
                        domain_dim: j,
                        shift: 0,
                    },
                    failure: Failure::OutputTooSmall {
                        stage: self.index,
                        field: self.field_name(o.target),
                        dim: r.dim.clone(),
                    },
                });
            }
            // Written at every slot: its local dimension holds exactly the offset's
            // neighbours, as a sparse argument that is read must.
            if o.local.is_some() {
                let (dim, d) = self
                    .local_dim(&f)
                    .ok_or("a field without a local dimension is written at a slot")?;
                let count = self.offset(d)?.count;
                checks.push(Precondition {
                    field: o.target,
                    dim,
                    kind: PreconditionKind::Spans {
                        count: i64::from(count),
                    },
                    failure: Failure::LocalDimension {
                        arg: f.name.clone(),
                        dim: d.to_string(),
                        count,
                    },
                });
            }
        }
        let mut read = BTreeSet::new();
        let mut horizontal = BTreeSet::new();
        let mut vertical = BTreeSet::new();
        for (id, node) in self.stage.nodes.iter().enumerate() {
            let Node::Load { source, path, .. } = node else {
                continue;
            };
            read.insert(*source);
            let f = self.field(*source)?;
            for (dpos, d) in f.dims.iter().enumerate() {
                if !self.checked_before_loop(id as NodeId, dpos) {
                    continue;
                }
                if self.is_vertical(d) {
                    if let Some(shift) = self.vertical_shift(path) {
                        vertical.insert((*source, dpos, shift));
                    }
                } else if let Some((j, _)) = self.outer.iter().find(|(_, od)| od == d) {
                    let shift = path
                        .steps
                        .iter()
                        .map(|s| match s {
                            Step::Cartesian { dim, offset } if dim == d => *offset,
                            _ => 0,
                        })
                        .try_fold(0i64, i64::checked_add)
                        .ok_or_else(|| {
                            format!("the shifts along `{d}` add up past the largest index")
                        })?;
                    horizontal.insert((*source, dpos, *j, shift));
                }
            }
        }
        // Clamped and masked reads need some valid point; a temporary's buffer always holds
        // one.
        for source in read {
            let Source::Param(_) = source else { continue };
            let f = self.field(source)?;
            let FieldName::Argument(arg) = self.field_name(source) else {
                continue;
            };
            for (dim, d) in f.dims.iter().enumerate() {
                let count = self
                    .lowered
                    .offset(d)
                    .filter(|_| self.is_local(d))
                    .map(|o| o.count);
                let (kind, failure) = match count {
                    Some(count) => (
                        PreconditionKind::Spans {
                            count: i64::from(count),
                        },
                        Failure::LocalDimension {
                            arg: arg.clone(),
                            dim: d.clone(),
                            count,
                        },
                    ),
                    None => (
                        PreconditionKind::NotEmpty,
                        Failure::EmptyArgument {
                            arg: arg.clone(),
                            dim: d.clone(),
                        },
                    ),
                };
                checks.push(Precondition {
                    field: source,
                    dim,
                    kind,
                    failure,
                });
            }
        }
        let shifted_read = |source: Source, dim: usize, domain_dim: usize, shift: i64| {
            let f = self.field(source)?;
            Ok::<_, String>(Precondition {
                field: source,
                dim,
                kind: PreconditionKind::Covers { domain_dim, shift },
                failure: Failure::ShiftedReadOutside {
                    stage: self.index,
                    field: self.field_name(source),
                    dim: f.dims[dim].clone(),
                    shift,
                },
            })
        };
        for (source, dim, j, shift) in horizontal {
            checks.push(shifted_read(source, dim, j, shift)?);
        }
        if let Some((j, _)) = &self.vertical {
            for (source, dim, shift) in vertical {
                checks.push(shifted_read(source, dim, *j, shift)?);
            }
        }
        Ok(checks)
    }
}

/// A path of Cartesian steps only: a position is a domain index plus a constant.
fn only_static_shifts(path: &AccessPath) -> bool {
    path.steps
        .iter()
        .all(|s| matches!(s, Step::Cartesian { .. }))
}

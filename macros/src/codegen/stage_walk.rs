//! The walk over one stage that the CPU and CUDA emitters share.
//!
//! Both turn a stage's node DAG into straight-line code: every node instance (a node, with a
//! slot bound for each reduction variable it depends on) becomes one named value, a reduction is
//! unrolled over its static neighbour count with its body emitted once per slot, and a load's
//! position is resolved step by step along its access path. [`StageWalk`] holds what both know
//! about a stage (its dimensions, the reduction variables and section of every node, the
//! instances already emitted, what is checked before the loop and what at every point, in
//! [`checks`]); [`Spelling`] (in [`spelling`]) is what each backend fills in, and its provided
//! methods ([`Spelling::emit_instance`], [`Spelling::resolve_path`]) are the walk itself.

mod checks;
mod spelling;

pub(crate) use checks::PointNames;
pub(crate) use spelling::{carry_flag, Spelling, TableEntry};

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use gt4rs_ir::failure::Precondition;
use gt4rs_ir::fieldview::{BinaryOp, MathFun, Program};
use gt4rs_ir::stage::{AccessPath, Node, NodeId, Slot, Source, Stage, StageProgram, Step};
use gt4rs_ir::{DimKind, OffsetInfo, ScalarType, Type};

/// The slot bound to each reduction variable of an instance.
pub(crate) type Bind = BTreeMap<u32, u32>;

/// What a value depends on, in the order the loops nest: nothing that varies over the domain
/// (program scalars, literals, bounds), the horizontal point only (one value per column), or
/// the level too. The CPU emitter places each instance in the outermost loop it can live in;
/// a failure names the coordinates of its section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Section {
    Uniform,
    Column,
    Level,
}

/// A field a stage reads or writes, as the emitters see it.
pub(crate) struct FieldInfo {
    /// The parameter's name, or `temporary <n>`.
    pub name: String,
    pub dims: Vec<String>,
    pub dtype: ScalarType,
}

/// The prefix of the run-time names of a field argument (`f3`, `f3_o`, …) or temporary (`g0`…).
pub(crate) fn prefix(source: Source) -> String {
    match source {
        Source::Param(p) => format!("f{p}"),
        Source::Temporary(t) => format!("g{t}"),
    }
}

/// An integer division, the one operation that fails on a value: by a zero divisor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Division {
    Div,
    Rem,
    DivEuclid,
    RemEuclid,
}

impl Division {
    pub(crate) fn of_binary(op: BinaryOp, dtype: ScalarType) -> Option<Division> {
        match op {
            BinaryOp::Div if dtype.is_int() => Some(Division::Div),
            BinaryOp::Rem if dtype.is_int() => Some(Division::Rem),
            _ => None,
        }
    }

    pub(crate) fn of_math(fun: MathFun, dtype: ScalarType) -> Option<Division> {
        match fun {
            MathFun::DivEuclid if dtype.is_int() => Some(Division::DivEuclid),
            MathFun::RemEuclid if dtype.is_int() => Some(Division::RemEuclid),
            _ => None,
        }
    }
}

/// What the two emitters know alike about one stage.
pub(crate) struct StageWalk<'a> {
    pub program: &'a Program,
    pub lowered: &'a StageProgram,
    /// The program's connectivities, in the order their tables are bound.
    pub used_offsets: &'a [String],
    pub index: usize,
    pub stage: &'a Stage,
    /// Domain dimensions other than the vertical one, outer to inner, with their position in
    /// the domain.
    pub outer: Vec<(usize, String)>,
    pub vertical: Option<(usize, String)>,
    /// Per node: the reduction variables it depends on.
    pub vars: Vec<BTreeSet<u32>>,
    /// Per node: its section.
    pub sections: Vec<Section>,
    /// Names of the instances emitted so far.
    pub emitted: HashSet<String>,
    /// The tables (by position in `used_offsets`) the emitted code reads.
    pub tables_used: BTreeSet<usize>,
    /// What a call must meet before the stage's loop runs, in the order it is checked.
    pub preconditions: Vec<Precondition>,
    /// The instances that may be undefined (they read, in a branch or a reduction slot that
    /// may not be taken, a skipped neighbour or a point outside a field): the name of the
    /// flag that says where, and its section.
    pub undefined: HashMap<String, (String, Section)>,
}

impl<'a> StageWalk<'a> {
    pub fn new(
        program: &'a Program,
        lowered: &'a StageProgram,
        used_offsets: &'a [String],
        index: usize,
        stage: &'a Stage,
    ) -> Result<Self, String> {
        let mut outer = Vec::new();
        let mut vertical: Option<(usize, String)> = None;
        for (j, r) in stage.domain.iter().enumerate() {
            match lowered.dim(&r.dim).map(|d| d.kind) {
                Some(DimKind::Vertical) => {
                    if let Some((_, first)) = &vertical {
                        return Err(format!(
                            "an output has two vertical dimensions (`{first}` and `{}`)",
                            r.dim
                        ));
                    }
                    vertical = Some((j, r.dim.clone()));
                }
                Some(_) => outer.push((j, r.dim.clone())),
                None => return Err(format!("unknown dimension `{}`", r.dim)),
            }
        }
        if stage.scan.is_some() && vertical.is_none() {
            return Err("a scan writes an output without a vertical dimension".into());
        }
        let mut walk = StageWalk {
            program,
            lowered,
            used_offsets,
            index,
            stage,
            outer,
            vertical,
            vars: Vec::new(),
            sections: Vec::new(),
            emitted: HashSet::new(),
            tables_used: BTreeSet::new(),
            preconditions: Vec::new(),
            undefined: HashMap::new(),
        };
        walk.classify()?;
        walk.preconditions = walk.preconditions()?;
        Ok(walk)
    }

    pub fn node(&self, id: NodeId) -> &'a Node {
        &self.stage.nodes[id as usize]
    }

    /// The mask of temporary `source` (where its value is undefined, in the same layout), if
    /// it has one.
    pub fn mask_of(&self, source: Source) -> Option<Source> {
        match source {
            Source::Temporary(t) => self
                .lowered
                .temporaries
                .get(t as usize)?
                .mask
                .map(Source::Temporary),
            Source::Param(_) => None,
        }
    }

    pub fn field(&self, source: Source) -> Result<FieldInfo, String> {
        let p = match source {
            Source::Param(p) => p,
            Source::Temporary(t) => {
                let temp = self
                    .lowered
                    .temporaries
                    .get(t as usize)
                    .ok_or_else(|| format!("temporary {t} does not exist"))?;
                return Ok(FieldInfo {
                    name: format!("temporary {t}"),
                    dims: temp.dims.clone(),
                    dtype: temp.dtype,
                });
            }
        };
        match self.program.params.get(p as usize) {
            Some(param) => match &param.ty {
                Type::Field { dims, dtype } => Ok(FieldInfo {
                    name: param.name.clone(),
                    dims: dims.clone(),
                    dtype: *dtype,
                }),
                other => Err(format!(
                    "`{}` is read as a field but is {other}",
                    param.name
                )),
            },
            None => Err(format!("parameter {p} does not exist")),
        }
    }

    pub fn is_vertical(&self, dim: &str) -> bool {
        self.lowered.dim(dim).map(|d| d.kind) == Some(DimKind::Vertical)
    }

    pub fn is_local(&self, dim: &str) -> bool {
        self.lowered.dim(dim).map(|d| d.kind) == Some(DimKind::Local)
    }

    /// The local dimension of a sparse field and its position among the field's dimensions.
    pub fn local_dim<'f>(&self, field: &'f FieldInfo) -> Option<(usize, &'f str)> {
        field
            .dims
            .iter()
            .enumerate()
            .find(|(_, d)| self.is_local(d))
            .map(|(dpos, d)| (dpos, d.as_str()))
    }

    pub fn offset(&self, name: &str) -> Result<&'a OffsetInfo, String> {
        self.lowered
            .offset(name)
            .ok_or_else(|| format!("unknown offset `{name}`"))
    }

    /// The position of `offset`'s table among the bound ones.
    pub fn table_index(&self, offset: &str) -> Result<usize, String> {
        self.used_offsets
            .iter()
            .position(|o| o == offset)
            .ok_or_else(|| format!("offset `{offset}` is not among the program's connectivities"))
    }

    /// [`StageWalk::table_index`] of a table the emitted code reads.
    pub fn use_table(&mut self, offset: &str) -> Result<usize, String> {
        let t = self.table_index(offset)?;
        self.tables_used.insert(t);
        Ok(t)
    }

    /// The name of instance (`id`, `bind`): `v<id>` and the slot of each of its variables.
    pub fn instance_name(&self, id: NodeId, bind: &Bind) -> String {
        let mut s = format!("v{id}");
        for v in &self.vars[id as usize] {
            s.push_str(&format!("_{}", bind.get(v).copied().unwrap_or(0)));
        }
        s
    }

    /// The slot `slot` stands for under `bind`.
    pub fn slot(slot: Slot, bind: &Bind) -> u32 {
        match slot {
            Slot::Fixed(s) => s,
            Slot::Var(v) => bind.get(&v).copied().unwrap_or(0),
        }
    }

    /// Which section each position of `path` (by dimension) depends on, and the vertical
    /// position's shift from the level when it is static.
    pub fn path_deps(
        &self,
        path: &AccessPath,
    ) -> Result<(BTreeMap<String, Section>, Option<i64>), String> {
        let mut deps: BTreeMap<String, Section> = BTreeMap::new();
        for (_, d) in &self.outer {
            deps.insert(d.clone(), Section::Column);
        }
        let mut shift = None;
        if let Some((_, d)) = &self.vertical {
            deps.insert(d.clone(), Section::Level);
            shift = Some(0i64);
        }
        for step in &path.steps {
            match step {
                Step::Cartesian { dim, offset } => {
                    if !deps.contains_key(dim) {
                        return Err(format!(
                            "a shift along `{dim}`, which the stage's point does not have"
                        ));
                    }
                    if self.is_vertical(dim) {
                        shift = match shift.map(|s| s.checked_add(*offset)) {
                            Some(None) => {
                                return Err(format!(
                                    "the shifts along `{dim}` add up past the largest index"
                                ))
                            }
                            other => other.flatten(),
                        };
                    }
                }
                Step::Dynamic { dim, offset } => {
                    let s = self.sections[*offset as usize];
                    let d = deps.get_mut(dim).ok_or_else(|| {
                        format!("a shift along `{dim}`, which the stage's point does not have")
                    })?;
                    *d = (*d).max(s);
                    if self.is_vertical(dim) {
                        shift = None;
                    }
                }
                Step::Neighbor { offset, .. } => {
                    let info = self.offset(offset)?;
                    let from = deps.remove(&info.from).ok_or_else(|| {
                        format!(
                            "a neighbour shift through `{offset}` from a point without `{}`",
                            info.from
                        )
                    })?;
                    deps.insert(info.to.clone(), from.max(Section::Column));
                }
            }
        }
        Ok((deps, shift))
    }

    /// Where a reduction's neighbour row is known: per column, or per level when the center
    /// is reached through a level-dependent dynamic shift.
    pub fn center_section(&self, center: &AccessPath, from: &str) -> Result<Section, String> {
        let (deps, _) = self.path_deps(center)?;
        let d = deps
            .get(from)
            .copied()
            .ok_or_else(|| format!("a reduction at a point without `{from}`"))?;
        Ok(d.max(Section::Column))
    }

    /// The reduction variables and the section of every node, in arena order.
    fn classify(&mut self) -> Result<(), String> {
        for node in &self.stage.nodes {
            let mut vars: BTreeSet<u32> = node.slot_vars().into_iter().collect();
            let mut section = Section::Uniform;
            for c in node.children() {
                vars.extend(self.vars[c as usize].iter().copied());
                section = section.max(self.sections[c as usize]);
            }
            match node {
                Node::Reduce {
                    var,
                    center,
                    offset,
                    ..
                } => {
                    vars.remove(var);
                    let info = self.offset(offset)?;
                    let (deps, _) = self.path_deps(center)?;
                    let d = deps.get(&info.from).copied().ok_or_else(|| {
                        format!(
                            "a reduction over `{}` at a point without `{}`",
                            info.name, info.from
                        )
                    })?;
                    section = section.max(d);
                }
                Node::Load { source, path, .. } => {
                    let f = self.field(*source)?;
                    let (deps, _) = self.path_deps(path)?;
                    for d in f.dims.iter().filter(|d| !self.is_local(d)) {
                        let dep = *deps.get(d).ok_or_else(|| {
                            format!(
                                "`{}` is read at a point without its dimension `{d}`",
                                f.name
                            )
                        })?;
                        section = section.max(dep);
                    }
                }
                Node::Index { dim, path } => {
                    let (deps, _) = self.path_deps(path)?;
                    let d = deps
                        .get(dim)
                        .copied()
                        .ok_or_else(|| format!("a condition on `{dim}` at a point without it"))?;
                    section = section.max(d);
                }
                Node::Carry { .. } => section = Section::Level,
                _ => {}
            }
            if !vars.is_empty() {
                // Slot-dependent values are at least per column (the slot's neighbour is).
                section = section.max(Section::Column);
            }
            self.vars.push(vars);
            self.sections.push(section);
        }
        if let Some(scan) = &self.stage.scan {
            for c in &scan.carry {
                if self.sections[c.init as usize] == Section::Level {
                    return Err("a scan's initial carry depends on the level".into());
                }
            }
        }
        Ok(())
    }
}

//! What a backend fills in of the walk over a stage, and the walk itself (its provided
//! methods).

use std::collections::BTreeMap;

use gt4rs_ir::fieldview::{BinaryOp, MathFun, ReduceOp, UnaryOp};
use gt4rs_ir::stage::{AccessPath, CarryComponent, Node, NodeId, Slot, Source, Step};
use gt4rs_ir::{CmpOp, ScalarType, ScalarValue};

use gt4rs_ir::failure::Failure;

use super::{Bind, Division, FieldInfo, PointNames, Section, StageWalk};

/// What a backend fills in of the walk: the spelling of values and statements, where they go,
/// and what is checked how. `Code` is a fragment of the backend's language.
pub(crate) trait Spelling<'a> {
    type Code: Clone;

    fn walk(&self) -> &StageWalk<'a>;
    fn walk_mut(&mut self) -> &mut StageWalk<'a>;

    /// A name (an instance, a position, a table entry) as code.
    fn name(&self, name: &str) -> Self::Code;
    /// Instance (`id`, `bind`) as read by code in section `from`.
    fn reference(&mut self, id: NodeId, bind: &Bind, from: Section) -> Self::Code {
        let _ = from;
        let name = self.walk().instance_name(id, bind);
        self.name(&name)
    }
    /// Whether the code needs node `id` at all; the walk emits only those. The CPU kernels
    /// compute their domain bounds from the stage's nodes, so every node is needed there.
    fn needed(&self, id: NodeId) -> bool {
        let _ = id;
        true
    }
    /// An instance is about to be emitted into `section`.
    fn begin_instance(&mut self, name: &str, section: Section) {
        let _ = (name, section);
    }
    /// Defines instance `name` of type `dtype` as `value`, in `section`.
    fn define(&mut self, section: Section, name: &str, dtype: ScalarType, value: Self::Code);

    fn value(&self, value: ScalarValue) -> Self::Code;
    /// Scalar program parameter `param`.
    fn scalar(&mut self, param: u32) -> Self::Code;
    /// Component `index` of the scan's carry.
    fn carry(&self, index: u32) -> Self::Code;
    fn unary(&self, op: UnaryOp, dtype: ScalarType, a: Self::Code) -> Self::Code;
    /// `a op b` for every operation but an integer division.
    fn binary(&self, op: BinaryOp, dtype: ScalarType, a: Self::Code, b: Self::Code) -> Self::Code;
    fn compare(&self, op: CmpOp, a: Self::Code, b: Self::Code) -> Self::Code;
    /// `fun` of `args` (of types `types`) for every function but an integer division.
    fn math(
        &self,
        fun: MathFun,
        types: &[ScalarType],
        args: &[Self::Code],
    ) -> Result<Self::Code, String>;
    fn cast(&self, a: Self::Code, from: ScalarType, to: ScalarType) -> Self::Code;
    fn select(&self, cond: Self::Code, if_true: Self::Code, if_false: Self::Code) -> Self::Code;
    /// The greater (`max`) or lesser of `a` and `b`.
    fn min_max(&self, max: bool, dtype: ScalarType, a: Self::Code, b: Self::Code) -> Self::Code;
    /// `a` divided by `b`, a zero `b` reported as a failure in `section`.
    fn division(
        &mut self,
        section: Section,
        division: Division,
        dtype: ScalarType,
        a: Self::Code,
        b: Self::Code,
    ) -> Self::Code;

    /// `position + offset`.
    fn shift(&self, position: Self::Code, offset: i64) -> Self::Code;
    /// `position + by` (an integer instance).
    fn shift_by(&self, position: Self::Code, by: Self::Code) -> Self::Code;
    /// `row = index`, clamped into the rows of `table` (`guarded`) or checked against them
    /// (`failure`, with the row and the table's rows).
    fn neighbour_row(
        &mut self,
        section: Section,
        row: &str,
        index: Self::Code,
        table: usize,
        guarded: bool,
        failure: Failure,
    );
    /// `entry = ` the table entry `at` reads.
    fn neighbour_entry(&mut self, section: Section, entry: &str, at: TableEntry<'_>);
    /// An entry of -1 replaced by `safe`: a masked-out slot or a point outside a taken branch
    /// reads some valid point and discards the value.
    fn replace_missing(&mut self, section: Section, entry: &str, safe: Self::Code);
    /// An entry of -1 reported as `failure` (with the row).
    fn check_missing(&mut self, section: Section, entry: &str, row: &str, failure: Failure);
    /// The first index of `field` along its dimension `dim`.
    fn field_origin(&self, field: Source, dim: usize) -> Self::Code;
    /// The number of rows of `table`.
    fn table_rows(&self, table: usize) -> Self::Code;
    /// Flag `flag` (defined in section `defined`) as read by code in section `from`.
    fn flag_ref(&mut self, flag: &str, defined: Section, from: Section) -> Self::Code {
        let _ = (defined, from);
        self.name(flag)
    }
    /// Reports `failure` (no values) where `cond` holds, in `section`, at `point` (a point
    /// code in `section` knows, with the slot of a sparse output).
    fn report_if(
        &mut self,
        section: Section,
        cond: Self::Code,
        failure: Failure,
        point: PointNames,
    );

    /// `ok = ` the table entry `at` reads is not -1, for a reduction whose row is known in
    /// `center` and whose value is computed in `section`.
    fn slot_present(&mut self, center: Section, section: Section, ok: &str, at: TableEntry<'_>);
    /// `acc = ok ? step : previous`, in `section`; returns `acc`.
    fn accumulate(
        &mut self,
        section: Section,
        acc: &str,
        dtype: ScalarType,
        ok: &str,
        step: Self::Code,
        previous: Self::Code,
    ) -> Self::Code;

    /// Emits load `id` as instance `name`: the value to define it with, or `None` when the
    /// backend defined it itself.
    fn load(&mut self, id: NodeId, bind: &Bind, name: &str) -> Result<Option<Self::Code>, String>;

    /// Emits every instance outside a reduction body, in arena order (a reduction emits its
    /// body's instances slot by slot).
    fn emit_all(&mut self) -> Result<(), String> {
        for id in 0..self.walk().stage.nodes.len() as NodeId {
            if self.walk().vars[id as usize].is_empty() {
                self.emit_instance(id, &Bind::new())?;
            }
        }
        Ok(())
    }

    /// Emits instance (`id`, `bind`) once and, for a reduction, its unrolled body.
    fn emit_instance(&mut self, id: NodeId, bind: &Bind) -> Result<(), String> {
        if !self.needed(id) {
            return Ok(());
        }
        let name = self.walk().instance_name(id, bind);
        if !self.walk_mut().emitted.insert(name.clone()) {
            return Ok(());
        }
        let section = self.walk().sections[id as usize];
        self.begin_instance(&name, section);
        let node = self.walk().node(id);
        let dtype = node.dtype();
        let value = match node {
            Node::Load { .. } => match self.load(id, bind, &name)? {
                Some(value) => value,
                None => return Ok(()),
            },
            Node::Index { dim, path } => {
                let path = if self.walk().is_vertical(dim) {
                    path.without_neighbor_steps()
                } else {
                    path.clone()
                };
                let mut pos =
                    self.resolve_path(&name, &path, bind, section, false, None, &mut Vec::new())?;
                pos.remove(dim).ok_or("index of a missing dimension")?
            }
            Node::Scalar { param, .. } => self.scalar(*param),
            Node::Literal { value, dtype } => self.value(ScalarValue::from_literal(*value, *dtype)),
            Node::Unary { op, arg, dtype } => {
                let a = self.reference(*arg, bind, section);
                self.unary(*op, *dtype, a)
            }
            Node::Binary {
                op,
                lhs,
                rhs,
                dtype,
            } => {
                let a = self.reference(*lhs, bind, section);
                let b = self.reference(*rhs, bind, section);
                match Division::of_binary(*op, *dtype) {
                    Some(division) => self.division(section, division, *dtype, a, b),
                    None => self.binary(*op, *dtype, a, b),
                }
            }
            Node::Compare { op, lhs, rhs } => {
                let a = self.reference(*lhs, bind, section);
                let b = self.reference(*rhs, bind, section);
                self.compare(*op, a, b)
            }
            Node::Math { fun, args, .. } => {
                let types: Vec<ScalarType> =
                    args.iter().map(|a| self.walk().node(*a).dtype()).collect();
                let refs: Vec<Self::Code> = args
                    .iter()
                    .map(|a| self.reference(*a, bind, section))
                    .collect();
                let operand = types.first().copied().unwrap_or(dtype);
                match (Division::of_math(*fun, operand), refs.as_slice()) {
                    (Some(division), [a, b]) => {
                        self.division(section, division, operand, a.clone(), b.clone())
                    }
                    _ => self.math(*fun, &types, &refs)?,
                }
            }
            Node::Cast { arg, to } => {
                let from = self.walk().node(*arg).dtype();
                let a = self.reference(*arg, bind, section);
                self.cast(a, from, *to)
            }
            Node::Select {
                cond,
                if_true,
                if_false,
                ..
            } => {
                let c = self.reference(*cond, bind, section);
                let t = self.reference(*if_true, bind, section);
                let f = self.reference(*if_false, bind, section);
                self.select(c, t, f)
            }
            Node::Carry { index, .. } => self.carry(*index),
            Node::Undefined { value } => match self.undefined_flag(*value, bind, section) {
                Some(flag) => flag,
                None => self.value(ScalarValue::Bool(false)),
            },
            Node::Reduce {
                op,
                offset,
                center,
                var,
                body,
                value,
                dtype,
            } => self.reduction(
                &name,
                section,
                bind,
                Reduction {
                    op: *op,
                    offset,
                    center,
                    var: *var,
                    body,
                    value: *value,
                    dtype: *dtype,
                },
            )?,
        };
        self.define(section, &name, dtype, value);
        self.propagate_undefined(id, bind, &name, section);
        Ok(())
    }

    /// The flag of instance (`id`, `bind`) as read in section `from`: `None` where its value
    /// is always defined.
    fn undefined_flag(&mut self, id: NodeId, bind: &Bind, from: Section) -> Option<Self::Code> {
        let name = self.walk().instance_name(id, bind);
        let (flag, defined) = self.walk().undefined.get(&name).cloned()?;
        Some(self.flag_ref(&flag, defined, from))
    }

    /// The disjunction of `conditions` (at least one).
    fn any_of(&self, conditions: Vec<Self::Code>) -> Self::Code {
        let mut conditions = conditions.into_iter();
        let first = conditions
            .next()
            .unwrap_or_else(|| self.value(ScalarValue::Bool(false)));
        conditions.fold(first, |acc, c| {
            self.binary(BinaryOp::BitOr, ScalarType::Bool, acc, c)
        })
    }

    /// Defines `name`'s flag as the disjunction of `conditions` in `section`, when there are
    /// any.
    fn define_flag(&mut self, name: &str, section: Section, conditions: Vec<Self::Code>) {
        if conditions.is_empty() {
            return;
        }
        let any = self.any_of(conditions);
        let flag = format!("{name}_undef");
        self.define(section, &flag, ScalarType::Bool, any);
        self.walk_mut()
            .undefined
            .insert(name.to_string(), (flag, section));
    }

    /// The flag of a value computed from others: undefined where an operand it uses is (a
    /// select uses the branch it takes); a load's flag is set by the load, a reduction's by
    /// the reduction.
    fn propagate_undefined(&mut self, id: NodeId, bind: &Bind, name: &str, section: Section) {
        let node = self.walk().node(id);
        let conditions = match node {
            Node::Select {
                cond,
                if_true,
                if_false,
                ..
            } => {
                let (cond, if_true, if_false) = (*cond, *if_true, *if_false);
                let t = self.undefined_flag(if_true, bind, section);
                let f = self.undefined_flag(if_false, bind, section);
                let mut conditions: Vec<Self::Code> = self
                    .undefined_flag(cond, bind, section)
                    .into_iter()
                    .collect();
                if t.is_some() || f.is_some() {
                    let no = self.value(ScalarValue::Bool(false));
                    let c = self.reference(cond, bind, section);
                    let (t, f) = (t.unwrap_or_else(|| no.clone()), f.unwrap_or(no));
                    conditions.push(self.select(c, t, f));
                }
                conditions
            }
            Node::Unary { .. }
            | Node::Binary { .. }
            | Node::Compare { .. }
            | Node::Math { .. }
            | Node::Cast { .. } => node
                .children()
                .into_iter()
                .filter_map(|c| self.undefined_flag(c, bind, section))
                .collect(),
            // The carry is undefined after a level whose next carry was (its flag is carried
            // along the column with it).
            Node::Carry { index, .. } => {
                let flag = carry_flag(*index);
                vec![self.flag_ref(&flag, Section::Level, section)]
            }
            _ => Vec::new(),
        };
        self.define_flag(name, section, conditions);
    }

    /// The flags of a scan's carry component before its first level (`init`'s) and after a
    /// level (`next`'s, or `init`'s outside the active region, as the carry itself), as read
    /// in the vertical loop.
    fn carry_flags(&mut self, carry: &CarryComponent) -> (Self::Code, Self::Code) {
        let no = self.value(ScalarValue::Bool(false));
        let none = Bind::new();
        let init = self
            .undefined_flag(carry.init, &none, Section::Level)
            .unwrap_or_else(|| no.clone());
        let next = self
            .undefined_flag(carry.next, &none, Section::Level)
            .unwrap_or(no);
        let after = match carry.active {
            Some(active) => {
                let active = self.reference(active, &none, Section::Level);
                self.select(active, next, init.clone())
            }
            None => next,
        };
        (init, after)
    }

    /// Reports the values a stage writes into its outputs where they are undefined: the one
    /// use of an undefined value that is an error. A temporary is computed over the reach of
    /// its readers, which may hold points no reader takes, so it is not checked here (its
    /// readers do not see where it was undefined).
    fn report_undefined_writes(&mut self) -> Result<(), String> {
        let stage = self.walk().stage;
        for output in stage
            .outputs
            .iter()
            .filter(|o| matches!(o.target, Source::Param(_)))
        {
            let name = self.walk().instance_name(output.value, &Bind::new());
            let Some((flag, section)) = self.walk().undefined.get(&name).cloned() else {
                continue;
            };
            let cond = self.flag_ref(&flag, section, section);
            let failure = Failure::Undefined {
                field: self.walk().field_name(output.target),
            };
            // Not before the loop: the uniform section knows no point.
            let point = self
                .walk()
                .write_point(section.max(Section::Column), output)?;
            self.report_if(section, cond, failure, point);
        }
        Ok(())
    }

    /// A reduction unrolled over its neighbour count: per slot, whether the neighbour exists,
    /// the body's instances with the slot bound, and the accumulated value.
    fn reduction(
        &mut self,
        name: &str,
        section: Section,
        bind: &Bind,
        r: Reduction<'_>,
    ) -> Result<Self::Code, String> {
        let info = self.walk().offset(r.offset)?;
        let t = self.walk_mut().use_table(r.offset)?;
        let center_section = self.walk().center_section(r.center, &info.from)?;
        let mut center_pos = self.resolve_path(
            &format!("{name}_c"),
            r.center,
            bind,
            center_section,
            false,
            None,
            &mut Vec::new(),
        )?;
        let row_index = center_pos
            .remove(&info.from)
            .ok_or("reduction at a point without its dimension")?;
        let row = format!("{name}_row");
        let failure = Failure::RowOutside {
            offset: r.offset.to_string(),
            from: info.from.clone(),
        };
        self.neighbour_row(center_section, &row, row_index, t, false, failure);
        let mut slot_flags = Vec::new();
        let mut acc = self.value(match r.op {
            ReduceOp::Sum => ScalarValue::zero(r.dtype),
            ReduceOp::Max => ScalarValue::lowest(r.dtype),
            ReduceOp::Min => ScalarValue::highest(r.dtype),
        });
        for j in 0..info.count {
            let mut inner = bind.clone();
            inner.insert(r.var, j);
            let ok = format!("{name}_ok{j}");
            let at = TableEntry {
                table: t,
                row: &row,
                count: info.count,
                slot: j,
            };
            self.slot_present(center_section, section, &ok, at);
            for b in r.body {
                let deeper = self.walk().vars[*b as usize]
                    .iter()
                    .any(|v| !inner.contains_key(v));
                if !deeper {
                    self.emit_instance(*b, &inner)?;
                }
            }
            let v = self.reference(r.value, &inner, section);
            let step = match r.op {
                ReduceOp::Sum => self.binary(BinaryOp::Add, r.dtype, acc.clone(), v),
                ReduceOp::Max => self.min_max(true, r.dtype, acc.clone(), v),
                ReduceOp::Min => self.min_max(false, r.dtype, acc.clone(), v),
            };
            acc = self.accumulate(section, &format!("{name}_acc{j}"), r.dtype, &ok, step, acc);
            // A present slot's undefined value makes the reduction undefined; a missing one's
            // is discarded.
            if let Some(flag) = self.undefined_flag(r.value, &inner, section) {
                let no = self.value(ScalarValue::Bool(false));
                let present = self.flag_ref(&ok, center_section, section);
                slot_flags.push(self.select(present, flag, no));
            }
        }
        self.define_flag(name, section, slot_flags);
        Ok(acc)
    }

    /// Statements (into `section`) that resolve `path` from the stage's point; the position
    /// per dimension. `safe_field` is the field a load reads (a -1 entry of a masked slot or a
    /// guarded read then stands for its origin). A guarded path's clamped rows and replaced
    /// entries are recorded in `undefined` (conditions that hold where the position is not a
    /// point of the path).
    #[allow(clippy::too_many_arguments)]
    fn resolve_path(
        &mut self,
        name: &str,
        path: &AccessPath,
        bind: &Bind,
        section: Section,
        guarded: bool,
        safe_field: Option<(Source, &FieldInfo)>,
        undefined: &mut Vec<Self::Code>,
    ) -> Result<BTreeMap<String, Self::Code>, String> {
        let mut pos: BTreeMap<String, Self::Code> = BTreeMap::new();
        let outer = self.walk().outer.clone();
        for (j, (_, d)) in outer.iter().enumerate() {
            pos.insert(d.clone(), self.name(&format!("i{j}")));
        }
        if let Some((_, d)) = &self.walk().vertical {
            pos.insert(d.clone(), self.name("k"));
        }
        for (n, step) in path.steps.iter().enumerate() {
            match step {
                Step::Cartesian { dim, offset } => {
                    let p = pos.remove(dim).ok_or("shift along a missing dimension")?;
                    pos.insert(dim.clone(), self.shift(p, *offset));
                }
                Step::Dynamic { dim, offset } => {
                    let by = self.reference(*offset, bind, section);
                    let p = pos.remove(dim).ok_or("shift along a missing dimension")?;
                    pos.insert(dim.clone(), self.shift_by(p, by));
                }
                Step::Neighbor { offset, slot } => {
                    let info = self.walk().offset(offset)?;
                    let t = self.walk_mut().use_table(offset)?;
                    let index = pos
                        .remove(&info.from)
                        .ok_or("neighbour shift from a missing dimension")?;
                    let row = format!("{name}_r{n}");
                    let entry = format!("{name}_e{n}");
                    let slot_value = StageWalk::slot(*slot, bind);
                    let row_outside = Failure::RowOutside {
                        offset: offset.clone(),
                        from: info.from.clone(),
                    };
                    if guarded {
                        let zero = self.value(ScalarValue::I64(0));
                        let rows = self.table_rows(t);
                        let below = self.compare(CmpOp::Lt, index.clone(), zero);
                        let above = self.compare(CmpOp::Ge, index.clone(), rows);
                        let outside = self.binary(BinaryOp::BitOr, ScalarType::Bool, below, above);
                        let flag = format!("{row}_out");
                        self.define(section, &flag, ScalarType::Bool, outside);
                        undefined.push(self.name(&flag));
                    }
                    self.neighbour_row(section, &row, index, t, guarded, row_outside);
                    let at = TableEntry {
                        table: t,
                        row: &row,
                        count: info.count,
                        slot: slot_value,
                    };
                    self.neighbour_entry(section, &entry, at);
                    if guarded && matches!(slot, Slot::Fixed(_)) {
                        // A fixed slot is not masked by a reduction: its -1 makes the value
                        // undefined.
                        let zero = self.value(ScalarValue::I64(0));
                        let missing = self.compare(CmpOp::Lt, self.name(&entry), zero);
                        let flag = format!("{entry}_missing");
                        self.define(section, &flag, ScalarType::Bool, missing);
                        undefined.push(self.name(&flag));
                    }
                    if matches!(slot, Slot::Var(_)) || guarded {
                        let safe = match safe_field {
                            Some((p, f)) => match f.dims.iter().position(|d| d == &info.to) {
                                Some(dpos) => self.field_origin(p, dpos),
                                None => self.value(ScalarValue::I64(0)),
                            },
                            None => self.value(ScalarValue::I64(0)),
                        };
                        self.replace_missing(section, &entry, safe);
                    } else {
                        let missing = Failure::MissingNeighbour {
                            offset: offset.clone(),
                            from: info.from.clone(),
                            slot: slot_value,
                        };
                        self.check_missing(section, &entry, &row, missing);
                    }
                    pos.insert(info.to.clone(), self.name(&entry));
                }
            }
        }
        Ok(pos)
    }
}

/// The name of the flag of carry component `index`.
pub(crate) fn carry_flag(index: u32) -> String {
    format!("c{index}_undef")
}

/// One entry of a neighbour table: `table[row * count + slot]` (tables are row-major, `count`
/// entries a row).
#[derive(Clone, Copy)]
pub(crate) struct TableEntry<'s> {
    /// The table's position among the bound ones.
    pub table: usize,
    /// The name of the row's index.
    pub row: &'s str,
    pub count: u32,
    pub slot: u32,
}

/// The parts of a [`Node::Reduce`] the walk unrolls.
pub(crate) struct Reduction<'n> {
    pub op: ReduceOp,
    pub offset: &'n str,
    pub center: &'n AccessPath,
    pub var: u32,
    pub body: &'n [NodeId],
    pub value: NodeId,
    pub dtype: ScalarType,
}

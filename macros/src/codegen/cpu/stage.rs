//! One stage → one checked, fused loop nest.
//!
//! The stage is walked as the CUDA emitter walks it (`codegen::stage_walk`): every node
//! instance becomes one `let`, placed in the outermost section it can live in: the stage
//! prologue (uniform: program scalars, literals, bounds), the per-column section (depends on
//! the horizontal point only) or the vertical loop. Reductions are unrolled over their static
//! neighbour count; a slot whose entry is -1 reads a safe point and is masked out. How loads
//! reach memory is in [`load`], the loop nest around the sections in [`nest`] (with
//! [`domain`], [`checks`] and [`fast_path`]).

mod checks;
mod domain;
mod fast_path;
mod interleave;
mod load;
mod nest;
mod scope;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use gt4rs_ir::carried::carried_shifts;
use gt4rs_ir::failure::Failure;
use gt4rs_ir::fieldview::{BinaryOp, MathFun, Program, UnaryOp};
use gt4rs_ir::stage::{NodeId, Source, Stage, StageProgram};
use gt4rs_ir::{CmpOp, ScalarType, ScalarValue};

use super::failure;
use super::ops;
use super::rust_type;
use crate::codegen::stage_walk::{
    prefix, Bind, Division, PointNames, Section, Spelling, StageWalk, TableEntry,
};
use load::LoadKind;

/// How many columns a scan walks side by side ([`interleave::COLUMNS`]).
#[cfg(test)]
pub fn interleave_width() -> usize {
    interleave::COLUMNS
}

/// The stage as an expression: evaluating it computes the stage's bounds and makes its checks
/// (returning the error of a failed one from the program's function), and its value is the
/// closure that runs the stage's loop.
pub(super) fn emit(
    program: &Program,
    lowered: &StageProgram,
    used_offsets: &[String],
    index: usize,
    stage: &Stage,
) -> Result<TokenStream, String> {
    let walk = StageWalk::new(program, lowered, used_offsets, index, stage)?;
    // A scan whose levels compute values the level before computed at its own point carries
    // them: its first level runs one copy of the stage, the levels after it another.
    let Some(split) = carried_shifts(stage, |n| walk.sections[n as usize] == Section::Level) else {
        return emitted(walk, None)?.loop_nest(None);
    };
    let walk_of = |stage| StageWalk::new(program, lowered, used_offsets, index, stage);
    let mut first = emitted(walk_of(&split.first)?, None)?;
    let mut rest = emitted(walk_of(&split.rest)?, Some(split.rest_needs))?;
    first.loop_nest(Some(&mut rest))
}

/// Every instance of `walk`'s stage emitted into its section (only the nodes `needs` marks,
/// where given), and its undefined writes reported.
fn emitted(walk: StageWalk<'_>, needs: Option<Vec<bool>>) -> Result<StageEmitter<'_>, String> {
    let mut e = StageEmitter::new(walk)?;
    e.needs = needs;
    e.emit_all()?;
    e.report_undefined_writes()?;
    Ok(e)
}

struct StageEmitter<'a> {
    walk: StageWalk<'a>,
    /// Per node: how it reaches memory, for loads.
    load_kinds: Vec<Option<LoadKind>>,
    uniform: Vec<TokenStream>,
    column: Vec<TokenStream>,
    /// Statements of the vertical loop, each with how the fast path spells it.
    level: Vec<LevelStatement>,
    /// Some statement of the vertical loop may report an error (and leave the point) other
    /// than an undefined write, which the fast path detects without leaving its loop.
    level_can_fail: bool,
    /// Some statement of the vertical loop leaves the point on a failure after which the
    /// level's code must not run on (a read outside a field): every exit but an undefined
    /// write's, whose value is computed whatever it is.
    level_must_stop: bool,
    /// Column reads, which the fast path turns into slice reads.
    columns: Vec<ColumnRead>,
    /// Reads at a level that depends on the level, which the fast path reads from a slice of
    /// the whole column.
    dynamic_columns: Vec<DynamicColumnRead>,
    /// Values computed outside the vertical loop that the vertical loop reads.
    level_inputs: BTreeMap<String, ScalarType>,
    /// The flags among `level_inputs` with the value they have at almost every column: a
    /// neighbour present (`true`), nothing outside a field or undefined (`false`). The fast
    /// path has a copy of its loop with these values written in (see `fast_path`).
    level_flags: BTreeMap<String, bool>,
    level_names: HashSet<String>,
    read_fields: BTreeSet<Source>,
    /// Per node, whether it is computed; `None`: every node is (see `gt4rs_ir::carried`).
    needs: Option<Vec<bool>>,
}

/// A statement of the vertical loop: `code` in the general loop, `fast` in the fast path's.
struct LevelStatement {
    code: TokenStream,
    fast: FastForm,
}

/// How the fast path spells a statement of the vertical loop.
enum FastForm {
    /// As the general loop does.
    Same,
    /// The read of column read `columns[i]`: an element of its slice.
    ColumnRead(usize),
    /// A report of an undefined value written (`cond` holds there): the fast path notes that
    /// one happened and the general loop, run again over the column, reports where.
    UndefinedWrite(TokenStream),
    /// A read at a level that depends on the level, spelt `code` in the fast path (through a
    /// slice of `dynamic_columns`). Where `reports`, the read is not in a branch and a level
    /// outside the field is an error: the fast path notes it as it notes an undefined write.
    DynamicRead { code: TokenStream, reports: bool },
}

/// A load reached through a column base pointer (`base + k * stride`).
#[derive(Clone)]
struct ColumnRead {
    /// The instance the load defines.
    name: syn::Ident,
    /// The base pointer of the column, at level 0 of the read (the shift included).
    base: syn::Ident,
    field: Source,
    /// For a temporary with a mask: the mask's instance and base pointer (the same column of
    /// the mask, which has the temporary's layout).
    mask: Option<(syn::Ident, syn::Ident)>,
    /// For a read in a branch: its static vertical shift and the flag set where `k + shift`
    /// is outside the field. The fast path takes a column only where its levels are all
    /// inside (checked per column), and the flag is then false.
    guard: Option<(i64, syn::Ident)>,
}

/// A read at a dynamic level through a column's base pointer (`LoadKind::DynamicColumn`): the
/// fast path passes the whole column as a slice, and the level of its first element.
struct DynamicColumnRead {
    /// The slice parameter and the first-level parameter of the fast path's function.
    slice: syn::Ident,
    first: syn::Ident,
    /// The base pointer of the column, at level 0.
    base: syn::Ident,
    field: Source,
    /// The position of the vertical dimension among the field's dimensions.
    vertical: usize,
    dtype: ScalarType,
}

fn ident(s: &str) -> syn::Ident {
    syn::Ident::new(s, Span::call_site())
}

/// The unchecked read of a table entry (the caller states why it is inside the table).
fn table_entry(at: TableEntry<'_>) -> TokenStream {
    let (row, table) = (ident(at.row), format_ident!("t{}", at.table));
    let (count, slot) = (at.count as usize, at.slot as usize);
    quote!(*#table.get_unchecked(#row as usize * #count + #slot))
}

impl<'a> StageEmitter<'a> {
    fn new(walk: StageWalk<'a>) -> Result<Self, String> {
        let (load_kinds, read_fields) = load::classify(&walk)?;
        Ok(StageEmitter {
            walk,
            load_kinds,
            uniform: Vec::new(),
            column: Vec::new(),
            level: Vec::new(),
            level_can_fail: false,
            level_must_stop: false,
            columns: Vec::new(),
            dynamic_columns: Vec::new(),
            level_inputs: BTreeMap::new(),
            level_flags: BTreeMap::new(),
            level_names: HashSet::new(),
            read_fields,
            needs: None,
        })
    }

    fn push(&mut self, section: Section, ts: TokenStream) {
        match section {
            Section::Uniform => self.uniform.push(ts),
            Section::Column => self.column.push(ts),
            Section::Level => self.level.push(LevelStatement {
                code: ts,
                fast: FastForm::Same,
            }),
        }
    }

    /// Code that reports `failure` (with `values`, at the point `section` knows) and leaves
    /// the point: the error slot keeps the first failure of the loop.
    fn fail(&mut self, section: Section, failure: &Failure, values: &[TokenStream]) -> TokenStream {
        if section == Section::Level {
            self.level_can_fail = true;
        }
        self.exit_with(section, failure, values)
    }

    /// As [`Self::fail`], for a failure the fast path detects without leaving its loop (it
    /// notes the failure and the general loop, run again, reports it).
    fn exit_with(
        &mut self,
        section: Section,
        failure: &Failure,
        values: &[TokenStream],
    ) -> TokenStream {
        if section == Section::Level {
            self.level_must_stop = true;
        }
        let point = self.walk.point(section);
        let error = failure::error(failure, values, &point);
        let key = failure::point_key(&point);
        quote! {{
            err.record(&#key, || #error);
            continue 'points;
        }}
    }
}

impl<'a> Spelling<'a> for StageEmitter<'a> {
    type Code = TokenStream;

    fn walk(&self) -> &StageWalk<'a> {
        &self.walk
    }
    fn walk_mut(&mut self) -> &mut StageWalk<'a> {
        &mut self.walk
    }

    fn name(&self, name: &str) -> TokenStream {
        let i = ident(name);
        quote!(#i)
    }

    fn needed(&self, id: NodeId) -> bool {
        self.needs
            .as_ref()
            .is_none_or(|needs| needs.get(id as usize).copied().unwrap_or(true))
    }

    /// Also records what the vertical loop reads from outside it (the fast path passes it in).
    fn reference(&mut self, id: NodeId, bind: &Bind, from: Section) -> TokenStream {
        let name = self.walk.instance_name(id, bind);
        if from == Section::Level && self.walk.sections[id as usize] != Section::Level {
            self.level_inputs
                .insert(name.clone(), self.walk.node(id).dtype());
        }
        self.name(&name)
    }

    fn begin_instance(&mut self, name: &str, section: Section) {
        if section == Section::Level {
            self.level_names.insert(name.to_string());
        }
    }

    fn define(&mut self, section: Section, name: &str, dtype: ScalarType, value: TokenStream) {
        let (name, ty) = (ident(name), rust_type(dtype));
        self.push(section, quote!(let #name: #ty = #value;));
    }

    fn value(&self, value: ScalarValue) -> TokenStream {
        ops::value(value)
    }
    fn scalar(&mut self, param: u32) -> TokenStream {
        self.name(&format!("s{param}"))
    }
    fn carry(&self, index: u32) -> TokenStream {
        self.name(&format!("c{index}"))
    }
    fn unary(&self, op: UnaryOp, dtype: ScalarType, a: TokenStream) -> TokenStream {
        ops::unary(op, dtype, a)
    }
    fn binary(
        &self,
        op: BinaryOp,
        dtype: ScalarType,
        a: TokenStream,
        b: TokenStream,
    ) -> TokenStream {
        ops::binary(op, dtype, a, b)
    }
    fn compare(&self, op: CmpOp, a: TokenStream, b: TokenStream) -> TokenStream {
        ops::compare(op, a, b)
    }
    fn math(
        &self,
        fun: MathFun,
        types: &[ScalarType],
        args: &[TokenStream],
    ) -> Result<TokenStream, String> {
        ops::math(fun, types, args)
    }
    fn cast(&self, a: TokenStream, from: ScalarType, to: ScalarType) -> TokenStream {
        ops::cast(a, from, to)
    }
    fn select(
        &self,
        cond: TokenStream,
        if_true: TokenStream,
        if_false: TokenStream,
    ) -> TokenStream {
        ops::select(cond, if_true, if_false)
    }
    fn min_max(&self, max: bool, _: ScalarType, a: TokenStream, b: TokenStream) -> TokenStream {
        ops::min_max(max, a, b)
    }

    /// A zero divisor is reported inside the point loop through the error slot, and in the
    /// uniform section (evaluated once, before the loop) by returning the error.
    fn division(
        &mut self,
        section: Section,
        division: Division,
        _: ScalarType,
        a: TokenStream,
        b: TokenStream,
    ) -> TokenStream {
        let fail = if section == Section::Uniform {
            let error = failure::error(&Failure::DivisionByZero, &[], &Vec::new());
            quote!({ return Err(#error); })
        } else {
            self.fail(section, &Failure::DivisionByZero, &[])
        };
        let checked = ops::checked_division(division, a, b);
        quote!(match #checked { ::core::option::Option::Some(q) => q, ::core::option::Option::None => #fail })
    }

    /// Wrapping: a position is used only once checked against its field or table (or proven
    /// inside by a precondition, computed exactly), so no overflow can reach memory, and a
    /// debug build does not panic on an absurd shift.
    fn shift(&self, position: TokenStream, offset: i64) -> TokenStream {
        quote!((#position).wrapping_add(#offset))
    }
    fn shift_by(&self, position: TokenStream, by: TokenStream) -> TokenStream {
        quote!((#position).wrapping_add(#by as i64))
    }

    fn neighbour_row(
        &mut self,
        section: Section,
        row: &str,
        index: TokenStream,
        table: usize,
        guarded: bool,
        failure: Failure,
    ) {
        let row = ident(row);
        let rows = format_ident!("t{}_rows", table);
        if guarded {
            self.push(
                section,
                quote!(let #row: i64 = (#index).clamp(0, (#rows - 1).max(0));),
            );
            return;
        }
        let fail = self.fail(section, &failure, &[quote!(#row), quote!(#rows)]);
        self.push(
            section,
            quote! {
                let #row: i64 = #index;
                if #row < 0 || #row >= #rows #fail
            },
        );
    }

    fn neighbour_entry(&mut self, section: Section, entry: &str, at: TableEntry<'_>) {
        let entry = ident(entry);
        let read = table_entry(at);
        self.push(
            section,
            quote! {
                // SAFETY: `row` is in `0..rows` (checked or clamped above) and
                // `slot < count`, so the index is inside the row-major table.
                let #entry: i64 = unsafe { #read } as i64;
            },
        );
    }

    fn replace_missing(&mut self, section: Section, entry: &str, safe: TokenStream) {
        let entry = ident(entry);
        self.push(
            section,
            quote! {
                let #entry: i64 = if #entry < 0 { #safe } else { #entry };
            },
        );
    }

    fn check_missing(&mut self, section: Section, entry: &str, row: &str, failure: Failure) {
        let (entry, row) = (ident(entry), ident(row));
        let fail = self.fail(section, &failure, &[quote!(#row)]);
        self.push(section, quote!(if #entry < 0 #fail));
    }

    fn field_origin(&self, field: Source, dim: usize) -> TokenStream {
        let o = format_ident!("{}_o", prefix(field));
        quote!(#o[#dim])
    }

    fn table_rows(&self, table: usize) -> TokenStream {
        let rows = format_ident!("t{}_rows", table);
        quote!(#rows)
    }

    /// Also records what the vertical loop reads from outside it (the fast path passes it in).
    fn flag_ref(&mut self, flag: &str, defined: Section, from: Section) -> TokenStream {
        if from == Section::Level && defined != Section::Level {
            self.level_inputs.insert(flag.to_string(), ScalarType::Bool);
            // Every flag but a slot's presence (recorded by `slot_present`) says undefined.
            self.level_flags.entry(flag.to_string()).or_insert(false);
        }
        self.name(flag)
    }

    fn report_if(
        &mut self,
        section: Section,
        cond: TokenStream,
        failure: Failure,
        point: PointNames,
    ) {
        // The uniform section runs before the loop, where no point is known.
        let section = section.max(Section::Column);
        let error = failure::error(&failure, &[], &point);
        let key = failure::point_key(&point);
        if section == Section::Level {
            // Not `fail`: an undefined write leaves the fast path open (see `FastForm`).
            self.level.push(LevelStatement {
                code: quote!(if #cond {
                    err.record(&#key, || #error);
                    continue 'points;
                }),
                fast: FastForm::UndefinedWrite(cond),
            });
            return;
        }
        self.push(
            section,
            quote!(if #cond {
                err.record(&#key, || #error);
                continue 'points;
            }),
        );
    }

    fn slot_present(&mut self, center: Section, section: Section, ok: &str, at: TableEntry<'_>) {
        let ok_name = ident(ok);
        let read = table_entry(at);
        self.push(
            center,
            quote! {
                // SAFETY: `row` is in `0..rows` (checked above) and `slot < count`.
                let #ok_name: bool = unsafe { #read } >= 0;
            },
        );
        if section == Section::Level && center != Section::Level {
            self.level_inputs.insert(ok.to_string(), ScalarType::Bool);
            self.level_flags.insert(ok.to_string(), true);
        }
    }

    fn accumulate(
        &mut self,
        section: Section,
        acc: &str,
        dtype: ScalarType,
        ok: &str,
        step: TokenStream,
        previous: TokenStream,
    ) -> TokenStream {
        let (acc, ok, ty) = (ident(acc), ident(ok), rust_type(dtype));
        self.push(
            section,
            quote! {
                let #acc: #ty = if #ok { #step } else { #previous };
            },
        );
        quote!(#acc)
    }

    fn load(&mut self, id: NodeId, bind: &Bind, name: &str) -> Result<Option<TokenStream>, String> {
        self.emit_load(id, bind, name)?;
        Ok(None)
    }
}

//! A kernel's parameter struct: what its fields hold, in an order without padding.

use std::collections::BTreeSet;

use gt4rs_ir::kernel::{dtype_size, FieldRole, ParamType};
use gt4rs_ir::stage::Source;
use gt4rs_ir::{ScalarType, Type};

use super::KernelEmitter;
use crate::codegen::stage_walk::prefix;

impl KernelEmitter<'_> {
    /// The parameter struct's fields: pointers first, then 8-byte integers, then scalars by
    /// decreasing size, so the struct has no padding.
    pub(super) fn param_fields(
        &self,
        outputs: &[Source],
    ) -> Result<Vec<(String, ParamType, FieldRole)>, String> {
        let mut out = Vec::new();
        let mut push = |name: String, ty: ParamType, role: FieldRole| out.push((name, ty, role));
        let mut fields: BTreeSet<Source> = self.fields_used.clone();
        fields.extend(outputs.iter().copied());
        for f in &fields {
            let dtype = self.walk.field(*f)?.dtype;
            let ty = if outputs.contains(f) {
                ParamType::MutPtr(dtype)
            } else {
                ParamType::ConstPtr(dtype)
            };
            push(prefix(*f), ty, FieldRole::Data { field: *f });
        }
        for t in &self.walk.tables_used {
            push(
                format!("t{t}"),
                ParamType::Table,
                FieldRole::Table { index: *t },
            );
        }
        push("error".into(), ParamType::ErrorSlot, FieldRole::Error);
        let i64t = ParamType::Scalar(ScalarType::I64);
        for f in &fields {
            let pf = prefix(*f);
            for dim in 0..self.walk.field(*f)?.dims.len() {
                push(
                    format!("{pf}_o{dim}"),
                    i64t,
                    FieldRole::Origin { field: *f, dim },
                );
                push(
                    format!("{pf}_n{dim}"),
                    i64t,
                    FieldRole::Extent { field: *f, dim },
                );
                push(
                    format!("{pf}_s{dim}"),
                    i64t,
                    FieldRole::Stride { field: *f, dim },
                );
            }
        }
        for t in &self.walk.tables_used {
            push(
                format!("t{t}_rows"),
                i64t,
                FieldRole::TableRows { index: *t },
            );
        }
        for j in 0..self.walk.stage.domain.len() {
            push(
                format!("d{j}_lo"),
                i64t,
                FieldRole::Bound { dim: j, end: false },
            );
            push(
                format!("d{j}_hi"),
                i64t,
                FieldRole::Bound { dim: j, end: true },
            );
        }
        let mut scalars: Vec<(u32, ScalarType)> = Vec::new();
        for s in &self.scalars_used {
            match &self.walk.program.params[*s as usize].ty {
                Type::Scalar(t) => scalars.push((*s, *t)),
                _ => return Err("a scalar node of a field parameter".into()),
            }
        }
        scalars.sort_by_key(|(s, t)| (std::cmp::Reverse(dtype_size(*t)), *s));
        for (s, t) in scalars {
            push(
                format!("s{s}"),
                ParamType::Scalar(t),
                FieldRole::Scalar { param: s },
            );
        }
        Ok(out)
    }
}

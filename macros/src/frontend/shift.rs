//! Shifts (`f.at(O)`, `f.at(O[n])`, `f.at(D + n)`, `f.at(D + e)`) and local indices `x[O(n)]`.

use gt4rs_ir::fieldview::{Expr, ExprKind, UnaryOp};
use gt4rs_ir::{DimKind, OffsetInfo, ScalarType, Type};

use crate::definitions::Def;
use crate::frontend::expr::{int_literal, Checker};
use crate::frontend::types::{resolve_dim, resolve_offset};

pub fn single_path(e: &syn::Expr) -> Option<&syn::Path> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => Some(&p.path),
        syn::Expr::Paren(p) => single_path(&p.expr),
        syn::Expr::Group(g) => single_path(&g.expr),
        _ => None,
    }
}
impl Checker<'_> {
    pub fn shift(&mut self, recv: Expr, arg: &syn::Expr) -> Option<Expr> {
        match arg {
            syn::Expr::Tuple(t) => {
                let mut cur = Some(recv);
                for e in &t.elems {
                    cur = self.shift_one(cur?, e);
                }
                cur
            }
            syn::Expr::Paren(p) => self.shift(recv, &p.expr),
            other => self.shift_one(recv, other),
        }
    }

    fn shift_one(&mut self, recv: Expr, arg: &syn::Expr) -> Option<Expr> {
        let Type::Field { dims, dtype } = &recv.ty else {
            self.diag.error(
                arg,
                format!("only fields can be shifted, but this is `{}`", recv.ty),
            );
            return None;
        };
        let (dims, dtype) = (dims.clone(), *dtype);
        if let Some(path) = single_path(arg) {
            if let Some(Def::Dim(d)) = self.env.lookup(path) {
                self.diag.error(
                    arg,
                    format!(
                        "`{}` is a dimension: a Cartesian shift needs a distance, e.g. `{} + 1`",
                        d.name, d.name
                    ),
                );
                return None;
            }
            let o = self.offset(path)?;
            return self.neighbor_shift(recv, &dims, dtype, &o, None, arg);
        }
        match arg {
            syn::Expr::Index(ix) => {
                let Some(path) = single_path(&ix.expr) else {
                    self.diag.error(arg, "expected a neighbour slot `O[n]`");
                    return None;
                };
                let o = self.offset(path)?;
                let slot = self.slot(&ix.index, &o)?;
                self.neighbor_shift(recv, &dims, dtype, &o, Some(slot), arg)
            }
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_) | syn::BinOp::Sub(_)) => {
                let Some(path) = single_path(&b.left) else {
                    self.diag.error(&b.left, "expected a dimension: `D + n`");
                    return None;
                };
                let d = match resolve_dim(self.env, path) {
                    Ok(d) => d,
                    Err(e) => {
                        self.diag.push(e);
                        return None;
                    }
                };
                if d.kind == DimKind::Local {
                    self.diag.error(
                        path,
                        format!(
                            "`{}` is a neighbour offset: shift with `.at({})` or `.at({}[n])`",
                            d.name, d.name, d.name
                        ),
                    );
                    return None;
                }
                if !dims.contains(&d.name) {
                    self.diag.error(
                        path,
                        format!("cannot shift along `{}`: the field has no such dimension (its type is `{}`)", d.name, recv.ty),
                    );
                    return None;
                }
                let negative = matches!(b.op, syn::BinOp::Sub(_));
                if let Some(n) = int_literal(&b.right) {
                    let n = match n {
                        Ok(n) => n,
                        Err(e) => {
                            self.diag.push(e);
                            return None;
                        }
                    };
                    let offset = if negative { -n } else { n };
                    return Some(Expr::new(
                        recv.ty.clone(),
                        ExprKind::CartesianShift {
                            arg: Box::new(recv),
                            dim: d.name,
                            offset,
                        },
                    ));
                }
                let off = self.expr(&b.right, Some(&Type::Scalar(ScalarType::I32)))?;
                if !off.ty.dtype().is_some_and(|t| t.is_int()) {
                    self.diag.error(
                        &b.right,
                        format!(
                            "a shift distance is an integer field or scalar, but this is `{}`",
                            off.ty
                        ),
                    );
                    return None;
                }
                let out_dims = self.promote(&b.right, &dims, off.ty.dims()?)?;
                let off = if negative {
                    Expr::new(
                        off.ty.clone(),
                        ExprKind::Unary {
                            op: UnaryOp::Neg,
                            arg: Box::new(off),
                        },
                    )
                } else {
                    off
                };
                Some(Expr::new(
                    Type::Field {
                        dims: out_dims,
                        dtype,
                    },
                    ExprKind::DynamicShift {
                        arg: Box::new(recv),
                        dim: d.name,
                        offset: Box::new(off),
                    },
                ))
            }
            other => {
                self.diag.error(
                    other,
                    "expected a shift: `O` (all neighbours), `O[n]` (one neighbour), `D + n`, `D - n` or a tuple of these",
                );
                None
            }
        }
    }

    pub fn offset(&mut self, path: &syn::Path) -> Option<OffsetInfo> {
        match resolve_offset(self.env, path) {
            Ok(o) => Some(o),
            Err(e) => {
                self.diag.push(e);
                None
            }
        }
    }

    /// A neighbour slot: an integer literal below the offset's count.
    fn slot(&mut self, e: &syn::Expr, o: &OffsetInfo) -> Option<u32> {
        match int_literal(e) {
            Some(Ok(n)) if n >= 0 && n < o.count as i64 => Some(n as u32),
            Some(Ok(n)) => {
                self.diag.error(
                    e,
                    format!(
                        "neighbour slot {n} is out of range: `{}` has {} neighbours (slots 0..{})",
                        o.name, o.count, o.count
                    ),
                );
                None
            }
            Some(Err(err)) => {
                self.diag.push(err);
                None
            }
            None => {
                self.diag.error(e, "a neighbour slot is an integer literal");
                None
            }
        }
    }

    fn neighbor_shift(
        &mut self,
        recv: Expr,
        dims: &[String],
        dtype: ScalarType,
        o: &OffsetInfo,
        slot: Option<u32>,
        at: &syn::Expr,
    ) -> Option<Expr> {
        if !dims.contains(&o.to) {
            self.diag.error(
                at,
                format!(
                    "cannot shift by `{}` ({} => {}): the field has no dimension `{}` (its type is `{}`)",
                    o.name, o.from, o.to, o.to, recv.ty
                ),
            );
            return None;
        }
        if slot.is_none() {
            if let Some(local) = dims.iter().find(|d| self.table.is_local(d)) {
                self.diag.error(
                    at,
                    format!(
                        "cannot take all neighbours of a field that already has the local dimension `{local}`"
                    ),
                );
                return None;
            }
        }
        let mut out: Vec<String> = dims
            .iter()
            .map(|d| {
                if *d == o.to {
                    o.from.clone()
                } else {
                    d.clone()
                }
            })
            .collect();
        if slot.is_none() {
            out.push(o.name.clone());
        }
        let out = self.table.order(&out);
        Some(Expr::new(
            Type::Field { dims: out, dtype },
            ExprKind::NeighborShift {
                arg: Box::new(recv),
                offset: o.name.clone(),
                slot,
            },
        ))
    }

    /// `x[O(n)]`
    pub fn local_index(&mut self, i: &syn::ExprIndex) -> Option<Expr> {
        let arg = self.expr(&i.expr, None);
        let syn::Expr::Call(c) = &*i.index else {
            self.diag.error(
                &i.index,
                "indexing picks one neighbour: `x[O(n)]` with `O` a neighbour offset (index tuples with `.0`)",
            );
            return None;
        };
        let (Some(path), 1) = (single_path(&c.func), c.args.len()) else {
            self.diag
                .error(&i.index, "expected a neighbour slot `O(n)`");
            return None;
        };
        let o = self.offset(path)?;
        let slot = self.slot(&c.args[0], &o)?;
        let arg = arg?;
        let Type::Field { dims, dtype } = &arg.ty else {
            self.diag.error(
                &i.expr,
                format!(
                    "only fields with a local dimension can be indexed, but this is `{}`",
                    arg.ty
                ),
            );
            return None;
        };
        if !dims.contains(&o.name) {
            self.diag.error(
                &i.expr,
                format!(
                    "this field has no local dimension `{}` (its type is `{}`)",
                    o.name, arg.ty
                ),
            );
            return None;
        }
        let ty = Type::Field {
            dims: dims.iter().filter(|d| **d != o.name).cloned().collect(),
            dtype: *dtype,
        };
        Some(Expr::new(
            ty,
            ExprKind::LocalIndex {
                arg: Box::new(arg),
                local: o.name,
                slot,
            },
        ))
    }
}

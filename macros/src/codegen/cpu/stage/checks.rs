//! What the CPU kernels check once, before their loop: the domain lies inside every output,
//! read fields hold what is read of them, and reads with static shifts stay inside their
//! fields over the whole domain.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use gt4rs_ir::stage::{Node, Source};

use super::StageEmitter;
use crate::codegen::stage_walk::{prefix, FieldInfo};

impl StageEmitter<'_> {
    /// The domain lies inside every output.
    pub(super) fn output_checks(
        &self,
        outputs: &[(Source, FieldInfo)],
    ) -> Result<Vec<TokenStream>, String> {
        let index = self.walk.index;
        let program_name = self.walk.program.name.clone();
        let mut checks = Vec::new();
        for (p, f) in outputs {
            for (j, r) in self.walk.stage.domain.iter().enumerate() {
                let dpos = f
                    .dims
                    .iter()
                    .position(|d| d == &r.dim)
                    .ok_or("output without a domain dimension")?;
                let lo = format_ident!("d{}_lo", j);
                let hi = format_ident!("d{}_hi", j);
                let o = format_ident!("{}_o", prefix(*p));
                let n = format_ident!("{}_n", prefix(*p));
                let fname = &f.name;
                let dim = &r.dim;
                checks.push(quote! {
                    if #lo < #o[#dpos] || #hi > #o[#dpos] + #n[#dpos] {
                        return Err(::gt4rs::Error::Domain {
                            program: #program_name.to_string(),
                            message: format!(
                                "stage {}: the domain {}..{} along {} is not inside output `{}`, which covers {}..{}",
                                #index, #lo, #hi, #dim, #fname, #o[#dpos], #o[#dpos] + #n[#dpos]),
                        });
                    }
                });
            }
        }
        Ok(checks)
    }

    /// Read fields are non-empty (clamped and masked reads need some valid point), local
    /// dimensions hold the offset's count, and reads with static shifts stay inside their
    /// fields over the whole domain.
    pub(super) fn read_checks(&self) -> Result<Vec<TokenStream>, String> {
        let index = self.walk.index;
        let program_name = self.walk.program.name.clone();
        let mut checks = Vec::new();
        for p in self.read_fields.iter().copied() {
            if let Source::Temporary(_) = p {
                // Its buffer holds a point even where its extent is empty (see `temporaries`).
                continue;
            }
            let f = self.walk.field(p)?;
            let n = format_ident!("{}_n", prefix(p));
            let o = format_ident!("{}_o", prefix(p));
            let fname = &f.name;
            for (dpos, d) in f.dims.iter().enumerate() {
                let local_count = self
                    .walk
                    .lowered
                    .offset(d)
                    .filter(|_| self.walk.is_local(d))
                    .map(|o| o.count as i64);
                match local_count {
                    Some(count) => checks.push(quote! {
                        if #o[#dpos] != 0 || #n[#dpos] != #count {
                            return Err(::gt4rs::Error::Argument {
                                program: #program_name.to_string(),
                                arg: #fname.to_string(),
                                message: format!("its local dimension {} covers {}..{}, but must cover 0..{}", #d, #o[#dpos], #o[#dpos] + #n[#dpos], #count),
                            });
                        }
                    }),
                    None => checks.push(quote! {
                        if #n[#dpos] == 0 {
                            return Err(::gt4rs::Error::Argument {
                                program: #program_name.to_string(),
                                arg: #fname.to_string(),
                                message: format!("it is read, but is empty along {}", #d),
                            });
                        }
                    }),
                }
            }
        }
        let shifted_read = |p: Source, dpos: usize, lo: syn::Ident, hi: syn::Ident, shift: i64| {
            let f = self.walk.field(p)?;
            let o = format_ident!("{}_o", prefix(p));
            let n = format_ident!("{}_n", prefix(p));
            let fname = &f.name;
            let dim = &f.dims[dpos];
            Ok::<_, String>(quote! {
                if #lo + #shift < #o[#dpos] || #hi + #shift > #o[#dpos] + #n[#dpos] {
                    return Err(::gt4rs::Error::Domain {
                        program: #program_name.to_string(),
                        message: format!(
                            "stage {}: argument `{}` is read at {} {}..{} (shift {}), outside its domain {}..{}",
                            #index, #fname, #dim, #lo + #shift, #hi + #shift, #shift, #o[#dpos], #o[#dpos] + #n[#dpos]),
                    });
                }
            })
        };
        for &(p, dpos, j, shift) in &self.horizontal_checks {
            let (lo, hi) = (format_ident!("d{}_lo", j), format_ident!("d{}_hi", j));
            checks.push(shifted_read(p, dpos, lo, hi, shift)?);
        }
        let (klo, khi) = self.level_range();
        for &(p, shift) in &self.vertical_checks {
            let f = self.walk.field(p)?;
            let kd = f
                .dims
                .iter()
                .position(|d| self.walk.is_vertical(d))
                .ok_or("column read of a field without a vertical dimension")?;
            checks.push(shifted_read(p, kd, klo.clone(), khi.clone(), shift)?);
        }
        Ok(checks)
    }

    /// Reading an output of the same stage is only sound at the point being written:
    /// elsewhere another tile may be writing it concurrently.
    pub(super) fn reject_shifted_reads_of_outputs(
        &self,
        outputs: &[(Source, FieldInfo)],
    ) -> Result<(), String> {
        for node in &self.walk.stage.nodes {
            if let Node::Load { source, path, .. } = node {
                if let Some((_, f)) = outputs.iter().find(|(q, _)| q == source) {
                    if !path.is_empty() {
                        return Err(format!(
                            "`{}` is written by a call that also reads it shifted; write the result to another field",
                            f.name
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

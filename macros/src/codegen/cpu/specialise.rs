//! Which static arguments get a copy of a program's CPU kernels per value, and the cases each
//! copy covers.

use proc_macro2::{Span, TokenStream};
use quote::quote;

use gt4rs_ir::fieldview::{Literal, Program};
use gt4rs_ir::integer_cases::{integer_cases, IntegerCase};
use gt4rs_ir::lower::lower;
use gt4rs_ir::stage::{Node, StageProgram};
use gt4rs_ir::{ScalarType, Type};

/// The most copies of a program's CPU kernels its static arguments may make.
pub(super) const MAX_SPECIALISED_COPIES: usize = 8;

/// A static argument the CPU kernels are specialised on: its position, name and the cases a
/// copy is made for.
pub(super) struct Specialised {
    pub param: u32,
    pub name: syn::Ident,
    pub cases: Vec<Case>,
}

/// One copy's values of a static argument.
pub(super) struct Case {
    /// The value the copy is lowered with.
    pub value: Literal,
    /// The pattern that picks the copy (`true`, `2i32`, `..=2i32`, `_`).
    pub pattern: TokenStream,
    /// How the copy's stage times name the values (`type_shear=2`, `divdamp_type=other`).
    pub label: String,
}

/// The static arguments that get a copy of the kernels per case: every `bool`, and every
/// integer the stages only compare with literals (a copy per class of values that compare
/// alike, `gt4rs_ir::integer_cases`). Where they would make more than
/// [`MAX_SPECIALISED_COPIES`] copies, those whose fixed value takes the most work out of the
/// stages come first (ICON's `apply_4th_order_divergence_damping` skips the neighbour reads
/// of the fourth-order damping, `is_iau_active` one pointwise term), and one that takes none
/// out gets no copies. Returned in parameter order.
pub(super) fn specialised_statics(program: &Program, lowered: &StageProgram) -> Vec<Specialised> {
    let base = work(lowered);
    let mut candidates: Vec<(usize, Specialised)> = Vec::new();
    for (i, p) in program.params.iter().enumerate() {
        let Type::Scalar(dtype) = p.ty else {
            continue;
        };
        if !p.is_static {
            continue;
        }
        let param = i as u32;
        let cases = match dtype {
            ScalarType::Bool => [false, true]
                .into_iter()
                .map(|b| Case {
                    value: Literal::Bool(b),
                    pattern: quote!(#b),
                    label: format!("{}={b}", p.name),
                })
                .collect(),
            ScalarType::I32 | ScalarType::I64 => {
                let Some(comparisons) = lowered.literal_comparisons_of(param) else {
                    continue;
                };
                let classes = integer_cases(&comparisons, dtype);
                let mut cases: Vec<Case> = classes
                    .iter()
                    .map(|class| integer_case(&p.name, dtype, class))
                    .collect();
                // The cases cover every value: the last arm of the `match` takes what the
                // others do not. Where it is several ranges, it is the values equal to none
                // of the literals.
                if let (Some(last), Some(class)) = (cases.last_mut(), classes.last()) {
                    last.pattern = quote!(_);
                    if class.ranges.len() > 1 {
                        last.label = format!("{}=other", p.name);
                    }
                }
                cases
            }
            _ => continue,
        };
        if cases.len() < 2 {
            continue;
        }
        // What the stages lose, at most, when the argument is fixed to one of its cases.
        let saving = cases
            .iter()
            .filter_map(|case| lower(&program.with_scalar_values(&[(param, case.value)])).ok())
            .map(|fixed| base.saturating_sub(work(&fixed)))
            .max()
            .unwrap_or(0);
        if saving == 0 {
            continue;
        }
        candidates.push((
            saving,
            Specialised {
                param,
                name: syn::Ident::new(&p.name, Span::call_site()),
                cases,
            },
        ));
    }
    // Stable: equal savings keep parameter order.
    candidates.sort_by_key(|c| std::cmp::Reverse(c.0));
    let mut chosen = Vec::new();
    let mut copies = 1usize;
    for (_, s) in candidates {
        if copies.saturating_mul(s.cases.len()) > MAX_SPECIALISED_COPIES {
            continue;
        }
        copies *= s.cases.len();
        chosen.push(s);
    }
    chosen.sort_by_key(|s| s.param);
    chosen
}

/// The copy of an integer class: its representative, a pattern of its ranges.
fn integer_case(name: &str, dtype: ScalarType, case: &IntegerCase) -> Case {
    let (min, max) = if dtype == ScalarType::I32 {
        (i64::from(i32::MIN), i64::from(i32::MAX))
    } else {
        (i64::MIN, i64::MAX)
    };
    let lit = |v: i64| {
        if dtype == ScalarType::I32 {
            // In range: the classes of an `i32` hold `i32` values only.
            proc_macro2::Literal::i32_suffixed(v as i32)
        } else {
            proc_macro2::Literal::i64_suffixed(v)
        }
    };
    let ranges: Vec<TokenStream> = case
        .ranges
        .iter()
        .map(|&(a, b)| {
            let (la, lb) = (lit(a), lit(b));
            match (a == min, b == max) {
                _ if a == b => quote!(#la),
                (true, true) => quote!(_),
                (true, false) => quote!(..=#lb),
                (false, true) => quote!(#la..),
                (false, false) => quote!(#la..=#lb),
            }
        })
        .collect();
    let text = |(a, b): (i64, i64)| match (a == min, b == max) {
        _ if a == b => a.to_string(),
        (true, true) => "any".to_string(),
        (true, false) => format!("..={b}"),
        (false, true) => format!("{a}.."),
        (false, false) => format!("{a}..={b}"),
    };
    let label = if case.is_single() {
        format!("{name}={}", case.representative)
    } else {
        let parts: Vec<String> = case.ranges.iter().map(|&r| text(r)).collect();
        format!("{name} in {}", parts.join("|"))
    };
    Case {
        value: Literal::Int(case.representative),
        pattern: quote!(#(#ranges)|*),
        label,
    }
}

/// A measure of the work of `lowered` at a point: its nodes, loads counted twice.
fn work(lowered: &StageProgram) -> usize {
    lowered
        .stages
        .iter()
        .flat_map(|s| &s.nodes)
        .map(|n| if matches!(n, Node::Load { .. }) { 2 } else { 1 })
        .sum()
}

//! The valid sources the fuzzer mutates: ICON's stencils (`stencils/src/icon/dsl/source`) and
//! the conformance suite (`tests/conformance`), split into the items the macros see.
//!
//! A *unit* is a set of items that name each other, as one crate module would: every ICON
//! source together with ICON's dimensions and offsets, or one conformance file with the test
//! suite's. Items are kept as text, so each case re-lexes them on its own thread.

use quote::ToTokens;
use syn::{Attribute, Item};

use crate::definitions::ItemKind;

/// What an item of the corpus is, as the macros see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Macro {
    /// `#[field_operator]`, `#[scan_operator(…)]`, `#[program]` on a function.
    Attribute(ItemKind),
    Dimensions,
    Offsets,
    ScalarTypes,
}

/// One macro input: the attribute's tokens (empty for function-like macros) and the item's.
#[derive(Clone, Debug)]
pub struct CorpusItem {
    /// The item's name (a function's, or the macro's for `dimensions!` and friends), for reports.
    pub name: String,
    pub kind: Macro,
    pub attr: String,
    pub item: String,
}

/// Items that name each other.
#[derive(Clone, Debug)]
pub struct Unit {
    pub name: &'static str,
    pub items: Vec<CorpusItem>,
}

const ICON_ENTITIES: &str = include_str!("../../../stencils/src/icon/dims.rs");
/// What `stencils/src/icon/dsl/diffusion.rs` declares around the ICON sources.
const ICON_SCALARS: &str = "gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }";
const ICON_SOURCES: [(&str, &str); 19] = [
    (
        "implicit_solver",
        include_str!("../../../stencils/src/icon/dsl/source/implicit_solver.rs"),
    ),
    (
        "nabla4",
        include_str!("../../../stencils/src/icon/dsl/source/nabla4.rs"),
    ),
    (
        "nabla2",
        include_str!("../../../stencils/src/icon/dsl/source/nabla2.rs"),
    ),
    (
        "vn",
        include_str!("../../../stencils/src/icon/dsl/source/vn.rs"),
    ),
    (
        "turbulence",
        include_str!("../../../stencils/src/icon/dsl/source/turbulence.rs"),
    ),
    (
        "cold_pools",
        include_str!("../../../stencils/src/icon/dsl/source/cold_pools.rs"),
    ),
    (
        "theta_and_exner",
        include_str!("../../../stencils/src/icon/dsl/source/theta_and_exner.rs"),
    ),
    (
        "diffusion_utils",
        include_str!("../../../stencils/src/icon/dsl/source/diffusion_utils.rs"),
    ),
    (
        "interpolation",
        include_str!("../../../stencils/src/icon/dsl/source/interpolation.rs"),
    ),
    (
        "solver",
        include_str!("../../../stencils/src/icon/dsl/source/solver.rs"),
    ),
    (
        "velocity_advection",
        include_str!("../../../stencils/src/icon/dsl/source/velocity_advection.rs"),
    ),
    (
        "vertically_implicit_dycore_solver",
        include_str!("../../../stencils/src/icon/dsl/source/vertically_implicit_dycore_solver.rs"),
    ),
    (
        "compute_cell_diagnostics_for_dycore",
        include_str!(
            "../../../stencils/src/icon/dsl/source/compute_cell_diagnostics_for_dycore.rs"
        ),
    ),
    (
        "compute_horizontal_velocity_quantities",
        include_str!(
            "../../../stencils/src/icon/dsl/source/compute_horizontal_velocity_quantities.rs"
        ),
    ),
    (
        "boundary_and_halo_updates",
        include_str!("../../../stencils/src/icon/dsl/source/boundary_and_halo_updates.rs"),
    ),
    (
        "dycore_utils",
        include_str!("../../../stencils/src/icon/dsl/source/dycore_utils.rs"),
    ),
    (
        "compute_advection_in_horizontal_momentum_equation",
        include_str!(
            "../../../stencils/src/icon/dsl/source/compute_advection_in_horizontal_momentum_equation.rs"
        ),
    ),
    (
        "compute_advection_in_vertical_momentum_equation",
        include_str!(
            "../../../stencils/src/icon/dsl/source/compute_advection_in_vertical_momentum_equation.rs"
        ),
    ),
    (
        "compute_edge_diagnostics_for_dycore_and_update_vn",
        include_str!(
            "../../../stencils/src/icon/dsl/source/compute_edge_diagnostics_for_dycore_and_update_vn.rs"
        ),
    ),
];

/// The test suite's dimensions and offsets (and its helpers, which the corpus ignores).
const TEST_ENTITIES: &str = include_str!("../../../tests/src/lib.rs");
const CONFORMANCE: [(&str, &str); 20] = [
    (
        "arg_call_interface",
        include_str!("../../../tests/conformance/arg_call_interface.rs"),
    ),
    ("basic", include_str!("../../../tests/conformance/basic.rs")),
    (
        "broadcast",
        include_str!("../../../tests/conformance/broadcast.rs"),
    ),
    (
        "cartesian_shifts",
        include_str!("../../../tests/conformance/cartesian_shifts.rs"),
    ),
    (
        "concat_where",
        include_str!("../../../tests/conformance/concat_where.rs"),
    ),
    (
        "conditionals",
        include_str!("../../../tests/conformance/conditionals.rs"),
    ),
    (
        "domain",
        include_str!("../../../tests/conformance/domain.rs"),
    ),
    (
        "external_local_field",
        include_str!("../../../tests/conformance/external_local_field.rs"),
    ),
    (
        "icon_like_scan",
        include_str!("../../../tests/conformance/icon_like_scan.rs"),
    ),
    (
        "laplacian",
        include_str!("../../../tests/conformance/laplacian.rs"),
    ),
    (
        "math_builtin_execution",
        include_str!("../../../tests/conformance/math_builtin_execution.rs"),
    ),
    (
        "math_unary_builtins",
        include_str!("../../../tests/conformance/math_unary_builtins.rs"),
    ),
    (
        "multiple_output_domains",
        include_str!("../../../tests/conformance/multiple_output_domains.rs"),
    ),
    (
        "program",
        include_str!("../../../tests/conformance/program.rs"),
    ),
    (
        "reductions",
        include_str!("../../../tests/conformance/reductions.rs"),
    ),
    (
        "scalar_args",
        include_str!("../../../tests/conformance/scalar_args.rs"),
    ),
    ("scan", include_str!("../../../tests/conformance/scan.rs")),
    (
        "tuples",
        include_str!("../../../tests/conformance/tuples.rs"),
    ),
    (
        "type_conversion",
        include_str!("../../../tests/conformance/type_conversion.rs"),
    ),
    ("where", include_str!("../../../tests/conformance/where.rs")),
];

/// The files of the corpus, by directory (relative to the workspace), for a test to check that
/// none is missing.
pub fn files() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        (
            "stencils/src/icon/dsl/source",
            ICON_SOURCES.iter().map(|(name, _)| *name).collect(),
        ),
        (
            "tests/conformance",
            CONFORMANCE.iter().map(|(name, _)| *name).collect(),
        ),
    ]
}

/// Every unit of the corpus.
pub fn units() -> Result<Vec<Unit>, String> {
    let mut icon = items_of("icon dims", ICON_ENTITIES)?;
    icon.extend(items_of("icon scalars", ICON_SCALARS)?);
    for (name, text) in ICON_SOURCES {
        icon.extend(items_of(name, text)?);
    }
    let mut units = vec![Unit {
        name: "icon",
        items: icon,
    }];
    let entities = items_of("tests/src/lib.rs", TEST_ENTITIES)?;
    for (name, text) in CONFORMANCE {
        let mut items = entities.clone();
        items.extend(items_of(name, text)?);
        units.push(Unit { name, items });
    }
    Ok(units)
}

fn items_of(file: &str, text: &str) -> Result<Vec<CorpusItem>, String> {
    let parsed = syn::parse_file(text).map_err(|e| format!("{file}: {e}"))?;
    let mut items = Vec::new();
    collect(&parsed.items, &mut items);
    Ok(items)
}

fn collect(items: &[Item], out: &mut Vec<CorpusItem>) {
    for item in items {
        match item {
            Item::Fn(f) => {
                let mut f = f.clone();
                let Some(at) = f.attrs.iter().position(|a| attribute_kind(a).is_some()) else {
                    continue;
                };
                let attr = f.attrs.remove(at);
                let Some(kind) = attribute_kind(&attr) else {
                    continue;
                };
                let attr_tokens = match &attr.meta {
                    syn::Meta::List(list) => list.tokens.to_string(),
                    _ => String::new(),
                };
                out.push(CorpusItem {
                    name: f.sig.ident.to_string(),
                    kind: Macro::Attribute(kind),
                    attr: attr_tokens,
                    item: f.to_token_stream().to_string(),
                });
            }
            Item::Macro(m) => {
                let Some(last) = m.mac.path.segments.last() else {
                    continue;
                };
                let kind = match last.ident.to_string().as_str() {
                    "dimensions" => Macro::Dimensions,
                    "offsets" => Macro::Offsets,
                    "scalar_types" => Macro::ScalarTypes,
                    _ => continue,
                };
                out.push(CorpusItem {
                    name: last.ident.to_string(),
                    kind,
                    attr: String::new(),
                    item: m.mac.tokens.to_string(),
                });
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    collect(inner, out);
                }
            }
            _ => {}
        }
    }
}

fn attribute_kind(attr: &Attribute) -> Option<ItemKind> {
    let last = attr.path().segments.last()?;
    ItemKind::from_keyword(&last.ident.to_string())
}

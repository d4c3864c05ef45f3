//! Domain bounds on the host: a stage's bounds for one call (from its scalars, fields and
//! tables), and the bounds that static argument values fix at `compile()`. Uniform nodes are
//! evaluated by the scalar rules the kernels follow (`gt4rs_ir::scalar`).

use std::sync::Arc;

use gt4rs_ir::fieldview::ProgramParam;
use gt4rs_ir::scalar::{self, ScalarError};
use gt4rs_ir::stage::{Bound, Node, NodeId, Stage};
use gt4rs_ir::Type;

use super::launch::FieldMeta;
use crate::args::ScalarValue;
use crate::connectivity::ConnectivityTable;

/// Why a domain bound has no value.
#[derive(Clone, Debug, PartialEq)]
pub enum BoundError {
    /// It divides an integer by zero, which every backend reports alike.
    DivisionByZero,
    /// It cannot be evaluated from what the call gives.
    Invalid(String),
    /// The domain's start along `dim` is past its end.
    Reversed {
        /// The dimension.
        dim: String,
        /// The domain's start along it.
        start: i64,
        /// The domain's end along it.
        end: i64,
    },
}

/// Evaluates a uniform node (over program scalars and literals) of `stage`, by the scalar rules
/// the kernels follow.
fn eval(
    stage: &Stage,
    id: NodeId,
    scalars: &[Option<ScalarValue>],
) -> Result<ScalarValue, BoundError> {
    let node = stage
        .nodes
        .get(id as usize)
        .ok_or_else(|| BoundError::Invalid(format!("bound node {id} does not exist")))?;
    let sub = |n: NodeId| eval(stage, n, scalars);
    let rule = |r: scalar::ScalarResult| {
        r.map_err(|e| match e {
            ScalarError::DivisionByZero => BoundError::DivisionByZero,
            other => BoundError::Invalid(other.to_string()),
        })
    };
    match node {
        Node::Scalar { param, .. } => scalars
            .get(*param as usize)
            .copied()
            .flatten()
            .ok_or_else(|| BoundError::Invalid(format!("parameter {param} is not a scalar"))),
        Node::Literal { value, dtype } => Ok(ScalarValue::from_literal(*value, *dtype)),
        Node::Cast { arg, to } => Ok(sub(*arg)?.cast(*to)),
        Node::Unary { op, arg, .. } => rule(scalar::unary(*op, sub(*arg)?)),
        Node::Binary { op, lhs, rhs, .. } => rule(scalar::binary(*op, sub(*lhs)?, sub(*rhs)?)),
        Node::Compare { op, lhs, rhs } => rule(scalar::compare(*op, sub(*lhs)?, sub(*rhs)?)),
        Node::Select {
            cond,
            if_true,
            if_false,
            ..
        } => match sub(*cond)? {
            ScalarValue::Bool(true) => sub(*if_true),
            ScalarValue::Bool(false) => sub(*if_false),
            other => Err(BoundError::Invalid(format!(
                "a select condition of type {:?}",
                other.dtype()
            ))),
        },
        Node::Math { fun, args, .. } => {
            let values = args
                .iter()
                .map(|a| sub(*a))
                .collect::<Result<Vec<_>, _>>()?;
            rule(scalar::math(*fun, &values))
        }
        other => Err(BoundError::Invalid(format!(
            "a domain bound depends on {other:?}"
        ))),
    }
}

/// What a stage's domain bounds may refer to, for one call.
pub struct BoundInputs<'a> {
    /// The first and one-past-last index of the stage's first output along each domain
    /// dimension, `None` where it has none (for [`Bound::OutputFull`]); see
    /// [`output_ranges`].
    pub first_output: &'a [Option<(i64, i64)>],
    /// The program's parameters (a field's dimension names are in its type).
    pub params: &'a [ProgramParam],
    /// Per program parameter: the device field (None for scalars).
    pub fields: &'a [Option<&'a FieldMeta>],
    /// Per program parameter: the scalar value (None for fields).
    pub scalars: &'a [Option<ScalarValue>],
    /// Every connectivity by offset name (host copies: reach bounds are computed on the host).
    pub tables: &'a [NamedTable],
}

/// A connectivity table and the name of its offset.
pub type NamedTable = (String, Arc<ConnectivityTable>);

/// The value of a bound node when the given scalars determine it (`None` otherwise).
pub fn node_bound(stage: &Stage, bound: &Bound, scalars: &[Option<ScalarValue>]) -> Option<i64> {
    match bound {
        Bound::Node(id) => eval(stage, *id, scalars).ok()?.as_i64(),
        _ => None,
    }
}

/// A scalar as a C literal of its type (`None` for a non-finite float).
pub fn c_literal(value: ScalarValue) -> Option<String> {
    Some(match value {
        ScalarValue::Bool(b) => b.to_string(),
        ScalarValue::I32(v) => format!("({v})"),
        ScalarValue::I64(v) => format!("({v}LL)"),
        ScalarValue::F32(v) if v.is_finite() => format!("({v:e}f)"),
        ScalarValue::F64(v) if v.is_finite() => format!("({v:e})"),
        _ => return None,
    })
}

/// `-D` options fixing static arguments (`GT4RS_STATIC_S<param>`) and the domain bounds they
/// determine (`GT4RS_S<stage>_D<dim>_LO/HI`). `statics` holds a value per parameter index
/// that is static and known.
pub fn static_defines(stages: &[Stage], statics: &[Option<ScalarValue>]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, v) in statics.iter().enumerate() {
        if let Some(lit) = v.and_then(c_literal) {
            out.push(format!("-DGT4RS_STATIC_S{i}={lit}"));
        }
    }
    for (si, stage) in stages.iter().enumerate() {
        for (j, r) in stage.domain.iter().enumerate() {
            let lo = node_bound(stage, &r.start, statics);
            let hi = node_bound(stage, &r.end, statics);
            if let Some(lo) = lo {
                out.push(format!("-DGT4RS_S{si}_D{j}_LO=({lo}LL)"));
                if let Some(hi) = hi {
                    out.push(format!("-DGT4RS_S{si}_D{j}_HI=({}LL)", hi.max(lo)));
                }
            }
        }
    }
    out
}

/// The range of a field (its `dims`, `origin` and `shape`) along each domain dimension of
/// `stage`: `None` where it has none. A sparse output's local dimension is no domain
/// dimension (it is written slot by slot), so the positions differ from the field's.
pub fn output_ranges(
    stage: &Stage,
    dims: &[String],
    origin: &[i64],
    shape: &[i64],
) -> Vec<Option<(i64, i64)>> {
    stage
        .domain
        .iter()
        .map(|r| {
            let d = dims.iter().position(|d| *d == r.dim)?;
            let (o, n) = (*origin.get(d)?, *shape.get(d)?);
            Some((o, o.saturating_add(n)))
        })
        .collect()
}

/// `(start, end)` per domain dimension of `stage`. A start past the end is an error, but for a
/// reach (the rows it is taken over may hold no neighbour), which is then empty.
pub fn stage_bounds(
    stage: &Stage,
    inputs: &BoundInputs<'_>,
) -> Result<Vec<(i64, i64)>, BoundError> {
    let mut out = Vec::with_capacity(stage.domain.len());
    for (j, r) in stage.domain.iter().enumerate() {
        let full = inputs
            .first_output
            .get(j)
            .copied()
            .flatten()
            .ok_or_else(|| {
                BoundError::Invalid(format!("the first output has no dimension `{}`", r.dim))
            });
        let lo = bound_value(stage, &r.dim, &r.start, false, &full, inputs)?;
        let hi = bound_value(stage, &r.dim, &r.end, true, &full, inputs)?;
        if hi < lo && !matches!(r.start, Bound::Reach { .. }) {
            return Err(BoundError::Reversed {
                dim: r.dim.clone(),
                start: lo,
                end: hi,
            });
        }
        out.push((lo, hi.max(lo)));
    }
    Ok(out)
}

/// The start (`end == false`) or end of bound `b` of domain dimension `dim`; `full` is the
/// first output's range along it.
fn bound_value(
    stage: &Stage,
    dim: &str,
    b: &Bound,
    end: bool,
    full: &Result<(i64, i64), BoundError>,
    inputs: &BoundInputs<'_>,
) -> Result<i64, BoundError> {
    let field_bound = |param: u32, field_dim: &str, end: bool| -> Result<i64, BoundError> {
        let no_field = || {
            BoundError::Invalid(format!(
                "domain bound of parameter {param}, which is no field"
            ))
        };
        let meta = inputs
            .fields
            .get(param as usize)
            .copied()
            .flatten()
            .ok_or_else(no_field)?;
        let Some(Type::Field { dims, .. }) = inputs.params.get(param as usize).map(|p| &p.ty)
        else {
            return Err(no_field());
        };
        let d = dims.iter().position(|x| x == field_dim).ok_or_else(|| {
            BoundError::Invalid(format!("parameter {param} has no dimension `{field_dim}`"))
        })?;
        let (o, n) = (meta.origin[d], meta.shape[d]);
        Ok(if end { o.saturating_add(n) } else { o })
    };
    let table = |offset: &str| {
        inputs
            .tables
            .iter()
            .find(|(o, _)| o == offset)
            .map(|(_, t)| t)
            .ok_or_else(|| BoundError::Invalid(format!("no connectivity for `{offset}`")))
    };
    match b {
        Bound::OutputFull => full.clone().map(|(lo, hi)| if end { hi } else { lo }),
        Bound::Node(id) => eval(stage, *id, inputs.scalars)?.as_i64().ok_or_else(|| {
            BoundError::Invalid(format!("the domain bound along {dim} is not an integer"))
        }),
        Bound::FieldStart { param, dim } => field_bound(*param, dim, false),
        Bound::FieldEnd { param, dim } => field_bound(*param, dim, true),
        Bound::TargetSize { offset } => Ok(table(offset)?.target_size() as i64),
        // A temporary read through a neighbour table covers the entries the reading rows
        // hold, as on the CPU (`ConnectivityTable::reach`): boundary rows outside them may hold -1
        // entries the temporary's own gathers would fail on. Their rows' own bounds see no
        // output range (as on the CPU).
        Bound::Reach {
            offset,
            rows_start,
            rows_end,
        } => {
            let t = table(offset)?;
            let no_full = Ok((0, 0));
            let lo = bound_value(stage, dim, rows_start, false, &no_full, inputs)?;
            let hi = bound_value(stage, dim, rows_end, true, &no_full, inputs)?;
            let (least, past) = t.reach(lo, hi);
            Ok(if end { past } else { least })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gt4rs_ir::fieldview::{BinaryOp, Literal};
    use gt4rs_ir::stage::StageRange;
    use gt4rs_ir::ScalarType;

    fn stage(nodes: Vec<Node>, domain: Vec<StageRange>) -> Stage {
        Stage {
            domain,
            nodes,
            outputs: vec![],
            scan: None,
        }
    }

    #[test]
    fn bounds_evaluate_scalars_literals_and_full_ranges() {
        let s = stage(
            vec![
                Node::Scalar {
                    param: 1,
                    dtype: ScalarType::I32,
                },
                Node::Literal {
                    value: Literal::Int(2),
                    dtype: ScalarType::I32,
                },
                Node::Binary {
                    op: BinaryOp::Sub,
                    lhs: 0,
                    rhs: 1,
                    dtype: ScalarType::I32,
                },
            ],
            vec![
                StageRange {
                    dim: "Edge".into(),
                    start: Bound::Node(1),
                    end: Bound::Node(2),
                },
                StageRange {
                    dim: "K".into(),
                    start: Bound::OutputFull,
                    end: Bound::OutputFull,
                },
            ],
        );
        let inputs = |scalars: &'static [Option<ScalarValue>]| BoundInputs {
            first_output: &[Some((0, 20)), Some((3, 8))],
            params: &[],
            fields: &[],
            scalars,
            tables: &[],
        };
        let b = stage_bounds(&s, &inputs(&[None, Some(ScalarValue::I32(17))])).expect("evaluates");
        assert_eq!(b, vec![(2, 15), (3, 8)]);
        // A start past the end is an error (every backend reports it alike).
        assert_eq!(
            stage_bounds(&s, &inputs(&[None, Some(ScalarValue::I32(-4))])),
            Err(BoundError::Reversed {
                dim: "Edge".into(),
                start: 2,
                end: -6
            })
        );
        // A missing scalar is an error, not a panic.
        assert!(stage_bounds(&s, &inputs(&[])).is_err());
    }

    #[test]
    fn a_reach_bound_covers_the_entries_of_the_reading_rows_only() {
        use crate::connectivity::Connectivity;
        use crate::dims::{Dimension, Offset};
        use gt4rs_ir::DimKind;
        #[derive(Clone, Copy, Default, Debug)]
        struct Edge;
        #[derive(Clone, Copy, Default, Debug)]
        struct Cell;
        #[derive(Clone, Copy, Default, Debug)]
        struct E2C;
        impl Dimension for Edge {
            const NAME: &'static str = "Edge";
            const KIND: DimKind = DimKind::Horizontal;
        }
        impl Dimension for Cell {
            const NAME: &'static str = "Cell";
            const KIND: DimKind = DimKind::Horizontal;
        }
        impl Dimension for E2C {
            const NAME: &'static str = "E2C";
            const KIND: DimKind = DimKind::Local;
        }
        impl Offset for E2C {
            type From = Edge;
            type To = Cell;
            const COUNT: usize = 2;
            const SKIP_VALUES: bool = true;
        }
        // Row 0 (a boundary edge outside the reading rows) holds a -1 and cell 0.
        let table = ndarray::arr2(&[[-1, 0], [3, 5], [4, -1], [7, 2], [9, 8]]);
        let e2c = Connectivity::<E2C>::new(table, 10).expect("valid table");
        let tables: Vec<NamedTable> = vec![("E2C".into(), e2c.shared())];
        let lit = |v: i64| Node::Literal {
            value: Literal::Int(v),
            dtype: ScalarType::I32,
        };
        let reach = |lo: NodeId, hi: NodeId| Bound::Reach {
            offset: "E2C".into(),
            rows_start: Box::new(Bound::Node(lo)),
            rows_end: Box::new(Bound::Node(hi)),
        };
        let s = stage(
            vec![lit(1), lit(3), lit(4), lit(4)],
            vec![StageRange {
                dim: "Cell".into(),
                start: reach(0, 1),
                end: reach(0, 1),
            }],
        );
        let inputs = BoundInputs {
            first_output: &[],
            params: &[],
            fields: &[],
            scalars: &[],
            tables: &tables,
        };
        // Rows 1..3 hold 3, 5, 4 (and a -1): cells 3..6, not the whole 0..10.
        assert_eq!(stage_bounds(&s, &inputs).expect("evaluates"), vec![(3, 6)]);
        // An empty range of rows reaches nothing.
        let empty = Stage {
            domain: vec![StageRange {
                dim: "Cell".into(),
                start: reach(2, 3),
                end: reach(2, 3),
            }],
            ..s
        };
        assert_eq!(
            stage_bounds(&empty, &inputs).expect("evaluates"),
            vec![(0, 0)]
        );
    }

    #[test]
    fn static_arguments_become_defines_with_the_bounds_they_fix() {
        let s = stage(
            vec![
                Node::Scalar {
                    param: 2,
                    dtype: ScalarType::I32,
                },
                Node::Literal {
                    value: Literal::Int(1),
                    dtype: ScalarType::I32,
                },
            ],
            vec![StageRange {
                dim: "K".into(),
                start: Bound::Node(1),
                end: Bound::Node(0),
            }],
        );
        let statics = [
            None,
            Some(ScalarValue::Bool(true)),
            Some(ScalarValue::I32(80)),
        ];
        let d = static_defines(std::slice::from_ref(&s), &statics);
        assert!(d.contains(&"-DGT4RS_STATIC_S1=true".to_string()), "{d:?}");
        assert!(d.contains(&"-DGT4RS_STATIC_S2=(80)".to_string()), "{d:?}");
        assert!(d.contains(&"-DGT4RS_S0_D0_LO=(1LL)".to_string()), "{d:?}");
        assert!(d.contains(&"-DGT4RS_S0_D0_HI=(80LL)".to_string()), "{d:?}");
        // Without the static value the end stays a run-time value.
        let d = static_defines(std::slice::from_ref(&s), &[None, None, None]);
        assert!(!d.iter().any(|x| x.contains("HI")), "{d:?}");
        assert_eq!(c_literal(ScalarValue::F64(f64::NAN)), None);
        assert_eq!(c_literal(ScalarValue::F64(0.1)), Some("(1e-1)".into()));
    }
}

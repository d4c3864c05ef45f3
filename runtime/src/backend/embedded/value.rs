//! Runtime values: fields over a domain (scalars are fields without dimensions) and tuples.

use std::rc::Rc;

use gt4rs_ir::ScalarType;

use super::elem::Elem;

/// The range of one dimension of a field value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extent {
    /// The half-open index range `start..end`.
    Bounded { start: i64, end: i64 },
    /// A dimension added by broadcasting: the value is the same at every index, so it has no
    /// extent of its own (one element of storage) until it meets a bounded one.
    Unbounded,
}

impl Extent {
    pub(crate) fn range(start: i64, end: i64) -> Extent {
        Extent::Bounded {
            start,
            end: end.max(start),
        }
    }

    /// Elements of storage along this dimension.
    pub(crate) fn len(self) -> usize {
        match self {
            Extent::Bounded { start, end } => (end - start) as usize,
            Extent::Unbounded => 1,
        }
    }

    pub(crate) fn intersect(self, other: Extent) -> Extent {
        match (self, other) {
            (Extent::Unbounded, e) | (e, Extent::Unbounded) => e,
            (Extent::Bounded { start: s0, end: e0 }, Extent::Bounded { start: s1, end: e1 }) => {
                Extent::range(s0.max(s1), e0.min(e1))
            }
        }
    }

    /// This extent moved by `by`: `None` where it leaves i64 (a value's elements are laid out
    /// by its extents, which must stay exact).
    pub(crate) fn shifted(self, by: i64) -> Option<Extent> {
        Some(match self {
            Extent::Bounded { start, end } => Extent::Bounded {
                start: start.checked_add(by)?,
                end: end.checked_add(by)?,
            },
            Extent::Unbounded => Extent::Unbounded,
        })
    }

    /// True when every index of `start..end` lies in this extent.
    pub(crate) fn covers(self, start: i64, end: i64) -> bool {
        match self {
            Extent::Unbounded => true,
            Extent::Bounded { start: s, end: e } => start >= end || (s <= start && end <= e),
        }
    }

    pub(crate) fn contains(self, index: i64) -> bool {
        match self {
            Extent::Unbounded => true,
            Extent::Bounded { start, end } => start <= index && index < end,
        }
    }
}

impl std::fmt::Display for Extent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Extent::Bounded { start, end } => write!(f, "{start}..{end}"),
            Extent::Unbounded => write!(f, "(unbounded)"),
        }
    }
}

/// A field value: named dimensions in canonical order, an extent per dimension and the
/// elements in row-major order over the extents' storage lengths.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FieldValue {
    pub dims: Vec<String>,
    pub extents: Vec<Extent>,
    pub dtype: ScalarType,
    /// Shared, so that reading a parameter or variable and shifting copy no elements.
    pub data: Rc<Vec<Elem>>,
}

/// Any value an expression evaluates to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Field(FieldValue),
    Tuple(Vec<Value>),
}

impl FieldValue {
    /// A value without dimensions.
    pub(crate) fn scalar(elem: Elem, dtype: ScalarType) -> FieldValue {
        FieldValue {
            dims: Vec::new(),
            extents: Vec::new(),
            dtype,
            data: Rc::new(vec![elem]),
        }
    }

    pub(crate) fn axis(&self, dim: &str) -> Option<usize> {
        self.dims.iter().position(|d| d == dim)
    }

    /// The first index of each dimension's storage (0 for an unbounded one).
    pub(crate) fn starts(&self) -> Vec<i64> {
        self.extents
            .iter()
            .map(|e| match e {
                Extent::Bounded { start, .. } => *start,
                Extent::Unbounded => 0,
            })
            .collect()
    }

    /// Row-major element strides.
    pub(crate) fn strides(&self) -> Vec<usize> {
        row_major_strides(&self.extents)
    }

    /// The only element of a value whose every extent holds one element of storage (a scalar
    /// or a broadcast scalar).
    pub(crate) fn single(&self) -> Option<Elem> {
        (self.data.len() == 1 && self.extents.iter().all(|e| e.len() == 1)).then(|| self.data[0])
    }

    /// Where each of `target` dims reads this value: see [`Accessor`]. `Err` names a dimension
    /// of this value that `target` lacks.
    pub(crate) fn accessor(&self, target: &[String]) -> Result<Accessor, String> {
        if let Some(d) = self.dims.iter().find(|d| !target.contains(d)) {
            return Err(format!(
                "a value over ({}) cannot be used over ({}): dimension `{d}` is not among them",
                self.dims.join(", "),
                target.join(", ")
            ));
        }
        let strides = self.strides();
        let mut steps = Vec::with_capacity(target.len());
        for t in target {
            steps.push(match self.axis(t) {
                Some(a) => match self.extents[a] {
                    Extent::Bounded { start, .. } => (start, strides[a]),
                    Extent::Unbounded => (0, 0),
                },
                None => (0, 0),
            });
        }
        Ok(Accessor { steps })
    }
}

pub(crate) fn row_major_strides(extents: &[Extent]) -> Vec<usize> {
    let mut strides = vec![0; extents.len()];
    let mut acc = 1usize;
    for (s, e) in strides.iter_mut().zip(extents).rev() {
        *s = acc;
        acc *= e.len();
    }
    strides
}

/// Maps a point, given by its index along each target dimension, to an element offset of one
/// value. Dimensions the value lacks or holds unbounded have stride 0.
pub(crate) struct Accessor {
    /// (first index, stride) per target dimension.
    steps: Vec<(i64, usize)>,
}

impl Accessor {
    /// The element step along the last target dimension.
    pub(crate) fn last_stride(&self) -> usize {
        self.steps.last().map_or(0, |s| s.1)
    }

    /// The caller guarantees that the point lies in the value's bounded extents.
    pub(crate) fn offset(&self, point: &[i64]) -> usize {
        self.steps
            .iter()
            .zip(point)
            .map(|(&(start, stride), &i)| {
                if stride == 0 {
                    0
                } else {
                    (i - start) as usize * stride
                }
            })
            .sum()
    }
}

/// Calls `f` with every point of `extents` in row-major order (unbounded extents contribute
/// the single index 0). Stops at the first error.
pub(crate) fn for_each_point<E>(
    extents: &[Extent],
    mut f: impl FnMut(&[i64]) -> Result<(), E>,
) -> Result<(), E> {
    if extents.iter().any(|e| e.len() == 0) {
        return Ok(());
    }
    let firsts: Vec<i64> = extents
        .iter()
        .map(|e| match e {
            Extent::Bounded { start, .. } => *start,
            Extent::Unbounded => 0,
        })
        .collect();
    let mut point = firsts.clone();
    loop {
        f(&point)?;
        let mut axis = extents.len();
        loop {
            if axis == 0 {
                return Ok(());
            }
            axis -= 1;
            point[axis] += 1;
            if ((point[axis] - firsts[axis]) as usize) < extents[axis].len() {
                break;
            }
            point[axis] = firsts[axis];
        }
    }
}

/// Calls `f(first, len)` for every row of `extents` in row-major order: a row runs along the
/// last dimension for `len` elements from the point `first`. A value without dimensions is one
/// row of one element.
pub(crate) fn for_each_row<E>(
    extents: &[Extent],
    mut f: impl FnMut(&[i64], usize) -> Result<(), E>,
) -> Result<(), E> {
    let Some((last, outer)) = extents.split_last() else {
        return f(&[], 1);
    };
    let len = last.len();
    if len == 0 {
        return Ok(());
    }
    let first_of_last = match last {
        Extent::Bounded { start, .. } => *start,
        Extent::Unbounded => 0,
    };
    let mut point = vec![0i64; extents.len()];
    for_each_point(outer, |o| {
        point[..o.len()].copy_from_slice(o);
        point[o.len()] = first_of_last;
        f(&point, len)
    })
}

/// Total storage of a value over `extents`.
pub(crate) fn storage_len(extents: &[Extent]) -> usize {
    extents.iter().map(|e| e.len()).product()
}

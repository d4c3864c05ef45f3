//! Fields: n-dimensional arrays over a domain that need not start at 0.

use std::marker::PhantomData;
use std::ops::Range;

use gt4rs_ir::{ScalarType, ScalarValue};
use ndarray::Dimension as _;
use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, IxDyn, ShapeBuilder};

use crate::args::{FieldView, FieldViewMut};
use crate::dims::Dims;
use crate::error::Error;

/// Element types a field may hold.
pub trait Scalar:
    Copy + Default + PartialEq + PartialOrd + std::fmt::Debug + Send + Sync + 'static
{
    /// The element type as the IR names it.
    const DTYPE: ScalarType;
    /// The value as a [`ScalarValue`] (a static argument, a dynamic call's scalar).
    fn into_value(self) -> ScalarValue;
    /// A read-only view of `data`, whose first element is at `origin`, as a backend argument.
    fn view<'a>(data: ArrayViewD<'a, Self>, origin: &'a [i64]) -> FieldView<'a>;
    /// A writable view, as a backend argument.
    fn view_mut<'a>(data: ArrayViewMutD<'a, Self>, origin: &'a [i64]) -> FieldViewMut<'a>;
}

macro_rules! scalar {
    ($t:ty, $variant:ident) => {
        impl Scalar for $t {
            const DTYPE: ScalarType = ScalarType::$variant;
            fn into_value(self) -> ScalarValue {
                ScalarValue::$variant(self)
            }
            fn view<'a>(data: ArrayViewD<'a, Self>, origin: &'a [i64]) -> FieldView<'a> {
                FieldView::$variant(data, origin)
            }
            fn view_mut<'a>(data: ArrayViewMutD<'a, Self>, origin: &'a [i64]) -> FieldViewMut<'a> {
                FieldViewMut::$variant(data, origin)
            }
        }
    };
}
scalar!(bool, Bool);
scalar!(i32, I32);
scalar!(i64, I64);
scalar!(f32, F32);
scalar!(f64, F64);

/// Memory order of a field's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Layout {
    /// Row-major: the last dimension (K) is contiguous. ICON4Py's and gt4rs's default.
    #[default]
    LastContiguous,
    /// Column-major: the first (horizontal) dimension is contiguous, as in Fortran ICON.
    FirstContiguous,
}

/// A field over the dimensions `D` (a tuple of dimension types) with elements `T`.
///
/// A field owns an n-dimensional array ([`ndarray::ArrayD`]) and, per dimension, the index of
/// its first element (its *origin*), so a field may cover the half levels `1..nlev + 1` or a
/// halo-extended Cartesian range `-2..n + 2`. Indices in [`Field::get`], [`Field::set`] and
/// [`Field::from_fn`] are these domain indices, not positions in the array. `D` lists the
/// dimensions in canonical order (horizontal, then local, then vertical): `Field<(Edge, K), f64>`,
/// a sparse field `Field<(Edge, E2C), f64>` (one value per edge and neighbour slot), or a
/// single dimension `Field<Edge, f64>`. `T` is `f64`, `f32`, `i32`, `i64` or `bool`.
///
/// Every constructor checks its input: a wrong number of ranges, an origin of another rank or a
/// range whose end an `i64` cannot hold is an [`Error::Shape`], never a panic.
///
/// ```
/// use gt4rs::prelude::*;
/// use ndarray::{ArrayD, IxDyn};
///
/// gt4rs::dimensions! { pub Cell: horizontal; pub K: vertical; }
///
/// # fn main() -> Result<(), gt4rs::Error> {
/// // 10 cells × levels 1..6 (origin 1 along K), filled with one value.
/// let w = Field::<(Cell, K), f64>::filled(&[0..10, 1..6], 0.0, Layout::default())?;
/// assert_eq!((w.origin(), w.shape()), (&[0, 1][..], &[10, 5][..]));
/// assert_eq!(w.get(&[3, 0]), None); // level 0 is outside the field
///
/// // A value per domain index.
/// let mut q = Field::<(Cell, K), f64>::from_fn(&[0..10, 0..5], Layout::default(), |i| {
///     i[0] as f64 + 0.1 * i[1] as f64
/// })?;
/// q.set(&[2, 4], -1.0)?;
/// assert_eq!(q.get(&[2, 4]), Some(-1.0));
///
/// // An array you already own, moved in without a copy; index 0 of the array is `origin`.
/// let data = ArrayD::from_shape_fn(IxDyn(&[10, 5]), |ix| ix[1] as f64);
/// let z = Field::<(Cell, K), f64>::from_array(data, &[0, 1])?;
/// assert_eq!(z.get(&[0, 1]), Some(0.0));
///
/// // Column-major memory (the horizontal index fastest, as Fortran ICON stores fields).
/// let f = Field::<(Cell, K), f64>::filled(&[0..10, 0..5], 0.0, Layout::FirstContiguous)?;
/// assert_eq!(f.strides(), &[1, 10]);
///
/// // A wrong rank is an error.
/// assert!(Field::<(Cell, K), f64>::filled(&[0..10], 0.0, Layout::default()).is_err());
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Field<D: Dims, T: Scalar> {
    data: ArrayD<T>,
    origin: Vec<i64>,
    _dims: PhantomData<D>,
}

impl<D: Dims, T: Scalar> Field<D, T> {
    /// A field over `domain` (one half-open range per dimension, any start) filled with
    /// `value`, its memory in `layout` order.
    ///
    /// # Errors
    /// [`Error::Shape`] where `domain` has another number of ranges than `D` has dimensions,
    /// or a range more points than an index can count.
    pub fn filled(domain: &[Range<i64>], value: T, layout: Layout) -> Result<Self, Error> {
        check_rank::<D>(domain.len())?;
        let mut shape = Vec::with_capacity(domain.len());
        for r in domain {
            // The checked length also keeps `start + len` inside i64 (see `check_end`).
            let len = r
                .end
                .checked_sub(r.start)
                .and_then(|n| usize::try_from(n.max(0)).ok())
                .ok_or_else(|| {
                    Error::Shape(format!(
                        "the range {}..{} has more points than an index can count",
                        r.start, r.end
                    ))
                })?;
            shape.push(len);
        }
        let data = match layout {
            Layout::LastContiguous => ArrayD::from_elem(IxDyn(&shape), value),
            Layout::FirstContiguous => ArrayD::from_elem(IxDyn(&shape).f(), value),
        };
        Ok(Field {
            data,
            origin: domain.iter().map(|r| r.start).collect(),
            _dims: PhantomData,
        })
    }

    /// A field of the given sizes starting at index 0, filled with `T::default()`.
    pub fn zeros(shape: &[usize]) -> Result<Self, Error> {
        let domain: Vec<Range<i64>> = shape.iter().map(|&n| 0..n as i64).collect();
        Self::filled(&domain, T::default(), Layout::default())
    }

    /// A field over `domain` whose element at domain index `idx` is `f(idx)` (`f` is called
    /// once per point, in memory order).
    ///
    /// # Errors
    /// As [`Field::filled`].
    pub fn from_fn(
        domain: &[Range<i64>],
        layout: Layout,
        mut f: impl FnMut(&[i64]) -> T,
    ) -> Result<Self, Error> {
        let mut field = Self::filled(domain, T::default(), layout)?;
        let origin = field.origin.clone();
        let mut index = vec![0i64; origin.len()];
        for (pos, value) in field.data.indexed_iter_mut() {
            for (d, i) in pos.as_array_view().iter().enumerate() {
                index[d] = *i as i64 + origin[d];
            }
            *value = f(&index);
        }
        Ok(field)
    }

    /// Wraps an array (moved in, not copied) whose first element along each dimension has
    /// index `origin`. Any memory order works on every backend.
    ///
    /// # Errors
    /// [`Error::Shape`] where the array's rank or `origin`'s length is not `D`'s, or where an
    /// end (`origin + length`) is past `i64::MAX`.
    pub fn from_array(data: ArrayD<T>, origin: &[i64]) -> Result<Self, Error> {
        check_rank::<D>(data.ndim())?;
        if origin.len() != data.ndim() {
            return Err(Error::Shape(format!(
                "origin has {} entries for an array of {} dimensions",
                origin.len(),
                data.ndim()
            )));
        }
        check_end(origin, data.shape())?;
        Ok(Field {
            data,
            origin: origin.to_vec(),
            _dims: PhantomData,
        })
    }

    /// Wraps an array starting at index 0 in every dimension.
    pub fn from_array_zero_origin(data: ArrayD<T>) -> Result<Self, Error> {
        let origin = vec![0; data.ndim()];
        Self::from_array(data, &origin)
    }

    /// The domain: one half-open index range per dimension.
    pub fn domain(&self) -> Vec<Range<i64>> {
        self.origin
            .iter()
            .zip(self.data.shape())
            .map(|(&o, &n)| o..o + n as i64)
            .collect()
    }

    /// The index of the first element per dimension.
    pub fn origin(&self) -> &[i64] {
        &self.origin
    }
    /// The number of points per dimension.
    pub fn shape(&self) -> &[usize] {
        self.data.shape()
    }
    /// Element strides (not bytes), per dimension.
    pub fn strides(&self) -> &[isize] {
        self.data.strides()
    }
    /// A view of the data; element `[0, 0, …]` of the view is the point at [`Field::origin`].
    pub fn as_array(&self) -> ArrayViewD<'_, T> {
        self.data.view()
    }
    /// A writable view of the data; element `[0, 0, …]` of the view is the point at
    /// [`Field::origin`].
    pub fn as_array_mut(&mut self) -> ArrayViewMutD<'_, T> {
        self.data.view_mut()
    }
    /// The writable data together with the origin (disjoint borrows of one field).
    pub fn parts_mut(&mut self) -> (ArrayViewMutD<'_, T>, &[i64]) {
        (self.data.view_mut(), &self.origin)
    }
    /// The data, without its origin.
    pub fn into_array(self) -> ArrayD<T> {
        self.data
    }
    /// The names of the field's dimensions, in order (`["Edge", "K"]`).
    pub fn dim_names(&self) -> &'static [&'static str] {
        D::names()
    }

    /// Pointer to the element at the origin (the first element of each dimension).
    pub fn as_ptr(&self) -> *const T {
        self.data.as_ptr()
    }
    /// Pointer to the element at the origin, for writing (FFI, device copies).
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.data.as_mut_ptr()
    }

    /// The element at domain index `idx`, if inside the domain.
    pub fn get(&self, idx: &[i64]) -> Option<T> {
        let local = self.local_index(idx)?;
        self.data.get(IxDyn(&local)).copied()
    }

    /// Sets the element at domain index `idx`; `Err` outside the domain.
    pub fn set(&mut self, idx: &[i64], value: T) -> Result<(), Error> {
        let local = self.local_index(idx).ok_or_else(|| {
            Error::Shape(format!(
                "index {idx:?} is outside the field's domain {:?}",
                self.domain()
            ))
        })?;
        self.data[IxDyn(&local)] = value;
        Ok(())
    }

    fn local_index(&self, idx: &[i64]) -> Option<Vec<usize>> {
        if idx.len() != self.origin.len() {
            return None;
        }
        idx.iter()
            .zip(&self.origin)
            .zip(self.data.shape())
            .map(|((&i, &o), &n)| {
                let l = i - o;
                (l >= 0 && (l as usize) < n).then_some(l as usize)
            })
            .collect()
    }

    /// Sets every element to `value` (e.g. NaN, to catch points a program fails to write).
    pub fn fill(&mut self, value: T) {
        self.data.fill(value);
    }
}

/// Every field's end (`origin + len` per dimension) is an i64, so the backends' bounds checks
/// never overflow on a field's own range.
fn check_end(origin: &[i64], shape: &[usize]) -> Result<(), Error> {
    for (d, (&o, &n)) in origin.iter().zip(shape).enumerate() {
        let end = i64::try_from(n).ok().and_then(|n| o.checked_add(n));
        if end.is_none() {
            return Err(Error::Shape(format!(
                "dimension {d} starts at {o} and holds {n} points: its end is past the largest index, {}",
                i64::MAX
            )));
        }
    }
    Ok(())
}

fn check_rank<D: Dims>(rank: usize) -> Result<(), Error> {
    if rank != D::RANK {
        return Err(Error::Shape(format!(
            "a field over ({}) has {} dimensions, but {} were given",
            D::names().join(", "),
            D::RANK,
            rank
        )));
    }
    Ok(())
}

//! Views: a field's data borrowed, not owned. A program runs on views ([`FieldRef`] for the fields
//! it reads, [`FieldMut`] for those it writes): `call` takes views of its [`Field`] arguments,
//! and a foreign caller (the C ABI, a Fortran model) builds views of its own arrays with
//! [`FieldRef::from_raw_parts`], so its memory is used in place, never copied.
//!
//! A view is a pointer to the element at the field's origin plus the shape, element strides
//! (any sign, any order: Fortran's column-major arrays and their sections are views like any
//! other) and origin, each borrowed for the view's lifetime.

use std::marker::PhantomData;
use std::ops::Range;
use std::ptr::NonNull;

use ndarray::{ArrayViewD, ArrayViewMutD, Axis, IxDyn, ShapeBuilder};

use crate::args::Arg;
use crate::dims::Dims;
use crate::error::Error;
use crate::field::{Field, Scalar};

/// The dimensions and element type of a field type, so generated code can name the view of a
/// parameter written as `Field<D, T>` (or an alias of it).
pub trait FieldType {
    /// The field's dimensions.
    type Dims: Dims;
    /// The field's element type.
    type Elem: Scalar;
}

impl<D: Dims, T: Scalar> FieldType for Field<D, T> {
    type Dims = D;
    type Elem = T;
}

/// The read-only view of a field of type `F` (`RefOf<'a, Field<(Edge, K), f64>>`).
pub type RefOf<'a, F> = FieldRef<'a, <F as FieldType>::Dims, <F as FieldType>::Elem>;
/// The writable view of a field of type `F`.
pub type MutOf<'a, F> = FieldMut<'a, <F as FieldType>::Dims, <F as FieldType>::Elem>;

/// The parts every view holds.
#[derive(Clone, Copy, Debug)]
struct Parts<'a, T> {
    /// The element at the origin. Dangling (never read) where the view is empty.
    ptr: NonNull<T>,
    shape: &'a [usize],
    strides: &'a [isize],
    origin: &'a [i64],
}

impl<'a, T: Scalar> Parts<'a, T> {
    fn domain(&self) -> Vec<Range<i64>> {
        self.origin
            .iter()
            .zip(self.shape)
            .map(|(&o, &n)| o..o + n as i64)
            .collect()
    }

    fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    /// The lowest address the view reaches, and the element strides and axes to invert to see
    /// it from there with non-negative strides (as `ndarray` needs).
    fn lowest_first(&self) -> (*mut T, Vec<usize>, Vec<usize>) {
        let mut low = self.ptr.as_ptr();
        let mut strides = Vec::with_capacity(self.strides.len());
        let mut inverted = Vec::new();
        for (axis, (&s, &n)) in self.strides.iter().zip(self.shape).enumerate() {
            if s < 0 && n > 1 {
                // SAFETY: `check_span` (every constructor) proved that every element of the
                // view lies in one allocation; this is the first element along this axis.
                low = unsafe { low.offset(s * (n as isize - 1)) };
                inverted.push(axis);
            }
            strides.push(s.unsigned_abs());
        }
        (low, strides, inverted)
    }

    fn array(&self) -> ArrayViewD<'_, T> {
        if self.is_empty() {
            return ArrayViewD::from_shape(IxDyn(self.shape), &[]).expect("an empty shape");
        }
        let (low, strides, inverted) = self.lowest_first();
        let shape = IxDyn(self.shape).strides(IxDyn(&strides));
        // SAFETY: the constructors checked that every element the shape and strides reach lies
        // in one allocation valid for reads for 'a, the span fits isize, and the pointer is
        // aligned and non-null; the strides from `low` are non-negative.
        let mut view = unsafe { ArrayViewD::from_shape_ptr(shape, low as *const T) };
        for axis in inverted {
            view.invert_axis(Axis(axis));
        }
        view
    }

    /// # Safety
    /// The view must be writable (built from a `&mut` or a raw pointer valid for writes) and
    /// not aliased for the borrow.
    unsafe fn array_mut(&mut self) -> ArrayViewMutD<'_, T> {
        if self.is_empty() {
            return ArrayViewMutD::from_shape(IxDyn(self.shape), &mut []).expect("an empty shape");
        }
        let (low, strides, inverted) = self.lowest_first();
        let shape = IxDyn(self.shape).strides(IxDyn(&strides));
        // SAFETY: as in `array`, and the caller guarantees writes are allowed and unaliased
        // (`FieldMut`'s constructors check that no two indices share an element).
        let mut view = unsafe { ArrayViewMutD::from_shape_ptr(shape, low) };
        for axis in inverted {
            view.invert_axis(Axis(axis));
        }
        view
    }

    /// `[lowest, highest]` byte addresses the view touches (`None` if empty).
    fn address_range(&self) -> Option<(usize, usize)> {
        if self.is_empty() {
            return None;
        }
        let size = std::mem::size_of::<T>() as isize;
        let (mut lo, mut hi) = (0isize, 0isize);
        for (&s, &n) in self.strides.iter().zip(self.shape) {
            let reach = s * (n as isize - 1);
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        let base = self.ptr.as_ptr() as isize;
        Some((
            (base + lo * size) as usize,
            (base + hi * size + size - 1) as usize,
        ))
    }

    /// The view restricted to `range` of dimension `dim` (in domain indices).
    fn narrow(
        mut self,
        dim: usize,
        range: Range<i64>,
        shape: &'a mut [usize],
    ) -> Result<Self, Error> {
        let domain = self.domain();
        let Some(full) = domain.get(dim) else {
            return Err(Error::Shape(format!(
                "dimension {dim} does not exist in a view of {} dimensions",
                domain.len()
            )));
        };
        if range.start < full.start || range.end > full.end || range.start > range.end {
            return Err(Error::Shape(format!(
                "{}..{} is not inside dimension {dim}'s {}..{}",
                range.start, range.end, full.start, full.end
            )));
        }
        if shape.len() != self.shape.len() {
            return Err(Error::Shape(format!(
                "{} sizes given for the narrowed view of {} dimensions",
                shape.len(),
                self.shape.len()
            )));
        }
        shape.copy_from_slice(self.shape);
        shape[dim] = (range.end - range.start) as usize;
        let skip = (range.start - full.start) as isize;
        if !shape.contains(&0) && skip > 0 {
            // SAFETY: `skip` is inside the dimension and the new view is not empty, so the new
            // first element is an element of the old view.
            self.ptr = unsafe {
                NonNull::new_unchecked(self.ptr.as_ptr().offset(skip * self.strides[dim]))
            };
        }
        self.shape = shape;
        Ok(self)
    }
}

/// Checks the parts of a view over `D` before anything reads through them: the rank, the
/// lengths of `shape`, `strides` and `origin`, that every element lies within `isize::MAX`
/// bytes of the others, that the domain's end fits an i64, and that `ptr` is aligned and
/// non-null (unless the view is empty). A writable view's indices must name distinct
/// elements (`distinct`).
fn check_parts<D: Dims, T: Scalar>(
    ptr: *const T,
    shape: &[usize],
    strides: &[isize],
    origin: &[i64],
    distinct: bool,
) -> Result<NonNull<T>, Error> {
    let rank = D::RANK;
    if shape.len() != rank || strides.len() != rank || origin.len() != rank {
        return Err(Error::Shape(format!(
            "a view over ({}) needs {rank} sizes, strides and origins; {} sizes, {} strides and {} origins were given",
            D::names().join(", "),
            shape.len(),
            strides.len(),
            origin.len()
        )));
    }
    for (d, (&o, &n)) in origin.iter().zip(shape).enumerate() {
        if i64::try_from(n)
            .ok()
            .and_then(|n| o.checked_add(n))
            .is_none()
        {
            return Err(Error::Shape(format!(
                "dimension {} ({}) starts at {o} and holds {n} points: its end is past the largest index",
                d,
                D::names()[d]
            )));
        }
    }
    let empty = shape.contains(&0);
    if empty {
        return Ok(NonNull::dangling());
    }
    let Some(ptr) = NonNull::new(ptr as *mut T) else {
        return Err(Error::Shape(format!(
            "the data of a view of shape {shape:?} is a null pointer"
        )));
    };
    if !(ptr.as_ptr() as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(Error::Shape(format!(
            "the data at {:p} is not aligned for {} (alignment {})",
            ptr.as_ptr(),
            T::DTYPE.rust_name(),
            std::mem::align_of::<T>()
        )));
    }
    check_span::<T>(shape, strides)?;
    if distinct {
        check_distinct(shape, strides)?;
    }
    Ok(ptr)
}

/// The distance between the lowest and the highest element, in elements and in bytes, fits
/// an isize (as pointer offsets need).
fn check_span<T>(shape: &[usize], strides: &[isize]) -> Result<(), Error> {
    let mut span: i128 = 0;
    for (&n, &s) in shape.iter().zip(strides) {
        span += (n as i128 - 1) * (s as i128).abs();
    }
    let bytes = (span + 1) * std::mem::size_of::<T>() as i128;
    if bytes > isize::MAX as i128 {
        return Err(Error::Shape(format!(
            "sizes {shape:?} with strides {strides:?} reach {bytes} bytes, more than an address space holds"
        )));
    }
    Ok(())
}

/// No two indices of a writable view name one element: sorted by stride, each dimension
/// steps over the whole extent of the ones before it (true of every Fortran array and
/// section). A writable view that repeated elements would make parallel writes race.
fn check_distinct(shape: &[usize], strides: &[isize]) -> Result<(), Error> {
    // The dimensions of more than one point by stride, without allocating (a foreign call
    // checks every written view); a view of more dimensions than `Dims` has is refused earlier.
    const MAX_RANK: usize = 8;
    let mut dims = [(0usize, 0usize); MAX_RANK];
    let mut count = 0;
    for (&n, &s) in shape.iter().zip(strides) {
        if n > 1 && count < MAX_RANK {
            let mut at = count;
            while at > 0 && dims[at - 1].0 > s.unsigned_abs() {
                dims[at] = dims[at - 1];
                at -= 1;
            }
            dims[at] = (s.unsigned_abs(), n);
            count += 1;
        }
    }
    let mut extent = 1usize;
    for &(stride, n) in &dims[..count] {
        if stride < extent {
            return Err(Error::Shape(format!(
                "sizes {shape:?} with strides {strides:?} name some elements twice; a field that is written needs one element per index"
            )));
        }
        extent = stride.saturating_mul(n);
    }
    Ok(())
}

/// What a read-only view borrows: `T`s for `'a`, over dimensions `D`.
type Shared<'a, D, T> = PhantomData<(&'a T, fn() -> D)>;
/// What a writable view borrows.
type Unique<'a, D, T> = PhantomData<(&'a mut T, fn() -> D)>;

/// A read-only view of a field over the dimensions `D` with elements `T`.
#[derive(Debug)]
pub struct FieldRef<'a, D: Dims, T: Scalar> {
    parts: Parts<'a, T>,
    _borrow: Shared<'a, D, T>,
}

impl<D: Dims, T: Scalar> Clone for FieldRef<'_, D, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<D: Dims, T: Scalar> Copy for FieldRef<'_, D, T> {}

// SAFETY: a `FieldRef` is a shared borrow of `T`s (like `&[T]`), so it may cross threads
// when `T` may be shared.
unsafe impl<D: Dims, T: Scalar> Send for FieldRef<'_, D, T> {}
// SAFETY: as for `Send`: only reads go through it.
unsafe impl<D: Dims, T: Scalar> Sync for FieldRef<'_, D, T> {}

/// A writable view of a field over the dimensions `D` with elements `T`.
#[derive(Debug)]
pub struct FieldMut<'a, D: Dims, T: Scalar> {
    parts: Parts<'a, T>,
    _borrow: Unique<'a, D, T>,
}

// SAFETY: a `FieldMut` is a unique borrow of `T`s (like `&mut [T]`).
unsafe impl<D: Dims, T: Scalar> Send for FieldMut<'_, D, T> {}
// SAFETY: shared access to a `FieldMut` only reads (`&self` methods never write).
unsafe impl<D: Dims, T: Scalar> Sync for FieldMut<'_, D, T> {}

impl<'a, D: Dims, T: Scalar> FieldRef<'a, D, T> {
    /// The view of `field`'s data.
    pub fn of(field: &'a Field<D, T>) -> Self {
        FieldRef {
            parts: Parts {
                // A field's pointer is never null (ndarray's buffers are dangling, not null,
                // when empty).
                ptr: NonNull::new(field.as_ptr() as *mut T).unwrap_or(NonNull::dangling()),
                shape: field.shape(),
                strides: field.strides(),
                origin: field.origin(),
            },
            _borrow: PhantomData,
        }
    }

    /// A view of `array`, whose first element along each dimension has index `origin`.
    pub fn from_array(array: &'a ArrayViewD<'a, T>, origin: &'a [i64]) -> Result<Self, Error> {
        let ptr = check_parts::<D, T>(
            array.as_ptr(),
            array.shape(),
            array.strides(),
            origin,
            false,
        )?;
        Ok(FieldRef {
            parts: Parts {
                ptr,
                shape: array.shape(),
                strides: array.strides(),
                origin,
            },
            _borrow: PhantomData,
        })
    }

    /// A view of memory the caller owns: `ptr` is the element at the origin; index `i` along
    /// dimension `d` (counted from 0) is `strides[d] * i` elements from it.
    ///
    /// The parts are checked (see the module documentation of the errors); the memory is not.
    ///
    /// # Safety
    /// Every element the shape and strides reach from `ptr` must lie in one allocation, be
    /// initialised and stay valid for reads, unchanged by anyone else, for `'a`.
    pub unsafe fn from_raw_parts(
        ptr: *const T,
        shape: &'a [usize],
        strides: &'a [isize],
        origin: &'a [i64],
    ) -> Result<Self, Error> {
        let ptr = check_parts::<D, T>(ptr, shape, strides, origin, false)?;
        Ok(FieldRef {
            parts: Parts {
                ptr,
                shape,
                strides,
                origin,
            },
            _borrow: PhantomData,
        })
    }

    /// Pointer to the element at the origin.
    pub fn as_ptr(&self) -> *const T {
        self.parts.ptr.as_ptr()
    }
    /// The index of the first element along each dimension.
    pub fn origin(&self) -> &'a [i64] {
        self.parts.origin
    }
    /// The number of elements along each dimension.
    pub fn shape(&self) -> &'a [usize] {
        self.parts.shape
    }
    /// Element strides (not bytes), per dimension.
    pub fn strides(&self) -> &'a [isize] {
        self.parts.strides
    }
    /// The domain: one half-open index range per dimension.
    pub fn domain(&self) -> Vec<Range<i64>> {
        self.parts.domain()
    }
    /// The data as an `ndarray` view.
    pub fn as_array(&self) -> ArrayViewD<'_, T> {
        self.parts.array()
    }
    /// The element at domain index `idx`, if inside the domain.
    pub fn get(&self, idx: &[i64]) -> Option<T> {
        let local = local_index(self.parts.origin, self.parts.shape, idx)?;
        self.as_array().get(IxDyn(&local)).copied()
    }
    /// The view restricted to `range` of dimension `dim`; `shape` holds the new sizes.
    pub fn narrow(
        self,
        dim: usize,
        range: Range<i64>,
        shape: &'a mut [usize],
    ) -> Result<Self, Error> {
        Ok(FieldRef {
            parts: self.parts.narrow(dim, range, shape)?,
            _borrow: PhantomData,
        })
    }
    /// `[lowest, highest]` byte addresses the view reads (`None` if empty).
    pub fn address_range(&self) -> Option<(usize, usize)> {
        self.parts.address_range()
    }
    /// The view as a backend argument (the embedded and CUDA backends, the debug checks).
    pub fn arg(&self) -> Arg<'_> {
        Arg::Field(T::view(self.as_array(), self.parts.origin))
    }
}

impl<'a, D: Dims, T: Scalar> FieldMut<'a, D, T> {
    /// The writable view of `field`'s data.
    pub fn of(field: &'a mut Field<D, T>) -> Self {
        let ptr = NonNull::new(field.as_mut_ptr()).unwrap_or(NonNull::dangling());
        let field: &'a Field<D, T> = field;
        FieldMut {
            parts: Parts {
                ptr,
                shape: field.shape(),
                strides: field.strides(),
                origin: field.origin(),
            },
            _borrow: PhantomData,
        }
    }

    /// A writable view of `array`, whose first element along each dimension has index
    /// `origin`.
    pub fn from_array(
        array: &'a mut ArrayViewMutD<'a, T>,
        origin: &'a [i64],
    ) -> Result<Self, Error> {
        let ptr = array.as_mut_ptr();
        let array: &'a ArrayViewMutD<'a, T> = array;
        let ptr = check_parts::<D, T>(ptr, array.shape(), array.strides(), origin, true)?;
        Ok(FieldMut {
            parts: Parts {
                ptr,
                shape: array.shape(),
                strides: array.strides(),
                origin,
            },
            _borrow: PhantomData,
        })
    }

    /// A writable view of memory the caller owns (see [`FieldRef::from_raw_parts`]); the
    /// indices must name distinct elements.
    ///
    /// # Safety
    /// Every element the shape and strides reach from `ptr` must lie in one allocation, be
    /// initialised and stay valid for reads and writes, untouched by anyone else, for `'a`.
    pub unsafe fn from_raw_parts(
        ptr: *mut T,
        shape: &'a [usize],
        strides: &'a [isize],
        origin: &'a [i64],
    ) -> Result<Self, Error> {
        let ptr = check_parts::<D, T>(ptr, shape, strides, origin, true)?;
        Ok(FieldMut {
            parts: Parts {
                ptr,
                shape,
                strides,
                origin,
            },
            _borrow: PhantomData,
        })
    }

    /// A shorter writable borrow of the same view.
    pub fn reborrow(&mut self) -> FieldMut<'_, D, T> {
        FieldMut {
            parts: self.parts,
            _borrow: PhantomData,
        }
    }
    /// A read-only view of the same data, for as long as this one is borrowed.
    pub fn as_ref(&self) -> FieldRef<'_, D, T> {
        FieldRef {
            parts: self.parts,
            _borrow: PhantomData,
        }
    }

    /// Pointer to the element at the origin.
    pub fn as_ptr(&self) -> *const T {
        self.parts.ptr.as_ptr()
    }
    /// Pointer to the element at the origin, for writes.
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.parts.ptr.as_ptr()
    }
    /// The index of the first element along each dimension.
    pub fn origin(&self) -> &'a [i64] {
        self.parts.origin
    }
    /// The number of elements along each dimension.
    pub fn shape(&self) -> &'a [usize] {
        self.parts.shape
    }
    /// Element strides (not bytes), per dimension.
    pub fn strides(&self) -> &'a [isize] {
        self.parts.strides
    }
    /// The domain: one half-open index range per dimension.
    pub fn domain(&self) -> Vec<Range<i64>> {
        self.parts.domain()
    }
    /// The data as an `ndarray` view.
    pub fn as_array(&self) -> ArrayViewD<'_, T> {
        self.parts.array()
    }
    /// The data as a writable `ndarray` view.
    pub fn as_array_mut(&mut self) -> ArrayViewMutD<'_, T> {
        // SAFETY: a `FieldMut` is built from a unique borrow or from memory its creator
        // vouched is writable and unaliased, with distinct elements per index.
        unsafe { self.parts.array_mut() }
    }
    /// The element at domain index `idx`, if inside the domain.
    pub fn get(&self, idx: &[i64]) -> Option<T> {
        self.as_ref().get(idx)
    }
    /// Sets every element to `value`.
    pub fn fill(&mut self, value: T) {
        self.as_array_mut().fill(value);
    }
    /// The view restricted to `range` of dimension `dim`; `shape` holds the new sizes.
    pub fn narrow(
        self,
        dim: usize,
        range: Range<i64>,
        shape: &'a mut [usize],
    ) -> Result<Self, Error> {
        Ok(FieldMut {
            parts: self.parts.narrow(dim, range, shape)?,
            _borrow: PhantomData,
        })
    }
    /// `[lowest, highest]` byte addresses the view writes (`None` if empty).
    pub fn address_range(&self) -> Option<(usize, usize)> {
        self.parts.address_range()
    }
    /// The view as a writable backend argument.
    pub fn arg(&mut self) -> Arg<'_> {
        let origin = self.parts.origin;
        Arg::FieldMut(T::view_mut(self.as_array_mut(), origin))
    }
}

fn local_index(origin: &[i64], shape: &[usize], idx: &[i64]) -> Option<Vec<usize>> {
    if idx.len() != origin.len() {
        return None;
    }
    idx.iter()
        .zip(origin)
        .zip(shape)
        .map(|((&i, &o), &n)| {
            let l = i.checked_sub(o)?;
            (l >= 0 && (l as usize) < n).then_some(l as usize)
        })
        .collect()
}

impl<D: Dims, T: Scalar> Field<D, T> {
    /// A read-only view of the field's data (what a program's `call` runs on).
    pub fn view(&self) -> FieldRef<'_, D, T> {
        FieldRef::of(self)
    }
    /// A writable view of the field's data.
    pub fn view_mut(&mut self) -> FieldMut<'_, D, T> {
        FieldMut::of(self)
    }
}

#[cfg(test)]
mod tests;

use super::*;
use crate::field::Layout;

#[derive(Clone, Copy, Debug, Default)]
struct Cell;
impl crate::dims::Dimension for Cell {
    const NAME: &'static str = "Cell";
    const KIND: crate::DimKind = crate::DimKind::Horizontal;
}
#[derive(Clone, Copy, Debug, Default)]
struct K;
impl crate::dims::Dimension for K {
    const NAME: &'static str = "K";
    const KIND: crate::DimKind = crate::DimKind::Vertical;
}

/// A Fortran `a(nproma, nlev)` with values `1000 i + k` (0-based), column-major.
fn fortran_array(nproma: usize, nlev: usize) -> Vec<f64> {
    let mut a = vec![0.0; nproma * nlev];
    for k in 0..nlev {
        for i in 0..nproma {
            a[i + nproma * k] = (1000 * i + k) as f64 + 0.5;
        }
    }
    a
}

#[test]
fn a_view_of_a_field_sees_its_data_in_place() {
    let field = Field::<(Cell, K), f64>::from_fn(&[2..7, 0..3], Layout::FirstContiguous, |i| {
        (10 * i[0] + i[1]) as f64
    })
    .expect("field");
    let view = field.view();
    assert_eq!(view.as_ptr(), field.as_ptr());
    assert_eq!(view.shape(), &[5, 3]);
    assert_eq!(view.strides(), &[1, 5]);
    assert_eq!(view.domain(), vec![2..7, 0..3]);
    assert_eq!(view.get(&[4, 2]), Some(42.0));
    assert_eq!(view.get(&[1, 0]), None);
    assert_eq!(view.as_array(), field.as_array());
}

#[test]
fn writes_through_a_view_reach_the_field() {
    let mut field =
        Field::<(Cell, K), f64>::filled(&[0..4, 0..2], f64::NAN, Layout::default()).expect("field");
    let mut view = field.view_mut();
    view.as_array_mut()[[3, 1]] = 7.0;
    view.reborrow().fill(1.5);
    assert_eq!(field.get(&[3, 1]), Some(1.5));
    assert!(field.as_array().iter().all(|&v| v == 1.5));
}

#[test]
fn raw_parts_read_a_fortran_array_and_a_section_of_it() {
    let (nproma, nlev) = (6, 4);
    let a = fortran_array(nproma, nlev);
    let (shape, strides, origin) = ([nproma, nlev], [1isize, nproma as isize], [0i64, 0]);
    // SAFETY: `a` holds nproma * nlev elements, column-major, alive and unchanged for the test.
    let view = unsafe {
        FieldRef::<(Cell, K), f64>::from_raw_parts(a.as_ptr(), &shape, &strides, &origin)
    }
    .expect("a valid view");
    for i in 0..nproma as i64 {
        for k in 0..nlev as i64 {
            assert_eq!(view.get(&[i, k]), Some((1000 * i + k) as f64 + 0.5));
        }
    }
    // Every other point and levels 1..4 reversed: a(2::2, 4:2:-1) in Fortran.
    let (sec_shape, sec_strides) = ([3usize, 3], [2isize, -(nproma as isize)]);
    let start = 1 + nproma * 3;
    // SAFETY: the section's elements are elements of `a`.
    let section = unsafe {
        FieldRef::<(Cell, K), f64>::from_raw_parts(
            a[start..].as_ptr(),
            &sec_shape,
            &sec_strides,
            &origin,
        )
    }
    .expect("a valid section");
    let array = section.as_array();
    for i in 0..3 {
        for k in 0..3 {
            let expected = (1000 * (1 + 2 * i) + (3 - k)) as f64 + 0.5;
            assert_eq!(array[[i, k]], expected, "({i}, {k})");
        }
    }
    assert_eq!(section.get(&[2, 2]), Some(5001.5));
}

#[test]
fn bad_parts_are_errors_naming_what_is_wrong() {
    let a = fortran_array(4, 2);
    let origin = [0i64, 0];
    let check = |shape: &[usize], strides: &[isize], ptr: *const f64, origin: &[i64]| {
        // SAFETY: only parts that fail their checks reach memory here, and those never do.
        unsafe { FieldRef::<(Cell, K), f64>::from_raw_parts(ptr, shape, strides, origin) }
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(check(&[4, 2], &[1, 4], std::ptr::null(), &origin).contains("null pointer"));
    assert!(check(&[4], &[1], a.as_ptr(), &[0]).contains("needs 2 sizes"));
    let misaligned = (a.as_ptr() as *const u8).wrapping_add(1) as *const f64;
    assert!(check(&[4, 2], &[1, 4], misaligned, &origin).contains("not aligned"));
    assert!(check(&[usize::MAX / 4, 2], &[1, 4], a.as_ptr(), &origin).contains("address space"));
    assert!(check(&[4, 2], &[1, 4], a.as_ptr(), &[i64::MAX - 2, 0]).contains("end is past"));
    // An empty view may have a null pointer: nothing is read.
    assert_eq!(check(&[0, 2], &[1, 4], std::ptr::null(), &origin), "");
}

#[test]
fn a_writable_view_must_name_each_element_once() {
    let mut a = fortran_array(4, 3);
    let origin = [0i64, 0];
    // Stride 2 over 4 points overlaps the next column at stride 4.
    let (shape, strides) = ([4usize, 3], [2isize, 4]);
    // SAFETY: the parts fail their checks before any access.
    let overlapping = unsafe {
        FieldMut::<(Cell, K), f64>::from_raw_parts(a.as_mut_ptr(), &shape, &strides, &origin)
    };
    let message = overlapping.expect_err("overlapping").to_string();
    assert!(message.contains("name some elements twice"), "{message}");
    // Read-only views may repeat elements (a broadcast along K).
    let (shape, strides) = ([4usize, 3], [1isize, 0]);
    // SAFETY: every element reached is one of the first four of `a`.
    let broadcast = unsafe {
        FieldRef::<(Cell, K), f64>::from_raw_parts(a.as_ptr(), &shape, &strides, &origin)
    }
    .expect("a broadcast read");
    assert_eq!(broadcast.get(&[3, 2]), Some(3000.5));
}

#[test]
fn narrowing_keeps_the_data_in_place() {
    let mut field =
        Field::<(Cell, K), f64>::from_fn(&[0..10, 0..3], Layout::FirstContiguous, |i| {
            (10 * i[0] + i[1]) as f64
        })
        .expect("field");
    let mut shape = [0usize; 2];
    let view = field
        .view_mut()
        .narrow(0, 2..5, &mut shape)
        .expect("inside");
    assert_eq!(view.domain(), vec![0..3, 0..3]);
    assert_eq!(view.get(&[0, 1]), Some(21.0));
    assert_eq!(view.get(&[2, 2]), Some(42.0));
    let mut shape = [0usize; 2];
    let outside = field.view().narrow(0, 8..11, &mut shape);
    assert!(outside
        .expect_err("outside")
        .to_string()
        .contains("not inside"));
}

#[test]
fn address_ranges_cover_every_element() {
    let a = fortran_array(5, 3);
    let (shape, strides, origin) = ([5usize, 3], [1isize, 5], [0i64, 0]);
    // SAFETY: `a` holds the 15 elements.
    let view = unsafe {
        FieldRef::<(Cell, K), f64>::from_raw_parts(a.as_ptr(), &shape, &strides, &origin)
    }
    .expect("view");
    let (lo, hi) = view.address_range().expect("not empty");
    assert_eq!(lo, a.as_ptr() as usize);
    assert_eq!(hi, a.as_ptr() as usize + 15 * 8 - 1);
}

use super::*;

#[derive(Clone, Copy, Debug, Default)]
struct Edge;
#[derive(Clone, Copy, Debug, Default)]
struct Vertex;
#[derive(Clone, Copy, Debug, Default)]
struct E2V;
#[derive(Clone, Copy, Debug, Default)]
struct V2E;
impl Dimension for Edge {
    const NAME: &'static str = "Edge";
    const KIND: DimKind = DimKind::Horizontal;
}
impl Dimension for Vertex {
    const NAME: &'static str = "Vertex";
    const KIND: DimKind = DimKind::Horizontal;
}
impl Dimension for E2V {
    const NAME: &'static str = "E2V";
    const KIND: DimKind = DimKind::Local;
}
impl Offset for E2V {
    type From = Edge;
    type To = Vertex;
    const COUNT: usize = 2;
}
impl Dimension for V2E {
    const NAME: &'static str = "V2E";
    const KIND: DimKind = DimKind::Local;
}
impl Offset for V2E {
    type From = Vertex;
    type To = Edge;
    const COUNT: usize = 2;
    const SKIP_VALUES: bool = true;
}

/// ICON's `(nproma, nblks, n)` arrays, column-major, from 0-based `points` (-1 missing): the
/// 1-based idx/blk ICON stores, with `pad` for the rows past `points`.
fn icon_arrays(points: &[[i64; 2]], nproma: usize, nblks: usize, pad: i32) -> (Vec<i32>, Vec<i32>) {
    let n = 2;
    let (mut idx, mut blk) = (vec![pad; nproma * nblks * n], vec![pad; nproma * nblks * n]);
    for (row, pair) in points.iter().enumerate() {
        let (jc, jb) = (row % nproma, row / nproma);
        for (slot, &p) in pair.iter().enumerate() {
            let at = jc + nproma * (jb + nblks * slot);
            if p < 0 {
                (idx[at], blk[at]) = (0, 0);
            } else {
                idx[at] = (p as usize % nproma + 1) as i32;
                blk[at] = (p as usize / nproma + 1) as i32;
            }
        }
    }
    (idx, blk)
}

fn convert<O: Offset>(
    idx: &[i32],
    blk: &[i32],
    nproma: usize,
    nblks: usize,
    rows: i64,
    target: i64,
) -> Result<Vec<i32>, Failure> {
    let shape = [nproma, nblks, O::COUNT];
    let strides = [1isize, nproma as isize, (nproma * nblks) as isize];
    let origin = [0i64; 3];
    // SAFETY: both arrays hold nproma * nblks * COUNT elements, alive for the call.
    let (idx, blk) = unsafe {
        (
            FieldRef::<IconTable, i32>::from_raw_parts(idx.as_ptr(), &shape, &strides, &origin)
                .expect("idx"),
            FieldRef::<IconTable, i32>::from_raw_parts(blk.as_ptr(), &shape, &strides, &origin)
                .expect("blk"),
        )
    };
    connectivity::<O>("test", idx, blk, rows, target).map(|c| c.as_slice().to_vec())
}

#[test]
fn one_block_with_padding_converts_to_zero_based_rows() {
    let points = [[0, 1], [1, 2], [2, 3], [3, 0]];
    let (idx, blk) = icon_arrays(&points, 6, 1, 77);
    let table = convert::<E2V>(&idx, &blk, 6, 1, 4, 4).expect("a valid table");
    assert_eq!(table, vec![0, 1, 1, 2, 2, 3, 3, 0]);
}

#[test]
fn blocks_are_unrolled_into_one_index() {
    let points = [[4, 1], [1, 2], [2, 3], [3, 4], [0, 2]];
    let (idx, blk) = icon_arrays(&points, 2, 3, 0);
    let table = convert::<E2V>(&idx, &blk, 2, 3, 5, 5).expect("a valid blocked table");
    assert_eq!(table, vec![4, 1, 1, 2, 2, 3, 3, 4, 0, 2]);
}

#[test]
fn missing_neighbours_become_minus_one_where_declared() {
    let points = [[0, -1], [1, 2], [2, 0]];
    let (idx, blk) = icon_arrays(&points, 3, 1, 0);
    assert_eq!(
        convert::<V2E>(&idx, &blk, 3, 1, 3, 3).expect("skip values"),
        vec![0, -1, 1, 2, 2, 0]
    );
    let message = convert::<E2V>(&idx, &blk, 3, 1, 3, 3)
        .expect_err("E2V has no skip values")
        .message;
    assert!(
        message.contains("point 1 (idx/blk (1, 1, 2)) holds idx 0"),
        "{message}"
    );
    assert!(message.contains("0-based table passed?"), "{message}");
}

#[test]
fn a_zero_based_table_is_named_as_such() {
    // The 0-based entries of a 4-point table handed over as if 1-based: no point 4, some 0s.
    let zero_based = [0, 1, 1, 2, 2, 3, 3, 0];
    let mut idx = vec![0; 8];
    for (row, pair) in zero_based.chunks(2).enumerate() {
        idx[row] = pair[0];
        idx[row + 4] = pair[1];
    }
    let blk = vec![1; 8];
    let message = convert::<V2E>(&idx, &blk, 4, 1, 4, 4)
        .expect_err("0-based")
        .message;
    assert!(message.contains("looks like a 0-based table"), "{message}");
    assert_eq!(
        convert::<E2V>(&idx, &blk, 4, 1, 4, 4)
            .expect_err("0-based")
            .status,
        Status::Connectivity
    );
}

#[test]
fn bad_blocks_indices_and_sizes_are_errors() {
    let points = [[0, 1], [1, 2], [2, 0]];
    let (idx, mut blk) = icon_arrays(&points, 3, 1, 0);
    blk[1] = 0;
    let message = convert::<E2V>(&idx, &blk, 3, 1, 3, 3)
        .expect_err("blk 0")
        .message;
    assert!(
        message.contains("blk 0, outside 1..=1 (blocks are 1-based)"),
        "{message}"
    );
    let (mut idx, blk) = icon_arrays(&points, 3, 1, 0);
    idx[2] = 4;
    let message = convert::<E2V>(&idx, &blk, 3, 1, 3, 3)
        .expect_err("idx 4")
        .message;
    assert!(message.contains("idx 4, outside 1..=3"), "{message}");
    let (idx, blk) = icon_arrays(&points, 3, 1, 0);
    let message = convert::<E2V>(&idx, &blk, 3, 1, 3, 2)
        .expect_err("target 2")
        .message;
    assert!(
        message.contains("names point 3, but there are 2"),
        "{message}"
    );
    let failure = convert::<E2V>(&idx, &blk, 3, 1, 4, 3).expect_err("4 rows");
    assert_eq!(failure.status, Status::Shape);
    assert!(
        failure.message.contains("4 rows do not fit"),
        "{}",
        failure.message
    );
}

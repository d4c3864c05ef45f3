//! ICON's neighbour tables as a Fortran model holds them: `idx(nproma, nblks, n)` and
//! `blk(nproma, nblks, n)`, 1-based, point `p` (0-based) at `(p mod nproma + 1, p / nproma + 1)`,
//! `idx = 0` for a missing neighbour. Converted once, at init, into gt4rs's 0-based tables
//! with -1 for a missing neighbour; a call never sees them again.

use crate::connectivity::Connectivity;
use crate::dims::{Dimension, Offset};
use crate::view::FieldRef;
use crate::DimKind;

use super::{Failure, Status};

/// The first dimension of ICON's arrays (`nproma` points per block).
#[derive(Clone, Copy, Debug, Default)]
pub struct Nproma;
/// ICON's block index (`nblks` blocks).
#[derive(Clone, Copy, Debug, Default)]
pub struct Nblks;
/// The neighbour slot of a table.
#[derive(Clone, Copy, Debug, Default)]
pub struct Neighbours;

impl Dimension for Nproma {
    const NAME: &'static str = "nproma";
    const KIND: DimKind = DimKind::Horizontal;
}
impl Dimension for Nblks {
    const NAME: &'static str = "nblks";
    const KIND: DimKind = DimKind::Horizontal;
}
impl Dimension for Neighbours {
    const NAME: &'static str = "neighbours";
    const KIND: DimKind = DimKind::Local;
}

/// The dimensions of ICON's `idx`/`blk` arrays.
pub type IconTable = (Nproma, Nblks, Neighbours);

/// What a 1-based table must describe.
#[derive(Clone, Copy, Debug)]
pub struct TableSpec<'a> {
    /// The entry converting it, for messages.
    pub function: &'a str,
    /// The offset's name, for messages.
    pub offset: &'a str,
    /// Points with neighbour lists (the first `rows` of the arrays).
    pub rows: i64,
    /// Neighbours per point (the arrays' last size).
    pub neighbours: usize,
    /// Points the neighbours are among.
    pub target_size: i64,
    /// The offset may miss neighbours (`idx = 0`).
    pub skip_values: bool,
}

/// ICON's `idx`/`blk` pair as a row-major 0-based table of `rows * neighbours` entries, -1
/// where `idx` is 0. Errors name the entry: blocks out of range, indices out of range, a 0 in
/// the table of an offset without skip values, and a table that looks 0-based (it names a 0
/// but never its last point, which a 1-based table of neighbours always does).
pub fn zero_based(
    spec: TableSpec<'_>,
    idx: FieldRef<'_, IconTable, i32>,
    blk: FieldRef<'_, IconTable, i32>,
) -> Result<Vec<i32>, Failure> {
    let TableSpec {
        function,
        offset,
        rows,
        neighbours,
        target_size,
        skip_values,
    } = spec;
    let fail = |message: String| {
        Failure::new(
            Status::Connectivity,
            format!("{function}: {offset}: {message}"),
        )
    };
    if idx.shape() != blk.shape() {
        return Err(Failure::new(
            Status::Shape,
            format!(
                "{function}: {offset}: idx has sizes {:?} but blk {:?}",
                idx.shape(),
                blk.shape()
            ),
        ));
    }
    let [nproma, nblks, width] = [idx.shape()[0], idx.shape()[1], idx.shape()[2]];
    if width != neighbours {
        return Err(Failure::new(
            Status::Shape,
            format!("{function}: {offset}: the arrays hold {width} neighbours per point; {offset} has {neighbours}"),
        ));
    }
    let rows = usize::try_from(rows)
        .ok()
        .filter(|&r| r <= nproma.saturating_mul(nblks))
        .ok_or_else(|| {
            Failure::new(
                Status::Shape,
                format!("{function}: {offset}: {rows} rows do not fit arrays of nproma {nproma} by nblks {nblks}"),
            )
        })?;
    let target = usize::try_from(target_size)
        .ok()
        .filter(|&t| i32::try_from(t).is_ok())
        .ok_or_else(|| fail(format!("{target_size} target points is not a table size")))?;
    let (idx, blk) = (idx.as_array(), blk.as_array());
    let mut entries = Vec::with_capacity(rows * width);
    let (mut zeros, mut greatest) = (0usize, -1i64);
    for row in 0..rows {
        let (jc, jb) = (row % nproma, row / nproma);
        for slot in 0..width {
            let (i, b) = (idx[[jc, jb, slot]], blk[[jc, jb, slot]]);
            let at = || {
                format!(
                    "point {} (idx/blk ({}, {}, {}))",
                    row + 1,
                    jc + 1,
                    jb + 1,
                    slot + 1
                )
            };
            if i == 0 {
                if !skip_values {
                    return Err(fail(format!(
                        "{} holds idx 0 (no neighbour), but {offset} always has {width}; ICON's tables are 1-based: was a 0-based table passed?",
                        at()
                    )));
                }
                zeros += 1;
                entries.push(-1);
                continue;
            }
            if i < 0 || i as usize > nproma {
                return Err(fail(format!(
                    "{} holds idx {i}, outside 1..={nproma}",
                    at()
                )));
            }
            if b < 1 || b as usize > nblks {
                return Err(fail(format!(
                    "{} holds blk {b}, outside 1..={nblks} (blocks are 1-based)",
                    at()
                )));
            }
            let point = (b as i64 - 1) * nproma as i64 + (i as i64 - 1);
            if point >= target as i64 {
                return Err(fail(format!(
                    "{} names point {}, but there are {target} (1-based: 1..={target})",
                    at(),
                    point + 1
                )));
            }
            greatest = greatest.max(point);
            entries.push(point as i32);
        }
    }
    if zeros > 0 && rows > 0 && target > 1 && greatest < target as i64 - 1 {
        return Err(fail(format!(
            "{zeros} entries are 0 and none names the last point ({target}): this looks like a 0-based table; ICON's tables are 1-based"
        )));
    }
    Ok(entries)
}

/// The connectivity of `O` from ICON's `idx`/`blk` arrays of `rows` points among `target_size`.
pub fn connectivity<O: Offset>(
    function: &str,
    idx: FieldRef<'_, IconTable, i32>,
    blk: FieldRef<'_, IconTable, i32>,
    rows: i64,
    target_size: i64,
) -> Result<Connectivity<O>, Failure> {
    let spec = TableSpec {
        function,
        offset: O::NAME,
        rows,
        neighbours: O::COUNT,
        target_size,
        skip_values: O::SKIP_VALUES,
    };
    let entries = zero_based(spec, idx, blk)?;
    let rows = entries.len() / O::COUNT.max(1);
    Connectivity::<O>::from_vec(entries, rows, target_size as usize).map_err(Failure::from)
}

#[cfg(test)]
mod tests;

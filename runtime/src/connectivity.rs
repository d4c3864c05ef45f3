//! Neighbour tables.
//!
//! A [`Connectivity<O>`] is built and validated once (entries in range or -1, width equal to
//! the offset's neighbour count). Programs bind the tables they need at `compile()` from
//! [`Options::connectivities`](crate::Options), matched by offset name and checked against the
//! offset's declared dimensions, so a call never re-validates a table.

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::Arc;

use ndarray::{Array2, ArrayView2};

use crate::dims::{Dimension, Offset};
use crate::error::Error;

/// A validated neighbour table, without its offset type.
#[derive(Debug, PartialEq)]
pub struct ConnectivityTable {
    offset: &'static str,
    key: &'static str,
    from: &'static str,
    to: &'static str,
    table: Array2<i32>,
    target_size: usize,
    max_entry: i32,
    has_skip_values: bool,
}

impl ConnectivityTable {
    /// Name of the offset (and of its local dimension).
    pub fn offset(&self) -> &'static str {
        self.offset
    }
    /// The offset declaration's identity ([`Offset::KEY`]): the name plus where it was
    /// declared, or the name alone for an offset implemented by hand.
    pub fn key(&self) -> &'static str {
        self.key
    }
    /// Where the offset was declared, for messages (its name where it carries no place).
    pub fn declared_at(&self) -> &'static str {
        match self.key.split_once('@') {
            Some((_, place)) => place,
            None => self.offset,
        }
    }
    fn is_unkeyed(&self) -> bool {
        self.key.is_empty() || self.key == self.offset
    }
    /// Dimension of the points owning the neighbour lists.
    pub fn from_dim(&self) -> &'static str {
        self.from
    }
    /// Dimension of the neighbours.
    pub fn to_dim(&self) -> &'static str {
        self.to
    }
    /// The table: one row per `from` point, [`ConnectivityTable::count`] columns.
    pub fn table(&self) -> ArrayView2<'_, i32> {
        self.table.view()
    }
    /// Number of `from` points (rows).
    pub fn rows(&self) -> usize {
        self.table.nrows()
    }
    /// Neighbours per row.
    pub fn count(&self) -> usize {
        self.table.ncols()
    }
    /// Number of `to` points the entries index into.
    pub fn target_size(&self) -> usize {
        self.target_size
    }
    /// The largest entry (-1 if every entry is -1).
    pub fn max_entry(&self) -> i32 {
        self.max_entry
    }
    /// Whether any entry is -1 (possible only for offsets declared `with skip_values`).
    pub fn has_skip_values(&self) -> bool {
        self.has_skip_values
    }
    /// Row-major entries: `count()` per row, contiguous.
    pub fn as_slice(&self) -> &[i32] {
        self.table.as_slice().expect("tables are stored row-major")
    }
    /// The reach of rows `lo..hi` (clamped to the table): `(least entry, greatest entry + 1)`,
    /// -1 entries skipped; `(0, 0)` where those rows hold no entry. A temporary that a stage
    /// over those rows reads through this table is computed over the reach only.
    pub fn reach(&self, lo: i64, hi: i64) -> (i64, i64) {
        table_reach(self.as_slice(), self.count(), lo, hi)
    }
}

/// The reach of rows `lo..hi` (clamped to the table) of a row-major connectivity table with
/// `count` entries per row: `(least entry, greatest entry + 1)`, -1 entries skipped; `(0, 0)`
/// where those rows hold no entry. One pass over the rows, no allocation: it bounds the
/// temporary a stage over those rows reads through the table.
fn table_reach(table: &[i32], count: usize, lo: i64, hi: i64) -> (i64, i64) {
    if count == 0 {
        return (0, 0);
    }
    let rows = (table.len() / count) as i64;
    let (lo, hi) = (lo.clamp(0, rows) as usize, hi.clamp(0, rows) as usize);
    if lo >= hi {
        return (0, 0);
    }
    let (mut least, mut greatest) = (i32::MAX, -1);
    for &entry in &table[lo * count..hi * count] {
        if entry >= 0 {
            least = least.min(entry);
            greatest = greatest.max(entry);
        }
    }
    if greatest < 0 {
        (0, 0)
    } else {
        (least as i64, greatest as i64 + 1)
    }
}

/// The message of a -1 in a table of an offset declared without skip values.
fn no_skip_values_declared(
    offset: &str,
    from: &str,
    to: &str,
    count: usize,
    row: usize,
    slot: usize,
) -> String {
    format!(
        "row {row}, slot {slot} holds -1 (no neighbour), but {offset} is declared without skip \
         values; declare `{offset}: {from} => {to} [{count}] with skip_values` if its tables may \
         miss neighbours"
    )
}

/// The neighbour table of offset `O`: one row per `O::From` point, `O::COUNT` columns, each
/// entry an index of an `O::To` point or -1 (no neighbour: the skip value).
///
/// The table is validated once, when it is built: its width must be the offset's neighbour
/// count, every entry must lie in `0..target_size` (`target_size` is the number of `O::To`
/// points, the extent of the fields read through the offset), and a -1 is allowed only for an
/// offset declared `with skip_values` (reductions skip it; a direct neighbour read through it
/// inside a call's domain is an error naming the point). Programs bind tables at `compile()`
/// through [`Options::with_connectivities`](crate::Options::with_connectivities), so calls never
/// check them again. Cloning is cheap (the table is shared).
///
/// ```
/// use gt4rs::prelude::*;
///
/// gt4rs::dimensions! { pub Cell, Edge: horizontal; }
/// gt4rs::offsets! {
///     pub E2C: Edge => Cell [2];
///     pub C2E: Cell => Edge [3] with skip_values;
/// }
///
/// # fn main() -> Result<(), gt4rs::Error> {
/// // Rows flattened row by row: 3 edges × 2 cells each, entries among 2 cells.
/// let e2c = Connectivity::<E2C>::from_vec(vec![0, 1, 1, 0, 0, 1], 3, 2)?;
/// assert_eq!((e2c.rows(), e2c.count(), e2c.target_size()), (3, 2, 2));
///
/// // From an `ndarray::Array2`; cell 1 has only two edges (-1: no neighbour).
/// let table = ndarray::array![[0, 1, 2], [1, 2, -1]];
/// let c2e = Connectivity::<C2E>::new(table, 3)?;
/// assert!(c2e.has_skip_values());
///
/// // Mistakes are errors naming the offset: an entry outside the target dimension, a vector
/// // that is not rows × width, a -1 for an offset declared without skip values.
/// assert!(Connectivity::<E2C>::from_vec(vec![0, 5], 1, 2).is_err());
/// assert!(Connectivity::<E2C>::from_vec(vec![0, 1, 1], 2, 2).is_err());
/// assert!(Connectivity::<E2C>::from_vec(vec![0, -1], 1, 2).is_err());
///
/// // The tables every program compiled with these options may use.
/// let options = Options::default().with_connectivities(Connectivities::new().with(&e2c).with(&c2e));
/// # let _ = options;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Connectivity<O: Offset> {
    table: Arc<ConnectivityTable>,
    _offset: PhantomData<O>,
}

impl<O: Offset> Connectivity<O> {
    /// Validates `table` (`[n_from, O::COUNT]`, entries in `0..target_size`, or -1 where `O`
    /// is declared `with skip_values`), where `target_size` is the number of `O::To` points.
    /// Any memory order is accepted (the table is stored row-major).
    ///
    /// # Errors
    /// [`Error::Connectivity`] naming the offset and the first bad row and slot.
    pub fn new(table: Array2<i32>, target_size: usize) -> Result<Self, Error> {
        let err = |message: String| Error::Connectivity {
            offset: O::NAME.to_string(),
            message,
        };
        let table = if table.is_standard_layout() {
            table
        } else {
            table.as_standard_layout().into_owned()
        };
        if table.ncols() != O::COUNT {
            return Err(err(format!(
                "table has {} columns, but {} has {} neighbours per {}",
                table.ncols(),
                O::NAME,
                O::COUNT,
                <O::From as Dimension>::NAME
            )));
        }
        let mut max_entry = -1;
        let mut has_skip_values = false;
        for ((row, col), &v) in table.indexed_iter() {
            if v == -1 && !O::SKIP_VALUES {
                return Err(err(no_skip_values_declared(
                    O::NAME,
                    <O::From as Dimension>::NAME,
                    <O::To as Dimension>::NAME,
                    O::COUNT,
                    row,
                    col,
                )));
            }
            if v == -1 {
                has_skip_values = true;
            } else if v < -1 || v as i64 >= target_size as i64 {
                return Err(err(format!(
                    "entry [{row}, {col}] = {v} is outside 0..{target_size} ({} points) and is not the skip value -1",
                    <O::To as Dimension>::NAME
                )));
            }
            max_entry = max_entry.max(v);
        }
        let table = ConnectivityTable {
            offset: O::NAME,
            key: O::KEY,
            from: <O::From as Dimension>::NAME,
            to: <O::To as Dimension>::NAME,
            table,
            target_size,
            max_entry,
            has_skip_values,
        };
        Ok(Connectivity {
            table: Arc::new(table),
            _offset: PhantomData,
        })
    }

    /// Builds from a flat row-major vector of `rows` rows of `O::COUNT` entries each. The row
    /// count is given, not inferred, so a vector of another width (say a 4-wide table handed
    /// to a 2-wide offset, which would read as twice the rows) is an error instead of a
    /// silently reshaped table.
    ///
    /// # Errors
    /// [`Error::Connectivity`] where `entries` is not `rows × O::COUNT` long, or as
    /// [`Connectivity::new`].
    pub fn from_vec(entries: Vec<i32>, rows: usize, target_size: usize) -> Result<Self, Error> {
        let expected = rows.checked_mul(O::COUNT);
        if expected != Some(entries.len()) {
            return Err(Error::Connectivity {
                offset: O::NAME.to_string(),
                message: format!(
                    "{} entries given, but {rows} rows of {} neighbours per {} need {}",
                    entries.len(),
                    O::COUNT,
                    <O::From as Dimension>::NAME,
                    expected
                        .map_or_else(|| "more than fit in memory".to_string(), |n| n.to_string())
                ),
            });
        }
        let table = Array2::from_shape_vec((rows, O::COUNT), entries)
            .map_err(|e| Error::Shape(e.to_string()))?;
        Self::new(table, target_size)
    }

    /// The untyped, shared table.
    pub fn shared(&self) -> Arc<ConnectivityTable> {
        self.table.clone()
    }
}

impl<O: Offset> std::ops::Deref for Connectivity<O> {
    type Target = ConnectivityTable;
    fn deref(&self) -> &ConnectivityTable {
        &self.table
    }
}

/// The connectivities a set of programs may use, by offset declaration ([`Offset::KEY`]): two
/// offsets named alike in different modules each keep their own table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Connectivities {
    tables: BTreeMap<&'static str, Arc<ConnectivityTable>>,
}

impl Connectivities {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds (or replaces) the table of `O`; an offset of another declaration keeps its table
    /// even where it has the same name.
    pub fn insert<O: Offset>(&mut self, conn: &Connectivity<O>) -> &mut Self {
        self.tables.insert(O::KEY, conn.shared());
        self
    }
    /// This set with the table of `O` added (or replaced): the builder form of
    /// [`Connectivities::insert`].
    pub fn with<O: Offset>(mut self, conn: &Connectivity<O>) -> Self {
        self.insert(conn);
        self
    }
    /// The table of the offset declared as `key` ([`Offset::KEY`]).
    pub fn get(&self, key: &str) -> Option<&Arc<ConnectivityTable>> {
        self.tables.get(key)
    }
    /// The offset names of the tables held (a name twice where two declarations share it).
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.tables.values().map(|t| t.offset)
    }

    /// The table for `info`: the one of its declaration, or, where either side carries no
    /// declaration (an offset implemented or an IR built by hand), the one table of that name.
    fn find(
        &self,
        info: &gt4rs_ir::OffsetInfo,
        program: &str,
    ) -> Result<&Arc<ConnectivityTable>, Error> {
        if let Some(table) = self.tables.get(info.key.as_str()) {
            return Ok(table);
        }
        let same_name: Vec<&Arc<ConnectivityTable>> = self
            .tables
            .values()
            .filter(|t| t.offset == info.name)
            .collect();
        let by_name: Vec<&Arc<ConnectivityTable>> = same_name
            .iter()
            .copied()
            .filter(|t| info.is_unkeyed() || t.is_unkeyed())
            .collect();
        let err = |message: String| Error::Connectivity {
            offset: info.name.clone(),
            message,
        };
        match (by_name.as_slice(), same_name.as_slice()) {
            ([table], _) => Ok(table),
            ([], []) => Err(err(format!(
                "program `{program}` needs it, but the options hold no table for it (they hold: {})",
                self.names().collect::<Vec<_>>().join(", ")
            ))),
            ([], others) => Err(err(format!(
                "program `{program}` needs `{}: {} => {} [{}]` declared at {}, but the options hold \
                 tables only for other offsets of that name ({})",
                info.name,
                info.from,
                info.to,
                info.count,
                info.declared_at(),
                others
                    .iter()
                    .map(|t| format!(
                        "`{}: {} => {} [{}]` declared at {}",
                        t.offset,
                        t.from,
                        t.to,
                        t.count(),
                        t.declared_at()
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
            (several, _) => Err(err(format!(
                "program `{program}` names it without saying which declaration it means, and the \
                 options hold tables for {} of that name (declared at {})",
                several.len(),
                several.iter().map(|t| t.declared_at()).collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    /// The tables `program` needs, in the order of `program.used_offsets()`, each checked
    /// against the offset's declaration.
    pub fn bind(
        &self,
        program: &gt4rs_ir::fieldview::Program,
    ) -> Result<Vec<Arc<ConnectivityTable>>, Error> {
        program
            .used_offsets()
            .into_iter()
            .map(|info| {
                let table = self.find(info, &program.name)?;
                if table.has_skip_values && !info.skip_values {
                    let (row, slot) = first_skip_value(table.as_slice(), table.count());
                    return Err(Error::Connectivity {
                        offset: info.name.clone(),
                        message: format!(
                            "program `{}`: {}",
                            program.name,
                            no_skip_values_declared(&info.name, &info.from, &info.to, info.count as usize, row, slot)
                        ),
                    });
                }
                if table.from != info.from || table.to != info.to || table.count() != info.count as usize {
                    return Err(Error::Connectivity {
                        offset: info.name.clone(),
                        message: format!(
                            "the bound table maps {} => {} [{}], but program `{}` declares {} => {} [{}]",
                            table.from, table.to, table.count(), program.name, info.from, info.to, info.count
                        ),
                    });
                }
                Ok(table.clone())
            })
            .collect()
    }
}

/// The row and slot of the first -1 of a row-major table with `count` entries per row.
fn first_skip_value(table: &[i32], count: usize) -> (usize, usize) {
    let at = table.iter().position(|&v| v == -1).unwrap_or(0);
    (at / count.max(1), at % count.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_skip_value_is_named_by_row_and_slot() {
        assert_eq!(first_skip_value(&[4, 2, 7, -1, -1, 3], 2), (1, 1));
        assert_eq!(first_skip_value(&[4, 2, 7, 5, 1, -1], 3), (1, 2));
        let message = no_skip_values_declared("E2C", "Edge", "Cell", 2, 1, 1);
        assert!(
            message.contains("row 1, slot 1")
                && message.contains("`E2C: Edge => Cell [2] with skip_values`"),
            "{message}"
        );
    }

    #[test]
    fn table_reach_skips_missing_neighbours() {
        // Three rows of two entries: row 0 keeps a -1 slot.
        let table = [-1, 4, 2, 7, 5, 3];
        assert_eq!(table_reach(&table, 2, 0, 3), (2, 8));
        assert_eq!(table_reach(&table, 2, 0, 1), (4, 5));
        assert_eq!(table_reach(&table, 2, 2, 3), (3, 6));
        assert_eq!(table_reach(&table, 2, -5, 99), (2, 8));
        assert_eq!(table_reach(&table, 2, 2, 1), (0, 0));
        assert_eq!(table_reach(&[-1, -1], 2, 0, 1), (0, 0));
        assert_eq!(table_reach(&[], 0, 0, 1), (0, 0));
    }
}

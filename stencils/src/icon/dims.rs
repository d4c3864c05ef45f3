//! ICON's dimensions and neighbour offsets (ICON4Py `model/common/dimension.py`), with the
//! neighbour counts of ICON grids. Tables may hold `-1` (skip values) where ICON has them:
//! always on V2E, V2C and V2E2V (pentagons), and on limited-area grids for the boundary tables
//! (ICON4Py's `CONNECTIVITIES_ON_PENTAGONS` and `CONNECTIVITIES_ON_BOUNDARIES`). On a rank of a
//! distributed grid every table may hold them: the outermost halo rows keep only the neighbours
//! the rank holds (`runtime/src/grid/decomposition/local.rs`). So every offset here is declared
//! `with skip_values`; an offset declared without them rejects a table holding -1.

gt4rs::dimensions! {
    pub Cell, Edge, Vertex: horizontal;
    pub K: vertical;
}

gt4rs::offsets! {
    pub C2E: Cell => Edge [3] with skip_values;
    pub C2V: Cell => Vertex [3] with skip_values;
    pub E2V: Edge => Vertex [2] with skip_values;
    pub E2C: Edge => Cell [2] with skip_values;
    pub C2E2C: Cell => Cell [3] with skip_values;
    pub C2E2CO: Cell => Cell [4] with skip_values;
    pub V2E: Vertex => Edge [6] with skip_values;
    pub V2C: Vertex => Cell [6] with skip_values;
    pub V2E2V: Vertex => Vertex [6] with skip_values;
    pub E2C2V: Edge => Vertex [4] with skip_values;
    pub E2C2E: Edge => Edge [4] with skip_values;
    pub E2C2EO: Edge => Edge [5] with skip_values;
    pub C2E2C2E: Cell => Edge [9] with skip_values;
    pub C2E2C2E2C: Cell => Cell [9] with skip_values;
}

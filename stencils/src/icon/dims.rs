//! ICON's dimensions and neighbour offsets (ICON4Py `model/common/dimension.py`), with the
//! neighbour counts of ICON grids. Tables may hold `-1` (skip values) where ICON has them:
//! always on V2E, V2C and V2E2V (pentagons), and on limited-area or distributed grids for the
//! boundary tables.

gt4rs::dimensions! {
    pub Cell, Edge, Vertex: horizontal;
    pub K: vertical;
}

gt4rs::offsets! {
    pub C2E: Cell => Edge [3];
    pub C2V: Cell => Vertex [3];
    pub E2V: Edge => Vertex [2];
    pub E2C: Edge => Cell [2];
    pub C2E2C: Cell => Cell [3];
    pub C2E2CO: Cell => Cell [4];
    pub V2E: Vertex => Edge [6];
    pub V2C: Vertex => Cell [6];
    pub V2E2V: Vertex => Vertex [6];
    pub E2C2V: Edge => Vertex [4];
    pub E2C2E: Edge => Edge [4];
    pub E2C2EO: Edge => Edge [5];
    pub C2E2C2E: Cell => Edge [9];
    pub C2E2C2E2C: Cell => Cell [9];
}

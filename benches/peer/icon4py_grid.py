"""An ICON4Py grid from a grid file written by `gt4rs grid info GRID --npz FILE`.

ICON4Py's grid manager reads ICON's netCDF grid files; this takes the same steps on the .npz
file instead: the eight basic neighbour tables, ICON4Py's own derivation of the others (E2C2V,
C2E2CO, E2C2E, ...), a single-rank decomposition, and the zone bounds ICON4Py computes from the
refinement-control fields (`refin_*_ctrl`). As ICON4Py's stencil tests and benchmarks load
grids (`keep_skip_values=False`), the -1 entries of a limited-area grid's tables are replaced by
a valid neighbour of the same row; a global grid keeps those of its pentagons (V2E, V2C, V2E2V).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import pathlib

import gt4py.next as gtx
import numpy as np
from icon4py.model.common import dimension as dims
from icon4py.model.common.decomposition import definitions as decomposition, halo
from icon4py.model.common.grid import (
    base,
    grid_manager,
    grid_refinement as refinement,
    horizontal as h_grid,
    icon,
)

BASIC_TABLES = ("C2E2C", "C2E", "E2C", "V2E", "V2C", "C2V", "V2E2V", "E2V")
HORIZONTAL = {"Cell": dims.CellDim, "Edge": dims.EdgeDim, "Vertex": dims.VertexDim}


@dataclasses.dataclass
class Grid:
    """An ICON4Py grid, the tables it uses by offset name, and how ICON4Py's derived tables
    compare with the ones in the file."""

    icon: icon.IconGrid
    tables: dict[str, np.ndarray]
    derived_differences: list[str]
    label: str
    # The single-rank decomposition the zones were computed with (owner masks).
    decomposition_info: decomposition.DecompositionInfo | None = None

    def start(self, dim: str, zone: str) -> int:
        return int(self.icon.start_index(h_grid.domain(HORIZONTAL[dim])(h_grid.Zone[zone])))

    def end(self, dim: str, zone: str) -> int:
        return int(self.icon.end_index(h_grid.domain(HORIZONTAL[dim])(h_grid.Zone[zone])))

    @property
    def limited_area(self) -> bool:
        return self.icon.limited_area

    @property
    def num_levels(self) -> int:
        """Full levels."""
        return int(self.icon.num_levels)

    def size(self, dim: str) -> int:
        return {"Cell": self.icon.num_cells, "Edge": self.icon.num_edges}.get(
            dim, self.icon.num_vertices
        )

    @property
    def offset_provider(self):
        return self.icon.connectivities


def load(path: str, num_levels: int, keep_skip_values: bool = False) -> Grid:
    """The grid in `path`. `keep_skip_values=True` keeps the -1 entries of a limited-area
    grid's tables, as ICON4Py's grid manager loads a grid for a model run (the default replaces
    them, as its stencil tests do)."""
    data = np.load(path)
    meta = json.loads(bytes(data["grid_meta"]).decode()) if "grid_meta" in data.files else {}
    size = base.HorizontalGridSize(
        num_vertices=int(data["num_vertices"]),
        num_edges=int(data["num_edges"]),
        num_cells=int(data["num_cells"]),
    )
    basic = {getattr(dims, name): np.asarray(data[name], dtype=np.int32) for name in BASIC_TABLES}
    neighbor_tables = dict(basic)
    neighbor_tables.update(grid_manager._get_derived_connectivities(basic))
    # Compared before ICON4Py replaces any -1 (in place).
    differences = [
        offset.value
        for offset, table in neighbor_tables.items()
        if offset.value in data.files and not np.array_equal(table, data[offset.value])
    ]

    process = decomposition.get_process_properties(decomposition.SingleNodeRun())
    decomposition_info = halo.get_halo_constructor(
        process_props=process, full_grid_size=size, connectivities=basic, allocator=None
    )(np.zeros(size.num_cells, dtype=np.int32))
    refinement_fields = {
        dim: gtx.as_field((dim,), np.asarray(data[f"refin_{letter}_ctrl"], dtype=np.int32))
        for dim, letter in ((dims.CellDim, "c"), (dims.EdgeDim, "e"), (dims.VertexDim, "v"))
    }
    limited_area = refinement.is_limited_area_grid(refinement_fields[dims.CellDim].ndarray)
    start_index, end_index = icon.get_start_and_end_index(
        functools.partial(
            refinement.compute_domain_bounds,
            refinement_fields=refinement_fields,
            decomposition_info=decomposition_info,
        )
    )
    config = base.GridConfig(
        horizontal_config=size,
        vertical_size=num_levels,
        limited_area=limited_area,
        keep_skip_values=keep_skip_values,
    )
    kind = meta.get("kind", {})
    shape = kind.get("Icosahedral") if isinstance(kind, dict) else None
    label = f"R{shape['root']}B{shape['bisections']}" if shape else pathlib.Path(path).stem
    grid = icon.icon_grid(
        id_=path,
        allocator=None,
        config=config,
        neighbor_tables=neighbor_tables,
        start_index=start_index,
        end_index=end_index,
        grid_params=icon.GridParams(),
        refinement_control=refinement_fields,
    )
    tables = {
        name: np.asarray(connectivity.ndarray, dtype=np.int32)
        for name, connectivity in grid.connectivities.items()
    }
    return Grid(
        icon=grid,
        tables=tables,
        derived_differences=differences,
        label=label,
        decomposition_info=decomposition_info,
    )

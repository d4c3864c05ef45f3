"""Reference data for the dynamical core's interpolation fields and edge geometry: ICON4Py's own
functions (those its interpolation and geometry factories call) run on a gt4rs grid, written to
refs/icon4py/dycore_interpolation/GRID/interpolation.npz, which
`stencils/tests/dycore_interpolation.rs` compares with `gt4rs_stencils::dycore`'s fields. Run by
`tools/icon4py/record_dycore_interpolation`, inside the environment of `tools/icon4py/setup`.

The grid is a file written by `gt4rs grid info GRID --npz FILE`, loaded as the peer benchmark
loads it (benches/peer/icon4py_grid.py: ICON4Py's derived tables, its zones from the refinement
fields) but with the -1 entries of a limited-area grid kept, as ICON4Py's grid manager loads a
grid for a model run. The geometry the functions take (lengths, areas, normals, geofac_div, ...)
is gt4rs's, from the file, so that the comparison checks the interpolation formulas; the
latitudes and longitudes are computed from gt4rs's positions as `gt4rs::grid::lat_lon` does
(stored, so that the test can check its own). Where ICON4Py's geometry itself is the reference
(the normals' components at cell centres, the Coriolis parameter, the mean cell area), ICON4Py's
geometry function is run on gt4rs's 3-D vectors. The -1 entries of ICON4Py's derived E2C2E are
stored as it made them (`E2C2E_icon4py`): its order of a diamond's edges differs from gt4rs's.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import types

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benches" / "peer"))


def lat_lon(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`gt4rs::grid::lat_lon`: `u = p * (1 / |p|)`, `(asin(clamp(u_z)), atan2(u_y, u_x))`."""
    norm = np.sqrt(points[:, 0] * points[:, 0] + points[:, 1] * points[:, 1] + points[:, 2] * points[:, 2])
    unit = points * (1.0 / norm)[:, None]
    return np.arcsin(np.clip(unit[:, 2], -1.0, 1.0)), np.arctan2(unit[:, 1], unit[:, 0])


def record(path: str, out: pathlib.Path) -> None:
    import gt4py.next as gtx
    import icon4py_grid
    from icon4py.model.common import constants, dimension as dims
    from icon4py.model.common.decomposition import definitions as decomposition
    from icon4py.model.common.grid import geometry, geometry_stencils, icon
    from icon4py.model.common.grid import grid_refinement as refinement
    from icon4py.model.common.interpolation import interpolation_fields as fields
    from icon4py.model.common.interpolation import rbf_interpolation as rbf
    from icon4py.model.common.interpolation.stencils import compute_nudgecoeffs

    grid = icon4py_grid.load(path, 1, keep_skip_values=True)
    data = np.load(path)
    t = grid.tables
    c2e, e2c, c2e2c, c2e2co = t["C2E"], t["E2C"], t["C2E2C"], t["C2E2CO"]
    e2c2e, v2e, e2v, v2c = t["E2C2E"], t["V2E"], t["E2V"], t["V2C"]
    n_cells, n_edges, n_verts = c2e.shape[0], e2c.shape[0], v2e.shape[0]
    g = {name: np.asarray(data[name], dtype=np.float64) for name in data.files if data[name].dtype == np.float64}
    exchange = decomposition.single_node_exchange
    owned_cells = np.ones(n_cells, dtype=bool)
    owned_edges = np.ones(n_edges, dtype=bool)
    radius = float(data["sphere_radius"])

    cell_lat, cell_lon = lat_lon(g["cell_center"])
    edge_lat, edge_lon = lat_lon(g["edge_center"])
    vert_lat, vert_lon = lat_lon(g["vertex_position"])
    res: dict[str, np.ndarray] = {
        "cell_lat": cell_lat,
        "cell_lon": cell_lon,
        "edge_lat": edge_lat,
        "edge_lon": edge_lon,
        "cell_area": g["cell_area"],
        "E2C2E_icon4py": e2c2e,
    }

    # ICON's defaults (InterpolationConfig): divavg_cntrwgt 0.5, nudge_max_coeff 0.375,
    # nudge_efold_width 2, nudge_zone_width 10.
    c_bln_avg = fields.compute_mass_conserving_bilinear_cell_average_weight(
        c2e2c0=c2e2co,
        lat=cell_lat,
        lon=cell_lon,
        cell_areas=g["cell_area"],
        cell_owner_mask=owned_cells,
        divergence_averaging_central_cell_weight=0.5,
        horizontal_start=grid.start("Cell", "LATERAL_BOUNDARY_LEVEL_2"),
        horizontal_start_level_3=grid.start("Cell", "LATERAL_BOUNDARY_LEVEL_3"),
        exchange=exchange,
    )
    res["c_bln_avg"] = c_bln_avg
    res["e_flx_avg"] = fields.compute_e_flx_avg(
        c_bln_avg=c_bln_avg,
        geofac_div=g["geofac_div"],
        owner_mask=owned_edges,
        primal_cart_normal_x=g["primal_normal"][:, 0].copy(),
        primal_cart_normal_y=g["primal_normal"][:, 1].copy(),
        primal_cart_normal_z=g["primal_normal"][:, 2].copy(),
        e2c=e2c,
        c2e=c2e,
        c2e2c=c2e2c,
        e2c2e=e2c2e,
        horizontal_start_p3=grid.start("Edge", "LATERAL_BOUNDARY_LEVEL_4"),
        horizontal_start_p4=grid.start("Edge", "LATERAL_BOUNDARY_LEVEL_5"),
        exchange=exchange,
    )
    res["geofac_grdiv"] = fields.compute_geofac_grdiv(
        geofac_div=g["geofac_div"],
        inv_dual_edge_length=g["inv_dual_edge_length"],
        owner_mask=owned_edges,
        c2e=c2e,
        e2c=e2c,
        e2c2e=e2c2e,
        horizontal_start=grid.start("Edge", "LATERAL_BOUNDARY_LEVEL_2"),
    )
    res["pos_on_tplane_e_1"], res["pos_on_tplane_e_2"] = fields.compute_pos_on_tplane_e_x_y(
        grid_sphere_radius=constants.EARTH_RADIUS,
        primal_normal_v1=g["primal_normal_x"],
        primal_normal_v2=g["primal_normal_y"],
        dual_normal_v1=g["dual_normal_x"],
        dual_normal_v2=g["dual_normal_y"],
        cells_lon=cell_lon,
        cells_lat=cell_lat,
        edges_lon=edge_lon,
        edges_lat=edge_lat,
        owner_mask=owned_edges,
        e2c=e2c,
        horizontal_start=grid.start("Edge", "LATERAL_BOUNDARY"),
    )
    res["c_lin_e"] = fields.compute_c_lin_e(
        edge_cell_length=g["edge_cell_length"],
        inv_dual_edge_length=g["inv_dual_edge_length"],
        edge_owner_mask=owned_edges,
        horizontal_start=grid.start("Edge", "LATERAL_BOUNDARY_LEVEL_2"),
    )
    res["cells_aw_verts"] = fields.compute_cells_aw_verts(
        dual_area=g["dual_area"],
        edge_vert_length=g["edge_vert_length"],
        edge_cell_length=g["edge_cell_length"],
        v2e=v2e,
        e2v=e2v,
        v2c=v2c,
        e2c=e2c,
        horizontal_start=grid.start("Vertex", "LATERAL_BOUNDARY_LEVEL_2"),
    )
    # The divergence and curl weights: ICON4Py's field operators on the embedded backend, as
    # its factory runs them; the nabla2 weights from gt4rs's geofac_div.
    geofac_div = gtx.zeros({dims.CellDim: range(n_cells), dims.C2EDim: range(3)}, dtype=np.float64)
    fields.compute_geofac_div.with_backend(None)(
        primal_edge_length=gtx.as_field((dims.EdgeDim,), g["primal_edge_length"]),
        edge_orientation=gtx.as_field((dims.CellDim, dims.C2EDim), g["cell_edge_orientation"]),
        area=gtx.as_field((dims.CellDim,), g["cell_area"]),
        out=geofac_div,
        offset_provider=grid.offset_provider,
    )
    res["geofac_div"] = geofac_div.asnumpy()
    geofac_rot = gtx.zeros({dims.VertexDim: range(n_verts), dims.V2EDim: range(6)}, dtype=np.float64)
    fields.compute_geofac_rot.with_backend(None)(
        dual_edge_length=gtx.as_field((dims.EdgeDim,), g["dual_edge_length"]),
        edge_orientation=gtx.as_field((dims.VertexDim, dims.V2EDim), g["vertex_edge_orientation"]),
        dual_area=gtx.as_field((dims.VertexDim,), g["dual_area"]),
        owner_mask=gtx.as_field((dims.VertexDim,), np.ones(n_verts, dtype=bool)),
        out=geofac_rot,
        offset_provider=grid.offset_provider,
    )
    res["geofac_rot"] = geofac_rot.asnumpy()
    res["geofac_n2s"] = fields.compute_geofac_n2s(
        dual_edge_length=g["dual_edge_length"],
        geofac_div=g["geofac_div"],
        c2e=c2e,
        e2c=e2c,
        c2e2c=c2e2c,
        horizontal_start=grid.start("Cell", "LATERAL_BOUNDARY_LEVEL_2"),
    )
    res["e_bln_c_s"] = fields.compute_e_bln_c_s(
        c2e=c2e, cells_lat=cell_lat, cells_lon=cell_lon, edges_lat=edge_lat, edges_lon=edge_lon
    )

    # The normals' (east, north) components at the E2C cell centres, by ICON4Py's geometry
    # function from gt4rs's 3-D unit vectors (ICON4Py's dual normal is the edge tangent).
    for name, vector in (("primal_normal_cell", "primal_normal"), ("dual_normal_cell", "dual_normal")):
        u, v = geometry_stencils.compute_zonal_and_meridional_component_of_edge_field_at_cell_center_ndarray(
            cell_lat=cell_lat,
            cell_lon=cell_lon,
            x=g[vector][:, 0].copy(),
            y=g[vector][:, 1].copy(),
            z=g[vector][:, 2].copy(),
            e2c=e2c,
            horizontal_start=grid.start("Edge", "LATERAL_BOUNDARY"),
        )
        res[f"{name}_x"], res[f"{name}_y"] = u, v

    # The Green-Gauss gradient twice: on gt4rs's normals at the cell centres and c_lin_e (the
    # formula) and on ICON4Py's normals (what ICON4Py's factory computes).
    for suffix, (nx, ny) in (
        ("", (g["primal_normal_cell_x"], g["primal_normal_cell_y"])),
        ("__icon4py_normals", (res["primal_normal_cell_x"], res["primal_normal_cell_y"])),
    ):
        gx, gy = fields.compute_geofac_grg(
            primal_normal_cell_x=nx,
            primal_normal_cell_y=ny,
            owner_mask=owned_cells,
            geofac_div=g["geofac_div"],
            c_lin_e=g["c_lin_e"] if not suffix else res["c_lin_e"],
            c2e=c2e,
            e2c=e2c,
            c2e2c=c2e2c,
            horizontal_start=grid.start("Cell", "LATERAL_BOUNDARY_LEVEL_2"),
            exchange=exchange,
        )
        res[f"geofac_grg_x{suffix}"], res[f"geofac_grg_y{suffix}"] = gx, gy

    # The Coriolis parameter 2 Ω sin φ at edges (Ω = EARTH_ANGULAR_VELOCITY), ICON4Py's GT4Py
    # program on the embedded backend.
    coriolis = gtx.zeros({dims.EdgeDim: range(n_edges)}, dtype=np.float64)
    geometry_stencils.compute_coriolis_parameter_on_edges.with_backend(None)(
        edge_center_lat=gtx.as_field((dims.EdgeDim,), edge_lat),
        angular_velocity=constants.EARTH_ANGULAR_VELOCITY,
        coriolis_parameter=coriolis,
        horizontal_start=0,
        horizontal_end=n_edges,
        offset_provider={},
    )
    res["coriolis_frequency"] = coriolis.asnumpy()

    # The mean cell area as ICON4Py's geometry computes it by default (use_analytical_means):
    # 4πR² over the cells of the global grid R{root}B{level} the grid belongs to.
    import json

    meta = json.loads(bytes(data["grid_meta"]).decode())
    kind = meta["kind"]
    while "Regional" in kind:
        kind = kind["Regional"]["parent"]
    shape = kind["Icosahedral"]
    params = icon.GridParams(
        icon.IcosahedronParams(
            radius=radius,
            subdivision=icon.GridSubdivision(root=shape["root"], level=shape["bisections"]),
        )
    )
    means = geometry.GridGeometry._compute_analytical_means(
        types.SimpleNamespace(
            _grid=types.SimpleNamespace(grid_params=params),
            _geometry_type=icon.GeometryType.ICOSAHEDRON,
        )
    )
    res["mean_cell_area"] = np.asarray(means["mean_cell_area"], dtype=np.float64)

    # ICON's vector RBF coefficients with ICON's default kernels and scale factors, on the unit
    # sphere (gt4rs departs from them on purpose: docs/grids.md).
    unit = lambda p: p / np.linalg.norm(p, axis=1)[:, None]  # noqa: E731
    ec, en, vp = unit(g["edge_center"]), g["primal_normal"], unit(g["vertex_position"])
    characteristic = float(means["characteristic_length"])
    mean_dual = float(means["mean_dual_edge_length"])
    res["rbf_vec_coeff_e"] = rbf.compute_rbf_interpolation_coeffs_edge(
        edge_lat=edge_lat,
        edge_lon=edge_lon,
        edge_center_x=ec[:, 0].copy(),
        edge_center_y=ec[:, 1].copy(),
        edge_center_z=ec[:, 2].copy(),
        edge_normal_x=en[:, 0].copy(),
        edge_normal_y=en[:, 1].copy(),
        edge_normal_z=en[:, 2].copy(),
        edge_dual_normal_u=g["dual_normal_x"],
        edge_dual_normal_v=g["dual_normal_y"],
        rbf_offset=e2c2e,
        rbf_kernel=rbf.DEFAULT_RBF_KERNEL[rbf.RBFDimension.EDGE].value,
        geometry_type=icon.GeometryType.ICOSAHEDRON.value,
        scale_factor=rbf.compute_default_rbf_scale_edge(
            icon.GeometryType.ICOSAHEDRON.value, characteristic, mean_dual
        ),
        horizontal_start=grid.start("Edge", "LATERAL_BOUNDARY_LEVEL_2"),
        horizontal_end=grid.end("Edge", "LOCAL"),
        domain_length=-1.0,
        domain_height=-1.0,
    )
    res["rbf_vec_coeff_v1"], res["rbf_vec_coeff_v2"] = rbf.compute_rbf_interpolation_coeffs_vertex(
        vertex_lat=vert_lat,
        vertex_lon=vert_lon,
        vertex_x=vp[:, 0].copy(),
        vertex_y=vp[:, 1].copy(),
        vertex_z=vp[:, 2].copy(),
        edge_center_x=ec[:, 0].copy(),
        edge_center_y=ec[:, 1].copy(),
        edge_center_z=ec[:, 2].copy(),
        edge_normal_x=en[:, 0].copy(),
        edge_normal_y=en[:, 1].copy(),
        edge_normal_z=en[:, 2].copy(),
        rbf_offset=v2e,
        rbf_kernel=rbf.DEFAULT_RBF_KERNEL[rbf.RBFDimension.VERTEX].value,
        geometry_type=icon.GeometryType.ICOSAHEDRON.value,
        scale_factor=rbf.compute_default_rbf_scale_vertex(
            icon.GeometryType.ICOSAHEDRON.value, characteristic, mean_dual
        ),
        horizontal_start=grid.start("Vertex", "LATERAL_BOUNDARY_LEVEL_2"),
        horizontal_end=grid.end("Vertex", "LOCAL"),
        domain_length=-1.0,
        domain_height=-1.0,
    )

    # The nudging coefficients at edges: ICON4Py's GT4Py program from the edges' refinement
    # control, on the edges from the second nudging row to the end, as its factory calls it.
    refin = gtx.as_field((dims.EdgeDim,), np.asarray(data["refin_e_ctrl"], dtype=np.int32))
    nudge = gtx.zeros({dims.EdgeDim: range(n_edges)}, dtype=np.float64)
    compute_nudgecoeffs.compute_nudgecoeffs.with_backend(None)(
        refin_ctrl=refin,
        nudging_coefficients_for_edges=nudge,
        grf_nudge_start_e=refinement.get_nudging_refinement_value(dims.EdgeDim),
        max_nudging_coefficient=0.375,
        nudge_efold_width=2.0,
        nudge_zone_width=10,
        horizontal_start=grid.start("Edge", "NUDGING_LEVEL_2"),
        horizontal_end=grid.end("Edge", "END"),
        offset_provider={},
    )
    res["nudgecoeff_e"] = nudge.asnumpy()

    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "interpolation.npz", **{k: np.asarray(v) for k, v in res.items()})
    print(f"{out}: {', '.join(sorted(res))}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grids", required=True, help="comma-separated grid .npz files")
    parser.add_argument("--labels", required=True, help="comma-separated folder names, one a grid")
    parser.add_argument("--out", required=True, help="folder of the grids' folders")
    args = parser.parse_args()
    grids, labels = args.grids.split(","), args.labels.split(",")
    if len(grids) != len(labels):
        raise SystemExit("--grids and --labels must name as many grids")
    for path, label in zip(grids, labels):
        record(path, pathlib.Path(args.out) / label)
    return 0


if __name__ == "__main__":
    sys.exit(main())

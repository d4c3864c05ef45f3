"""Reference data for the dycore's metric fields (`gt4rs_stencils::dycore::MetricState`):
ICON4Py's own `MetricsFieldsFactory` (ICON4Py 0.4.1, metrics_factory.py: every GT4Py program
and numpy function it wires, with its domains and ICON's default `MetricsConfig`) on GT4Py's
gtfn_cpu backend, on a gt4rs grid over gt4rs's terrain. Run by `tools/icon4py/record_dymetrics`
inside the environment of `tools/icon4py/setup`.

Inputs per grid, written by the ignored Rust test `export_inputs`
(stencils/tests/dycore_metrics.rs): LABEL-grid.npz (`Grid::write_npz`, loaded as the peer
benchmark loads it, benches/peer/icon4py_grid.py) and LABEL-terrain.npz (the half-level
heights z_ifc, the topography, vct_a, the damping and flat heights). The factory's own SLEVE
coordinate is replaced by gt4rs's z_ifc, and its geometry and interpolation sources by the
grid file's arrays (`c_lin_e`, `c_intp` as ICON4Py's `cells_aw_verts`: ICON's weights, which
export_inputs writes there; lengths, orientation),
so that both sides start from the same numbers.

Output: OUT/LABEL/metrics.npz with every field of `MetricState::arrays` under its ICON name,
on the whole grid and `nlev` or `nlev + 1` levels (a field ICON4Py stores on fewer levels is
placed at its levels, 0 elsewhere), plus the inputs z_ifc and topography and the int32 array
`vertical_indices` = (nflat_gradp, nflatlev, end_index_of_damping_layer, kstart_moist).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benches" / "peer"))


class GivenFields:
    """A field source (ICON4Py `factory.FieldSource`) of precomputed fields: the geometry and
    interpolation fields the metrics factory depends on, from the gt4rs grid file."""

    def __init__(self, grid, vertical_grid, fields, backend):
        from icon4py.model.common.decomposition import definitions as decomposition
        from icon4py.model.common.states import factory

        self._grid = grid
        self._vertical_grid = vertical_grid
        self._backend = backend
        self._exchange = decomposition.single_node_exchange
        self._providers = {name: factory.PrecomputedFieldProvider({name: f}) for name, f in fields.items()}

    # The factory.FieldSource protocol.
    @property
    def metadata(self):
        return {}

    @property
    def backend(self):
        return self._backend

    @property
    def grid(self):
        return self._grid

    @property
    def vertical_grid(self):
        return self._vertical_grid


def given_fields(data, num_cells: int, backend):
    """The geometry and interpolation fields the factory reads, from the gt4rs grid file."""
    import gt4py.next as gtx
    from icon4py.model.common import dimension as dims
    from icon4py.model.common.grid import geometry_attributes as geo
    from icon4py.model.common.interpolation import interpolation_attributes as interp

    def field(dimensions, name):
        return gtx.as_field(dimensions, np.asarray(data[name], dtype=np.float64), allocator=backend)

    edge, cell, vertex = dims.EdgeDim, dims.CellDim, dims.VertexDim
    return {
        geo.CELL_AREA: field((cell,), "cell_area"),
        geo.DUAL_EDGE_LENGTH: field((edge,), "dual_edge_length"),
        f"inverse_of_{geo.DUAL_EDGE_LENGTH}": field((edge,), "inv_dual_edge_length"),
        f"inverse_of_{geo.EDGE_LENGTH}": field((edge,), "inv_primal_edge_length"),
        geo.TANGENT_ORIENTATION: field((edge,), "tangent_orientation"),
        geo.EDGE_CELL_DISTANCE: field((edge, dims.E2CDim), "edge_cell_length"),
        interp.C_LIN_E: field((edge, dims.E2CDim), "c_lin_e"),
        interp.CELL_AW_VERTS: field((vertex, dims.V2CDim), "c_intp"),
        interp.GEOFAC_N2S: field((cell, dims.C2E2CODim), "geofac_n2s"),
        # Needed only by the z-diffusion fields, which are not recorded: NaN, so that any use
        # would show.
        interp.C_BLN_AVG: gtx.as_field(
            (cell, dims.C2E2CODim), np.full((num_cells, 4), np.nan), allocator=backend
        ),
    }


# The recorded fields: the name in the file (`MetricState::arrays`) and ICON4Py's attribute.
FIELDS = {
    "mask_prog_halo_c": "MASK_PROG_HALO_C",
    "rayleigh_w": "RAYLEIGH_W",
    "wgtfac_c": "WGTFAC_C",
    "wgtfacq_c": "WGTFACQ_C",
    "wgtfac_e": "WGTFAC_E",
    "wgtfacq_e": "WGTFACQ_E",
    "exner_exfac": "EXNER_EXFAC",
    "exner_ref_mc": "EXNER_REF_MC",
    "rho_ref_mc": "RHO_REF_MC",
    "theta_ref_mc": "THETA_REF_MC",
    "rho_ref_me": "RHO_REF_ME",
    "theta_ref_me": "THETA_REF_ME",
    "theta_ref_ic": "THETA_REF_IC",
    "d_exner_dz_ref_ic": "D_EXNER_DZ_REF_IC",
    "ddqz_z_half": "DDQZ_Z_HALF",
    "d2dexdz2_fac1_mc": "D2DEXDZ2_FAC1_MC",
    "d2dexdz2_fac2_mc": "D2DEXDZ2_FAC2_MC",
    "ddxn_z_full": "DDXN_Z_FULL",
    "ddqz_z_full_e": "DDQZ_Z_FULL_E",
    "ddxt_z_full": "DDXT_Z_FULL",
    "inv_ddqz_z_full": "INV_DDQZ_Z_FULL",
    "vertoffset_gradp": "VERTOFFSET_GRADP",
    "zdiff_gradp": "ZDIFF_GRADP",
    "pg_exdist": "PG_EXDIST_DSL",
    "vwind_expl_wgt": "EXNER_W_EXPLICIT_WEIGHT_PARAMETER",
    "vwind_impl_wgt": "EXNER_W_IMPLICIT_WEIGHT_PARAMETER",
    "hmask_dd3d": "HORIZONTAL_MASK_FOR_3D_DIVDAMP",
    "scalfac_dd3d": "SCALING_FACTOR_FOR_3D_DIVDAMP",
    "coeff1_dwdz": "COEFF1_DWDZ",
    "coeff2_dwdz": "COEFF2_DWDZ",
    "coeff_gradekin": "COEFF_GRADEKIN",
}


def whole(value, grid, nlev: int) -> np.ndarray:
    """A factory field as an array over its dimensions' whole range: a field stored on part of
    the levels (`wgtfacq_c`, `wgtfacq_e` on nlev - 3 .. nlev) is placed there, 0 elsewhere."""
    import gt4py.next as gtx

    if not isinstance(value, gtx.Field):
        return np.asarray(value)
    data = np.asarray(value.asnumpy())
    shape, index = [], []
    for dim, rng in zip(value.domain.dims, value.domain.ranges):
        if dim.kind == gtx.DimensionKind.VERTICAL and (rng.start != 0 or rng.stop < nlev):
            shape.append(nlev)
            index.append(slice(rng.start, rng.stop))
        else:
            shape.append(data.shape[len(shape)])
            index.append(slice(None))
    out = np.zeros(shape, dtype=data.dtype)
    out[tuple(index)] = data
    return out


def record(label: str, inputs: pathlib.Path, nlev: int, out: pathlib.Path, backend_name: str):
    import gt4py.next as gtx
    import icon4py_grid
    from icon4py.model.common import dimension as dims
    from icon4py.model.common.grid import vertical as v_grid
    from icon4py.model.common.metrics import metrics_attributes as attrs, metrics_factory
    from icon4py.model.common.states import factory

    backend = None if backend_name == "embedded" else getattr(gtx, backend_name)
    grid_file = inputs / f"{label}-grid.npz"
    grid = icon4py_grid.load(str(grid_file), nlev)
    data = np.load(grid_file)
    terrain = np.load(inputs / f"{label}-terrain.npz")
    z_ifc, topography, vct_a = terrain["z_ifc"], terrain["topography"], terrain["vct_a"]
    damping_height, flat_height = (float(x) for x in terrain["damping_and_flat_height"])
    assert z_ifc.shape == (grid.icon.num_cells, nlev + 1), z_ifc.shape

    config = v_grid.VerticalGridConfig(
        num_levels=nlev,
        model_top_height=float(vct_a[0]),
        flat_height=flat_height,
        rayleigh_damping_height=damping_height,
    )
    vertical = v_grid.VerticalGrid(
        config, vct_a=gtx.as_field((dims.KDim,), vct_a, allocator=backend), vct_b=None
    )
    source = GivenFields(grid.icon, vertical, given_fields(data, grid.icon.num_cells, backend), backend)
    metrics = metrics_factory.MetricsFieldsFactory(
        grid=grid.icon,
        vertical_grid=vertical,
        decomposition_info=grid.decomposition_info,
        geometry_source=source,
        topography=gtx.as_field((dims.CellDim,), topography, allocator=backend),
        interpolation_source=source,
        backend=backend,
        metadata=attrs.attrs,
        config=metrics_factory.MetricsConfig(),
    )
    # gt4rs's half-level heights in place of the factory's own SLEVE coordinate.
    metrics._providers[attrs.CELL_HEIGHT_ON_HALF_LEVEL] = factory.PrecomputedFieldProvider(
        {
            attrs.CELL_HEIGHT_ON_HALF_LEVEL: gtx.as_field(
                (dims.CellDim, dims.KDim), z_ifc, allocator=backend
            )
        }
    )
    arrays = {
        name: whole(metrics.get(getattr(attrs, attr)), grid, nlev) for name, attr in FIELDS.items()
    }
    arrays["mask_prog_halo_c"] = arrays["mask_prog_halo_c"].astype(bool)
    arrays["vertoffset_gradp"] = arrays["vertoffset_gradp"].astype(np.int32)
    nflat_gradp = int(metrics.get(attrs.NFLAT_GRADP, factory.RetrievalType.SCALAR))
    arrays["vertical_indices"] = np.array(
        [
            nflat_gradp,
            int(vertical.nflatlev),
            int(vertical.end_index_of_damping_layer),
            int(vertical.kstart_moist),
        ],
        dtype=np.int32,
    )
    arrays["z_ifc"] = z_ifc
    arrays["topography"] = topography
    folder = out / label
    folder.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(folder / "metrics.npz", **arrays)
    print(
        f"{label}: {len(FIELDS)} fields, nflat_gradp {nflat_gradp}, nflatlev {vertical.nflatlev}, "
        f"end_index_of_damping_layer {vertical.end_index_of_damping_layer}, "
        f"kstart_moist {vertical.kstart_moist}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", required=True, help="folder of LABEL-grid.npz and LABEL-terrain.npz")
    parser.add_argument("--labels", required=True, help="comma-separated grid labels")
    parser.add_argument("--levels", type=int, default=12)
    parser.add_argument("--out", required=True)
    parser.add_argument("--backend", choices=("gtfn_cpu", "embedded"), default="gtfn_cpu")
    args = parser.parse_args()
    for label in args.labels.split(","):
        record(label, pathlib.Path(args.inputs), args.levels, pathlib.Path(args.out), args.backend)
    return 0


if __name__ == "__main__":
    sys.exit(main())

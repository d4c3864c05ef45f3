"""Reference data for the dycore's substeps: ICON4Py's own `SolveNonhydro` (with its
`VelocityAdvection`) built on a small grid with seeded random metric, interpolation and geometry
fields, run through the substeps of two model steps from a random state, every input and the
state after each substep written to `GRID/substeps.npz` (+ `substeps.json`) for
`stencils/tests/dycore_substep.rs`. Run by `tools/icon4py/record_substep`, inside the
environment of `tools/icon4py/setup`.

The grids are loaded as `record_dycore.py` loads them (ICON4Py's derived tables, its zones from
the refinement fields). The fields are drawn at the scales of a grid of about 1 km with layers
of 20-200 m (`FIELD_DRAWS`), not in the unit ranges `record_dycore.py` draws for single calls:
a run of substeps at unit scale (1 m cells, a pressure-gradient term of c_pd·θ·Δπ/Δx ~ 10³)
grows by 10⁸ in its first substep and overflows in its third. The state is the reference state
plus small perturbations; the vertical wind and the thin layers are such that the vertical CFL
number exceeds velocity advection's limit at some cells, as `record_dycore.py`'s draws for those
programs make it (on R2B0 the clipping of w's advection and the extra diffusion of vn run, on
the R2B3 cut the clipping: `cfl_w_limit` 0.651 for 0.65, or `scalfac_exdiff` 0.051 for 0.05,
changes 119 and 7 of the recorded output arrays). The offsets along K and the mostly zero
`pg_exdist` are drawn as `record_dycore.py` draws them.

The schedule (`SCHEDULE`): a first model step at the initial time step of the run (velocity
advection's predictor computes the vertical advection of w), two substeps of 2 s; a second one
after it (the predictor reuses the tendency), three substeps of 1 s (the Rayleigh factor is
recomputed), the states swapped after every substep as ICON4Py's driver swaps them. The
second-order divergence-damping factor changes between substeps so that the corrector's damping
runs with the second-order part alone, with both parts and with the fourth-order part alone.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import record_dycore  # noqa: E402  (the grids, the value ranges, the peer helpers)
from record_dycore import (  # noqa: E402
    CALLS,
    HORIZONTAL_MOMENTUM_DRAWS,
    MASK_TRUE_FRACTION,
    PREDICTOR_DRAWS,
    Fixed,
    Uniform,
)

# Heights of the 9 half levels of 8 levels (m, top down): the Rayleigh damping layer (from
# 45 km) ends at level 2, the flat levels (from 16 km) at level 4, moist physics (below
# 22.5 km) starts at level 4; the full levels span every piece of the fourth-order
# divergence-damping profile (32.5, 40, 60, 80 km).
VCT_A = (85000.0, 62000.0, 46000.0, 36000.0, 26000.0, 15000.0, 8000.0, 2500.0, 0.0)
# The first level where the pressure gradient may cross levels (below nflatlev).
NFLAT_GRADP = 5

# (at_initial_timestep, dtime, [second-order divergence-damping factor per substep]): a
# factor of 0.032 damps with the second-order part alone (above 4 * divdamp_fac = 0.01),
# 0.004 with both, 0 with the fourth-order part alone.
SCHEDULE = (
    (True, 2.0, (0.032, 0.004)),
    (False, 1.0, (0.0, 0.032, 0.004)),
)

# Horizontal grid spacing (m).
SPACING = 1000.0
# Each field's range at the scales of a 1 km grid with layers of 20-200 m (per field, the
# quantity it is in ICON). Fields of the state not listed here are the reference state plus
# `PERTURBATIONS`.
FIELD_DRAWS: dict[str, Uniform | Fixed] = {
    # geometry
    "inverse_primal_edge_lengths": Uniform(0.8 / SPACING, 1.2 / SPACING),
    "inverse_dual_edge_lengths": Uniform(0.8 / SPACING, 1.2 / SPACING),
    "edge_areas": Uniform(0.8 * SPACING**2, 1.2 * SPACING**2),
    "area": Uniform(0.8 * SPACING**2, 1.2 * SPACING**2),
    "coriolis_frequency": Uniform(-1.5e-4, 1.5e-4),
    "primal_normal_cell_x": Uniform(-1.0, 1.0),
    "primal_normal_cell_y": Uniform(-1.0, 1.0),
    "dual_normal_cell_x": Uniform(-1.0, 1.0),
    "dual_normal_cell_y": Uniform(-1.0, 1.0),
    # interpolation: averaging weights O(1), divergence, gradient and curl factors 1/Δx,
    # Laplacian-like ones 1/Δx², positions on the tangent plane Δx
    "e_bln_c_s": Uniform(0.2, 0.45),
    "rbf_coeff_1": Uniform(-0.5, 0.5),
    "rbf_coeff_2": Uniform(-0.5, 0.5),
    "rbf_vec_coeff_e": Uniform(-0.5, 0.5),
    "geofac_div": Uniform(-1.2 / SPACING, 1.2 / SPACING),
    "geofac_rot": Uniform(-1.2 / SPACING, 1.2 / SPACING),
    "geofac_grg_x": Uniform(-1.0 / SPACING, 1.0 / SPACING),
    "geofac_grg_y": Uniform(-1.0 / SPACING, 1.0 / SPACING),
    "geofac_n2s": Uniform(-2.0 / SPACING**2, 2.0 / SPACING**2),
    "geofac_grdiv": Uniform(-1.0 / SPACING**2, 1.0 / SPACING**2),
    "nudgecoeff_e": Uniform(0.0, 0.1),
    "c_lin_e": HORIZONTAL_MOMENTUM_DRAWS["c_lin_e"],
    "c_intp": Uniform(0.1, 0.25),
    "pos_on_tplane_e_1": Uniform(-0.6 * SPACING, 0.6 * SPACING),
    "pos_on_tplane_e_2": Uniform(-0.6 * SPACING, 0.6 * SPACING),
    "e_flx_avg": Uniform(0.0, 0.5),
    # metric
    "rayleigh_w": Uniform(0.0, 0.1),
    "wgtfac_c": Uniform(0.5, 1.0),
    "wgtfac_e": Uniform(0.5, 1.0),
    "wgtfacq_c": Uniform(-0.5, 1.0),
    "wgtfacq_e": Uniform(-0.5, 1.0),
    "time_extrapolation_parameter_for_exner": Uniform(0.0, 0.5),
    "reference_exner_at_cells_on_model_levels": Uniform(0.7, 0.9),
    "reference_rho_at_cells_on_model_levels": Uniform(0.8, 1.2),
    "reference_theta_at_cells_on_model_levels": Uniform(280.0, 320.0),
    "reference_rho_at_edges_on_model_levels": Uniform(0.8, 1.2),
    "reference_theta_at_edges_on_model_levels": Uniform(280.0, 320.0),
    "reference_theta_at_cells_on_half_levels": Uniform(280.0, 320.0),
    # -g / (c_pd θ)
    "ddz_of_reference_exner_at_cells_on_half_levels": Uniform(-4.0e-5, -2.5e-5),
    "ddqz_z_half": Uniform(20.0, 200.0),
    "ddqz_z_full_e": Uniform(20.0, 200.0),
    "inv_ddqz_z_full": Uniform(1.0 / 200.0, 1.0 / 20.0),
    "d2dexdz2_fac1_mc": Uniform(-1.0e-6, 1.0e-6),
    "d2dexdz2_fac2_mc": Uniform(-1.0e-6, 1.0e-6),
    "ddxn_z_full": Uniform(-0.1, 0.1),
    "ddxt_z_full": Uniform(-0.1, 0.1),
    "zdiff_gradp": Uniform(-100.0, 100.0),
    "pg_exdist": Uniform(-50.0, 50.0),
    "exner_w_implicit_weight_parameter": PREDICTOR_DRAWS["exner_w_implicit_weight_parameter"],
    "exner_w_explicit_weight_parameter": PREDICTOR_DRAWS["exner_w_explicit_weight_parameter"],
    "horizontal_mask_for_3d_divdamp": Uniform(0.0, 1.0),
    "scaling_factor_for_3d_divdamp": Uniform(0.0, 1.0),
    "coeff1_dwdz": Uniform(1.0e-3, 1.0e-2),
    "coeff2_dwdz": Uniform(1.0e-3, 1.0e-2),
    "coeff_gradekin": Uniform(-1.5 / SPACING, 1.5 / SPACING),
    # the state: winds of 10 m/s (w·Δt/Δz above 0.65 where the layers are thin)
    "vn": Uniform(-10.0, 10.0),
    "w": Uniform(-10.0, 10.0),
    # the diagnostic state
    "tangential_wind": Uniform(-10.0, 10.0),
    "vn_on_half_levels": Uniform(-10.0, 10.0),
    "contravariant_correction_at_cells_on_half_levels": Uniform(-1.0, 1.0),
    "theta_v_at_cells_on_half_levels": Uniform(280.0, 320.0),
    "perturbed_exner_at_cells_on_model_levels": Uniform(-1.0e-4, 1.0e-4),
    "rho_at_cells_on_half_levels": Uniform(0.8, 1.2),
    "exner_tendency_due_to_slow_physics": Uniform(-1.0e-7, 1.0e-7),
    "grf_tend_rho": Uniform(-1.0e-5, 1.0e-5),
    "grf_tend_thv": Uniform(-1.0e-3, 1.0e-3),
    "grf_tend_w": Uniform(-1.0e-2, 1.0e-2),
    "grf_tend_vn": Uniform(-1.0e-2, 1.0e-2),
    "mass_flux_at_edges_on_model_levels": Uniform(-1.0e3, 1.0e3),
    "normal_wind_tendency_due_to_slow_physics_process": Uniform(-1.0e-3, 1.0e-3),
    "normal_wind_advective_tendency": Uniform(-1.0e-2, 1.0e-2),
    "vertical_wind_advective_tendency": Uniform(-1.0e-2, 1.0e-2),
    "rho_iau_increment": Uniform(-1.0e-5, 1.0e-5),
    "normal_wind_iau_increment": Uniform(-1.0e-2, 1.0e-2),
    "exner_iau_increment": Uniform(-1.0e-5, 1.0e-5),
    "exner_dynamical_increment": Uniform(-1.0e-5, 1.0e-5),
    # the fields for tracer advection
    "vn_traj": Uniform(-10.0, 10.0),
    "mass_flx_me": Uniform(-2.0e3, 2.0e3),
    "dynamical_vertical_mass_flux_at_cells_on_half_levels": Uniform(-10.0, 10.0),
    "dynamical_vertical_volumetric_flux_at_cells_on_half_levels": Uniform(-10.0, 10.0),
}
# The thermodynamic state: the reference state on the cells' full levels plus a perturbation.
PERTURBATIONS = {
    "rho": ("reference_rho_at_cells_on_model_levels", Uniform(-0.01, 0.01)),
    "exner": ("reference_exner_at_cells_on_model_levels", Uniform(-1.0e-4, 1.0e-4)),
    "theta_v": ("reference_theta_at_cells_on_model_levels", Uniform(-1.0, 1.0)),
}

PROGNOSTIC = ("vn", "w", "rho", "exner", "theta_v")
HALF_LEVELS = {
    "w",
    "wgtfac_c",
    "wgtfacq_c",
    "wgtfacq_e",
    "ddqz_z_half",
    "ddz_of_reference_exner_at_cells_on_half_levels",
    "reference_theta_at_cells_on_half_levels",
    "vn_on_half_levels",
    "contravariant_correction_at_cells_on_half_levels",
    "theta_v_at_cells_on_half_levels",
    "rho_at_cells_on_half_levels",
    "grf_tend_w",
    "vertical_wind_advective_tendency",
    "dynamical_vertical_mass_flux_at_cells_on_half_levels",
    "dynamical_vertical_volumetric_flux_at_cells_on_half_levels",
}


class Recorder:
    """Draws fields on one grid and keeps every array for the file."""

    def __init__(self, grid, levels: int, seed: int):
        self.grid, self.levels = grid, levels
        self.rng = np.random.default_rng(seed)
        self.arrays: dict[str, np.ndarray] = {}

    def shape(self, dims_, name: str) -> tuple[int, ...]:
        import gt4py.next as gtx

        return tuple(
            (
                self.levels + (1 if name in HALF_LEVELS else 0)
                if d.kind == gtx.DimensionKind.VERTICAL
                else (
                    self.grid.size(d.value)
                    if d.kind == gtx.DimensionKind.HORIZONTAL
                    else self.grid.tables[d.value].shape[1]
                )
            )
            for d in dims_
        )

    def field(self, key: str, name: str, dims_, value: np.ndarray | None = None):
        import gt4py.next as gtx
        import peer

        if value is None:
            if name not in FIELD_DRAWS:
                raise SystemExit(f"no range for `{name}` in FIELD_DRAWS")
            value = peer.draw(self.rng, FIELD_DRAWS[name], self.shape(dims_, name))
        self.arrays[key] = np.asarray(value).copy()
        return gtx.as_field(list(dims_), np.asarray(value).copy())

    def mask(self, key: str, dims_, fraction: float):
        import gt4py.next as gtx

        value = self.rng.uniform(0.0, 1.0, self.shape(dims_, key)) < fraction
        self.arrays[key] = value
        return gtx.as_field(list(dims_), value.copy())

    def save(self, key: str, field) -> None:
        self.arrays[key] = np.asarray(field.asnumpy()).copy()


def metric_state(r: Recorder):
    import peer
    from icon4py.model.atmosphere.dycore import dycore_states
    from icon4py.model.common import dimension as dims

    C, E, K, E2C = dims.CellDim, dims.EdgeDim, dims.KDim, dims.E2CDim
    fields = {}
    for name, ds in {
        "rayleigh_w": (K,),
        "wgtfac_c": (C, K),
        "wgtfacq_c": (C, K),
        "wgtfac_e": (E, K),
        "wgtfacq_e": (E, K),
        "time_extrapolation_parameter_for_exner": (C, K),
        "reference_exner_at_cells_on_model_levels": (C, K),
        "reference_rho_at_cells_on_model_levels": (C, K),
        "reference_theta_at_cells_on_model_levels": (C, K),
        "reference_rho_at_edges_on_model_levels": (E, K),
        "reference_theta_at_edges_on_model_levels": (E, K),
        "reference_theta_at_cells_on_half_levels": (C, K),
        "ddz_of_reference_exner_at_cells_on_half_levels": (C, K),
        "ddqz_z_half": (C, K),
        "d2dexdz2_fac1_mc": (C, K),
        "d2dexdz2_fac2_mc": (C, K),
        "ddxn_z_full": (E, K),
        "ddqz_z_full_e": (E, K),
        "ddxt_z_full": (E, K),
        "inv_ddqz_z_full": (C, K),
        "zdiff_gradp": (E, E2C, K),
        "exner_w_explicit_weight_parameter": (C,),
        "exner_w_implicit_weight_parameter": (C,),
        "horizontal_mask_for_3d_divdamp": (E,),
        "scaling_factor_for_3d_divdamp": (K,),
        "coeff1_dwdz": (C, K),
        "coeff2_dwdz": (C, K),
        "coeff_gradekin": (E, E2C),
    }.items():
        fields[name] = r.field(f"metric__{name}", name, ds)
    pg_exdist = peer.draw(r.rng, FIELD_DRAWS["pg_exdist"], r.shape((E, K), "pg_exdist"))
    # ICON's list of points: zero at two of every three (as record_dycore draws it).
    assert "pg_exdist" in CALLS["compute_rho_theta_pgrad_and_update_vn"].mostly_zero
    pg_exdist.reshape(-1)[np.arange(pg_exdist.size) % 3 != 0] = 0.0
    fields["pg_exdist"] = r.field("metric__pg_exdist", "pg_exdist", (E, K), pg_exdist)
    offsets = peer.vertical_offsets(r.shape((E, E2C, K), "vertoffset_gradp"), r.rng)
    fields["vertoffset_gradp"] = r.field(
        "metric__vertoffset_gradp", "vertoffset_gradp", (E, E2C, K), offsets
    )
    # A cell field, as `update_theta_and_exner_in_halo` reads it.
    fields["mask_prog_halo_c"] = r.mask(
        "metric__mask_prog_halo_c", (C,), MASK_TRUE_FRACTION.get("mask_prog_halo_c", 0.5)
    )
    r.arrays["metric__nflat_gradp"] = np.array(NFLAT_GRADP, dtype=np.int32)
    return dycore_states.MetricStateNonHydro(nflat_gradp=NFLAT_GRADP, **fields)


def interpolation_state(r: Recorder):
    from icon4py.model.atmosphere.dycore import dycore_states
    from icon4py.model.common import dimension as dims

    C, E, V = dims.CellDim, dims.EdgeDim, dims.VertexDim
    fields = {
        name: r.field(f"interpolation__{name}", name, ds)
        for name, ds in {
            "e_bln_c_s": (C, dims.C2EDim),
            "rbf_coeff_1": (V, dims.V2EDim),
            "rbf_coeff_2": (V, dims.V2EDim),
            "geofac_div": (C, dims.C2EDim),
            "geofac_n2s": (C, dims.C2E2CODim),
            "geofac_grg_x": (C, dims.C2E2CODim),
            "geofac_grg_y": (C, dims.C2E2CODim),
            "nudgecoeff_e": (E,),
            "c_lin_e": (E, dims.E2CDim),
            "geofac_grdiv": (E, dims.E2C2EODim),
            "rbf_vec_coeff_e": (E, dims.E2C2EDim),
            "c_intp": (V, dims.V2CDim),
            "geofac_rot": (V, dims.V2EDim),
            "pos_on_tplane_e_1": (E, dims.E2CDim),
            "pos_on_tplane_e_2": (E, dims.E2CDim),
            "e_flx_avg": (E, dims.E2C2EODim),
        }.items()
    }
    return dycore_states.InterpolationState(**fields)


def geometry(r: Recorder):
    from icon4py.model.common import dimension as dims
    from icon4py.model.common.grid import states as grid_states

    E, E2C = dims.EdgeDim, dims.E2CDim
    orientation = np.where(r.rng.uniform(0.0, 1.0, r.grid.size("Edge")) < 0.5, -1.0, 1.0)
    edge = {
        "tangent_orientation": r.field("edge__tangent_orientation", "", (E,), orientation),
        **{
            name: r.field(f"edge__{name}", name, (E,))
            for name in (
                "inverse_primal_edge_lengths",
                "inverse_dual_edge_lengths",
                "edge_areas",
                "coriolis_frequency",
            )
        },
        **{
            name: r.field(f"edge__{name}", name, (E, E2C))
            for name in (
                "primal_normal_cell_x",
                "primal_normal_cell_y",
                "dual_normal_cell_x",
                "dual_normal_cell_y",
            )
        },
    }
    area = r.field("cell__area", "area", (dims.CellDim,))
    mean_cell_area = float(np.mean(r.arrays["cell__area"]))
    r.arrays["cell__mean_cell_area"] = np.array(mean_cell_area)
    return (
        grid_states.EdgeParams(**edge),
        grid_states.CellParams(area=area, mean_cell_area=mean_cell_area),
    )


def prognostic_state(r: Recorder, key: str):
    from icon4py.model.common import dimension as dims
    from icon4py.model.common.states import prognostic_state as prognostics

    import peer

    C, E, K = dims.CellDim, dims.EdgeDim, dims.KDim
    fields = {}
    for name in PROGNOSTIC:
        ds = (E, K) if name == "vn" else (C, K)
        value = None
        if name in PERTURBATIONS:
            reference, perturbation = PERTURBATIONS[name]
            base = r.arrays[f"metric__{reference}"]
            value = base + peer.draw(r.rng, perturbation, base.shape)
        fields[name] = r.field(f"{key}__{name}", name, ds, value)
    return prognostics.PrognosticState(**fields)


DIAGNOSTIC_FIELDS = {
    "tangential_wind": "E",
    "vn_on_half_levels": "E",
    "contravariant_correction_at_cells_on_half_levels": "C",
    "theta_v_at_cells_on_half_levels": "C",
    "perturbed_exner_at_cells_on_model_levels": "C",
    "rho_at_cells_on_half_levels": "C",
    "exner_tendency_due_to_slow_physics": "C",
    "grf_tend_rho": "C",
    "grf_tend_thv": "C",
    "grf_tend_w": "C",
    "mass_flux_at_edges_on_model_levels": "E",
    "normal_wind_tendency_due_to_slow_physics_process": "E",
    "grf_tend_vn": "E",
    "rho_iau_increment": "C",
    "normal_wind_iau_increment": "E",
    "exner_iau_increment": "C",
    "exner_dynamical_increment": "C",
}
PAIRS = {"normal_wind_advective_tendency": "E", "vertical_wind_advective_tendency": "C"}
PREP_ADV_FIELDS = {
    "vn_traj": "E",
    "mass_flx_me": "E",
    "dynamical_vertical_mass_flux_at_cells_on_half_levels": "C",
    "dynamical_vertical_volumetric_flux_at_cells_on_half_levels": "C",
}


def horizontal(letter: str):
    from icon4py.model.common import dimension as dims

    return {"C": dims.CellDim, "E": dims.EdgeDim}[letter]


def diagnostic_state(r: Recorder):
    from icon4py.model.common import dimension as dims, utils as common_utils
    from icon4py.model.common.states import nonhydro_states

    K = dims.KDim
    fields = {
        name: r.field(f"diagnostic__{name}", name, (horizontal(h), K))
        for name, h in DIAGNOSTIC_FIELDS.items()
    }
    for name, h in PAIRS.items():
        fields[name] = common_utils.PredictorCorrectorPair(
            *(
                r.field(f"diagnostic__{name}__{part}", name, (horizontal(h), K))
                for part in ("predictor", "corrector")
            )
        )
    r.arrays["diagnostic__max_vertical_cfl"] = np.array(0.0)
    return nonhydro_states.DiagnosticStateNonHydro(max_vertical_cfl=np.asarray(0.0), **fields)


def prep_advection(r: Recorder):
    from icon4py.model.atmosphere.dycore import dycore_states
    from icon4py.model.common import dimension as dims

    return dycore_states.PrepAdvection(
        **{
            name: r.field(f"prep_adv__{name}", name, (horizontal(h), dims.KDim))
            for name, h in PREP_ADV_FIELDS.items()
        }
    )


def save_state(r: Recorder, prefix: str, states, diagnostic, prep_adv, solver) -> None:
    for which in ("current", "next"):
        for name in PROGNOSTIC:
            r.save(f"{prefix}{which}__{name}", getattr(getattr(states, which), name))
    for name in DIAGNOSTIC_FIELDS:
        r.save(f"{prefix}diagnostic__{name}", getattr(diagnostic, name))
    for name in PAIRS:
        for part in ("predictor", "corrector"):
            r.save(f"{prefix}diagnostic__{name}__{part}", getattr(getattr(diagnostic, name), part))
    r.arrays[f"{prefix}diagnostic__max_vertical_cfl"] = np.array(float(diagnostic.max_vertical_cfl))
    for name in PREP_ADV_FIELDS:
        r.save(f"{prefix}prep_adv__{name}", getattr(prep_adv, name))
    r.save(f"{prefix}rayleigh_damping_factor", solver.rayleigh_damping_factor)


def zones(grid) -> dict:
    """ICON4Py's [start, end) of every zone that exists for each dimension."""
    from icon4py.model.common.grid import horizontal as h_grid

    recorded = {}
    for dim in ("Cell", "Edge", "Vertex"):
        recorded[dim] = {}
        for zone in h_grid.Zone:
            try:
                recorded[dim][zone.name] = [grid.start(dim, zone.name), grid.end(dim, zone.name)]
            except (AssertionError, ValueError, KeyError, IndexError):
                continue  # the zone does not exist for this dimension
    return recorded


def run_time_scalars(*, program, backend, constant_args=None, variants=None, **sizes):
    """ICON4Py's `setup_program` without compiling each variant ahead of time: the bound
    arguments are bound as it binds them, the static values (`variants`) are passed at run time
    as `record_dycore.py` passes them, and GT4Py compiles (or finds in its cache) the program on
    its first call."""
    import functools

    from icon4py.model.common import model_options

    del variants  # every value is a run-time argument
    bound = dict(constant_args or {})
    bound.update(sizes.get("horizontal_sizes") or {})
    bound.update(sizes.get("vertical_sizes") or {})
    return functools.partial(
        program.with_backend(model_options.customize_backend(program, backend)),
        **bound,
        offset_provider=sizes.get("offset_provider") or {},
    )


def record(
    spec: str,
    label: str,
    levels: int,
    seed: int,
    backend_name: str,
    compile_variants: bool = False,
) -> tuple[dict, dict]:
    import gt4py.next as gtx
    from icon4py.model.atmosphere.dycore import solve_nonhydro as solve_nh, velocity_advection
    from icon4py.model.common import dimension as dims, utils as common_utils
    from icon4py.model.common.decomposition import definitions as decomposition
    from icon4py.model.common.grid import vertical as v_grid

    grid = record_dycore.load_grid(spec, levels)
    r = Recorder(grid, levels, seed)
    for name, table in grid.tables.items():
        r.arrays[name] = table.astype(np.int32)
    vct_a = np.array(VCT_A)
    if vct_a.size != levels + 1:
        raise SystemExit(
            f"VCT_A has {vct_a.size} half levels; --levels {levels} needs {levels + 1}"
        )
    r.arrays["vct_a"] = vct_a
    vertical = v_grid.VerticalGrid(
        config=v_grid.VerticalGridConfig(num_levels=levels),
        vct_a=gtx.as_field((dims.KDim,), vct_a.copy()),
        vct_b=None,
    )
    metric = metric_state(r)
    interpolation = interpolation_state(r)
    edge, cell = geometry(r)
    config = solve_nh.NonHydrostaticConfig()
    backend = None if backend_name == "embedded" else getattr(gtx, backend_name)
    if backend is not None and not compile_variants:
        solve_nh.setup_program = run_time_scalars
        velocity_advection.setup_program = run_time_scalars
    solver = solve_nh.SolveNonhydro(
        grid=grid.icon,
        config=config,
        params=solve_nh.NonHydrostaticParams(config),
        metric_state_nonhydro=metric,
        interpolation_state=interpolation,
        vertical_params=vertical,
        edge_geometry=edge,
        cell_geometry=cell,
        owner_mask=gtx.as_field((dims.CellDim,), np.ones(grid.size("Cell"), dtype=bool)),
        backend=backend,
        exchange=decomposition.SingleNodeExchange(),
    )
    r.save(
        "out__interpolated_fourth_order_divdamp_factor",
        solver.interpolated_fourth_order_divdamp_factor,
    )
    states = common_utils.TimeStepPair(prognostic_state(r, "current"), prognostic_state(r, "next"))
    diagnostic = diagnostic_state(r)
    prep_adv = prep_advection(r)

    substeps = []
    for at_initial_timestep, dtime, factors in SCHEDULE:
        for i, factor in enumerate(factors):
            step = {
                "dtime": dtime,
                "ndyn_substeps_var": len(factors),
                "at_initial_timestep": at_initial_timestep,
                "at_first_substep": i == 0,
                "at_last_substep": i == len(factors) - 1,
                "lprep_adv": True,
                "second_order_divdamp_factor": factor,
            }
            solver.time_step(
                diagnostic_state_nh=diagnostic,
                prognostic_states=states,
                prep_adv=prep_adv,
                **step,
            )
            substeps.append(step)
            save_state(r, f"out__substep{len(substeps)}__", states, diagnostic, prep_adv, solver)
            print(f"{label}: substep {len(substeps)} {step}", flush=True)
            # ICON4Py's driver: the new state is the next substep's current one.
            states.swap()

    bad = [k for k, v in r.arrays.items() if v.dtype.kind == "f" and not np.isfinite(v).all()]
    if bad:
        raise SystemExit(f"{label}: non-finite values in {', '.join(bad)}")
    import peer  # noqa: F401  (the versions below, as record_dycore's files say them)
    from importlib import metadata

    sidecar = {
        "name": "substeps",
        "grid": label,
        "grid_sizes": {
            "num_cells": grid.size("Cell"),
            "num_edges": grid.size("Edge"),
            "num_vertices": grid.size("Vertex"),
            "num_levels": levels,
        },
        "limited_area": bool(grid.limited_area),
        "zones": zones(grid),
        "vertical": {
            "nflatlev": int(vertical.nflatlev),
            "end_index_of_damping_layer": int(vertical.end_index_of_damping_layer),
            "kstart_moist": int(vertical.kstart_moist),
            "nflat_gradp": NFLAT_GRADP,
        },
        "config": {
            "rayleigh_type": int(config.rayleigh_type),
            "divdamp_order": int(config.divdamp_order),
            "divdamp_type": int(config.divdamp_type),
            "igradp_method": int(config.igradp_method),
            "rhotheta_offctr": config.rhotheta_offctr,
            "veladv_offctr": config.veladv_offctr,
            "max_nudging_coefficient": config.max_nudging_coefficient,
            "fourth_order_divdamp_factor": [
                config.fourth_order_divdamp_factor,
                config.fourth_order_divdamp_factor2,
                config.fourth_order_divdamp_factor3,
                config.fourth_order_divdamp_factor4,
            ],
            "fourth_order_divdamp_z": [
                config.fourth_order_divdamp_z,
                config.fourth_order_divdamp_z2,
                config.fourth_order_divdamp_z3,
                config.fourth_order_divdamp_z4,
            ],
        },
        "substeps": substeps,
        "params": [
            {
                "name": k,
                "kind": "scalar" if v.ndim == 0 else "field",
                "dtype": str(v.dtype),
                **({} if v.ndim == 0 else {"shape": list(v.shape)}),
            }
            for k, v in r.arrays.items()
            if not k.startswith("out__") and k not in grid.tables
        ],
        "offsets": {name: list(t.shape) for name, t in grid.tables.items()},
        "backend": backend_name,
        "static_values": "compiled in" if compile_variants else "run time",
        "seed": seed,
        "versions": {
            p: metadata.version(p)
            for p in ("gt4py", "icon4py-common", "icon4py-atmosphere-dycore", "numpy")
        },
        "precision": "double",
    }
    return r.arrays, sidecar


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grids", required=True, help="comma-separated grid .npz files")
    parser.add_argument("--labels", required=True, help="comma-separated folder names, one a grid")
    parser.add_argument("--levels", type=int, default=len(VCT_A) - 1)
    # GT4Py 1.2.1's embedded backend cannot run velocity advection (`concat_where` with a
    # broadcast scalar: "Cannot compute length of open 'UnitRange'").
    parser.add_argument("--backend", choices=("gtfn_cpu", "embedded"), default="gtfn_cpu")
    parser.add_argument(
        "--compile-variants",
        action="store_true",
        help="ICON4Py's own setup_program: every variant compiled ahead of time with its static "
        "values inlined (many GT4Py compilations; the default passes them at run time)",
    )
    parser.add_argument("--seed", type=int, default=20261128)
    parser.add_argument("--out", required=True, help="folder of the grids' folders")
    args = parser.parse_args()

    os.environ["FLOAT_PRECISION"] = "double"
    grids, labels = args.grids.split(","), args.labels.split(",")
    if len(grids) != len(labels):
        raise SystemExit("--grids and --labels must name as many grids")
    for spec, label in zip(grids, labels):
        arrays, sidecar = record(
            spec, label, args.levels, args.seed, args.backend, args.compile_variants
        )
        folder = pathlib.Path(args.out) / label
        folder.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(folder / "substeps.npz", **arrays)
        (folder / "substeps.json").write_text(json.dumps(sidecar, indent=1) + "\n")
        print(f"{label}: substeps.npz ({args.backend})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How the peer benchmark calls each ICON4Py program: its module, domain, half-level fields,
static values and the value ranges its inputs need.

The domains are those of ICON's diffusion step and velocity advection (the same as gt4rs's own
ICON tests, `stencils/tests/support/mod.rs`, with its levels scaled to the benchmark's); the
static values are the main job's (`gt4rs run diffusion`: turbulence shear type 0, vertical θ
diffusion on; `limited_area` is the grid's). Inputs not named in `draws` are uniform in
[-1, 1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

DIFFUSION = "icon4py.model.atmosphere.diffusion.stencils."
DYCORE = "icon4py.model.atmosphere.dycore.stencils."
DIFFUSION_UTILS = "icon4py.model.atmosphere.diffusion.diffusion_utils"
INTERPOLATION = "icon4py.model.common.interpolation.stencils."

# The upper damping layer's last level (ICON's nrdmax, 0-based) and the first flat level.
NRDMAX = 8
NFLATLEV = 20


@dataclasses.dataclass(frozen=True)
class Uniform:
    low: float
    high: float


@dataclasses.dataclass(frozen=True)
class Fixed:
    value: float


@dataclasses.dataclass(frozen=True)
class Call:
    """One program call. `horizontal` is (dimension, zone, zone): from the start of the first
    ICON4Py zone to the end of the second, a function of the grid giving the range, or None for
    a program without horizontal bounds;
    `vertical(nlev)` gives the K range, or None for a program without vertical bounds. A value
    in `ints` or `flags` is a constant or a function of the grid (`start(dim, zone)`,
    `end(dim, zone)`, `limited_area`)."""

    module: str
    horizontal: tuple[str, str, str] | Callable[[Any], tuple[int, int]] | None
    vertical: Callable[[int], tuple[int, int]] | None
    half_levels: tuple[str, ...] = ()
    ints: dict[str, int | Callable[[Any], int]] = dataclasses.field(default_factory=dict)
    flags: dict[str, bool | Callable[[Any], bool]] = dataclasses.field(default_factory=dict)
    draws: dict[str, Uniform | Fixed] = dataclasses.field(default_factory=dict)


def full(nlev: int) -> tuple[int, int]:
    return (0, nlev)


def below_top(nlev: int) -> tuple[int, int]:
    return (1, nlev)


def half(nlev: int) -> tuple[int, int]:
    return (0, nlev + 1)


SMAGORINSKY = {
    "diff_multfac_smag": Uniform(0.5, 1.5),
    "smag_limit": Uniform(0.2, 1.2),
    "smag_offset": Fixed(0.5),
}
THETA_AND_EXNER = {
    "theta_v": Uniform(250.0, 350.0),
    "theta_v_in": Uniform(250.0, 350.0),
    "exner": Uniform(0.5, 1.0),
    "area": Uniform(0.5, 1.5),
    "rd_o_cvd": Fixed(287.04 / 717.6),
}
FORWARD_SWEEP = {
    "vwind_impl_wgt": Uniform(0.5, 1.0),
    "theta_v_ic": Uniform(0.5, 1.0),
    "ddqz_z_half": Uniform(0.5, 1.0),
    "z_alpha": Uniform(0.1, 1.0),
    "z_beta": Uniform(0.1, 1.0),
    "dtime": Fixed(0.1),
    "cpd": Fixed(1.0),
}

EDGES_LB5 = ("Edge", "LATERAL_BOUNDARY_LEVEL_5", "LOCAL")
CELLS_NUDGING = ("Cell", "NUDGING", "LOCAL")
CELLS_INTERIOR = ("Cell", "INTERIOR", "LOCAL")
# Where w is diffused: from the nudging zone (the interior on a global grid, where the nudging
# zone is empty at its start).
CELLS_W_DIFFUSION = CELLS_NUDGING

CALLS: dict[str, Call] = {
    "mo_intp_rbf_rbf_vec_interpol_vertex": Call(
        INTERPOLATION + "mo_intp_rbf_rbf_vec_interpol_vertex",
        ("Vertex", "LATERAL_BOUNDARY_LEVEL_2", "LOCAL"),
        full,
    ),
    "setup_fields_for_initial_step": Call(
        DIFFUSION_UTILS,
        None,
        None,
        draws={"k4": Uniform(0.01, 0.1), "hdiff_efdt_ratio": Uniform(10.0, 40.0)},
    ),
    "scale_k": Call(DIFFUSION_UTILS, None, None),
    "calculate_nabla4": Call(DIFFUSION + "calculate_nabla4", EDGES_LB5, full),
    "calculate_nabla2_and_smag_coefficients_for_vn": Call(
        DIFFUSION + "calculate_nabla2_and_smag_coefficients_for_vn",
        EDGES_LB5,
        full,
        draws=SMAGORINSKY,
    ),
    "apply_nabla2_and_nabla4_to_vn": Call(
        DIFFUSION + "apply_nabla2_and_nabla4_to_vn", ("Edge", "NUDGING_LEVEL_2", "LOCAL"), full
    ),
    "apply_nabla2_and_nabla4_global_to_vn": Call(
        DIFFUSION + "apply_nabla2_and_nabla4_global_to_vn",
        ("Edge", "NUDGING_LEVEL_2", "LOCAL"),
        full,
    ),
    # A global grid has no lateral boundary: the stencil runs on every edge there.
    "apply_nabla2_to_vn_in_lateral_boundary": Call(
        DIFFUSION + "apply_nabla2_to_vn_in_lateral_boundary",
        lambda g: (
            (g.start("Edge", "LATERAL_BOUNDARY_LEVEL_5"), g.start("Edge", "NUDGING_LEVEL_2"))
            if g.limited_area
            else (0, g.size("Edge"))
        ),
        full,
    ),
    "apply_diffusion_to_vn": Call(
        DIFFUSION + "apply_diffusion_to_vn",
        EDGES_LB5,
        full,
        ints={"start_2nd_nudge_line_idx_e": lambda b: b.start("Edge", "NUDGING_LEVEL_2")},
        flags={"limited_area": lambda g: g.limited_area},
    ),
    "temporary_fields_for_turbulence_diagnostics": Call(
        DIFFUSION + "temporary_fields_for_turbulence_diagnostics",
        CELLS_NUDGING,
        full,
        draws={"diff_multfac_smag": Uniform(0.5, 1.5)},
    ),
    "calculate_diagnostic_quantities_for_turbulence": Call(
        DIFFUSION + "calculate_diagnostic_quantities_for_turbulence",
        CELLS_NUDGING,
        below_top,
        half_levels=("wgtfac_c", "div_ic", "hdef_ic"),
        draws={"diff_multfac_smag": Uniform(0.5, 1.5)},
    ),
    "calculate_nabla2_for_w": Call(
        DIFFUSION + "calculate_nabla2_for_w",
        CELLS_W_DIFFUSION,
        half,
        half_levels=("w", "z_nabla2_c"),
    ),
    "apply_nabla2_to_w": Call(DIFFUSION + "apply_nabla2_to_w", CELLS_INTERIOR, full),
    "apply_nabla2_to_w_in_upper_damping_layer": Call(
        DIFFUSION + "apply_nabla2_to_w_in_upper_damping_layer",
        CELLS_INTERIOR,
        lambda nlev: (1, NRDMAX + 1),
    ),
    "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence": Call(
        DIFFUSION + "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence",
        CELLS_W_DIFFUSION,
        full,
        half_levels=("w_old", "w", "dwdx", "dwdy"),
        ints={
            "type_shear": 0,
            "nrdmax": NRDMAX + 1,
            "interior_idx": lambda b: b.start("Cell", "INTERIOR"),
            "halo_idx": lambda b: b.end("Cell", "LOCAL"),
        },
    ),
    "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools": Call(
        DIFFUSION + "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools",
        ("Edge", "NUDGING", "LOCAL"),
        lambda nlev: (nlev - 2, nlev),
        draws={
            "kh_smag_e": Uniform(0.0, 1.0e-3),
            "thresh_tdiff": Fixed(0.5),
            "smallest_vpfloat": Fixed(-1.0e30),
        },
    ),
    "calculate_nabla2_for_z": Call(
        DIFFUSION + "calculate_nabla2_for_z", ("Edge", "LATERAL_BOUNDARY_LEVEL_2", "LOCAL"), full
    ),
    "calculate_nabla2_of_theta": Call(DIFFUSION + "calculate_nabla2_of_theta", CELLS_NUDGING, full),
    "calculate_nabla2_for_theta": Call(
        DIFFUSION + "calculate_nabla2_for_theta", CELLS_NUDGING, full
    ),
    "truly_horizontal_diffusion_nabla_of_theta_over_steep_points": Call(
        DIFFUSION + "truly_horizontal_diffusion_nabla_of_theta_over_steep_points",
        CELLS_NUDGING,
        full,
    ),
    "update_theta_and_exner": Call(
        DIFFUSION + "update_theta_and_exner", CELLS_NUDGING, full, draws=THETA_AND_EXNER
    ),
    "apply_diffusion_to_theta_and_exner": Call(
        DIFFUSION + "apply_diffusion_to_theta_and_exner",
        CELLS_NUDGING,
        full,
        flags={"apply_zdiffusion_t": True},
        draws=THETA_AND_EXNER,
    ),
    "compute_tangential_wind": Call(DYCORE + "compute_tangential_wind", EDGES_LB5, full),
    "interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges": Call(
        DYCORE + "interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges",
        EDGES_LB5,
        below_top,
    ),
    "compute_horizontal_kinetic_energy": Call(
        DYCORE + "compute_horizontal_kinetic_energy",
        EDGES_LB5,
        full,
        half_levels=("vn_ie", "z_vt_ie"),
    ),
    "compute_diagnostics_from_normal_wind": Call(
        DYCORE + "compute_diagnostics_from_normal_wind",
        EDGES_LB5,
        half,
        half_levels=("vn_on_half_levels", "w", "wgtfac_e", "wgtfacq_e"),
        ints={"nflatlev": NFLATLEV},
        flags={"skip_compute_predictor_vertical_advection": False},
    ),
    "solve_tridiagonal_matrix_for_w_forward_sweep": Call(
        DYCORE + "solve_tridiagonal_matrix_for_w_forward_sweep",
        ("Cell", "LATERAL_BOUNDARY", "END"),
        below_top,
        half_levels=("z_alpha", "z_w_expl"),
        draws=FORWARD_SWEEP,
    ),
    "solve_tridiagonal_matrix_for_w_back_substitution": Call(
        DYCORE + "solve_tridiagonal_matrix_for_w_back_substitution",
        ("Cell", "LATERAL_BOUNDARY", "END"),
        below_top,
    ),
}

# The programs of the table, run first and by default.
HEADLINE = (
    "calculate_nabla4",
    "calculate_nabla2_and_smag_coefficients_for_vn",
    "apply_diffusion_to_vn",
    "compute_diagnostics_from_normal_wind",
)

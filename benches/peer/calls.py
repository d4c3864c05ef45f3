"""How the peer benchmark calls each ICON4Py program: its module, domain, half-level fields,
static values and the value ranges its inputs need.

The diffusion and velocity programs (the first 28): the domains are those of ICON's diffusion
step and velocity advection (the same as gt4rs's own ICON tests, `stencils/tests/support/mod.rs`,
with its levels scaled to the benchmark's); the static values are the main job's (`gt4rs run
diffusion`: turbulence shear type 0, vertical θ diffusion on; `limited_area` is the grid's).

The dycore programs (`DYCORE`): ICON4Py's domains and static values as `SolveNonhydro` and
`VelocityAdvection` set them up for a default run (see the comment above `DYCORE_CALLS`); their
modules, half-level fields, value ranges and fields zero at most points are those of the dycore
reference data (`tools/icon4py/record_dycore.py`'s `CALLS`), read from there.

Inputs not named in `draws` are uniform in [-1, 1) (benches/peer/random_inputs.py).
"""

from __future__ import annotations

import dataclasses
import pathlib
import sys
from collections.abc import Callable
from typing import Any

from random_inputs import Fixed, Uniform

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "icon4py"))

import record_dycore  # noqa: E402  (the dycore programs' modules, half levels and draws)

DIFFUSION = "icon4py.model.atmosphere.diffusion.stencils."
DYCORE = "icon4py.model.atmosphere.dycore.stencils."
DIFFUSION_UTILS = "icon4py.model.atmosphere.diffusion.diffusion_utils"
INTERPOLATION = "icon4py.model.common.interpolation.stencils."

# The upper damping layer's last level (ICON's nrdmax, 0-based) and the first flat level.
NRDMAX = 8
NFLATLEV = 20


@dataclasses.dataclass(frozen=True)
class Call:
    """One program call. `horizontal` is (dimension, zone, zone): from the start of the first
    ICON4Py zone to the end of the second, a function of the grid giving the range, or None for
    a program without horizontal bounds;
    `vertical(nlev)` gives the K range, or None for a program without vertical bounds. A value
    in `ints` or `flags` is a constant or a function of the grid (`start(dim, zone)`,
    `end(dim, zone)`, `limited_area`, `num_levels`)."""

    module: str
    horizontal: tuple[str, str, str] | Callable[[Any], tuple[int, int]] | None
    vertical: Callable[[int], tuple[int, int]] | None
    half_levels: tuple[str, ...] = ()
    ints: dict[str, int | Callable[[Any], int]] = dataclasses.field(default_factory=dict)
    flags: dict[str, bool | Callable[[Any], bool]] = dataclasses.field(default_factory=dict)
    draws: dict[str, Uniform | Fixed] = dataclasses.field(default_factory=dict)
    # Fields zero at two of every three points (see record_dycore's `Call`).
    mostly_zero: tuple[str, ...] = ()


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


# The dycore programs: SolveNonhydro's and VelocityAdvection's (ICON4Py's solve_nonhydro.py and
# velocity_advection.py) and the vertically implicit solver's pieces, with the domains those
# classes give them and the static values of a default ICON run on this benchmark's grid:
# igradp_method 3 (Taylor-hydrostatic), divdamp_order 24 with the fourth order on and the
# second off (its factor is zero after the spin-up), divdamp_type 3, rayleigh_type 2 (Klemp),
# the extra diffusion of vn on, no IAU, tracer advection prepared (lprep_adv), and the substep
# the substeps mostly are: not the first and not the last of ICON's 5 (the predictor's advection
# of w then skipped, as from the second time step on). `limited_area` is the grid's. The
# vertical indices for 65 levels under a 22 km top (gt4rs's generated vertical grid):
# the damping layer's last level NRDMAX, the flat levels from NFLATLEV, the pressure gradient
# over multiple levels from NFLAT_GRADP = NFLATLEV (ICON's nflat_gradp is at or below
# nflatlev), the moist levels from 0 (ICON's 22.5 km htop_moist_proc is above the top).
NFLAT_GRADP = NFLATLEV
KSTART_MOIST = 0
EDGES_NUDGING2 = ("Edge", "NUDGING_LEVEL_2", "LOCAL")
EDGES_LB5_TO_HALO_2 = ("Edge", "LATERAL_BOUNDARY_LEVEL_5", "HALO_LEVEL_2")
CELLS_LB3_TO_HALO = ("Cell", "LATERAL_BOUNDARY_LEVEL_3", "HALO")
CELLS_LB4_TO_HALO = ("Cell", "LATERAL_BOUNDARY_LEVEL_4", "HALO")


def lateral_boundary_cells(grid) -> tuple[int, int]:
    """ICON's lateral boundary cells (to its fourth line) on a limited-area grid; a global grid
    has none, where ICON does not call these programs: every cell there, so that the benchmark
    times something."""
    if grid.limited_area:
        return grid.start("Cell", "LATERAL_BOUNDARY"), grid.end("Cell", "LATERAL_BOUNDARY_LEVEL_4")
    return 0, grid.size("Cell")


def halo_cells(grid) -> tuple[int, int]:
    """ICON's halo cells (from the first halo line to the end); a single-rank grid has none:
    every cell there."""
    start, end = grid.start("Cell", "HALO"), grid.end("Cell", "END")
    return (start, end) if start < end else (0, grid.size("Cell"))


def surface(nlev: int) -> tuple[int, int]:
    return (nlev, nlev + 1)


def dycore(
    name: str,
    horizontal,
    vertical,
    ints: dict | None = None,
    flags: dict | None = None,
) -> Call:
    """A dycore program's call: the module, half levels, draws and mostly-zero fields of its
    reference data (record_dycore's `CALLS`), with this benchmark's domain and static values."""
    recorded = record_dycore.CALLS[name]
    return Call(
        recorded.module,
        horizontal,
        vertical,
        half_levels=recorded.half_levels,
        ints=ints or {},
        flags=flags or {},
        draws=recorded.draws,
        mostly_zero=recorded.mostly_zero,
    )


def limited_area(grid) -> bool:
    return grid.limited_area


DYCORE_CALLS: dict[str, Call] = {
    # SolveNonhydro's predictor step.
    "compute_perturbed_quantities_and_interpolation": dycore(
        "compute_perturbed_quantities_and_interpolation",
        None,
        None,
        ints={
            "igradp_method": 3,
            "nflatlev": NFLATLEV,
            "nflat_gradp": NFLAT_GRADP,
            "start_cell_lateral_boundary_level_3": lambda g: g.start(
                "Cell", "LATERAL_BOUNDARY_LEVEL_3"
            ),
            "end_cell_local": lambda g: g.end("Cell", "LOCAL"),
            "end_cell_halo": lambda g: g.end("Cell", "HALO"),
            "end_cell_halo_level_2": lambda g: g.end("Cell", "HALO_LEVEL_2"),
            "model_top": 0,
            "surface_level": lambda g: g.num_levels + 1,
        },
    ),
    "compute_hydrostatic_correction_term": dycore(
        "compute_hydrostatic_correction_term",
        EDGES_NUDGING2,
        lambda nlev: (nlev - 1, nlev),
    ),
    "compute_rho_theta_pgrad_and_update_vn": dycore(
        "compute_rho_theta_pgrad_and_update_vn",
        lambda g: (0, g.end("Edge", "HALO_LEVEL_2")),
        full,
        ints={
            "nflatlev": NFLATLEV,
            "nflat_gradp": NFLAT_GRADP,
            "start_edge_lateral_boundary": lambda g: g.start("Edge", "LATERAL_BOUNDARY"),
            "start_edge_lateral_boundary_level_7": lambda g: g.start(
                "Edge", "LATERAL_BOUNDARY_LEVEL_7"
            ),
            "start_edge_nudging_level_2": lambda g: g.start("Edge", "NUDGING_LEVEL_2"),
            "end_edge_nudging": lambda g: g.end("Edge", "NUDGING"),
            "end_edge_local": lambda g: g.end("Edge", "LOCAL"),
            "end_edge_halo": lambda g: g.end("Edge", "HALO"),
        },
        flags={"is_iau_active": False, "limited_area": limited_area},
    ),
    "compute_horizontal_velocity_quantities_and_fluxes": dycore(
        "compute_horizontal_velocity_quantities_and_fluxes",
        EDGES_LB5_TO_HALO_2,
        lambda nlev: (0, nlev + 1),
        ints={"nflatlev": NFLATLEV},
    ),
    "vertically_implicit_solver_at_predictor_step": dycore(
        "vertically_implicit_solver_at_predictor_step",
        None,
        None,
        ints={
            "rayleigh_type": 2,
            "divdamp_type": 3,
            "end_index_of_damping_layer": NRDMAX,
            "kstart_moist": KSTART_MOIST,
            "flat_level_index_plus1": NFLATLEV + 1,
            "start_cell_index_nudging": lambda g: g.start("Cell", "NUDGING"),
            "end_cell_index_local": lambda g: g.end("Cell", "LOCAL"),
            "start_cell_index_lateral_lvl3": lambda g: g.start("Cell", "LATERAL_BOUNDARY_LEVEL_3"),
            "end_cell_index_halo_lvl1": lambda g: g.end("Cell", "HALO"),
            "vertical_start_index_model_top": 0,
            "vertical_end_index_model_surface": lambda g: g.num_levels + 1,
        },
        flags={"is_iau_active": False, "at_first_substep": False},
    ),
    # The lateral boundary's (limited-area grids only).
    "stencils_61_62": dycore("stencils_61_62", lateral_boundary_cells, lambda nlev: (0, nlev + 1)),
    # SolveNonhydro's corrector step.
    "compute_interpolation_and_nonhydro_buoy": dycore(
        "compute_interpolation_and_nonhydro_buoy",
        ("Cell", "LATERAL_BOUNDARY_LEVEL_3", "LOCAL"),
        below_top,
    ),
    "apply_divergence_damping_and_update_vn": dycore(
        "apply_divergence_damping_and_update_vn",
        EDGES_NUDGING2,
        full,
        ints={"divdamp_order": 24},
        flags={
            "is_iau_active": False,
            "limited_area": limited_area,
            "apply_2nd_order_divergence_damping": False,
            "apply_4th_order_divergence_damping": True,
        },
    ),
    "compute_averaged_vn_and_fluxes": dycore(
        "compute_averaged_vn_and_fluxes",
        EDGES_LB5_TO_HALO_2,
        full,
        flags={"prepare_advection": True, "at_first_substep": False},
    ),
    "vertically_implicit_solver_at_corrector_step": dycore(
        "vertically_implicit_solver_at_corrector_step",
        None,
        None,
        ints={
            "rayleigh_type": 2,
            "end_index_of_damping_layer": NRDMAX,
            "kstart_moist": KSTART_MOIST,
            "start_cell_index_nudging": lambda g: g.start("Cell", "NUDGING"),
            "end_cell_index_local": lambda g: g.end("Cell", "LOCAL"),
            "vertical_start_index_model_top": 0,
            "vertical_end_index_model_surface": lambda g: g.num_levels + 1,
        },
        flags={
            "lprep_adv": True,
            "is_iau_active": False,
            "at_first_substep": False,
            "at_last_substep": False,
        },
    ),
    # The lateral boundary's tracer mass flux (limited-area grids only, with lprep_adv; the
    # zeroing at the first substep).
    "init_cell_kdim_field_with_zero_wp": dycore(
        "init_cell_kdim_field_with_zero_wp", lateral_boundary_cells, lambda nlev: (0, nlev + 1)
    ),
    "update_mass_flux_weighted": dycore(
        "update_mass_flux_weighted", lateral_boundary_cells, below_top
    ),
    # After both steps (the lateral boundary's exner on limited-area grids only).
    "compute_exner_from_rhotheta": dycore(
        "compute_exner_from_rhotheta", lateral_boundary_cells, full
    ),
    "update_theta_and_exner_in_halo": dycore("update_theta_and_exner_in_halo", halo_cells, full),
    # The K-field helpers: the Rayleigh damping factor per substep length, the divergence
    # damping's coefficients per step.
    "compute_rayleigh_damping_factor": dycore("compute_rayleigh_damping_factor", None, None),
    "calculate_divdamp_fields": dycore(
        "calculate_divdamp_fields", None, None, ints={"divdamp_order": 24}
    ),
    # VelocityAdvection: vn in both steps, w in the predictor (at the first substep; its
    # tendency skipped after the first time step) and in the corrector.
    "compute_advection_in_horizontal_momentum": dycore(
        "compute_advection_in_horizontal_momentum",
        EDGES_NUDGING2,
        full,
        ints={"end_index_of_damping_layer": NRDMAX},
        flags={"apply_extra_diffusion_on_vn": True},
    ),
    "compute_advection_in_predictor_vertical_momentum": dycore(
        "compute_advection_in_predictor_vertical_momentum",
        CELLS_LB4_TO_HALO,
        full,
        ints={"nflatlev": NFLATLEV, "end_index_of_damping_layer": NRDMAX},
        flags={"skip_compute_predictor_vertical_advection": True},
    ),
    "compute_advection_in_corrector_vertical_momentum": dycore(
        "compute_advection_in_corrector_vertical_momentum",
        CELLS_LB4_TO_HALO,
        full,
        ints={"end_index_of_damping_layer": NRDMAX},
    ),
    # The vertically implicit solver's pieces, each on the cells and levels where the fused
    # solver computes it: the contravariant correction from lateral boundary level 3 to the
    # first halo line below the flat levels, its lower boundary on the surface half level; the
    # rest on the prognostic cells, the Rayleigh damping on the levels below the top down to
    # NRDMAX, the mass and volume fluxes on the half levels below the top, the exner increment
    # on the moist levels.
    "compute_contravariant_correction_of_w": dycore(
        "compute_contravariant_correction_of_w",
        CELLS_LB3_TO_HALO,
        lambda nlev: (NFLATLEV + 1, nlev),
    ),
    "compute_contravariant_correction_of_w_for_lower_boundary": dycore(
        "compute_contravariant_correction_of_w_for_lower_boundary", CELLS_LB3_TO_HALO, surface
    ),
    "compute_divergence_of_fluxes_of_rho_and_theta": dycore(
        "compute_divergence_of_fluxes_of_rho_and_theta", CELLS_NUDGING, full
    ),
    "compute_dwdz_for_divergence_damping": dycore(
        "compute_dwdz_for_divergence_damping", CELLS_NUDGING, full
    ),
    "compute_solver_coefficients_matrix": dycore(
        "compute_solver_coefficients_matrix", CELLS_NUDGING, full
    ),
    "compute_explicit_part_for_rho_and_exner": dycore(
        "compute_explicit_part_for_rho_and_exner", CELLS_NUDGING, full
    ),
    "add_analysis_increments_from_data_assimilation": dycore(
        "add_analysis_increments_from_data_assimilation", CELLS_NUDGING, full
    ),
    "apply_rayleigh_damping_mechanism": dycore(
        "apply_rayleigh_damping_mechanism", CELLS_NUDGING, lambda nlev: (1, NRDMAX + 1)
    ),
    "compute_results_for_thermodynamic_variables": dycore(
        "compute_results_for_thermodynamic_variables", CELLS_NUDGING, full
    ),
    "update_mass_volume_flux": dycore("update_mass_volume_flux", CELLS_NUDGING, below_top),
    "update_dynamical_exner_time_increment": dycore(
        "update_dynamical_exner_time_increment",
        CELLS_NUDGING,
        lambda nlev: (KSTART_MOIST, nlev),
    ),
}
DYCORE = tuple(DYCORE_CALLS)
CALLS.update(DYCORE_CALLS)

# The programs of the table, run first and by default.
HEADLINE = (
    "calculate_nabla4",
    "calculate_nabla2_and_smag_coefficients_for_vn",
    "apply_diffusion_to_vn",
    "compute_diagnostics_from_normal_wind",
)

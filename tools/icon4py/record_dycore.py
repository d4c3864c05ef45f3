"""Reference data for the dycore programs: ICON4Py's own `solve_nonhydro` programs called on
seeded random inputs, written as refs-convention files (refs/icon4py/README.md) that
`gt4rs verify` and `stencils/tests/dycore_refs.rs` read. Run by `tools/icon4py/record_dycore`,
inside the environment of `tools/icon4py/setup`.

One process records one precision (`--precision double|mixed`: ICON4Py reads its
`FLOAT_PRECISION` when its modules are imported) on each grid of `--grids`: a grid file written
by `gt4rs grid info GRID --npz FILE` (loaded as the peer benchmark loads it,
benches/peer/icon4py_grid.py: ICON4Py's derived tables, zones from the refinement fields,
`keep_skip_values=False`) or `simple` (ICON4Py's periodic simple grid). Each program runs on
GT4Py's `gtfn_cpu` backend (`--backend embedded` for GT4Py's embedded one), every scalar passed
at run time. Fields are stored as float64 whatever their precision: an f32 (mixed `vpfloat`)
field's values are drawn in f64 and rounded to f32 first, so the stored value is exact.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import pathlib
import sys
from collections.abc import Callable

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benches" / "peer"))

import random_inputs  # noqa: E402  (how the peer benchmark draws inputs)
from random_inputs import Fixed, Uniform  # noqa: E402

DYCORE = "icon4py.model.atmosphere.dycore.stencils."


@dataclasses.dataclass(frozen=True)
class Call:
    """One program call: its module, the horizontal domain (dimension, first zone, last zone:
    from the start of the first to the end of the second), the vertical one as a function of
    nlev, the fields with nlev + 1 levels, and the value ranges of inputs that need their own
    (others are uniform in [-1, 1))."""

    module: str
    horizontal: tuple[str, str, str] | None
    vertical: Callable[[int], tuple[int, int]] | None
    half_levels: tuple[str, ...] = ()
    draws: dict[str, Uniform | Fixed] = dataclasses.field(default_factory=dict)
    # Other int32 and bool scalars: a value, or a function of the grid and nlev.
    scalars: dict[str, int | bool | Callable] = dataclasses.field(default_factory=dict)
    # More calls with other static values: a file suffix and the scalars it changes.
    variants: dict[str, dict[str, int | bool]] = dataclasses.field(default_factory=dict)
    # Whether ICON4Py runs the program in mixed precision.
    mixed: bool = True
    # The horizontal domain where `horizontal`'s zones are empty (the lateral boundary of a
    # global grid), so that the data still checks the program there.
    horizontal_elsewhere: tuple[str, str, str] | None = None
    # Full levels where the program needs more than --levels to reach all its branches.
    levels: int | None = None
    # Fields zero at two of every three points (ICON's lists of points, as ICON4Py's fields
    # zero elsewhere), so that both sides of a selection on `!= 0` run.
    mostly_zero: tuple[str, ...] = ()


CELLS_NUDGING = ("Cell", "NUDGING", "LOCAL")
CELLS_LB3 = ("Cell", "LATERAL_BOUNDARY_LEVEL_3", "LOCAL")
CELLS_ALL = ("Cell", "LATERAL_BOUNDARY", "END")
CELLS_LB_TO_LB4 = ("Cell", "LATERAL_BOUNDARY", "LATERAL_BOUNDARY_LEVEL_4")
EDGES_LB5_TO_HALO_2 = ("Edge", "LATERAL_BOUNDARY_LEVEL_5", "HALO_LEVEL_2")
# ICON's time step of a dynamics substep is seconds; a small one keeps the implicit terms
# smaller than the explicit ones, as in a model run.
DTIME = Fixed(0.1)
WEIGHT = Uniform(0.5, 1.0)
POSITIVE = Uniform(0.5, 1.5)


# The fused steps divide by ρ·θ_v, exner and the new ρ: positive states; their tridiagonal
# system needs positive weights and layer thicknesses; a small buoyancy keeps the explicit w of
# the size of the current one.
PREDICTOR_DRAWS = {
    "current_exner": Uniform(0.5, 1.0),
    "current_rho": POSITIVE,
    "current_theta_v": POSITIVE,
    "theta_v_at_cells_on_half_levels": POSITIVE,
    "rho_at_cells_on_half_levels": POSITIVE,
    "inv_ddqz_z_full": POSITIVE,
    "ddqz_z_half": POSITIVE,
    "exner_w_implicit_weight_parameter": WEIGHT,
    "exner_w_explicit_weight_parameter": Uniform(0.0, 0.5),
    "nonhydro_buoy_at_cells_on_half_levels": Uniform(-1.0e-3, 1.0e-3),
    "rayleigh_damping_factor": Uniform(0.5, 1.0),
    "dtime": DTIME,
}


# The cell diagnostics' buoyancy divides by the half levels' thickness; the explicit weight of
# exner and w is ICON's `1 - vwind_impl_wgt`.
CELL_DIAGNOSTICS_DRAWS = {
    "ddqz_z_half": POSITIVE,
    "exner_w_explicit_weight_parameter": Uniform(0.0, 0.5),
}
CELL_DIAGNOSTICS_HALF_LEVELS = (
    "rho_at_cells_on_half_levels",
    "theta_v_at_cells_on_half_levels",
    "nonhydro_buoy_at_cells_on_half_levels",
    "ddz_of_reference_exner_at_cells_on_half_levels",
    "ddqz_z_half",
    "wgtfac_c",
)


# The advection of vn divides by the full levels' thickness on edges; ICON's cfl_w_limit and
# scalfac_exdiff for a 0.1 s substep (`VelocityAdvection._scale_factors_by_dtime`), thin layers,
# linear interpolation weights near 1/2 and a contravariant w of up to 2 m/s, so that the
# vertical wind at some edges exceeds the CFL limit and at others does not.
HORIZONTAL_MOMENTUM_DRAWS = {
    "dtime": DTIME,
    "cfl_w_limit": Fixed(6.5),
    "scalfac_exdiff": Fixed(2.5),
    "ddqz_z_full_e": Uniform(0.1, 0.5),
    "c_lin_e": Uniform(0.4, 0.6),
    "contravariant_corrected_w_at_cells_on_model_levels": Uniform(-2.0, 2.0),
}

# The advection of w divides by the half levels' thickness; ICON's cfl_w_limit and
# scalfac_exdiff for a 0.1 s substep, thin layers and a w of up to 2 m/s, so that the CFL
# clipping happens at some cells (and clips to ±0.85 at some of those) and not at others;
# positive cell areas.
VERTICAL_MOMENTUM_DRAWS = {
    "dtime": DTIME,
    "cfl_w_limit": Fixed(6.5),
    "scalfac_exdiff": Fixed(2.5),
    "ddqz_z_half": Uniform(0.1, 0.5),
    "w": Uniform(-2.0, 2.0),
    "area": POSITIVE,
}
VERTICAL_MOMENTUM_HALF_LEVELS = (
    "w",
    "contravariant_correction_at_cells_on_half_levels",
    "vertical_wind_advective_tendency",
    "ddqz_z_half",
)
# The hydrostatic correction divides by the sum of θ_v at an edge's two cells: potential
# temperatures of the atmosphere, positive layer thicknesses; ICON's g / c_pd.
HYDROSTATIC_CORRECTION_DRAWS = {
    "theta_v": Uniform(250.0, 350.0),
    "theta_v_ic": Uniform(250.0, 350.0),
    "inv_ddqz_z_full": POSITIVE,
    "grav_o_cpd": Fixed(9.80665 / 1004.64),
}


def full(nlev: int) -> tuple[int, int]:
    return (0, nlev)


def below_top(nlev: int) -> tuple[int, int]:
    return (1, nlev)


# ICON's calls (`solve_nonhydro.py`, `vertically_implicit_dycore_solver.py`): cells from the
# nudging zone (the prognostic cells), the contravariant correction from lateral boundary
# level 3; the correction of w on the half levels below the top, its lower boundary on the
# surface half level nlev; the Rayleigh damping on the levels below the top down to nrdmax = 2.
CALLS: dict[str, Call] = {
    "compute_contravariant_correction_of_w": Call(
        DYCORE + "compute_contravariant_correction_of_w", CELLS_LB3, below_top
    ),
    "compute_contravariant_correction_of_w_for_lower_boundary": Call(
        DYCORE + "compute_contravariant_correction_of_w_for_lower_boundary",
        CELLS_LB3,
        lambda nlev: (nlev, nlev + 1),
        half_levels=("w_concorr_c",),
    ),
    "compute_divergence_of_fluxes_of_rho_and_theta": Call(
        DYCORE + "compute_divergence_of_fluxes_of_rho_and_theta", CELLS_NUDGING, full
    ),
    "compute_dwdz_for_divergence_damping": Call(
        DYCORE + "compute_dwdz_for_divergence_damping",
        CELLS_NUDGING,
        full,
        half_levels=("w", "w_concorr_c"),
    ),
    "compute_solver_coefficients_matrix": Call(
        DYCORE + "compute_solver_coefficients_matrix",
        CELLS_NUDGING,
        full,
        half_levels=("theta_v_ic", "rho_ic"),
        draws={
            "exner_nnow": POSITIVE,
            "rho_nnow": POSITIVE,
            "theta_v_nnow": POSITIVE,
            "inv_ddqz_z_full": POSITIVE,
            "vwind_impl_wgt": WEIGHT,
            "dtime": DTIME,
            "rd": Fixed(287.04),
            "cvd": Fixed(1004.64 - 287.04),
        },
    ),
    "compute_explicit_part_for_rho_and_exner": Call(
        DYCORE + "compute_explicit_part_for_rho_and_exner",
        CELLS_NUDGING,
        full,
        half_levels=("z_contr_w_fl_l", "theta_v_ic"),
        draws={"dtime": DTIME},
    ),
    "add_analysis_increments_from_data_assimilation": Call(
        DYCORE + "add_analysis_increments_from_data_assimilation", CELLS_NUDGING, full
    ),
    "apply_rayleigh_damping_mechanism": Call(
        DYCORE + "apply_rayleigh_damping_mechanism",
        CELLS_NUDGING,
        lambda nlev: (1, 3),
        half_levels=("w",),
        draws={"z_raylfac": Uniform(0.5, 1.0)},
    ),
    "compute_results_for_thermodynamic_variables": Call(
        DYCORE + "compute_results_for_thermodynamic_variables",
        CELLS_NUDGING,
        full,
        half_levels=("rho_ic", "w", "z_alpha"),
        draws={
            "z_rho_expl": Uniform(1.0, 2.0),
            "vwind_impl_wgt": WEIGHT,
            "inv_ddqz_z_full": WEIGHT,
            "rho_now": POSITIVE,
            "theta_v_now": POSITIVE,
            "exner_now": POSITIVE,
            "dtime": DTIME,
        },
    ),
    "update_mass_volume_flux": Call(
        DYCORE + "update_mass_volume_flux",
        CELLS_NUDGING,
        below_top,
        half_levels=("z_contr_w_fl_l", "rho_ic", "w", "mass_flx_ic", "vol_flx_ic"),
        draws={"rho_ic": POSITIVE, "vwind_impl_wgt": WEIGHT, "r_nsubsteps": Fixed(0.2)},
    ),
    # The fused predictor step as `SolveNonhydro` calls it: the contravariant correction from
    # lateral boundary level 3 (to the first halo line) below the flat level nflatlev = 1, the
    # solver on the prognostic cells, Rayleigh damping down to level 1, the moist levels from
    # level 1; Klemp damping, 3-D divergence damping (divdamp_type 3), IAU on, the first
    # substep, and a variant with every static value the other way.
    "vertically_implicit_solver_at_predictor_step": Call(
        DYCORE + "vertically_implicit_dycore_solver",
        None,
        None,
        half_levels=(
            "contravariant_correction_at_cells_on_half_levels",
            "next_w",
            "current_w",
            "predictor_vertical_wind_advective_tendency",
            "nonhydro_buoy_at_cells_on_half_levels",
            "rho_at_cells_on_half_levels",
            "theta_v_at_cells_on_half_levels",
            "ddqz_z_half",
            "wgtfac_c",
            "wgtfacq_c",
        ),
        draws=PREDICTOR_DRAWS,
        scalars={
            "is_iau_active": True,
            "rayleigh_type": 2,
            "divdamp_type": 3,
            "at_first_substep": True,
            "end_index_of_damping_layer": 1,
            "kstart_moist": 1,
            "flat_level_index_plus1": 2,
            "start_cell_index_nudging": lambda g, nlev: g.start("Cell", "NUDGING"),
            "end_cell_index_local": lambda g, nlev: g.end("Cell", "LOCAL"),
            "start_cell_index_lateral_lvl3": lambda g, nlev: g.start(
                "Cell", "LATERAL_BOUNDARY_LEVEL_3"
            ),
            "end_cell_index_halo_lvl1": lambda g, nlev: g.end("Cell", "HALO"),
            "vertical_start_index_model_top": 0,
            "vertical_end_index_model_surface": lambda g, nlev: nlev + 1,
        },
        variants={
            "static_values_off": {
                "is_iau_active": False,
                "rayleigh_type": 1,
                "divdamp_type": 2,
                "at_first_substep": False,
            }
        },
        # GT4Py rejects the forward sweep's scan in mixed precision: its return annotation
        # says (wpfloat, wpfloat), it returns (vpfloat, wpfloat).
        mixed=False,
    ),
    # The fused corrector step: the solver on the prognostic cells, Klemp damping down to
    # level 1, the moist levels from level 1; the fluxes for tracer advection (lprep_adv), IAU,
    # the first and the last substep, and a variant with every static value the other way.
    "vertically_implicit_solver_at_corrector_step": Call(
        DYCORE + "vertically_implicit_dycore_solver",
        None,
        None,
        half_levels=(
            "next_w",
            "dynamical_vertical_mass_flux_at_cells_on_half_levels",
            "dynamical_vertical_volumetric_flux_at_cells_on_half_levels",
            "current_w",
            "predictor_vertical_wind_advective_tendency",
            "corrector_vertical_wind_advective_tendency",
            "nonhydro_buoy_at_cells_on_half_levels",
            "rho_at_cells_on_half_levels",
            "contravariant_correction_at_cells_on_half_levels",
            "theta_v_at_cells_on_half_levels",
            "ddqz_z_half",
        ),
        draws={
            **PREDICTOR_DRAWS,
            "advection_explicit_weight_parameter": Fixed(0.25),
            "advection_implicit_weight_parameter": Fixed(0.75),
            "r_nsubsteps": Fixed(0.2),
            "ndyn_substeps_var": Fixed(5.0),
        },
        scalars={
            "lprep_adv": True,
            "is_iau_active": True,
            "rayleigh_type": 2,
            "at_first_substep": True,
            "at_last_substep": True,
            "end_index_of_damping_layer": 1,
            "kstart_moist": 1,
            "start_cell_index_nudging": lambda g, nlev: g.start("Cell", "NUDGING"),
            "end_cell_index_local": lambda g, nlev: g.end("Cell", "LOCAL"),
            "vertical_start_index_model_top": 0,
            "vertical_end_index_model_surface": lambda g, nlev: nlev + 1,
        },
        variants={
            "static_values_off": {
                "lprep_adv": False,
                "is_iau_active": False,
                "rayleigh_type": 1,
                "at_first_substep": False,
                "at_last_substep": False,
            }
        },
        # GT4Py rejects the forward sweep's scan in mixed precision: its return annotation
        # says (wpfloat, wpfloat), it returns (vpfloat, wpfloat).
        mixed=False,
    ),
    # The predictor step's cell diagnostics as `SolveNonhydro` calls them: cells from lateral
    # boundary level 3 to the ends ICON4Py gives each output, the flat levels from nflatlev = 0
    # (so that the derivative's `maximum(1, nflatlev)` decides) and nflat_gradp = 2; the
    # Taylor-hydrostatic pressure gradient (igradp_method 3), and a variant with the
    # conventional one (1).
    "compute_perturbed_quantities_and_interpolation": Call(
        DYCORE + "compute_cell_diagnostics_for_dycore",
        None,
        None,
        half_levels=(
            *CELL_DIAGNOSTICS_HALF_LEVELS,
            "reference_theta_at_cells_on_half_levels",
            "wgtfacq_c",
        ),
        draws=CELL_DIAGNOSTICS_DRAWS,
        scalars={
            "igradp_method": 3,
            "nflatlev": 0,
            "nflat_gradp": 2,
            "start_cell_lateral_boundary_level_3": lambda g, nlev: g.start(
                "Cell", "LATERAL_BOUNDARY_LEVEL_3"
            ),
            "end_cell_local": lambda g, nlev: g.end("Cell", "LOCAL"),
            "end_cell_halo": lambda g, nlev: g.end("Cell", "HALO"),
            "end_cell_halo_level_2": lambda g, nlev: g.end("Cell", "HALO_LEVEL_2"),
            "model_top": 0,
            "surface_level": lambda g, nlev: nlev + 1,
        },
        variants={"static_values_off": {"igradp_method": 1}},
        # GT4Py rejects the module in mixed precision: its field operator passes the wpfloat
        # references of ρ and θ_v to `_compute_perturbation_of_rho_and_theta`, which takes
        # vpfloat ones.
        mixed=False,
    ),
    # The corrector step's cell diagnostics: cells from lateral boundary level 3, the half
    # levels below the top above the surface, ICON's default off-centring of ρ and θ_v
    # (`rhotheta_offctr = -0.1`).
    "compute_interpolation_and_nonhydro_buoy": Call(
        DYCORE + "compute_cell_diagnostics_for_dycore",
        CELLS_LB3,
        below_top,
        half_levels=(
            *CELL_DIAGNOSTICS_HALF_LEVELS,
            "w",
            "contravariant_correction_at_cells_on_half_levels",
        ),
        draws={
            **CELL_DIAGNOSTICS_DRAWS,
            "dtime": DTIME,
            "rhotheta_explicit_weight_parameter": Fixed(0.6),
            "rhotheta_implicit_weight_parameter": Fixed(0.4),
        },
        # GT4Py rejects it in mixed precision (and its module, for the predictor's field
        # operator): its program passes the wpfloat contravariant correction and reference θ_v
        # to its field operator, which takes vpfloat ones.
        mixed=False,
    ),
    # The predictor step's edge quantities from the new normal wind as `SolveNonhydro` calls
    # them: edges from lateral boundary level 5 to the second halo line, the full levels and
    # the surface half level (vertical_end = nlev + 1), the contravariant correction below the
    # flat level nflatlev = 2.
    "compute_horizontal_velocity_quantities_and_fluxes": Call(
        DYCORE + "compute_horizontal_velocity_quantities",
        EDGES_LB5_TO_HALO_2,
        lambda nlev: (0, nlev + 1),
        half_levels=("tangential_wind_on_half_levels", "vn_on_half_levels", "wgtfacq_e"),
        scalars={"nflatlev": 2},
        # GT4Py rejects it in mixed precision: its field operator passes the vpfloat tangential
        # wind to `_interpolate_to_half_levels`, which takes a wpfloat one.
        mixed=False,
    ),
    # The corrector step's averaged wind and fluxes: the same edges, the full levels; the
    # fluxes for tracer advection at the first substep, and a variant at a later substep, and
    # one without them.
    "compute_averaged_vn_and_fluxes": Call(
        DYCORE + "compute_horizontal_velocity_quantities",
        EDGES_LB5_TO_HALO_2,
        full,
        draws={"r_nsubsteps": Fixed(0.2)},
        scalars={"prepare_advection": True, "at_first_substep": True},
        variants={
            "later_substep": {"at_first_substep": False},
            "static_values_off": {"prepare_advection": False, "at_first_substep": False},
        },
        # GT4Py rejects its module in mixed precision (the predictor's program above, through
        # `compute_diagnostics_from_normal_wind.py`, which its module imports).
        mixed=False,
    ),
    # The halo's θ_v and exner after a step: ICON calls it on the halo's cells (from its first
    # line to the end); these single-rank grids have none, so every cell; the full levels;
    # exner and ρ positive, as the logarithm and the divisions need.
    "update_theta_and_exner_in_halo": Call(
        DYCORE + "update_theta_and_exner_in_halo",
        CELLS_ALL,
        full,
        draws={
            "rho_now": POSITIVE,
            "rho_new": POSITIVE,
            "theta_v_now": POSITIVE,
            "exner_now": POSITIVE,
            "exner_new": POSITIVE,
        },
    ),
    # The lateral boundary's exner from ρ·θ_v (kept in exner there): cells from the lateral
    # boundary to its fourth line (every cell of a global grid, which has no lateral boundary
    # and where ICON does not call these), the full levels, ICON's constants.
    "compute_exner_from_rhotheta": Call(
        DYCORE + "compute_exner_from_rhotheta",
        CELLS_LB_TO_LB4,
        full,
        draws={
            "rho": POSITIVE,
            "exner": POSITIVE,
            "rd_o_cvd": Fixed(287.04 / (1004.64 - 287.04)),
            "rd_o_p0ref": Fixed(287.04 / 100000.0),
        },
        horizontal_elsewhere=CELLS_ALL,
    ),
    # The lateral boundary's vertical mass flux for tracer advection: the half levels below
    # the top.
    "update_mass_flux_weighted": Call(
        DYCORE + "update_mass_flux_weighted",
        CELLS_LB_TO_LB4,
        below_top,
        half_levels=("rho_ic", "w_now", "w_new", "w_concorr_c", "mass_flx_ic"),
        draws={"vwind_impl_wgt": WEIGHT, "r_nsubsteps": Fixed(0.2)},
        horizontal_elsewhere=CELLS_ALL,
    ),
    "init_cell_kdim_field_with_zero_wp": Call(
        DYCORE + "init_cell_kdim_field_with_zero_wp",
        CELLS_LB_TO_LB4,
        lambda nlev: (0, nlev + 1),
        half_levels=("field_with_zero_wp",),
        horizontal_elsewhere=CELLS_ALL,
    ),
    # The lateral boundary's ρ, θ_v and w from their tendencies: the full levels and the
    # surface half level of w.
    "stencils_61_62": Call(
        "icon4py.model.atmosphere.dycore.solve_nonhydro_stencils",
        CELLS_LB_TO_LB4,
        lambda nlev: (0, nlev + 1),
        half_levels=("w_now", "grf_tend_w", "w_new"),
        draws={"dtime": DTIME},
        horizontal_elsewhere=CELLS_ALL,
    ),
    # The dycore's K-field helpers (every level): the fourth-order divergence damping's
    # coefficients with the combined damping (divdamp_order 24) and the fourth-order one alone
    # (4), a mean cell area of an R2B4-R2B9 grid; the Rayleigh damping factor.
    "calculate_divdamp_fields": Call(
        "icon4py.model.atmosphere.dycore.dycore_utils",
        None,
        None,
        draws={
            "mean_cell_area": Uniform(1.0e6, 1.0e9),
            "second_order_divdamp_factor": Uniform(0.0, 1.0),
            "max_nudging_coefficient": Uniform(0.1, 0.5),
            "dbl_eps": Fixed(float(np.finfo(np.float64).eps)),
        },
        scalars={"divdamp_order": 24},
        variants={"static_values_off": {"divdamp_order": 4}},
    ),
    "compute_rayleigh_damping_factor": Call(
        "icon4py.model.atmosphere.dycore.dycore_utils",
        None,
        None,
        draws={"rayleigh_w": Uniform(0.0, 1.0), "dtime": DTIME},
    ),
    # The advection of vn as `VelocityAdvection` calls it in both steps: edges from the second
    # nudging line to the local ones, every full level, the damping layer down to level 5, with
    # 10 levels so that the extra diffusion's levels [max(2, 5 - 2), nlev - 4) hold some; the
    # extra diffusion near the CFL limit on (ICON's choice), and a variant without.
    "compute_advection_in_horizontal_momentum": Call(
        DYCORE + "compute_advection_in_horizontal_momentum_equation",
        ("Edge", "NUDGING_LEVEL_2", "LOCAL"),
        full,
        half_levels=("vn_on_half_levels",),
        draws=HORIZONTAL_MOMENTUM_DRAWS,
        scalars={"apply_extra_diffusion_on_vn": True, "end_index_of_damping_layer": 5},
        variants={"static_values_off": {"apply_extra_diffusion_on_vn": False}},
        levels=10,
        # GT4Py rejects the module in mixed precision: `_compute_advective_normal_wind_tendency`
        # adds its vpfloat horizontal advection to the wpfloat vertical advection ("Could not
        # promote 'Field[[Edge, K], float32]' and 'Field[[Edge, K], float64]'").
        mixed=False,
    ),
    # The predictor step's advection of w as `VelocityAdvection` calls it: cells from lateral
    # boundary level 4 to the first halo line, every full level of 10 (the CFL clipping on the
    # levels [max(2, 5 - 2), nlev - 3)), the contravariant correction below the flat level
    # nflatlev = 3; the advective tendency computed, and a variant that skips it.
    "compute_advection_in_predictor_vertical_momentum": Call(
        DYCORE + "compute_advection_in_vertical_momentum_equation",
        ("Cell", "LATERAL_BOUNDARY_LEVEL_4", "HALO"),
        full,
        half_levels=(
            *VERTICAL_MOMENTUM_HALF_LEVELS,
            "wgtfac_c",
        ),
        draws=VERTICAL_MOMENTUM_DRAWS,
        scalars={
            "skip_compute_predictor_vertical_advection": False,
            "nflatlev": 3,
            "end_index_of_damping_layer": 5,
        },
        variants={"static_values_off": {"skip_compute_predictor_vertical_advection": True}},
        levels=10,
        # GT4Py rejects the module in mixed precision: `_compute_horizontal_advection_of_w`
        # passes the wpfloat tangential wind to an operator that takes it vpfloat ("Invalid
        # argument types in call to '_compute_horizontal_advection_term_for_vertical_velocity'").
        mixed=False,
    ),
    # The corrector step's advection of w, on the predictor's cells and levels.
    "compute_advection_in_corrector_vertical_momentum": Call(
        DYCORE + "compute_advection_in_vertical_momentum_equation",
        ("Cell", "LATERAL_BOUNDARY_LEVEL_4", "HALO"),
        full,
        half_levels=(
            *VERTICAL_MOMENTUM_HALF_LEVELS,
            "vn_on_half_levels",
            "tangential_wind_on_half_levels",
        ),
        draws=VERTICAL_MOMENTUM_DRAWS,
        scalars={"end_index_of_damping_layer": 5},
        levels=10,
        # GT4Py rejects the module in mixed precision (see the predictor's call).
        mixed=False,
    ),
    # The predictor's hydrostatic correction as `SolveNonhydro` calls it: the edges from
    # nudging level 2 to the local ones, on the lowest level.
    "compute_hydrostatic_correction_term": Call(
        DYCORE + "compute_hydrostatic_correction_term",
        ("Edge", "NUDGING_LEVEL_2", "LOCAL"),
        lambda nlev: (nlev - 1, nlev),
        half_levels=("theta_v_ic",),
        draws=HYDROSTATIC_CORRECTION_DRAWS,
        # GT4Py rejects it in mixed precision ("Could not promote 'Field[[Edge, K], float32]'
        # and 'Field[[Edge, K], float64]'"): its field operator multiplies the vpfloat
        # `zdiff_gradp` with wpfloat values without a cast.
        mixed=False,
    ),
    # The predictor's edge diagnostics as `SolveNonhydro` calls them: every edge to the second
    # halo line, ICON4Py's zones for each output and branch, every level, the flat levels above
    # nflatlev = 1 and the pressure gradient over multiple levels from nflat_gradp + 1 = 3; IAU
    # on a limited-area grid, and a variant with both static values the other way.
    "compute_rho_theta_pgrad_and_update_vn": Call(
        DYCORE + "compute_edge_diagnostics_for_dycore_and_update_vn",
        None,
        full,
        draws={"dtime": DTIME},
        scalars={
            "is_iau_active": True,
            "limited_area": True,
            "nflatlev": 1,
            "nflat_gradp": 2,
            "start_edge_lateral_boundary": lambda g, nlev: g.start("Edge", "LATERAL_BOUNDARY"),
            "start_edge_lateral_boundary_level_7": lambda g, nlev: g.start(
                "Edge", "LATERAL_BOUNDARY_LEVEL_7"
            ),
            "start_edge_nudging_level_2": lambda g, nlev: g.start("Edge", "NUDGING_LEVEL_2"),
            "end_edge_nudging": lambda g, nlev: g.end("Edge", "NUDGING"),
            "end_edge_local": lambda g, nlev: g.end("Edge", "LOCAL"),
            "end_edge_halo": lambda g, nlev: g.end("Edge", "HALO"),
            "horizontal_start": 0,
            "horizontal_end": lambda g, nlev: g.end("Edge", "HALO_LEVEL_2"),
        },
        variants={"static_values_off": {"is_iau_active": False, "limited_area": False}},
        mostly_zero=("pg_exdist",),
        # GT4Py rejects its module in mixed precision ("Incompatible datatypes in operator
        # '!='"): `apply_hydrostatic_correction_to_horizontal_gradient_of_exner_pressure`
        # compares the vpfloat `pg_exdist` with a wpfloat literal.
        mixed=False,
    ),
    # The corrector's vn update as `SolveNonhydro` calls it: the edges from nudging level 2 to
    # the local ones, every level; ICON's weights of the advective tendencies
    # (`veladv_offctr = 0.25`), a fourth-order factor on both sides of the combined damping's
    # `max(0, ·)`, ICON4Py's largest nudging coefficient (5 · 0.02). Combined damping
    # (divdamp_order 24) with IAU and the limited area's nest boundary; fourth order alone, as
    # on a global grid; and no damping, no IAU.
    "apply_divergence_damping_and_update_vn": Call(
        DYCORE + "compute_edge_diagnostics_for_dycore_and_update_vn",
        ("Edge", "NUDGING_LEVEL_2", "LOCAL"),
        full,
        draws={
            "dtime": DTIME,
            "advection_explicit_weight_parameter": Fixed(0.25),
            "advection_implicit_weight_parameter": Fixed(0.75),
            "interpolated_fourth_order_divdamp_factor": Uniform(0.0, 0.05),
            "second_order_divdamp_factor": Fixed(0.1),
            "mean_cell_area": POSITIVE,
            "max_nudging_coefficient": Fixed(0.1),
            "dbl_eps": Fixed(float(np.finfo(np.float64).eps)),
        },
        scalars={
            "is_iau_active": True,
            "limited_area": True,
            "apply_2nd_order_divergence_damping": True,
            "apply_4th_order_divergence_damping": True,
            "divdamp_order": 24,
        },
        variants={
            "fourth_order": {
                "is_iau_active": False,
                "limited_area": False,
                "apply_2nd_order_divergence_damping": False,
                "divdamp_order": 4,
            },
            "static_values_off": {
                "is_iau_active": False,
                "limited_area": False,
                "apply_2nd_order_divergence_damping": False,
                "apply_4th_order_divergence_damping": False,
                "divdamp_order": 4,
            },
        },
        # GT4Py rejects its module in mixed precision (see the predictor's edge diagnostics).
        mixed=False,
    ),
    "update_dynamical_exner_time_increment": Call(
        DYCORE + "update_dynamical_exner_time_increment",
        CELLS_NUDGING,
        full,
        draws={"ndyn_substeps_var": Fixed(5.0), "dtime": DTIME},
    ),
}


class SimpleGrid:
    """ICON4Py's periodic simple grid (18 cells, 27 edges, 9 vertices) with the interface of
    benches/peer/icon4py_grid.Grid: every zone starts at 0 and ends at the grid's size."""

    label = "simple"
    limited_area = False

    def __init__(self, num_levels: int):
        from icon4py.model.common.grid import simple

        self.icon = simple.simple_grid(num_levels=num_levels)
        self.tables = {
            name: np.asarray(c.ndarray, dtype=np.int32)
            for name, c in self.icon.connectivities.items()
        }

    def size(self, dim: str) -> int:
        return {"Cell": 18, "Edge": 27, "Vertex": 9}[dim]

    def start(self, dim: str, zone: str) -> int:
        return 0

    def end(self, dim: str, zone: str) -> int:
        return self.size(dim)

    @property
    def offset_provider(self):
        return self.icon.connectivities


def load_grid(spec: str, levels: int):
    if spec == "simple":
        return SimpleGrid(levels)
    import icon4py_grid

    return icon4py_grid.load(spec, levels)


def record(
    name: str, grid, levels: int, seed: int, backend_name: str, variant: str = ""
) -> dict:
    import gt4py.next as gtx
    from gt4py.next.type_system import type_specifications as ts

    import peer

    spec = CALLS[name]
    program = getattr(importlib.import_module(spec.module), name)
    params = program.past_stage.past_node.type.definition.pos_or_kw_args
    written, read = peer.past_roles(program)
    rng = np.random.default_rng(peer.seed_of(name, seed))
    domain: dict[str, int] = {}
    if spec.horizontal is not None:
        dim, first, last = spec.horizontal
        domain["horizontal_start"] = grid.start(dim, first)
        domain["horizontal_end"] = grid.end(dim, last)
        if domain["horizontal_start"] >= domain["horizontal_end"] and spec.horizontal_elsewhere:
            dim, first, last = spec.horizontal_elsewhere
            domain["horizontal_start"] = grid.start(dim, first)
            domain["horizontal_end"] = grid.end(dim, last)
    if spec.vertical is not None:
        domain["vertical_start"], domain["vertical_end"] = spec.vertical(levels)
    given = {**spec.scalars, **spec.variants.get(variant, {})}
    for pname, value in given.items():
        domain[pname] = value(grid, levels) if callable(value) else value
    arrays: dict[str, np.ndarray] = {}
    described: list[dict] = []
    fields: dict = {}
    scalars: dict = {}
    floats = {ts.ScalarKind.FLOAT64: np.float64, ts.ScalarKind.FLOAT32: np.float32}
    for pname, ptype in params.items():
        role = "inout" if pname in written and pname in read else "out" if pname in written else "in"
        if isinstance(ptype, ts.FieldType):
            nlev = levels + (1 if pname in spec.half_levels else 0)
            shape = tuple(
                nlev
                if d.value == "K"
                else grid.size(d.value)
                if d.kind == gtx.DimensionKind.HORIZONTAL
                else grid.tables[d.value].shape[1]
                for d in ptype.dims
            )
            if ptype.dtype.kind == ts.ScalarKind.BOOL:
                if role != "in":
                    raise SystemExit(f"{name}: no way to make written bool field `{pname}`")
                value = random_inputs.mask(rng, pname, shape)
                stored, dtype = value, np.bool_
            elif (
                ptype.dtype.kind == ts.ScalarKind.INT32
                and pname in random_inputs.VERTICAL_OFFSETS
            ):
                # ICON's offsets to the level a neighbouring cell reads, inside its column.
                value = random_inputs.vertical_offsets(shape, rng)
                stored, dtype = value, np.int32
            else:
                dtype = floats.get(ptype.dtype.kind)
                if dtype is None:
                    raise SystemExit(f"{name}: no way to make field `{pname}` of {ptype}")
                value = (
                    np.full(shape, np.nan)
                    if role == "out"
                    else random_inputs.draw(rng, spec.draws.get(pname), shape)
                )
                if pname in spec.mostly_zero:
                    random_inputs.zero_two_of_three(value)
                value = value.astype(dtype)
                stored = value.astype(np.float64)
            arrays[pname] = stored
            fields[pname] = gtx.as_field(list(ptype.dims), value.copy())
            described.append(
                {
                    "name": pname,
                    "kind": "field",
                    "dims": [d.value for d in ptype.dims],
                    "dtype": str(stored.dtype),
                    "icon4py_dtype": str(np.dtype(dtype)),
                    "role": role,
                    "shape": list(shape),
                }
            )
            continue
        if ptype.kind in floats:
            value = floats[ptype.kind](random_inputs.draw(rng, spec.draws.get(pname), ()))
            scalars[pname] = value
            arrays[pname] = np.array(value, dtype=np.float64)
        elif ptype.kind == ts.ScalarKind.INT32:
            if pname not in domain:
                raise SystemExit(f"{name}: no value for int32 scalar `{pname}`")
            value = int(domain[pname])
            scalars[pname] = gtx.int32(value)
            arrays[pname] = np.array(value, dtype=np.int32)
        elif ptype.kind == ts.ScalarKind.BOOL:
            if pname not in domain:
                raise SystemExit(f"{name}: no value for bool scalar `{pname}`")
            value = bool(domain[pname])
            scalars[pname] = value
            arrays[pname] = np.array(value, dtype=np.bool_)
        else:
            raise SystemExit(f"{name}: unexpected scalar `{pname}` of {ptype}")
        is_float = ptype.kind in floats
        described.append(
            peer.scalar_entry(
                pname,
                arrays[pname],
                float(value) if is_float else value,
                str(np.dtype(floats[ptype.kind])) if is_float else str(arrays[pname].dtype),
            )
        )
    backend = None if backend_name == "embedded" else getattr(gtx, backend_name)
    program.with_backend(backend)(**fields, **scalars, offset_provider=grid.offset_provider)
    outputs = [p["name"] for p in described if p["role"] in ("out", "inout")]
    for pname in outputs:
        arrays[f"out__{pname}"] = np.asarray(fields[pname].asnumpy()).astype(np.float64)
    return peer.recorded_file(
        name,
        spec,
        grid,
        program,
        peer.RecordedCall(levels, domain, described, outputs, arrays),
        backend_name,
        peer.seed_of(name, seed),
        ["gt4py", "icon4py-common", "icon4py-atmosphere-dycore"],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grids", required=True, help="comma-separated: grid .npz files or `simple`")
    parser.add_argument("--labels", required=True, help="comma-separated folder names, one a grid")
    parser.add_argument("--levels", type=int, default=5)
    parser.add_argument("--precision", choices=("double", "mixed"), default="double")
    parser.add_argument("--backend", choices=("gtfn_cpu", "embedded"), default="gtfn_cpu")
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--out", required=True, help="folder of the grids' folders")
    parser.add_argument("programs", nargs="*", help="program names (default: every one)")
    args = parser.parse_args()

    os.environ["FLOAT_PRECISION"] = args.precision
    from icon4py.model.common import type_alias

    type_alias.set_precision(args.precision)
    unknown = [p for p in args.programs if p not in CALLS]
    if unknown:
        raise SystemExit(f"unknown program(s) {', '.join(unknown)}; known: {', '.join(CALLS)}")
    grids, labels = args.grids.split(","), args.labels.split(",")
    if len(grids) != len(labels):
        raise SystemExit("--grids and --labels must name as many grids")
    suffix = "" if args.precision == "double" else f"__{args.precision}"
    for spec, label in zip(grids, labels):
        grid = load_grid(spec, args.levels)
        folder = pathlib.Path(args.out) / label
        folder.mkdir(parents=True, exist_ok=True)
        for name in args.programs or CALLS:
            if args.precision == "mixed" and not CALLS[name].mixed:
                # GT4Py rejects the program's types in mixed precision (see its `Call`).
                print(f"{label}: {name}: ICON4Py does not run it in mixed precision", flush=True)
                continue
            levels = CALLS[name].levels or args.levels
            for variant in ("", *CALLS[name].variants):
                made = record(name, grid, levels, args.seed, args.backend, variant)
                arrays = made.pop("arrays")
                made["precision"] = args.precision
                # `NAME`, `NAME__VARIANT`, `NAME__mixed`, `NAME__mixed_VARIANT`.
                tail = "" if not variant else f"_{variant}" if suffix else f"__{variant}"
                stem = name + suffix + tail
                np.savez_compressed(folder / f"{stem}.npz", **arrays)
                (folder / f"{stem}.json").write_text(json.dumps(made, indent=1) + "\n")
                print(f"{label}: {stem} ({args.precision}, {args.backend})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

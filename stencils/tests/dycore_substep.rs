//! The dycore granule's substeps against ICON4Py's own `SolveNonhydro.time_step`: every file of
//! `refs/icon4py/substep` (recorded by `tools/icon4py/record_substep`: ICON4Py 0.4.1's solver
//! with its velocity advection on a global R2B0 grid and a limited-area cut of R2B3, 8 levels,
//! seeded random metric, interpolation and geometry fields and a random state, run through the
//! substeps of two model steps) is loaded into the granule's types and run through the same
//! substeps on the embedded and the CPU backend; after each substep every prognostic field of
//! both time levels, every diagnostic field, the fields prepared for tracer advection, the
//! largest vertical CFL number and the Rayleigh damping factor must equal ICON4Py's bit for bit,
//! as must the fourth-order divergence-damping profile. The tables are the ones ICON4Py used
//! (it orders E2C2E, E2C2EO and E2C2V otherwise than gt4rs's generated grids), the zones its
//! zones.

use std::path::PathBuf;

use gt4rs::grid::{DimZones, GridDim, Zone, Zones};
use gt4rs::{Backend, Connectivities, Dims, Field};
use gt4rs_stencils::dycore::{
    CellParams, DiagnosticState, EdgeParams, InterpolationState, MetricState, NonHydrostaticConfig,
    PredictorCorrector, PrepAdvection, PrognosticState, RunOptions, SolveNonhydro, Substep,
    VerticalParams,
};
use gt4rs_stencils::icon::connectivities::{insert_by_name, target_dim};
use gt4rs_stencils::reference_data::{RefArray, ReferenceData};
use gt4rs_tests::refs::icon4py_refs;
use ndarray::{ArrayD, Dimension};
use serde_json::Value;

/// The grids the data is recorded on (folders of `refs/icon4py/substep`).
const GRIDS: [&str; 2] = ["r2b0", "r2b3-regional"];

fn recording(grid: &str) -> ReferenceData {
    let path: PathBuf = icon4py_refs()
        .join("substep")
        .join(grid)
        .join("substeps.npz");
    ReferenceData::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn sidecar(data: &ReferenceData) -> &Value {
    data.sidecar
        .as_ref()
        .unwrap_or_else(|| panic!("{}: no sidecar", data.path.display()))
}

fn float_array(data: &ReferenceData, name: &str) -> ArrayD<f64> {
    match data.params.get(name) {
        Ok(RefArray::Float64(a)) => a.clone(),
        other => panic!(
            "{}: `{name}` is not a float64 array: {other:?}",
            data.path.display()
        ),
    }
}

fn field<D: Dims>(data: &ReferenceData, name: &str) -> Field<D, f64> {
    Field::from_array_zero_origin(float_array(data, name))
        .unwrap_or_else(|e| panic!("`{name}`: {e}"))
}

fn scalar(data: &ReferenceData, name: &str) -> f64 {
    data.params
        .float64_scalar(name)
        .unwrap_or_else(|e| panic!("`{name}`: {e}"))
}

fn json_f64(value: &Value, key: &str) -> f64 {
    value[key]
        .as_f64()
        .unwrap_or_else(|| panic!("sidecar: no number `{key}` in {value}"))
}

fn json_i32(value: &Value, key: &str) -> i32 {
    value[key]
        .as_i64()
        .and_then(|v| i32::try_from(v).ok())
        .unwrap_or_else(|| panic!("sidecar: no int32 `{key}` in {value}"))
}

fn json_bool(value: &Value, key: &str) -> bool {
    value[key]
        .as_bool()
        .unwrap_or_else(|| panic!("sidecar: no bool `{key}` in {value}"))
}

fn json_4(value: &Value, key: &str) -> [f64; 4] {
    let list: Vec<f64> = value[key]
        .as_array()
        .unwrap_or_else(|| panic!("sidecar: no list `{key}`"))
        .iter()
        .map(|v| v.as_f64().expect("a number"))
        .collect();
    list.try_into()
        .unwrap_or_else(|l| panic!("sidecar: `{key}` has {l:?}, not 4 numbers"))
}

/// Every table ICON4Py used that gt4rs has an offset for (ICON4Py also keeps tables of its
/// own, e.g. `C2CE`, that no program here reads).
fn connectivities(data: &ReferenceData) -> Connectivities {
    let sizes = &sidecar(data)["grid_sizes"];
    let mut connectivities = Connectivities::new();
    for (name, table) in &data.tables {
        let Some(dim) = target_dim(name) else {
            continue;
        };
        let key = match dim {
            "Cell" => "num_cells",
            "Edge" => "num_edges",
            _ => "num_vertices",
        };
        let target = sizes[key].as_u64().expect("grid size") as usize;
        if let Err(e) = insert_by_name(&mut connectivities, name, table.table.clone(), target) {
            let unknown = matches!(&e, gt4rs::Error::Connectivity { message, .. } if message == "not an ICON offset");
            assert!(unknown, "table `{name}`: {e}");
        }
    }
    connectivities
}

/// ICON4Py's name of a zone.
fn icon4py_zone_name(zone: Zone) -> &'static str {
    match zone {
        Zone::LateralBoundaryLevel1 => "LATERAL_BOUNDARY",
        other => other.name(),
    }
}

/// The zones ICON4Py computed (the sidecar's `[start, end)` of each), checked zone by zone
/// against what gt4rs's `DimZones` makes of them.
fn zones(data: &ReferenceData) -> Zones {
    let recorded = &sidecar(data)["zones"];
    let sizes = &sidecar(data)["grid_sizes"];
    let dim_zones = |dim: GridDim, key: &str, size_key: &str| {
        let of = &recorded[key];
        let range = |zone: Zone| -> Option<(usize, usize)> {
            let pair = of[icon4py_zone_name(zone)].as_array()?;
            Some((pair[0].as_u64()? as usize, pair[1].as_u64()? as usize))
        };
        let (lateral, nudging) = Zone::levels(dim);
        let zoned = Zone::ALL[..lateral].iter().copied().chain(
            [Zone::Nudging, Zone::NudgingLevel2]
                .into_iter()
                .take(nudging),
        );
        let mut bounds = vec![0];
        for zone in zoned {
            let at = *bounds.last().expect("a bound");
            bounds.push(range(zone).map_or(at, |(_, end)| end.max(at)));
        }
        let size = sizes[size_key].as_u64().expect("grid size") as usize;
        let zones = DimZones {
            bounds,
            size,
            halo: Vec::new(),
        };
        for zone in Zone::ALL {
            let (Some(want), Ok(got)) = (range(zone), zones.range(dim, zone)) else {
                continue;
            };
            assert_eq!(
                got,
                want,
                "{}: {} zone {}: gt4rs's zones give {got:?}, ICON4Py's {want:?}",
                data.path.display(),
                dim.name(),
                zone.name()
            );
        }
        zones
    };
    Zones {
        cell: dim_zones(GridDim::Cell, "Cell", "num_cells"),
        edge: dim_zones(GridDim::Edge, "Edge", "num_edges"),
        vertex: dim_zones(GridDim::Vertex, "Vertex", "num_vertices"),
    }
}

fn metric_state(data: &ReferenceData) -> MetricState {
    let m = |name: &str| format!("metric__{name}");
    let mask = match data.params.get(&m("mask_prog_halo_c")) {
        Ok(RefArray::Bool(a)) => Field::from_array_zero_origin(a.clone()).expect("mask"),
        other => panic!("mask_prog_halo_c: {other:?}"),
    };
    let offsets = match data.params.get(&m("vertoffset_gradp")) {
        Ok(RefArray::Int32(a)) => Field::from_array_zero_origin(a.clone()).expect("offsets"),
        other => panic!("vertoffset_gradp: {other:?}"),
    };
    MetricState {
        mask_prog_halo_c: mask,
        rayleigh_w: field(data, &m("rayleigh_w")),
        wgtfac_c: field(data, &m("wgtfac_c")),
        wgtfacq_c: field(data, &m("wgtfacq_c")),
        wgtfac_e: field(data, &m("wgtfac_e")),
        wgtfacq_e: field(data, &m("wgtfacq_e")),
        time_extrapolation_parameter_for_exner: field(
            data,
            &m("time_extrapolation_parameter_for_exner"),
        ),
        reference_exner_at_cells_on_model_levels: field(
            data,
            &m("reference_exner_at_cells_on_model_levels"),
        ),
        reference_rho_at_cells_on_model_levels: field(
            data,
            &m("reference_rho_at_cells_on_model_levels"),
        ),
        reference_theta_at_cells_on_model_levels: field(
            data,
            &m("reference_theta_at_cells_on_model_levels"),
        ),
        reference_rho_at_edges_on_model_levels: field(
            data,
            &m("reference_rho_at_edges_on_model_levels"),
        ),
        reference_theta_at_edges_on_model_levels: field(
            data,
            &m("reference_theta_at_edges_on_model_levels"),
        ),
        reference_theta_at_cells_on_half_levels: field(
            data,
            &m("reference_theta_at_cells_on_half_levels"),
        ),
        ddz_of_reference_exner_at_cells_on_half_levels: field(
            data,
            &m("ddz_of_reference_exner_at_cells_on_half_levels"),
        ),
        ddqz_z_half: field(data, &m("ddqz_z_half")),
        d2dexdz2_fac1_mc: field(data, &m("d2dexdz2_fac1_mc")),
        d2dexdz2_fac2_mc: field(data, &m("d2dexdz2_fac2_mc")),
        ddxn_z_full: field(data, &m("ddxn_z_full")),
        ddqz_z_full_e: field(data, &m("ddqz_z_full_e")),
        ddxt_z_full: field(data, &m("ddxt_z_full")),
        inv_ddqz_z_full: field(data, &m("inv_ddqz_z_full")),
        vertoffset_gradp: offsets,
        zdiff_gradp: field(data, &m("zdiff_gradp")),
        nflat_gradp: data
            .params
            .int32_scalar(&m("nflat_gradp"))
            .expect("nflat_gradp"),
        pg_exdist: field(data, &m("pg_exdist")),
        exner_w_explicit_weight_parameter: field(data, &m("exner_w_explicit_weight_parameter")),
        exner_w_implicit_weight_parameter: field(data, &m("exner_w_implicit_weight_parameter")),
        horizontal_mask_for_3d_divdamp: field(data, &m("horizontal_mask_for_3d_divdamp")),
        scaling_factor_for_3d_divdamp: field(data, &m("scaling_factor_for_3d_divdamp")),
        coeff1_dwdz: field(data, &m("coeff1_dwdz")),
        coeff2_dwdz: field(data, &m("coeff2_dwdz")),
        coeff_gradekin: field(data, &m("coeff_gradekin")),
    }
}

fn interpolation_state(data: &ReferenceData) -> InterpolationState {
    let i = |name: &str| format!("interpolation__{name}");
    InterpolationState {
        e_bln_c_s: field(data, &i("e_bln_c_s")),
        rbf_coeff_1: field(data, &i("rbf_coeff_1")),
        rbf_coeff_2: field(data, &i("rbf_coeff_2")),
        geofac_div: field(data, &i("geofac_div")),
        geofac_n2s: field(data, &i("geofac_n2s")),
        geofac_grg_x: field(data, &i("geofac_grg_x")),
        geofac_grg_y: field(data, &i("geofac_grg_y")),
        nudgecoeff_e: field(data, &i("nudgecoeff_e")),
        c_lin_e: field(data, &i("c_lin_e")),
        geofac_grdiv: field(data, &i("geofac_grdiv")),
        rbf_vec_coeff_e: field(data, &i("rbf_vec_coeff_e")),
        c_intp: field(data, &i("c_intp")),
        geofac_rot: field(data, &i("geofac_rot")),
        pos_on_tplane_e_1: field(data, &i("pos_on_tplane_e_1")),
        pos_on_tplane_e_2: field(data, &i("pos_on_tplane_e_2")),
        e_flx_avg: field(data, &i("e_flx_avg")),
    }
}

fn edge_params(data: &ReferenceData) -> EdgeParams {
    let e = |name: &str| format!("edge__{name}");
    EdgeParams {
        tangent_orientation: field(data, &e("tangent_orientation")),
        inverse_primal_edge_lengths: field(data, &e("inverse_primal_edge_lengths")),
        inverse_dual_edge_lengths: field(data, &e("inverse_dual_edge_lengths")),
        edge_areas: field(data, &e("edge_areas")),
        coriolis_frequency: field(data, &e("coriolis_frequency")),
        primal_normal_cell_x: field(data, &e("primal_normal_cell_x")),
        primal_normal_cell_y: field(data, &e("primal_normal_cell_y")),
        dual_normal_cell_x: field(data, &e("dual_normal_cell_x")),
        dual_normal_cell_y: field(data, &e("dual_normal_cell_y")),
    }
}

fn vertical_params(data: &ReferenceData) -> VerticalParams {
    let v = &sidecar(data)["vertical"];
    let vct_a = float_array(data, "vct_a");
    VerticalParams {
        nlev: vct_a.len() - 1,
        nflatlev: json_i32(v, "nflatlev"),
        end_index_of_damping_layer: json_i32(v, "end_index_of_damping_layer"),
        kstart_moist: json_i32(v, "kstart_moist"),
        vct_a: vct_a.iter().copied().collect(),
    }
}

fn config(data: &ReferenceData) -> NonHydrostaticConfig {
    let c = &sidecar(data)["config"];
    NonHydrostaticConfig {
        rayleigh_type: json_i32(c, "rayleigh_type"),
        divdamp_order: json_i32(c, "divdamp_order"),
        divdamp_type: json_i32(c, "divdamp_type"),
        igradp_method: json_i32(c, "igradp_method"),
        rhotheta_offctr: json_f64(c, "rhotheta_offctr"),
        veladv_offctr: json_f64(c, "veladv_offctr"),
        max_nudging_coefficient: json_f64(c, "max_nudging_coefficient"),
        fourth_order_divdamp_factor: json_4(c, "fourth_order_divdamp_factor"),
        fourth_order_divdamp_z: json_4(c, "fourth_order_divdamp_z"),
        limited_area: json_bool(sidecar(data), "limited_area"),
    }
}

fn prognostic_state(data: &ReferenceData, prefix: &str) -> PrognosticState {
    PrognosticState {
        vn: field(data, &format!("{prefix}__vn")),
        w: field(data, &format!("{prefix}__w")),
        rho: field(data, &format!("{prefix}__rho")),
        exner: field(data, &format!("{prefix}__exner")),
        theta_v: field(data, &format!("{prefix}__theta_v")),
    }
}

fn diagnostic_state(data: &ReferenceData) -> DiagnosticState {
    let d = |name: &str| format!("diagnostic__{name}");
    fn pair<D: Dims>(data: &ReferenceData, name: &str) -> PredictorCorrector<Field<D, f64>> {
        PredictorCorrector {
            predictor: field(data, &format!("diagnostic__{name}__predictor")),
            corrector: field(data, &format!("diagnostic__{name}__corrector")),
        }
    }
    DiagnosticState {
        max_vertical_cfl: scalar(data, &d("max_vertical_cfl")),
        tangential_wind: field(data, &d("tangential_wind")),
        vn_on_half_levels: field(data, &d("vn_on_half_levels")),
        contravariant_correction_at_cells_on_half_levels: field(
            data,
            &d("contravariant_correction_at_cells_on_half_levels"),
        ),
        theta_v_at_cells_on_half_levels: field(data, &d("theta_v_at_cells_on_half_levels")),
        perturbed_exner_at_cells_on_model_levels: field(
            data,
            &d("perturbed_exner_at_cells_on_model_levels"),
        ),
        rho_at_cells_on_half_levels: field(data, &d("rho_at_cells_on_half_levels")),
        exner_tendency_due_to_slow_physics: field(data, &d("exner_tendency_due_to_slow_physics")),
        grf_tend_rho: field(data, &d("grf_tend_rho")),
        grf_tend_thv: field(data, &d("grf_tend_thv")),
        grf_tend_w: field(data, &d("grf_tend_w")),
        mass_flux_at_edges_on_model_levels: field(data, &d("mass_flux_at_edges_on_model_levels")),
        normal_wind_tendency_due_to_slow_physics_process: field(
            data,
            &d("normal_wind_tendency_due_to_slow_physics_process"),
        ),
        grf_tend_vn: field(data, &d("grf_tend_vn")),
        normal_wind_advective_tendency: pair(data, "normal_wind_advective_tendency"),
        vertical_wind_advective_tendency: pair(data, "vertical_wind_advective_tendency"),
        rho_iau_increment: field(data, &d("rho_iau_increment")),
        normal_wind_iau_increment: field(data, &d("normal_wind_iau_increment")),
        exner_iau_increment: field(data, &d("exner_iau_increment")),
        exner_dynamical_increment: field(data, &d("exner_dynamical_increment")),
    }
}

fn prep_advection(data: &ReferenceData) -> PrepAdvection {
    let p = |name: &str| format!("prep_adv__{name}");
    PrepAdvection {
        vn_traj: field(data, &p("vn_traj")),
        mass_flx_me: field(data, &p("mass_flx_me")),
        dynamical_vertical_mass_flux_at_cells_on_half_levels: field(
            data,
            &p("dynamical_vertical_mass_flux_at_cells_on_half_levels"),
        ),
        dynamical_vertical_volumetric_flux_at_cells_on_half_levels: field(
            data,
            &p("dynamical_vertical_volumetric_flux_at_cells_on_half_levels"),
        ),
    }
}

fn substeps(data: &ReferenceData) -> Vec<Substep> {
    sidecar(data)["substeps"]
        .as_array()
        .expect("sidecar: a `substeps` list")
        .iter()
        .map(|s| Substep {
            dtime: json_f64(s, "dtime"),
            substeps: json_i32(s, "ndyn_substeps_var") as usize,
            at_initial_timestep: json_bool(s, "at_initial_timestep"),
            at_first_substep: json_bool(s, "at_first_substep"),
            at_last_substep: json_bool(s, "at_last_substep"),
            prepare_advection: json_bool(s, "lprep_adv"),
            second_order_divdamp_factor: json_f64(s, "second_order_divdamp_factor"),
        })
        .collect()
}

/// Where a granule field differs from ICON4Py's: how many points, the first one and the
/// largest relative difference.
#[derive(Debug)]
struct Difference {
    name: String,
    points: usize,
    first: Vec<usize>,
    max_rel: f64,
}

/// Compares `got` with ICON4Py's `out__<name>` bit for bit.
fn compare(
    data: &ReferenceData,
    name: &str,
    got: ndarray::ArrayViewD<'_, f64>,
) -> Option<Difference> {
    let want = match data.expected.get(name) {
        Ok(RefArray::Float64(a)) => a,
        other => panic!(
            "{}: no float64 `out__{name}`: {other:?}",
            data.path.display()
        ),
    };
    assert_eq!(got.shape(), want.shape(), "`{name}`: shape");
    let mut difference = Difference {
        name: name.into(),
        points: 0,
        first: Vec::new(),
        max_rel: 0.0,
    };
    for ((index, g), w) in got.indexed_iter().zip(want.iter()) {
        if g.to_bits() == w.to_bits() {
            continue;
        }
        if difference.points == 0 {
            difference.first = index.slice().to_vec();
        }
        difference.points += 1;
        let rel = (g - w).abs() / w.abs().max(f64::MIN_POSITIVE);
        difference.max_rel = difference
            .max_rel
            .max(if rel.is_nan() { f64::INFINITY } else { rel });
    }
    (difference.points > 0).then_some(difference)
}

/// Runs every substep of the recording on `grid` with `backend`; returns every difference
/// from ICON4Py's states, by substep, with its largest relative size.
fn run_substeps(grid: &str, backend: Backend) -> Vec<(String, f64)> {
    let data = recording(grid);
    let mut solver = SolveNonhydro::init(
        &zones(&data),
        connectivities(&data),
        vertical_params(&data),
        config(&data),
        metric_state(&data),
        interpolation_state(&data),
        edge_params(&data),
        CellParams {
            area: field(&data, "cell__area"),
            mean_cell_area: scalar(&data, "cell__mean_cell_area"),
        },
        RunOptions {
            backend,
            trace: false,
        },
    )
    .unwrap_or_else(|e| panic!("{grid}: init: {e}"));
    let mut differences = Vec::new();
    let mut note = |what: String, d: Option<Difference>| {
        if let Some(d) = d {
            differences.push((
                format!(
                "{what}: `{}` differs at {} points (the first at {:?}), by up to {:e} (relative)",
                d.name, d.points, d.first, d.max_rel
            ),
                d.max_rel,
            ));
        }
    };
    note(
        "init".into(),
        compare(
            &data,
            "interpolated_fourth_order_divdamp_factor",
            solver.interpolated_fourth_order_divdamp_factor().as_array(),
        ),
    );
    let mut current = prognostic_state(&data, "current");
    let mut next = prognostic_state(&data, "next");
    let mut diagnostic = diagnostic_state(&data);
    let mut prep_adv = prep_advection(&data);
    for (i, substep) in substeps(&data).iter().enumerate() {
        solver
            .time_step(&mut diagnostic, &current, &mut next, &mut prep_adv, substep)
            .unwrap_or_else(|e| panic!("{grid}: substep {}: {e}", i + 1));
        let prefix = format!("substep{}__", i + 1);
        let mut check = |name: &str, got: ndarray::ArrayViewD<'_, f64>| {
            note(
                format!("{grid} substep {}", i + 1),
                compare(&data, &format!("{prefix}{name}"), got),
            );
        };
        for (which, state) in [("current", &current), ("next", &next)] {
            check(&format!("{which}__vn"), state.vn.as_array());
            check(&format!("{which}__w"), state.w.as_array());
            check(&format!("{which}__rho"), state.rho.as_array());
            check(&format!("{which}__exner"), state.exner.as_array());
            check(&format!("{which}__theta_v"), state.theta_v.as_array());
        }
        let d = &diagnostic;
        for (name, got) in [
            ("tangential_wind", d.tangential_wind.as_array()),
            ("vn_on_half_levels", d.vn_on_half_levels.as_array()),
            (
                "contravariant_correction_at_cells_on_half_levels",
                d.contravariant_correction_at_cells_on_half_levels
                    .as_array(),
            ),
            (
                "theta_v_at_cells_on_half_levels",
                d.theta_v_at_cells_on_half_levels.as_array(),
            ),
            (
                "perturbed_exner_at_cells_on_model_levels",
                d.perturbed_exner_at_cells_on_model_levels.as_array(),
            ),
            (
                "rho_at_cells_on_half_levels",
                d.rho_at_cells_on_half_levels.as_array(),
            ),
            (
                "exner_tendency_due_to_slow_physics",
                d.exner_tendency_due_to_slow_physics.as_array(),
            ),
            ("grf_tend_rho", d.grf_tend_rho.as_array()),
            ("grf_tend_thv", d.grf_tend_thv.as_array()),
            ("grf_tend_w", d.grf_tend_w.as_array()),
            (
                "mass_flux_at_edges_on_model_levels",
                d.mass_flux_at_edges_on_model_levels.as_array(),
            ),
            (
                "normal_wind_tendency_due_to_slow_physics_process",
                d.normal_wind_tendency_due_to_slow_physics_process
                    .as_array(),
            ),
            ("grf_tend_vn", d.grf_tend_vn.as_array()),
            (
                "normal_wind_advective_tendency__predictor",
                d.normal_wind_advective_tendency.predictor.as_array(),
            ),
            (
                "normal_wind_advective_tendency__corrector",
                d.normal_wind_advective_tendency.corrector.as_array(),
            ),
            (
                "vertical_wind_advective_tendency__predictor",
                d.vertical_wind_advective_tendency.predictor.as_array(),
            ),
            (
                "vertical_wind_advective_tendency__corrector",
                d.vertical_wind_advective_tendency.corrector.as_array(),
            ),
            ("rho_iau_increment", d.rho_iau_increment.as_array()),
            (
                "normal_wind_iau_increment",
                d.normal_wind_iau_increment.as_array(),
            ),
            ("exner_iau_increment", d.exner_iau_increment.as_array()),
            (
                "exner_dynamical_increment",
                d.exner_dynamical_increment.as_array(),
            ),
        ] {
            check(&format!("diagnostic__{name}"), got);
        }
        let cfl = ndarray::arr0(d.max_vertical_cfl).into_dyn();
        check("diagnostic__max_vertical_cfl", cfl.view());
        let p = &prep_adv;
        for (name, got) in [
            ("vn_traj", p.vn_traj.as_array()),
            ("mass_flx_me", p.mass_flx_me.as_array()),
            (
                "dynamical_vertical_mass_flux_at_cells_on_half_levels",
                p.dynamical_vertical_mass_flux_at_cells_on_half_levels
                    .as_array(),
            ),
            (
                "dynamical_vertical_volumetric_flux_at_cells_on_half_levels",
                p.dynamical_vertical_volumetric_flux_at_cells_on_half_levels
                    .as_array(),
            ),
        ] {
            check(&format!("prep_adv__{name}"), got);
        }
        check(
            "rayleigh_damping_factor",
            solver.rayleigh_damping_factor().as_array(),
        );
        // ICON4Py's driver: the new state is the next substep's current one.
        std::mem::swap(&mut current, &mut next);
    }
    differences
}

/// Runs `grid`'s substeps on `backend`: every field must equal ICON4Py's within `rtol` (0: bit
/// for bit).
fn check_grid(grid: &str, backend: Backend, rtol: f64) {
    let differences = run_substeps(grid, backend);
    let beyond: Vec<&str> = differences
        .iter()
        .filter(|(_, rel)| *rel > rtol)
        .map(|(what, _)| what.as_str())
        .collect();
    for (what, _) in &differences {
        eprintln!("{grid} on {backend:?}: {what}");
    }
    assert!(
        beyond.is_empty(),
        "{grid} on {backend:?}: {} fields differ from ICON4Py's by more than {rtol:e}:\n{}",
        beyond.len(),
        beyond.join("\n")
    );
}

#[test]
fn substeps_match_icon4py_on_the_embedded_backend() {
    for grid in GRIDS {
        check_grid(grid, Backend::Embedded, 0.0);
    }
}

#[test]
fn substeps_match_icon4py_on_the_cpu_backend() {
    for grid in GRIDS {
        check_grid(grid, Backend::Cpu, 0.0);
    }
}

/// On a CUDA device the kernels round every operation as the CPU does (no contraction into
/// fused multiply-adds, `CudaOptions::fma_contraction`), but the device's `exp`, `log` and `pow`
/// are not glibc's: within a few units in the last place, which five substeps of the solver carry
/// forward. Skipped without a device.
#[test]
fn substeps_match_icon4py_on_a_cuda_device() {
    if !gt4rs::cuda::cuda_available() {
        eprintln!(
            "skipped: no usable CUDA device ({})",
            gt4rs::cuda::unavailable_reason()
                .map(|e| e.to_string())
                .unwrap_or_default()
        );
        return;
    }
    for grid in GRIDS {
        check_grid(grid, Backend::Cuda, 1e-9);
    }
}

/// The recordings reach what they are meant to check: both values of `at_initial_timestep`
/// (velocity advection's predictor with and without the vertical advection of w), every
/// combination of the corrector's divergence-damping switches, a recomputed Rayleigh factor, a
/// vertical CFL number above velocity advection's limit (ICON's 0.65, its clipping and extra
/// diffusion), and a grid with a lateral boundary.
#[test]
fn the_recordings_reach_every_branch_they_check() {
    let mut limited_area = false;
    for grid in GRIDS {
        let data = recording(grid);
        let config = config(&data);
        limited_area |= config.limited_area;
        let steps = substeps(&data);
        let mean_cell_area = scalar(&data, "cell__mean_cell_area");
        let mut switches: Vec<(bool, bool)> = steps
            .iter()
            .map(|s| {
                (
                    s.second_order_divdamp_factor * mean_cell_area > 1.0e-6,
                    s.second_order_divdamp_factor <= 4.0 * config.fourth_order_divdamp_factor[0],
                )
            })
            .collect();
        switches.sort();
        switches.dedup();
        assert_eq!(
            switches,
            [(false, true), (true, false), (true, true)],
            "{grid}: divergence-damping switches"
        );
        for initial in [true, false] {
            assert!(
                steps
                    .iter()
                    .any(|s| s.at_first_substep && s.at_initial_timestep == initial),
                "{grid}: no first substep with at_initial_timestep = {initial}"
            );
        }
        assert!(
            steps.windows(2).any(|w| w[0].dtime != w[1].dtime),
            "{grid}: the substep length never changes"
        );
        let last = steps.len();
        let cfl = match data
            .expected
            .get(&format!("substep{last}__diagnostic__max_vertical_cfl"))
        {
            Ok(RefArray::Float64(a)) => a.first().copied().unwrap_or(0.0),
            other => panic!("{grid}: max_vertical_cfl: {other:?}"),
        };
        assert!(cfl > 0.65, "{grid}: the vertical CFL number stays at {cfl}");
    }
    assert!(limited_area, "no recording on a limited-area grid");
}

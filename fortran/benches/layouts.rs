//! One step of the diffusion granule on the main job (R2B4 × 65 levels over the mountains) in
//! three memory orders, interleaved in one run, with the states they end in compared bit for bit:
//!
//! * `gt4rs`: every field K-contiguous (gt4rs's default, the main job);
//! * `model state`: the prognostic and diagnostic fields in ICON's order (the horizontal index
//!   fastest, as a Fortran model passes them to `diffusion_run`), the granule's own fields in
//!   gt4rs's (what `diffusion_init` of gt4rs-icon builds);
//! * `all ICON`: every field in ICON's order.
//!
//! `cargo bench -p gt4rs-icon --bench layouts [-- ROOT BISECTIONS LEVELS STEPS]`

use std::time::Instant;

use gt4rs::field::Scalar;
use gt4rs::grid::IcosahedralGrid;
use gt4rs::{Backend, Dims, Field, Layout};
use gt4rs_stencils::diffusion::initial::{jet_state_over, GranuleInputs, JetSpec};
use gt4rs_stencils::diffusion::{
    CellParams, DiagnosticState, Diffusion, DiffusionConfig, EdgeParams, GranuleGrid,
    InterpolationState, MetricState, PrognosticState, RunOptions, Terrain, TerrainKind,
    VerticalGrid, ZDiffusionFields,
};

const DTIME: f64 = 300.0;

/// `field` with the horizontal index fastest.
fn icon<D: Dims, T: Scalar>(field: &Field<D, T>) -> Field<D, T> {
    let mut out = Field::filled(&field.domain(), T::default(), Layout::FirstContiguous)
        .expect("the field's own domain");
    out.as_array_mut().assign(&field.as_array());
    out
}

fn icon_state(s: &PrognosticState) -> PrognosticState {
    PrognosticState {
        vn: icon(&s.vn),
        w: icon(&s.w),
        theta_v: icon(&s.theta_v),
        exner: icon(&s.exner),
    }
}

fn icon_diagnostic(d: &DiagnosticState) -> DiagnosticState {
    DiagnosticState {
        hdef_ic: icon(&d.hdef_ic),
        div_ic: icon(&d.div_ic),
        dwdx: icon(&d.dwdx),
        dwdy: icon(&d.dwdy),
    }
}

/// Every input of the granule in ICON's order.
fn icon_inputs(i: &GranuleInputs) -> GranuleInputs {
    let (m, p, e, c) = (&i.metric, &i.interpolation, &i.edge, &i.cell);
    GranuleInputs {
        config: i.config.clone(),
        metric: MetricState {
            wgtfac_c: icon(&m.wgtfac_c),
            theta_ref_mc: icon(&m.theta_ref_mc),
            zdiffusion: m.zdiffusion.as_ref().map(|z| ZDiffusionFields {
                mask_hdiff: icon(&z.mask_hdiff),
                zd_vertoffset: icon(&z.zd_vertoffset),
                zd_diffcoef: icon(&z.zd_diffcoef),
                zd_intcoef: icon(&z.zd_intcoef),
            }),
        },
        interpolation: InterpolationState {
            e_bln_c_s: icon(&p.e_bln_c_s),
            rbf_coeff_1: icon(&p.rbf_coeff_1),
            rbf_coeff_2: icon(&p.rbf_coeff_2),
            geofac_div: icon(&p.geofac_div),
            geofac_n2s: icon(&p.geofac_n2s),
            geofac_grg_x: icon(&p.geofac_grg_x),
            geofac_grg_y: icon(&p.geofac_grg_y),
            nudgecoeff_e: icon(&p.nudgecoeff_e),
            geofac_n2s_c: icon(&p.geofac_n2s_c),
            geofac_n2s_nbh: icon(&p.geofac_n2s_nbh),
        },
        edge: EdgeParams {
            tangent_orientation: icon(&e.tangent_orientation),
            inverse_primal_edge_lengths: icon(&e.inverse_primal_edge_lengths),
            inverse_dual_edge_lengths: icon(&e.inverse_dual_edge_lengths),
            inverse_vertex_vertex_lengths: icon(&e.inverse_vertex_vertex_lengths),
            primal_normal_vert_x: icon(&e.primal_normal_vert_x),
            primal_normal_vert_y: icon(&e.primal_normal_vert_y),
            dual_normal_vert_x: icon(&e.dual_normal_vert_x),
            dual_normal_vert_y: icon(&e.dual_normal_vert_y),
            edge_areas: icon(&e.edge_areas),
        },
        cell: CellParams {
            area: icon(&c.area),
        },
    }
}

/// A granule, its state and its per-step times.
struct Case {
    name: &'static str,
    granule: Diffusion,
    state: PrognosticState,
    diagnostic: DiagnosticState,
    times: Vec<f64>,
}

impl Case {
    fn step(&mut self, initial: bool) {
        let start = Instant::now();
        let result = if initial {
            self.granule
                .initial_run(DTIME, &mut self.state, &mut self.diagnostic)
        } else {
            self.granule
                .run(DTIME, &mut self.state, &mut self.diagnostic)
        };
        result.expect("the step runs");
        if !initial {
            self.times.push(start.elapsed().as_secs_f64());
        }
    }

    fn median_ms(&self) -> f64 {
        let mut t = self.times.clone();
        t.sort_by(f64::total_cmp);
        1e3 * t[t.len() / 2]
    }
}

fn same_bits<D: Dims>(a: &Field<D, f64>, b: &Field<D, f64>) -> bool {
    a.as_array()
        .iter()
        .zip(b.as_array().iter())
        .all(|(x, y)| x.to_bits() == y.to_bits())
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let [root, bisections, levels, steps] = match args.as_slice() {
        [r, b, l, s] => [*r, *b, *l, *s],
        _ => [2, 4, 65, 10],
    };
    let grid = IcosahedralGrid::generate(root as u32, bisections as u32).expect("grid");
    let vertical = VerticalGrid::default_for(levels).expect("vertical grid");
    let terrain = Terrain::of_kind(TerrainKind::Mountains, &grid, &vertical).expect("terrain");
    let config = DiffusionConfig::default();
    let metric = MetricState::over_terrain(&grid, &terrain, &config).expect("metric");
    let inputs = GranuleInputs::of(&grid, metric, config).expect("inputs");
    let state = jet_state_over(&grid, &vertical, &terrain, &JetSpec::default()).expect("state");
    let options = || RunOptions::new(Backend::Cpu).expect("options");
    let gt4rs_grid = GranuleGrid::of(&grid).expect("grid");
    let icon_grid = GranuleGrid {
        layout: Layout::FirstContiguous,
        ..gt4rs_grid.clone()
    };
    let init = |grid: &GranuleGrid, inputs: GranuleInputs| {
        Diffusion::init_on(
            grid,
            &vertical,
            inputs.config,
            inputs.metric,
            inputs.interpolation,
            inputs.edge,
            inputs.cell,
            options(),
        )
        .expect("the granule initialises")
    };
    let diagnostic = DiagnosticState::zeros(grid.num_cells, levels).expect("diagnostics");
    let mut cases = [
        Case {
            name: "gt4rs (K contiguous)",
            granule: init(&gt4rs_grid, inputs.clone()),
            state: state.clone(),
            diagnostic: diagnostic.clone(),
            times: Vec::new(),
        },
        Case {
            name: "model state in ICON order",
            granule: init(&gt4rs_grid, inputs.clone()),
            state: icon_state(&state),
            diagnostic: icon_diagnostic(&diagnostic),
            times: Vec::new(),
        },
        Case {
            name: "all ICON order",
            granule: init(&icon_grid, icon_inputs(&inputs)),
            state: icon_state(&state),
            diagnostic: icon_diagnostic(&diagnostic),
            times: Vec::new(),
        },
    ];
    for step in 0..=steps {
        for case in &mut cases {
            case.step(step == 0);
        }
    }
    println!(
        "diffusion granule step, R{root}B{bisections} ({} cells, {} edges) x {levels} levels, {} rayon threads, {steps} steps each, interleaved",
        grid.num_cells,
        grid.num_edges,
        rayon::current_num_threads()
    );
    let base = cases[0].median_ms();
    for case in &cases {
        println!(
            "{:<28} median {:>9.2} ms   x{:.2}",
            case.name,
            case.median_ms(),
            case.median_ms() / base
        );
    }
    let reference = &cases[0].state;
    for case in &cases[1..] {
        let s = &case.state;
        assert!(
            same_bits(&s.vn, &reference.vn)
                && same_bits(&s.w, &reference.w)
                && same_bits(&s.theta_v, &reference.theta_v)
                && same_bits(&s.exner, &reference.exner),
            "{} ends in another state",
            case.name
        );
    }
    println!("every layout ends in the same state, bit for bit");
}

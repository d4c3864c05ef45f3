//! Hand-written loop references for ICON4Py's stencil programs.
//!
//! Each reference is plain Rust over ndarray, written from the stencil's formula with ICON4Py's
//! operation order. A reference works on a [`Call`]: the program's parameters under their
//! ICON4Py names (outputs included, holding their pre-call values) and the neighbour tables by
//! offset name, exactly as a refs-convention `.npz` stores them. It overwrites the outputs inside
//! the program's domain and leaves every other point untouched. Reductions skip `-1` slots;
//! direct neighbour reads (`f.at(E2C[0])`) at a `-1` slot are an error. Every array access is
//! bounds-checked, so bad input gives a [`ReferenceError`], never a panic.

mod diffusion;
mod dycore;

use std::collections::BTreeMap;
use std::ops::Range;

use ndarray::{ArrayD, ArrayViewD, IxDyn};

pub use diffusion::*;
pub use dycore::*;

use crate::reference_data::{ArraySet, NeighborTable, RefArray, ReferenceData, ReferenceDataError};

/// Why a reference could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    #[error(transparent)]
    Data(#[from] ReferenceDataError),
    #[error("`{name}`: index {index:?} is outside its shape {shape:?}")]
    OutOfBounds {
        name: String,
        index: Vec<isize>,
        shape: Vec<usize>,
    },
    #[error("`{name}` = {value} is not a valid domain bound")]
    BadBound { name: String, value: i64 },
    #[error(
        "neighbour table `{offset}` has a skip value at point {point}, slot {slot}, \
         where the stencil reads that neighbour directly"
    )]
    SkipInDirectRead {
        offset: String,
        point: isize,
        slot: usize,
    },
    #[error("no hand-written reference for program `{0}`")]
    UnknownProgram(String),
}

pub type Result<T> = std::result::Result<T, ReferenceError>;

/// A program call: parameters (with pre-call output values) and neighbour tables.
#[derive(Clone, Debug, Default)]
pub struct Call {
    pub params: ArraySet,
    pub tables: BTreeMap<String, NeighborTable>,
}

impl Call {
    pub fn new() -> Self {
        Self::default()
    }

    /// The pre-call state stored in a reference file.
    pub fn from_reference(data: &ReferenceData) -> Self {
        Self {
            params: data.params.clone(),
            tables: data.tables.clone(),
        }
    }

    pub fn with_field(mut self, name: &str, array: ArrayD<f64>) -> Self {
        self.params.insert(name, RefArray::Float64(array));
        self
    }

    pub fn with_int_field(mut self, name: &str, array: ArrayD<i32>) -> Self {
        self.params.insert(name, RefArray::Int32(array));
        self
    }

    pub fn with_scalar(self, name: &str, value: f64) -> Self {
        self.with_field(name, ArrayD::from_elem(IxDyn(&[]), value))
    }

    pub fn with_int(self, name: &str, value: i32) -> Self {
        self.with_int_field(name, ArrayD::from_elem(IxDyn(&[]), value))
    }

    pub fn with_flag(mut self, name: &str, value: bool) -> Self {
        self.params
            .insert(name, RefArray::Bool(ArrayD::from_elem(IxDyn(&[]), value)));
        self
    }

    /// The usual trailing domain parameters.
    pub fn with_domain(self, horizontal: Range<i32>, vertical: Range<i32>) -> Self {
        self.with_int("horizontal_start", horizontal.start)
            .with_int("horizontal_end", horizontal.end)
            .with_int("vertical_start", vertical.start)
            .with_int("vertical_end", vertical.end)
    }

    pub fn with_table(mut self, table: NeighborTable) -> Self {
        self.tables.insert(table.offset.clone(), table);
        self
    }

    pub(crate) fn field(&self, name: &str, ndim: usize) -> Result<In<'_>> {
        Ok(In {
            name: name.to_owned(),
            a: self.params.float64(name, ndim)?.view(),
        })
    }

    pub(crate) fn int_field(&self, name: &str, ndim: usize) -> Result<IntIn<'_>> {
        Ok(IntIn {
            name: name.to_owned(),
            a: self.params.int32(name, ndim)?.view(),
        })
    }

    pub(crate) fn scalar(&self, name: &str) -> Result<f64> {
        Ok(self.params.float64_scalar(name)?)
    }

    pub(crate) fn int(&self, name: &str) -> Result<i32> {
        Ok(self.params.int32_scalar(name)?)
    }

    pub(crate) fn flag(&self, name: &str) -> Result<bool> {
        Ok(self.params.bool_scalar(name)?)
    }

    pub(crate) fn take_out(&mut self, name: &str, ndim: usize) -> Result<Out> {
        Ok(Out {
            name: name.to_owned(),
            a: self.params.take_float64(name, ndim)?,
        })
    }

    pub(crate) fn put(&mut self, out: Out) {
        self.params.insert(out.name, RefArray::Float64(out.a));
    }

    pub(crate) fn table(&self, offset: &str) -> Result<Table<'_>> {
        let table = self
            .tables
            .get(offset)
            .ok_or_else(|| ReferenceDataError::Missing {
                name: offset.into(),
            })?;
        Ok(Table { table })
    }

    /// The domain from the four trailing bound parameters.
    pub(crate) fn domain(&self) -> Result<Domain> {
        Ok(Domain {
            horizontal: self.bounds("horizontal_start", "horizontal_end")?,
            vertical: self.bounds("vertical_start", "vertical_end")?,
        })
    }

    fn bounds(&self, start: &str, end: &str) -> Result<Range<isize>> {
        let lo = self.int(start)?;
        let hi = self.int(end)?;
        for (name, value) in [(start, lo), (end, hi)] {
            if value < 0 {
                return Err(ReferenceError::BadBound {
                    name: name.into(),
                    value: value.into(),
                });
            }
        }
        // An empty or reversed range writes nothing, as in GT4Py.
        Ok(lo as isize..hi as isize)
    }
}

/// Horizontal and vertical index ranges of one program call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain {
    pub horizontal: Range<isize>,
    pub vertical: Range<isize>,
}

impl Domain {
    /// Every (horizontal, vertical) point, vertical index fastest.
    pub fn points(&self) -> impl Iterator<Item = (isize, isize)> + '_ {
        self.horizontal
            .clone()
            .flat_map(move |h| self.vertical.clone().map(move |k| (h, k)))
    }
}

fn checked_index(name: &str, shape: &[usize], index: &[isize]) -> Result<IxDyn> {
    let out_of_bounds = || ReferenceError::OutOfBounds {
        name: name.into(),
        index: index.to_vec(),
        shape: shape.to_vec(),
    };
    if index.len() != shape.len() {
        return Err(out_of_bounds());
    }
    let mut ix = IxDyn(&vec![0; index.len()]);
    for (d, (&i, &n)) in index.iter().zip(shape).enumerate() {
        match usize::try_from(i) {
            Ok(u) if u < n => ix[d] = u,
            _ => return Err(out_of_bounds()),
        }
    }
    Ok(ix)
}

/// A named float64 input with checked reads.
pub(crate) struct In<'a> {
    name: String,
    a: ArrayViewD<'a, f64>,
}

impl In<'_> {
    pub(crate) fn at(&self, index: &[isize]) -> Result<f64> {
        let ix = checked_index(&self.name, self.a.shape(), index)?;
        Ok(self.a[ix])
    }
}

/// A named int32 input with checked reads.
pub(crate) struct IntIn<'a> {
    name: String,
    a: ArrayViewD<'a, i32>,
}

impl IntIn<'_> {
    pub(crate) fn at(&self, index: &[isize]) -> Result<isize> {
        let ix = checked_index(&self.name, self.a.shape(), index)?;
        Ok(self.a[ix] as isize)
    }
}

/// A named float64 output, owned while the reference writes it.
pub(crate) struct Out {
    name: String,
    a: ArrayD<f64>,
}

impl Out {
    pub(crate) fn at(&self, index: &[isize]) -> Result<f64> {
        let ix = checked_index(&self.name, self.a.shape(), index)?;
        Ok(self.a[ix])
    }

    pub(crate) fn set(&mut self, index: &[isize], value: f64) -> Result<()> {
        let ix = checked_index(&self.name, self.a.shape(), index)?;
        self.a[ix] = value;
        Ok(())
    }

    pub(crate) fn shape(&self) -> &[usize] {
        self.a.shape()
    }
}

/// A neighbour table with checked lookups.
pub(crate) struct Table<'a> {
    table: &'a NeighborTable,
}

impl Table<'_> {
    pub(crate) fn width(&self) -> usize {
        self.table.width()
    }

    /// The neighbour in `slot` of `point`, or `None` for a skip value.
    pub(crate) fn neighbor(&self, point: isize, slot: usize) -> Result<Option<isize>> {
        let t = &self.table.table;
        let ix = checked_index(&self.table.offset, t.shape(), &[point, slot as isize])?;
        let n = t[[ix[0], ix[1]]];
        Ok((n >= 0).then_some(n as isize))
    }

    /// The neighbour in `slot` of `point` for a direct read, where a skip value is an error.
    pub(crate) fn direct(&self, point: isize, slot: usize) -> Result<isize> {
        self.neighbor(point, slot)?
            .ok_or_else(|| ReferenceError::SkipInDirectRead {
                offset: self.table.offset.clone(),
                point,
                slot,
            })
    }

    /// `Σ_j term(j, neighbour_j)` over the non-skipped slots, in slot order.
    pub(crate) fn sum(
        &self,
        point: isize,
        mut term: impl FnMut(usize, isize) -> Result<f64>,
    ) -> Result<f64> {
        let mut acc = 0.0;
        for slot in 0..self.width() {
            if let Some(n) = self.neighbor(point, slot)? {
                acc += term(slot, n)?;
            }
        }
        Ok(acc)
    }

    /// `max_j value(neighbour_j)` over the non-skipped slots; `-inf` when every slot is skipped.
    pub(crate) fn max(
        &self,
        point: isize,
        mut value: impl FnMut(isize) -> Result<f64>,
    ) -> Result<f64> {
        let mut acc = f64::NEG_INFINITY;
        for slot in 0..self.width() {
            if let Some(n) = self.neighbor(point, slot)? {
                acc = maximum(acc, value(n)?);
            }
        }
        Ok(acc)
    }
}

/// NumPy's `maximum`: NaN propagates (unlike `f64::max`).
pub(crate) fn maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a >= b {
        a
    } else {
        b
    }
}

/// NumPy's `minimum`: NaN propagates (unlike `f64::min`).
pub(crate) fn minimum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a <= b {
        a
    } else {
        b
    }
}

/// Names of every program that has a reference here.
pub const PROGRAMS: &[&str] = &[
    "mo_intp_rbf_rbf_vec_interpol_vertex",
    "calculate_nabla2_and_smag_coefficients_for_vn",
    "calculate_diagnostic_quantities_for_turbulence",
    "temporary_fields_for_turbulence_diagnostics",
    "calculate_nabla4",
    "apply_nabla2_and_nabla4_to_vn",
    "apply_nabla2_and_nabla4_global_to_vn",
    "apply_nabla2_to_vn_in_lateral_boundary",
    "apply_diffusion_to_vn",
    "calculate_nabla2_for_w",
    "apply_nabla2_to_w",
    "apply_nabla2_to_w_in_upper_damping_layer",
    "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence",
    "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools",
    "calculate_nabla2_for_z",
    "calculate_nabla2_of_theta",
    "calculate_nabla2_for_theta",
    "truly_horizontal_diffusion_nabla_of_theta_over_steep_points",
    "update_theta_and_exner",
    "apply_diffusion_to_theta_and_exner",
    "setup_fields_for_initial_step",
    "scale_k",
    "compute_tangential_wind",
    "interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges",
    "compute_horizontal_kinetic_energy",
    "compute_diagnostics_from_normal_wind",
    "solve_tridiagonal_matrix_for_w_forward_sweep",
    "solve_tridiagonal_matrix_for_w_back_substitution",
];

/// Runs the reference of `program` on `call`, updating its outputs in place.
pub fn run(program: &str, call: &mut Call) -> Result<()> {
    match program {
        "mo_intp_rbf_rbf_vec_interpol_vertex" => mo_intp_rbf_rbf_vec_interpol_vertex(call),
        "calculate_nabla2_and_smag_coefficients_for_vn" => {
            calculate_nabla2_and_smag_coefficients_for_vn(call)
        }
        "calculate_diagnostic_quantities_for_turbulence" => {
            calculate_diagnostic_quantities_for_turbulence(call)
        }
        "temporary_fields_for_turbulence_diagnostics" => {
            temporary_fields_for_turbulence_diagnostics(call)
        }
        "calculate_nabla4" => calculate_nabla4(call),
        "apply_nabla2_and_nabla4_to_vn" => apply_nabla2_and_nabla4_to_vn(call),
        "apply_nabla2_and_nabla4_global_to_vn" => apply_nabla2_and_nabla4_global_to_vn(call),
        "apply_nabla2_to_vn_in_lateral_boundary" => apply_nabla2_to_vn_in_lateral_boundary(call),
        "apply_diffusion_to_vn" => apply_diffusion_to_vn(call),
        "calculate_nabla2_for_w" => calculate_nabla2_for_w(call),
        "apply_nabla2_to_w" => apply_nabla2_to_w(call),
        "apply_nabla2_to_w_in_upper_damping_layer" => {
            apply_nabla2_to_w_in_upper_damping_layer(call)
        }
        "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence" => {
            apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence(call)
        }
        "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools" => {
            calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools(call)
        }
        "calculate_nabla2_for_z" => calculate_nabla2_for_z(call),
        "calculate_nabla2_of_theta" => calculate_nabla2_of_theta(call),
        "calculate_nabla2_for_theta" => calculate_nabla2_for_theta(call),
        "truly_horizontal_diffusion_nabla_of_theta_over_steep_points" => {
            truly_horizontal_diffusion_nabla_of_theta_over_steep_points(call)
        }
        "update_theta_and_exner" => update_theta_and_exner(call),
        "apply_diffusion_to_theta_and_exner" => apply_diffusion_to_theta_and_exner(call),
        "setup_fields_for_initial_step" => setup_fields_for_initial_step(call),
        "scale_k" => scale_k(call),
        "compute_tangential_wind" => compute_tangential_wind(call),
        "interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges" => {
            interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges(call)
        }
        "compute_horizontal_kinetic_energy" => compute_horizontal_kinetic_energy(call),
        "compute_diagnostics_from_normal_wind" => compute_diagnostics_from_normal_wind(call),
        "solve_tridiagonal_matrix_for_w_forward_sweep" => {
            solve_tridiagonal_matrix_for_w_forward_sweep(call)
        }
        "solve_tridiagonal_matrix_for_w_back_substitution" => {
            solve_tridiagonal_matrix_for_w_back_substitution(call)
        }
        other => Err(ReferenceError::UnknownProgram(other.into())),
    }
}

//! Hand-written references of the Cartesian classics, written from GT4Py's test definitions
//! (`test_laplacian.py`, `stencil_definitions.py` `horizontal_diffusion` and
//! `vertical_advection_dycore`) with the same operation order.

use ndarray::{Array1, Array2, ArrayView2, ArrayView3, ArrayViewMut2, ArrayViewMut3, Axis};

/// `BET_M` and `BET_P` of the COSMO vertical-advection benchmark.
pub const BET_M: f64 = 0.5;
pub const BET_P: f64 = 0.5;

/// Why a Cartesian reference cannot run on the given arrays.
#[derive(Debug, thiserror::Error)]
pub enum ShapeError {
    #[error("`{name}` has shape {found:?}, expected {expected}")]
    Mismatch {
        name: &'static str,
        found: Vec<usize>,
        expected: String,
    },
}

fn expect_shape(name: &'static str, found: &[usize], expected: &[usize]) -> Result<(), ShapeError> {
    if found == expected {
        Ok(())
    } else {
        Err(ShapeError::Mismatch {
            name,
            found: found.to_vec(),
            expected: format!("{expected:?}"),
        })
    }
}

fn expect_at_least(name: &'static str, found: &[usize], min: &[usize]) -> Result<(), ShapeError> {
    if found.len() == min.len() && found.iter().zip(min).all(|(f, m)| f >= m) {
        Ok(())
    } else {
        Err(ShapeError::Mismatch {
            name,
            found: found.to_vec(),
            expected: format!("at least {min:?}"),
        })
    }
}

/// `−4·f + f(I+1) + f(J+1) + f(I−1) + f(J−1)` at one interior point.
fn lap_at(f: &ArrayView2<'_, f64>, i: usize, j: usize) -> f64 {
    -4.0 * f[[i, j]] + f[[i + 1, j]] + f[[i, j + 1]] + f[[i - 1, j]] + f[[i, j - 1]]
}

/// The 5-point Laplacian, written to `out[1:-1, 1:-1]`; the frame keeps its values.
pub fn lap(f: ArrayView2<'_, f64>, mut out: ArrayViewMut2<'_, f64>) -> Result<(), ShapeError> {
    expect_at_least("f", f.shape(), &[3, 3])?;
    expect_shape("out", out.shape(), f.shape())?;
    let (ni, nj) = f.dim();
    for i in 1..ni - 1 {
        for j in 1..nj - 1 {
            out[[i, j]] = lap_at(&f, i, j);
        }
    }
    Ok(())
}

/// `lap(lap(f))`, written to `out[2:-2, 2:-2]`; the frame keeps its values.
pub fn laplap(f: ArrayView2<'_, f64>, mut out: ArrayViewMut2<'_, f64>) -> Result<(), ShapeError> {
    expect_at_least("f", f.shape(), &[5, 5])?;
    expect_shape("out", out.shape(), f.shape())?;
    let mut inner = Array2::<f64>::zeros(f.dim());
    lap(f, inner.view_mut())?;
    let (ni, nj) = f.dim();
    let inner = inner.view();
    for i in 2..ni - 2 {
        for j in 2..nj - 2 {
            out[[i, j]] = lap_at(&inner, i, j);
        }
    }
    Ok(())
}

/// Horizontal diffusion with flux limiter on `[I, J, K]`. The inputs carry a halo of 2 in I and
/// J; `out[2:-2, 2:-2, :]` is written and the halo keeps its values.
pub fn hdiff(
    in_field: ArrayView3<'_, f64>,
    coeff: ArrayView3<'_, f64>,
    mut out: ArrayViewMut3<'_, f64>,
) -> Result<(), ShapeError> {
    expect_at_least("in_field", in_field.shape(), &[5, 5, 1])?;
    expect_shape("coeff", coeff.shape(), in_field.shape())?;
    expect_shape("out", out.shape(), in_field.shape())?;
    let (ni, nj, nk) = in_field.dim();
    for k in 0..nk {
        let f = in_field.index_axis(Axis(2), k);
        let lap = |i: usize, j: usize| {
            4.0 * f[[i, j]] - (f[[i + 1, j]] + f[[i - 1, j]] + f[[i, j + 1]] + f[[i, j - 1]])
        };
        // Fluxes are needed at I (resp. J) indices 1..n-2 for the points 2..n-2.
        let flx = |i: usize, j: usize| {
            let res = lap(i + 1, j) - lap(i, j);
            if res * (f[[i + 1, j]] - f[[i, j]]) > 0.0 {
                0.0
            } else {
                res
            }
        };
        let fly = |i: usize, j: usize| {
            let res = lap(i, j + 1) - lap(i, j);
            if res * (f[[i, j + 1]] - f[[i, j]]) > 0.0 {
                0.0
            } else {
                res
            }
        };
        for i in 2..ni - 2 {
            for j in 2..nj - 2 {
                out[[i, j, k]] = f[[i, j]]
                    - coeff[[i, j, k]] * (flx(i, j) - flx(i - 1, j) + fly(i, j) - fly(i, j - 1));
            }
        }
    }
    Ok(())
}

/// COSMO vertical advection on `[I, J, K]`: builds a tridiagonal system per column from `wcon`
/// averaged at i and i+1 (so `wcon` has one more point in I), solves it with the Thomas
/// algorithm and writes `utens_stage = dtr_stage·(x − u_pos)` in every point.
pub fn vadv(
    mut utens_stage: ArrayViewMut3<'_, f64>,
    u_stage: ArrayView3<'_, f64>,
    wcon: ArrayView3<'_, f64>,
    u_pos: ArrayView3<'_, f64>,
    utens: ArrayView3<'_, f64>,
    dtr_stage: f64,
) -> Result<(), ShapeError> {
    let shape = utens_stage.shape().to_vec();
    expect_at_least("utens_stage", &shape, &[1, 1, 2])?;
    expect_shape("u_stage", u_stage.shape(), &shape)?;
    expect_shape("u_pos", u_pos.shape(), &shape)?;
    expect_shape("utens", utens.shape(), &shape)?;
    expect_shape("wcon", wcon.shape(), &[shape[0] + 1, shape[1], shape[2]])?;
    let (ni, nj, nk) = (shape[0], shape[1], shape[2]);
    let mut ccol = Array1::<f64>::zeros(nk);
    let mut dcol = Array1::<f64>::zeros(nk);
    for i in 0..ni {
        for j in 0..nj {
            let us = |k: usize| u_stage[[i, j, k]];
            let rhs = |k: usize, correction: f64| {
                dtr_stage * u_pos[[i, j, k]]
                    + utens[[i, j, k]]
                    + utens_stage[[i, j, k]]
                    + correction
            };
            // Forward sweep.
            {
                let k = 0;
                let gcv = 0.25 * (wcon[[i + 1, j, k + 1]] + wcon[[i, j, k + 1]]);
                let cs = gcv * BET_M;
                let c = gcv * BET_P;
                let bcol = dtr_stage - c;
                let correction = -cs * (us(k + 1) - us(k));
                let d = rhs(k, correction);
                let divided = 1.0 / bcol;
                ccol[k] = c * divided;
                dcol[k] = d * divided;
            }
            for k in 1..nk - 1 {
                let gav = -0.25 * (wcon[[i + 1, j, k]] + wcon[[i, j, k]]);
                let gcv = 0.25 * (wcon[[i + 1, j, k + 1]] + wcon[[i, j, k + 1]]);
                let as_ = gav * BET_M;
                let cs = gcv * BET_M;
                let acol = gav * BET_P;
                let c = gcv * BET_P;
                let bcol = dtr_stage - acol - c;
                let correction = -as_ * (us(k - 1) - us(k)) - cs * (us(k + 1) - us(k));
                let d = rhs(k, correction);
                let divided = 1.0 / (bcol - ccol[k - 1] * acol);
                ccol[k] = c * divided;
                dcol[k] = (d - dcol[k - 1] * acol) * divided;
            }
            {
                let k = nk - 1;
                let gav = -0.25 * (wcon[[i + 1, j, k]] + wcon[[i, j, k]]);
                let as_ = gav * BET_M;
                let acol = gav * BET_P;
                let bcol = dtr_stage - acol;
                let correction = -as_ * (us(k - 1) - us(k));
                let d = rhs(k, correction);
                let divided = 1.0 / (bcol - ccol[k - 1] * acol);
                dcol[k] = (d - dcol[k - 1] * acol) * divided;
            }
            // Backward sweep.
            let mut datacol = dcol[nk - 1];
            utens_stage[[i, j, nk - 1]] = dtr_stage * (datacol - u_pos[[i, j, nk - 1]]);
            for k in (0..nk - 1).rev() {
                datacol = dcol[k] - ccol[k] * datacol;
                utens_stage[[i, j, k]] = dtr_stage * (datacol - u_pos[[i, j, k]]);
            }
        }
    }
    Ok(())
}

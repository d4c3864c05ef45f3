//! Halo exchanges: hooks at the points where ICON exchanges, no-ops on one rank.

use gt4rs::grid::GridDim;
use gt4rs::Error;
use ndarray::ArrayViewMutD;

/// Exchanges the halo points of fields between ranks. The granule calls it where ICON calls
/// `sync_patch_array`, with every field of one horizontal dimension at once.
pub trait HaloExchange {
    /// Exchanges the halos of `fields` (all on `dim`) and waits for the exchange to finish.
    fn exchange_and_wait(
        &self,
        dim: GridDim,
        fields: &mut [ArrayViewMutD<'_, f64>],
    ) -> Result<(), Error>;
}

/// A single rank owns every point: there is nothing to exchange.
#[derive(Clone, Copy, Debug, Default)]
pub struct SingleRank;

impl HaloExchange for SingleRank {
    fn exchange_and_wait(
        &self,
        _dim: GridDim,
        _fields: &mut [ArrayViewMutD<'_, f64>],
    ) -> Result<(), Error> {
        Ok(())
    }
}

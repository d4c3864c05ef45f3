//! Halo exchanges: hooks at the points where ICON exchanges, no-ops on one rank. The
//! decomposed implementations are in [`super::distributed`].

use gt4rs::grid::GridDim;
use gt4rs::Error;
use ndarray::ArrayViewMutD;

/// Exchanges the halo points of fields between ranks. The granule calls it where ICON calls
/// `sync_patch_array`, with every field of one horizontal dimension at once.
pub trait HaloExchange {
    /// Exchanges the halos of `fields` (all on `dim`, the horizontal axis first) and waits for
    /// the exchange to finish.
    fn exchange_and_wait(
        &mut self,
        dim: GridDim,
        fields: &mut [ArrayViewMutD<'_, f64>],
    ) -> Result<(), Error>;

    /// What this rank has exchanged so far.
    fn stats(&self) -> ExchangeStats {
        ExchangeStats::default()
    }
}

/// Counts of one rank's exchanges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExchangeStats {
    /// Calls of [`HaloExchange::exchange_and_wait`].
    pub exchanges: u64,
    /// Bytes this rank sent (field values only).
    pub bytes_sent: u64,
    pub messages_sent: u64,
}

/// A single rank owns every point: there is nothing to exchange.
#[derive(Clone, Copy, Debug, Default)]
pub struct SingleRank;

impl HaloExchange for SingleRank {
    fn exchange_and_wait(
        &mut self,
        _dim: GridDim,
        _fields: &mut [ArrayViewMutD<'_, f64>],
    ) -> Result<(), Error> {
        Ok(())
    }
}

//! Halo exchange over any transport: the patterns of every (dimension, halo depth) built
//! once, fields packed into buffers kept between exchanges, one message per peer carrying
//! every field of the exchange.

use std::time::Duration;

use gt4rs::grid::decomposition::{ExchangePattern, LocalGrid, HALO_LEVELS};
use gt4rs::grid::GridDim;
use gt4rs::Error;
use ndarray::{ArrayViewMutD, Axis};

use crate::diffusion::halo::{ExchangeStats, HaloExchange};

/// Moves one buffer to each of a set of peers and one from each, all at once.
pub trait Transport {
    /// Sends `send[i]` to rank `peers[i]` and receives `recv[i]` (already of the expected
    /// length) from it; all messages are in flight together, and the call returns when every
    /// one has completed, or an error when a peer has not answered within the time-out.
    fn exchange(
        &mut self,
        peers: &[usize],
        send: &[Vec<f64>],
        recv: &mut [Vec<f64>],
    ) -> Result<(), Error>;
}

/// How long a rank waits for a peer before giving up (`GT4RS_MPI_TIMEOUT` seconds, default
/// 60): a peer that died or hangs is reported instead of waited for forever.
pub fn timeout_from_env() -> Result<Duration, Error> {
    match std::env::var("GT4RS_MPI_TIMEOUT") {
        Err(_) => Ok(Duration::from_secs(60)),
        Ok(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| {
                Error::Config(format!(
                    "GT4RS_MPI_TIMEOUT must be a positive number of seconds, not `{text}`"
                ))
            }),
    }
}

/// The buffers of one pattern: one send and one receive buffer per peer.
struct Buffers {
    pattern: ExchangePattern,
    peers: Vec<usize>,
    send: Vec<Vec<f64>>,
    recv: Vec<Vec<f64>>,
}

/// A rank's halo exchange: [`HaloExchange`] over a [`Transport`].
pub struct PatternExchange<T: Transport> {
    transport: T,
    sizes: [usize; 3],
    /// Index `dim * HALO_LEVELS + depth - 1`.
    buffers: Vec<Buffers>,
    stats: ExchangeStats,
}

fn dim_index(dim: GridDim) -> usize {
    match dim {
        GridDim::Cell => 0,
        GridDim::Edge => 1,
        GridDim::Vertex => 2,
    }
}

impl<T: Transport> PatternExchange<T> {
    /// From the rank's grid and its patterns, one per (dimension, depth 1..=HALO_LEVELS).
    pub fn new(
        local: &LocalGrid,
        patterns: Vec<ExchangePattern>,
        transport: T,
    ) -> Result<Self, Error> {
        let mut slots: Vec<Option<Buffers>> = (0..3 * HALO_LEVELS).map(|_| None).collect();
        for pattern in patterns {
            if !(1..=HALO_LEVELS).contains(&pattern.depth) {
                return Err(Error::Config(format!(
                    "an exchange pattern of depth {}",
                    pattern.depth
                )));
            }
            let slot = dim_index(pattern.dim) * HALO_LEVELS + pattern.depth - 1;
            let peers = pattern.peers.iter().map(|p| p.peer).collect();
            let n = pattern.peers.len();
            slots[slot] = Some(Buffers {
                pattern,
                peers,
                send: vec![Vec::new(); n],
                recv: vec![Vec::new(); n],
            });
        }
        let buffers = slots
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                b.ok_or_else(|| {
                    Error::Config(format!(
                        "no exchange pattern for {} at depth {}",
                        GridDim::ALL[i / HALO_LEVELS].name(),
                        i % HALO_LEVELS + 1
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(PatternExchange {
            transport,
            sizes: [
                local.grid.num_cells,
                local.grid.num_edges,
                local.grid.num_vertices,
            ],
            buffers,
            stats: ExchangeStats::default(),
        })
    }

    /// The pattern used for `dim` up to halo level `depth`.
    pub fn pattern(&self, dim: GridDim, depth: usize) -> Option<&ExchangePattern> {
        (1..=HALO_LEVELS)
            .contains(&depth)
            .then(|| &self.buffers[dim_index(dim) * HALO_LEVELS + depth - 1].pattern)
    }

    /// Exchanges halo levels `1..=depth` of `fields`.
    pub fn exchange_to_depth(
        &mut self,
        dim: GridDim,
        depth: usize,
        fields: &mut [ArrayViewMutD<'_, f64>],
    ) -> Result<(), Error> {
        if !(1..=HALO_LEVELS).contains(&depth) {
            return Err(Error::Config(format!(
                "halo depth {depth}: the decomposition keeps levels 1..={HALO_LEVELS}"
            )));
        }
        let size = self.sizes[dim_index(dim)];
        for f in fields.iter() {
            if f.ndim() == 0 || f.shape()[0] != size {
                return Err(Error::Shape(format!(
                    "halo exchange: a {} field of shape {:?}, the rank has {size} {} points",
                    dim.name(),
                    f.shape(),
                    dim.name()
                )));
            }
        }
        let b = &mut self.buffers[dim_index(dim) * HALO_LEVELS + depth - 1];
        for (peer, (send, recv)) in b
            .pattern
            .peers
            .iter()
            .zip(b.send.iter_mut().zip(b.recv.iter_mut()))
        {
            // Capacity stays from the first exchange: no allocation per step.
            send.clear();
            let mut incoming = 0;
            for f in fields.iter() {
                let row = f.len() / size.max(1);
                incoming += peer.recv.len() * row;
                for &l in &peer.send {
                    send.extend(f.index_axis(Axis(0), l).iter().copied());
                }
            }
            recv.resize(incoming, 0.0);
        }
        self.transport.exchange(&b.peers, &b.send, &mut b.recv)?;
        for (peer, recv) in b.pattern.peers.iter().zip(&b.recv) {
            let mut at = 0;
            for f in fields.iter_mut() {
                let row = f.len() / size.max(1);
                for &l in &peer.recv {
                    let values = &recv[at..at + row];
                    for (x, &v) in f.index_axis_mut(Axis(0), l).iter_mut().zip(values) {
                        *x = v;
                    }
                    at += row;
                }
            }
        }
        self.stats.exchanges += 1;
        self.stats.messages_sent += b.send.len() as u64;
        self.stats.bytes_sent += b
            .send
            .iter()
            .map(|s| (s.len() * std::mem::size_of::<f64>()) as u64)
            .sum::<u64>();
        Ok(())
    }
}

impl<T: Transport> HaloExchange for PatternExchange<T> {
    /// Every halo level: the granule reads both rows.
    fn exchange_and_wait(
        &mut self,
        dim: GridDim,
        fields: &mut [ArrayViewMutD<'_, f64>],
    ) -> Result<(), Error> {
        self.exchange_to_depth(dim, HALO_LEVELS, fields)
    }

    fn stats(&self) -> ExchangeStats {
        self.stats
    }
}

//! MPI (rsmpi over OpenMPI): the transport of halo exchanges, the set-up of the exchange
//! patterns, the gathering on rank 0, and agreement between ranks so that a failure on one
//! rank is an error on every rank instead of a hang.
//!
//! Every wait has a time-out (`GT4RS_MPI_TIMEOUT`, seconds): a rank that died or hangs
//! cannot be cancelled cleanly in MPI, so the waiting rank reports which peer it waited for
//! and aborts the job (`MPI_Abort`), which ends every rank.

use std::time::{Duration, Instant};

use gt4rs::grid::decomposition::{pattern, ExchangePattern, LocalGrid, HALO_LEVELS};
use gt4rs::grid::GridDim;
use gt4rs::Error;
use mpi::collective::SystemOperation;
use mpi::environment::Universe;
use mpi::request::{LocalScope, Request};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;

use super::exchange::{timeout_from_env, Transport};

/// The exit status of a job aborted because a peer did not answer in time.
pub const TIMEOUT_EXIT: i32 = 124;

const HALO_TAG: i32 = 11;
const SETUP_TAG: i32 = 12;
const GATHER_TAG: i32 = 13;

/// MPI, initialised once for the process.
pub struct MpiWorld {
    /// Finalises MPI when dropped.
    _universe: Universe,
    world: SimpleCommunicator,
    timeout: Duration,
}

/// Waits for every request, polling, until `deadline`; past it, reports on stderr and aborts
/// the job.
fn wait_all<'a>(
    world: &SimpleCommunicator,
    mut pending: Vec<(usize, Request<'a, [f64], &LocalScope<'a>>)>,
    deadline: Instant,
    timeout: Duration,
    what: &str,
) {
    while !pending.is_empty() {
        let mut still = Vec::with_capacity(pending.len());
        for (peer, request) in pending {
            if let Err(request) = request.test() {
                still.push((peer, request));
            }
        }
        pending = still;
        if pending.is_empty() {
            break;
        }
        if Instant::now() > deadline {
            let peers: Vec<usize> = pending.iter().map(|(p, _)| *p).collect();
            eprintln!(
                "gt4rs: rank {}: {what}: no answer from rank(s) {peers:?} within {:.0} s \
                 (GT4RS_MPI_TIMEOUT); a rank failed or hangs, aborting the job",
                world.rank(),
                timeout.as_secs_f64()
            );
            world.abort(TIMEOUT_EXIT);
        }
        std::thread::yield_now();
    }
}

impl MpiWorld {
    /// Initialises MPI (once per process).
    pub fn init() -> Result<MpiWorld, Error> {
        let timeout = timeout_from_env()?;
        let universe = mpi::initialize()
            .ok_or_else(|| Error::Config("MPI is already initialised in this process".into()))?;
        let world = universe.world();
        Ok(MpiWorld {
            _universe: universe,
            world,
            timeout,
        })
    }

    pub fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    pub fn size(&self) -> usize {
        self.world.size() as usize
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Every rank calls this after a stage that may fail on some ranks only: if any rank
    /// failed, every rank returns an error naming the first rank that failed (that rank
    /// returns its own error). A rank that never arrives aborts the job after the time-out.
    pub fn agree<T>(&self, stage: &str, result: Result<T, Error>) -> Result<T, Error> {
        let size = self.size() as i32;
        let mine = if result.is_err() {
            self.world.rank()
        } else {
            size
        };
        let mut first_failed = size;
        let deadline = Instant::now() + self.timeout;
        mpi::request::scope(|scope| {
            let mut request = Some(self.world.immediate_all_reduce_into(
                scope,
                &mine,
                &mut first_failed,
                SystemOperation::min(),
            ));
            while let Some(r) = request.take() {
                match r.test() {
                    Ok(_) => break,
                    Err(r) => {
                        if Instant::now() > deadline {
                            eprintln!(
                                "gt4rs: rank {}: {stage}: not every rank arrived within {:.0} s \
                                 (GT4RS_MPI_TIMEOUT); a rank failed to start or hangs, aborting the job",
                                self.world.rank(),
                                self.timeout.as_secs_f64()
                            );
                            self.world.abort(TIMEOUT_EXIT);
                        }
                        request = Some(r);
                        std::thread::yield_now();
                    }
                }
            }
        });
        match result {
            Err(e) => Err(Error::Config(format!("rank {}: {stage}: {e}", self.rank()))),
            Ok(_) if first_failed < size => Err(Error::Config(format!(
                "rank {}: {stage}: rank {first_failed} failed (its own message says why)",
                self.rank()
            ))),
            Ok(value) => Ok(value),
        }
    }

    /// The exchange patterns of this rank for every (dimension, depth): each rank tells each
    /// owner which of its points it holds in its halo.
    pub fn patterns(&self, local: &LocalGrid) -> Result<Vec<ExchangePattern>, Error> {
        let mut patterns = Vec::new();
        for dim in GridDim::ALL {
            for depth in 1..=HALO_LEVELS {
                let asks = pattern::requests(local, dim, depth)?;
                let asked = self.all_to_all_lists(&asks)?;
                patterns.push(pattern::pattern(local, dim, depth, &asks, &asked)?);
            }
        }
        Ok(patterns)
    }

    /// Sends `lists[q]` to rank `q` and returns what each rank sent to this one.
    fn all_to_all_lists(&self, lists: &[Vec<usize>]) -> Result<Vec<Vec<usize>>, Error> {
        let n = self.size();
        if lists.len() != n {
            return Err(Error::Config(format!(
                "{} lists for {n} ranks",
                lists.len()
            )));
        }
        let counts: Vec<i32> = lists.iter().map(|l| l.len() as i32).collect();
        let mut incoming_counts = vec![0i32; n];
        self.world
            .all_to_all_into(&counts[..], &mut incoming_counts[..]);
        // Indices travel as f64 (exact below 2^53) to share the exchange's request type.
        let outgoing: Vec<Vec<f64>> = lists
            .iter()
            .map(|l| l.iter().map(|&g| g as f64).collect())
            .collect();
        let mut incoming: Vec<Vec<f64>> = incoming_counts
            .iter()
            .map(|&c| vec![0.0; c.max(0) as usize])
            .collect();
        let peers: Vec<usize> = (0..n).filter(|&q| q != self.rank()).collect();
        let send: Vec<Vec<f64>> = peers.iter().map(|&q| outgoing[q].clone()).collect();
        let mut recv: Vec<Vec<f64>> = peers
            .iter()
            .map(|&q| std::mem::take(&mut incoming[q]))
            .collect();
        self.exchange_tagged(&peers, &send, &mut recv, SETUP_TAG, "exchange patterns");
        for (q, r) in peers.iter().zip(recv) {
            incoming[*q] = r;
        }
        Ok(incoming
            .into_iter()
            .map(|l| l.into_iter().map(|g| g as usize).collect())
            .collect())
    }

    fn exchange_tagged(
        &self,
        peers: &[usize],
        send: &[Vec<f64>],
        recv: &mut [Vec<f64>],
        tag: i32,
        what: &str,
    ) {
        let deadline = Instant::now() + self.timeout;
        mpi::request::scope(|scope| {
            let mut pending = Vec::with_capacity(2 * peers.len());
            for (&peer, buffer) in peers.iter().zip(recv.iter_mut()) {
                let process = self.world.process_at_rank(peer as i32);
                pending.push((
                    peer,
                    process.immediate_receive_into_with_tag(scope, &mut buffer[..], tag),
                ));
            }
            for (&peer, buffer) in peers.iter().zip(send) {
                let process = self.world.process_at_rank(peer as i32);
                pending.push((
                    peer,
                    process.immediate_send_with_tag(scope, &buffer[..], tag),
                ));
            }
            wait_all(&self.world, pending, deadline, self.timeout, what);
        });
    }

    /// The transport of this rank's halo exchanges.
    pub fn transport(&self) -> MpiTransport {
        MpiTransport {
            world: SimpleCommunicator::world(),
            timeout: self.timeout,
        }
    }

    /// Rank 0 gets every rank's `rows` (in rank order); the others get `None`.
    pub fn gather(&self, rows: &[f64]) -> Result<Option<Vec<Vec<f64>>>, Error> {
        let n = self.size();
        let count = [rows.len() as i32];
        let mut counts = vec![0i32; n];
        if self.rank() == 0 {
            self.world
                .process_at_rank(0)
                .gather_into_root(&count[..], &mut counts[..]);
            let mut parts: Vec<Vec<f64>> = counts
                .iter()
                .map(|&c| vec![0.0; c.max(0) as usize])
                .collect();
            parts[0].copy_from_slice(rows);
            let peers: Vec<usize> = (1..n).collect();
            let mut recv: Vec<Vec<f64>> = parts.drain(1..).collect();
            self.exchange_tagged(&peers, &[], &mut recv, GATHER_TAG, "gathering on rank 0");
            parts.extend(recv);
            Ok(Some(parts))
        } else {
            self.world.process_at_rank(0).gather_into(&count[..]);
            self.exchange_tagged(
                &[0],
                &[rows.to_vec()],
                &mut [],
                GATHER_TAG,
                "gathering on rank 0",
            );
            Ok(None)
        }
    }

    /// The sum of `value` over all ranks, on every rank.
    pub fn sum(&self, value: f64) -> f64 {
        let mut total = 0.0;
        self.world
            .all_reduce_into(&value, &mut total, SystemOperation::sum());
        total
    }
}

/// Halo messages over MPI: non-blocking receives and sends to every peer, then a wait on
/// all of them (with the time-out).
pub struct MpiTransport {
    world: SimpleCommunicator,
    timeout: Duration,
}

impl Transport for MpiTransport {
    fn exchange(
        &mut self,
        peers: &[usize],
        send: &[Vec<f64>],
        recv: &mut [Vec<f64>],
    ) -> Result<(), Error> {
        let deadline = Instant::now() + self.timeout;
        let world = &self.world;
        mpi::request::scope(|scope| {
            let mut pending = Vec::with_capacity(2 * peers.len());
            for (&peer, buffer) in peers.iter().zip(recv.iter_mut()) {
                let process = world.process_at_rank(peer as i32);
                pending.push((
                    peer,
                    process.immediate_receive_into_with_tag(scope, &mut buffer[..], HALO_TAG),
                ));
            }
            for (&peer, buffer) in peers.iter().zip(send) {
                let process = world.process_at_rank(peer as i32);
                pending.push((
                    peer,
                    process.immediate_send_with_tag(scope, &buffer[..], HALO_TAG),
                ));
            }
            wait_all(world, pending, deadline, self.timeout, "halo exchange");
        });
        Ok(())
    }
}

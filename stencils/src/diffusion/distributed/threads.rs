//! Ranks as threads of one process, exchanging over channels: the decomposed granule tested
//! and debugged without MPI. Each message is a fresh vector (this transport is for tests,
//! not speed).

use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use gt4rs::Error;

use super::exchange::Transport;

/// One rank's end of the channels to every other rank.
pub struct ThreadTransport {
    rank: usize,
    to: Vec<Sender<Vec<f64>>>,
    from: Vec<Receiver<Vec<f64>>>,
    timeout: Duration,
}

impl ThreadTransport {
    /// Connected transports for `ranks` threads; rank `r` takes element `r`.
    pub fn connected(ranks: usize, timeout: Duration) -> Vec<ThreadTransport> {
        // Channel (a, b) carries messages from rank a to rank b, so messages between two
        // ranks arrive in the order they were sent.
        let mut senders: Vec<Vec<Option<Sender<Vec<f64>>>>> = (0..ranks)
            .map(|_| (0..ranks).map(|_| None).collect())
            .collect();
        let mut receivers: Vec<Vec<Option<Receiver<Vec<f64>>>>> = (0..ranks)
            .map(|_| (0..ranks).map(|_| None).collect())
            .collect();
        for a in 0..ranks {
            for b in 0..ranks {
                let (tx, rx) = channel();
                senders[a][b] = Some(tx);
                receivers[b][a] = Some(rx);
            }
        }
        senders
            .into_iter()
            .zip(receivers)
            .enumerate()
            .map(|(rank, (to, from))| ThreadTransport {
                rank,
                to: to.into_iter().flatten().collect(),
                from: from.into_iter().flatten().collect(),
                timeout,
            })
            .collect()
    }
}

impl Transport for ThreadTransport {
    fn exchange(
        &mut self,
        peers: &[usize],
        send: &[Vec<f64>],
        recv: &mut [Vec<f64>],
    ) -> Result<(), Error> {
        let gone = |peer: usize| Error::Config(format!("rank {peer} has stopped"));
        for (&peer, message) in peers.iter().zip(send) {
            self.to[peer]
                .send(message.clone())
                .map_err(|_| gone(peer))?;
        }
        let deadline = Instant::now() + self.timeout;
        for (&peer, into) in peers.iter().zip(recv.iter_mut()) {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.from[peer].recv_timeout(left).map_err(|e| match e {
                RecvTimeoutError::Timeout => Error::Config(format!(
                    "rank {}: no halo data from rank {peer} within {:.0} s",
                    self.rank,
                    self.timeout.as_secs_f64()
                )),
                RecvTimeoutError::Disconnected => gone(peer),
            })?;
            if message.len() != into.len() {
                return Err(Error::Shape(format!(
                    "rank {}: rank {peer} sent {} values, {} expected",
                    self.rank,
                    message.len(),
                    into.len()
                )));
            }
            into.copy_from_slice(&message);
        }
        Ok(())
    }
}

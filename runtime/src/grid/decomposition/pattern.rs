//! Who sends which points to whom in a halo exchange: one pattern per (dimension, halo
//! depth), built once from the ranks' requests.
//!
//! A rank asks each owner for the global indices of its halo points that owner holds, in
//! ascending global order; the owner answers every exchange with its values of those points
//! in that order. Both sides therefore agree on the layout of each message without sending
//! indices again.

use super::local::{LocalGrid, HALO_LEVELS};
use crate::error::Error;
use crate::grid::GridDim;

/// The points one rank exchanges with one peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerPoints {
    /// The peer's rank.
    pub peer: usize,
    /// Local indices of owned points the peer holds in its halo, in the order it asked.
    pub send: Vec<usize>,
    /// Local indices of halo points the peer owns, in ascending global order.
    pub recv: Vec<usize>,
}

/// A rank's exchange of one dimension's halo levels `1..=depth`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExchangePattern {
    /// The dimension exchanged.
    pub dim: GridDim,
    /// The halo levels exchanged (1 or 2).
    pub depth: usize,
    /// Peers with something to send or receive, by rank.
    pub peers: Vec<PeerPoints>,
}

impl ExchangePattern {
    /// Points sent per exchange (per level of each field).
    pub fn points_sent(&self) -> usize {
        self.peers.iter().map(|p| p.send.len()).sum()
    }

    /// Points received per exchange (per level of each field).
    pub fn points_received(&self) -> usize {
        self.peers.iter().map(|p| p.recv.len()).sum()
    }
}

/// What this rank asks each owner for: the global indices of its halo points of levels
/// `1..=depth` owned by that rank, ascending. Index `q` of the result is for rank `q`.
pub fn requests(local: &LocalGrid, dim: GridDim, depth: usize) -> Result<Vec<Vec<usize>>, Error> {
    if !(1..=HALO_LEVELS).contains(&depth) {
        return Err(Error::Config(format!(
            "halo depth {depth}: the decomposition keeps levels 1..={HALO_LEVELS}"
        )));
    }
    let map = local.map(dim);
    let end = map.owned + map.halo[..depth].iter().sum::<usize>();
    let mut asked = vec![Vec::new(); local.ranks];
    for l in map.owned..end {
        asked[map.owner[l] as usize].push(map.global[l]);
    }
    for list in &mut asked {
        list.sort_unstable();
    }
    Ok(asked)
}

/// The pattern of one rank from what it asks (`requests(local, …)`) and what every peer asks
/// it for (`asked_of_me[q]` from rank `q`). Fails if a peer asks for a point this rank does
/// not own: the ranks then disagree about the decomposition.
pub fn pattern(
    local: &LocalGrid,
    dim: GridDim,
    depth: usize,
    my_requests: &[Vec<usize>],
    asked_of_me: &[Vec<usize>],
) -> Result<ExchangePattern, Error> {
    let map = local.map(dim);
    let mut peers = Vec::new();
    for peer in 0..local.ranks {
        let wanted = asked_of_me.get(peer).map(Vec::as_slice).unwrap_or(&[]);
        let mine = my_requests.get(peer).map(Vec::as_slice).unwrap_or(&[]);
        if peer == local.rank {
            if !wanted.is_empty() || !mine.is_empty() {
                return Err(Error::Config(format!(
                    "rank {peer} asks itself for {} halo points",
                    wanted.len().max(mine.len())
                )));
            }
            continue;
        }
        if wanted.is_empty() && mine.is_empty() {
            continue;
        }
        let send = wanted
            .iter()
            .map(|&g| match map.local(g) {
                Some(l) if l < map.owned => Ok(l),
                _ => Err(Error::Config(format!(
                    "rank {peer} asks rank {} for {} {g}, which it does not own: the ranks disagree about the decomposition",
                    local.rank,
                    dim.name()
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let recv = mine
            .iter()
            .map(|&g| {
                map.local(g).ok_or_else(|| {
                    Error::Config(format!(
                        "{} {g} is not in the halo of rank {}",
                        dim.name(),
                        local.rank
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        peers.push(PeerPoints { peer, send, recv });
    }
    Ok(ExchangePattern { dim, depth, peers })
}

/// The patterns of every rank at once, for a decomposition held in one process (tests,
/// in-process ranks): `patterns[r]` is rank `r`'s.
pub fn patterns_of_all(
    locals: &[LocalGrid],
    dim: GridDim,
    depth: usize,
) -> Result<Vec<ExchangePattern>, Error> {
    let asked: Vec<Vec<Vec<usize>>> = locals
        .iter()
        .map(|l| requests(l, dim, depth))
        .collect::<Result<_, _>>()?;
    locals
        .iter()
        .enumerate()
        .map(|(r, local)| {
            let of_me: Vec<Vec<usize>> = asked
                .iter()
                .map(|per_owner| per_owner.get(r).cloned().unwrap_or_default())
                .collect();
            pattern(local, dim, depth, &asked[r], &of_me)
        })
        .collect()
}

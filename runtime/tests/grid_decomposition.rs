//! The decomposition of grids over ranks, without MPI: partition balance and edge cut, one
//! owner per point, owned-first numbering in zone order, neighbour slots kept, halo
//! completeness for every read of the diffusion step, and consistent exchange patterns.

use gt4rs::grid::decomposition::{pattern, LocalGrid, Partition, HALO_LEVELS};
use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, RegionSpec, Zone};

/// R2B3, and a limited-area cut of R2B4 over the Alps, built once.
fn grids() -> &'static [(&'static str, Grid)] {
    static GRIDS: std::sync::OnceLock<Vec<(&'static str, Grid)>> = std::sync::OnceLock::new();
    GRIDS.get_or_init(|| {
        let global = IcosahedralGrid::generate(2, 3).expect("R2B3");
        let lam = IcosahedralGrid::generate(2, 4)
            .expect("R2B4")
            .regional(RegionSpec {
                center_lat_deg: 46.8,
                center_lon_deg: 8.2,
                radius: 2.0e6,
            })
            .expect("region");
        vec![("R2B3", global), ("R2B4 regional", lam)]
    })
}

fn decompose(grid: &Grid, ranks: usize) -> Vec<LocalGrid> {
    let partition = Partition::hilbert(grid, ranks).expect("partition");
    (0..ranks)
        .map(|r| LocalGrid::of_rank(grid, &partition, r).expect("local grid"))
        .collect()
}

#[test]
fn hilbert_parts_are_balanced_to_one_cell_and_cut_few_edges() {
    for (name, grid) in grids() {
        for ranks in [1, 2, 3, 4, 7, 16] {
            let partition = Partition::hilbert(grid, ranks).expect("partition");
            let q = partition.quality(grid).expect("quality");
            assert!(q.max_cells - q.min_cells <= 1, "{name} / {ranks}: {q:?}");
            // A compact part of c cells on a triangle grid has a boundary of about
            // 2·sqrt(3c) edges (a hexagon); allow twice that per part.
            let per_part = grid.num_cells as f64 / ranks as f64;
            let compact = ranks as f64 * 2.0 * (3.0 * per_part).sqrt() / 2.0;
            assert!(
                (q.edge_cut as f64) <= 2.0 * compact,
                "{name} / {ranks}: edge cut {} vs compact {compact:.0}",
                q.edge_cut
            );
            if ranks == 1 {
                assert_eq!(q.edge_cut, 0);
            }
        }
    }
}

#[test]
fn rank_counts_the_partition_cannot_serve_are_errors() {
    let (_, grid) = &grids()[0];
    let too_many = Partition::hilbert(grid, grid.num_cells + 1).expect_err("more ranks than cells");
    assert!(
        too_many.to_string().contains("at least one cell"),
        "{too_many}"
    );
    let none = Partition::hilbert(grid, 0).expect_err("no rank");
    assert!(none.to_string().contains("at least one rank"), "{none}");
    let mut ranks = vec![0u32; grid.num_cells];
    ranks[0] = 2;
    let empty = Partition::from_cell_ranks(grid, 3, ranks.clone()).expect_err("rank 1 empty");
    assert!(
        empty.to_string().contains("rank 1 of 3 owns no cell"),
        "{empty}"
    );
    ranks[1] = 5;
    let stray = Partition::from_cell_ranks(grid, 3, ranks).expect_err("rank 5");
    assert!(stray.to_string().contains("there are 3 ranks"), "{stray}");
    let partition = Partition::hilbert(grid, 2).expect("partition");
    let missing = LocalGrid::of_rank(grid, &partition, 2).expect_err("rank 2 of 2");
    assert!(missing.to_string().contains("does not exist"), "{missing}");
}

#[test]
fn every_point_has_exactly_one_owner_and_halo_owners_agree() {
    for (name, grid) in grids() {
        for ranks in [1, 2, 3, 4] {
            let locals = decompose(grid, ranks);
            for dim in GridDim::ALL {
                let mut owners = vec![0usize; grid.size(dim)];
                for local in &locals {
                    let map = local.map(dim);
                    for &g in &map.global[..map.owned] {
                        owners[g] += 1;
                    }
                    for l in map.owned..map.len() {
                        let owner = map.owner[l] as usize;
                        assert_ne!(owner, local.rank, "{name}: a halo point owned by its rank");
                        let there = locals[owner].map(dim);
                        let at = there.local(map.global[l]).expect("the owner holds it");
                        assert!(at < there.owned, "{name}: the named owner does not own it");
                    }
                }
                assert!(
                    owners.iter().all(|&n| n == 1),
                    "{name} / {ranks} {}: owners per point {:?}",
                    dim.name(),
                    owners.iter().filter(|&&n| n != 1).count()
                );
            }
        }
    }
}

#[test]
fn local_numbering_is_owned_first_in_zone_order_then_halo_levels() {
    for (name, grid) in grids() {
        for local in decompose(grid, 3) {
            for dim in GridDim::ALL {
                let map = local.map(dim);
                let zones = local.grid.zones.of(dim);
                assert_eq!(zones.owned(), map.owned);
                assert_eq!(local.grid.end(dim, Zone::Local).unwrap(), map.owned);
                let (h1, h2) = (
                    local.grid.start(dim, Zone::Halo).unwrap()
                        ..local.grid.end(dim, Zone::Halo).unwrap(),
                    local.grid.start(dim, Zone::HaloLevel2).unwrap()
                        ..local.grid.end(dim, Zone::HaloLevel2).unwrap(),
                );
                assert_eq!((h1.start, h2.start), (map.owned, h1.end));
                assert_eq!(h2.end, map.len());
                for l in 0..map.len() {
                    assert_eq!(
                        map.level(l),
                        [0, 1, 2][usize::from(l >= h1.start) + usize::from(l >= h2.start)]
                    );
                }
                for range in [0..map.owned, h1, h2] {
                    let g = &map.global[range];
                    assert!(g.windows(2).all(|w| w[0] < w[1]), "{name}: not ascending");
                }
                // Each owned point lies in the local zone of its global zone.
                for zone in Zone::ALL {
                    let (Ok(s), Ok(e)) = (local.grid.start(dim, zone), local.grid.end(dim, zone))
                    else {
                        continue;
                    };
                    if matches!(
                        zone,
                        Zone::Local | Zone::Halo | Zone::HaloLevel2 | Zone::End
                    ) {
                        continue;
                    }
                    let (gs, ge) = (grid.start(dim, zone).unwrap(), grid.end(dim, zone).unwrap());
                    for l in s..e {
                        let g = map.global[l];
                        assert!(
                            (gs..ge).contains(&g),
                            "{name} {}: {g} not in {}",
                            dim.name(),
                            zone.name()
                        );
                    }
                }
            }
        }
    }
}

/// Follows `chain` (table names) from every local point `from` selects; every neighbour the
/// global grid has must be local, in the same slot.
fn reads_are_local(
    grid: &Grid,
    local: &LocalGrid,
    start: GridDim,
    upto_level: usize,
    chain: &[&str],
) {
    let map = local.map(start);
    let end = map.owned + map.halo[..upto_level].iter().sum::<usize>();
    let mut frontier: Vec<(usize, usize)> = (0..end).map(|l| (l, map.global[l])).collect();
    for name in chain {
        let (lt, gt) = (local.grid.table(name).unwrap(), grid.table(name).unwrap());
        let (_, to) = dims(name);
        let to_map = local.map(to);
        let mut next = Vec::new();
        for &(l, g) in &frontier {
            for k in 0..gt.ncols() {
                let (ge, le) = (gt[[g, k]], lt[[l, k]]);
                if ge < 0 {
                    assert_eq!(
                        le, -1,
                        "rank {}: {name} slot {k} of {g} appears",
                        local.rank
                    );
                    continue;
                }
                assert!(
                    le >= 0,
                    "rank {}: {name}[{g}][{k}] = {ge} is read but not local (chain {chain:?})",
                    local.rank
                );
                assert_eq!(
                    to_map.global[le as usize], ge as usize,
                    "slot order changed"
                );
                next.push((le as usize, ge as usize));
            }
        }
        next.sort_unstable();
        next.dedup();
        frontier = next;
    }
}

fn dims(name: &str) -> (GridDim, GridDim) {
    let d = |c: u8| match c {
        b'C' => GridDim::Cell,
        b'E' => GridDim::Edge,
        _ => GridDim::Vertex,
    };
    let trimmed = name.strip_suffix('O').unwrap_or(name).as_bytes();
    (d(name.as_bytes()[0]), d(trimmed[trimmed.len() - 1]))
}

/// Every point a program of the diffusion step reads from an owned point (or, for the
/// temporaries the CPU backend computes over a reach, from a level-1 halo cell) is local.
#[test]
fn halos_hold_every_point_the_diffusion_step_reads() {
    for (_, grid) in grids() {
        for ranks in [2, 3, 4] {
            for local in decompose(grid, ranks) {
                // RBF at vertices; ∇²vn, Smagorinsky and the vn update; cold pools (edge →
                // cells → their neighbours); ∇²θ (cell → edges → cells); ∇⁴ of w and the
                // gradients (two rings of cells); z-diffusion; turbulence diagnostics.
                reads_are_local(grid, &local, GridDim::Vertex, 0, &["V2E"]);
                reads_are_local(grid, &local, GridDim::Edge, 0, &["E2C2V"]);
                reads_are_local(grid, &local, GridDim::Edge, 0, &["E2C", "C2E2C"]);
                reads_are_local(grid, &local, GridDim::Edge, 1, &["E2C", "C2E2C"]);
                reads_are_local(grid, &local, GridDim::Cell, 0, &["C2E", "E2C"]);
                reads_are_local(grid, &local, GridDim::Cell, 0, &["C2E2CO", "C2E2CO"]);
                reads_are_local(grid, &local, GridDim::Cell, 1, &["C2E2CO"]);
                reads_are_local(grid, &local, GridDim::Cell, 0, &["C2E2C"]);
                reads_are_local(grid, &local, GridDim::Cell, 0, &["C2E"]);
            }
        }
    }
}

#[test]
fn exchange_patterns_match_between_peers_and_cover_each_halo_point_once() {
    for (name, grid) in grids() {
        let locals = decompose(grid, 4);
        for dim in GridDim::ALL {
            for depth in 1..=HALO_LEVELS {
                let patterns = pattern::patterns_of_all(&locals, dim, depth).expect("patterns");
                for (r, p) in patterns.iter().enumerate() {
                    let map = locals[r].map(dim);
                    let mut received = vec![0usize; map.len()];
                    for peer in &p.peers {
                        for &l in &peer.recv {
                            received[l] += 1;
                        }
                        let theirs = patterns[peer.peer]
                            .peers
                            .iter()
                            .find(|q| q.peer == r)
                            .expect("the peer knows this rank");
                        let sent: Vec<usize> = theirs
                            .send
                            .iter()
                            .map(|&l| locals[peer.peer].map(dim).global[l])
                            .collect();
                        let got: Vec<usize> = peer.recv.iter().map(|&l| map.global[l]).collect();
                        assert_eq!(
                            sent,
                            got,
                            "{name} {} depth {depth}: {} -> {r}",
                            dim.name(),
                            peer.peer
                        );
                    }
                    let end = map.owned + map.halo[..depth].iter().sum::<usize>();
                    for (l, &n) in received.iter().enumerate() {
                        let want = usize::from((map.owned..end).contains(&l));
                        assert_eq!(
                            n,
                            want,
                            "{name} {}: local {l} received {n} times",
                            dim.name()
                        );
                    }
                }
            }
        }
    }
}

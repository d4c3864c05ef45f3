//! The 3-D Hilbert curve: a key per point such that points close on the curve are close in
//! space, so cutting the sorted keys into runs gives compact parts.

/// Bits per axis: 3 × 21 = 63 bits fit a `u64` key.
pub const BITS: u32 = 21;

/// The position of the lattice point `axes` (each below `2^BITS`) along the Hilbert curve,
/// by Skilling's transpose algorithm ("Programming the Hilbert curve", AIP Conf. Proc. 707,
/// 2004): undo the excess rotations, Gray-encode, then interleave the bits of the three axes.
pub fn key(axes: [u32; 3]) -> u64 {
    let mut x = axes;
    let top = 1u32 << (BITS - 1);
    let mut q = top;
    while q > 1 {
        let lower = q - 1;
        for i in 0..3 {
            if x[i] & q != 0 {
                x[0] ^= lower;
            } else {
                let swap = (x[0] ^ x[i]) & lower;
                x[0] ^= swap;
                x[i] ^= swap;
            }
        }
        q >>= 1;
    }
    for i in 1..3 {
        x[i] ^= x[i - 1];
    }
    let mut flip = 0;
    let mut q = top;
    while q > 1 {
        if x[2] & q != 0 {
            flip ^= q - 1;
        }
        q >>= 1;
    }
    for axis in &mut x {
        *axis ^= flip;
    }
    let mut key = 0u64;
    for bit in (0..BITS).rev() {
        for axis in x {
            key = (key << 1) | u64::from((axis >> bit) & 1);
        }
    }
    key
}

/// Lattice coordinates of `points` (rows of x, y, z) scaled from their bounding box onto
/// `0..2^BITS` per axis.
pub fn lattice(points: ndarray::ArrayView2<'_, f64>) -> Vec<[u32; 3]> {
    let mut low = [f64::INFINITY; 3];
    let mut high = [f64::NEG_INFINITY; 3];
    for p in points.outer_iter() {
        for a in 0..3 {
            low[a] = low[a].min(p[a]);
            high[a] = high[a].max(p[a]);
        }
    }
    let cells = f64::from((1u32 << BITS) - 1);
    points
        .outer_iter()
        .map(|p| {
            let mut out = [0u32; 3];
            for a in 0..3 {
                let span = high[a] - low[a];
                // A flat axis (the torus' z) maps to 0.
                let t = if span > 0.0 {
                    (p[a] - low[a]) / span
                } else {
                    0.0
                };
                out[a] = (t.clamp(0.0, 1.0) * cells).round() as u32;
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a small lattice the curve visits every point once, and each step moves to a
    /// face neighbour: the defining property of a Hilbert curve.
    #[test]
    fn consecutive_keys_are_lattice_neighbours() {
        let side = 1u32 << 3;
        let shift = BITS - 3;
        let mut points: Vec<([u32; 3], u64)> = Vec::new();
        for x in 0..side {
            for y in 0..side {
                for z in 0..side {
                    let p = [x << shift, y << shift, z << shift];
                    points.push(([x, y, z], key(p)));
                }
            }
        }
        points.sort_by_key(|&(_, k)| k);
        let distinct = points.windows(2).all(|w| w[0].1 != w[1].1);
        assert!(distinct, "two points share a key");
        for w in points.windows(2) {
            let step: u32 = (0..3).map(|a| w[0].0[a].abs_diff(w[1].0[a])).sum();
            assert_eq!(step, 1, "{:?} -> {:?}", w[0].0, w[1].0);
        }
    }
}

"""How the seeded random inputs of ICON4Py's programs are drawn: shared by the peer benchmark
(benches/peer/peer.py, calls.py) and the dycore reference data (tools/icon4py/record_dycore.py),
so that both draw a program's inputs the same way.

Float inputs are uniform in [-1, 1) unless a program names a range (`Uniform`) or a value
(`Fixed`); int32 fields of offsets along K point inside the column; bool fields (masks) are
true at a share of points.
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Uniform:
    low: float
    high: float


@dataclasses.dataclass(frozen=True)
class Fixed:
    value: float


# The int32 fields of offsets along K (`as_offset`): the diffusion's `zd_vertoffset` and the
# pressure gradient's `ikoffset` (Cell or Edge, a neighbour dimension, K).
VERTICAL_OFFSETS = ("zd_vertoffset", "ikoffset")

# The share of points where an input mask is true: `owner_mask` at most points, as on the cells
# a rank owns; other masks (`mask_prog_halo_c`) at half of them, so that both branches run.
MASK_TRUE_FRACTION = {"owner_mask": 0.75}


def draw(rng: np.random.Generator, how: Uniform | Fixed | None, shape):
    if isinstance(how, Fixed):
        return np.full(shape, how.value)
    low, high = (how.low, how.high) if isinstance(how, Uniform) else (-1.0, 1.0)
    return rng.uniform(low, high, shape)


def mask(rng: np.random.Generator, name: str, shape) -> np.ndarray:
    """A bool field, true at the share of points `MASK_TRUE_FRACTION` gives `name` (half by
    default). (`rng.uniform(0, 1)` draws as `rng.random` does.)"""
    return rng.uniform(0.0, 1.0, shape) < MASK_TRUE_FRACTION.get(name, 0.5)


def vertical_offsets(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """An offset field along K (K its last dimension): offsets 0..2 down the column where both
    levels read, `k + off` and `k + off + 1`, stay inside it; where none does, one that points
    up."""
    nlev = shape[-1]
    k = np.broadcast_to(np.arange(nlev), shape)
    deepest = np.minimum(2, nlev - 2 - k)
    down = np.floor(rng.random(shape) * (np.maximum(deepest, 0) + 1)).astype(np.int32)
    up = -1 - np.floor(rng.random(shape) * np.maximum(k, 1)).astype(np.int32)
    return np.where(deepest >= 0, down, up).astype(np.int32)


def zero_two_of_three(value: np.ndarray) -> None:
    """Zeroes two of every three points of `value` (in memory order), in place: fields that
    ICON fills only at a list of points (`pg_exdist`), so that both sides of a selection on
    `!= 0` run."""
    value.reshape(-1)[np.arange(value.size) % 3 != 0] = 0.0

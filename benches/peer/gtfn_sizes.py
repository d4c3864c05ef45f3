"""ICON4Py's `solve_tridiagonal_matrix_for_w_back_substitution` (a K scan, no neighbours) on GT4Py's
`gtfn_cpu` over random columns of several cell counts, in one process: the time of a call against
the number of cells (ICON's global grids have 20·4ⁿ cells). Run in the ICON4Py environment:

    OMP_NUM_THREADS=1 tools/icon4py/run python -O benches/peer/gtfn_sizes.py [CELLS...]
"""

import statistics
import sys
import time

import gt4py.next as gtx
import numpy as np
from icon4py.model.atmosphere.dycore.stencils.solve_tridiagonal_matrix_for_w_back_substitution import (
    solve_tridiagonal_matrix_for_w_back_substitution as program,
)
from icon4py.model.common import dimension as dims, model_options

LEVELS = 65
CALLS = 20


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [20000, 20480, 21236, 24576]
    for cells in sizes:
        rng = np.random.default_rng(5)
        z_q = gtx.as_field([dims.CellDim, dims.KDim], rng.uniform(-1, 1, (cells, LEVELS)))
        w = gtx.as_field([dims.CellDim, dims.KDim], rng.uniform(-1, 1, (cells, LEVELS)))
        bounds = dict(
            horizontal_start=0, horizontal_end=cells, vertical_start=1, vertical_end=LEVELS
        )
        call = model_options.setup_program(
            program=program,
            backend=gtx.gtfn_cpu,
            constant_args={k: gtx.int32(v) for k, v in bounds.items()},
            offset_provider={},
        )
        call(z_q=z_q, w=w)
        times = []
        for _ in range(CALLS):
            started = time.perf_counter()
            call(z_q=z_q, w=w)
            times.append(time.perf_counter() - started)
        print(
            f"{cells} cells x {LEVELS} levels: median {statistics.median(times) * 1e3:.2f} ms, "
            f"min {min(times) * 1e3:.2f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()

"""The ICON4Py side of the peer benchmark (run by `benches/peer/run`, inside the environment of
`tools/icon4py/setup`).

`peer.py run`: for each program, seeded random inputs on the grid, ICON4Py's own program compiled
for GT4Py's `gtfn_cpu` the way ICON4Py's granules do it (`model_options.setup_program`: every
int32 and bool scalar compiled in, float scalars passed per call), one call whose outputs are
recorded (it also waits for the compilation, timed apart), then the timed calls. Writes
`PROGRAM.npz` in the refs convention (refs/icon4py/README.md: inputs, `out__` outputs and the
tables ICON4Py used), which `gt4rs time` and `gt4rs verify` read, and `PROGRAM.json` beside it.
With `--gt4rs BIN`, right after each program: `gt4rs time` on that file (one thread, then every
core) and the check of gt4rs's outputs against ICON4Py's (`PROGRAM.check.json`).

`peer.py report`: the table of a folder `run` wrote.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import time
import zlib
from importlib.metadata import version

import numpy as np

import calls as call_specs
import random_inputs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run ICON4Py's programs, write their calls, time gt4rs")
    run.add_argument("--grid", required=True, help="grid file written by `gt4rs grid info --npz`")
    run.add_argument("--levels", type=int, default=65)
    run.add_argument("--calls", type=int, default=20, help="timed calls after the first")
    run.add_argument("--seed", type=int, default=20240601)
    run.add_argument("--out", required=True, help="folder for PROGRAM.npz and PROGRAM.json")
    run.add_argument(
        "--gt4rs", help="the gt4rs binary: `gt4rs time` each call right after ICON4Py's"
    )
    run.add_argument(
        "--one-point",
        action="store_true",
        help="shrink each domain to its first point and level: the cost of a call",
    )
    run.add_argument("--rtol", type=float, default=1e-12, help="accepted error (see `compare`)")
    run.add_argument(
        "--discard",
        action="store_true",
        help="delete each program's .npz files once checked (R2B5 ones take up to 1 GB each)",
    )
    run.add_argument("programs", nargs="*", help="program names (default: every one)")
    report = sub.add_parser("report", help="print the table of a folder `run` wrote")
    report.add_argument("--dir", required=True, help="the folder `run` wrote")
    report.add_argument("--title", default="")
    report.add_argument("programs", nargs="*")
    args = parser.parse_args()
    if args.command == "run":
        return run_icon4py(args)
    return run_report(args)


def program_names(requested: list[str]) -> list[str]:
    unknown = [p for p in requested if p not in call_specs.CALLS]
    if unknown:
        raise SystemExit(
            f"unknown program(s) {', '.join(unknown)}; known: {', '.join(call_specs.CALLS)}"
        )
    if requested:
        return requested
    rest = [p for p in call_specs.CALLS if p not in call_specs.HEADLINE]
    return list(call_specs.HEADLINE) + rest


# ---------------------------------------------------------------------------------------------
# ICON4Py side


def run_icon4py(args: argparse.Namespace) -> int:
    # Imported here: `report` needs numpy alone.
    import icon4py_grid

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    grid = icon4py_grid.load(args.grid, args.levels)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if grid.derived_differences:
        print(
            "note: ICON4Py derives tables "
            + ", ".join(grid.derived_differences)
            + " in another order than the grid file; both sides use ICON4Py's"
        )
    for name in program_names(args.programs):
        started = time.perf_counter()
        record = run_program(name, grid, args)
        arrays = record.pop("arrays")
        np.savez(out / f"{name}.npz", **arrays)
        (out / f"{name}.json").write_text(json.dumps(record, indent=1))
        timing = record["timing"]
        print(
            f"{name}: ICON4Py gtfn_cpu median {timing['median_ms']:.3f} ms "
            f"(compile and first call {timing['compile_s']:.1f} s)",
            flush=True,
        )
        if args.gt4rs and time_gt4rs(args.gt4rs, name, out, args.calls):
            check = check_outputs(out / f"{name}.gt4rs-out.npz", arrays, record["outputs"])
            check["rtol"] = args.rtol
            check["ok"] = all(e <= args.rtol for e in check["errors"].values())
            (out / f"{name}.check.json").write_text(json.dumps(check, indent=1))
            verdict = "agree" if check["ok"] else "DIFFER"
            print(f"  outputs {verdict}: largest error {check['worst']:.1e}", flush=True)
        if args.discard:
            for name_of_file in (f"{name}.npz", f"{name}.gt4rs-out.npz"):
                (out / name_of_file).unlink(missing_ok=True)
        print(f"  ({time.perf_counter() - started:.1f} s)", flush=True)
    return 0


def time_gt4rs(binary: str, name: str, folder: pathlib.Path, calls: int) -> bool:
    """`gt4rs time` on the call just written: one thread, then the CPU backend's default (every
    core). A failure is kept in PROGRAM.gt4rs-error.txt for the report."""
    error_file = folder / f"{name}.gt4rs-error.txt"
    for stale in (
        "gt4rs-error.txt",
        "gt4rs-1.json",
        "gt4rs-all.json",
        "gt4rs-out.npz",
        "check.json",
    ):
        (folder / f"{name}.{stale}").unlink(missing_ok=True)
    inputs = folder / f"{name}.npz"
    for threads, tag in (("1", "1"), (None, "all")):
        env = {k: v for k, v in os.environ.items() if k != "RAYON_NUM_THREADS"}
        if threads:
            env["RAYON_NUM_THREADS"] = threads
        command = [binary, "time", name, "--inputs", str(inputs), "--calls", str(calls)]
        command += ["--report", str(folder / f"{name}.gt4rs-{tag}.json")]
        if tag == "1":
            command += ["--out", str(folder / f"{name}.gt4rs-out.npz")]
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            error_file.write_text(done.stdout + done.stderr)
            print(f"  gt4rs failed: {(done.stderr or done.stdout).strip()}", flush=True)
            return False
        print(f"  gt4rs: {done.stdout.strip()}", flush=True)
    return True


def past_roles(program) -> tuple[set[str], set[str]]:
    """The parameters a program writes (`out=` of its calls) and those it reads."""
    from gt4py.next.ffront import program_ast as past

    written: set[str] = set()
    read: set[str] = set()

    def names(node) -> set[str]:
        if isinstance(node, past.Name):
            return {str(node.id)}
        if isinstance(node, past.TupleExpr):
            return set().union(*(names(e) for e in node.elts))
        if isinstance(node, past.BinOp):
            return names(node.left) | names(node.right)
        return set()

    for statement in program.past_stage.past_node.body:
        for key, value in statement.kwargs.items():
            if key == "out":
                written |= names(value)
            elif key != "domain":
                read |= names(value)
        for value in statement.args:
            read |= names(value)
    return written, read


def seed_of(name: str, base: int) -> int:
    return base + zlib.crc32(name.encode())


@dataclasses.dataclass
class Arguments:
    """A program's arguments: as GT4Py fields and scalars for the call, as arrays for the file,
    and described for its sidecar."""

    arrays: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    described: list[dict] = dataclasses.field(default_factory=list)
    fields: dict = dataclasses.field(default_factory=dict)
    runtime_scalars: dict = dataclasses.field(default_factory=dict)
    static_scalars: dict = dataclasses.field(default_factory=dict)


def domain_of(spec, grid, args: argparse.Namespace) -> dict[str, int]:
    domain: dict[str, int] = {}
    if callable(spec.horizontal):
        domain["horizontal_start"], domain["horizontal_end"] = spec.horizontal(grid)
    elif spec.horizontal is not None:
        dim, first, last = spec.horizontal
        domain["horizontal_start"] = grid.start(dim, first)
        domain["horizontal_end"] = grid.end(dim, last)
    if spec.vertical is not None:
        domain["vertical_start"], domain["vertical_end"] = spec.vertical(args.levels)
    if args.one_point:
        for start in ("horizontal_start", "vertical_start"):
            if start in domain:
                domain[start.replace("start", "end")] = domain[start] + 1
    return domain


def make_arguments(name: str, program, grid, domain: dict[str, int], args) -> Arguments:
    """Seeded random inputs (pure outputs NaN), the domain, and the static values of calls.py."""
    import gt4py.next as gtx
    from gt4py.next.type_system import type_specifications as ts

    spec = call_specs.CALLS[name]
    params = program.past_stage.past_node.type.definition.pos_or_kw_args
    written, read = past_roles(program)
    rng = np.random.default_rng(seed_of(name, args.seed))
    nlev = args.levels
    made = Arguments()
    arrays, described, fields = made.arrays, made.described, made.fields
    runtime_scalars, static_scalars = made.runtime_scalars, made.static_scalars
    for pname, ptype in params.items():
        role = (
            "inout" if pname in written and pname in read else "out" if pname in written else "in"
        )
        if isinstance(ptype, ts.FieldType):
            levels = nlev + (1 if pname in spec.half_levels else 0)
            shape = tuple(
                (
                    levels
                    if d.value == "K"
                    else (
                        grid.size(d.value)
                        if d.kind == gtx.DimensionKind.HORIZONTAL
                        else grid.tables[d.value].shape[1]
                    )
                )
                for d in ptype.dims
            )
            kind = ptype.dtype.kind
            if kind == ts.ScalarKind.INT32 and pname in random_inputs.VERTICAL_OFFSETS:
                value = random_inputs.vertical_offsets(shape, rng)
            elif kind == ts.ScalarKind.BOOL and role == "in":
                value = random_inputs.mask(rng, pname, shape)
            elif kind == ts.ScalarKind.FLOAT64:
                if role == "out":
                    value = np.full(shape, np.nan)
                else:
                    value = random_inputs.draw(rng, spec.draws.get(pname), shape)
                if pname in spec.mostly_zero:
                    random_inputs.zero_two_of_three(value)
            else:
                raise SystemExit(f"{name}: no way to make {role} field `{pname}` of {ptype}")
            if pname == "zd_diffcoef":
                # Zero at some points, so that both sides of the steep-point selection run.
                cells = np.arange(0, shape[0], 3)
                value[cells, cells % shape[1]] = 0.0
            arrays[pname] = value
            fields[pname] = gtx.as_field(list(ptype.dims), value.copy())
            described.append(
                {
                    "name": pname,
                    "kind": "field",
                    "dims": [d.value for d in ptype.dims],
                    "dtype": str(value.dtype),
                    "role": role,
                    "shape": list(shape),
                }
            )
            continue
        kind = ptype.kind
        if kind == ts.ScalarKind.FLOAT64:
            value = float(random_inputs.draw(rng, spec.draws.get(pname), ()))
            runtime_scalars[pname] = value
            arrays[pname] = np.array(value, dtype=np.float64)
        elif kind == ts.ScalarKind.INT32:
            source = domain.get(pname, spec.ints.get(pname))
            if source is None:
                raise SystemExit(f"{name}: no value for int32 scalar `{pname}` in calls.py")
            value = int(source(grid) if callable(source) else source)
            static_scalars[pname] = gtx.int32(value)
            arrays[pname] = np.array(value, dtype=np.int32)
        elif kind == ts.ScalarKind.BOOL:
            if pname not in spec.flags:
                raise SystemExit(f"{name}: no value for bool scalar `{pname}` in calls.py")
            flag = spec.flags[pname]
            value = bool(flag(grid) if callable(flag) else flag)
            static_scalars[pname] = value
            arrays[pname] = np.array(value, dtype=np.bool_)
        else:
            raise SystemExit(f"{name}: unexpected scalar `{pname}` of {ptype}")
        described.append(scalar_entry(pname, arrays[pname], value))

    return made


def scalar_entry(name: str, array: np.ndarray, value, icon4py_dtype: str | None = None) -> dict:
    """The sidecar's description of scalar argument `name`, stored as the 0-d `array` (its
    dtype is what gt4rs reads); `icon4py_dtype` where ICON4Py's parameter has another type."""
    entry = {"name": name, "kind": "scalar", "dtype": str(array.dtype)}
    if icon4py_dtype is not None:
        entry["icon4py_dtype"] = icon4py_dtype
    entry["role"] = "in"
    entry["value"] = value
    return entry


def run_program(name: str, grid, args: argparse.Namespace) -> dict:
    import gt4py.next as gtx
    from icon4py.model.common import model_options

    spec = call_specs.CALLS[name]
    program = getattr(importlib.import_module(spec.module), name)
    domain = domain_of(spec, grid, args)
    made = make_arguments(name, program, grid, domain, args)
    arrays, described, fields = made.arrays, made.described, made.fields
    runtime_scalars, static_scalars = made.runtime_scalars, made.static_scalars
    outputs = [p["name"] for p in described if p["role"] in ("out", "inout")]

    # ICON4Py's way: compile (GT4Py builds in the background), then the first call waits for it.
    compile_started = time.perf_counter()
    call = model_options.setup_program(
        program=program,
        backend=gtx.gtfn_cpu,
        constant_args=static_scalars,
        offset_provider=grid.offset_provider,
    )
    call(**fields, **runtime_scalars)
    first_call_s = time.perf_counter() - compile_started
    for pname in outputs:
        arrays[f"out__{pname}"] = np.asarray(fields[pname].asnumpy()).copy()
    times = []
    for _ in range(args.calls):
        t = time.perf_counter()
        call(**fields, **runtime_scalars)
        times.append(time.perf_counter() - t)
    median = statistics.median(times)

    recorded = recorded_file(
        name,
        spec,
        grid,
        program,
        RecordedCall(args.levels, domain, described, outputs, arrays),
        "gtfn_cpu",
        seed_of(name, args.seed),
        ["gt4py", "icon4py-common"],
    )
    recorded["static_args"] = sorted(static_scalars)
    recorded["timing"] = {
        "threads": os.environ.get("OMP_NUM_THREADS"),
        "compile_s": max(first_call_s - median, 0.0),
        "median_ms": median * 1e3,
        "calls_ms": [t * 1e3 for t in times],
    }
    return recorded


@dataclasses.dataclass
class RecordedCall:
    """What one call of a program put in its file: levels, domain, parameters, outputs, arrays."""

    levels: int
    domain: dict
    described: list
    outputs: list
    arrays: dict


def recorded_file(name, spec, grid, program, call, backend, seed, packages) -> dict:
    """The contents of a refs-convention file (the sidecar's fields and `arrays`, the tables the
    program reads added): shared by this benchmark and `tools/icon4py/record_dycore.py`."""
    used = sorted(o for o in grid.tables if o in offsets_read(program))
    for offset in used:
        call.arrays[offset] = grid.tables[offset]
    return {
        "name": name,
        "stencil": name,
        "module": spec.module,
        "grid": grid.label,
        "grid_sizes": {
            "num_cells": grid.size("Cell"),
            "num_edges": grid.size("Edge"),
            "num_vertices": grid.size("Vertex"),
            "num_levels": call.levels,
        },
        "domain": call.domain,
        "offsets": {o: list(grid.tables[o].shape) for o in used},
        "outputs": call.outputs,
        "params": call.described,
        "backend": backend,
        "seed": seed,
        "versions": {
            **{package: version(package) for package in packages},
            "numpy": np.__version__,
            "python": sys.version.split()[0],
        },
        "arrays": call.arrays,
    }


def offsets_read(program) -> set[str]:
    """The offsets a program shifts by, from its GT4Py IR."""
    from gt4py import eve
    from gt4py.next.iterator import ir as itir

    literals = eve.walk_values(program.gtir).if_isinstance(itir.OffsetLiteral).getattr("value")
    return {str(v) for v in literals if isinstance(v, str)}


# ---------------------------------------------------------------------------------------------
# The report


def compare(got: np.ndarray, want: np.ndarray) -> float:
    """The largest difference relative to the largest magnitude of the expected output (the
    outputs hold values of very different sizes, some near zero, so an element's own relative
    error says little); a NaN on both sides is equal, on one side an infinite error."""
    both_nan = np.isnan(got) & np.isnan(want)
    if (np.isnan(got) ^ np.isnan(want)).any():
        return math.inf
    worst = float(np.where(both_nan, 0.0, np.abs(got - want)).max(initial=0.0))
    if worst == 0.0:
        return 0.0
    scale = float(np.abs(np.where(np.isnan(want), 0.0, want)).max(initial=0.0))
    return worst / scale if scale > 0 else math.inf


def check_outputs(path: pathlib.Path, arrays: dict, outputs: list[str]) -> dict:
    got = np.load(path)
    errors = {
        o: compare(got[o], arrays[f"out__{o}"]) if o in got.files else math.inf for o in outputs
    }
    return {"errors": errors, "worst": max(errors.values(), default=0.0)}


def load_json(path: pathlib.Path) -> dict | None:
    return json.loads(path.read_text()) if path.exists() else None


HEADER = (
    "program",
    "ICON4Py gtfn_cpu 1 thread ms",
    "gt4rs 1 thread ms",
    "gt4rs {threads} threads ms",
    "ratio 1 thread",
    "ratio {threads} threads",
    "ratio of the minima, 1 thread",
    "ICON4Py compile (or cache load) / gt4rs compile",
    "outputs",
)


def ms(value: float) -> str:
    """Three significant digits (two decimals above 10 ms), in µs below 0.01 ms."""
    if value < 0.01:
        return f"{value * 1e3:.3g} µs"
    return f"{value:.2f}" if value >= 10 else f"{value:.3g}"


def ratio(peer: float, ours: float) -> str:
    value = peer / ours
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def run_report(args: argparse.Namespace) -> int:
    """The table of one folder: ICON4Py's median, gt4rs's on one thread and on every core, the
    ratios (ICON4Py's time over gt4rs's; also of the fastest calls, which a loaded machine
    disturbs least), compile times and the check of the outputs."""
    folder = pathlib.Path(args.dir)
    names = args.programs or [p for p in program_names([]) if (folder / f"{p}.json").exists()]
    rows = []
    failures = 0
    threads = "all"
    rtol = None
    for name in names:
        icon = load_json(folder / f"{name}.json")
        if icon is None:
            rows.append((name, "not run", *[""] * (len(HEADER) - 2)))
            failures += 1
            continue
        one = load_json(folder / f"{name}.gt4rs-1.json")
        every = load_json(folder / f"{name}.gt4rs-all.json")
        check = load_json(folder / f"{name}.check.json")
        icon_ms = icon["timing"]["median_ms"]
        if one is None or every is None or check is None:
            error_file = folder / f"{name}.gt4rs-error.txt"
            why = error_file.read_text().strip() if error_file.exists() else "not run"
            rows.append((name, ms(icon_ms), *[""] * (len(HEADER) - 3), f"gt4rs: {why}"))
            failures += 1
            continue
        threads = every["threads"]
        rtol = check["rtol"]
        failures += not check["ok"]
        verdict = "equal" if check["worst"] == 0.0 else f"{check['worst']:.1e}"
        icon_min = min(icon["timing"]["calls_ms"])
        rows.append(
            (
                name,
                ms(icon_ms),
                ms(one["median_ms"]),
                ms(every["median_ms"]),
                ratio(icon_ms, one["median_ms"]),
                ratio(icon_ms, every["median_ms"]),
                ratio(icon_min, min(one["calls_ms"])),
                f"{icon['timing']['compile_s']:.1f} s / {one['compile_ms']:.2f} ms",
                verdict if check["ok"] else f"DIFFER: {verdict}",
            )
        )
    header = [h.format(threads=threads) for h in HEADER]
    if rtol is not None:
        header[-1] += f" (error ≤ {rtol:g})"
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]
    text = "\n".join(([args.title, ""] if args.title else []) + lines) + "\n"
    print(text, end="")
    (folder / "report.md").write_text(text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

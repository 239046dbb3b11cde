"""A selection of the ``ticks`` table against the whole table, from Python, on a generated
teehistorian file of a 64-player server (about 54 MB, 60,000 ticks: the recording the
Rust benchmarks generate, written here with ``demokit.TeehistorianRecorder`` and kept in
the temp directory for the next run).

Each round reads, in turn, the whole ``ticks`` table (``demokit.open(path,
tables=["ticks"]).ticks()``, the fastest way to it) and each selection (a new
``demokit.open`` every time, so nothing is cached). Printed for each selection: the whole
table's time over the selection's, the median of the rounds with their spread (min–max),
in wall-clock time and in CPU time (every thread's: the whole table is read on two
threads, one walking the file while the other fills the table).

    python python/benches/selection.py [ROUNDS] [FILE]

A ``FILE`` that does not exist is generated there (default: in the temp directory).
"""

import os
import random
import statistics
import sys
import tempfile
import time
from typing import Callable, Dict, List, Tuple

# pyarrow imports numpy, whose OpenBLAS threads spin for a while when they start: on a
# machine of two cores that takes a core from the two-threaded whole read. No BLAS here.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

import demokit  # noqa: E402

#: The generated server: players, ticks (about 900 bytes a tick).
PLAYERS = 64
TICKS = 60_000
#: The player selected: a client id and its name.
PLAYER = 3
NAME = f"tee {PLAYER}"


def generate(path: str, ticks: int = TICKS, players: int = PLAYERS, seed: int = 0x2545F491) -> None:
    """Records ``ticks`` ticks of a ``players``-player server into ``path`` (as the Rust
    benchmarks' generated recording: every client joins and is named ``tee N`` before the
    first tick; each tick client 0 stands at x = 1000 + tick, every other client is at a
    random place or, one time in 50, dead, and two clients in three send a new input)."""
    rng = random.Random(seed)
    r = rng.randrange
    header = {"version": "2", "map_name": "bench", "server_name": "demokit selection benchmark"}
    with demokit.TeehistorianRecorder(path, header, overwrite=True) as rec:
        for cid in range(players):
            rec.record_player_join(cid, 6 if cid % 2 == 0 else 7)
            rec.record_player_name(cid, f"tee {cid}")
        for tick in range(1, ticks + 1):
            rec.begin_tick(tick)
            rec.begin_players()
            rec.record_player(0, 1000 + tick, 500)
            for cid in range(1, players):
                if r(50) == 0:
                    rec.record_dead_player(cid)
                else:
                    rec.record_player(cid, r(4000), r(4000))
            rec.end_players()
            rec.begin_inputs()
            for cid in range(players):
                if r(3) == 0:
                    continue  # an unchanged input: nothing recorded
                jump, fire, hook = r(2), r(2), r(2)
                rec.record_player_input(
                    cid, 1 + cid, [r(3) - 1, r(2000) - 1000, r(2000) - 1000, jump, fire, hook, r(4), r(6), 0, 0]
                )
            rec.end_inputs()
            rec.end_tick()


def generated(path: str = "") -> str:
    """The generated file: ``path``, or one in the temp directory, written if missing
    (under a temporary name first, so an interrupted run leaves no half file)."""
    path = path or os.path.join(
        tempfile.gettempdir(), f"demokit-{demokit.__version__}-selection-{PLAYERS}x{TICKS}.teehistorian"
    )
    if not os.path.exists(path):
        print(f"generating {path} ...", file=sys.stderr)
        partial = f"{path}.{os.getpid()}.partial"
        generate(partial)
        os.replace(partial, path)
    return path


def whole(path: str) -> pa.Table:
    """The whole ``ticks`` table, read alone."""
    return demokit.open(path, tables=["ticks"]).ticks()


def cases(path: str) -> Dict[str, Callable[[], pa.Table]]:
    """The selections measured against the whole table, by the line they print."""
    first_tenth = range(1, 1 + TICKS // 10)
    return {
        "one player's x,y vs whole ticks": lambda: demokit.open(path).ticks(columns=["x", "y"], players=[PLAYER]),
        "one player's x,y by name vs whole ticks": lambda: demokit.open(path).ticks(
            columns=["x", "y"], players=[NAME]
        ),
        "first tenth of the ticks vs whole ticks": lambda: demokit.open(path).ticks(ticks=first_tenth),
        "one player's x,y in the first tenth vs whole ticks": lambda: demokit.open(path).ticks(
            columns=["x", "y"], players=[PLAYER], ticks=first_tenth
        ),
    }


def timed(call: Callable[[], pa.Table]) -> Tuple[float, float]:
    """Wall-clock and CPU seconds (every thread's) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def plain(table: pa.Table) -> pa.Table:
    """``table`` with its dictionary-encoded columns decoded: a selection's dictionaries
    hold only the values its rows use, so tables of the same rows compare equal only
    decoded."""
    fields = [
        pa.field(f.name, f.type.value_type, f.nullable, f.metadata) if pa.types.is_dictionary(f.type) else f
        for f in table.schema
    ]
    return table.cast(pa.schema(fields, table.schema.metadata))


def check(path: str) -> None:
    """The selections give the rows of the whole table filtered the same way."""
    table = whole(path)
    mine = table.filter(pc.equal(table["client_id"], PLAYER))
    assert demokit.open(path).ticks(columns=["x", "y"], players=[PLAYER]).equals(mine.select(["x", "y"]))
    assert plain(demokit.open(path).ticks(players=[NAME])).equals(plain(mine))
    early = table.filter(pc.less(table["tick"], 1 + TICKS // 10))
    assert plain(demokit.open(path).ticks(ticks=range(1, 1 + TICKS // 10))).equals(plain(early))


def spread(values: List[float]) -> str:
    return f"{statistics.median(values):.2f}× ({min(values):.2f}–{max(values):.2f})"


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    path = generated(sys.argv[2] if len(sys.argv) > 2 else "")
    check(path)
    rows = whole(path).num_rows
    print(f"file: {path}, {os.path.getsize(path) / 1e6:.1f} MB, {rows:,} ticks rows; {rounds} rounds")
    measured = cases(path)
    base: List[Tuple[float, float]] = []
    times: Dict[str, List[Tuple[float, float]]] = {label: [] for label in measured}
    for _ in range(rounds):
        # Each selection against the whole table read just before it.
        for label, call in measured.items():
            base.append(timed(lambda: whole(path)))
            times[label].append(timed(call))
    wall = statistics.median(b[0] for b in base)
    cpu = statistics.median(b[1] for b in base)
    print(f"whole ticks table: {wall:.3f} s wall, {cpu:.3f} s CPU (medians)")
    per_case = len(measured)
    for index, (label, got) in enumerate(times.items()):
        against = base[index::per_case]
        walls = [b[0] / g[0] for b, g in zip(against, got)]
        cpus = [b[1] / max(g[1], 1e-9) for b, g in zip(against, got)]
        print(f"{label}: {spread(walls)} wall, {spread(cpus)} CPU; {statistics.median(g[0] for g in got):.3f} s")


if __name__ == "__main__":
    main()

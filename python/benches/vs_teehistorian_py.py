"""demokit's Python package against teehistorian-py (PyPI), reading the same teehistorian
file: demokit to its ``ticks`` and ``inputs`` tables (every position of every player each
tick, every input: pyarrow tables; ``DEMOKIT_TABLES=ticks`` for the positions alone), teehistorian-py to every one of its messages as Python objects. Rounds
alternate the two; printed: each side's median time and the median and quartiles of the
per-round ratios.

    cargo run --release --example generated_teehistorian -- /tmp/generated.teehistorian
    pip install teehistorian-py          # AGPL-3.0: a peer to measure, not a dependency
    python python/benches/vs_teehistorian_py.py /tmp/generated.teehistorian [ROUNDS]
"""

import os
import statistics
import sys
import time

import demokit
import teehistorian_py

# The tables demokit fills: DEMOKIT_TABLES=ticks for the positions alone.
TABLES = os.environ.get("DEMOKIT_TABLES", "ticks,inputs").split(",")


def run_demokit(path):
    rec = demokit.open(path, tables=TABLES)
    return sum(getattr(rec, table)().num_rows for table in TABLES)


def run_peer(path):
    n = 0
    for _ in teehistorian_py.parse(path):
        n += 1
    return n


def main():
    path = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    size = len(open(path, "rb").read())
    print(f"file: {path}, {size / 1e6:.1f} MB")
    print(f"demokit rows ({' + '.join(TABLES)}): {run_demokit(path)}, teehistorian-py messages: {run_peer(path)}")
    ours, theirs, ratios = [], [], []
    for _ in range(rounds):
        t = time.perf_counter()
        run_demokit(path)
        a = time.perf_counter() - t
        t = time.perf_counter()
        run_peer(path)
        b = time.perf_counter() - t
        ours.append(a)
        theirs.append(b)
        ratios.append(b / a)
    q = statistics.quantiles(ratios, n=4)
    print(f"demokit.open(...) to its tables: median {statistics.median(ours):.3f} s ({size / 1e6 / statistics.median(ours):.0f} MB/s)")
    print(f"teehistorian-py to its messages: median {statistics.median(theirs):.3f} s ({size / 1e6 / statistics.median(theirs):.0f} MB/s)")
    print(f"ratio (teehistorian-py / demokit): median {statistics.median(ratios):.2f}x, quartiles {q[0]:.2f}-{q[2]:.2f}, {rounds} rounds")


if __name__ == "__main__":
    main()

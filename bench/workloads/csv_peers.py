"""One timed CSV read by a peer of frost/csv, in a fresh process so its thread count holds:

    python bench/workloads/csv_peers.py pyarrow|pandas|polars THREADS FILE

Prints `seconds S rows N`: the time of the read_csv call alone (the file is in the page cache).
pyarrow: pyarrow.csv.read_csv, newlines_in_values (fields hold line breaks), set_cpu_count and
set_io_thread_count THREADS; polars: polars.read_csv, POLARS_MAX_THREADS; pandas: read_csv with
the C engine, which has one thread whatever THREADS says."""
from __future__ import annotations

import os
import sys
import time


def main() -> None:
    lib, threads, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if lib == "polars":
        os.environ["POLARS_MAX_THREADS"] = str(threads)
        import polars as pl
        t = time.perf_counter()
        n = pl.read_csv(path).height
    elif lib == "pyarrow":
        import pyarrow as pa
        import pyarrow.csv as pc
        pa.set_cpu_count(threads)
        pa.set_io_thread_count(threads)
        t = time.perf_counter()
        n = pc.read_csv(path, read_options=pc.ReadOptions(use_threads=threads > 1),
                        parse_options=pc.ParseOptions(newlines_in_values=True)).num_rows
    elif lib == "pandas":
        import pandas as pd
        t = time.perf_counter()
        n = len(pd.read_csv(path, engine="c"))
    else:
        sys.exit(f"csv_peers: unknown library {lib!r}")
    print(f"seconds {time.perf_counter() - t:.6f} rows {n}")


if __name__ == "__main__":
    main()

"""`pinbench mine` on numpy over six consecutive minor versions: cold (environments built as
needed) and warm (environments built, outcome cache bypassed so the introspection really runs).

Usage: uv run python bench/mine.py [--python 3.9]
"""

from __future__ import annotations

import argparse
import time

from pinbench.execution.local import ExecutionService
from pinbench.mining.lifespans import mine

VERSIONS = ["1.20.3", "1.21.6", "1.22.4", "1.23.5", "1.24.4", "1.25.2"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", default="3.9")
    args = parser.parse_args()
    for label in ("first (environments built as needed)", "warm (environments built)"):
        service = ExecutionService(jobs=2, cache=False)
        started = time.perf_counter()
        mined = mine("numpy", VERSIONS, service, python=args.python, jobs=2)
        seconds = time.perf_counter() - started
        service.close()
        sizes = ", ".join(f"{s.version}: {len(s.api)}" for s in mined.snapshots)
        errors = [f"{s.version}: {s.error}" for s in mined.snapshots if s.error]
        print(f"{label}: {seconds:.1f} s; APIs {sizes}; {len(mined.changes)} changes")
        if errors:
            print("errors:", errors)


if __name__ == "__main__":
    main()

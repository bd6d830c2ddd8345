"""Time VersiCode's string metrics on 100 000 samples: 1 000 references x 100 sampled answers,
half of them line-level (core-token gate, no grammar gate), half block-level (6-14 lines, core
token and grammar gates, as VersiCode's block and editing scripts score them).

References are chunks of the running interpreter's standard library that compile; answers are
the reference put through 0-3 edits a model's samples show: an identifier renamed, the core API
swapped for another, a line dropped or repeated, a comment or blank lines added, the tail cut
off, the block indented, a stray fence. Everything is seeded, so every run scores the same data.
Each timed run is a fresh process, so no cache carries over from the previous one. Repeated
answers are scored once; --distinct appends a numbered comment to every answer, the worst case.

Usage: uv run python bench/versicode_metrics.py [--runs 3] [--references 1000] [--samples 100]
                                                [--distinct]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from pinbench.tasks.versicode.metrics import Variant, identifiers, score_samples

KS = (1, 3, 10)
NAME = re.compile(r"[A-Za-z_]\w*")


def references(count: int, seed: int) -> list[tuple[str, str, bool]]:
    """(reference, core token, is a block), half lines, half blocks, all compiling."""
    rng = random.Random(seed)
    files = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    found: list[tuple[str, str, bool]] = []
    while len(found) < count:
        lines = rng.choice(files).read_text(encoding="utf-8", errors="replace").split("\n")
        block = len(found) % 2 == 1
        start = rng.randrange(len(lines))
        chunk = lines[start : start + rng.randint(6, 14)] if block else lines[start : start + 1]
        code = "\n".join(chunk)
        names = [n for n in identifiers(code) if len(n) > 3 and not n.startswith("__")]
        if not names or (block and len(chunk) < 6) or chunk[0].startswith((" ", "\t")):
            continue
        try:
            compile(code, "<reference>", "exec")
        except SyntaxError:
            continue
        found.append((code, rng.choice(names), block))
    return found


def sample(reference: str, core: str, rng: random.Random) -> str:
    """The reference after 0-3 random edits."""
    code = reference
    for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
        edit = rng.randrange(8)
        lines = code.split("\n")
        if edit == 0:
            names = NAME.findall(code)
            if names:
                name = rng.choice(names)
                code = code.replace(name, name + rng.choice(("_v2", "s", "Impl")), 1)
        elif edit == 1:
            code = code.replace(core, rng.choice(("legacy_", "new_", "")) + core[::-1], 1)
        elif edit == 2 and len(lines) > 1:
            del lines[rng.randrange(len(lines))]
            code = "\n".join(lines)
        elif edit == 3:
            index = rng.randrange(len(lines))
            lines.insert(index, lines[index])
            code = "\n".join(lines)
        elif edit == 4:
            code = f"# uses {core}\n{code}\n"
        elif edit == 5:
            code = code[: rng.randrange(len(code) + 1)]
        elif edit == 6:
            code = "\n".join("    " + line for line in lines)
        else:
            code = f"```\n{code}" if rng.random() < 0.5 else f"\n\n{code}  \n"
    return code


def workload(
    count: int, samples: int, seed: int, distinct: bool
) -> list[tuple[list[str], str, str, bool]]:
    rng = random.Random(seed + 1)
    work = []
    for reference, core, block in references(count, seed):
        answers = [sample(reference, core, rng) for _ in range(samples)]
        if distinct:
            answers = [f"{answer}\n# sample {index}" for index, answer in enumerate(answers)]
        work.append((answers, reference, core, block))
    return work


def child(variant: Variant, count: int, samples: int, seed: int, distinct: bool) -> None:
    """One timed run: build the workload, then score it; print seconds and a checksum."""
    work = workload(count, samples, seed, distinct)
    started = time.perf_counter()
    total = 0.0
    for answers, reference, core, block in work:
        scores = score_samples(
            answers, reference, KS, variant, core_token=core, verify_grammar=block
        )
        total += sum(scores["at_k"]["ism"].values()) + sum(scores["at_k"]["pm"].values())
    elapsed = time.perf_counter() - started
    distinct = sum(len(set(answers)) for answers, *_ in work)
    print(f"{elapsed:.3f} {total:.6f} {distinct}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--references", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--distinct", action="store_true", help="no two answers equal")
    parser.add_argument("--child", choices=[v.value for v in Variant])
    args = parser.parse_args()
    if args.child:
        child(Variant(args.child), args.references, args.samples, args.seed, args.distinct)
        return
    n = args.references * args.samples
    for variant in Variant:
        times = []
        for _ in range(args.runs):
            command = [sys.executable, __file__, "--child", variant.value]
            command += ["--references", str(args.references), "--samples", str(args.samples)]
            command += ["--seed", str(args.seed)] + (["--distinct"] if args.distinct else [])
            output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            elapsed, checksum, distinct = output.split()
            times.append(float(elapsed))
        print(
            f"{variant.value:9} {n} samples ({distinct} distinct), ks={list(KS)}: "
            f"median {statistics.median(times):.2f} s of {args.runs} runs "
            f"({', '.join(f'{t:.2f}' for t in times)}), {n / statistics.median(times):,.0f} "
            f"samples/s, checksum {checksum}"
        )


if __name__ == "__main__":
    main()

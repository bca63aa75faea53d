"""The read targets that one run leaves close to their bound, measured in several runs of their own.

``python -m bench.again [--runs 3] [--write-docs]`` (after ``make bench``, which builds the
kept data sets): bench/run.py's full measurement (its rounds, durations, connections and
gunicorn workers, the references taken in turn) of the ledger page and the message list
against the stock DRF peer and their limits, and of the token endpoint against stock
django-oauth-toolkit, RUNS times, one run after another. A target counts as met when it is
met in most runs. With ``--write-docs`` each run's figures replace the section "Reads run
again" of docs/performance.md.
"""

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench import docs, report, servers
from bench import run as bench_run

CASES = ("ledger", "messages")
TARGETS = (
    "GET /v1/balance_transactions?limit=10 / its limit",
    "GET /v1/balance_transactions?limit=10 / stock DRF peer",
    "GET /v1/messages?limit=10 / stock DRF peer",
    "GET /v1/messages?limit=10 / its limit",
    "code exchange / stock django-oauth-toolkit",
    "refresh / stock django-oauth-toolkit",
)


def one_run(n: int) -> dict[str, tuple[str, float, bool]]:
    # bench/run.py's own arguments, as `make bench` gives them, for these cases; memory is
    # measured by the full run, not here.
    sys.argv = ["bench.run", "--cases", ",".join(CASES), "--memory-requests", "2000"]
    args = bench_run.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix=f"bench-again-{n}-"))
    try:
        measured = bench_run.Bench(args, workdir).run()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {name: (bound, value, met) for name, bound, value, _b, met, _why in report.targets(measured)}


def section(runs: list[dict[str, tuple[str, float, bool]]], minutes: float) -> str:
    """The section: each target's figure in every run, and whether most runs met it."""
    rows = []
    for name in TARGETS:
        figures = [run[name] for run in runs if name in run]
        if not figures:
            continue
        met = sum(1 for _bound, _value, ok in figures if ok)
        cells = " | ".join(f"{value:.2f}{'' if ok else ' (no)'}" for _bound, value, ok in figures)
        verdict = "yes" if met * 2 > len(figures) else "NO"
        rows.append(f"| {name} | {figures[0][0]} | {cells} | {met} of {len(figures)}: {verdict} |")
    heads = " | ".join(f"run {n}" for n in range(1, len(runs) + 1))
    return (
        "## Reads run again\n\n"
        f"From `python -m bench.again --write-docs` (bench/again.py): {len(runs)} runs one after another "
        f"({minutes:.0f} minutes in all), each bench/run.py's full measurement (the rounds, durations, "
        "connections and workers above, each case in turn with its references) of the ledger page and "
        "the message list, and of the token endpoint against stock django-oauth-toolkit. A target is met "
        "when it is met in most runs.\n\n"
        f"| target | bound | {heads} | met |\n|---|---:|{'---:|' * len(runs)}---|\n" + "\n".join(rows) + "\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true")
    arguments = parser.parse_args()
    if servers.ports_in_use():
        print("a benchmark's ports are in use: another benchmark is running", file=sys.stderr)
        return 2
    runs, started = [], time.monotonic()
    for n in range(1, arguments.runs + 1):
        runs.append(one_run(n))
        print(f"run {n}: " + "; ".join(f"{name} {runs[-1][name][1]:.2f}" for name in TARGETS if name in runs[-1]))
    text = section(runs, (time.monotonic() - started) / 60)
    print(text)
    if arguments.write_docs:
        docs.replace_section("Reads run again", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

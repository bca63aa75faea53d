"""The token endpoint against stock django-oauth-toolkit: exchanges a second, in turn, and statements each."""

import json
import subprocess
from pathlib import Path

from bench.measure import Result, Server, report_line, run_round
from bench.servers import PORTS, PY, ROOT, django_run, peer_env

KINDS = (
    ("refresh", "refresh", "POST /oauth/token refresh_token"),
    ("code", "codes", "POST /oauth/token authorization_code"),
)


def token_rounds(args, workdir: Path, env: dict, ours: Server, dot: Server) -> dict:
    """Refresh and code exchanges, ours and stock DOT's in turn. Refresh tokens and codes are
    single use (codes live 60 s): a fresh set is minted for both right before each round."""
    per_round = int(max(2000, 600 * args.duration))
    tokens = {}
    for key, kind, name in KINDS:
        mine, theirs = Result(name), Result(f"{name}, stock django-oauth-toolkit")
        for number in range(args.rounds):
            django_run("bench.setup_data", kind, per_round, workdir / "ours", env=env)
            django_run("bench.dot_peer.setup_data", kind, per_round, workdir / "dot", env=peer_env(env["DATABASE_URL"]))
            pair = [(mine, workdir / "ours" / f"{kind}.lines", ours), (theirs, workdir / "dot" / f"{kind}.lines", dot)]
            for result, path, server in pair if number % 2 == 0 else reversed(pair):
                run_round(result, path, server, args)
        tokens[key] = (mine, theirs)
        print(report_line(mine), flush=True)
        print(report_line(theirs), flush=True)
    return tokens


def count_statements(args, workdir: Path, env: dict) -> dict:
    """SQL statements per exchange, ours and the peer's, each replayed in-process (bench/statements.py)."""
    counted = {}
    n = args.statement_samples + 1
    for side, module, side_env, port in (
        ("ours", "bench.setup_data", env, PORTS["large"]),
        ("dot", "bench.dot_peer.setup_data", peer_env(env["DATABASE_URL"]), PORTS["dot"]),
    ):
        out = workdir / f"statements-{side}"
        for key, kind, _ in KINDS:
            django_run(module, kind, n, out, env=side_env)
            answer = subprocess.run(
                [PY, "-m", "bench.statements", str(out / f"{kind}.lines"), str(args.statement_samples)],
                cwd=ROOT,
                env={**side_env, "BENCH_PORT": str(port)},
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            counted[(side, key)] = json.loads(answer.strip().splitlines()[-1])
    return counted

"""bench/report.py: ratios, growth, targets met or not, from a synthetic run."""

from types import SimpleNamespace

from bench.cases import CASES
from bench.docs import LAST_SECTION, merged
from bench.measure import Result
from bench.memory import Reading, WorkerMemory
from bench.report import BOUNDS, TRIED, Run, growth, render, targets


def result(name, rps, p99=5.0):
    return Result(name, rps=list(rps), p50=[2.0] * len(rps), p99=[p99] * len(rps), errors=[0] * len(rps))


def synthetic_run(*, large_factor=1.0, memory_growth=0.2, server_factor=1.0):
    floor = [1000.0, 1000.0, 1000.0]
    results, references = {}, {"calibration": result("cal ref", floor)}
    for case in CASES:
        references[case.key] = result(f"ref {case.key}", floor)
        results[(case.key, "small")] = result(case.key, [700.0, 700.0, 700.0])
        results[(case.key, "large")] = result(case.key, [700.0 * large_factor] * 3)
    memory = WorkerMemory("service, large data set")
    memory.readings = [
        Reading(1000, {1: 120.0}),
        Reading(100_000, {1: 123.0}),
        Reading(150_000, {1: 123.0 + memory_growth}),
    ]
    tokens = {"refresh": (result("ours", [300.0] * 3), result("stock", [100.0] * 3))}
    statements = {
        ("ours", "refresh"): {"median_wire": 5, "median_django": 4, "sample": ["SELECT 1"]},
        ("dot", "refresh"): {"median_wire": 19, "median_django": 18, "sample": ["SELECT 1"]},
    }
    fixture = {"users": 10, "size": {"deck": 1, "ledger": 1, "calls": 1, "contacts": 1}}
    readers = [case for case in CASES if case.references]
    return Run(
        drf={case.key: result(f"drf {case.key}", [250.0] * 3) for case in readers},
        limits={case.key: result(f"limit {case.key}", floor) for case in readers},
        beside={case.key: result(f"beside {case.key}", [700.0] * 3) for case in CASES if case.beside},
        read_statements={("ours", "calls"): {"median_wire": 1, "median_django": 1}},
        args=SimpleNamespace(statement_samples=20),
        cases=list(CASES),
        results=results,
        references=references,
        floor=result("floor", floor * 3),
        peer=result("peer", floor),
        calibration=result("calibration", [800.0] * 3),
        noise=0.05,
        server_floors=(result("floor small", [1000.0] * 3), result("floor large", [1000.0 * server_factor] * 3)),
        tokens=tokens,
        statements=statements,
        memory={"large": memory},
        sizes={"small": fixture, "large": fixture},
        timings={"total": 60.0},
    )


def met(run) -> dict[str, bool]:
    return {name: ok for name, _, _, _, ok, _ in targets(run)}


def test_ratios_against_the_reference_and_the_calibration():
    found = met(synthetic_run())
    assert found["GET /v1/me, API key / stock DRF peer"] is True  # 700 / 250 >= 2.5
    assert found["GET /v1/me, API key / its limit"] is True  # 700 / 1000 >= 0.6
    assert found["GET /v1/calls?limit=10 / stock DRF peer"] is True
    assert found["/mcp svc_whoami / GET /v1/me (OAuth), in turn"] is True  # 700 / 700 >= 0.9
    assert found["refresh / stock django-oauth-toolkit"] is True  # 3x
    assert found["refresh statements / stock's"] is True  # 5 / 19


def test_growth_is_judged_against_the_runs_noise():
    assert growth(synthetic_run(large_factor=0.97), "ledger") == 0.97
    assert all(ok for name, ok in met(synthetic_run(large_factor=0.97)).items() if "10x data" in name)
    assert not any(ok for name, ok in met(synthetic_run(large_factor=0.9)).items() if "10x data" in name)


def test_growth_is_corrected_by_the_two_services_own_difference():
    run = synthetic_run(large_factor=0.9, server_factor=0.9)
    assert growth(run, "ledger", corrected=False) == 0.9
    assert growth(run, "ledger") == 1.0
    assert all(ok for name, ok in met(run).items() if "10x data" in name)


def test_a_worker_still_growing_over_the_last_requests_is_not_met():
    assert met(synthetic_run(memory_growth=0.2))["worker growth over the last 50,000 requests, MB (large set)"]
    assert not met(synthetic_run(memory_growth=3.0))["worker growth over the last 50,000 requests, MB (large set)"]


def test_the_report_names_what_bounds_each_unmet_target():
    run = synthetic_run(large_factor=0.9)
    run.beside["mcp"] = result("GET /v1/me, OAuth (large)", [1000.0] * 3)
    text = render(run)
    assert "| /mcp svc_whoami / GET /v1/me (OAuth), in turn | >= 0.90 | 0.63 | NO |" in text
    assert "What bounds the targets not met:" in text
    assert f"- {BOUNDS['mcp']} {TRIED['mcp']}" in text
    assert f"- {BOUNDS['growth']}" in text
    assert f"- {BOUNDS['memory']}" not in text  # met: no prose
    assert TRIED["memory"] not in text
    assert set(TRIED) == set(BOUNDS)


def test_a_new_report_keeps_the_sections_the_other_steps_wrote_and_replaces_its_own():
    before = (
        "# Performance\n\nold header\n\n## Read cases\n\nold rows\n\n## The five reads against a peer\n\nold\n\n"
        f"## {LAST_SECTION}\n\nold footer\n\n## Webhook deliveries\n\nwebhooks\n\n## Beyond one machine\n\nnodes\n"
    )
    written = f"# Performance\n\nnew header\n\n## Read cases\n\nnew rows\n\n## {LAST_SECTION}\n\nnew footer\n"
    text = merged(written, before)
    assert text == written + "\n## Webhook deliveries\n\nwebhooks\n\n## Beyond one machine\n\nnodes\n"
    assert merged(written, "") == written


def test_every_case_names_what_bounds_it_and_what_was_tried():
    assert all(case.bounds in BOUNDS and case.bounds in TRIED for case in CASES)

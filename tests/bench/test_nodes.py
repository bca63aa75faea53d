"""bench/nodes.py: one Redis against the Cluster and one node against two, figures as the report shows them."""

from argparse import Namespace

from bench import docs, nodes

WRK_OUTPUT = """Running 5s test @ http://127.0.0.1:8112
  Latency Distribution
     50%    2.00ms
     99%    {p99}ms
  {total} requests in 5.00s, 1.00MB read
Requests/sec:   {rps}
"""


def bench_with(monkeypatch, tmp_path, rps_by_port: dict[int, int]):
    bench = nodes.NodesBench(Namespace(rounds=1, duration=5, connections=8, threads=2), tmp_path)
    bench.files = {case: tmp_path / case for case in nodes.CASES}

    def fake_wrk(lines, server, **_):
        rps = rps_by_port[server.port]
        return WRK_OUTPUT.format(total=rps * 5, rps=rps, p99=server.port - 8100)

    monkeypatch.setattr(nodes, "wrk", fake_wrk)
    return bench


def test_the_pair_is_the_sum_of_both_nodes_and_its_p99_the_worse(monkeypatch, tmp_path):
    bench = bench_with(monkeypatch, tmp_path, {8111: 1000, 8112: 800, 8113: 700})
    for entry in nodes.ENTRIES:
        bench.round_on("me_key", entry)
    assert bench.rps[("me_key", "one")] == [1000]
    assert bench.rps[("me_key", "pair")] == [1500]
    assert bench.p99[("me_key", "pair")] == [13.0]


def test_rows_hold_cluster_over_one_and_pair_over_one_node(monkeypatch, tmp_path):
    bench = bench_with(monkeypatch, tmp_path, {8111: 1000, 8112: 800, 8113: 800})
    for case in nodes.CASES:
        for entry in nodes.ENTRIES:
            bench.round_on(case, entry)
        bench.round_trips[(case, "one")] = 1.0
        bench.round_trips[(case, "cluster")] = 2.0
    rows = bench.rows()
    assert rows[0].startswith("| GET /v1/me, API key | one node, one Redis | 1000 |")
    assert "| 0.80 |  | 2.00 |" in rows[1]
    assert rows[2].endswith("|  | 2.00 | 2.00 |")


def test_a_section_is_replaced_in_place_or_added_at_the_end(tmp_path):
    page = tmp_path / "performance.md"
    page.write_text("# Performance\n\n## A\n\nold\n\n## B\n\nkept\n")
    docs.replace_section("A", "## A\n\nnew\n", page)
    docs.replace_section("C", "## C\n\nadded\n", page)
    assert page.read_text() == "# Performance\n\n## A\n\nnew\n\n## B\n\nkept\n\n## C\n\nadded\n"

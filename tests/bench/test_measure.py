"""The benchmark's own arithmetic (bench/measure.py, bench/cases.py, bench/statements.py): no server needed."""

import pytest

from bench.cases import interleave
from bench.measure import Floor, collected, parse_wrk
from bench.statements import environ, statements

WRK_OUTPUT = """Running 2s test @ http://127.0.0.1:8101
  2 threads and 8 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.01ms    1.20ms  20.00ms   80.00%
  Latency Distribution
     50%    2.50ms
     75%    3.10ms
     90%    4.00ms
     99%  850.00us
  4000 requests in 2.00s, 1.20MB read
  Socket errors: connect 0, read 1, write 0, timeout 2
  Non-2xx or 3xx responses: 7
Requests/sec:   2000.00
"""


def test_parse_wrk_counts_only_successful_requests():
    rps, p50, p99, errors, total = parse_wrk(WRK_OUTPUT)
    assert total == 4000
    assert errors == 10  # 7 non-2xx + 3 socket errors
    assert rps == pytest.approx((4000 - 10) / 2.0)
    assert p50 == 2.5
    assert p99 == 0.85  # microseconds read as milliseconds


def test_parse_wrk_reads_a_run_of_minutes():
    output = WRK_OUTPUT.replace("4000 requests in 2.00s", "60000 requests in 1.00m")
    rps, *_ = parse_wrk(output)
    assert rps == pytest.approx((60000 - 10) / 60.0)


def test_noise_is_the_90th_percentile_of_consecutive_floor_changes():
    floor = Floor([1000, 1100, 1000, 1000, 900, 1000, 1000, 1000, 1000, 1000, 1000])
    # Changes: 0.10, 0.0909, 0, 0.10, 0.111, 0, 0, 0, 0, 0 -> sorted, the 90th percentile of ten
    assert floor.noise() == pytest.approx(0.10)
    assert Floor([1000]).noise() == 0.0


def test_interleave_gives_every_list_an_equal_share():
    mixed = interleave([["a1", "a2", "a3", "a4"], ["b1"], []])
    assert mixed == ["a1", "b1", "a2", "b1", "a3", "b1", "a4", "b1"]


def test_environ_splits_path_query_and_headers():
    env = environ(
        "POST\t/oauth/token?x=1\tContent-Type: application/x-www-form-urlencoded|X-Forwarded-For: 198.18.0.1\ta=b"
    )
    assert (env["PATH_INFO"], env["QUERY_STRING"]) == ("/oauth/token", "x=1")
    assert env["CONTENT_TYPE"] == "application/x-www-form-urlencoded"
    assert env["HTTP_X_FORWARDED_FOR"] == "198.18.0.1"
    assert env["wsgi.input"].read() == b"a=b" and env["CONTENT_LENGTH"] == "3"


def test_statements_read_simple_and_extended_protocol_from_a_libpq_trace():
    trace = "\n".join(
        [
            'F\t10\tQuery\t "BEGIN"',
            "B\t5\tReadyForQuery\t T",
            'F\t33\tParse\t "" "select 1 where 1 = $1" 1 NNNN',
            'F\t22\tBind\t "" "" 1 1 1 2 \'\\x00\\x01\' 1 0',
            'F\t9\tExecute\t "" 0',
            "F\t4\tSync",
            'F\t11\tQuery\t "COMMIT"',
        ]
    )
    assert statements(trace) == ["BEGIN", "select 1 where 1 = $1", "COMMIT"]


def test_statements_name_a_prepared_statement_each_time_it_is_bound():
    trace = "\n".join(
        [
            'F\t40\tParse\t "_pg3_0" "select 2 where 2 = $1" 1 NNNN',
            "F\t4\tSync",
            'F\t22\tBind\t "" "_pg3_0" 1 1 1 2 \'\\x00\\x01\' 1 0',
            'F\t9\tExecute\t "" 0',
            'F\t33\tParse\t "" "select 1 where 1 = $1" 1 NNNN',
            'F\t22\tBind\t "" "" 1 1 1 2 \'\\x00\\x01\' 1 0',
            'F\t9\tExecute\t "" 0',
            'F\t22\tBind\t "" "_pg3_0" 1 1 1 2 \'\\x00\\x02\' 1 0',
            'F\t9\tExecute\t "" 0',
        ]
    )
    assert statements(trace) == ["select 2 where 2 = $1", "select 1 where 1 = $1", "select 2 where 2 = $1"]


def test_a_port_in_use_is_found(monkeypatch):
    import socket

    from bench import servers

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        monkeypatch.setattr(servers, "PORTS", {"taken": port})
        assert servers.ports_in_use() == [port]
    assert servers.ports_in_use() == []


CALLGRIND_SUMMARY = """==8569== Callgrind, a call-graph generating cache profiler
==8569== For interactive control, run 'callgrind_control -h'.
==8569== Events    : Ir
==8569== Collected : 271357157
==8569==
==8569== I   refs:      271,357,157
"""


def test_collected_reads_callgrinds_closing_summary():
    assert collected(CALLGRIND_SUMMARY) == 271357157


def test_collected_is_zero_when_valgrind_reported_nothing():
    # Not a count of zero instructions: the caller refuses it as "counted nothing".
    assert collected("valgrind: Bad option: --toggle-collect\n") == 0
    assert collected("Collected : 5 (not valgrind's own line)\n") == 0

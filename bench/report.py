"""The report of one run: tables, ratios, targets met or not, and docs/performance.md."""

import statistics
from dataclasses import dataclass, field

from bench.measure import Result

# A worker may grow this much between the last two readings without counting as growing:
# the allocator's arenas and CPython's free lists move by a few hundred KB either way.
MEMORY_SLACK_MB = 1.0


@dataclass
class Run:
    args: object
    cases: list
    results: dict
    references: dict
    floor: Result
    peer: Result
    calibration: Result
    noise: float
    server_floors: tuple  # the floor on the small set's service and on the large set's, in turn
    tokens: dict
    statements: dict
    memory: dict
    sizes: dict
    timings: dict
    drf: dict = field(default_factory=dict)  # case key: the stock DRF peer's rounds (bench/drf_peer/)
    limits: dict = field(default_factory=dict)  # case key: its limit's rounds (bench/limits.py)
    beside: dict = field(default_factory=dict)  # /mcp case key: the /v1 case held to it, in turn
    read_statements: dict = field(default_factory=dict)  # (ours|drf, case key): bench/statements.py


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def case_ratio(run: Run, key: str, size: str = "large", attr: str = "median_rps") -> float:
    return _ratio(getattr(run.results[(key, size)], attr), getattr(run.references[key], attr))


def _per_round(small: Result, large: Result) -> float:
    ratios = [_ratio(b, a) for a, b in zip(small.rps, large.rps, strict=False) if a]
    return statistics.median(ratios) if ratios else 0.0


def server_bias(run: Run) -> float:
    """The large set's service over the small set's on identical work (the floor), round by round."""
    small, large = run.server_floors
    return _per_round(small, large) or 1.0


def growth(run: Run, key: str, *, corrected: bool = True) -> float:
    """Large over small, round by round (each pair seconds apart), median; corrected by the two
    services' own difference on identical work."""
    raw = _per_round(run.results[(key, "small")], run.results[(key, "large")])
    return raw / server_bias(run) if corrected else raw


def calibration_ratio(run: Run) -> float:
    return _ratio(run.calibration.median_rps, run.references["calibration"].median_rps)


def over_peer(run: Run, key: str, attr: str = "median_rps") -> float:
    """Ours on the large set over the stock DRF peer, rounds taken in turn."""
    return _ratio(getattr(run.results[(key, "large")], attr), getattr(run.drf[key], attr))


def over_limit(run: Run, key: str, attr: str = "median_rps") -> float:
    """Ours on the large set over the read's limit (for /v1/me the calibration row), rounds in turn."""
    return _ratio(getattr(run.results[(key, "large")], attr), getattr(run.limits[key], attr))


def beside_ratio(run: Run, key: str) -> float:
    return _ratio(run.results[(key, "large")].median_rps, run.beside[key].median_rps)


# What bounds each target when it is not met (shown only then), and what was tried for it below.
BOUNDS = {
    "me": (
        "GET /v1/me: every request makes one Redis round trip (the credential cache lookup and every "
        "budget in one EVALSHA) that the floor does not; on two cores shared by wrk, the workers, Redis "
        "and PostgreSQL the calibration row shows what that round trip alone costs. The rest is the "
        "credential check, the answer and the headers of docs/spec.md 8 (bench/NOTES.md has the "
        "breakdown)."
    ),
    "me_p99": (
        "GET /v1/me's tail: a worker waiting on Redis is descheduled while five workers, wrk, Redis and "
        "PostgreSQL share two cores."
    ),
    "mcp": (
        "/mcp: each call is authenticated and rate-limited (the credential lookup's round trip) and "
        "goes through Django's request cycle, as GET /v1/me does; beyond it a call reads a POST body, "
        "parses JSON-RPC, checks its arguments and its result against the tool's schemas, and writes "
        "the result twice (structuredContent and its text) in a larger answer: 1.51 million worker "
        "instructions per svc_whoami against 1.35 million per GET /v1/me (bench.profile --instructions). "
        "The SDK peer's whoami authenticates and limits nothing. svc_list_calls also reads and "
        "serializes a page of calls (the pages' bound below) and formats each amount and its sentence."
    ),
    "phase2": (
        "The pages (rates, ledger, calls, contacts): each is one or two indexed statements on a cached "
        "credential, compiled once per process (apps/core/sql.py), prepared on the server (PostgreSQL "
        "neither parses nor, but for a contact search, plans it again) and answered on the /v1 fast path, so "
        "neither the database nor the ORM's compiling is the bound; the worker's CPU for the rest is: "
        "making the rows' model instances and parsing their timestamps (Django's Python loader), the "
        "serializer and the JSON, and each statement's round trip, on two cores shared with wrk, Redis "
        "and PostgreSQL (bench/NOTES.md has the in-process profile)."
    ),
    "messages": (
        "The message list: every read that returns messages writes and commits an audit row for each "
        "number it read, and waits for that commit's write-ahead-log flush; the stock peer writes and "
        "waits for the same rows, so the shared cost narrows the ratio to the peer. Beyond its page "
        "and that write, ours makes a second Redis round trip (each number read spends its own budget, "
        "10 a minute, known only once the page is read), which the peer, with no per-number budget in "
        "DRF's throttles, does not make, and the limit neither."
    ),
    "tokens": (
        "The token endpoint: an exchange is CPU-bound on two cores: the worker's Python (oauthlib's "
        "request checks, the write statement's parameters), PostgreSQL's commit, and the limiter's round "
        "trips that docs/spec.md 8.3 requires (flood guard before any work, family budget, success "
        "alert)."
    ),
    "growth": (
        "Growth: a case measured slower on the large set by more than the noise. The pages read an "
        "account's newest rows by a range scan of one index, which ten times the rows deepens by at most "
        "a level, and the credential cache answers in one Redis call however many credentials it holds; "
        "a real slowdown would show in every run, a noisy round in one."
    ),
    "memory": (
        "Memory: a worker still growing over the last readings. Workers settle after a few thousand "
        "requests each (bounded per-process caches filling, bench/NOTES.md); growth that continues "
        "past that is a leak."
    ),
}


# What was tried for each bound, kept and not (details and figures: bench/NOTES.md).
TRIED = {
    "me": (
        "Tried and kept: the credential cache answering the lookup and every budget in one EVALSHA (no SQL on a "
        "hit), limiter scripts over a held connection, no browser middleware without a session cookie, "
        "the fast path outside DRF's request cycle, fewer URL levels, ids from one CSPRNG read, "
        "(2 x cores) + 1 workers, the loaded heap frozen out of the collector. Measured and not kept: a raw-socket "
        "Redis client (about 10 us), a lookup script reading its fields by pattern and its budgets by one "
        "MGET (36.0 us inside Redis against 36.5), a higher collector threshold (instructions unchanged). "
        "An API key and an OAuth token do the same work once warm: no statement and one EVALSHA each."
    ),
    "me_p99": (
        "Measured and not kept: two workers instead of five: the floor's own p99 halved (about 5 ms "
        "against 7-11) while /v1/me's stayed at 8-17 ms, and /v1/me lost 5-25 % of its throughput."
    ),
    "mcp": (
        "Tried and kept: tool schemas compiled into a yes/no check, results written as the dicts the SDK dumps, "
        "bounded caches for phonenumbers' and babel's answers, the credential cache and held connection "
        "of /v1/me; a handshake-era tools/call of the SDKs' shape answered without the SDK's four model "
        "validations (tests hold both paths to the same bytes), headers read one at a time from the "
        "environ, the reply written by the standard encoder (1.79 to 1.51 million instructions). "
        "Not done: the CORS middleware's signal for /mcp (django-cors-headers' hook; a few microseconds)."
    ),
    "phase2": (
        "Tried and kept: statements compiled once per process and prepared on the server, no health-check round "
        "trip on an idle socket, every read on the fast path, a contact's numbers as a plain list. "
        "Measured and not done: model instances made without Model.__init__ and psycopg's C timestamp "
        "loader (about a tenth of a page each, but each steps round Django's own construction), a "
        "contact's numbers inside the page's statement as a JSON aggregate. Not done: a per-process "
        "copy of the rate deck (the lookup is one indexed statement by design, and a copy in each "
        "worker would lag an import)."
    ),
    "messages": (
        "Tried and kept: the page, both sharing switches and the window in one statement, compiled once per "
        "process; every number's budget in one EVALSHA; the audit rows of a page one statement on their own "
        "(a data-modifying WITH, atomic without a transaction), where Django's bulk_create sent BEGIN, the "
        "INSERT and COMMIT (438 to 552 a second in a trial, 1.92 to 2.42 of the peer)."
    ),
    "tokens": (
        "Tried and kept: the token row read once with its client and user, a refresh's writes as one WITH statement "
        "(4 statements on the wire against stock's 19), a code redeemed by the statement that writes its "
        "tokens (2 against 16), unused pattern indexes dropped. Measured and not kept: prepared statements for every "
        "token statement, skipping the session middleware, eight workers, synchronous_commit off (none "
        "moved the figure: two cores of CPU are the bound)."
    ),
    "growth": (
        "Tried and kept: each page reads an account's newest rows by a range scan of one index; the credential cache "
        "answers in one Redis call however many credentials it holds."
    ),
    "memory": "Tried and kept: bounded per-process caches (1,024 entries) for the MCP tools' formatting.",
}


def targets(run: Run) -> list[tuple[str, str, float, float, bool, str]]:
    """(name, how measured, value, bound, met, bounds key): lower bounds, or upper bounds where noted."""
    out = []
    keys = {case.key for case in run.cases}

    def add(name, value, bound, *, upper=False, why=""):
        met = value <= bound if upper else value >= bound
        out.append((name, f"{'<=' if upper else '>='} {bound:.2f}", value, bound, met, why))

    # The reads against their two references, rounds taken in turn (large set).
    for case in run.cases:
        if case.key in run.drf:
            add(f"{case.name} / stock DRF peer", over_peer(run, case.key), 2.5, why=case.bounds)
            add(f"{case.name} / its limit", over_limit(run, case.key), 0.6, why=case.bounds)
    for key in ("me_key", "me_oauth"):
        if key in keys:
            add(f"GET /v1/me ({'API key' if key == 'me_key' else 'OAuth'}) p99 / floor p99",
                case_ratio(run, key, attr="median_p99"), 1.5, upper=True, why="me_p99")  # fmt: skip
    if "mcp" in run.beside:
        add("/mcp svc_whoami / GET /v1/me (OAuth), in turn", beside_ratio(run, "mcp"), 0.9, why="mcp")
    if "mcp_calls" in run.beside:
        add("/mcp svc_list_calls / GET /v1/calls?limit=10, in turn", beside_ratio(run, "mcp_calls"), 0.9, why="mcp")
    for key, (mine, theirs) in run.tokens.items():
        label = {"refresh": "refresh", "code": "code exchange"}[key]
        add(f"{label} / stock django-oauth-toolkit", _ratio(mine.median_rps, theirs.median_rps), 2.5, why="tokens")
        ours, dot = run.statements.get(("ours", key)), run.statements.get(("dot", key))
        if ours and dot:
            add(f"{label} statements / stock's", _ratio(ours["median_wire"], dot["median_wire"]), 0.5, upper=True,
                why="tokens")  # fmt: skip
    for case in run.cases:
        add(f"{case.name}: 10x data / 1x (noise {run.noise:.0%})", growth(run, case.key), 1 - run.noise,
            why="growth")  # fmt: skip
    for size, mem in run.memory.items():
        if len(mem.readings) > 2 and not mem.replaced:
            grown = max(mem.growth_between(-2, -1).values(), default=0.0)
            add(f"worker growth over the last {mem.readings[-1].served - mem.readings[-2].served:,} requests, MB "
                f"({size} set)", grown, MEMORY_SLACK_MB, upper=True, why="memory")  # fmt: skip
    return out


def render(run: Run) -> str:
    rows = ["## Read cases", ""]
    rows += [
        f"Each case alternates round by round with its reference and runs at two data sizes (small: "
        f"{_size_words(run.sizes['small'])}; large: {_size_words(run.sizes['large'])}).",
        "",
        "| case | data | median req/s | p50 ms | p99 ms | / reference | non-2xx |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for ref in (run.floor, run.calibration, run.peer):
        if ref.rps:
            ratio = f"{calibration_ratio(run):.2f}" if ref is run.calibration else ""
            rows.append(
                f"| {ref.name} | | {ref.median_rps:.0f} | {ref.median_p50:.2f} | {ref.median_p99:.2f} | "
                f"{ratio} | {sum(ref.errors)} |"
            )
    for case in run.cases:
        for size in ("small", "large"):
            r = run.results[(case.key, size)]
            rows.append(
                f"| {case.name} | {size} | {r.median_rps:.0f} | {r.median_p50:.2f} | {r.median_p99:.2f} | "
                f"{case_ratio(run, case.key, size):.2f} | {sum(r.errors)} |"
            )
    rows += [
        "",
        "/ reference: the case's median over the median of its reference's rounds taken in turn with it "
        "(the floor; for /mcp the SDK peer's whoami). The floor and peer rows pool every reference round.",
        "",
        "## Growth with the data",
        "",
        f"Noise: consecutive rounds of the floor (identical work, seconds apart) differed by up to "
        f"{run.noise:.1%} in this run (90th percentile over {len(run.floor.rps) - 1} pairs); a case is "
        "slower at ten times the data only if its growth falls below 1 by more than that.",
        "",
        f"The two services: on identical work (the floor, {len(run.server_floors[0].rps)} rounds each in "
        f"turn) the large set's ran at {server_bias(run):.3f} of the small set's. Two gunicorn instances of "
        "the same code differ by a few per cent within a run; growth is the raw ratio divided by this.",
        "",
        "| case | small / reference | large / reference | large / small, round by round | growth |",
        "|---|---:|---:|---:|---:|",
    ]
    for case in run.cases:
        rows.append(
            f"| {case.name} | {case_ratio(run, case.key, 'small'):.2f} | {case_ratio(run, case.key):.2f} | "
            f"{growth(run, case.key, corrected=False):.2f} | {growth(run, case.key):.2f} |"
        )
    if run.drf:
        rows += [
            "",
            "## The reads against a stock DRF peer and their limit",
            "",
            "Large set, rounds taken in turn with the case. The peer (bench/drf_peer/): the same reads with DRF's "
            "generic views, ModelSerializers and CursorPagination, django-oauth-toolkit's OAuth2Authentication "
            "and TokenHasScope, a plain API-key class, UserRateThrottle on Django's cache in the same Redis, "
            "Django's startproject middleware, the same tables and gunicorn settings. The limit "
            "(bench/limits.py): the floor view plus the read's own statements on a raw psycopg cursor, "
            "prepared, the rows written by DRF's JSONRenderer (for the message list, the audit row's INSERT "
            "too); for /v1/me the calibration row (the floor plus one Redis round trip).",
            "",
            "| read | ours req/s | peer req/s | limit req/s | ours / peer | ours / limit | ours p99 ms | "
            "peer p99 ms | limit p99 ms | statements: ours | statements: peer |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for case in run.cases:
            if case.key not in run.drf:
                continue
            r, peer, lim = run.results[(case.key, "large")], run.drf[case.key], run.limits[case.key]
            ours_sql = run.read_statements.get(("ours", case.key), {})
            peer_sql = run.read_statements.get(("drf", case.key), {})
            rows.append(
                f"| {case.name} | {r.median_rps:.0f} | {peer.median_rps:.0f} | {lim.median_rps:.0f} | "
                f"{over_peer(run, case.key):.2f} | {over_limit(run, case.key):.2f} | {r.median_p99:.2f} | "
                f"{peer.median_p99:.2f} | {lim.median_p99:.2f} | {_statements(ours_sql)} | {_statements(peer_sql)} |"
            )
        rows += [
            "",
            "Statements: on the wire per request (libpq's trace, BEGIN, COMMIT and Django's health check "
            "included), median of the replayed requests; in brackets, through Django's cursor.",
        ]
    if run.beside:
        rows += ["", "| /mcp case | req/s | the /v1 read beside it | req/s | ratio |", "|---|---:|---|---:|---:|"]
        for key, other in run.beside.items():
            r = run.results[(key, "large")]
            rows.append(
                f"| {r.name} | {r.median_rps:.0f} | {other.name} | {other.median_rps:.0f} | "
                f"{beside_ratio(run, key):.2f} |"
            )
    if run.tokens:
        rows += [
            "",
            "## Token endpoint against stock django-oauth-toolkit",
            "",
            "| exchange | ours req/s | stock req/s | ours / stock | ours p99 ms | stock p99 ms | "
            "statements: ours | statements: stock |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for key, (mine, theirs) in run.tokens.items():
            ours, dot = run.statements.get(("ours", key), {}), run.statements.get(("dot", key), {})
            rows.append(
                f"| {mine.name} | {mine.median_rps:.0f} | {theirs.median_rps:.0f} | "
                f"{_ratio(mine.median_rps, theirs.median_rps):.2f} | {mine.median_p99:.2f} | "
                f"{theirs.median_p99:.2f} | {_statements(ours)} | {_statements(dot)} |"
            )
        rows += [
            "",
            "Statements: what the database connection sent per exchange (libpq's protocol trace, "
            "BEGIN, COMMIT and any connection health check included: stock Django sends SELECT 1, the "
            "service's backend only when the idle socket has something to read), median of "
            f"{run.args.statement_samples} exchanges replayed in-process on each server's own settings; "
            "in brackets, those through Django's cursor (CaptureQueriesContext, which counts BEGIN and "
            "COMMIT but not the health check).",
        ]
        samples = [(side, key, run.statements[(side, key)]["sample"]) for side, key in sorted(run.statements)]
        rows += ["", "<details><summary>The statements of one exchange</summary>", ""]
        for side, key, sample in samples:
            who = "ours" if side == "ours" else "stock django-oauth-toolkit"
            rows += [f"{key}, {who}:", "", "```sql", *(s[:110] for s in sample), "```", ""]
        rows += ["</details>"]
    rows += [
        "",
        "## Resident memory per worker",
        "",
        "| server | requests served | RSS per worker, MB | growth per worker, MB |",
        "|---|---:|---|---|",
    ]
    for mem in run.memory.values():
        for i, reading in enumerate(mem.readings):
            values = ", ".join(f"{v:.1f}" for v in reading.rss.values())
            if not i:
                grown, label = "", "after warm-up"
            elif mem.replaced:
                grown, label = "a worker was replaced", f"after {reading.served:,} requests"
            else:
                grown = ", ".join(f"{v:+.1f}" for v in mem.growth_between(i - 1, i).values())
                label = f"after {reading.served:,} requests"
            rows.append(f"| {mem.server}, {label} | {reading.served:,} | {values} | {grown} |")
    rows += [
        "",
        "Growth: since the reading above. Requests served count every request sent to that server "
        "(its warm-up, the floor's rounds on the large set's server, the cases' rounds and the top-up).",
    ]
    rows += [
        "",
        "## Targets",
        "",
        "| target | bound | measured | met |",
        "|---|---:|---:|---|",
    ]
    found = targets(run)
    for name, bound, value, _, met, _ in found:
        rows.append(f"| {name} | {bound} | {value:.2f} | {'yes' if met else 'NO'} |")
    unmet = sorted({why for *_, met, why in found if not met and why})
    if unmet:
        rows += ["", "What bounds the targets not met:", ""]
        rows += [f"- {BOUNDS[why]} {TRIED[why]}" for why in unmet]
    rows += ["", _timings(run)]
    return "\n".join(rows)


def _statements(counted: dict) -> str:
    if not counted:
        return ""
    return f"{counted['median_wire']} ({counted['median_django']})"


def _size_words(fixture: dict) -> str:
    size = fixture["size"]
    return (
        f"{fixture['users']:,} accounts each with a key and two tokens, a {size['deck']:,}-prefix deck, "
        f"ten accounts with {size['ledger']:,} ledger rows, {size['calls']:,} calls, "
        f"{size['contacts']:,} contacts and {size.get('messages', 0):,} messages each"
    )


def _timings(run: Run) -> str:
    parts = ", ".join(f"{name} {seconds / 60:.1f} min" for name, seconds in run.timings.items() if seconds)
    return f"Wall time of this run: {parts}."

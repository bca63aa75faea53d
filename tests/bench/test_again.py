"""bench/again.py: a read target counts as met when most of its runs meet it, and every run's figure is shown."""

from bench.again import section

LEDGER = "GET /v1/balance_transactions?limit=10 / its limit"
EXCHANGE = "code exchange / stock django-oauth-toolkit"


def test_a_target_met_in_two_runs_of_three_is_met_and_each_run_is_shown():
    runs = [
        {LEDGER: (">= 0.60", 0.61, True), EXCHANGE: (">= 2.50", 2.2, False)},
        {LEDGER: (">= 0.60", 0.58, False), EXCHANGE: (">= 2.50", 2.6, True)},
        {LEDGER: (">= 0.60", 0.63, True), EXCHANGE: (">= 2.50", 2.3, False)},
    ]
    text = section(runs, 21.4)
    assert (
        "| GET /v1/balance_transactions?limit=10 / its limit | >= 0.60 | 0.61 | 0.58 (no) | 0.63 | 2 of 3: yes |"
        in text
    )
    assert (
        "| code exchange / stock django-oauth-toolkit | >= 2.50 | 2.20 (no) | 2.60 | 2.30 (no) | 1 of 3: NO |" in text
    )
    assert "3 runs one after another (21 minutes in all)" in text

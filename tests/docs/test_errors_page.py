"""/docs/errors: every code of docs/spec.md 7.2 and 7.3 with its status, type, when and what to do,
each on a row whose anchor is the code, built from the error registry (apps/core/errors.py)."""

import re
import string
from html.parser import HTMLParser

import pytest

from apps.core.envelope import error_body
from apps.core.errors import REGISTRY, ApiError
from apps.docs import errors as docs_errors
from apps.docs.selectors import error_rows, facts, oauth_error_rows

from .contract import envelope_codes, oauth_codes

pytestmark = pytest.mark.django_db


class Rows(HTMLParser):
    """The cells of every table row that has an id, as text: {id: [cell, ...]}."""

    def __init__(self):
        super().__init__()
        self.rows: dict[str, list[str]] = {}
        self._row = None
        self._cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and attrs.get("id"):
            self._row = attrs["id"]
            self.rows[self._row] = []
        elif tag == "td" and self._row:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[self._row].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr":
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture
def rows(client, docs_here):
    response = client.get("/docs/errors")
    assert response.status_code == 200
    parser = Rows()
    parser.feed(response.content.decode())
    return parser.rows


def test_every_registered_code_has_its_sentences_and_no_sentence_is_orphaned():
    assert set(docs_errors.GUIDANCE) == set(REGISTRY), (
        "apps/docs/errors.py GUIDANCE must cover exactly the codes of apps/core/errors.py REGISTRY: "
        f"missing {sorted(set(REGISTRY) - set(docs_errors.GUIDANCE))}, "
        f"unknown {sorted(set(docs_errors.GUIDANCE) - set(REGISTRY))}"
    )
    for guidance in docs_errors.GUIDANCE.values():
        assert guidance.when.strip() and guidance.action.strip()


def test_every_type_of_the_registry_is_explained():
    assert {entry.type for entry in REGISTRY.values()} <= set(docs_errors.TYPE_GUIDANCE)


def test_every_placeholder_in_the_prose_is_a_known_fact(docs_here):
    known = facts()
    texts = [g.when for g in docs_errors.GUIDANCE.values()] + [g.action for g in docs_errors.GUIDANCE.values()]
    texts += [c.when for e in docs_errors.OAUTH_ERRORS for c in e.cases] + [e.action for e in docs_errors.OAUTH_ERRORS]
    for text in texts:
        names = {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}
        assert names <= set(known), (text, names - set(known))
    # Rendering fills them all in (a literal such as {client_id} in a path stays).
    left = re.compile(r"\{(" + "|".join(known) + r")\b")
    assert not any(left.search(row.when + row.action) for row in error_rows(known))
    assert not any(left.search(c.when) for row in oauth_error_rows(known) for c in row.cases)


def test_every_code_of_the_contract_is_registered():
    assert set(envelope_codes()) <= set(REGISTRY)


def test_each_envelope_code_has_a_row_with_its_status_type_and_guidance(rows):
    for code, entry in REGISTRY.items():
        assert code in rows, f"no row with id={code!r}"
        cells = rows[code]
        assert cells[0] == code
        assert cells[1] == str(entry.status)
        assert cells[2] == entry.type
        assert cells[3] and cells[4], f"{code}: when/what to do empty"


def test_the_contract_statuses_match_the_page(rows):
    """Spot the registry against docs/spec.md 7.2's own status column, through the page."""
    from .contract import section

    for line in section("7.2").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0] in REGISTRY:
            assert rows[cells[0]][1] == cells[1], cells[0]
            assert rows[cells[0]][2] == cells[2], cells[0]


def test_each_oauth_code_of_the_contract_has_a_row(rows):
    documented = {e.code for e in docs_errors.OAUTH_ERRORS}
    assert oauth_codes() <= documented
    for code in oauth_codes():
        cells = rows[f"oauth-{code}"]
        assert cells[0] == code and cells[1] and cells[2]


def test_every_doc_url_names_a_row_of_the_page(rows, docs_here):
    for code in REGISTRY:
        doc_url = error_body(None, ApiError(code))["error"]["doc_url"]
        page, _, anchor = doc_url.partition("#")
        assert page == f"{docs_here}/errors"
        assert anchor in rows


def test_types_have_anchors_and_codes_link_to_them(client, docs_here):
    html = client.get("/docs/errors").content.decode()
    for entry in REGISTRY.values():
        assert f'id="type-{entry.type}"' in html
        assert f'href="#type-{entry.type}"' in html


def test_the_sample_envelope_is_the_renderers(client, docs_here):
    html = client.get("/docs/errors").content.decode()
    for field in ("type", "code", "message", "param", "doc_url", "request_id"):
        assert re.search(rf"&quot;{field}&quot;:", html), field

"""A rules reference in the repository (docs/rules.md, served at /rules): every rule ID the
code or the templates name has an entry; rule IDs in log lines and refusals link to their entry;
no page or doc points outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from app.web.drawing.rulebook import known_ids, reference, rule_links
from tests.helpers import act, set_table, ship_def, simple_ship
from tests.web.test_pages import join

ROOT = Path(__file__).resolve().parents[2]
RULE_LIKE = re.compile(r"\b[A-Z]{2,3}-[0-9]+[a-z]?\b")
NOT_RULES = {"SHA-256", "UTF-8", "UTF-16"}  # names that look like rule IDs and are not


def named_in(*folders: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for folder in folders:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".html", ".js", ".json") and path.is_file():
                for rule in set(RULE_LIKE.findall(path.read_text(encoding="utf-8"))) - NOT_RULES:
                    found.setdefault(rule, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_rule_id_the_code_names_has_an_entry() -> None:
    named = named_in("app", "templates", "static/js")
    assert len(named) > 80  # the scan finds the rules
    missing = {rule: sorted(where) for rule, where in named.items() if rule not in known_ids()}
    assert missing == {}
    _, groups = reference()
    for group in groups:
        for entry in group.entries:
            text = " ".join(entry.lines)
            assert "Source: " in text and entry.title, entry.id  # what it does and where it comes from


def test_the_docs_name_only_rules_the_reference_has() -> None:
    for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        unknown = set(RULE_LIKE.findall(path.read_text(encoding="utf-8"))) - NOT_RULES - known_ids()
        assert unknown == set(), path.name


def test_no_page_or_doc_points_outside_the_repository() -> None:
    outside = re.compile(r"\]\((?:https?:)?//|(?:href|src|action)=[\"'](?:https?:)?//")
    files = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "templates").rglob("*.html")]
    assert [p.name for p in files if outside.search(p.read_text(encoding="utf-8"))] == []
    for path in (ROOT / "docs").glob("*.md"):  # and the relative links there lead to files that exist
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8")):
            assert (path.parent / target).exists(), (path.name, target)


def test_rule_links_turns_known_ids_into_links_and_escapes_the_rest() -> None:
    assert str(rule_links("pain reduction is rolled during Ship Power (SH-14)")) == (
        'pain reduction is rolled during Ship Power (<a class="rule-ref" href="/rules#SH-14">SH-14</a>)'
    )
    assert str(rule_links("<b>ST-15a</b> and XX-99")) == (
        '&lt;b&gt;<a class="rule-ref" href="/rules#ST-15a">ST-15a</a>&lt;/b&gt; and XX-99'
    )


async def test_rules_page_and_links_from_the_log_and_refusals(client: httpx.AsyncClient) -> None:
    page = await client.get("/rules")
    assert page.status_code == 200
    ids = re.findall(r'<dt id="([A-Z]+-[0-9]+[a-z]?)">', page.text)
    assert set(ids) == known_ids() and len(ids) == len(known_ids())
    assert '<dt id="SH-17"><strong>SH-17</strong> · No boarding a living ship</dt>' in page.text
    table = await set_table(
        client,
        system="sfb",
        players=("kirk", "kosh"),
        ships={"ker": (ship_def("shadow-cruiser"), "kosh"), "hawk": (simple_ship("Hawk", "sfb"), "kirk")},
    )
    refused = await act(
        client,
        table,
        "kirk",
        "boarding.declare",
        {"kind": "boarding", "attacker": "hawk", "target": table.ships["ker"], "outcome": "x"},
    )
    assert refused.status_code == 422 and "(SH-17)" in refused.json()["detail"]["reason"]  # REST: plain text
    viewer = await join(client, table.tokens["kirk"])
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={
            "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', viewer.text).group(1),
            "action_type": "boarding.declare",
            "action_id": "b1",
            "p.kind": "boarding",
            "p.attacker": "hawk",
            "p.target": table.ships["ker"],
            "p.outcome": "x",
        },
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422 and '<a class="rule-ref" href="/rules#SH-17">SH-17</a>' in r.text
    ker = table.ships["ker"]
    override = {"path": f"ships.{ker}.parts.pain.level", "value": 3, "reason": "scenario start (SH-01)"}
    assert (await act(client, table, "ref", "override.set", override)).status_code == 200
    log = (await client.get(f"/battles/{table.battle_id}")).text
    assert 'scenario start (<a class="rule-ref" href="/rules#SH-01">SH-01</a>)”</p>' in log

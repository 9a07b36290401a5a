"""The rules reference (docs/rules.md) as a page, `/rules`, and the `rule_links` filter that turns
every rule ID in a log line or a refusal ("(SH-14)") into a link to its entry there."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from markupsafe import Markup, escape

from app.config import ROOT

REFERENCE = ROOT / "docs" / "rules.md"
RULE_ID = re.compile(r"\b(?:GEN|SH|ST|TR)-[0-9]+[a-z]?\b")
_ENTRY = re.compile(r"^### ((?:GEN|SH|ST|TR)-[0-9]+[a-z]?) · (.+)$")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")


@dataclass
class Entry:
    id: str
    title: str
    lines: list[str] = field(default_factory=list)


@dataclass
class Group:
    title: str
    entries: list[Entry] = field(default_factory=list)


@cache
def reference() -> tuple[list[str], list[Group]]:
    """The file's introduction and its groups of entries, in order."""
    intro: list[str] = []
    groups: list[Group] = []
    for line in REFERENCE.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            continue
        if line.startswith("## "):
            groups.append(Group(line[3:]))
        elif (found := _ENTRY.match(line)) is not None:
            groups[-1].entries.append(Entry(found.group(1), found.group(2)))
        elif line.strip():
            if groups and groups[-1].entries:
                groups[-1].entries[-1].lines.append(line)
            elif groups:
                pass  # a group's own text is not kept
            elif intro and not line.startswith(" "):
                intro[-1] += " " + line
            else:
                intro.append(line)
    return intro, groups


@cache
def known_ids() -> frozenset[str]:
    return frozenset(e.id for g in reference()[1] for e in g.entries)


def rule_links(text: object) -> Markup:
    """Text, escaped, with each known rule ID a link to its entry on /rules."""
    safe = str(escape(text))
    known = known_ids()

    def link(m: re.Match[str]) -> str:
        rule = m.group(0)
        return f'<a class="rule-ref" href="/rules#{rule}">{rule}</a>' if rule in known else rule

    return Markup(RULE_ID.sub(link, safe))


def prose(line: str) -> Markup:
    """One line of the reference as HTML: escaped, `code`, *emphasis*, **strong**, links to the
    repository's own docs dropped to their text, rule IDs linked."""
    html = str(rule_links(_LINK.sub(lambda m: m.group(1), line)))
    html = re.sub(r"`([^`]+)`", r"<code>\1</code>", html)
    html = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", html)
    html = re.sub(r"\*([^*]+)\*", r"<em>\1</em>", html)
    return Markup(html)

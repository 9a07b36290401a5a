"""Runs a walkthrough's REST block as written: the doc is the script, so a walkthrough that stops
coming true fails the suite.

A block is a ```sh fence holding `act $WHO type 'payload'` or `api $WHO 'body'` commands (a quoted
JSON argument may run over several lines). What the doc promises is read from its comments:
`# → Combat` after a command is the step the battle is then in; a comment line `#  → "… text …"`
under a command is a sentence the command's answer must carry (`…` stands for any text)."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
COMMAND = re.compile(r"^(act|api) \$(\w+) (?:([\w.]+) )?'")


@dataclass
class Step:
    """One documented command and what the doc says comes of it."""

    line: int
    who: str
    body: dict[str, Any]
    step_after: str | None = None
    says: list[str] = field(default_factory=list)
    status: int = 200  # a `# 422 {…}` comment under the command: the refusal the doc shows
    refusal: dict[str, str] = field(default_factory=dict)  # its "field" and "reason"


def sh_blocks(doc: str) -> list[tuple[int, list[str]]]:
    """Every ```sh fence of a doc: (first line number, its lines)."""
    blocks, current, start = [], None, 0
    for n, line in enumerate((ROOT / doc).read_text().splitlines(), 1):
        if current is None and line.strip() == "```sh":
            current, start = [], n + 1
        elif current is not None and line.strip() == "```":
            blocks.append((start, current))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def script(doc: str, blocks: slice = slice(None)) -> list[Step]:
    """The commands of the doc's sh blocks that hold any (all, or a slice of them), in order, with
    their promises."""
    scripted = [
        (start, lines) for start, lines in sh_blocks(doc) if any(COMMAND.match(x.strip()) for x in lines)
    ]
    steps: list[Step] = []
    for start, lines in scripted[blocks]:
        i = 0
        while i < len(lines):
            found = COMMAND.match(lines[i].strip())
            if not found:
                said = re.match(r'^#\s*→\s*"(.*)"\s*(\(.*\))?$', lines[i].strip())
                assert said or not re.match(r"^#\s*→", lines[i].strip()), f"{doc}:{start + i}: unread promise"
                refused = re.match(r"^#\s*(4\d\d) (.*)$", lines[i].strip())
                if said and steps:
                    steps[-1].says.append(said.group(1))
                elif refused and steps and steps[-1].status == 200:
                    steps[-1].status = int(refused.group(1))
                    rest = " ".join(x.strip().lstrip("#") for x in lines[i : i + 3])
                    for key in ("field", "reason"):
                        shown = re.search(rf'"{key}": "([^"]*)"', rest)
                        if shown:
                            steps[-1].refusal[key] = shown.group(1)
                i += 1
                continue
            kind, who, type_ = found.groups()
            text, n = lines[i].strip()[found.end() :], i
            while text.count("'") % 2 == 0:  # the closing quote is on a later line
                i += 1
                text += "\n" + lines[i]
            raw, _, rest = text.partition("'")
            payload = json.loads(raw)
            body = {"type": type_, "payload": payload} if kind == "act" else payload
            arrow = re.search(r"#\s*→\s*(.+)$", rest)
            step_after = arrow.group(1).strip() if arrow and not arrow.group(1).startswith('"') else None
            steps.append(Step(start + n, who, body, step_after))
            i += 1
    return steps


def sentence(promise: str) -> re.Pattern[str]:
    """A promised sentence as a pattern: `…` is any text."""
    return re.compile(".*?".join(re.escape(part.strip()) for part in promise.split("…")), re.S)


async def play(
    c: httpx.AsyncClient, doc: str, battle_id: str, tokens: dict[str, str], steps: list[Step] | None = None
) -> list[dict[str, Any]]:
    """Send every command of the doc's script; check each answer and promise; the answers."""
    answers = []
    steps = script(doc) if steps is None else steps
    assert steps, f"{doc}: no commands to run"
    for step in steps:
        body = {"action_id": uuid.uuid4().hex, **step.body}
        auth = {"Authorization": f"Bearer {tokens[step.who]}"}
        r = await c.post(f"/api/v1/battles/{battle_id}/actions", json=body, headers=auth)
        where = f"{doc}:{step.line} ({step.who} {body['type']})"
        assert r.status_code == step.status, f"{where} answered {r.status_code}: {r.text}"
        if step.status != 200:
            detail = r.json()["detail"]
            assert detail["field"] == step.refusal.get("field", detail["field"]), f"{where}: {detail}"
            assert sentence(step.refusal.get("reason", "")).search(detail["reason"]), f"{where}: {detail}"
            answers.append(r.json())
            continue
        texts = "\n".join(e["text"] for e in r.json()["events"])
        for promise in step.says:
            assert sentence(promise).search(texts), f"{where} promised {promise!r}; the answer said:\n{texts}"
        if step.step_after:
            state = (await c.get(f"/api/v1/battles/{battle_id}", headers=auth)).json()
            clock = state["turn_bar"]["clock"]  # e.g. "Turn 2 · Ship Power"
            named = re.sub(r"\(.*?\)", "", step.step_after).split()
            assert all(word.lower() in clock.lower().split() for word in named), (
                f"{where}: the doc says the battle is now at {step.step_after!r}; it is at {clock!r}"
            )
        answers.append(r.json())
    return answers

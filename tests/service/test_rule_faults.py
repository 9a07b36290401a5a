"""An exception raised inside a rule or a step hook is an error answer to that one request, logged
with its traceback; nothing is stored and the battle plays on."""

from __future__ import annotations

import logging
import uuid
from dataclasses import replace

import pytest
from pydantic import BaseModel

from app.rules import STANDARD
from app.rules.core import Event
from app.rules.registry import RULESETS, Rules
from app.rules.ruleset import ActionSpec, Hook, Ruleset
from app.rules.systems.b5wars import B5WARS
from app.services.errors import RuleFault
from app.services.platform import Platform
from app.services.store.battles import create_battle, load_state
from app.services.write import actions
from app.services.write.actions import Command


class Nothing(BaseModel):
    pass


def broken_rule(state, payload, actor, dice) -> list[Event]:  # type: ignore[no-untyped-def]
    return [Event(kind="x", text=str(1 // 0))]


def broken_hook(state, dice) -> list[Event]:  # type: ignore[no-untyped-def]
    raise KeyError("a hook that forgot a part")


FAULTY = Ruleset(
    "faulty",
    "A ruleset with bugs",
    actions=(ActionSpec("faulty.crash", Nothing, broken_rule, "Crash"),),
    hooks=(Hook("enter", "movement", broken_hook),),
)
RULES = Rules([replace(B5WARS, rulesets=(*B5WARS.rulesets, "faulty"))], [*RULESETS, FAULTY])


async def test_a_crashing_rule_or_hook_answers_that_request_and_changes_nothing(
    platform: Platform, caplog: pytest.LogCaptureFixture
) -> None:
    platform.rules = RULES
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(session, "Faults", "b5wars", rules=RULES)
    me = ref.participant.id

    async def submit(kind: str) -> actions.Submitted:
        return await actions.submit(platform, Command(battle.id, me, kind, {}, uuid.uuid4().hex))

    caplog.set_level(logging.ERROR, logger="app.services.write.actions")
    with pytest.raises(RuleFault) as fault:
        await submit("faulty.crash")
    assert fault.value.status == 422 and fault.value.field == "action_type"
    assert "the rules could not resolve faulty.crash; nothing changed" in fault.value.message
    assert "ZeroDivisionError" in caplog.text
    with pytest.raises(RuleFault):
        await submit("clock.advance")  # Ship Power → Movement runs the broken hook
    assert "KeyError" in caplog.text
    async with platform.db.reader() as session:
        state, seq = await load_state(session, battle.id, RULES)
    assert (seq, state.clock.step) == (0, "ship_power")
    assert STANDARD.game("b5wars").spec("clock.advance")  # the standard rules are untouched

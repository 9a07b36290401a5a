"""The template environment's faster lookups answer exactly what Jinja's own do (a live
frame's rendering), and a rendering splits into its regions in order."""

from __future__ import annotations

import jinja2

from app.web.drawing.render import ViewEnvironment, regions_of

SOURCE = (
    "{{ d.name }}|{{ d.items() | list | length }}|{{ d.missing is defined }}|{{ d.keys }}"
    "|{{ o.upper() }}|{{ d['name'] }}|{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}"
)


def test_a_dict_key_is_found_as_jinja_finds_it_and_its_methods_stay_methods() -> None:
    data = {"d": {"name": "Hawk", "keys": "a key named like a method", "items": 3}, "o": "str"}
    ours = ViewEnvironment(autoescape=True).from_string(SOURCE).render(data)
    theirs = jinja2.Environment(autoescape=True).from_string(SOURCE).render(data)
    assert ours == theirs
    assert ours.startswith("Hawk|3|False|&lt;built-in method keys")  # methods win, as in Jinja


def test_a_rendering_splits_into_its_regions_in_order() -> None:
    html = (
        '<hx-partial hx-target="#turnbar" hx-swap="outerMorph"><div>bar</div></hx-partial>\n'
        '<hx-partial hx-target="#ships" hx-swap="outerMorph"><p>x</p></hx-partial>\n'
        '<hx-partial hx-target="#log-list" hx-swap="beforeend"><li>hit</li></hx-partial>'
    )
    regions = regions_of(html)
    assert [target for target, _ in regions] == ["#turnbar", "#ships", "+#log-list"]
    assert "".join(part for _, part in regions) == html

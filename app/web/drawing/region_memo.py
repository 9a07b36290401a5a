"""Live regions drawn again only when what they read changed, as ship cards are
(app/web/drawing/cards.py).

Most actions leave the tactical map as it was: a damage entry changes a ship card and the log, not
where the counters stand. A live frame still drew the board and its status line for every seq.
`RegionMemo` keeps each region's HTML by a digest of exactly the context values its template reads
(found by parsing it with `jinja2.meta`, as the card memo does), so a region is reused only when
every one of them is the same as plain JSON data. A template that includes another, or a value
that is not plain JSON data, or one the context lacks, means the region is drawn — never a guess.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import jinja2
from markupsafe import Markup

from app.web.drawing.cards import digest, parsed, read_by

# The live regions kept this way: the map's board and its status line (live_update.html).
MAP_REGIONS = ("partials/map_board.html", "partials/map_status.html")


class RegionMemo:
    """Drawn regions by template and what it reads; at most `size` kept (least recently used go)."""

    def __init__(self, env: jinja2.Environment, names: Iterable[str], size: int = 256) -> None:
        self.env, self.size = env, size
        self.reads: dict[str, tuple[str, ...]] = {}
        for name in names:
            if parsed(env, name)[1]:
                continue  # what an included template reads is not counted here: always drawn
            self.reads[name] = tuple(sorted(read_by(env, name)))
        self.enabled = not env.auto_reload
        self._kept: OrderedDict[bytes, Markup] = OrderedDict()
        self.hits = self.draws = 0

    def _key(self, name: str, context: dict[str, Any]) -> bytes | None:
        reads = self.reads.get(name)
        if reads is None or not self.enabled or any(n not in context for n in reads):
            return None
        return digest([name, *(context[n] for n in reads)])

    def draw(self, name: str, context: dict[str, Any]) -> Markup:
        """The region `name` as `{% include name %}` would draw it with this context."""
        key = self._key(name, context)
        kept = self._kept.get(key) if key is not None else None
        if key is not None and kept is not None:
            self._kept.move_to_end(key)
            self.hits += 1
            return kept
        drawn = Markup(self.env.get_template(name).render(context))
        self.draws += 1
        if key is not None:
            self._kept[key] = drawn
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return drawn

"""The report's summary card: one SVG image (1200 × 630, the size link previews use) with the
battle's name, its headline, how it ended and each ship's damage taken, drawn from a report
already built for one viewer — the public link's spectator report — so it says nothing more than
that report does. Plain SVG text and rectangles, every string escaped; no new dependency."""

from __future__ import annotations

from xml.sax.saxutils import escape

from app.services.reading.report import Report

WIDTH, HEIGHT = 1200, 630
MARGIN = 60
FONT = 'font-family="system-ui, DejaVu Sans, Arial, sans-serif"'
MOST_SHIPS = 8  # the card has room for this many ships' bars; the rest are counted


def _wrap(text: str, width: int) -> list[str]:
    """The text in lines of at most `width` characters, broken between words."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    if line:
        lines.append(line)
    return lines


def _text(x: float, y: float, body: str, size: int, *, weight: str = "400", fill: str = "#e8eaf0") -> str:
    return f'<text x="{x}" y="{y}" font-size="{size}" font-weight="{weight}" fill="{fill}" {FONT}>{escape(body)}</text>'


def card(report: Report) -> str:
    """The card as SVG text."""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="card-title card-desc">',
        f'<title id="card-title">{escape(report.name)}: battle report</title>',
        f'<desc id="card-desc">{escape(report.headline)}</desc>',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#141a2a"/>',
        f'<rect x="0" y="0" width="{WIDTH}" height="8" fill="#4f8cff"/>',
        _text(MARGIN, 70, "STARBOARD · BATTLE REPORT", 22, weight="600", fill="#8fa8d8"),
    ]
    y = 130
    for line in _wrap(report.name, 32)[:2]:
        out.append(_text(MARGIN, y, line, 52, weight="700"))
        y += 60
    for line in _wrap(report.headline, 70)[:3]:
        out.append(_text(MARGIN, y, line, 28, fill="#cfd6e6"))
        y += 38
    end = report.ending
    if end is not None:
        won = (
            "A draw"
            if end.winner == "draw"
            else (f"Winner: {end.winner}" if end.winner else "Winner not said")
        )
        out.append(_text(MARGIN, y + 10, won, 32, weight="700", fill="#ffd166"))
        y += 50
    totals = [(s.name, sum(p.taken for p in s.points), sum(p.dealt for p in s.points)) for s in report.damage]
    shown = sorted(totals, key=lambda t: -t[1])[:MOST_SHIPS]
    top = max([t for _, t, _ in shown] + [1])
    row = max(min((HEIGHT - y - 70) // max(len(shown), 1), 44), 24)
    bar_x, bar_w = MARGIN + 380, WIDTH - MARGIN * 2 - 380 - 120
    if shown:
        out.append(_text(MARGIN, y + 14, "Damage taken", 20, weight="600", fill="#8fa8d8"))
        y += 28
    for name, taken, _dealt in shown:
        short = name if len(name) <= 28 else name[:27] + "…"
        out.append(_text(MARGIN, y + row * 0.6, short, min(22, row - 4)))
        width = round(bar_w * taken / top, 1)
        out.append(
            f'<rect x="{bar_x}" y="{y + row * 0.15:.1f}" width="{width}" height="{row * 0.6:.1f}" fill="#e05a4f"/>'
        )
        out.append(_text(bar_x + width + 10, y + row * 0.6, str(taken), min(22, row - 4)))
        y += row
    if len(totals) > MOST_SHIPS:
        out.append(_text(MARGIN, y + 20, f"and {len(totals) - MOST_SHIPS} more ships", 18, fill="#8fa8d8"))
    turns = len([t for t in report.turns if t.actions])
    foot = f"{turns} turn{'s' if turns != 1 else ''} · {report.seq} actions · " + (
        "final" if report.finished else "so far"
    )
    out.append(_text(MARGIN, HEIGHT - 30, foot, 20, fill="#8fa8d8"))
    out.append("</svg>")
    return "\n".join(out)

"""Small, deterministic inline-SVG charts for the HTML report: interval bars, grouped bars, lines, stacks, a treemap.

Every function returns one ``<svg>`` string with fixed-precision coordinates, so the same data always gives
the same bytes. Each mark carries a ``<title>`` (the browser's tooltip) with its exact value.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

#: Colour-blind-safe palette (Okabe–Ito), cycled over series.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
FONT = 'font-family="system-ui, sans-serif" font-size="11"'


def _n(value: float) -> str:
    return f"{value:.1f}"


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _svg(width: float, height: float, body: list[str], label: str) -> str:
    return (f'<svg class="chart" role="img" aria-label="{escape(label)}" '
            f'width="{_n(width)}" height="{_n(height)}" viewBox="0 0 {_n(width)} {_n(height)}" {FONT}>'
            + "".join(body) + "</svg>")


def _axis_x(x0: float, x1: float, y: float, lo: float, hi: float, ticks: int = 5) -> list[str]:
    out = [f'<line x1="{_n(x0)}" y1="{_n(y)}" x2="{_n(x1)}" y2="{_n(y)}" stroke="#888"/>']
    for step in range(ticks + 1):
        value = lo + (hi - lo) * step / ticks
        x = x0 + (x1 - x0) * step / ticks
        out.append(f'<line x1="{_n(x)}" y1="{_n(y)}" x2="{_n(x)}" y2="{_n(y + 4)}" stroke="#888"/>'
                   f'<text x="{_n(x)}" y="{_n(y + 15)}" text-anchor="middle">{value:.2f}</text>')
    return out


def _axis_y(x: float, y0: float, y1: float, lo: float, hi: float, ticks: int = 5) -> list[str]:
    out = [f'<line x1="{_n(x)}" y1="{_n(y0)}" x2="{_n(x)}" y2="{_n(y1)}" stroke="#888"/>']
    for step in range(ticks + 1):
        value = lo + (hi - lo) * step / ticks
        y = y0 - (y0 - y1) * step / ticks
        out.append(f'<line x1="{_n(x - 4)}" y1="{_n(y)}" x2="{_n(x)}" y2="{_n(y)}" stroke="#888"/>'
                   f'<text x="{_n(x - 6)}" y="{_n(y + 4)}" text-anchor="end">{value:.2f}</text>')
    return out


def interval_bars(rows: Sequence[tuple[str, float, float | None, float | None]], title: str, lo: float = 0.0, hi: float = 1.0) -> str:
    """Horizontal bars ``(label, value, lower, upper)`` with their interval as a whisker."""
    left, width, row_h = 130.0, 300.0, 22.0
    height = 30 + row_h * len(rows) + 24
    body = [f'<text x="{_n(left)}" y="14" font-weight="bold">{escape(title)}</text>']
    scale = lambda v: left + width * (min(max(v, lo), hi) - lo) / ((hi - lo) or 1.0)  # noqa: E731
    for i, (label, value, lower, upper) in enumerate(rows):
        y = 24 + i * row_h
        tip = f"{label}: {value:.4f}" + (f" [{lower:.4f}, {upper:.4f}]" if lower is not None else "")
        body.append(f'<text x="{_n(left - 6)}" y="{_n(y + 14)}" text-anchor="end">{escape(label)}</text>')
        body.append(f'<rect class="mark" x="{_n(left)}" y="{_n(y + 3)}" width="{_n(scale(value) - left)}" height="{_n(row_h - 8)}" '
                    f'fill="{colour(i)}" opacity="0.8"><title>{escape(tip)}</title></rect>')
        if lower is not None and upper is not None:
            mid = y + row_h / 2 - 1
            body.append(f'<line x1="{_n(scale(lower))}" y1="{_n(mid)}" x2="{_n(scale(upper))}" y2="{_n(mid)}" stroke="#000" stroke-width="1.5"/>'
                        f'<line x1="{_n(scale(lower))}" y1="{_n(mid - 5)}" x2="{_n(scale(lower))}" y2="{_n(mid + 5)}" stroke="#000"/>'
                        f'<line x1="{_n(scale(upper))}" y1="{_n(mid - 5)}" x2="{_n(scale(upper))}" y2="{_n(mid + 5)}" stroke="#000"/>')
    body += _axis_x(left, left + width, 24 + row_h * len(rows) + 2, lo, hi)
    return _svg(left + width + 30, height, body, title)


def legend(series: Sequence[str], x: float, y: float) -> list[str]:
    out = []
    for i, name in enumerate(series):
        out.append(f'<rect x="{_n(x)}" y="{_n(y + i * 16)}" width="10" height="10" fill="{colour(i)}"/>'
                   f'<text x="{_n(x + 14)}" y="{_n(y + i * 16 + 9)}">{escape(name)}</text>')
    return out


def grouped_bars(groups: Sequence[str], series: Sequence[str], values: Sequence[Sequence[float | None]], title: str,
                 lo: float = 0.0, hi: float = 1.0) -> str:
    """Vertical bars: one group per ``groups`` entry, one bar per series; ``values[s][g]`` (None: no bar)."""
    left, top, plot_h = 40.0, 24.0, 180.0
    bar = 10.0
    group_w = bar * max(len(series), 1) + 14
    width = left + group_w * len(groups) + 150
    base = top + plot_h
    body = [f'<text x="{_n(left)}" y="14" font-weight="bold">{escape(title)}</text>']
    body += _axis_y(left, base, top, lo, hi)
    for g, group in enumerate(groups):
        gx = left + 8 + g * group_w
        for s, name in enumerate(series):
            value = values[s][g]
            if value is None:
                continue
            h = plot_h * (min(max(value, lo), hi) - lo) / ((hi - lo) or 1.0)
            body.append(f'<rect class="mark" x="{_n(gx + s * bar)}" y="{_n(base - h)}" width="{_n(bar - 1)}" height="{_n(h)}" '
                        f'fill="{colour(s)}"><title>{escape(f"{name} · {group}: {value:.4f}")}</title></rect>')
        body.append(f'<text x="{_n(gx + bar * len(series) / 2)}" y="{_n(base + 12)}" text-anchor="end" '
                    f'transform="rotate(-35 {_n(gx + bar * len(series) / 2)} {_n(base + 12)})">{escape(group)}</text>')
    body += legend(series, left + group_w * len(groups) + 20, top)
    return _svg(width, base + 80, body, title)


def line_chart(xs: Sequence[str], series: Sequence[str], values: Sequence[Sequence[float | None]], title: str,
               x_label: str, lo: float = 0.0, hi: float = 1.0) -> str:
    """One polyline per series over the categorical ``xs``; ``values[s][x]`` (None: gap)."""
    left, top, plot_w, plot_h = 44.0, 24.0, 360.0, 180.0
    base = top + plot_h
    step = plot_w / max(len(xs) - 1, 1)
    y_of = lambda v: base - plot_h * (min(max(v, lo), hi) - lo) / ((hi - lo) or 1.0)  # noqa: E731
    body = [f'<text x="{_n(left)}" y="14" font-weight="bold">{escape(title)}</text>']
    body += _axis_y(left, base, top, lo, hi)
    body.append(f'<line x1="{_n(left)}" y1="{_n(base)}" x2="{_n(left + plot_w)}" y2="{_n(base)}" stroke="#888"/>')
    for i, x in enumerate(xs):
        body.append(f'<text x="{_n(left + i * step)}" y="{_n(base + 14)}" text-anchor="middle">{escape(x)}</text>')
    body.append(f'<text x="{_n(left + plot_w / 2)}" y="{_n(base + 30)}" text-anchor="middle">{escape(x_label)}</text>')
    for s, name in enumerate(series):
        points = [(left + i * step, y_of(v), v, xs[i]) for i, v in enumerate(values[s]) if v is not None]
        if len(points) > 1:
            body.append(f'<polyline class="mark" fill="none" stroke="{colour(s)}" stroke-width="2" '
                        f'points="{" ".join(f"{_n(px)},{_n(py)}" for px, py, _, _ in points)}"/>')
        for px, py, v, x in points:
            body.append(f'<circle class="mark" cx="{_n(px)}" cy="{_n(py)}" r="3" fill="{colour(s)}">'
                        f'<title>{escape(f"{name}, {x}: {v:.4f}")}</title></circle>')
    body += legend(series, left + plot_w + 20, top)
    return _svg(left + plot_w + 170, base + 40, body, title)


def stacked_bars(rows: Sequence[tuple[str, Sequence[float]]], parts: Sequence[str], title: str) -> str:
    """Horizontal 100% stacks: ``(label, shares)`` per row, one segment per ``parts`` entry."""
    left, width, row_h = 60.0, 360.0, 24.0
    body = [f'<text x="{_n(left)}" y="14" font-weight="bold">{escape(title)}</text>']
    for r, (label, shares) in enumerate(rows):
        y = 24 + r * row_h
        body.append(f'<text x="{_n(left - 6)}" y="{_n(y + 15)}" text-anchor="end">{escape(label)}</text>')
        x = left
        total = sum(shares) or 1.0
        for p, share in enumerate(shares):
            w = width * share / total
            body.append(f'<rect class="mark" x="{_n(x)}" y="{_n(y + 3)}" width="{_n(w)}" height="{_n(row_h - 6)}" fill="{colour(p)}">'
                        f'<title>{escape(f"{label} {parts[p]}: {share / total:.1%}")}</title></rect>')
            x += w
    body += legend(parts, left + width + 20, 24)
    return _svg(left + width + 140, max(30 + row_h * len(rows), 24 + 16 * len(parts)) + 10, body, title)


def squarify(sizes: Sequence[float], x: float, y: float, w: float, h: float) -> list[tuple[float, float, float, float]]:
    """Squarified treemap layout (Bruls, Huizing & van Wijk 2000) of ``sizes`` sorted descending, in input order."""
    total = float(sum(sizes)) or 1.0
    scaled = [s * w * h / total for s in sizes]
    rects: list[tuple[float, float, float, float]] = []
    row: list[float] = []
    i = 0

    def worst(items: list[float], side: float) -> float:
        s = sum(items)
        return max(max(side * side * v / (s * s), (s * s) / (side * side * v)) for v in items) if s and side else float("inf")

    while i < len(scaled):
        side = min(w, h)
        if not row or worst(row + [scaled[i]], side) <= worst(row, side):
            row.append(scaled[i])
            i += 1
            continue
        x, y, w, h = _lay_row(row, x, y, w, h, rects)
        row = []
    if row:
        _lay_row(row, x, y, w, h, rects)
    return rects


def _lay_row(row: list[float], x: float, y: float, w: float, h: float, rects: list) -> tuple[float, float, float, float]:
    s = sum(row)
    if w >= h:  # a column on the left
        cw = s / h if h else 0.0
        cy = y
        for v in row:
            rh = v / cw if cw else 0.0
            rects.append((x, cy, cw, rh))
            cy += rh
        return x + cw, y, w - cw, h
    rh = s / w if w else 0.0
    cx = x
    for v in row:
        cw = v / rh if rh else 0.0
        rects.append((cx, y, cw, rh))
        cx += cw
    return x, y + rh, w, h - rh


def purity_colour(purity: float | None) -> str:
    """Red (purity 0.5 or less) through yellow (0.75) to green (1.0); grey when unknown."""
    if purity is None:
        return "#cccccc"
    t = min(max((purity - 0.5) / 0.5, 0.0), 1.0)
    low, high, u = ((215, 48, 39), (254, 224, 139), t * 2) if t < 0.5 else ((254, 224, 139), (26, 152, 80), t * 2 - 1)
    return "#" + "".join(f"{round(a + (b - a) * u):02x}" for a, b in zip(low, high))


def treemap(nodes: Sequence[dict], title: str, width: float = 720.0, height: float = 420.0) -> str:
    """Two-level treemap: ``nodes`` are ``{"id", "size", "purity", "children": [{"id", "size", "purity"}]}``."""
    top = 20.0
    body = [f'<text x="2" y="14" font-weight="bold">{escape(title)}</text>']
    nodes = sorted(nodes, key=lambda n: (-n["size"], n["id"]))
    for node, (x, y, w, h) in zip(nodes, squarify([n["size"] for n in nodes], 0, top, width, height)):
        children = sorted(node.get("children") or [], key=lambda n: (-n["size"], n["id"]))
        inner = squarify([c["size"] for c in children], x + 2, y + 2, max(w - 4, 0), max(h - 4, 0)) if children else []
        body.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" fill="{purity_colour(node.get("purity"))}" '
                    f'stroke="#333" stroke-width="1.5"><title>{escape(_tip(node))}</title></rect>')
        for child, (cx, cy, cw, ch) in zip(children, inner):
            body.append(f'<rect class="mark" x="{_n(cx)}" y="{_n(cy)}" width="{_n(cw)}" height="{_n(ch)}" '
                        f'fill="{purity_colour(child.get("purity"))}" stroke="#fff" stroke-width="0.5"><title>{escape(_tip(child))}</title></rect>')
        if w > 40 and h > 14:
            body.append(f'<text x="{_n(x + 3)}" y="{_n(y + 12)}" font-weight="bold" pointer-events="none">{escape(node["id"])} ({node["size"]:,})</text>')
    return _svg(width, height + top + 2, body, title)


def _tip(node: dict) -> str:
    purity = node.get("purity")
    return f"cluster {node['id']}: {node['size']:,} items, purity {'–' if purity is None else f'{purity:.3f}'}"

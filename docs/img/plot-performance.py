#!/usr/bin/env python3
"""Draws the figures of docs/performance.md as SVG, from the tables of that page.

The numbers are read from docs/performance.md itself, so the pictures cannot drift from the text:
re-run this script after changing a table there. Python 3 standard library only.

    python3 docs/img/plot-performance.py           # writes docs/img/*.svg
    python3 docs/img/plot-performance.py --check   # exit 1 if a committed SVG is not what the page gives

Figures:
    load-balance.svg    shift congestion of dmodc, minhop and updn on the degraded PGFTs of the
                        "Load balance under failures" table, with the cut bound
    routing-growth.svg  Dmodc and Dmodk routing time against fabric size ("Growth with size")
"""

import math
import re
import sys
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
PAGE = HERE.parent / "performance.md"

ENGINES = [("dmodc", "#1f6fb4"), ("minhop", "#e8822a"), ("updn", "#3a9a3a")]
FONT = 'font-family="DejaVu Sans, Helvetica, Arial, sans-serif"'


class PageError(Exception):
    """The page does not hold the table a figure needs, in the expected shape."""


def section(text, heading):
    """The text under `heading` (a whole line) up to the next heading of the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = text.splitlines()
    try:
        start = lines.index(heading)
    except ValueError:
        raise PageError(f"{PAGE.name}: no heading '{heading}'")
    out, in_code = [], False
    for line in lines[start + 1:]:
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else re.match(r"^(#+) ", line)  # '# ...' in a code block is a comment
        if m and len(m.group(1)) <= level:
            break
        out.append(line)
    return "\n".join(out)


def tables(text):
    """Every Markdown table of `text` as a list of dicts keyed by the header cells."""
    result, rows = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            if len(rows) >= 2 and set("".join(rows[1])) <= set("-: "):
                result.append([dict(zip(rows[0], r)) for r in rows[2:]])
            rows = []
    return result


def median_max(cell, where):
    """'3 (4)' -> (3.0, 4.0): median and maximum over the seeds."""
    m = re.fullmatch(r"([0-9.]+) \(([0-9.]+)\)", cell.replace("**", ""))
    if not m:
        raise PageError(f"{PAGE.name}: {where}: expected 'median (max)', got '{cell}'")
    return float(m.group(1)), float(m.group(2))


def number(cell, where):
    m = re.match(r"\**([0-9][0-9,.]*)", cell)
    if not m:
        raise PageError(f"{PAGE.name}: {where}: expected a number, got '{cell}'")
    return float(m.group(1).replace(",", ""))


def load_balance(text):
    """[(title, [(removed, cut, {engine: (median, max)})])] per fabric of the load-balance table."""
    body = section(text, "## Load balance under failures")
    found = [t for t in tables(body) if t and "dmodc shift max" in t[0] and "fabric" in t[0]]
    if not found:
        raise PageError(f"{PAGE.name}: no table with 'fabric' and 'dmodc shift max' columns in the load-balance section")
    fabrics = {}
    for row in found[0]:
        where = f"{row['fabric']}, {row['removed']}"
        fabrics.setdefault(row["fabric"], []).append(
            (row["removed"], median_max(row["cut"], where),
             {e: median_max(row[f"{e} shift max"], where) for e, _ in ENGINES}))
    return list(fabrics.items())


def growth(text):
    """[(nodes, {engine: (median, min)})] of the 'Growth with size' table."""
    body = section(text, "### Growth with size")
    for t in tables(body):
        if t and "dmodc total" in t[0]:
            points = []
            for row in t:
                where = f"Growth with size, k = {row['k']}"
                d = re.fullmatch(r"([0-9.]+) \(([0-9.]+)\)", row["dmodc total"])
                k = re.fullmatch(r"([0-9.]+) \(([0-9.]+)\)", row["dmodk total"])
                if not d or not k:
                    raise PageError(f"{PAGE.name}: {where}: expected 'median (min)' totals")
                points.append((number(row["nodes"], where), {"dmodc": (float(d.group(1)), float(d.group(2))),
                                                             "dmodk": (float(k.group(1)), float(k.group(2)))}))
            return points
    raise PageError(f"{PAGE.name}: 'Growth with size' has no table with a 'dmodc total' column")


class Svg:
    def __init__(self, width, height):
        self.width, self.height, self.parts = width, height, []

    def add(self, element):
        self.parts.append(element)

    def text(self, x, y, s, size=12, anchor="start", weight="normal", fill="#222", rotate=None):
        transform = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate else ""
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" {FONT} font-size="{size}" text-anchor="{anchor}" '
                 f'font-weight="{weight}" fill="{fill}"{transform}>{escape(s)}</text>')

    def line(self, x1, y1, x2, y2, stroke="#222", width=1.0, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
                 f'stroke-width="{width}"{d}/>')

    def rect(self, x, y, w, h, fill, title=None):
        t = f"<title>{escape(title)}</title>" if title else ""
        self.add(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}">{t}</rect>')

    def render(self):
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}">\n'
                f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(self.parts) + "\n</svg>\n")


def nice_ticks(top):
    """Round tick steps from 0 to at least `top`."""
    for step in (1, 2, 5, 10, 20, 50, 100):
        if top / step <= 6:
            return [i * step for i in range(int(math.ceil(top / step)) + 1)]
    return [0, top]


def draw_load_balance(fabrics):
    cols, panel_w, panel_h = 2, 460, 270
    rows = (len(fabrics) + cols - 1) // cols
    svg = Svg(cols * panel_w + 40, rows * panel_h + 110)
    svg.text(svg.width / 2, 26, "Shift congestion under failures: routes on the busiest link (lower is better)",
             size=16, anchor="middle", weight="bold")
    svg.text(svg.width / 2, 46, "bar: median over 20 seeds; whisker: maximum; dashed: cut bound no routing can go"
             " below (docs/performance.md)", size=12, anchor="middle", fill="#555")
    lx = svg.width / 2 - 170
    for i, (engine, colour) in enumerate(ENGINES):
        svg.rect(lx + i * 110, 58, 14, 14, colour)
        svg.text(lx + i * 110 + 20, 70, engine, size=13)
    svg.line(lx + 330, 65, lx + 354, 65, dash="5,3", width=1.5)
    svg.text(lx + 360, 70, "cut bound", size=13)
    for n, (title, groups) in enumerate(fabrics):
        ox, oy = 20 + (n % cols) * panel_w, 90 + (n // cols) * panel_h
        left, top, width, height = ox + 50, oy + 30, panel_w - 80, panel_h - 95
        highest = max(max(v[1] for v in g[2].values()) for g in groups)
        ticks = nice_ticks(highest)
        scale = height / ticks[-1]
        svg.text(ox + panel_w / 2 - 10, oy + 14, title, size=13, anchor="middle", weight="bold")
        for t in ticks:
            y = top + height - t * scale
            svg.line(left, y, left + width, y, stroke="#ddd")
            svg.text(left - 6, y + 4, f"{t:g}", size=11, anchor="end", fill="#555")
        svg.line(left, top + height, left + width, top + height)
        group_w = width / len(groups)
        bar_w = group_w / (len(ENGINES) + 1.2)
        for g, (removed, cut, values) in enumerate(groups):
            gx = left + g * group_w + bar_w * 0.6
            for i, (engine, colour) in enumerate(ENGINES):
                med, mx = values[engine]
                x = gx + i * bar_w
                svg.rect(x + 1, top + height - med * scale, bar_w - 2, med * scale, colour,
                         title=f"{engine}, {removed}: median {med:g}, max {mx:g}")
                cx = x + bar_w / 2
                svg.line(cx, top + height - mx * scale, cx, top + height - med * scale, stroke="#333")
                svg.line(cx - 4, top + height - mx * scale, cx + 4, top + height - mx * scale, stroke="#333")
            y = top + height - cut[0] * scale
            svg.line(gx - 3, y, gx + len(ENGINES) * bar_w + 3, y, dash="5,3", width=1.5)
            label = removed.replace(" links", "").replace(" + 4 switches", " + 4 sw.")
            svg.text(gx + len(ENGINES) * bar_w / 2, top + height + 16, label, size=11, anchor="middle")
        svg.text(left + width / 2, top + height + 34, "switch links removed", size=11, anchor="middle", fill="#555")
        svg.text(ox + 14, top + height / 2, "routes", size=11, anchor="middle", fill="#555", rotate=-90)
    return svg.render()


def draw_growth(points):
    svg = Svg(640, 420)
    left, top, width, height = 80, 70, 520, 270
    svg.text(svg.width / 2, 26, "Routing time against fabric size (2 threads, warm JIT)", size=16,
             anchor="middle", weight="bold")
    svg.text(svg.width / 2, 46, "PGFT(3;k,k,2k;1,k,k;1,1,1), k = 8, 16, 24, 32: median of 51 runs, whisker down to"
             " the minimum", size=12, anchor="middle", fill="#555")
    xs = [p[0] for p in points]
    ys = [v for p in points for e in p[1].values() for v in e]
    x0, x1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))

    def px(x):
        return left + (math.log10(x) - x0) / (x1 - x0) * width

    def py(y):
        return top + height - (math.log10(y) - y0) / (y1 - y0) * height

    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        svg.line(left, y, left + width, y, stroke="#ddd")
        svg.text(left - 8, y + 4, f"{10 ** e:g} ms", size=11, anchor="end", fill="#555")
    for e in range(x0, x1 + 1):
        x = px(10 ** e)
        svg.line(x, top, x, top + height, stroke="#ddd")
        svg.text(x, top + height + 18, f"{10 ** e:,}", size=11, anchor="middle", fill="#555")
    svg.line(left, top + height, left + width, top + height)
    svg.line(left, top, left, top + height)
    svg.text(left + width / 2, top + height + 40, "end nodes (log scale)", size=12, anchor="middle", fill="#555")
    colours = {"dmodc": ENGINES[0][1], "dmodk": "#8a3ab9"}
    for i, (engine, colour) in enumerate(colours.items()):
        coords = [(px(x), py(v[engine][0])) for x, v in points]
        svg.add('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                % (colour, " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)))
        for (x, v), (cx, cy) in zip(points, coords):
            svg.line(cx, cy, cx, py(v[engine][1]), stroke=colour)
            svg.add(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{colour}"><title>{engine}, '
                    f'{x:,.0f} nodes: median {v[engine][0]:g} ms, min {v[engine][1]:g} ms</title></circle>')
        svg.rect(left + 20, top + 10 + i * 20, 14, 14, colour)
        svg.text(left + 40, top + 22 + i * 20, engine, size=13)
    return svg.render()


def main(argv):
    check = "--check" in argv[1:]
    text = PAGE.read_text(encoding="utf-8")
    try:
        figures = {"load-balance.svg": draw_load_balance(load_balance(text)),
                   "routing-growth.svg": draw_growth(growth(text))}
    except PageError as e:
        print(f"plot-performance: {e}", file=sys.stderr)
        return 2
    stale = []
    for name, svg in figures.items():
        path = HERE / name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != svg:
                stale.append(name)
        else:
            path.write_text(svg, encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parent.parent)}")
    if stale:
        print("plot-performance: out of date with docs/performance.md: " + ", ".join(stale)
              + " (run python3 docs/img/plot-performance.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

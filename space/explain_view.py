"""What the Which ROUGE? tab shows, built from ``rouge_exact.explain``'s result: the table of
conventions (the ones that give the reported figures marked), the walk between two of them as
a chart (each step's move, per type) and a table, and the examples each step moves most with
their tokens before and after it. Scores are shown as papers print them, F x 100; the exact
floats are kept in data- attributes (the tests read them). Styles: assets/space.css."""

import difflib
import html

from .limits import WALK_TOKENS_SHOWN
from .render import (DECISION_COLORS, FINE_STEPS, MEASURES, NO_DECISION_COLOR, chart_pair,
                     nice_max)

# a step's move: up green, down red, none grey (the Compare tab's better, worse, undecided)
UP, DOWN, NONE = DECISION_COLORS["better"], DECISION_COLORS["worse"], NO_DECISION_COLOR


def points(value: float, decimals: int = 2) -> str:
    """A score as papers print it: x 100, 2 decimals."""
    return f"{value * 100:.{decimals}f}"


def moved_points(delta) -> str:
    """A step's move in points, signed: 2 decimals, 4 for a smaller move, and "<0.0001" for
    one smaller still (rounding to 0 would hide that it moved)."""
    value = float(delta) * 100
    if value == 0:
        return "0"
    if abs(value) >= 0.01:
        return f"{value:+.2f}"
    if abs(value) >= 0.0001:
        return f"{value:+.4f}"
    return ("+" if value > 0 else "-") + "<0.0001"


# --------------------------------------------------------------------------------------------
# The conventions


def match_html(matched) -> str:
    """The reverse lookup's answer in the package's own words, the figures as it read them
    (a figure given as a string keeps its decimals: 40.90)."""
    if matched is None:
        return ""
    given = ", ".join(f"{html.escape(k)}={html.escape(v)}" for k, v in matched.figures.items())
    found = "found" if matched.found else "none"
    mark = "✓ " if matched.found else ""
    return (f'<div class="explain-match {found}" id="explain-match" role="status">'
            f'<p class="caption">Reported figures: <code>{given}</code></p>'
            f"<p><b>{mark}{html.escape(matched.summary())}</b></p></div>")


def conventions_html(explained, a: str, b: str) -> str:
    """The table: one row per convention, its name and signature, and per type F x 100 with P
    and R beneath; the rows that give the reported figures marked ✓ (the nearest ≈ when none
    does), the walk's two ends marked from and to."""
    types = explained.types()
    matched = explained.matched
    matches = {name for name, _ in matched.matches} if matched is not None else set()
    nearest = {name for name, _ in matched.nearest} - matches \
        if matched is not None and not matched.found else set()
    rows = []
    for row in explained.rows:
        badges = []
        if row.name in matches:
            badges.append('<span class="badge match">✓ matches</span>')
        elif row.name in nearest:
            badges.append('<span class="badge nearest">≈ nearest</span>')
        for end, label in ((a, "from"), (b, "to")):
            if row.name == end:
                badges.append(f'<span class="badge end">{label}</span>')
        cells = []
        for t in types:
            scores = row.scores.get(t)
            if scores is None:
                cells.append(f'<td class="missing" data-type="{html.escape(t)}" title="this '
                             f'convention does not score {html.escape(t)}">–</td>')
                continue
            values = " ".join(f'data-{m}="{scores[m]!r}"' for m in MEASURES)
            cells.append(f'<td class="explain-cell" data-type="{html.escape(t)}" {values}>'
                         f'<span class="num">{points(scores["fmeasure"])}</span>'
                         f'<span class="pr">P {points(scores["precision"])}</span>'
                         f'<span class="pr">R {points(scores["recall"])}</span></td>')
        kind = " match" if row.name in matches else " nearest" if row.name in nearest else ""
        rows.append(f'<tr class="convention{kind}" data-name="{html.escape(row.name)}" '
                    f'data-match="{str(row.name in matches).lower()}"><th scope="row">'
                    f'<span class="conv-name">{html.escape(row.name)}</span>'
                    f'{"".join(badges)}<code class="sig">{html.escape(row.signature)}</code>'
                    f'</th>{"".join(cells)}</tr>')
    head = "".join(f"<th>{html.escape(t)}</th>" for t in types)
    return (f'<div class="table-wrap"><table class="rouge-table explain" id="explain-table" '
            f'style="--cols: {min(4, len(types))}">'
            f"<thead><tr><th>Convention</th>{head}</tr></thead><tbody>{''.join(rows)}"
            "</tbody></table></div>")


def conventions_panel_html(explained, walk, source: str, warnings: str = "") -> str:
    """The tab's first panel: what was scored, the metric's warnings, the match, the table
    (the walk's two ends marked)."""
    count = explained.count
    header = (f'<p class="corpus-header" id="explain-header"><b>{count:,} example'
              f'{"s" if count != 1 else ""}</b> from {html.escape(source)} · '
              f"{len(explained.rows)} conventions</p>")
    caption = ('<p class="caption">Each convention scores the same texts: F × 100 in bold, '
               "precision and recall beneath (corpus scores, as <code>compute(detailed=True)"
               "</code> reports them); under each name, its signature. <code>compute(**options)"
               "</code> of a row's options gives its numbers.</p>")
    return (header + warnings + match_html(explained.matched) + caption
            + conventions_html(explained, walk.start, walk.end))


# --------------------------------------------------------------------------------------------
# The walk


def walk_chart_svg(walk, narrow: bool = False) -> str:
    """Each step's move of F per type as a bar from zero (right: up, green; left: down, red),
    and the whole gap below them, on one scale for every type. Wide: the types side by side,
    up to 4 a band; narrow (phones): one type a band."""
    types = list(walk.gap)
    labels = [s.setting for s in walk.steps] + ["whole gap"]
    deltas = [[float(s.delta[t]["fmeasure"]) for s in walk.steps] + [
        float(walk.gap[t]["fmeasure"])] for t in types]
    scale = nice_max(max([abs(d) for column in deltas for d in column] + [0.0]) * 100,
                     FINE_STEPS)
    width = 400 if narrow else 760
    char_w = 8.0 if narrow else 7.5
    left = max(110.0, char_w * max(map(len, labels)) + 14)
    per_band = 1 if narrow else min(4, len(types))
    col_w = (width - left - 4) / per_band
    row_h, head_h = 26, 44
    bands = [types[k:k + per_band] for k in range(0, len(types), per_band)]
    band_h = head_h + row_h * len(labels) + 10
    legend = ["F × 100: each step's move", f"(bars on one scale, ±{scale:g} at the edges)"]
    if not narrow:
        legend = [" ".join(legend)]
    first = 8 + 18 * len(legend)
    height = first + band_h * len(bands)
    variant = "narrow" if narrow else "wide"
    parts = [f'<svg class="chart walk-chart {variant}" id="walk-chart{"-narrow" * narrow}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="How much each step of the '
             f'walk from {html.escape(walk.start)} to {html.escape(walk.end)} moves F x 100, '
             'per type" xmlns="http://www.w3.org/2000/svg">']
    parts += [f'<text x="4" y="{16 + 18 * k}" class="legend muted">{html.escape(line)}</text>'
              for k, line in enumerate(legend)]
    for k, band in enumerate(bands):
        top = first + band_h * k
        body = top + head_h
        for j, name in enumerate(labels):
            cy = body + row_h * (j + 0.5)
            last = j == len(labels) - 1
            parts.append(f'<text x="{left - 8:.1f}" y="{cy + 4:.1f}" text-anchor="end" '
                         f'class="label{" total" if last else ""}">{html.escape(name)}</text>')
        parts.append(f'<line x1="4" x2="{width - 4}" y1="{body + row_h * (len(labels) - 1)}" '
                     f'y2="{body + row_h * (len(labels) - 1)}" class="grid"/>')
        for c, t in enumerate(band):
            x0 = left + col_w * c
            mid = x0 + col_w / 2
            half = col_w / 2 - 6
            start = walk.start_scores[t]["fmeasure"]
            end = walk.end_scores[t]["fmeasure"]
            parts.append(f'<text x="{mid:.1f}" y="{top + 16}" text-anchor="middle" '
                         f'class="label type-name">{html.escape(t)}</text>'
                         f'<text x="{mid:.1f}" y="{top + 34}" text-anchor="middle" class="tick">'
                         f"{points(start)} → {points(end)}</text>"
                         f'<line x1="{mid:.1f}" x2="{mid:.1f}" y1="{body - 2}" '
                         f'y2="{body + row_h * len(labels)}" class="axis"/>')
            column = deltas[types.index(t)]
            for j, (name, d) in enumerate(zip(labels, column)):
                cy = body + row_h * (j + 0.5)
                reach = half * min(1.0, abs(d) * 100 / scale)
                color = UP if d > 0 else DOWN if d < 0 else NONE
                x = mid if d >= 0 else mid - reach
                text_x, anchor = (mid - 5, "end") if d > 0 else (mid + 5, "start")
                exact = walk.gap[t]["fmeasure"] if j == len(labels) - 1 else \
                    walk.steps[j].delta[t]["fmeasure"]
                bar_h = 14 if j == len(labels) - 1 else 12
                parts.append(
                    f'<g class="walk-bar" data-type="{html.escape(t)}" '
                    f'data-step="{html.escape(name)}" data-delta="{d!r}">'
                    f"<title>{html.escape(t)}, {html.escape(name)}: {moved_points(d)} points "
                    f"(exactly {exact.numerator}/{exact.denominator})</title>"
                    f'<rect x="{x:.1f}" y="{cy - bar_h / 2:.1f}" width="{max(reach, 1.5):.1f}" '
                    f'height="{bar_h}" rx="2" fill="{color}"/>'
                    f'<text x="{text_x:.1f}" y="{cy + 4:.1f}" text-anchor="{anchor}" '
                    f'class="tick value">{moved_points(d)}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def walk_table_html(walk) -> str:
    """The walk as a table: the start's F x 100, each step's move (with the setting before
    and after it), the end's F and the whole gap; 4 decimals (the moves are exact)."""
    types = list(walk.gap)
    head = "".join(f"<th>{html.escape(t)}</th>" for t in types)

    def scores(label: str, kind: str, values: dict) -> str:
        cells = "".join(f'<td class="num" data-type="{html.escape(t)}" '
                        f'data-value="{values[t]["fmeasure"]!r}">'
                        f'{points(values[t]["fmeasure"], 4)}</td>' for t in types)
        return f'<tr class="{kind}"><th scope="row">{label}</th>{cells}</tr>'

    rows = [scores(f'<span class="muted">from</span> {html.escape(walk.start)}', "start",
                   walk.start_scores)]
    for step in walk.steps:
        cells = "".join(
            f'<td class="num" data-type="{html.escape(t)}" '
            f'data-delta="{float(step.delta[t]["fmeasure"])!r}">'
            f'{float(step.delta[t]["fmeasure"]) * 100:+.4f}</td>' for t in types)
        rows.append(f'<tr class="step" data-step="{html.escape(step.setting)}"><th scope="row">'
                    f'{html.escape(step.setting)}<span class="change">{html.escape(step.before)}'
                    f" → {html.escape(step.after)}</span></th>{cells}</tr>")
    rows.append(scores(f'<span class="muted">to</span> {html.escape(walk.end)}', "end",
                       walk.end_scores))
    gap = "".join(f'<td class="num" data-type="{html.escape(t)}" '
                  f'data-delta="{float(walk.gap[t]["fmeasure"])!r}">'
                  f'{float(walk.gap[t]["fmeasure"]) * 100:+.4f}</td>' for t in types)
    rows.append(f'<tr class="gap"><th scope="row">whole gap</th>{gap}</tr>')
    return (f'<div class="table-wrap"><table class="rouge-table walk" id="walk-table" '
            f'style="--cols: {min(4, len(types))}"><thead>'
            f"<tr><th>F × 100</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            "</div>")


BREAK = None  # a sentence break among the tokens


def _flat(sentences: list) -> list:
    out: list = []
    for k, sentence in enumerate(sentences):
        if k:
            out.append(BREAK)
        out.extend(sentence)
    return out


def _tokens_html(tokens: list, changed: set, total: int) -> str:
    words = []
    for k, token in enumerate(tokens):
        if token is BREAK:
            words.append('<span class="sb" title="sentence break">│</span>')
        else:
            cls = ' class="chg"' if k in changed else ""
            words.append(f"<span{cls}>{html.escape(token)}</span>")
    more = total - len(tokens)
    tail = f' <span class="more">… {more:,} more</span>' if more > 0 else ""
    return f'<p class="toks" dir="auto">{" ".join(words)}{tail}</p>'


def tokens_pair_html(label: str, before: list, after: list) -> str:
    """A text's tokens either side of a step (the first WALK_TOKENS_SHOWN of each), the
    tokens that differ marked; once when the step leaves them as they were."""
    flat_b, flat_a = _flat(before), _flat(after)
    count_b = sum(map(len, before))
    count_a = sum(map(len, after))
    shown_b, shown_a = flat_b[:WALK_TOKENS_SHOWN], flat_a[:WALK_TOKENS_SHOWN]
    if flat_b == flat_a:
        return (f'<div class="toks-pair same"><p class="toks-label">{html.escape(label)}: '
                f"{count_b:,} tokens, the same either side</p>"
                f"{_tokens_html(shown_b, set(), len(flat_b))}</div>")
    changed_b, changed_a = set(), set()
    matcher = difflib.SequenceMatcher(None, shown_b, shown_a, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            changed_b.update(range(i1, i2))
            changed_a.update(range(j1, j2))
    return (f'<div class="toks-pair"><p class="toks-label">{html.escape(label)}, before '
            f"({count_b:,} tokens)</p>{_tokens_html(shown_b, changed_b, len(flat_b))}"
            f'<p class="toks-label">after ({count_a:,} tokens)</p>'
            f"{_tokens_html(shown_a, changed_a, len(flat_a))}</div>")


def moved_html(walk, examples: int) -> str:
    """The examples each step moves most (their row from 1, the type they move most, its F
    before and after), with their tokens either side of the step."""
    blocks = []
    for step in walk.steps:
        if not step.moved:
            continue
        items = []
        for m in step.moved:
            texts = [tokens_pair_html("Prediction", *m.prediction_tokens)]
            several = len(m.reference_tokens) > 1
            texts += [tokens_pair_html(f"Reference {j + 1}" if several else "Reference", *pair)
                      for j, pair in enumerate(m.reference_tokens)]
            items.append(
                f'<div class="moved-example" data-index="{m.index}" '
                f'data-type="{html.escape(m.rouge_type)}" data-before="{m.before!r}" '
                f'data-after="{m.after!r}"><p class="moved-head"><b>Row {m.index + 1:,}</b> · '
                f"{html.escape(m.rouge_type)} F {points(m.before)} → {points(m.after)} "
                f"({moved_points(m.after - m.before)})</p>{''.join(texts)}</div>")
        count = len(step.moved)
        blocks.append(
            f'<details class="moved" data-step="{html.escape(step.setting)}"'
            f'{" open" if not blocks else ""}><summary><b>{html.escape(step.setting)}</b>: the '
            f'{count} example{"s" if count != 1 else ""} it moves most</summary>'
            f"{''.join(items)}</details>")
    if examples == 0:
        return ('<p class="note">The texts are too long to show the examples each step moves '
                "with their tokens here; the numbers above are complete.</p>")
    if not blocks:
        return '<p class="note">No step moves any example\'s F.</p>'
    return (f'<h4>The examples each step moves most</h4><p class="caption">Row numbers count from '
            "1. The tokens each step counts before and after it, the ones that differ marked "
            f"(the first {WALK_TOKENS_SHOWN} of each text; │ marks a sentence break).</p>"
            + "".join(blocks))


def walk_html(walk, examples: int, notes: list = ()) -> str:
    """The tab's second panel: the walk's chart, its table and the examples it moves."""
    title = (f'<h4 id="walk-title">From <code>{html.escape(walk.start)}</code> to '
             f"<code>{html.escape(walk.end)}</code>, one setting at a time</h4>")
    extra = "".join(f'<p class="note">{html.escape(n)}</p>' for n in notes)
    if not walk.steps:
        return (f'<div id="walk-inner">{title}{extra}<p class="note" id="walk-none">The two '
                "conventions have the same settings: there is nothing to walk.</p></div>")
    caption = ('<p class="caption">Each step changes one setting of the first convention to '
               "the second's, in this order; the moves add up to the whole gap exactly.</p>")
    return (f'<div id="walk-inner">{title}{extra}{caption}'
            f"{chart_pair(walk_chart_svg, walk)}{walk_table_html(walk)}"
            f"{moved_html(walk, examples)}</div>")

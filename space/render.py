"""What the page shows, built from the metric's results: the score tables (HTML, Markdown,
LaTeX), the matched tokens, the metric's warnings and errors, and the charts (inline SVG, so
they scale with the page and need no plotting library). Every score is shown with 4 decimals;
the exact float is kept in a data- attribute, which the browser tests read. The styles are in
assets/space.css."""

import html
import math
import os
import re

import gradio as gr
import numpy as np

from rouge_exact.kinds import skip_bigram_matches
from rouge_exact.options import parse_rouge_type

from .limits import PREVIEW_CHARS, SKIP_PAIRS_SHOWN, WORST_SHOWN

MEASURES = ("precision", "recall", "fmeasure")
BAR_COLORS = {"precision": "#6366f1", "recall": "#14b8a6", "fmeasure": "#f59e0b"}


def fmt(value: float) -> str:
    """Every score on the page: 4 decimals."""
    return f"{value:.4f}"


# --------------------------------------------------------------------------------------------
# One example


def _table_rows(scores: dict, opts=None) -> str:
    rows = []
    for name, values in scores.items():
        cells = "".join(
            f'<td class="score {key}" data-value="{v!r}"><span class="num">{fmt(v)}</span>'
            f'<span class="bar"><span style="width:{max(0.0, min(1.0, v)) * 100:.1f}%;'
            f'background:{BAR_COLORS[key]}"></span></span></td>'
            for key, v in zip(MEASURES, values))
        rows.append(f'<tr data-type="{html.escape(name)}"><th scope="row">{html.escape(name)}'
                    f"{type_note(opts, name)}</th>{cells}</tr>")
    return "".join(rows)


def type_note(opts, name: str) -> str:
    """A note under a type's name where the language profile makes it degenerate: XL-Sum's
    rougeLsum neither segments nor pre-tokenizes its lines, so in a script written without
    spaces (the languages with a segmenter) each line is about one token."""
    language = getattr(getattr(opts, "tokenizer", None), "language", None)
    if language is None or not language.segmenter or \
            parse_rouge_type(name).kind != "Lsum":
        return ""
    return (f'<span class="type-note">with lang={html.escape(language.code)}, each line is '
            "one token here (XL-Sum's rougeLsum does not segment): see rougeL</span>")


def _f_head(alpha: float) -> str:
    # the symbol keeps its case under the header's text-transform (α, not Α)
    return "F<sub>1</sub>" if alpha == 0.5 else \
        f'F (<span class="symbol">α</span> = {alpha:g})'



def scores_table_html(scored: dict) -> str:
    """The Example tab's table (P, R, F per type), each reference's F, the warnings."""
    opts = scored["opts"]
    table = ('<div class="table-wrap"><table class="rouge-table" id="rouge-scores"><thead><tr>'
             f'<th>Type</th><th>Precision</th><th>Recall</th><th>{_f_head(opts.alpha)}</th>'
             f'</tr></thead><tbody>{_table_rows(scored["scores"], opts)}</tbody></table></div>')
    return table + per_reference_html(scored) + warnings_html(scored["warnings"])


def per_reference_html(scored: dict) -> str:
    """F against each reference alone, with the reference the score uses starred."""
    per_ref = scored["per_reference"]
    if not per_ref:
        return ""
    n_refs = len(next(iter(per_ref.values()))[0])
    mode = scored["opts"].multi_ref
    head = "".join(f"<th>Ref {k + 1}</th>" for k in range(n_refs))
    rows = []
    for name, (alone, chosen) in per_ref.items():
        cells = []
        for k in range(n_refs):
            p, r, f = (float(v) for v in alone[k])
            mark = k == chosen
            cells.append(f'<td class="score{" chosen" if mark else ""}" data-ref="{k + 1}" '
                         f'data-value="{f!r}" title="P {fmt(p)} · R {fmt(r)} · F {fmt(f)}">'
                         f'<span class="num">{fmt(f)}{" ★" if mark else ""}</span></td>')
        rows.append(f'<tr data-type="{html.escape(name)}"><th scope="row">'
                    f'{html.escape(name)}</th>{"".join(cells)}</tr>')
    how = {"max": "★ the reference with the best F, which the score above uses (max)",
           "best": "★ the reference with the best recall, which the score above uses "
                   "(best: ROUGE-1.5.5's -f B, py-rouge's apply_best)",
           "average": "the score above pools the references' counts (average: ROUGE-1.5.5's "
                      "-f A, py-rouge's apply_avg): no single reference is chosen",
           "max_pr": "the score above takes the best precision and the best recall, maybe "
                     "of two references (max_pr, coco-caption's): no single reference is "
                     "chosen",
           "mean_prf": "the score above averages the references' P, R and F, each on its "
                       "own (mean_prf, torchmetrics' accumulate=\"avg\"): no single "
                       "reference is chosen"}[mode]
    return (f'<details class="per-ref" open><summary>F against each reference alone</summary>'
            f'<div class="table-wrap"><table class="rouge-table" id="per-reference"><thead><tr>'
            f'<th>Type</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
            f'<p class="caption">{html.escape(how)}. Hover a cell for P and R.</p></details>')


def warnings_html(messages: list) -> str:
    """The metric's warnings, one list item each, pointing at the page's control."""
    if not messages:
        return ""
    controls = [("lang=", "Language, above the tabs"),
                ("tokenizer=\"unicode\"", "Options → Tokenizer → unicode"),
                ("split_sentences=True", "Options → Tokenizer → Split sentences"),
                ("use_stemmer", "Options → Stemmer"),
                ("n_samples", "Aggregation and bootstrap → Bootstrap samples (Corpus), "
                              "Test → Trials / resamples (Compare)")]
    items = []
    for message in messages:
        hint = [page for code, page in controls if code in message]
        items.append(f"<li>{html.escape(message)}"
                     + (f' <span class="control">On this page: {html.escape(hint[0])}.</span>'
                        if hint else "") + "</li>")
    return f'<ul class="warnings" id="warnings" role="status">{"".join(items)}</ul>'


COMMAND_AFTER = "with no limit: "  # limits.refused: the message ends with the CLI command


def _command_html(command: str) -> str:
    """A command as code that wraps between its words and after its commas, never inside a
    word ("rougeLs um")."""
    return ('<code class="command">' + html.escape(command).replace(",", ",<wbr>")
            + "</code>")


def error_html(error: gr.Error, element_id: str) -> str:
    """An error in place of the results it invalidates (no stale numbers beside it); a
    refusal's CLI command as code."""
    title = getattr(error, "title", "Error") or "Error"
    message = str(error.message)
    text, found, command = message.partition(COMMAND_AFTER)
    body = html.escape(text + found) + (_command_html(command) if found else "")
    return (f'<div class="error-panel" id="{element_id}" role="alert"><b>{html.escape(title)}'
            f'</b><p>{body}</p></div>')


def table_markdown(scores: dict) -> str:
    """The Example tab's table as Markdown, for copying."""
    lines = ["| Type | Precision | Recall | F |", "|---|---:|---:|---:|"]
    lines += [f"| {name} | " + " | ".join(fmt(v) for v in values) + " |"
              for name, values in scores.items()]
    return "\n".join(lines)


def table_latex(scores: dict) -> str:
    """The Example tab's table as a booktabs LaTeX tabular, for copying."""
    lines = [r"\begin{tabular}{lrrr}", r"\toprule", r"Type & P & R & F \\", r"\midrule"]
    lines += [f"{name.replace('_', chr(92) + '_')} & "
              + " & ".join(fmt(v) for v in values) + r" \\" for name, values in scores.items()]
    return "\n".join(lines + [r"\bottomrule", r"\end{tabular}"])


# --------------------------------------------------------------------------------------------
# One example: the matched tokens


def token_spans(text: str, words: list, opts) -> list | None:
    """(start, end) in ``text`` of each of ROUGE's tokens ``words``: the tokenizer run on each
    whitespace-separated chunk of the text (no tokenizer produces a token across whitespace),
    narrowed to its letters and digits when the chunk gives one token. None when the chunk
    tokens do not line up with ``words``."""
    memo: dict = {}
    spans: list = []
    token_options = dict(stemmer=opts.stemmer, stopwords=opts.remove_stopwords)
    for match in re.finditer(r"\S+", text):
        chunk = match.group()
        if chunk not in memo:
            # the tokenizer of the options the metric checked (RougeOptions.build): tokens_of
            # would check the options again for each chunk (3x the time on 20,000 tokens)
            memo[chunk] = [w for s in opts.tokenizer.tokens(chunk, **token_options) for w in s]
        pieces = memo[chunk]
        if not pieces:
            continue
        start, end = match.span()
        if len(pieces) == 1:
            a, b = start, end
            while a < b and not text[a].isalnum():
                a += 1
            while b > a and not text[b - 1].isalnum():
                b -= 1
            start, end = (a, b) if a < b else (start, end)
        if words[len(spans):len(spans) + len(pieces)] != pieces:
            return None
        spans.extend(_piece_spans(text, start, end, pieces) if len(pieces) > 1
                     else [(start, end)])
    return spans if len(spans) == len(words) else None


def _piece_spans(text: str, start: int, end: int, pieces: list) -> list:
    """Each token's own characters within one chunk (日本語 -> 日, 本, 語): the tokens found
    there in order as they are (lower-cased); a token of whitespace only (a segmenter may
    return one where punctuation was) gets an empty span. Else the whole chunk for each."""
    lowered = text[start:end].lower()
    if len(lowered) == end - start:
        spans, pos = [], 0
        for piece in pieces:
            if not piece.strip():
                spans.append((start + pos, start + pos))
                continue
            found = lowered.find(piece, pos)
            if found < 0:
                break
            spans.append((start + found, start + found + len(piece)))
            pos = found + len(piece)
        else:
            return spans
    return [(start, end)] * len(pieces)


def _runs(marks, limit: int) -> list:
    """[(first, last)] of each run of consecutive marked tokens among the first ``limit``."""
    runs, start = [], None
    for k in range(min(limit, len(marks))):
        if marks[k] and start is None:
            start = k
        if start is not None and (not marks[k] or k + 1 == min(limit, len(marks))):
            runs.append((start, k if marks[k] else k - 1))
            start = None
    return runs


def highlight_html(label: str, text: str, words: list, marks, opts, drawn: int,
                   with_runs: bool = False, element_id: str = "", more_coming: bool = False) -> str:
    """One text with ROUGE's tokens marked (matched / not matched), right to left where the
    text is (dir="auto"); its first `drawn` tokens (more_coming: the rest is on its way)."""
    limit = min(len(words), drawn)
    spans = token_spans(text, words, opts)
    if spans is None:  # show ROUGE's own tokens instead of the text
        text = " ".join(words[:limit])
        spans, pos = [], 0
        for w in words[:limit]:
            spans.append((pos, pos + len(w)))
            pos += len(w) + 1
    run_of = {}
    if with_runs:
        for first, last in _runs(marks, limit):
            for k in range(first, last + 1):
                run_of[k] = last - first + 1
    out, pos, k = [], 0, 0
    while k < limit:
        start, end = spans[k]
        matched = bool(marks[k])
        j = k + 1
        while j < limit and spans[j] == spans[k]:  # one chunk, several tokens
            matched = matched or bool(marks[j])
            j += 1
        if start == end:  # a token with no characters of its own (whitespace)
            k = j
            continue
        out.append(html.escape(text[pos:start]))
        title = f' title="run of {run_of[k]}"' if k in run_of else ""
        css = ("m run" if k in run_of else "m") if matched else "u"
        out.append(f'<span class="{css}"{title}>{html.escape(text[start:end])}</span>')
        pos, k = end, j
    cut = len(words) - limit
    tail = html.escape(text[pos:]) if not cut else ""
    if not cut:
        more = ""
    elif more_coming:
        more = f'<p class="more drawing">… drawing {cut:,} more tokens</p>'
    else:
        more = (f'<p class="more">… {cut:,} more tokens not drawn; tick <b>Show all tokens</b> '
                "to draw them.</p>")
    matched = int(np.count_nonzero(marks))
    return (f'<div class="hl-block"{f" id={element_id!r}" if element_id else ""}>'
            f'<div class="hl-label">{html.escape(label)} <span class="muted">· {len(words):,} '
            f'tokens, {matched:,} marked</span></div><div class="hl-text" dir="auto">'
            f'{"".join(out)}{tail}</div>{more}</div>')


def explain_html(rouge_type, n_refs: int, best: int) -> str:
    what = rouge_type.spec.explain(rouge_type)  # the metric's kind says what is marked
    against = f"reference {best + 1} (the one its score uses)" if n_refs > 1 else \
        "the reference"
    return (f'<p class="caption"><b>{html.escape(rouge_type.name)}</b>: marked are the {what}.'
            f" The prediction is marked against {against}; each reference against the "
            "prediction. Unmarked text is not a token.</p>")


def skip_pairs_html(result, rouge_type) -> str:
    _, _, words_p, words_r = result
    ids: dict = {}
    a = [ids.setdefault(w, len(ids)) for w in words_p]
    b = [ids.setdefault(w, len(ids)) for w in words_r]
    word_of = {v: k for k, v in ids.items()}
    shared = skip_bigram_matches(a, b, rouge_type.max_skip)
    if not shared:
        return '<p class="note">No shared skip-bigrams.</p>'
    chips = "".join(f'<li><span class="m">{html.escape(word_of[x])}</span> … '
                    f'<span class="m">{html.escape(word_of[y])}</span> × {c}</li>'
                    for (x, y), c in shared[:SKIP_PAIRS_SHOWN])
    return (f'<p class="caption">Shared skip-bigrams ({len(shared):,} distinct, most frequent '
            f'first):</p><ul class="pairs" id="skip-pairs">{chips}</ul>')


# --------------------------------------------------------------------------------------------
# A corpus


def summary_html(result: dict, confidence: float, aggregation: str, opts=None) -> str:
    """The Corpus tab's table: each cell the aggregate and its bootstrap interval."""
    names = [k for k in result if k not in ("signature", "count")]
    rows = []
    for name in names:
        cells = "".join(
            f'<td class="score {key}" data-mid="{result[name][key]["mid"]!r}" '
            f'data-low="{result[name][key]["low"]!r}" data-high="{result[name][key]["high"]!r}">'
            f'<span class="num">{fmt(result[name][key]["mid"])}</span><span class="ci">'
            f'{fmt(result[name][key]["low"])}–<wbr>{fmt(result[name][key]["high"])}</span></td>'
            for key in MEASURES)
        rows.append(f'<tr data-type="{html.escape(name)}"><th scope="row">{html.escape(name)}'
                    f"{type_note(opts, name)}</th>{cells}</tr>")
    what = ("the mean over" if aggregation == "macro"
            else "P/R/F of the counts summed over") + f" {result['count']:,} examples"
    return ('<div class="table-wrap"><table class="rouge-table" id="corpus-scores"><thead><tr>'
            '<th>Type</th><th>Precision</th><th>Recall</th><th>F</th></tr></thead><tbody>'
            f'{"".join(rows)}</tbody></table></div><p class="caption">Each cell: {what}, and '
            f'below it the {confidence:.0%} bootstrap interval.</p>')


def chart_pair(draw, *args) -> str:
    """A chart drawn twice: wide (760 units) and narrow (400 units, larger text); the page
    shows the one that fits its box (a container query in space.css), so that chart text is
    at least 11 px on a 360 px phone and on a desktop alike."""
    return (f'<div class="chart-box">{draw(*args, narrow=False)}{draw(*args, narrow=True)}'
            "</div>")


def _variant(narrow: bool, element_id: str) -> str:
    return f'class="chart narrow" id="{element_id}-narrow"' if narrow else \
        f'class="chart wide" id="{element_id}"'


def bar_chart_svg(result: dict, confidence: float, narrow: bool = False) -> str:
    """Grouped bars (P, R, F per type) with the bootstrap interval as error bars; the type
    names turned when they do not fit under their group."""
    types = [k for k in result if k not in ("signature", "count")]
    width = 400 if narrow else 760
    char_w = 8.0 if narrow else 7.5  # the label's monospace advance per character
    left, right, top = (40, 8, 52) if narrow else (48, 16, 34)
    group_w = (width - left - right) / max(len(types), 1)
    longest = max([len(t) for t in types] + [1])
    turned = longest * char_w > group_w - 4
    bottom = int(longest * char_w * 0.72) + 20 if turned else 44
    height = (260 if narrow else 300) + (bottom - 44)
    plot_h = height - top - bottom
    bar_w = min(34.0, group_w * 0.8 / 3)

    def y(v):
        return top + plot_h * (1 - max(0.0, min(1.0, v)))

    parts = [f'<svg {_variant(narrow, "corpus-bar-chart")} viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="P, R and F per ROUGE type with {confidence:.0%} '
             'bootstrap intervals" xmlns="http://www.w3.org/2000/svg">']
    for tick in np.linspace(0, 1, 6):
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" '
                     f'y2="{y(tick):.1f}" class="grid"/><text x="{left - 6}" '
                     f'y="{y(tick) + 4:.1f}" text-anchor="end" class="tick">{tick:.1f}</text>')
    for g, name in enumerate(types):
        x0 = left + g * group_w + (group_w - 3 * bar_w) / 2
        for k, key in enumerate(MEASURES):
            e = result[name][key]
            bx = x0 + k * bar_w
            cx = bx + bar_w / 2
            parts.append(
                f'<rect x="{bx + 1:.1f}" y="{y(e["mid"]):.1f}" width="{bar_w - 2:.1f}" '
                f'height="{top + plot_h - y(e["mid"]):.1f}" fill="{BAR_COLORS[key]}" rx="2">'
                f'<title>{name} {key}: {fmt(e["mid"])} [{fmt(e["low"])}, {fmt(e["high"])}]'
                f'</title></rect><g class="errorbar"><line x1="{cx:.1f}" x2="{cx:.1f}" '
                f'y1="{y(e["low"]):.1f}" y2="{y(e["high"]):.1f}"/><line x1="{cx - 4:.1f}" '
                f'x2="{cx + 4:.1f}" y1="{y(e["low"]):.1f}" y2="{y(e["low"]):.1f}"/><line '
                f'x1="{cx - 4:.1f}" x2="{cx + 4:.1f}" y1="{y(e["high"]):.1f}" '
                f'y2="{y(e["high"]):.1f}"/></g>')
        cx, ly = left + (g + 0.5) * group_w, height - bottom + 18
        if turned:
            parts.append(f'<text x="{cx:.1f}" y="{ly - 4}" text-anchor="end" class="label" '
                         f'transform="rotate(-45 {cx:.1f} {ly - 4})">{html.escape(name)}</text>')
        else:
            parts.append(f'<text x="{cx:.1f}" y="{ly}" text-anchor="middle" class="label">'
                         f'{html.escape(name)}</text>')
    lx = left
    for key, label in (("precision", "Precision"), ("recall", "Recall"), ("fmeasure", "F")):
        parts.append(f'<rect x="{lx}" y="10" width="12" height="12" rx="2" '
                     f'fill="{BAR_COLORS[key]}"/><text x="{lx + 17}" y="21" class="legend">'
                     f'{label}</text>')
        lx += 30 + 8 * len(label)
    note = f"error bars: {confidence:.0%} bootstrap interval"
    where = f'x="{left}" y="42"' if narrow else f'x="{width - right}" y="21" text-anchor="end"'
    parts.append(f'<text {where} class="legend muted">{note}</text><line x1="{left}" '
                 f'x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}" class="axis"/>'
                 "</svg>")
    return "".join(parts)


def histogram_svg(values: np.ndarray, name: str, bins: int = 20, narrow: bool = False) -> str:
    """Histogram of per-example F in [0, 1], with the mean marked."""
    width, height = (400, 240) if narrow else (760, 260)
    left, right, top, bottom = (40, 12, 58, 36) if narrow else (48, 16, 40, 40)
    plot_w, plot_h = width - left - right, height - top - bottom
    counts, edges = np.histogram(np.clip(values, 0, 1), bins=bins, range=(0.0, 1.0))
    nice = nice_max(max(int(counts.max()), 1))
    parts = [f'<svg {_variant(narrow, "corpus-histogram")} viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="Distribution of per-example {name} F" '
             'xmlns="http://www.w3.org/2000/svg">']
    steps = next((k for k in (5, 4, 2) if (nice / k).is_integer()), 1)
    for tick in np.linspace(0, nice, steps + 1):
        ty = top + plot_h * (1 - tick / nice)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{ty:.1f}" y2="{ty:.1f}" '
                     f'class="grid"/><text x="{left - 6}" y="{ty + 4:.1f}" text-anchor="end" '
                     f'class="tick">{tick:g}</text>')
    bw = plot_w / bins
    for k, c in enumerate(counts):
        h = plot_h * c / nice
        parts.append(f'<rect x="{left + k * bw + 1:.1f}" y="{top + plot_h - h:.1f}" '
                     f'width="{bw - 2:.1f}" height="{h:.1f}" fill="{BAR_COLORS["fmeasure"]}" '
                     f'rx="2"><title>F in [{edges[k]:.2f}, {edges[k + 1]:.2f}): {c} examples'
                     '</title></rect>')
    for tick in np.linspace(0, 1, 6 if narrow else 11):
        parts.append(f'<text x="{left + plot_w * tick:.1f}" y="{height - bottom + 18}" '
                     f'text-anchor="middle" class="tick">{tick:.1f}</text>')
    mean = float(np.mean(values)) if len(values) else 0.0
    mx = left + plot_w * max(0.0, min(1.0, mean))
    anchor, label_x = ("end", mx - 6) if mean > 0.6 else ("start", mx + 6)
    title = f"{html.escape(name)} F per example ({len(values):,} examples)"
    parts.append(f'<line x1="{mx:.1f}" x2="{mx:.1f}" y1="{top - 4}" y2="{top + plot_h}" '
                 f'class="mean"/><text x="{label_x:.1f}" y="{top - 8}" text-anchor="{anchor}" '
                 f'class="legend mean-label">mean {fmt(mean)}</text><text x="{left}" y="18" '
                 f'class="legend">{title}</text><line x1="{left}" x2="{width - right}" '
                 f'y1="{top + plot_h}" y2="{top + plot_h}" class="axis"/></svg>')
    return "".join(parts)


ROUND_STEPS = (1, 2, 2.5, 5, 10)  # a chart's edge: one of these times a power of ten
FINE_STEPS = (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10)  # closer to the value (the walk's chart)


def nice_max(value: float, steps: tuple = ROUND_STEPS) -> float:
    """A round number at least ``value`` (one of ``steps`` times a power of ten), for a
    chart's edge; 1.0 for nothing to show. (A value a float's last bit above a round number
    gets that number.)"""
    if value <= 0:
        return 1.0
    magnitude = 10.0 ** math.floor(math.log10(value))
    return float(next(s * magnitude for s in steps if s * magnitude >= value * 0.999999))


def _preview(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS - 1] + "…"


def worst_html(state: dict, name: str) -> str:
    """The examples with the lowest F of one type, worst first."""
    f = state["scores"][name][:, 2]
    order = np.argsort(f, kind="stable")[:WORST_SHOWN]
    rows = []
    for k in order.tolist():
        refs = state["references"][k]
        more = f' <span class="muted">(+{len(refs) - 1} more)</span>' if len(refs) > 1 else ""
        rows.append(f'<tr><td class="num">{k + 1:,}</td><td class="num">{fmt(float(f[k]))}'
                    f'</td><td dir="auto">{html.escape(_preview(state["predictions"][k]))}'
                    f'</td><td dir="auto">{html.escape(_preview(refs[0]))}{more}</td></tr>')
    return (f'<p class="caption">The {len(rows)} examples with the lowest {html.escape(name)} '
            'F (row numbers count from 1).</p><div class="table-wrap worst-wrap">'
            '<table class="rouge-table worst" id="corpus-worst-table"><thead><tr><th>Row</th>'
            '<th>F</th><th>Prediction</th><th>Reference</th></tr></thead><tbody>'
            f'{"".join(rows)}</tbody></table></div>')


def _corpus_cells(result: dict):
    names = [k for k in result if k not in ("signature", "count")]
    return [(name, [f"{fmt(result[name][m]['mid'])} ({fmt(result[name][m]['low'])}–"
                    f"{fmt(result[name][m]['high'])})" for m in MEASURES]) for name in names]


def corpus_markdown(result: dict) -> str:
    """The Corpus tab's table as Markdown (each cell: mid (low–high))."""
    lines = ["| Type | Precision | Recall | F |", "|---|---:|---:|---:|"]
    return "\n".join(lines + [f"| {n} | " + " | ".join(c) + " |"
                              for n, c in _corpus_cells(result)])


def corpus_latex(result: dict) -> str:
    """The Corpus tab's table as LaTeX (each cell: mid ± half the interval)."""
    names = [k for k in result if k not in ("signature", "count")]
    lines = [r"\begin{tabular}{lrrr}", r"\toprule", r"Type & P & R & F \\", r"\midrule"]
    for name in names:
        cells = [f"{fmt(result[name][m]['mid'])}$_{{\\pm "
                 f"{fmt((result[name][m]['high'] - result[name][m]['low']) / 2)}}}$"
                 for m in MEASURES]
        lines.append(f"{name} & " + " & ".join(cells) + r" \\")
    return "\n".join(lines + [r"\bottomrule", r"\end{tabular}"])


# --------------------------------------------------------------------------------------------
# Compared systems


def _signed(value: float) -> str:
    return f"{value:+.4f}"


# colours of the metric's decisions (each result's "decision" field): the page never decides
DECISION_COLORS = {"better": "#15803d", "worse": "#b91c1c"}
NO_DECISION_COLOR = "#64748b"


def chart_labels(names: list, limit: int = 16) -> dict:
    """A short label per system name, distinct where the names are: the names as they are when
    all fit in ``limit`` characters; else without their common prefix ("…" in its place) and
    shortened in the middle; the full names when two labels would still be the same."""
    if all(len(name) <= limit for name in names):
        return {name: name for name in names}
    prefix = os.path.commonprefix(list(names)) if len(names) > 1 else ""
    # every label keeps at least one character of its own, and a word cut by the prefix
    # keeps its start ("out_bert", "out_bart": "…bert", "…bart", not "…ert", "…art")
    prefix = prefix[:max(0, min(len(name) for name in names) - 1)]
    cut = max(prefix.rfind(mark) for mark in "/_-. ")
    prefix = prefix[:cut + 1] if cut >= 0 else prefix
    labels = {}
    for name in names:
        label = ("…" + name[len(prefix):]) if len(prefix) > 1 else name
        if len(label) > limit:
            head = (limit - 1) // 2
            label = label[:head] + "…" + label[len(label) - (limit - 1 - head):]
        labels[name] = label
    if len(set(labels.values())) < len(labels):
        return {name: name for name in names}
    return labels


def delta_chart_svg(result: dict, baseline: str, rouge_type: str, confidence: float,
                    narrow: bool = False) -> str:
    """Each system's F difference from the baseline (a dot) with its per-comparison interval
    (a thick whisker) and its family-wise interval (a thin one), around a zero line; coloured
    by the metric's decision: green better, red worse, grey no significant difference."""
    systems = [k for k in result if k not in ("signature", "count", baseline)]
    entries = [result[s][rouge_type]["fmeasure"] for s in systems]
    reach = max([abs(e[k]) for e in entries for k in ("delta_low", "delta_high",
                                                       "delta_low_familywise",
                                                       "delta_high_familywise")] + [0.001])
    reach = nice_max(reach * 1000) / 1000  # symmetric axis, at a round number
    labels = chart_labels([k for k in result if k not in ("signature", "count")])
    # wide: 336 units of plot, the CSS caps its width on desktops; narrow (phones): 230 units
    # of plot and larger text. Full names (labels that would collide) widen the label column.
    longest = max(len(labels[s]) for s in systems)
    char_w = 8.0 if narrow else 7.5
    left, right = max(120 if narrow else 144, char_w * longest + 16), 20 if narrow else 20
    width, row_h, top, bottom = (230 if narrow else 336) + left, 30, 50, 30
    height = top + row_h * len(systems) + bottom
    plot_w = width - left - right

    def x(v):
        return left + plot_w * (0.5 + max(-1.0, min(1.0, v / reach)) / 2)

    variant = "narrow" if narrow else "wide"
    parts = [f'<svg class="chart delta-chart {variant}" data-type="{html.escape(rouge_type)}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(rouge_type)} F '
             f'minus the baseline\'s, with {confidence:.0%} per-comparison and family-wise '
             'intervals" xmlns="http://www.w3.org/2000/svg">'
             f'<text x="4" y="17" class="legend">Δ F vs {html.escape(labels[baseline])}</text>'
             f'<text x="4" y="35" class="legend muted">{confidence:.0%} intervals: thick '
             + ("per-comp., thin family-wise" if narrow else "per-comparison, thin family-wise")
             + "</text>"]
    for tick in np.linspace(-reach, reach, 3 if narrow else 5):
        parts.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top - 4}" '
                     f'y2="{height - bottom}" class="{"axis" if tick == 0 else "grid"}"/>'
                     f'<text x="{x(tick):.1f}" y="{height - bottom + 18}" text-anchor="middle" '
                     f'class="tick">{tick:+.3g}</text>')
    for row, (name, e) in enumerate(zip(systems, entries)):
        cy = top + row_h * (row + 0.5)
        color = DECISION_COLORS.get(e["decision"], NO_DECISION_COLOR)
        parts.append(
            f'<g class="delta" data-system="{html.escape(name)}" '
            f'data-label="{html.escape(labels[name])}" '
            f'data-decision="{html.escape(e["decision"])}" '
            f'data-delta="{e["delta"]!r}" data-low="{e["delta_low"]!r}" '
            f'data-high="{e["delta_high"]!r}" '
            f'data-low-familywise="{e["delta_low_familywise"]!r}" '
            f'data-high-familywise="{e["delta_high_familywise"]!r}">'
            f'<title>{html.escape(e["verdict"])}</title>'
            f'<text x="{left - 10}" y="{cy + 4:.1f}" text-anchor="end" class="label">'
            f'{html.escape(labels[name])}</text>'
            f'<line class="familywise" x1="{x(e["delta_low_familywise"]):.1f}" '
            f'x2="{x(e["delta_high_familywise"]):.1f}" y1="{cy:.1f}" y2="{cy:.1f}" '
            f'stroke="{color}" stroke-width="1"/>'
            + "".join(f'<line class="familywise" x1="{x(e[end]):.1f}" x2="{x(e[end]):.1f}" '
                      f'y1="{cy - 5:.1f}" y2="{cy + 5:.1f}" stroke="{color}" stroke-width="1"/>'
                      for end in ("delta_low_familywise", "delta_high_familywise"))
            + f'<line class="per-comparison" x1="{x(e["delta_low"]):.1f}" '
            f'x2="{x(e["delta_high"]):.1f}" y1="{cy:.1f}" y2="{cy:.1f}" stroke="{color}" '
            'stroke-width="3"/>'
            f'<circle cx="{x(e["delta"]):.1f}" cy="{cy:.1f}" r="5" fill="{color}"/></g>')
    parts.append("</svg>")
    return "".join(parts)


def _interval(kind: str, low: float, high: float) -> str:
    """An interval of a difference under the label of its kind (on a line of its own)."""
    return (f'<span class="kind">{kind}</span><span class="ci {kind}">{_signed(low)}–'
            f'{_signed(high)}</span>')


def comparison_html(result: dict, baseline: str, confidence: float, test: str = "") -> str:
    """The Compare tab's results: per type, the chart of differences, the table (each
    interval labelled per-comparison or family-wise, each p raw or Holm) and each system's
    verdict; the colours and stars are the metric's decisions."""
    systems = [k for k in result if k not in ("signature", "count")]
    types = list(result[systems[0]])
    blocks = []
    for t in types:
        rows, verdicts = [], []
        for s in systems:
            e = result[s][t]["fmeasure"]
            cells = [f'<td class="num" data-score="{e["score"]!r}">{fmt(e["score"])}'
                     f'<span class="ci">{fmt(e["low"])}–{fmt(e["high"])}</span></td>']
            if s == baseline:
                cells.append('<td colspan="2" class="muted">baseline</td>')
            else:
                decided = e["decision"] in DECISION_COLORS
                tone = {"better": " sig-up", "worse": " sig-down"}.get(e["decision"], "")
                intervals = (_interval("per-comparison", e["delta_low"], e["delta_high"])
                             + _interval("family-wise", e["delta_low_familywise"],
                                         e["delta_high_familywise"]))
                cells.append(
                    f'<td class="num{tone}" data-decision="{html.escape(e["decision"])}">'
                    f'{_signed(e["delta"])}{intervals}</td>'
                    f'<td class="num" data-p="{e["p_value"]!r}" '
                    f'data-p-holm="{e["p_value_holm"]!r}"><span class="kind">Holm</span>'
                    f'{fmt(e["p_value_holm"])}'
                    f'{" *" if decided else ""}<span class="ci">raw {fmt(e["p_value"])}'
                    '</span></td>')
                verdicts.append(f'<li data-system="{html.escape(s)}" '
                                f'data-decision="{html.escape(e["decision"])}" dir="auto">'
                                f'{html.escape(e["verdict"])}</li>')
            shown = re.sub(r"([_/.-])", r"\1<wbr>", html.escape(s))  # breaks in long names
            rows.append(f'<tr data-system="{html.escape(s)}"><th scope="row" dir="auto">'
                        f'{shown}</th>{"".join(cells)}</tr>')
        chart = chart_pair(delta_chart_svg, result, baseline, t, confidence)
        blocks.append(f'<h4>{html.escape(t)} F</h4>{chart}<div class="table-wrap"><table '
                      f'class="rouge-table compare" data-type="{html.escape(t)}"><thead><tr>'
                      '<th>System</th><th>F</th><th>Δ vs baseline</th><th>p</th>'
                      '</tr></thead><tbody>'
                      f'{"".join(rows)}</tbody></table></div><ul class="verdicts" '
                      f'data-type="{html.escape(t)}">{"".join(verdicts)}</ul>')
    others = len(systems) - 1
    level = f"{round(1 - confidence, 12):g}"
    how = f" by the {html.escape(test)} test" if test else ""
    return (f'<p class="caption">{result["count"]:,} rows, {others} '
            f'system{"s" if others != 1 else ""} compared with the baseline{how}. Under each '
            f"score its {confidence:.0%} interval; under each Δ its {confidence:.0%} "
            "per-comparison interval (this system alone) and family-wise interval "
            f"(Bonferroni over the {others}). p is two-sided: Holm-adjusted over the {others}"
            f", the raw p below it. Green / red and * : the metric's decision, Holm's p below "
            f"{level}.</p>{''.join(blocks)}")

"""app.py end to end: the Gradio app started as a subprocess on a free localhost port, driven
in headless Chromium with Playwright, and called through gradio_client.

Every number the page shows is compared with ``metric.compute`` on the same input (the metric
loaded through evaluate.load, as conftest does), never with numbers written here. The browser
tests also save the screenshots in docs/ (docs/screenshot.png: the single-example tab after
scoring; docs/screenshot_corpus.png: the corpus tab after scoring a JSONL file).

Needs Debian's Chromium at /usr/bin/chromium (``apt-get install chromium``; never
``playwright install``) and the playwright and gradio_client packages. Without them the browser
tests are skipped, except when $CI is set: then they fail.
"""
import csv
import io
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
DOCS = ROOT / "docs"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
VIEWPORT = {"width": 1320, "height": 900}
FIRST_SCORE_TIMEOUT_MS = 150_000  # the app compiles the numba kernels once at start (~20-30 s)
TIMEOUT_MS = 60_000
MATCHED_RGB = "34, 197, 94"  # app.COLOR_MAP["matched"] (#22c55e) as the page renders it

PRED = "the cat sat on the mat"
REF = "the cat lay on the mat"
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW", "rougeSU4"]


def _require(available: bool, hint: str) -> None:
    """Skip with a hint, or fail when CI is set (the browser tests must never be skipped in CI)."""
    if available:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{hint} ($CI is set, so this test fails instead of skipping)")
    pytest.skip(hint)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------------------------
# Fixtures: the app, the browser, a page


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    """python app.py on a free port (caches shared with the test session, see conftest)."""
    port = _free_port()
    tmp = tmp_path_factory.mktemp("app")
    env = dict(os.environ)
    env.update(GRADIO_SERVER_PORT=str(port), GRADIO_SERVER_NAME="127.0.0.1",
               GRADIO_ANALYTICS_ENABLED="False", GRADIO_TEMP_DIR=str(tmp / "gradio"),
               HF_HUB_OFFLINE="1", HF_EVALUATE_OFFLINE="1", PYTHONUNBUFFERED="1")
    log_path = tmp / "app.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, str(APP)], cwd=str(tmp), env=env, stdout=log,
                                stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"app.py exited with {proc.returncode}:\n{log_path.read_text()}")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"app.py did not answer on {url} in 90 s:\n{log_path.read_text()}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log_text = log_path.read_text(errors="replace")
        assert "Traceback" not in log_text, log_text


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    _require(sync_playwright is not None,
             "the playwright package is missing: pip install playwright (the Python package "
             "only; the browser comes from Debian)")
    _require(Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is not None,
             f"no Chromium at {CHROMIUM}: apt-get install chromium (never `playwright "
             "install`), or set CHROMIUM_PATH")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, app_url):
    """A fresh page on the app; any request that leaves localhost is refused."""
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    outside = []

    def only_localhost(route):
        url = route.request.url
        if url.startswith(("http://127.0.0.1", "data:", "blob:")):
            return route.continue_()
        outside.append(url)
        return route.abort()

    page.route("**/*", only_localhost)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(app_url)
    # the page scores its prefilled example on load: the first time waits for the kernels
    page.wait_for_selector("#rouge-scores", timeout=FIRST_SCORE_TIMEOUT_MS)
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def _gradio_client():
    try:
        from gradio_client import Client
    except ImportError:
        Client = None
    _require(Client is not None, "the gradio_client package is missing: pip install gradio_client")
    return Client


# --------------------------------------------------------------------------------------------
# Page helpers


def _scores_table(page, selector: str = "#rouge-scores") -> dict:
    """{type: {"precision"|"recall"|"fmeasure": (shown number, data-value)}} read off the page."""
    out = {}
    for row in page.locator(f"{selector} tbody tr").all():
        name = row.locator("th").inner_text().strip()
        out[name] = {}
        for key in ("precision", "recall", "fmeasure"):
            cell = row.locator(f"td.{key}")
            out[name][key] = (float(cell.locator(".num").inner_text()),
                              cell.get_attribute("data-value"))
    return out


def _highlighted_tokens(page, selector: str):
    """(marked texts, unmarked texts) of the coloured tokens in a HighlightedText."""
    marked, unmarked = [], []
    for token in page.locator(f"{selector} .token.highlighted").all():
        text = token.inner_text().strip()
        style = token.get_attribute("style") or ""
        (marked if MATCHED_RGB in style else unmarked).append(text)
    return marked, unmarked


def _set_types(page, wanted):
    group = page.locator("#rouge-types")
    for label in group.locator("label").all():
        name = label.inner_text().strip()
        box = label.locator("input[type=checkbox]")
        if box.is_checked() != (name in wanted):
            box.click()


def _corpus_rows(n: int = 240, seed: int = 5):
    """A small news-like corpus: predictions are edited copies of references (words dropped,
    swapped and added), 40% with two sentences, a third with a second reference."""
    base = [
        "police arrested two men after a break-in at the city museum on tuesday",
        "the council approved a new plan to build three hundred homes near the river",
        "heavy rain flooded roads across the region and closed several schools",
        "the company reported higher profits as sales of its new phone rose sharply",
        "scientists found a new species of frog in the mountains of the north",
        "the mayor announced budget cuts that will affect libraries and parks",
        "thousands of people lost power when a storm hit the coast overnight",
        "the team won the final after a late goal in extra time",
        "teachers went on strike over pay and working conditions",
        "prices at the market rose for the third month in a row",
    ]
    extra = "officials said the report also new local first major several".split()
    rng = random.Random(seed)

    def edit(words, keep):
        out = [w for w in words if rng.random() < keep]
        for _ in range(rng.randint(0, 4)):
            out.insert(rng.randint(0, len(out)), rng.choice(extra))
        if rng.random() < 0.25 and len(out) > 3:
            i = rng.randrange(len(out) - 1)
            out[i], out[i + 1] = out[i + 1], out[i]
        return " ".join(out) or rng.choice(extra)

    rows = []
    for _ in range(n):
        sentences = rng.sample(base, 2 if rng.random() < 0.4 else 1)  # one sentence a line
        keep = rng.uniform(0.2, 1.0)
        prediction = "\n".join(edit(s.split(), keep) for s in sentences)
        ref = "\n".join(sentences)
        second = "\n".join(edit(s.split(), 0.8) for s in sentences)
        references = [ref] if rng.random() < 0.66 else [ref, second]
        rows.append({"prediction": prediction,
                     "references": references[0] if len(references) == 1 else references})
    return rows


def _reload_on_corpus_tab(page) -> None:
    page.reload()
    page.wait_for_selector("#rouge-scores")
    page.get_by_role("tab", name="Corpus").click()


def _settle(page) -> None:
    """No hover or focus styles in the screenshots."""
    page.mouse.move(0, 0)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")


def _upload(page, selector: str, path) -> None:
    page.locator(f"{selector} input[type=file]").set_input_files(str(path))


# --------------------------------------------------------------------------------------------
# Browser tests


def test_single_example_scores_and_highlights(page, metric):
    # one reference: the page starts with the two-reference news example
    page.locator("#remove-ref").click()
    page.locator("#reference-2").wait_for(state="hidden")
    page.locator("#prediction textarea").fill(PRED)
    page.locator("#reference-1 textarea").fill(REF)
    _set_types(page, TYPES)
    expected = metric.compute(predictions=[PRED], references=[[REF]], rouge_types=TYPES,
                              detailed=True, use_aggregator=False)
    page.locator("#score-button").click()
    # the page starts with another example already scored: wait until the table shows the
    # new rouge1 F (outputs may render one after the other)
    page.wait_for_function(
        "want => document.querySelector('#rouge-scores tr[data-type=\"rouge1\"] td.fmeasure')"
        "?.getAttribute('data-value') === want", arg=repr(expected["rouge1"]["fmeasure"][0]),
        timeout=180_000)
    page.locator('#rouge-scores tr[data-type="rougeSU4"]').wait_for()
    page.wait_for_function(
        "() => document.querySelector('#highlight-pred')?.innerText.includes('sat')")
    shown = _scores_table(page)
    assert list(shown) == TYPES
    for name in TYPES:
        for key in ("precision", "recall", "fmeasure"):
            number, exact = shown[name][key]
            want = expected[name][key][0]
            assert abs(number - want) <= 5e-5 + 1e-12, (name, key, number, want)
            assert float(exact) == want, (name, key, exact, want)
    assert page.locator("#signature textarea").input_value() == expected["signature"]

    # rouge1: the clipped unigram matches are marked, "sat" / "lay" are not
    marked, unmarked = _highlighted_tokens(page, "#highlight-pred")
    assert marked == ["the", "cat", "on", "the", "mat"]
    assert unmarked == ["sat"]
    marked, unmarked = _highlighted_tokens(page, "#highlight-ref-1")
    assert marked == ["the", "cat", "on", "the", "mat"]
    assert unmarked == ["lay"]
    assert "5 matched unigrams" in page.locator("#highlight-caption").inner_text()

    # rouge2: "cat sat", "sat on", "cat lay", "lay on" are no match; the other bigrams are
    page.locator("#highlight-kind input").click()
    page.get_by_role("option", name="ROUGE-2 (bigrams)").click()
    page.wait_for_function("() => document.querySelector('#highlight-caption')"
                           "?.innerText.includes('2-gram')")
    marked, unmarked = _highlighted_tokens(page, "#highlight-pred")
    assert marked == ["the", "cat", "on", "the", "mat"] and unmarked == ["sat"]
    assert "3 matched 2-grams" in page.locator("#highlight-caption").inner_text()

    # examples show as many reference boxes as they have references
    page.get_by_text("Paraphrases, three references").click()
    page.locator("#reference-3").wait_for(state="visible")
    # a multi-sentence example with two references, for the screenshot
    page.get_by_text("News summary, two references").click()
    page.locator("#reference-3").wait_for(state="hidden")
    page.locator("#reference-2").wait_for(state="visible")
    page.locator("#highlight-kind input").click()
    page.get_by_role("option", name="ROUGE-1 (unigrams)").click()
    page.locator("#score-button").click()
    page.locator("#highlight-ref-2").wait_for(state="visible")
    page.wait_for_function(
        "() => document.querySelector('#highlight-pred')?.innerText.includes('Police')")
    prediction = page.locator("#prediction textarea").input_value()
    references = [page.locator(f"#reference-{k} textarea").input_value() for k in (1, 2)]
    expected = metric.compute(predictions=[prediction], references=[references],
                              rouge_types=TYPES, detailed=True, use_aggregator=False)
    shown = _scores_table(page)
    for name in TYPES:
        assert float(shown[name]["fmeasure"][1]) == expected[name]["fmeasure"][0]
    _settle(page)
    DOCS.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS / "screenshot.png"), full_page=True)


def test_corpus_upload_chart_and_download(page, metric, tmp_path):
    rows = _corpus_rows()
    corpus = tmp_path / "news_corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    predictions = [r["prediction"] for r in rows]
    references = [r["references"] if isinstance(r["references"], list) else [r["references"]]
                  for r in rows]

    page.get_by_role("tab", name="Corpus").click()
    _upload(page, "#corpus-file", corpus)
    page.locator("#corpus-file").get_by_text("news_corpus.jsonl").wait_for()
    page.locator("#corpus-button").click()
    page.locator("#corpus-bar-chart").wait_for()
    page.locator("#corpus-download a").first.wait_for()

    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    expected = metric.compute(predictions=predictions, references=references, rouge_types=types,
                              detailed=True)
    for row in page.locator("#corpus-scores tbody tr").all():
        name = row.get_attribute("data-type")
        for key in ("precision", "recall", "fmeasure"):
            cell = row.locator(f"td.{key}")
            for bound in ("low", "mid", "high"):
                assert float(cell.get_attribute(f"data-{bound}")) == expected[name][key][bound]
    assert page.locator("#corpus-bar-chart rect[height]").count() >= 3 * len(types)
    assert page.locator("#corpus-bar-chart .errorbar").count() == 3 * len(types)
    assert page.locator("#corpus-histogram").count() == 1
    assert page.locator("#corpus-signature textarea").input_value() == expected["signature"]
    assert f"{len(rows)} examples" in page.locator("#corpus-header").inner_text()
    worst = page.locator("#corpus-worst").inner_text()
    per_example = metric.compute(predictions=predictions, references=references,
                                 rouge_types=types, detailed=True, use_aggregator=False)
    worst_index = min(range(len(rows)), key=lambda k: per_example["rouge1"]["fmeasure"][k])
    assert " ".join(predictions[worst_index].split())[:40] in " ".join(worst.split())

    # the per-example CSV behind the download link
    href = page.locator("#corpus-download a").first.get_attribute("href")
    response = page.request.get(urllib.parse.urljoin(page.url, href))
    assert response.ok
    table = list(csv.DictReader(io.StringIO(response.text())))
    assert len(table) == len(rows)
    for k, record in enumerate(table):
        assert record["prediction"] == predictions[k]
        for name in types:
            for key in ("precision", "recall", "fmeasure"):
                assert float(record[f"{name}_{key}"]) == per_example[name][key][k]

    _settle(page)
    DOCS.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS / "screenshot_corpus.png"), full_page=True)


def test_upload_errors_are_shown_in_the_page(page, tmp_path):
    page.get_by_role("tab", name="Corpus").click()

    # over 20 MB: refused before it is uploaded, with a message in the page
    big = tmp_path / "too_big.jsonl"
    line = json.dumps({"prediction": "word " * 200, "references": "word " * 200}) + "\n"
    with open(big, "w", encoding="utf-8") as handle:
        handle.write(line * (21 * 1024 * 1024 // len(line) + 1))
    assert big.stat().st_size > 20 * 1024 * 1024
    _upload(page, "#corpus-file", big)
    page.get_by_text(re.compile(r"exceed the maximum allowed size of 20")).wait_for()
    assert page.get_by_text("too_big.jsonl").count() >= 1  # the toast names the file

    # a bad JSON line: a readable error naming the line
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"prediction": "a", "references": "b"}) + '\n{"prediction": "a",\n',
                   encoding="utf-8")
    _reload_on_corpus_tab(page)
    _upload(page, "#corpus-file", bad)
    page.locator("#corpus-file").get_by_text("bad.jsonl").wait_for()
    page.locator("#corpus-button").click()
    page.get_by_text(re.compile(r"bad\.jsonl, line 2: not valid JSON")).wait_for()

    # text files whose line counts differ
    _reload_on_corpus_tab(page)
    preds = tmp_path / "predictions.txt"
    refs = tmp_path / "references.txt"
    preds.write_text("a b c\nd e f\n", encoding="utf-8")
    refs.write_text("a b c\n", encoding="utf-8")
    _upload(page, "#pred-file", preds)
    _upload(page, "#ref-files", refs)
    page.locator("#ref-files").get_by_text("references.txt").wait_for()
    page.locator("#corpus-button").click()
    page.get_by_text(re.compile(r"Line counts differ: predictions\.txt has 2 lines, "
                                r"references\.txt has 1")).wait_for()


# --------------------------------------------------------------------------------------------
# gradio_client against the running app


def test_api_endpoints_match_compute(app_url, metric):
    Client = _gradio_client()
    client = Client(app_url, verbose=False)

    references = ["the cat lay on the mat", "a cat was sitting on the mat"]
    kwargs = dict(rouge_types=TYPES + ["rougeS", "rouge3"], use_stemmer=True, alpha=0.3,
                  multi_ref="average")
    got = client.predict(prediction=PRED, references=references, api_name="/rouge", **kwargs)
    expected = metric.compute(predictions=[PRED], references=[references], detailed=True,
                              use_aggregator=False, **kwargs)
    assert got["signature"] == expected["signature"]
    for name in kwargs["rouge_types"]:
        for key in ("precision", "recall", "fmeasure"):
            assert got[name][key] == expected[name][key][0], (name, key)

    rows = _corpus_rows(60, seed=11)
    predictions = [r["prediction"] for r in rows]
    corpus_refs = [r["references"] if isinstance(r["references"], list) else [r["references"]]
                   for r in rows]
    got = client.predict(predictions=predictions, references=corpus_refs,
                         rouge_types=["rouge1", "rougeL", "rougeW"], aggregation="micro",
                         n_samples=300, seed=7, api_name="/rouge_corpus")
    expected = metric.compute(predictions=predictions, references=corpus_refs,
                              rouge_types=["rouge1", "rougeL", "rougeW"], aggregation="micro",
                              n_samples=300, seed=7, detailed=True)
    assert got == json.loads(json.dumps(expected))

    # the metric's ValueError comes back as a readable error naming the option
    with pytest.raises(Exception, match="multi_ref"):
        client.predict(prediction=PRED, references=[REF], profile="rouge155", multi_ref="max",
                       api_name="/rouge")
    with pytest.raises(Exception, match="limit is 100,000 characters"):
        client.predict(prediction="word " * 25_000, references=[REF], api_name="/rouge")


# --------------------------------------------------------------------------------------------
# app.py's own logic, imported (no browser): the highlights and the corpus readers


@pytest.fixture(scope="module")
def app_module():
    import app

    return app


def test_highlight_counts_match_the_metric(app_module, metric):
    """The marks the page shows are the matches the metric counts: for ROUGE-1/2 (clipped
    n-grams), ROUGE-L (LCS; union LCS in the rouge155 profile) and ROUGE-Lsum (union LCS per
    sentence), hits / length gives the metric's precision and recall."""
    rng = random.Random(3)
    words = "the cat sat on mat a dog ran in park running runs quickly The Cats".split()

    def text():
        return "\n".join(" ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))
                         for _ in range(rng.randint(1, 3)))

    kinds = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    for _ in range(40):
        prediction, reference = text(), text()
        for profile in ("rouge_score", "rouge155"):
            options = dict(use_stemmer=rng.random() < 0.5, remove_stopwords=rng.random() < 0.3,
                           profile=profile)
            result = metric.compute(predictions=[prediction], references=[[reference]],
                                    rouge_types=kinds, detailed=True, use_aggregator=False,
                                    **options)
            pred = app_module.TokenView(prediction, options)
            ref = app_module.TokenView(reference, options)
            assert pred.aligned and ref.aligned
            for kind in kinds:
                n = int(kind[5:]) if kind[5:].isdigit() else 1
                marks_p, marks_r, hits, _ = app_module.match_marks(kind, pred, ref, profile)
                assert sum(marks_p) >= min(hits, 1) and sum(marks_r) >= min(hits, 1)
                for side, view in (("precision", pred), ("recall", ref)):
                    units = max(len(view.tokens) - n + 1, 0)
                    value = hits / units if units else 0.0
                    want = result[kind][side][0]
                    assert abs(value - want) <= (5e-6 if profile == "rouge155" else 1e-12), (
                        kind, profile, options, prediction, reference, side, value, want)


def test_token_view_marks_the_surface_words(app_module):
    view = app_module.TokenView("The cats, sat.\nOn the MAT!", {"use_stemmer": True})
    assert view.tokens == ["the", "cat", "sat", "on", "the", "mat"]
    shown = view.highlighted([True, True, False, True, True, True])
    assert [t for t, label in shown if label == app_module.MATCH] == ["The", "cats", "On", "the",
                                                                       "MAT"]
    assert [t for t, label in shown if label == app_module.NO_MATCH] == ["sat"]
    assert "".join(t for t, _ in shown) == "The cats, sat.\nOn the MAT!"
    cjk = app_module.TokenView("日本語 café", {"tokenizer": "unicode"})
    assert cjk.aligned and [cjk.text[a:b] for a, b in cjk.spans] == ["日", "本", "語", "café"]


def test_corpus_readers_and_their_errors(app_module, tmp_path):
    import gradio as gr

    def write(name, text):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    load = app_module.load_corpus
    assert load(write("a.jsonl", '{"prediction": "a b", "references": ["a", "b c"]}\n\n'
                                 '{"prediction": "c", "references": "c"}\n'), None, None)[:2] \
        == (["a b", "c"], [["a", "b c"], ["c"]])
    assert load(write("a.csv", 'prediction,references\n"a b","[""a"", ""b""]"\nx,y\n'),
                None, None)[:2] == (["a b", "x"], [["a", "b"], ["y"]])
    assert load(None, write("p.txt", "a\nb\n"), [write("r1.txt", "a\nc\n"),
                                                write("r2.txt", "x\ny\n")])[:2] \
        == (["a", "b"], [["a", "x"], ["c", "y"]])

    cases = [
        ((write("bad.jsonl", '{"prediction": "a", "references": "b"}\n{"prediction": \n'),
          None, None), "bad.jsonl, line 2: not valid JSON"),
        ((write("miss.jsonl", '{"prediction": "a"}\n'), None, None),
         "line 1: missing key “references”"),
        ((write("col.csv", "pred,references\na,b\n"), None, None),
         "missing column “prediction”"),
        ((None, write("p2.txt", "a\nb\n"), [write("r3.txt", "a\n")]),
         "Line counts differ: p2.txt has 2 lines, r3.txt has 1"),
        ((write("long.jsonl", json.dumps({"prediction": "a" * 100_001, "references": "a"})),
          None, None), "limit is 100,000 characters"),
        ((None, None, None), "Upload a corpus"),
    ]
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as handle:
        handle.truncate(20 * 1024 * 1024 + 1)
    cases.append(((str(big), None, None), "uploads are limited to 20 MB"))
    for args, message in cases:
        with pytest.raises(gr.Error) as caught:
            load(*args)
        assert message in str(caught.value.message), (message, caught.value.message)

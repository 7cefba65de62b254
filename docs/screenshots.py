"""Screenshots of the Space for the README: every tab at a phone width (390 px) and a desktop
width (1366 px), after scoring, into docs/.

    python docs/screenshots.py [OUTPUT_DIR]        # default: the folder of this file

Starts ``app.py`` on a free port, drives Debian's Chromium (/usr/bin/chromium, or
$CHROMIUM_PATH) with Playwright, and writes ``screenshot.png`` (desktop, single example) and
``screenshot_<tab>_<width>.png`` for the rest. The corpus, the comparison and Which ROUGE?
(BART's 100 summaries, docs/explain.md's example) use tests/data/realsumm.jsonl when it is
there, else examples/pairs.jsonl. The comparison is cut after its first ROUGE type (the others
look the same; the whole page is 4,000-5,000 px), Which ROUGE? after the first example its walk
moves. The tests never write here.
The page's emoji (the intro's hugging face) need an emoji font (Debian: fonts-noto-color-emoji),
else Chromium draws a box: the script warns when fontconfig has none.
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
WIDTHS = {"phone": (390, 844), "desktop": (1366, 900)}
REALSUMM = ROOT / "tests" / "data" / "realsumm.jsonl"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(tmp: Path):
    port = free_port()
    env = dict(os.environ, GRADIO_SERVER_PORT=str(port), GRADIO_SERVER_NAME="127.0.0.1",
               GRADIO_TEMP_DIR=str(tmp / "gradio"), HF_HUB_OFFLINE="1")
    log = open(tmp / "app.log", "wb")
    proc = subprocess.Popen([sys.executable, str(ROOT / "app.py")], cwd=tmp, env=env,
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    for _ in range(600):
        if proc.poll() is not None:
            raise SystemExit((tmp / "app.log").read_text())
        try:
            urllib.request.urlopen(url, timeout=2)
            return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("app.py did not start")


# the Which ROUGE? tab: BART's 100 CNN/DailyMail summaries of realsumm (docs/explain.md's
# example), the figures rouge155 with -m gives them, and the walk from rouge_score to it
EXPLAIN_SYSTEM = "abs/bart/out"
EXPLAIN_FIGURES = "rouge1=46.51, rouge2=22.16, rougeL=42.92"


def explain_file(tmp: Path) -> Path:
    """A corpus JSONL for the Which ROUGE? tab (examples/pairs.jsonl without realsumm)."""
    if REALSUMM.exists():
        rows = [r for r in map(json.loads, REALSUMM.open(encoding="utf-8"))
                if r["system"] == EXPLAIN_SYSTEM]
    else:
        rows = [json.loads(line) for line in (ROOT / "examples" / "pairs.jsonl").open()]
    path = tmp / "bart.jsonl"
    path.write_text("".join(json.dumps({"prediction": r["prediction"],
                                        "references": r["references"][0]}) + "\n"
                            for r in rows), encoding="utf-8")
    return path


def corpus_files(tmp: Path) -> tuple:
    """(a corpus JSONL, a systems JSONL for the comparison)."""
    if REALSUMM.exists():
        rows = [json.loads(line) for line in REALSUMM.open(encoding="utf-8")]
    else:
        rows = [dict(r, doc=k, system="a") for k, r in
                enumerate(json.loads(line) for line in (ROOT / "examples" / "pairs.jsonl").open())]
    corpus = tmp / "realsumm.jsonl"
    corpus.write_text("".join(json.dumps({"prediction": r["prediction"],
                                          "references": r["references"]}) + "\n"
                              for r in rows), encoding="utf-8")
    by_doc: dict = {}
    for r in rows:
        by_doc.setdefault(r["doc"], {"references": r["references"]})[
            r["system"].replace("/out", "").replace("/", "_")] = r["prediction"]
    systems = sorted(set.intersection(*(set(d) for d in by_doc.values())) - {"references"})[:4]
    compare = tmp / "systems.jsonl"
    compare.write_text("".join(json.dumps({"references": d["references"],
                                           **{s: d[s] for s in systems}}) + "\n"
                               for d in by_doc.values()), encoding="utf-8")
    return corpus, compare


def open_tab(page, name: str) -> None:
    """Click a tab, through Gradio's overflow menu (…) when it does not fit the width."""
    tab = page.get_by_role("tab", name=name)
    if not tab.is_visible():
        page.locator(".overflow-menu button[aria-label='More tabs']").click()
        tab = page.locator(".overflow-dropdown button", has_text=name)
    tab.click()


def uploaded(page, box: str, path: Path, tab: str) -> None:
    """Until the file is in the box and its upload event has reached the page (it marks the
    tab's results stale). Gradio's file list shows the name as two spans, stem and extension
    (textContent " realsumm .jsonl"), so get_by_text(path.name) never matches: the row's
    aria-label holds the whole name."""
    page.locator(f"#{box} td.filename[aria-label={json.dumps(path.name)}]").wait_for()
    page.wait_for_function("t => document.body.classList.contains(t + '-stale')", arg=tab)


def emoji_font() -> bool:
    """Whether fontconfig has a font with U+1F917 (the intro's hugging face)."""
    try:
        found = subprocess.run(["fc-list", ":charset=1f917", "family"], capture_output=True,
                               text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return True  # no fc-list: nothing to say
    return bool(found.strip())


def shoot(page, out: Path, name: str, until: str = "") -> None:
    """A full-page screenshot; with ``until``, cut 16 px below the first element it selects."""
    page.mouse.move(0, 0)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    clip = None
    if until:
        bottom = page.locator(until).first.evaluate(
            "e => e.getBoundingClientRect().bottom + window.scrollY")
        clip = {"x": 0, "y": 0, "width": page.viewport_size["width"], "height": bottom + 16}
    page.screenshot(path=str(out / name), full_page=True, clip=clip)
    print(out / name)


def main(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    if not emoji_font():
        print("warning: no emoji font (apt-get install fonts-noto-color-emoji): the page's "
              "emoji will be drawn as boxes", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="rouge_screenshots_") as folder:
        tmp = Path(folder)
        corpus, systems = corpus_files(tmp)
        explained = explain_file(tmp)
        proc, url = start_app(tmp)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM,
                                            args=["--headless", "--no-sandbox"])
                for label, (width, height) in WIDTHS.items():
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.set_default_timeout(180_000)
                    page.goto(url)
                    page.locator("#rouge-scores").wait_for()
                    page.locator("#hl-pred").wait_for()
                    shoot(page, out, "screenshot.png" if label == "desktop"
                          else f"screenshot_single_{width}.png")
                    open_tab(page, "Corpus")
                    page.locator("#corpus-file input[type=file]").set_input_files(str(corpus))
                    uploaded(page, "corpus-file", corpus, "corpus")
                    page.locator("#corpus-button").click()
                    page.locator("#corpus-bars svg.chart").first.wait_for(state="attached")
                    page.locator("#corpus-worst-table").wait_for()
                    shoot(page, out, f"screenshot_corpus_{width}.png")
                    open_tab(page, "Compare")
                    page.locator("#systems-file input[type=file]").set_input_files(str(systems))
                    uploaded(page, "systems-file", systems, "compare")
                    page.locator("#compare-button").click()
                    page.locator("#compare-results table.compare").first.wait_for()
                    shoot(page, out, f"screenshot_compare_{width}.png",
                          until="#compare-results ul.verdicts")
                    open_tab(page, "Which ROUGE?")
                    page.locator("#explain-file input[type=file]").set_input_files(
                        str(explained))
                    uploaded(page, "explain-file", explained, "explain")
                    page.locator("#explain-figures textarea").fill(EXPLAIN_FIGURES)
                    page.locator("#explain-button").click()
                    page.locator("#explain-walk svg.walk-chart").first.wait_for(
                        state="attached")
                    page.locator("#explain-walk details.moved").first.wait_for()
                    shoot(page, out, f"screenshot_explain_{width}.png",
                          until="#explain-walk .moved-example")
                    open_tab(page, "Usage")
                    page.locator("#usage").wait_for()
                    shoot(page, out, f"screenshot_usage_{width}.png")
                    page.close()
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=20)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)

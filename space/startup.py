"""What ``python app.py`` starts before it serves, so that no visitor waits for it: the
metric's kernels (compiled, or loaded from their cache, in the background) and the Language
menu's segmenters; and the page's note while the kernels compile (``warming_status``)."""

import sys
import threading

import gradio as gr

from rouge_exact.api import compile_kernels
from rouge_exact.text.lang import LANGUAGES, language_tokenizer

# set once every kernel is compiled (or loaded from the cache) and in use
KERNELS_READY = threading.Event()
WARMING_NOTE = (
    '<div class="warming-note" id="warming-note" role="status"><b>Warming up.</b> This fresh '
    "Space is compiling its scoring kernels (%s, once: they are cached). Scores are exact "
    "meanwhile; a long request may be slower until then. This note goes away when they are "
    "ready.</div>")
# measured on a 2-core machine (docs/space.md: the compile, and time to results fresh / warm)
WARMING_FIGURES = ("about 45 s",)


def warming_status():
    """The warming note and the timer that polls it: the note while the kernels compile,
    nothing (and the timer stopped) once they are in."""
    if KERNELS_READY.is_set():
        return "", gr.Timer(active=False)
    return WARMING_NOTE % WARMING_FIGURES, gr.Timer(active=True)


def _compile_and_flag() -> None:
    """Wait for every kernel (compile_kernels(wait=True), what `rouge-exact
    --compile` runs), then say so."""
    try:
        compile_kernels(wait=True)
    except Exception as error:  # noqa: BLE001 - scoring goes on with the numpy twins
        print(f"warm-up: compile_kernels failed: {type(error).__name__}: {error}",
              file=sys.stderr)
    KERNELS_READY.set()


def warm_up() -> None:
    """Start compiling the kernels (the metric's own background compile: scoring meanwhile
    runs on its numpy twins), flag them ready when they are all in (KERNELS_READY, on a
    thread), and load the installed segmenters on a thread of their own."""
    try:
        compile_kernels()
    except Exception as error:  # noqa: BLE001 - a warm-up failure must not take the app down
        print(f"warm-up: compile_kernels failed: {type(error).__name__}: {error}",
              file=sys.stderr)
    threading.Thread(target=_compile_and_flag, name="rouge-kernels", daemon=True).start()
    threading.Thread(target=warm_up_segmenters, name="rouge-warm-up", daemon=True).start()


def warm_up_segmenters() -> None:
    """Load the Language menu's segmenters that are installed (jieba's dictionary: ~2 s,
    MeCab: ~0.7 s, pythainlp's: ~2.8 s at their first text), so that no visitor waits."""
    for language in LANGUAGES:
        if not language.segmenter:
            continue
        try:
            tokenizer = language_tokenizer(language.code)
            tokenizer.tokens("中文 日本語 ภาษาไทย မြန်မာ", stemmer=False, stopwords=False)
        except ImportError:  # not installed: the menu says so when it is chosen
            continue
        except Exception as error:  # noqa: BLE001 - a warm-up failure must not take the app down
            print(f"warm-up of {language.code} failed: {type(error).__name__}: {error}",
                  file=sys.stderr)

"""What ``python app.py`` starts before it serves, so that no visitor waits for it: the
metric's kernels (compiled, or loaded from their cache, in the background) and the Language
menu's segmenters."""

import sys
import threading

from .metric import metric


def warm_up() -> None:
    """Start compiling the kernels (the metric's own background compile: scoring meanwhile
    runs on its numpy twins) and load the installed segmenters on a thread of their own."""
    compile_kernels = getattr(metric, "compile_kernels", None)
    if compile_kernels is not None:  # a metric from before rouge_backend compiles at load only
        try:
            compile_kernels()
        except Exception as error:  # noqa: BLE001 - a warm-up failure must not take the app down
            print(f"warm-up: compile_kernels failed: {type(error).__name__}: {error}",
                  file=sys.stderr)
    threading.Thread(target=warm_up_segmenters, name="rouge-warm-up", daemon=True).start()


def warm_up_segmenters() -> None:
    """Load the Language menu's segmenters that are installed (jieba's dictionary: ~2 s,
    MeCab: ~0.7 s, pythainlp's: ~2.8 s at their first text), so that no visitor waits."""
    for language in metric.LANGUAGES:
        if not language.segmenter:
            continue
        try:
            tokenizer = metric.language_tokenizer(language.code)
            tokenizer.tokens("中文 日本語 ภาษาไทย မြန်မာ", stemmer=False, stopwords=False)
        except ImportError:  # not installed: the menu says so when it is chosen
            continue
        except Exception as error:  # noqa: BLE001 - a warm-up failure must not take the app down
            print(f"warm-up of {language.code} failed: {type(error).__name__}: {error}",
                  file=sys.stderr)

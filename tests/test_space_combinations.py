"""The Space scores every combination compute() accepts, with compute()'s numbers, and shows
its error for every one compute() refuses: every profile x a language of each kind (each
segmenter and stemmer of the language table, and no language) x two sets of ROUGE types,
with every optional package of the language profiles and with each one missing.

compute() is the reference: where it scores, the API (/rouge, /rouge_corpus, /rouge_compare)
and the Example tab give its numbers, exactly; where it raises ValueError, TypeError or
ImportError, each of them shows that message as the Space's own error (the API's gr.Error,
the page's error panel), never another exception. A missing package is simulated in-process:
None in sys.modules makes its import raise ImportError, and the tokenizers and checked
options the package keeps (functools.cache, a memo) are dropped first, so that none built
with the package is reused.
"""
import html
import importlib.metadata
import re
import sys
import warnings

import pytest

from conftest import needed, staged

gr = needed("gradio")

# one prediction and reference per language (a word or two; sharing words, so that the
# numbers are not all 0); a language sampled that is not here gets the English pair
TEXTS = {
    None: ("the cats ran home", "the cat runs home"),
    "en": ("the cats ran home", "the cat runs home"),
    "de": ("die Katzen liefen", "die Katze lief"),
    "ar": ("الأطفال في المدرسة", "الأطفال المدرسة"),
    "hi": ("लड़कों ने खेला", "लड़के खेलते"),
    "bn": ("ছেলেরা খেলছে", "ছেলে খেলে"),
    "tr": ("kitaplar okundu", "kitap okundu"),
    "zh": ("今天天气很好", "今天天气不错"),
    "ja": ("今日は天気が良い", "今日は天気がいい"),
    "th": ("วันนี้อากาศดี", "วันนี้อากาศดีมาก"),
    "my": ("မြန်မာစာ", "မြန်မာ"),
    "am": ("ሰላም ዓለም", "ሰላም"),
}
# None: the profile's own types (pltrdy's and rouge-chinese's: rouge1, rouge2, rougeL), as
# compute() picks them; then types in the Space's type order (it sorts the types it is given,
# compute() keeps their order, which the signature shows) that pltrdy's and rouge-chinese's
# profiles refuse (they score ROUGE-N and L only), with the stemmer
TYPE_SETS = [dict(rouge_types=None, use_stemmer=False),
             dict(rouge_types=["rouge2", "rougeLsum", "rougeW-1.2", "rougeSU4"],
                  use_stemmer=True)]
REFUSED = (ValueError, TypeError, ImportError)
# the modules each segmenter and stemmer of the language table imports (text.lang's
# segmenters and stemmers); every language profile imports PRETOKENIZER too
SEGMENTER_MODULES = {"jieba": ("jieba",), "fugashi": ("fugashi", "unidic_lite"),
                     "pythainlp": ("pythainlp",), "burmese": ()}
STEMMER_MODULES = {"snowball": (), "hindi": (), "bengali": (), "turkish": ("TurkishStemmer",)}
PRETOKENIZER = "pyonmttok"


def _lang_extra_modules() -> dict:
    """{module: its distribution} of the package's [lang] extra (its optional packages),
    from the installed metadata."""
    extra = re.compile(r"""extra\s*==\s*["']lang["']""")
    wanted = {re.split(r"[\s;<>=!\[~]", r, maxsplit=1)[0].lower().replace("_", "-")
              for r in importlib.metadata.requires("rouge-exact") or [] if extra.search(r)}
    return {module: dist for module, dists in
            sorted(importlib.metadata.packages_distributions().items())
            for dist in dists if dist.lower().replace("_", "-") in wanted}


OPTIONAL = _lang_extra_modules()


def _imports(language) -> set:
    """The optional modules a language's tokenizer imports."""
    return {PRETOKENIZER, *SEGMENTER_MODULES.get(language.segmenter, ()),
            *STEMMER_MODULES.get(language.stemmer, ())}


def _languages() -> list:
    """The languages walked: one of each (segmenter, stemmer) of the language table, English
    and German (two more Snowball stemmers), and no language (lang=None)."""
    first = {}
    for language in staged("text.lang").LANGUAGES:
        first.setdefault((language.segmenter, language.stemmer), language)
    by_code = {language.code: language for language in staged("text.lang").LANGUAGES}
    return [None, *dict.fromkeys([*first.values(), by_code["en"], by_code["de"]])]


LANGUAGES = _languages()


def test_the_tables_name_every_optional_package():
    """The walk hides every optional package (the [lang] extra's modules), and the tables of
    what each segmenter and stemmer imports cover text.lang's (a new one must be added)."""
    segmenters = staged("text.lang.segmenters").SEGMENTERS
    stemmers = staged("text.lang.stemmers").STEMMERS
    assert set(SEGMENTER_MODULES) == set(segmenters) and set(STEMMER_MODULES) == set(stemmers)
    named = {PRETOKENIZER, *(m for ms in SEGMENTER_MODULES.values() for m in ms),
             *(m for ms in STEMMER_MODULES.values() for m in ms)}
    assert named == set(OPTIONAL), OPTIONAL
    codes = {language.code for language in LANGUAGES if language is not None}
    assert {"zh", "ja", "th", "en", "de", "ar", "hi"} <= codes


@pytest.fixture(scope="module")
def space(metric):
    import importlib

    return {name: importlib.import_module(f"space.{name}")
            for name in ("api", "handlers", "render")}


def _fresh_tokenizers(monkeypatch, hidden: str) -> None:
    """Empty caches in place of the package's (restored after the test): its language
    tokenizers, its segmenters where ``hidden`` is a segmenter's (functools.cache: jieba's
    dictionary, MeCab) and its checked options (a memo holding their tokenizers); else one
    built with the package now hidden would be reused. The package's own caches are kept
    whole for the tests after this one (a tokenizer costs up to 2 s to load again)."""
    import functools

    lang, options = staged("text.lang"), staged("options")
    monkeypatch.setattr(lang, "_language_tokenizer",
                        functools.cache(lang._language_tokenizer.__wrapped__))
    if any(hidden in modules for modules in SEGMENTER_MODULES.values()):
        # (options.py calls the segmenter of a profile that cuts a language by this name)
        monkeypatch.setattr(options, "segmenter", functools.cache(lang.segmenter.__wrapped__))
    monkeypatch.setattr(options, "_BUILT", {})


def _hide(monkeypatch, module: str) -> None:
    """``module`` as if not installed: None in sys.modules for it and its submodules."""
    for name in [n for n in list(sys.modules) if n.startswith(module + ".")] + [module]:
        monkeypatch.setitem(sys.modules, name, None)


def _reference(call):
    """(result, None) of a call to the package, or (None, what it raised)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except REFUSED as error:
            return None, error


def _space(call):
    """(result, None) of a call to the Space's API, or (None, its gr.Error): any other
    exception fails the test (Gradio would show its generic error)."""
    try:
        return call(), None
    except gr.Error as error:
        return None, error


def _check_refusal(shown, error, hidden) -> None:
    assert shown is not None, f"the Space scored what compute refused: {error!r}"
    assert str(shown.message) == str(error)
    if isinstance(error, ImportError):
        assert shown.title == "Missing package" and "pip install" in str(error), error
        if hidden:  # the message names the package to install, as pip knows it
            assert OPTIONAL[hidden] in str(error), error


def _page_options(profile, options, lang) -> dict:
    """The Options panel's values for these options: the profile's own defaults, and for no
    types the ones the panel keeps ticked when that profile is chosen (its own)."""
    from rouge_exact.profiles import PROFILES

    chosen = PROFILES[profile]
    types = options["rouge_types"] or [t.name for t in staged("options").RougeOptions.build(
        profile=profile).rouge_types]
    return dict(rouge_types=types, extra_types="", use_stemmer=options["use_stemmer"],
                remove_stopwords=False, profile=profile, alpha=chosen.alpha,
                multi_ref=chosen.multi_ref_default, tokenizer="default",
                split_sentences=False, lang=lang or "none")


def _page_scores(table: str) -> dict:
    """The Example tab's table as {type: {measure: the exact value in its data-value}}."""
    rows = re.findall(r'<tr data-type="([^"]+)">(.*?)</tr>', table)
    return {name: {key: float(value) for key, value in
                   re.findall(r'class="score (\w+)" data-value="([^"]+)"', cells)}
            for name, cells in rows}


def _walk_one(space, metric, profile, lang, options, hidden) -> str:
    """One combination on every path: compute()'s result (its refusal: the error's class)."""
    prediction, reference = TEXTS.get(lang, TEXTS["en"])
    options = dict(options, profile=profile, lang=lang)
    api, handlers = space["api"], space["handlers"]
    want, error = _reference(lambda: metric.compute(
        [prediction], [[reference]], use_aggregator=False, detailed=True, **options))
    got, shown = _space(lambda: api.rouge(prediction, [reference], **options))
    if error is not None:
        _check_refusal(shown, error, hidden)
    else:
        assert shown is None, shown.message
        assert got["signature"] == want["signature"]
        assert set(got) - {"signature", "warnings"} == set(want) - {"signature", "count"}
        for name in set(want) - {"signature", "count"}:
            assert got[name] == {k: want[name][k][0] for k in space["render"].MEASURES}, name
    # the corpus endpoint: compute()'s detailed result, interval and all (a small bootstrap)
    corpus, corpus_error = _reference(lambda: metric.compute(
        [prediction], [reference], detailed=True, n_samples=20, **options))
    got, shown = _space(lambda: api.rouge_corpus([prediction], [reference], n_samples=20,
                                                 **options))
    if corpus_error is not None:
        _check_refusal(shown, corpus_error, hidden)
    else:
        assert shown is None and got == corpus, (shown and shown.message, got, corpus)
    # the Example tab: the table (its exact values) or the error panel, never an exception
    page = _page_options(profile, options, lang)
    updates = list(handlers.score_single(
        prediction=prediction, n_refs=1, boxes=[reference, "", "", "", ""], options=page,
        kind=page["rouge_types"][0], show_all=False))
    table, signature = updates[-1][0], updates[-1][1]
    if error is not None:
        assert 'class="error-panel"' in table and html.escape(str(error)) in table, table
    else:
        assert 'class="error-panel"' not in table and signature["value"] == want["signature"]
        assert _page_scores(table) == {name: {k: want[name][k][0] for k in want[name]}
                                       for name in set(want) - {"signature", "count"}}
    return "scored" if error is None else type(error).__name__


def _compare_one(space, metric, profile, lang, options, hidden) -> None:
    """/rouge_compare against compare(), with the same options (a few resamples)."""
    prediction, reference = TEXTS.get(lang, TEXTS["en"])
    options = dict(options, profile=profile, lang=lang)
    systems = {"a": [prediction, reference], "b": [reference, reference]}
    references = [reference, prediction]
    want, error = _reference(lambda: metric.compare(
        systems, references, n_samples=20, **options))
    got, shown = _space(lambda: space["api"].rouge_compare(
        systems, references, n_samples=20, **options))
    if error is not None:
        _check_refusal(shown, error, hidden)
    else:
        assert shown is None and got == want, (shown and shown.message, got, want)


def _walk(space, metric, languages, hidden=None) -> dict:
    """Every profile x these languages x TYPE_SETS; {(profile, lang, types): outcome}."""
    from rouge_exact.profiles import PROFILES

    outcomes = {}
    for profile in PROFILES:
        for language in languages:
            lang = None if language is None else language.code
            for options in TYPE_SETS:
                types = options["rouge_types"] and tuple(options["rouge_types"])
                outcomes[profile, lang, types] = _walk_one(
                    space, metric, profile, lang, options, hidden)
            _compare_one(space, metric, profile, lang, TYPE_SETS[0], hidden)
    return outcomes


def test_every_combination_with_every_package(space, metric):
    """With every optional package installed, each language profile scores where its
    profile takes a language: the Space and compute() agree on all of them."""
    for module in OPTIONAL:
        needed(module)
    outcomes = _walk(space, metric, LANGUAGES)
    assert "ImportError" not in outcomes.values()
    # the language profiles and pltrdy's / rouge-chinese's with Chinese score (not refused)
    for lang in ("zh", "ja", "th", "ar", "hi", None):
        assert outcomes["rouge_score", lang, None] == "scored", lang
    for profile in ("pltrdy", "rouge_chinese"):  # their own types, with and without zh
        assert outcomes[profile, "zh", None] == outcomes[profile, None, None] == "scored"
        assert outcomes[profile, "zh", tuple(TYPE_SETS[1]["rouge_types"])] == "ValueError"


@pytest.mark.parametrize("hidden", OPTIONAL)
def test_every_combination_without_one_package(space, metric, monkeypatch, hidden):
    """Each optional package missing: the languages whose tokenizer imports it are refused
    with the package's name and install hint (the profiles that cut Chinese with jieba alone
    still score without pyonmttok); the others, and lang=None, score as before. Walked: the
    languages that import it, those whose segmenter imports no package, and no language
    (another package's segmenter loads as it would with this one installed)."""
    _fresh_tokenizers(monkeypatch, hidden)
    _hide(monkeypatch, hidden)
    languages = [language for language in LANGUAGES if language is None
                 or hidden in _imports(language)
                 or not SEGMENTER_MODULES.get(language.segmenter)]
    outcomes = _walk(space, metric, languages, hidden)
    refused = {lang for (profile, lang, _), outcome in outcomes.items()
               if outcome == "ImportError"}
    assert refused == {language.code for language in languages
                       if language is not None and hidden in _imports(language)}
    assert outcomes["rouge_score", None, None] == "scored"
    if hidden == PRETOKENIZER:  # jieba alone cuts the Chinese of these profiles
        assert outcomes["rouge_chinese", "zh", None] == outcomes["pltrdy", "zh", None] == \
            "scored"

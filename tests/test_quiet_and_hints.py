"""What the package says, and what it keeps quiet: optional libraries print nothing on a run
that succeeds (jieba logs four lines as its dictionary loads); a misspelled option gets the
names nearest it; the stemmer warning of a profile's own tokenizer says what the profile
does; install hints name the package's extra, which a pip-installed user can install."""

import json
import subprocess
import sys
import textwrap
import warnings

import pytest

from conftest import needed

# one text per script the segmenters and stemmers of lang= handle, in one prediction
SAMPLE = "今天天气很好 きょうはいい天気 วันนี้อากาศดี မင်္ဂလာပါ the cats ran حديقة नमस्ते"
REFERENCE = "今天天气不错 天気がいい อากาศดีมาก မင်္ဂလာ the cat runs حدائق नमस्कार"

_EVERY_LANGUAGE = textwrap.dedent("""
    import json, sys, warnings
    import rouge_exact
    from rouge_exact.profiles import PROFILES
    from rouge_exact.text.lang.languages import LANGUAGE_CODES
    prediction, reference = sys.argv[1], sys.argv[2]
    scored = refused = 0
    for profile in PROFILES:
        for lang in (None, *LANGUAGE_CODES):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the package's own warnings are not the point
                try:
                    rouge_exact.compute(predictions=[prediction], references=[reference],
                                        profile=profile, lang=lang, use_stemmer=True,
                                        rouge_types=["rouge1", "rougeL"])
                    scored += 1
                except ValueError:  # a language the profile does not take
                    refused += 1
    sys.stderr.flush()
    print(json.dumps([scored, refused]), file=sys.__stdout__)
""")


def test_every_profile_and_language_is_quiet_in_the_library():
    for package in ("pyonmttok", "jieba", "fugashi", "pythainlp", "TurkishStemmer"):
        needed(package)
    proc = subprocess.run([sys.executable, "-c", _EVERY_LANGUAGE, SAMPLE, REFERENCE],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr
    scored, refused = json.loads(proc.stdout)
    # every language under rouge_score (and lang=None under each profile), zh under the two
    # LLM profiles; the rest refused by name
    from rouge_exact.profiles import PROFILES

    assert scored == 53 + len(PROFILES) + 2, (scored, refused)
    assert scored + refused == len(PROFILES) * 54, (scored, refused)


@pytest.mark.parametrize("profile, lang", [("rouge_chinese", "zh"), ("pltrdy", "zh"),
                                           ("rouge_score", "th")])
def test_the_command_prints_only_its_own_lines(tmp_path, profile, lang):
    needed("jieba" if lang == "zh" else "pythainlp")
    needed("pyonmttok")
    rows = tmp_path / "one.jsonl"
    rows.write_text(json.dumps({"prediction": SAMPLE, "references": [REFERENCE]}) + "\n",
                    encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "rouge_exact", "--input", str(rows),
                           "--profile", profile, "--lang", lang],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert all(line.startswith("rouge-exact: warning: ")
               for line in proc.stderr.splitlines()), proc.stderr


@pytest.mark.parametrize("kwargs, error, hint", [
    ({"use_agregator": False}, TypeError, "(did you mean 'use_aggregator'?)"),
    ({"usestemmer": True}, TypeError, "(did you mean 'use_stemmer'?)"),
    ({"profile": "cooc"}, ValueError, "(did you mean 'coco'?)"),
    ({"profile": "rouge-score"}, ValueError, "(did you mean 'rouge_score'?)"),
    ({"aggregation": "mikro"}, ValueError, "(did you mean 'micro'?)"),
    ({"rouge_types": ["rogueL"]}, ValueError, "(did you mean 'rougeL'?)"),
    ({"rouge_types": ["ROUGE-L"]}, ValueError, "(did you mean 'rougeL'?)"),
    ({"rouge_types": ["rougeLSum"]}, ValueError, "(did you mean 'rougeLsum'?)"),
])
def test_a_misspelled_option_gets_the_nearest_names(metric, kwargs, error, hint):
    with pytest.raises(error) as raised:
        metric.compute(predictions=["a"], references=["a"], **kwargs)
    message = str(raised.value)
    assert hint in message and "allowed: " in message, message


def test_a_name_near_nothing_gets_no_guess(metric):
    with pytest.raises(TypeError) as raised:
        metric.compute(predictions=["a"], references=["a"], xyz=1)
    assert "did you mean" not in str(raised.value)


# pycocoevalcap, pltrdy's rouge and rouge-chinese never stem: their profiles ignore use_stemmer
# (the numbers stay theirs), and the warning says so in the profile's terms
@pytest.mark.parametrize("profile, program", [("coco", "pycocoevalcap"),
                                              ("pltrdy", "pltrdy's rouge"),
                                              ("rouge_chinese", "rouge-chinese")])
def test_the_stemmer_warning_of_a_profile_says_what_the_profile_does(metric, profile, program):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stemmed = metric.compute(predictions=["the cats ran"], references=["the cat runs"],
                                 profile=profile, use_stemmer=True, rouge_types=["rouge1"])
        plain = metric.compute(predictions=["the cats ran"], references=["the cat runs"],
                               profile=profile, rouge_types=["rouge1"])
    assert stemmed == plain  # 1 word of 3 ("the") matches either way
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1, messages
    assert f"profile {profile}" in messages[0] and program in messages[0] \
        and "does not stem" in messages[0] and "tokenizer" not in messages[0], messages


def test_a_missing_language_package_names_the_extra(metric, monkeypatch):
    from rouge_exact.text.lang import languages

    monkeypatch.setitem(sys.modules, "TurkishStemmer", None)  # an import of it fails
    with pytest.raises(ImportError) as raised:
        languages.require_package("TurkishStemmer", "TurkishStemmer",
                                  languages.resolve_language("tr"))
    message = str(raised.value)
    assert 'pip install "rouge-exact[lang]"' in message and "requirements-lang" not in message
    assert "pip install TurkishStemmer" in message

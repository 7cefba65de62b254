"""rouge_exact.explain: every convention's row is compute() of its options and, where the
program it reproduces is installed, that program's own numbers (rouge_score, the ROUGE-1.5.5
Perl script, pycocoevalcap, pltrdy's rouge, rouge-chinese), run here on realsumm examples
with 1 to 3 references; a walk between two conventions changes one setting a step and its
steps add up to the whole gap exactly (Fractions of the float scores); the reverse lookup
finds the conventions whose scores round to figures an oracle printed, and none for
impossible figures; bad input is refused naming the argument."""

import concurrent.futures
import dataclasses
import json
import re
from fractions import Fraction

import pytest

from conftest import needed, pltrdy_rouge, staged
from oracle import perl_rouge, require_oracle

rouge_scorer = needed("rouge_score.rouge_scorer")
coco_rouge = needed("pycocoevalcap.rouge.rouge")
pltrdy = pltrdy_rouge()
rouge_chinese = needed("rouge_chinese")

MEASURES = ("precision", "recall", "fmeasure")


@pytest.fixture(scope="module")
def corpus(realsumm):
    """12 realsumm summaries, each with its reference and 0 to 2 other systems' summaries of
    the same article as more references."""
    by_doc = {}
    for row in realsumm:
        by_doc.setdefault(row["doc"], []).append(row["prediction"])
    rows = realsumm[:12]
    predictions = [r["prediction"] for r in rows]
    references = [[r["references"][0]] + [p for p in by_doc[r["doc"]]
                                          if p != r["prediction"]][:k % 3]
                  for k, r in enumerate(rows)]
    return predictions, references


@pytest.fixture(scope="module")
def explained(metric, corpus):
    return staged("explanation").explain(*corpus)


def _exact_mean(values) -> float:
    values = list(values)
    return float(sum(map(Fraction, values)) / len(values))


# --------------------------------------------------------------------------------------------
# Rows


def test_the_package_names_the_function():
    """rouge_exact.explain is the function, also after its module was imported (a module
    named explain would then stand in the package's namespace for it)."""
    import rouge_exact

    module = staged("explanation")
    assert rouge_exact.explain is module.explain
    assert "explain" in rouge_exact.__all__


def test_every_row_is_compute_of_its_options(metric, corpus, explained):
    """Each row: compute(**row.options)'s F, compute(detailed=True)'s P, R and F mids and its
    signature; the rows hold every profile of PROFILES, each at its defaults."""
    predictions, references = corpus
    for row in explained.rows:
        plain = metric.compute(predictions, references, **row.options)
        detailed = metric.compute(predictions, references, detailed=True, **row.options)
        assert detailed["signature"] == row.signature, row.name
        assert set(row.scores) == set(plain), row.name
        for t, scores in row.scores.items():
            assert scores["fmeasure"] == plain[t], (row.name, t)
            assert {m: detailed[t][m]["mid"] for m in MEASURES} == scores, (row.name, t)
    names = {row.name for row in explained.rows}
    assert set(metric.PROFILES) <= names  # each profile at its defaults, under its own name
    json.loads(json.dumps(explained.as_dict()))  # JSON as it is
    assert "rouge155 use_stemmer=True length_limit_bytes=75" in names  # its limits
    assert "rouge_score multi_ref=average" in names  # the other multi-reference rules


def test_rows_of_many_examples_are_compute_of_their_options(metric, realsumm, monkeypatch):
    """700 rows drawn with repeats (random.Random(11)), 1 to 3 references each, a reference
    that is another row's prediction: explain's shared work (each distinct text of a chunk
    tokenized once, in chunks on the pool from 512 distinct rows, the script's bootstraps of
    all its rows in one pass of draws) gives each row compute()'s numbers of its options, as
    a call of its own."""
    import random

    rng = random.Random(11)
    pool = realsumm[:1000]
    rows = [rng.choice(pool) for _ in range(700)]
    predictions = [r["prediction"] for r in rows]
    references = [[r["references"][0]] + [rng.choice(pool)["prediction"]
                                          for _ in range(k % 3)] for k, r in enumerate(rows)]
    types = ["rouge1", "rougeL", "rougeLsum"]
    explanation = staged("explanation")
    spans = set()
    run_parts = explanation.run_parts
    monkeypatch.setattr(explanation, "run_parts", lambda f, items: spans.update(
        item[-1] for item in items) or run_parts(f, items))
    explained = explanation.explain(predictions, references, rouge_types=types)
    assert len(explained.rows) > 20 and len(spans) >= 2  # the rows in two spans or more
    for row in explained.rows:
        detailed = metric.compute(predictions, references, detailed=True, **row.options)
        assert {t: {m: detailed[t][m]["mid"] for m in MEASURES} for t in row.scores} == \
            row.scores, row.name


def test_a_profile_added_later_gets_its_rows(metric, corpus, monkeypatch):
    """The rows come from PROFILES as it is at call time: a profile added to it (a copy of
    rouge_score's under another name) gets rows, with rouge_score's numbers."""
    profiles = staged("profiles")
    monkeypatch.setitem(profiles.PROFILES, "copy_of_rouge_score",
                        dataclasses.replace(profiles.ROUGE_SCORE, name="copy_of_rouge_score"))
    explained = staged("explanation").explain(*corpus, rouge_types=["rouge1", "rougeL"])
    rows = {row.name: row for row in explained.rows}
    assert rows["copy_of_rouge_score"].scores == rows["rouge_score"].scores
    assert rows["copy_of_rouge_score use_stemmer=True"].scores == \
        rows["rouge_score use_stemmer=True"].scores


# the programs, each on the corpus: {type: {measure: corpus mean}}

def _rouge_score(corpus, stem: bool) -> dict:
    predictions, references = corpus
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=stem)
    scores = [scorer.score_multi(refs, p) for p, refs in zip(predictions, references)]
    return {t: {m: _exact_mean(getattr(s[t], m) for s in scores) for m in MEASURES}
            for t in types}


def _perl_command(options: dict) -> str:
    command = "-n 2 -c 95 -r 1000 -p 0.5 -t 0 -a -f " + \
        {"average": "A", "best": "B"}[options.get("multi_ref", "average")]
    if options.get("use_stemmer"):
        command += " -m"
    if options.get("length_limit_words"):
        command += f" -l {options['length_limit_words']}"
    if options.get("length_limit_bytes"):
        command += f" -b {options['length_limit_bytes']}"
    return command


def _perl(corpus, options: dict) -> dict:
    scores = perl_rouge(list(zip(*corpus)), _perl_command(options))["scores"]
    names = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L",
             "rougeLsum": "ROUGE-L"}
    return {ours: {m: scores[theirs][m[0].upper()] for m in MEASURES}
            for ours, theirs in names.items()}


def _coco(corpus) -> dict:
    predictions, references = corpus
    _, per_image = coco_rouge.Rouge().compute_score(
        {i: list(r) for i, r in enumerate(references)},
        {i: [p] for i, p in enumerate(predictions)})
    mean = _exact_mean(per_image.tolist())
    return {"rougeL": {"fmeasure": mean}, "rougeLsum": {"fmeasure": mean}}


def _pltrdy_like(package, corpus) -> dict:
    """Their get_scores per reference (zeros where they raise on a text without words), per
    type the reference with the highest F, the first on ties (LongBench's max)."""
    predictions, references = corpus
    scorer = package.Rouge()
    zero = {"p": 0.0, "r": 0.0, "f": 0.0}
    theirs = {"rouge1": "rouge-1", "rouge2": "rouge-2", "rougeL": "rouge-l"}
    chosen = {t: [] for t in theirs}
    for p, refs in zip(predictions, references):
        per_ref = []
        for r in refs:
            try:
                per_ref.append(scorer.get_scores(p, r)[0])
            except ValueError:
                per_ref.append({m: zero for m in theirs.values()})
        for t, metric in theirs.items():
            best = max(range(len(per_ref)), key=lambda k: (per_ref[k][metric]["f"], -k))
            chosen[t].append(per_ref[best][metric])
    return {t: {m: _exact_mean(s[m[0]] for s in chosen[t]) for m in MEASURES}
            for t in theirs}


def _oracle(profile: str, options: dict):
    """The program's corpus numbers for a row's options, or None where the program has no
    such option (rule-based splitting, a multi-reference rule it lacks)."""
    rest = {k: v for k, v in options.items() if k not in ("profile", "use_stemmer")}
    if profile == "rouge_score" and rest in ({}, {"multi_ref": "max"}):
        return lambda corpus: _rouge_score(corpus, options.get("use_stemmer", False))
    if profile == "rouge155" and "split_sentences" not in rest and \
            rest.get("multi_ref", "average") in ("average", "best"):
        return lambda corpus: _perl(corpus, options)
    if profile == "coco" and not rest:
        return _coco
    if profile in ("pltrdy", "rouge_chinese") and not rest:
        package = pltrdy if profile == "pltrdy" else rouge_chinese
        return lambda corpus: _pltrdy_like(package, corpus)
    return None


def test_rows_equal_the_programs_they_reproduce(corpus, explained):
    """Every row whose program is installed and has its options: the program's own corpus
    numbers (the exact mean of its per-example numbers; the Perl script's printed averages),
    equal. Perl runs on two threads."""
    require_oracle()
    checks = [(row, _oracle(row.options["profile"], row.options)) for row in explained.rows]
    checks = [(row, oracle) for row, oracle in checks if oracle is not None]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda check: check[1](corpus), checks))
    for (row, _), theirs in zip(checks, results):
        for t, scores in theirs.items():
            assert {m: row.scores[t][m] for m in scores} == scores, (row.name, t)
    checked = {row.options["profile"] for row, _ in checks}
    assert checked == {"rouge_score", "rouge155", "coco", "pltrdy", "rouge_chinese"}
    assert len(checks) >= 15  # stemming, the Perl script's -f B and limits among them


# --------------------------------------------------------------------------------------------
# Walks


def _fields(options) -> dict:
    """Every field of the options and of their profile, flat ("profile.<name>")."""
    out = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)
           if f.name != "profile"}
    out.update({f"profile.{f.name}": getattr(options.profile, f.name)
                for f in dataclasses.fields(options.profile)})
    return out


def _changed(a, b) -> set:
    fa, fb = _fields(a), _fields(b)
    return {name for name in fa if not (fa[name] is fb[name] or fa[name] == fb[name])}


def _owner(field_name: str, settings) -> str | None:
    for setting in settings:
        if field_name in setting.options or field_name in \
                {f"profile.{f}" for f in setting.profile}:
            return setting.name
    return None


LABELS = {"rouge_types", "profile.name", "profile.kinds", "profile.multi_ref_allowed",
          "profile.program", "profile.rouge_types", "profile.multi_ref_default",
          "profile.foreign_modes", "profile.seed_label", "profile.alpha_label"}


def test_walks_change_one_setting_a_step_and_add_up_exactly(explained):
    """Between every two profiles at their defaults, and some variants: each step changes
    the fields of one setting (besides names and labels), the settings come in SETTINGS'
    order, each step's delta is the difference of the scores either side, and the deltas
    add up to the whole gap, Fraction for Fraction; the walk starts at a's row and ends at
    b's (their common types)."""
    module = staged("explanation")
    order = [s.name for s in module.SETTINGS] + ["other"]
    names = list(staged("profiles").PROFILES) + [
        "rouge155 use_stemmer=True length_limit_bytes=75", "rouge_score multi_ref=mean_prf",
        "torchmetrics use_stemmer=True", "coco multi_ref=average"]
    walks = 0
    for a in names:
        for b in names:
            if a == b:
                continue
            walk = explained.walk(a, b)
            walks += 1
            start, end = explained.row(a).scores, explained.row(b).scores
            assert walk.start_scores == {t: start[t] for t in walk.gap}
            assert walk.end_scores == {t: end[t] for t in walk.gap}
            settings = [step.setting for step in walk.steps]
            assert settings == sorted(settings, key=order.index) and settings
            previous_state, previous = walk.start_state, walk.start_scores
            total = {t: {m: Fraction(0) for m in MEASURES} for t in walk.gap}
            for step in walk.steps:
                # each setting in words: no field=value, no function's repr
                words = f"{step.before} -> {step.after}"
                assert not re.search(r"[a-z_]=|<function| at 0x", words), (a, b, words)
                changed = _changed(previous_state, step.state) - LABELS
                assert changed and {_owner(f, module.SETTINGS) or "other"
                                    for f in changed} == {step.setting}, (a, b, step.setting)
                for t in walk.gap:
                    for m in MEASURES:
                        assert step.delta[t][m] == \
                            Fraction(step.scores[t][m]) - Fraction(previous[t][m])
                        total[t][m] += step.delta[t][m]
                previous_state, previous = step.state, step.scores
            for t in walk.gap:
                for m in MEASURES:
                    whole = Fraction(end[t][m]) - Fraction(start[t][m])
                    assert total[t][m] == walk.gap[t][m] == whole, (a, b, t, m)
            json.loads(json.dumps(walk.as_dict()))
    assert walks == len(names) * (len(names) - 1)


def test_a_walk_reaches_options_no_row_has(metric, corpus, explained):
    """A walk's ends may be any compute() options (a dict): micro aggregation (the script's
    too), stopwords, another alpha; it ends at compute()'s numbers of them."""
    for a, b, settings in (
            ("rouge_score", {"aggregation": "micro"}, ["aggregation"]),
            ("rouge155", {"profile": "rouge155", "aggregation": "micro",
                          "remove_stopwords": True}, ["stopwords", "aggregation"]),
            ("coco", {"use_stemmer": True, "alpha": 0.2},
             ["tokenizer", "stemmer", "multi-reference rule", "F rule"])):
        walk = explained.walk(a, b)
        assert [step.setting for step in walk.steps] == settings
        detailed = metric.compute(*corpus, detailed=True, **b)
        assert walk.end_scores == {t: {m: detailed[t][m]["mid"] for m in MEASURES}
                                   for t in walk.gap}
        total = {t: sum(step.delta[t]["fmeasure"] for step in walk.steps) for t in walk.gap}
        assert total == {t: Fraction(detailed[t]["fmeasure"]["mid"]) -
                         Fraction(explained.row(a).scores[t]["fmeasure"]) for t in walk.gap}


def test_a_walk_names_the_examples_that_move_most(metric, corpus, explained):
    """rouge_score to rouge_score with stemming: one step, "stemmer"; the examples it reports
    are those whose F moves most (compute() per example, both conventions), with the tokens
    rouge_score's own tokenizer counts without and with its stemmer."""
    predictions, references = corpus
    walk = explained.walk("rouge_score", "rouge_score use_stemmer=True", examples=3)
    assert [step.setting for step in walk.steps] == ["stemmer"]
    moved = walk.steps[0].moved
    before = metric.compute(predictions, references, use_aggregator=False)
    after = metric.compute(predictions, references, use_aggregator=False, use_stemmer=True)
    change = [max(abs(after[t][i] - before[t][i]) for t in before if t != "count")
              for i in range(len(predictions))]
    assert [m.index for m in moved] == sorted(range(len(change)), key=lambda i: -change[i])[:3]
    for m in moved:
        assert (m.before, m.after) == (before[m.rouge_type][m.index],
                                       after[m.rouge_type][m.index])
        assert abs(m.after - m.before) == change[m.index]
        for stem, tokens in zip((False, True), m.prediction_tokens):
            theirs = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=stem)._tokenizer
            assert [t for sentence in tokens for t in sentence] == \
                theirs.tokenize(predictions[m.index])
        assert len(m.reference_tokens) == len(references[m.index])


# --------------------------------------------------------------------------------------------
# Reverse lookup


def _rounds_to(score: float, figure: str, scale: int) -> bool:
    decimals = len(figure.partition(".")[2])
    return abs(Fraction(score) * scale - Fraction(figure)) <= Fraction(1, 2 * 10 ** decimals)


def test_the_lookup_finds_rouge_score_and_perl_figures(corpus, explained):
    """Figures as papers print them (x 100, 2 decimals) of rouge_score's own numbers with
    its stemmer, and of the Perl script's with -m: the lookup lists exactly the rows whose
    scores round to every figure (checked here by Fractions), nearest first, and the row of
    that program is among them."""
    require_oracle()
    theirs = _rouge_score(corpus, stem=True)
    figures = {t: f"{theirs[t]['fmeasure'] * 100:.2f}" for t in ("rouge1", "rouge2",
                                                                 "rougeLsum")}
    perl = _perl(corpus, {"use_stemmer": True})
    perl_figures = {"rouge1_recall": f"{perl['rouge1']['recall'] * 100:.2f}",
                    "rouge2": f"{perl['rouge2']['fmeasure'] * 100:.2f}",
                    "rougeL": f"{perl['rougeL']['fmeasure'] * 100:.2f}"}
    for figs, program in ((figures, "rouge_score use_stemmer=True"),
                          (perl_figures, "rouge155 use_stemmer=True")):
        found = explained.match(figs)
        names = [name for name, _ in found.matches]
        assert program in names and found.found and found.scale == 100
        expected = []
        for row in explained.rows:
            measures = {key: (key.partition("_")[0], key.partition("_")[2] or "fmeasure")
                        for key in figs}
            if all(t in row.scores and _rounds_to(row.scores[t][m], figs[key], 100)
                   for key, (t, m) in measures.items()):
                expected.append(row.name)
        assert sorted(names) == sorted(expected)
        distances = [d for _, d in found.matches]
        assert distances == sorted(distances) and max(distances) <= 0.005
    # the same figures on a 0-1 scale, with 4 decimals
    unit = {t: f"{theirs[t]['fmeasure']:.4f}" for t in ("rouge1", "rouge2")}
    found = explained.match(unit)
    assert found.scale == 1 and "rouge_score use_stemmer=True" in dict(found.matches)


def test_impossible_figures_match_nothing(metric, corpus):
    """Figures no convention gives: none found, said so, with the nearest; passed to
    explain() itself as its match."""
    explained = staged("explanation").explain(*corpus, rouge_types=["rouge1", "rouge2"],
                                          match={"rouge1": "99.99", "rouge2": 0.01})
    found = explained.matched
    assert not found.found and found.matches == ()
    assert found.summary().startswith("none of the") and len(found.nearest) == 3
    distances = [d for _, d in found.nearest]
    assert distances == sorted(distances) and distances[0] > 0.005
    assert "none of the" in explained.table()


def test_the_figures_types_are_scored(metric, corpus):
    """A figure of a type the rows would not score (rouge3) is scored: rouge_score's own
    rouge3 (x 100, 2 decimals) is found."""
    scorer = rouge_scorer.RougeScorer(["rouge3"])
    theirs = _exact_mean(scorer.score_multi(refs, p)["rouge3"].fmeasure
                         for p, refs in zip(*corpus))
    explained = staged("explanation").explain(*corpus, rouge_types=["rouge1"],
                                              match={"rouge3": f"{theirs * 100:.2f}"})
    assert "rouge_score" in dict(explained.matched.matches)
    assert explained.row("rouge_score").options["rouge_types"] == ["rouge1", "rouge3"]
    assert explained.match({"rougeSU4": 10}).summary().startswith("no convention here")


def test_a_figure_has_the_decimals_it_was_written_with(explained):
    """"41.70" is two decimals (a string keeps its trailing zero), 41.7 one (the float's
    repr): a score 0.4167 rounds to 41.7 but not to 41.70."""
    row = next(r for r in explained.rows
               if abs(r.scores["rouge1"]["fmeasure"] * 100 -
                      round(r.scores["rouge1"]["fmeasure"] * 100, 1)) > 0.01)
    one = round(row.scores["rouge1"]["fmeasure"] * 100, 1)
    assert row.name in dict(explained.match({"rouge1": one}).matches)
    assert row.name not in dict(explained.match({"rouge1": f"{one:.2f}"}).matches)
    assert row.name in dict(explained.match({"rouge1": f"{one:.1f}"}).matches)


@pytest.mark.parametrize("match, words", [
    ({"rougeX": 44.1}, "'rougeX', not a rouge type"),
    ({"rouge1_prec": 44.1}, "'rouge1_prec', not a rouge type"),
    ({"rouge1": "abc"}, "not a number"),
    ({"rouge1": True}, "(bool)"),
    ({"rouge1": None}, "(NoneType)"),
    ({"rouge1": float("nan")}, "rouge1=nan"),
    ({"rouge1": -1}, "rouge1=-1"),
    ({"rouge1": 150}, "between 0 and 1, or 0 and 100"),
    ({}, "a non-empty dict"),
    ([("rouge1", 44.1)], "a non-empty dict"),
    ({1: 44.1}, "the key 1"),
])
def test_bad_figures_are_refused_naming_the_argument(corpus, match, words):
    with pytest.raises(ValueError, match="^match: ") as error:
        staged("explanation").explain(*corpus, match=match)
    assert words in str(error.value)


def test_bad_arguments_are_refused_naming_them(corpus, explained):
    with pytest.raises(ValueError, match="^rouge_types: "):
        staged("explanation").explain(*corpus, rouge_types=["rougeQ"])
    with pytest.raises(ValueError, match="^a: got 'no such row'"):
        explained.walk("no such row", "coco")
    with pytest.raises(TypeError, match="^b: got int"):
        explained.walk("coco", 3)
    with pytest.raises(ValueError, match="^predictions and references"):
        staged("explanation").explain(["a"], ["a", "b"])

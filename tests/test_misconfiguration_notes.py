"""The warnings about input that is set up wrong, on top of the input warnings (texts without
tokens, rougeLsum without newlines, ...): one side written as Penn Treebank tokenizers write
text, sentence tags left in (<q>, <n>, <t>, </t>), lm-evaluation-harness's " . " -> newline
that would find nothing, predictions and references that may be swapped.

Each is checked on texts made for it, with the warning it must give, against what the
original tools do (nltk's TreebankWordTokenizer writes the PTB side; rouge_score's tokenizer,
run here, says what a tag or a PTB word becomes; lm-evaluation-harness's own replace() is
applied); on clean input (realsumm's texts as they are, the README's examples) none is given;
a state keeps the counts, and partial()/merge() add them; the command prints them.
"""
import json
import subprocess
import sys
import warnings

import pytest

from conftest import REPO, edited, needed, staged

NEW = ("Penn Treebank", "sentence tags", "lm-evaluation-harness", "may be swapped")


def warned(metric, predictions, references, **options) -> list:
    """The RougeWarnings of one compute()."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metric.compute(predictions=predictions, references=references, **options)
    return [str(w.message) for w in caught if type(w.message).__name__ == "RougeWarning"]


def about(messages: list, topic: str) -> list:
    return [m for m in messages if topic in m]


def rs_list(text: str) -> list:
    """rouge_score 0.1.2's own tokens of a text (no stemming)."""
    return needed("rouge_score.tokenize").tokenize(text, None)


def rs_tokens(text: str) -> str:
    """rouge_score's tokens of a text as the warnings show them."""
    return "[" + " ".join(rs_list(text)) + "]"


# -- sentence tags ------------------------------------------------------------------------------

def test_presumm_q_tags_in_predictions(metric):
    """PreSumm writes a candidate's sentences on one line joined by <q>: rouge_score's tokenizer
    makes each a word "q" (so they count against precision), and nothing splits there."""
    preds = ["the cat sat on the mat .<q>the dog ran away .", "it rained .<q>we stayed in .",
             "a short one ."]
    refs = ["The cat sat on the mat.", "It rained all day.", "A short one."]
    [message] = about(warned(metric, preds, refs, rouge_types=["rouge1"]), "sentence tags")
    assert message.startswith("2 of 3 predictions and 0 of 3 references hold <q> ")
    assert f"<q> as {rs_tokens('<q>')}" in message and rs_tokens("<q>") == "[q]"
    assert "Replace <q>, <n> and </t> with a newline" in message
    # the tag really is a word to rouge_score: its precision counts it
    scorer = needed("rouge_score.rouge_scorer").RougeScorer(["rouge1"])
    tagged = scorer.score(refs[0], preds[0])["rouge1"].precision
    assert tagged < scorer.score(refs[0], preds[0].replace("<q>", "\n"))["rouge1"].precision
    # the tags replaced by newlines: no warning
    fixed = [p.replace("<q>", "\n") for p in preds]
    assert about(warned(metric, fixed, refs, rouge_types=["rouge1"]), "sentence tags") == []


def test_t_tags_in_references_are_counted_on_their_side(metric):
    refs = ["<t> the cat sat . </t> <t> it was late . </t>", "<t> a dog ran . </t>",
            "no tags here"]
    preds = ["The cat sat.", "A dog ran.", "No tags here."]
    [message] = about(warned(metric, preds, refs, rouge_types=["rouge1"]), "sentence tags")
    assert message.startswith("0 of 3 predictions and 2 of 3 references hold <t>/</t> ")
    assert f"<t> as {rs_tokens('<t>')}, </t> as {rs_tokens('</t>')}" in message


def test_pegasus_n_under_torchmetrics_is_torchmetrics_own(metric):
    """torchmetrics 1.9.0 keeps <n> (its splitter's re.sub("<n>", "", x) drops its result;
    tests/test_torchmetrics.py holds torchmetrics' own numbers for such a text, equal bit for
    bit): under profile torchmetrics the warning says so, and no removal is suggested."""
    preds = ["Pegasus style.<n>Its lines end with a marker.", "One line only."]
    refs = ["Pegasus style. Its lines end.", "One line."]
    [tm] = about(warned(metric, preds, refs, profile="torchmetrics", rouge_types=["rouge1"]),
                 "sentence tags")
    assert "This is torchmetrics' own number: torchmetrics keeps <n> itself" in tm
    assert "Remove" not in tm and "Replace" not in tm
    [rs] = about(warned(metric, preds, refs, rouge_types=["rouge1"]), "sentence tags")
    assert "1 of 2 predictions and 0 of 2 references hold <n> " in rs
    assert "Replace <q>, <n> and </t> with a newline" in rs and "torchmetrics" not in rs


# -- rougeLsum without newlines: lm-evaluation-harness's " . " -> ".\n" -------------------------

def test_lm_eval_replacement_that_finds_nothing_is_folded_into_one_warning(metric):
    preds = ["The cat sat on the mat. It was late.", "A dog ran. Then it stopped."]
    refs = ["The cat sat. It was very late.", "A dog ran away. It stopped."]
    # lm-evaluation-harness's _prepare_summary (from t5's metrics): no text changes
    assert [t.replace(" . ", ".\n") for t in preds + refs] == preds + refs
    messages = warned(metric, preds, refs, rouge_types=["rougeLsum"])
    [message] = about(messages, "rougeLsum")  # one warning about the missing newlines
    assert len(messages) == 1
    assert "would find nothing to replace" in message and "split_sentences=True" in message
    # texts that hold " . ": the replacement would split them; the plain warning stays
    spaced = [t.replace(". ", " . ") for t in preds]
    [plain] = about(warned(metric, spaced, refs, rouge_types=["rougeLsum"]), "rougeLsum")
    assert "lm-evaluation-harness" not in plain and "split_sentences=True" in plain
    # split_sentences=True: nothing to say
    assert warned(metric, preds, refs, rouge_types=["rougeLsum"], split_sentences=True) == []


# -- PTB on one side ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ptb_pairs(realsumm):
    """realsumm's first 120 rows, both sides detokenized line by line (nltk's
    TreebankWordDetokenizer), then the references tokenized again by nltk's
    TreebankWordTokenizer (parentheses as -LRB- -RRB-): plain predictions, PTB references."""
    treebank = needed("nltk.tokenize.treebank")
    tok, detok = treebank.TreebankWordTokenizer(), treebank.TreebankWordDetokenizer()

    def plain(text):
        return "\n".join(detok.detokenize(line.split(" ")) for line in text.split("\n"))

    rows = realsumm[:120]
    preds = [plain(r["prediction"]) for r in rows]
    refs = ["\n".join(" ".join(tok.tokenize(line, convert_parentheses=True))
                      for line in plain(r["references"][0]).split("\n")) for r in rows]
    return preds, refs


def ends_split(texts):
    return sum(t.endswith((" .", " ?", " !", " ''")) for t in texts)


def test_ptb_references_against_plain_predictions(metric, ptb_pairs):
    preds, refs = ptb_pairs
    seen, other = ends_split(refs), ends_split(preds)
    assert seen >= 60 and other < 30  # the case is what it says (at least half, under a quarter)
    [message] = about(warned(metric, preds, refs), "Penn Treebank")
    assert message.startswith(f"{seen} of 120 references end with their final punctuation "
                              f"split off as a token")
    assert f"against {other} of 120 predictions." in message
    # what rouge_score's tokenizer makes of PTB's words, run here
    ptb, text = "-lrb- we do n't -rrb- .", "(we don't)."
    assert f"reads \"{ptb}\" as {rs_tokens(ptb)} and \"{text}\" as {rs_tokens(text)}" in message
    assert "Detokenize the references" in message
    # the PTB side as predictions: the warning names that side
    [swapped] = about(warned(metric, refs, preds), "Penn Treebank")
    assert swapped.startswith(f"{seen} of 120 predictions end") and "Detokenize the " \
        "predictions" in swapped
    # under the whitespace tokenizer, the tokens it really has
    [ws] = about(warned(metric, preds, refs, tokenizer="whitespace"), "Penn Treebank")
    assert "reads \"-lrb- we do n't -rrb- .\" as [-lrb- we do n't -rrb- .] and \"(we " \
        "don't).\" as [(we don't).]" in ws


def test_ptb_on_both_sides_is_not_warned(metric, realsumm):
    """realsumm's texts are PTB-tokenized on both sides (as CNN/DailyMail's releases): the
    sides agree, nothing to say."""
    rows = realsumm[:200]
    preds, refs = [r["prediction"] for r in rows], [r["references"] for r in rows]
    assert ends_split(preds) >= 100 and ends_split(r[0] for r in refs) >= 100
    assert warned(metric, preds, refs) == []


# -- swapped sides -----------------------------------------------------------------------------

def test_swapped_sides_from_realsumm(metric, realsumm):
    """A one-sentence system (each reference's first highlight) against realsumm's 100
    references: no warning; with the sides swapped, the predictions are the longer texts."""
    rows = realsumm[:100]  # one system: each of the 100 documents once
    short = [r["references"][0].split("\n")[0] for r in rows]
    full = [r["references"][0] for r in rows]
    assert about(warned(metric, short, full, rouge_types=["rouge1"]), "swapped") == []
    long = sum(len(rs_list(f)) > 2 * len(rs_list(s)) > 0
               for f, s in zip(full, short))  # rouge_score's tokens, counted here
    assert long >= 0.8 * 100
    [message] = about(warned(metric, full, short, rouge_types=["rouge1"]), "swapped")
    assert message.startswith(f"Predictions and references may be swapped: on {long} of 100 "
                              f"examples ({long}%) the prediction has more than 2 "
                              "times the tokens of its longest reference.")
    # realsumm as it is, and realsumm's sides swapped (about as long): nothing to say
    preds = [r["prediction"] for r in realsumm]
    refs = [r["references"][0] for r in realsumm]
    assert about(warned(metric, preds, refs, rouge_types=["rouge1"]), "swapped") == []
    assert about(warned(metric, refs, preds, rouge_types=["rouge1"]), "swapped") == []


def test_the_longest_reference_counts(metric):
    """With several references, a prediction is long against its longest one: "a b c d e"
    (5 tokens) against ["a b", "a b c"] is not (5 <= 2 * 3), against ["a", "b c"] it is."""
    pipeline, notes = staged("scorer.pipeline"), staged("scorer.notes")
    options = staged("options").RougeOptions.build(rouge_types=["rouge1"])
    preds = ["a b c d e", "a b c d e", "a b c"]
    refs = [["a b", "a b c"], ["a", "b c"], ["a"]]
    stats, ref_counts, texts, flat, _ = pipeline.pair_statistics(options, preds, refs)
    found = notes.input_notes(options, texts, flat, stats, pipeline._plan(options), ref_counts)
    assert (found.predictions, found.long_predictions) == (3, 2)


# -- clean input ---------------------------------------------------------------------------------

def test_realsumm_and_the_readme_examples_give_none(metric, realsumm, monkeypatch):
    preds = [r["prediction"] for r in realsumm]
    refs = [r["references"] for r in realsumm]
    assert warned(metric, preds, refs) == []  # rouge1, rouge2, rougeL, rougeLsum
    from test_readme import StandInTokenizer, run_python_blocks

    monkeypatch.chdir(REPO)
    given = run_python_blocks("README.md", {"tokenizer": StandInTokenizer()})
    assert [m for m in given if any(topic in m for topic in NEW)] == []


# -- states: the counts are kept and added ---------------------------------------------------------

def test_partial_and_merge_add_the_notes(metric, ptb_pairs):
    """Two states of 3 PTB references each (fewer than the 5 texts the warning needs): neither
    warns alone, their merge does, and holds the notes of scoring all 6 at once."""
    preds, refs = ptb_pairs
    preds, refs = preds[:6], refs[:6]
    tagged = [p + "<q>" for p in preds[:2]] + preds[2:]
    assert ends_split(refs) == 6 and ends_split(preds) == 0
    a = metric.partial(predictions=tagged[:3], references=refs[:3])
    b = metric.partial(predictions=tagged[3:], references=refs[3:])
    whole = metric.partial(predictions=tagged, references=refs)
    assert about(a.warnings(), "Penn Treebank") == about(b.warnings(), "Penn Treebank") == []
    merged = metric.merge(a, b)
    assert merged.notes == whole.notes
    assert (merged.notes.ptb_references, merged.notes.predictions) == (6, 6)
    assert (merged.notes.tagged_predictions, merged.notes.tag_q_texts) == (2, 2)
    assert about(merged.warnings(), "Penn Treebank")[0].startswith("6 of 6 references")
    loaded = metric.state_from_bytes(merged.to_bytes())
    assert loaded.notes == merged.notes and loaded.warnings() == merged.warnings()


@pytest.mark.parametrize("notes, match", [
    ({"predictions": 3}, r"notes\.predictions: got 3; allowed: count = 2"),
    ({"ptb_predictions": 3}, r"notes\.ptb_predictions: got 3; allowed: at most 2"),
    ({"ptb_references": 3}, r"notes\.ptb_references: got 3; allowed: at most 2"),
    ({"tag_n_texts": 1}, r"notes\.tag_n_texts: got 1; allowed: at most 0"),
    ({"long_predictions": 3}, r"notes\.long_predictions: got 3; allowed: at most 2"),
    ({"spaced_period_texts": 1}, r"notes\.spaced_period_texts: got 1; allowed: at most 0"),
])
def test_notes_a_state_cannot_hold_are_refused(metric, notes, match):
    state = metric.partial(predictions=["a b .", "c d ."], references=["a b", "c d"],
                           rouge_types=["rougeLsum"])
    assert state.notes.ptb_predictions == 2
    assert metric.state_from_bytes(edited(state.to_bytes(), lambda h, a: None)).notes == \
        state.notes
    with pytest.raises(ValueError, match=match):
        metric.state_from_bytes(edited(state.to_bytes(), lambda h, a: h["notes"].update(notes)))


def test_spaced_periods_need_a_type_that_reads_sentences(metric):
    state = metric.partial(predictions=["a b"], references=["a b"], rouge_types=["rouge1"])
    with pytest.raises(ValueError, match=r"notes\.spaced_period_texts: got 1; allowed: at "
                                         r"most 0"):
        metric.state_from_bytes(edited(state.to_bytes(), lambda h, a: h["notes"].update(
            spaced_period_texts=1, multi_sentence_texts=0)))


# -- the command ----------------------------------------------------------------------------------

def test_the_command_prints_them_once_over_its_chunks(metric, tmp_path, ptb_pairs):
    """Chunks of 2 rows: each chunk alone is below the PTB warning's 5 texts; the command
    adds the notes of its chunks and prints each warning once. (metric: the kernels are
    compiled into the session's cache, which the command reads.)"""
    preds, refs = ptb_pairs
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"prediction": p + " <q> x", "references": [r]}) + "\n"
                            for p, r in zip(preds[:8], refs[:8])), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "rouge_exact", "--input", str(rows),
                           "--rouge-types", "rouge1", "--chunk-size", "2"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert all(line.startswith("rouge-exact: warning: ") for line in lines), lines
    assert len(about(lines, "Penn Treebank")) == 1
    assert about(lines, "Penn Treebank")[0].startswith(
        f"rouge-exact: warning: {ends_split(refs[:8])} of 8 references end")
    [tags] = about(lines, "sentence tags")
    assert "8 of 8 predictions and 0 of 8 references hold <q>" in tags

"""What the input looked like, and the warnings that are true of it: ``input_notes`` counts
a scored batch's ``InputNotes`` (texts without tokens, with newlines, sentences not split,
ROUGE-W references without tokens, segmenter fallbacks, and the misconfigurations that show in
the texts: Penn Treebank tokenization on one side only, sentence tags left in, predictions
much longer than their references); ``input_warnings`` turns the notes summed over batches into
sentences (the Scorer's ``warnings()``).

The command scores millions of rows, and a batch's notes cost ~0.02 ms a 10,000 pairs without
these checks: each looks at a text in one call in C (``str.endswith`` on its last characters,
``"<" in text``, a memchr), never at every character in Python, and a text is looked at more
closely only when that call found something. Every count is a count of texts (or of
examples), so that it sums exactly over chunks, batches and merged states."""

from __future__ import annotations

import itertools
import operator
import re

import numpy as np

from .aggregate import (
    InputNotes,
)
from ..text.lang import (
    fallback_warning,
    no_stemmer_warning,
    script_hint,
    script_of,
)
from ..options import (
    MAX_SAMPLES,
    RougeOptions,
)
from ..text.tokenizers import (
    TokenizedBatch,
    split_sentences as split_sentences_rule_based,
)

_MAY_END_SENTENCE = re.compile(r"[.!?。！？]")
_FEW_TEXTS = 64  # up to this many texts, a loop in Python costs less than numpy's calls

# Penn Treebank tokenization (CNN/DailyMail's and XSum's tokenized releases, nltk's
# TreebankWordTokenizer, CoreNLP) splits a text's final punctuation off as a token: "word .".
# Looking at a text's last characters is one C call however long the text; a search for
# " , " or " n't" would read every character (~1 ns each: 7 ms a 10,000 pairs).
_SPLIT_ENDS = (" .", " ?", " !", " ''")
PTB_SHARE = 0.5  # of a side's texts, at least (and at least PTB_MIN_TEXTS texts) ...
PTB_MIN_TEXTS = 5
PTB_OTHER_SHARE = 0.25  # ... while fewer than this share of the other side's texts
# what PTB writes for "(we don't)." and the text itself: shown through the active tokenizer
_PTB_EXAMPLE = ("-lrb- we do n't -rrb- .", "(we don't).")
# PreSumm's <q>, Pegasus' <n>, the <t> ... </t> of CNN/DailyMail's sentence-split releases
_TAG = re.compile(r"<(?:q|n|/?t)>")
# predictions of more than SWAP_RATIO times the tokens of their longest reference, on at least
# SWAP_SHARE of at least SWAP_MIN_PAIRS examples (the highest share among realsumm's 35
# systems, each against its references, is 55%: ext/refresh's long extracts)
SWAP_RATIO = 2
SWAP_SHARE = 0.8
SWAP_MIN_PAIRS = 20


def input_notes(options: RougeOptions, texts, flat: TokenizedBatch, stats,
                 plan, ref_counts: np.ndarray) -> InputNotes:
    """The notes of one scored batch: its texts (the predictions, then their references in
    order), their tokens (``flat``), the pairs' statistics, the options' plan
    (scorer.pipeline._plan) and the references per prediction."""
    notes = InputNotes(texts=len(texts))
    n = notes.predictions = len(texts) - len(stats)  # a row of stats per reference
    _misconfiguration_notes(notes, texts, n)
    notes.long_predictions = _long_predictions(flat.text_offsets, n, len(stats), ref_counts)
    # pltrdy's and rouge-chinese's packages raise on any text without words, empty ones too
    empty_raises = options.tokenizer.empty_raises
    offsets = flat.text_offsets
    if len(texts) > _FEW_TEXTS:
        tokenless = (offsets[1:] == offsets[:-1]).nonzero()[0].tolist()
    else:  # a numpy comparison costs ~2 us inside a small call (cold caches): more than this
        bounds = offsets.tolist()
        tokenless = [k for k in range(len(texts)) if bounds[k] == bounds[k + 1]]
    for k in tokenless:
        text = texts[k]
        if any(ch.isalnum() for ch in text):
            notes.tokenless_letters += 1
            notes.tokenless_script = notes.tokenless_script or script_of(text)
        elif (not text.isspace() and text) or empty_raises:
            notes.tokenless_symbols += 1
    if len(texts) > 256 and options.tokenizer.line_sentences \
            and options.length_limit_bytes is None:
        # flat holds a sentence per line of these very texts: no second pass over their
        # characters (~0.8 ms a 3,000-example chunk, holding the GIL; for a few texts the
        # pass costs less than the numpy calls)
        sentences = np.diff(flat.text_sent_offsets)
        notes.texts_with_newline = int(np.count_nonzero(sentences > 1))
    else:
        notes.texts_with_newline = sum(map(operator.contains, texts, itertools.repeat("\n")))
    notes.segmenter_fallbacks = getattr(flat, "segmenter_fallbacks", 0)
    if plan.reads_sentences and options.tokenizer.has_sentences and \
            not options.tokenizer.own_sentences and not options.split_sentences and \
            not notes.texts_with_newline:
        # one text the rule-based splitter would split is enough for the warning: stop there
        notes.multi_sentence_texts = int(any(
            _MAY_END_SENTENCE.search(t) and "\n" in split_sentences_rule_based(t)
            for t in texts))
        if notes.multi_sentence_texts:
            # would lm-evaluation-harness's replace(" . ", ".\n") split anything? (read only
            # where the warning is due: every character, ~1 ns each)
            notes.spaced_period_texts = int(any(map(operator.contains, texts,
                                                    itertools.repeat(" . "))))
    if plan.w_types:
        notes.tokenless_w_references = int((stats[:, plan.w_types[0][0], 2] == 0).sum())
    return notes


def _misconfiguration_notes(notes: InputNotes, texts, n: int) -> None:
    """PTB-style ends and sentence tags, per side: a C call per text for each (its last
    characters; "<" in it, a memchr), and a closer look only at the texts with a "<"."""
    ends = itertools.repeat(_SPLIT_ENDS)
    notes.ptb_predictions = sum(map(str.endswith, texts[:n], ends))
    notes.ptb_references = sum(map(str.endswith, texts[n:], ends))
    if not any(map(operator.contains, texts, itertools.repeat("<"))):
        return  # (the common case: one memchr a text)
    for k in itertools.compress(range(len(texts)),
                                map(operator.contains, texts, itertools.repeat("<"))):
        tags = set(_TAG.findall(texts[k]))
        if not tags:
            continue
        if k < n:
            notes.tagged_predictions += 1
        else:
            notes.tagged_references += 1
        notes.tag_q_texts += "<q>" in tags
        notes.tag_n_texts += "<n>" in tags
        notes.tag_t_texts += bool(tags & {"<t>", "</t>"})


def _long_predictions(offsets: np.ndarray, n: int, pairs: int, ref_counts) -> int:
    """The predictions with more than SWAP_RATIO times the tokens of their longest reference
    (a reference with tokens): from the token offsets of the texts, no pass over them."""
    if n + pairs <= _FEW_TEXTS:  # (numpy's calls cost more than these few steps)
        bounds = offsets.tolist()
        lengths = [b - a for a, b in zip(bounds, bounds[1:])]
        counts = [int(c) for c in ref_counts]
        starts = itertools.accumulate(counts, initial=n)
        longest = [max(lengths[s:s + c]) for s, c in zip(starts, counts)]
        return sum(0 < m and SWAP_RATIO * m < lengths[k] for k, m in enumerate(longest))
    lengths = np.diff(offsets)
    longest = lengths[n:]
    if len(ref_counts) and int(np.max(ref_counts)) > 1:
        starts = np.concatenate(([0], np.cumsum(ref_counts)[:-1]))
        longest = np.maximum.reduceat(longest, starts)
    return int(np.count_nonzero((longest > 0) & (lengths[:n] > SWAP_RATIO * longest)))


def _tokens_shown(options: RougeOptions, text: str) -> str | None:
    """The active tokenizer's tokens of a short text, as a message shows them (None for a
    callable tokenizer: the user's code is not run for a message)."""
    if options.tokenizer.name.startswith("callable:"):
        return None
    try:
        tokens = options.tokenizer.tokens(text, stemmer=None, stopwords=False)
    except Exception:  # a message never fails the call (a segmenter that is not installed)
        return None
    return "[" + " ".join(token for sentence in tokens for token in sentence) + "]"


def _ptb_warning(options: RougeOptions, notes: InputNotes) -> str | None:
    """One side PTB-tokenized (its texts end "word ."), the other not: what, where, what
    it does to the scores and what to do."""
    sides = (("predictions", notes.ptb_predictions, notes.predictions),
             ("references", notes.ptb_references, notes.texts - notes.predictions))
    found = [(one, two) for one, two in (sides, sides[::-1])
             if one[1] >= max(PTB_MIN_TEXTS, PTB_SHARE * one[2])
             and two[1] < PTB_OTHER_SHARE * two[2]]
    if not found:
        return None
    (side, seen, total), (other, other_seen, other_total) = found[0]
    ptb, plain = _PTB_EXAMPLE
    a, b = _tokens_shown(options, ptb), _tokens_shown(options, plain)
    if a is None or b is None:
        effect = ("A tokenizer of your own may read the two sides' words differently "
                  "(\"do n't\" against \"don't\").")
    elif a == b:
        effect = (f"The {options.tokenizer.name} tokenizer reads \"{ptb}\" and \"{plain}\" "
                  f"alike ({a}), but other words may still differ.")
    else:
        effect = (f"Under profile {options.profile.name}, the {options.tokenizer.name} "
                  f"tokenizer reads \"{ptb}\" as {a} and \"{plain}\" as {b}: tokens that do not "
                  "match each other, which lowers the scores.")
    return (f"{seen:,} of {total:,} {side} end with their final punctuation split off as a "
            "token (\"word .\"), as Penn Treebank tokenization writes text (which also writes "
            "\"-lrb-\" for \"(\", \"do n't\" for \"don't\", `` and '' for quotes), against "
            f"{other_seen:,} of {other_total:,} {other}. {effect} Detokenize the {side} "
            "(e.g. sacremoses' MosesDetokenizer or nltk's TreebankWordDetokenizer), or tokenize "
            f"the {other} the same way.")


def _tags_warning(options: RougeOptions, notes: InputNotes) -> str | None:
    """Sentence tags left in the text: scored as words, ending no sentence."""
    if not notes.tagged_predictions + notes.tagged_references:
        return None
    seen = [tags for tags, count in ((("<q>",), notes.tag_q_texts), (("<n>",), notes.tag_n_texts),
                                     (("<t>", "</t>"), notes.tag_t_texts)) if count]
    where = (f"{notes.tagged_predictions:,} of {notes.predictions:,} predictions and "
             f"{notes.tagged_references:,} of {notes.texts - notes.predictions:,} references "
             f"hold {', '.join('/'.join(tags) for tags in seen)} (the sentence tags of PreSumm "
             "(<q>), Pegasus (<n>) and CNN/DailyMail's sentence-split releases (<t> ... </t>)).")
    shown = [(tag, _tokens_shown(options, tag)) for tags in seen for tag in tags]
    name = options.tokenizer.name
    if any(tokens is None for _, tokens in shown):
        scored = "They end no sentence."
    elif all(tokens == "[]" for _, tokens in shown):
        scored = f"The {name} tokenizer drops them, but they end no sentence."
    else:
        words = ", ".join(f"{tag} as {tokens}" for tag, tokens in shown)
        scored = f"The {name} tokenizer scores them as words ({words}), and they end no " \
            "sentence."
    # torchmetrics 1.9.0's rougeLsum splitter: re.sub("<n>", "", x) without keeping the result
    kept = "torchmetrics keeps <n> itself (its rougeLsum splitter's re.sub(\"<n>\", \"\", x) " \
        "discards its result)"
    if options.tokenizer.keeps_n_tags and seen == [("<n>",)]:
        return f"{where} {scored} This is torchmetrics' own number: {kept}."
    if options.tokenizer.own_sentences:  # its own sentence rule: a newline ends none
        fix = "Remove them (each sentence ending with its punctuation)."
    else:
        fix = ("Replace <q>, <n> and </t> with a newline (rougeLsum reads a sentence per "
               "line) and remove <t>.")
    if options.tokenizer.keeps_n_tags and ("<n>",) in seen:
        fix += f" For <n>, this profile scores what torchmetrics does: {kept}."
    return f"{where} {scored} {fix}"


def _swap_warning(notes: InputNotes) -> str | None:
    n, long = notes.predictions, notes.long_predictions
    if n < SWAP_MIN_PAIRS or long < SWAP_SHARE * n:
        return None
    return (f"Predictions and references may be swapped: on {long:,} of {n:,} examples "
            f"({long / n:.0%}) the prediction has more than {SWAP_RATIO} times the tokens of "
            "its longest reference. Check the order: compute(predictions=..., "
            "references=...); the command takes PREDICTIONS before REFERENCES, and "
            "--files2rouge, as files2rouge, the reference first. Or the predictions hold more "
            "than the system's output (an echoed prompt or source text).")


def input_warnings(options: RougeOptions, notes: InputNotes) -> list:
    """The warnings that are true of everything added, as sentences."""
    out = []
    if notes.tokenless_letters:
        hint = ""
        if options.profile.tokenizer is None and options.tokenizer.name == "default":
            script = script_hint(notes.tokenless_script)
            hint = (" The default tokenizer keeps only a-z and 0-9 (as rouge_score); "
                    + (f"{script}, or tokenizer=\"unicode\"." if script else
                       "for other scripts use tokenizer=\"unicode\"."))
        out.append(f"{notes.tokenless_letters} of {notes.texts} texts have letters but no "
                   f"tokens; they score 0.{hint}")
    if notes.tokenless_symbols and options.tokenizer.empty_raises:
        out.append(f"{notes.tokenless_symbols} of {notes.texts} texts have no words (empty, or "
                   f"nothing but what the {options.profile.name} profile's sentence splitter "
                   "drops); its package raises on them (\"Hypothesis is empty.\"); they score "
                   "0, as LLaMA-Factory's guard and LongBench's except: print.")
    elif notes.tokenless_symbols:
        out.append(f"{notes.tokenless_symbols} of {notes.texts} texts hold only punctuation or "
                   "symbols, which are not tokens; they score 0.")
    if notes.multi_sentence_texts and not notes.texts_with_newline:
        lm_eval = "" if notes.spaced_period_texts else (
            " Their sentence ends have no space before the period (\"word. Next\"): a "
            "\" . \" -> newline replacement (lm-evaluation-harness's replace(\" . \", "
            "\".\\n\")) would find nothing to replace, and each text would stay one sentence.")
        out.append("rougeLsum/rougeW compare sentence by sentence, and sentences are the lines "
                   "of a text: no text contains a newline, but some hold several sentences."
                   f"{lm_eval} Put each sentence on its own line, or pass split_sentences=True.")
    if notes.tokenless_w_references:
        out.append(f"rougeW: {notes.tokenless_w_references} reference(s) have no tokens; they "
                   "score 0 (the ROUGE-1.5.5 script dies on them with a division by zero, and so "
                   "does py-rouge's apply_best).")
    out += filter(None, (_ptb_warning(options, notes), _tags_warning(options, notes),
                         _swap_warning(notes)))
    if notes.segmenter_fallbacks:
        out.append(fallback_warning(notes.segmenter_fallbacks, options.tokenizer))
    if options.use_stemmer and options.stemmer is None and \
            getattr(options.tokenizer, "language", None) is not None:
        out.append(no_stemmer_warning(options.tokenizer))
    elif options.use_stemmer and options.stemmer is None and \
            options.tokenizer is options.profile.tokenizer:
        out.append(f"use_stemmer has no effect with profile {options.profile.name}: "
                   f"{options.profile.program} does not stem, and the profile scores as it "
                   "does; for stemmed scores use profile rouge_score.")
    elif options.use_stemmer and options.stemmer is None:
        out.append(f"use_stemmer has no effect with the {options.tokenizer.name} tokenizer "
                   "(as in rouge_score): stem inside your tokenizer.")
    if options.use_aggregator and options.detailed and \
            options.n_samples * (1.0 - options.confidence) / 2.0 < 1.0:
        need = int(np.ceil(2.0 / (1.0 - options.confidence) - 1e-9))
        # never recommend a count the options refuse: past MAX_SAMPLES, the fix is a lower
        # confidence (the highest any allowed count serves: MAX_SAMPLES * (1 - c) / 2 >= 1)
        fix = f"use n_samples >= {need}" if need <= MAX_SAMPLES else (
            f"no allowed n_samples (at most {MAX_SAMPLES:,}) is enough; use confidence <= "
            f"{1.0 - 2.0 / MAX_SAMPLES:g}")
        level = f"{options.confidence * 100:.10g}%"  # 99.99999999%, not a rounded 100%
        out.append(f"n_samples={options.n_samples} is too few for a {level} interval: each "
                   f"tail holds less than one bootstrap sample; {fix}.")
    return out

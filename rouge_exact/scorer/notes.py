"""What the input looked like, and the warnings that are true of it: ``input_notes`` counts
a scored batch's ``InputNotes`` (texts without tokens, with newlines, sentences not split,
ROUGE-W references without tokens, segmenter fallbacks); ``input_warnings`` turns the notes
summed over batches into sentences (the Scorer's ``warnings()``)."""

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


def input_notes(options: RougeOptions, texts, flat: TokenizedBatch, stats,
                 plan) -> InputNotes:
    """The notes of one scored batch: its texts, their tokens (``flat``), the pairs'
    statistics and the options' plan (scorer.pipeline._plan)."""
    notes = InputNotes(texts=len(texts))
    # pltrdy's and rouge-chinese's packages raise on any text without words, empty ones too
    empty_raises = getattr(options.tokenizer, "empty_raises", False)
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
    if plan.w_types:
        notes.tokenless_w_references = int((stats[:, plan.w_types[0][0], 2] == 0).sum())
    return notes


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
    if notes.tokenless_symbols and getattr(options.tokenizer, "empty_raises", False):
        out.append(f"{notes.tokenless_symbols} of {notes.texts} texts have no words (empty, or "
                   f"nothing but what the {options.profile.name} profile's sentence splitter "
                   "drops); its package raises on them (\"Hypothesis is empty.\"); they score "
                   "0, as LLaMA-Factory's guard and LongBench's except: print.")
    elif notes.tokenless_symbols:
        out.append(f"{notes.tokenless_symbols} of {notes.texts} texts hold only punctuation or "
                   "symbols, which are not tokens; they score 0.")
    if notes.multi_sentence_texts and not notes.texts_with_newline:
        out.append("rougeLsum/rougeW compare sentence by sentence, and sentences are the lines "
                   "of a text: no text contains a newline, but some hold several sentences. "
                   "Put each sentence on its own line, or pass split_sentences=True.")
    if notes.tokenless_w_references:
        out.append(f"rougeW: {notes.tokenless_w_references} reference(s) have no tokens; they "
                   "score 0 (the ROUGE-1.5.5 script dies on them with a division by zero, and so "
                   "does py-rouge's apply_best).")
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

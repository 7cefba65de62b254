"""What the Space shows behind a number: a text's tokens (``tokens_of``), each reference's own
P/R/F and the one the multi_ref mode picks (``reference_scores``, from the pipeline's
``chosen_references``), and the tokens behind a number (``pair_marks``, as the kind marks
them: for L/Lsum/W the union-LCS kernel's own traceback; ``kinds.skip_bigram_matches`` for
ROUGE-S/SU)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..options import (
    RougeOptions,
    RougeType,
)
from .pipeline import (
    clip_view,
    pair_statistics,
    chosen_references,
    example_statistics,
)
from ..kinds import (
    kind_of,
    text_ids,
)
from ..text.tokenizers import (
    split_sentences as split_sentences_rule_based,
)


def tokens_of(text: str, **options) -> list:
    """The tokens ROUGE compares in ``text``, per sentence (lowercased, stopwords removed,
    stemmed, as the options say): what scoring compares, as strings."""
    opts = RougeOptions.build(**options)
    return opts.tokenizer.tokens(text, stemmer=opts.stemmer, stopwords=opts.remove_stopwords)


# --------------------------------------------------------------------------------------------
# What the Space shows: each reference's own scores, and the matches behind a number


def reference_scores(options: RougeOptions, prediction: str, references: Sequence[str]) -> dict:
    """{type name: (float64[refs, 3], chosen)}: P, R, F of the prediction against each
    reference alone, and the index of the reference the example's score comes from (None
    where the multi_ref mode pools the references)."""
    stats, ref_counts, *_ = pair_statistics(options, [prediction], [list(references)])
    ones = np.ones(len(references), dtype=np.int64)  # each reference alone
    alone = example_statistics(options, options.rouge_types, stats, ones)[0]
    out = {}
    for j, t in enumerate(options.rouge_types):
        chosen = chosen_references(options, t, stats[:, j], ref_counts)
        out[t.name] = (alone[:, j], None if chosen is None else int(chosen[0]))
    return out


def pair_marks(options: RougeOptions, prediction: str, reference: str, rouge_type: RougeType):
    """The tokens behind one pair's number, for display: (marks on the prediction's tokens,
    marks on the reference's tokens, tokens of each), tokens as ``tokens_of`` gives them
    (flattened over sentences), marks bool arrays: what the kind's ``marks`` says
    (kinds: for L, Lsum and W the union-LCS kernel's own traceback)."""
    texts = [prediction, reference]
    if options.split_sentences:
        texts = [split_sentences_rule_based(t) for t in texts]
    token_options = dict(stemmer=options.stemmer, stopwords=options.remove_stopwords)
    tokenizer = options.tokenizer
    flat = tokenizer.batch(texts, **token_options)
    kind = kind_of(options, rouge_type)
    view = (tokenizer.sentence_batch(texts, **token_options) or flat) if kind.sentences \
        else flat
    words = [[w for s in tokenizer.tokens(t, **token_options) for w in s] for t in texts]
    if [len(x) for x in text_ids(view)] != [len(w) for w in words]:
        raise ValueError("the tokenizer's views of the texts differ; no marks to show")
    marks = kind.marks(rouge_type, flat, view, clip_view(options, flat, view))
    return marks[0], marks[1], words[0], words[1]

"""rouge_score 0.1.2's ``rouge_scorer`` module on the engine: the same API, the same numbers.

    from rouge_exact import rouge_scorer, scoring   # was: from rouge_score import ...

    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)
    scorer.score(target, prediction)["rougeL"].fmeasure
    scorer.score_multi(targets, prediction)          # per type, the target with the best F
    scorer.score_batch(targets, predictions)         # a list of dicts, one per pair (extra)

Every number is rouge_score's to the last bit (tests/test_compat.py): the scores come from
the one scorer (scorer.pipeline: the steps of ``example_scores``, or ``Scorer.add`` for a
large batch) with profile rouge_score and multi_ref="max" (rouge_score's score_multi: per type
the first target with the highest F). The options, the tokenizer and the sentence splitting
are worked out once per RougeScorer. docs/rouge_score.md says what differs (errors come
earlier and name the argument).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Sequence

import numpy as np

from .options import RougeOptions
from .scorer.pipeline import Scorer, call_kernels, example_statistics, pair_statistics
from .text.tokenizers import NotText, StringTokenizer
from .scoring import BaseScorer, Score

__all__ = ["RougeScorer", "Score"]

ROUGE_TYPES = tuple(f"rouge{n}" for n in range(1, 10)) + ("rougeL", "rougeLsum")
_ALLOWED_TYPES = "a list of rouge1 to rouge9, rougeL and rougeLsum (rouge_score's types)"
_SURROGATE = re.compile("[\ud800-\udfff]")
_BATCH = 256  # from this many pairs score_batch goes through Scorer.add (chunks on threads)
_score = functools.partial(tuple.__new__, Score)  # Score of a [p, r, f] list (Score._make, less
# its Python frame: a fifth of building a large batch's result)


def _sentences(text: str) -> list:
    """rouge_score's rougeLsum sentences under split_summaries: nltk's, the empty ones
    dropped. (nltk.sent_tokenize is looked up at each call, as rouge_score does.)"""
    import nltk  # (0.2 s to import: only when split_summaries is used)

    return [s for s in nltk.sent_tokenize(text) if s]


def _sentence_lines(text: str) -> str:
    """The text with one nltk sentence a line, for the default tokenizer, whose sentences
    are the lines. nltk's sentences are slices of the text that leave out only whitespace,
    and a newline inside one becomes a space: the default tokenizer splits at both, so the
    whole text's tokens stay the same."""
    return "\n".join(s.replace("\n", " ") for s in _sentences(text))


@dataclass(frozen=True)
class _NltkSentenceTokenizer(StringTokenizer):
    """A tokenizer object under split_summaries: the whole text's tokens for rouge1-9 and
    rougeL, and for rougeLsum the tokens of each of nltk's sentences, as rouge_score."""

    def tokens(self, text: str, *, stemmer: str | None, stopwords: bool) -> list:
        return [self._tokens(self.function, s, stopwords) for s in _sentences(text)]


def _check_text(name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name}: got {value!r:.80} ({type(value).__name__}); allowed: str")


def _text_list(name: str, values: Any) -> list:
    """values as a list of str; else a TypeError naming the argument or the item."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name}: got a {type(values).__name__} ({values!r:.60}); allowed: a "
                        "list of str")
    try:
        values = list(values)
    except TypeError:
        raise TypeError(f"{name}: got {type(values).__name__}; allowed: a list of str") \
            from None
    if not set(map(type, values)) <= {str}:  # (in C for a list of str: a str subclass is fine)
        for i, value in enumerate(values):
            _check_text(f"{name}[{i}]", value)
    return values


class RougeScorer(BaseScorer):
    """rouge_score's RougeScorer: ROUGE of a prediction against a target.

    Args:
        rouge_types: a list of rouge1 to rouge9, rougeL and rougeLsum (rougeLsum: the
            summary-level LCS of the texts' sentences, one a line, or nltk's with
            split_summaries=True).
        use_stemmer: Porter-stem tokens of more than 3 characters (nltk's, as rouge_score);
            not applied to a tokenizer of your own, as in rouge_score.
        split_summaries: rougeLsum's sentences by nltk's sentence splitter, not by lines.
        tokenizer: an object whose ``tokenize(text)`` returns a list of str (rouge_score's
            tokenizers.Tokenizer); None: the default tokenizer (lowercased runs of a-z, 0-9).
    """

    def __init__(self, rouge_types: Sequence[str], use_stemmer: bool = False,
                 split_summaries: bool = False, tokenizer: Any = None) -> None:
        if isinstance(rouge_types, str) or not isinstance(rouge_types, (list, tuple)):
            raise TypeError(f"rouge_types: got {rouge_types!r:.80} "
                            f"({type(rouge_types).__name__}); allowed: {_ALLOWED_TYPES}")
        for name in rouge_types:
            if name not in ROUGE_TYPES:
                raise ValueError(f"rouge_types: got {name!r:.80} in {rouge_types!r:.200}; "
                                 f"allowed: {_ALLOWED_TYPES}")
        if not rouge_types:
            raise ValueError(f"rouge_types: got an empty {type(rouge_types).__name__}; "
                             f"allowed: {_ALLOWED_TYPES}")
        for name, value in (("use_stemmer", use_stemmer), ("split_summaries", split_summaries)):
            if not isinstance(value, bool):
                raise TypeError(f"{name}: got {value!r} ({type(value).__name__}); allowed: "
                                "True or False")
        if tokenizer is not None and not callable(getattr(tokenizer, "tokenize", None)):
            raise TypeError(f"tokenizer: got {tokenizer!r:.80} ({type(tokenizer).__name__}), "
                            "which has no tokenize method; allowed: None or an object with "
                            "tokenize(text) -> list of str (rouge_score's tokenizers.Tokenizer)")
        self.rouge_types = rouge_types  # (as rouge_score keeps them)
        self._use_stemmer = use_stemmer
        self._split_summaries = split_summaries
        self._tokenizer = tokenizer
        self._types = tuple(dict.fromkeys(rouge_types))  # a repeated type: one key, as there
        splits = split_summaries and "rougeLsum" in self._types
        if tokenizer is None:
            engine_tokenizer = None  # the engine's byte scanner: rouge_score's tokenizer
        elif splits:
            engine_tokenizer = _NltkSentenceTokenizer(
                f"callable:{type(tokenizer).__name__}.tokenize", tokenizer.tokenize)
        else:
            engine_tokenizer = tokenizer.tokenize
        # the lines of each text become nltk's sentences (default tokenizer, rougeLsum)
        self._prepare = _sentence_lines if splits and tokenizer is None else None
        self._options = RougeOptions.build(
            rouge_types=list(self._types), use_stemmer=use_stemmer and tokenizer is None,
            tokenizer=engine_tokenizer, multi_ref="max", use_aggregator=False)

    def __reduce__(self) -> tuple:  # pickles as its arguments (the options hold functions)
        return RougeScorer, (self.rouge_types, self._use_stemmer, self._split_summaries,
                             self._tokenizer)

    def score(self, target: str, prediction: str) -> dict[str, Score]:
        """ROUGE of the prediction against the target.

        Args:
            target: the reference text.
            prediction: the text scored.

        Returns:
            ``{type: Score(precision, recall, fmeasure)}``, as rouge_score's.
        """
        _check_text("target", target)
        _check_text("prediction", prediction)
        return self._scores([prediction], [target], "prediction", "target")[0]

    def score_multi(self, targets: Sequence[str], prediction: str) -> dict[str, Score]:
        """ROUGE of the prediction against its best target, per type, as rouge_score's.

        Args:
            targets: one or more reference texts.
            prediction: the text scored.

        Returns:
            ``{type: Score}``: per type, the Score against the target with the highest
            fmeasure (the first of equals).
        """
        targets = _text_list("targets", targets)
        _check_text("prediction", prediction)
        if not targets:
            raise ValueError("targets: got an empty list; allowed: one or more target texts")
        return self._scores([prediction], [targets], "prediction", "targets")[0]

    def score_batch(self, targets: Sequence[str],
                    predictions: Sequence[str]) -> list[dict[str, Score]]:
        """[{type: Score}] for each (target, prediction) pair, as
        ``[self.score(t, p) for t, p in zip(targets, predictions)]`` (rouge-score-rs's name
        and order), scored in one pass: chunks on threads for large batches."""
        targets = _text_list("targets", targets)
        predictions = _text_list("predictions", predictions)
        if len(targets) != len(predictions):
            raise ValueError(f"targets and predictions: got {len(targets)} targets and "
                             f"{len(predictions)} predictions; allowed: the same number")
        if not targets:
            return []
        return self._scores(predictions, targets, "predictions", "targets")

    def _scores(self, predictions: list, references: list, prediction_name: str,
                target_name: str) -> list:
        """[{type: Score}] per prediction, against its reference (a str) or the best of its
        references (a list of str). The names are the caller's arguments, for errors."""
        if self._prepare is not None:
            predictions, references = _each(self._prepare, predictions, references)
        try:
            array = self._array(predictions, references)
        except NotText as error:  # a lone surrogate: the engine does not take it as text
            if self._tokenizer is not None:  # it would reach the user's tokenizer changed
                raise _renamed(error, prediction_name, target_name) from None
            # rouge_score's tokenizer reads it as a separator, as it does a space (after any
            # sentence splitting, which saw it as rouge_score's did)
            array = self._array(*_each(lambda text: _SURROGATE.sub(" ", text), predictions,
                                       references))
        types = self._types
        # A row's floats are listed as its Scores are made, not the whole array at once: the
        # nested lists of array.tolist() would all live until the end, and their count sets
        # off full collections of the growing result (2.5x the time at 100,000 pairs when
        # the process holds many objects). The collector itself is left as the caller set it.
        return [dict(zip(types, map(_score, row.tolist()))) for row in array]


    def _array(self, predictions: list, references: list) -> np.ndarray:
        """float64[N, 3 * types]: each pair's P, R, F per type, from the one scorer."""
        if len(predictions) < _BATCH:  # the scorer's own steps, less its input notes
            # (which only its warnings read: ~15% of a one-pair call)
            options = self._options
            kernels = call_kernels(options)
            stats, ref_counts, *_ = pair_statistics(options, predictions, references, kernels)
            return example_statistics(options, options.rouge_types, stats, ref_counts,
                                      kernels)[0]
        batch = Scorer(self._options).add(predictions, references)
        assert batch is not None  # rows=True: the batch comes back
        return batch.score_array


def _each(function: Callable, predictions: list, references: list) -> tuple:
    """function applied to every prediction and reference (a str or a list of str)."""
    return ([function(p) for p in predictions],
            [function(r) if isinstance(r, str) else [function(x) for x in r]
             for r in references])


def _renamed(error: NotText, prediction_name: str, target_name: str) -> NotText:
    """The engine's NotText (``predictions[i]``, ``references[i]``, ``references[i][j]``) in
    the names of the caller's arguments."""
    where = error.where
    if prediction_name == "prediction":  # one prediction: score, score_multi
        where = "prediction" if where.startswith("predictions") else \
            target_name + where[len("references[0]"):]
    else:
        where = where.replace("references", target_name, 1)
    return NotText(where, error.bad)

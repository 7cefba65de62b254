"""pyrouge 0.1.3's ``Rouge155`` without Perl: the same class, the same output, byte for byte.

    from rouge_exact.pyrouge import Rouge155   # was: from pyrouge import Rouge155

    r = Rouge155()
    r.system_dir, r.model_dir = "systems", "models"
    r.system_filename_pattern = r"doc.(\\d+).txt"   # one group: the document's ID
    r.model_filename_pattern = "doc.[A-Z].#ID#.txt"  # #ID#: that ID; [A-Z]: several references
    output = r.convert_and_evaluate()               # what ROUGE-1.5.5.pl prints, CI included

pyrouge converts each file to ROUGE's SEE HTML and runs ``ROUGE-1.5.5.pl -c 95 -2 -1 -U -r 1000
-n 4 -w 1.2 -a -m`` (or ``rouge_args``, then -m). Here the files become the units the script
reads, in its row order, scored by ``profile="rouge155"`` (docs/rouge155.md) and printed as the
script prints; ``perl_options`` maps its options and refuses the others by name.
docs/pyrouge.md is the manual; tests/test_pyrouge_dropin.py compares it with pyrouge and Perl.
"""
from __future__ import annotations

import logging
import os
import re
import warnings
from dataclasses import dataclass
from typing import Any

from .options import RougeOptions, RougeWarning
from .scorer.pipeline import Scorer

__all__ = ["Rouge155", "PerlOptions", "perl_options", "rouge155_output", "see_units",
           "DEFAULT_ROUGE_ARGS"]

# pyrouge's own options (without its "-e DATA_DIR": no data is read here); it adds -m
DEFAULT_ROUGE_ARGS = "-c 95 -2 -1 -U -r 1000 -n 4 -w 1.2 -a"
_GETOPTS = "ahHb:c:de:f:l:mMn:p:st:r:2:3:w:uUvxz:"  # ROUGE-1.5.5.pl's getopts()
_REFUSED = {
    "h": "prints the script's usage and stops",
    "H": "prints the script's usage and stops",
    "M": "stems the models only",
    "3": "scores Basic Elements (BE), not text",
    "v": "prints the script's debugging lines",
    "z": "reads a list of files, not pyrouge's configuration",
}
_NUMBER = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")  # -c, -p, -w: a plain decimal number
_INTEGER = re.compile(r"-?[0-9]+")
# The two SEE lines ROUGE-1.5.5's readText keeps (its \s: ASCII whitespace, as Perl on bytes)
_SEE_LINE = re.compile(r'<a (?:size="[0-9]+" )?name="[0-9]+">\[[0-9]+\]</a>[ \t\n\x0b\f\r]+'
                       r'<a href="#[0-9]+" id=[0-9]+>([^<]+)')
_LOG = logging.getLogger(__name__)


def _refuse(flag: str, given: str, allowed: str) -> ValueError:
    return ValueError(f"rouge_args: {flag} got {given!r}; allowed: {allowed}")


# --------------------------------------------------------------------------------------------
# The script's options


@dataclass(frozen=True)
class PerlOptions:
    """The options of one ROUGE-1.5.5.pl command line that this module maps; the strings are
    as typed, since the script prints them so (``-c 95`` prints "95%-conf.int.", ``-w 1.20``
    "ROUGE-W-1.20")."""

    all_systems: bool = False  # -a (pyrouge gives no system ID: the script needs it)
    per_eval: bool = False  # -d: each evaluation's scores too
    confidence: str = "95"  # -c
    n: int = 0  # -n: ROUGE-1 to ROUGE-n (none when absent)
    weight: str | None = None  # -w: ROUGE-W of this weight
    skip: str | None = None  # -2: skip-bigrams at most this far apart (< 0: any distance)
    unigrams: bool = False  # -u: ROUGE-SU instead of ROUGE-S
    both_skips: bool = False  # -U: ROUGE-S and ROUGE-SU
    no_lcs: bool = False  # -x: no ROUGE-L
    stem: bool = False  # -m
    stopwords: bool = False  # -s: remove them
    formula: str = "A"  # -f A (average over the references) or B (the best)
    alpha: str = "0.5"  # -p
    samples: int = 1000  # -r
    counting: int = 0  # -t: 0 per-evaluation average, 1 corpus counts, 2 raw counts only
    words: int = 0  # -l (0: no limit)
    bytes: int = 0  # -b (0: no limit)

    def types(self) -> list:
        """[(rouge type, the script's name of it)], in the order the script prints them."""
        out = [(f"rouge{k}", f"ROUGE-{k}") for k in range(1, self.n + 1)]
        if not self.no_lcs:
            out.append(("rougeL", "ROUGE-L"))  # profile rouge155's rougeL: the script's
        if self.weight is not None:
            out.append((f"rougeW-{self.weight}", f"ROUGE-W-{self.weight}"))
        if self.skip is not None:
            distance = int(self.skip)
            d, shown = (str(distance), self.skip) if distance >= 0 else ("", "*")
            if self.unigrams:
                out.append((f"rougeSU{d}", f"ROUGE-SU{shown}"))
            else:
                out.append((f"rougeS{d}", f"ROUGE-S{shown}"))
                if self.both_skips:
                    out.append((f"rougeSU{d}", f"ROUGE-SU{shown}"))
        return out

    def kwargs(self) -> dict:
        """compute()'s options for these (profile rouge155)."""
        return dict(
            rouge_types=[name for name, _ in self.types()], profile="rouge155",
            use_stemmer=self.stem, remove_stopwords=self.stopwords,
            multi_ref={"A": "average", "B": "best"}[self.formula], alpha=float(self.alpha),
            n_samples=self.samples,
            confidence=float(self.confidence) / 100.0, detailed=True,
            aggregation="macro" if self.counting == 0 else "micro",
            length_limit_words=self.words or None, length_limit_bytes=self.bytes or None)


def _getopts(words: list) -> tuple:
    """({letter: value or True}, the words left) as Perl's Getopt::Std getopts() with the
    script's spec reads them: bundles (-am), values attached (-n4) or next (-n 4, -2 -1)."""
    given, words = {}, list(words)
    while words and len(words[0]) > 1 and words[0].startswith("-"):
        word = words.pop(0)
        if word == "--":
            words.insert(0, word)  # (pyrouge's -m and configuration would follow it)
            break
        first, rest = word[1], word[2:]
        where = _GETOPTS.find(first) if first != ":" else -1
        if where < 0:
            raise ValueError(f"rouge_args: -{first} is not an option of ROUGE-1.5.5.pl; "
                             f"allowed: {_allowed()}")
        if _GETOPTS[where + 1:where + 2] == ":":
            if not rest:
                if not words:
                    raise ValueError(f"rouge_args: -{first} needs a value; allowed: "
                                     f"-{first} VALUE")
                rest = words.pop(0)
            given[first] = rest
        else:
            given[first] = True
            if rest:
                words.insert(0, "-" + rest)
    return given, words


def _allowed() -> str:
    return "-a -b -c -d -e -f -l -m -n -p -r -s -t -u -U -w -x -2 (not " + \
        ", ".join(f"-{k}" for k in _REFUSED) + ")"


def perl_options(words) -> PerlOptions:
    """The options of ROUGE-1.5.5.pl's command line ``words`` (a list, or a str split on
    whitespace as pyrouge splits it). ValueError naming the option for one this module does
    not map, or a value the script would not take or this package cannot score."""
    if isinstance(words, str):
        words = words.split()
    given, left = _getopts(words)
    if left:
        raise ValueError(f"rouge_args: got {left[0]!r} where an option was expected; allowed: "
                         "options only (pyrouge adds the configuration file itself)")
    for flag, why in _REFUSED.items():
        if flag in given:
            raise ValueError(f"rouge_args: -{flag} ({why}) is not supported; allowed: "
                             f"{_allowed()}")
    out: dict[str, Any] = {}
    for flag, name in (("a", "all_systems"), ("d", "per_eval"), ("u", "unigrams"),
                       ("U", "both_skips"), ("x", "no_lcs"), ("m", "stem"),
                       ("s", "stopwords")):
        out[name] = flag in given
    if "c" in given:
        c = given["c"]
        if not _NUMBER.fullmatch(c) or not 0 < float(c) < 100:
            raise _refuse("-c", c, "a confidence level in percent, 0 < c < 100")
        out["confidence"] = c
    for flag, name, low in (("n", "n", None), ("r", "samples", 1), ("l", "words", 0),
                            ("b", "bytes", 0), ("t", "counting", 0)):
        if flag in given:
            value = given[flag]
            if not _INTEGER.fullmatch(value) or (low is not None and int(value) < low):
                rule = "an integer" if low is None else f"an integer >= {low}"
                raise _refuse(f"-{flag}", value, rule)
            out[name] = max(int(value), 0)  # -n 0 or less: no ROUGE-N, as the script
    if out.get("counting", 0) > 2:
        raise _refuse("-t", given["t"], "0, 1 or 2")
    if "l" in given and "b" in given:
        raise ValueError("rouge_args: got both -l and -b; allowed: at most one (the script "
                         "stops on both)")
    if "w" in given:
        w = given["w"]
        if not _NUMBER.fullmatch(w) or not 1 < float(w) <= 5:
            raise _refuse("-w", w, "a ROUGE-W weight 1 < w <= 5")
        out["weight"] = w
    if "2" in given:
        if not _INTEGER.fullmatch(given["2"]):
            raise _refuse("-2", given["2"], "an integer distance (< 0: any distance)")
        out["skip"] = given["2"]
    if "f" in given:
        if given["f"] not in ("A", "B"):
            raise _refuse("-f", given["f"], "A or B")
        out["formula"] = given["f"]
    if "p" in given:
        if not _NUMBER.fullmatch(given["p"]) or float(given["p"]) > 1:
            raise _refuse("-p", given["p"], "a weight 0 <= p <= 1")
        out["alpha"] = given["p"]
    return PerlOptions(**out)


# --------------------------------------------------------------------------------------------
# Texts: what the script reads of pyrouge's files


def see_units(text: str) -> list:
    """The sentences ROUGE-1.5.5 reads back from pyrouge's SEE conversion of ``text``: each
    line becomes ``<a name="i">[i]</a> <a href="#i" id=i>LINE</a>``, of which the script keeps
    the text up to the first "<" (pyrouge escapes nothing), and none where that is empty."""
    return [unit for unit in (line.split("<", 1)[0] for line in text.split("\n")) if unit]


def read_see(data: str) -> list:
    """The sentences ROUGE-1.5.5 reads from a SEE file (readText). A unit that runs to the
    end of its line without "<" keeps its newline in the script, which only its -b byte
    count would see: here the newline is left out (pyrouge's files close every unit)."""
    return [found.group(1) for found in map(_SEE_LINE.match, data.split("\n")) if found]


def _read(path: str) -> str:
    """A file's text as pyrouge reads it (UTF-8, no newline translation)."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 ({error.reason} at byte {error.start}); "
                         "allowed: UTF-8 text, as pyrouge reads it") from None


def punkt_splitter():
    """pyrouge's split_sentences(): text -> text with nltk's Punkt model for English, after
    pyrouge's cleanup ("\\n", "\\r" and "|" become spaces, whitespace runs one space), one
    sentence a line. LookupError where nltk has not the model."""
    import nltk.data

    try:
        splitter = nltk.data.load("tokenizers/punkt/english.pickle")
    except LookupError as error:
        raise LookupError("split_sentences=True: pyrouge splits with nltk's Punkt model for "
                          "English, which nltk cannot find; install it with "
                          "nltk.download('punkt_tab') ('punkt' before nltk 3.9)") from error

    def split(text: str) -> str:
        text = re.sub(r"\s+", " ", re.sub("[\n|\r]", " ", text))
        return "\n".join(splitter.tokenize(text.strip()))

    return split


# --------------------------------------------------------------------------------------------
# Scoring and printing as the script does


def _perl_number(x: float) -> str:
    """A number as Perl prints it (%.15g)."""
    return "%.15g" % x


def rouge155_output(documents: list, options: PerlOptions, system_id="1") -> str:
    """What ROUGE-1.5.5.pl prints for ``documents``, [(system units, [model units, ...])]
    in the order of pyrouge's configuration (evaluation IDs 1, 2, ...), each units a list
    of sentences, with ``options`` (perl_options) and the peer ID ``system_id``."""
    if not options.all_systems:
        raise ValueError("rouge_args: -a is missing; without it ROUGE-1.5.5.pl wants a system "
                         "ID after the configuration, which pyrouge never passes (the script "
                         "stops); allowed: rouge_args with -a")
    types = options.types()
    if not types or not documents:
        return ""
    peer = str(system_id)
    _LOG.info("Scoring %d documents as ROUGE-1.5.5 (profile rouge155, no Perl): %s",
              len(documents), options)
    # the script's rows: its hash keys "ID.peer", sorted as strings ("1.1" < "10.1" < "2.1");
    # its bootstrap draws them by index
    order = sorted(range(len(documents)), key=lambda k: f"{k + 1}.{peer}")
    predictions = ["\n".join(documents[k][0]) for k in order]
    references = [["\n".join(units) for units in documents[k][1]] for k in order]
    try:
        scorer = Scorer(RougeOptions.build(**options.kwargs()))
    except (TypeError, ValueError) as error:  # a bound of the option it maps to (-r: n_samples)
        raise ValueError(f"rouge_args: {error}") from None
    batch = scorer.add(predictions, references)
    assert batch is not None  # (rows=True: the rows come back)
    for message in scorer.warnings():
        warnings.warn(message, RougeWarning, stacklevel=3)
    result = scorer.result() if options.counting < 2 else None
    back = sorted(range(len(order)), key=order.__getitem__)  # row of each evaluation ID
    lines = []
    for j, (name, label) in enumerate(types):
        head = f"{peer} {label}"
        lines.append("-" * 45)
        if result is not None:
            entry = result[name]
            for letter, key in (("R", "recall"), ("P", "precision"), ("F", "fmeasure")):
                low, mid, high = (entry[key][k] for k in ("low", "mid", "high"))
                lines.append(f"{head} Average_{letter}: {mid:7.5f} ({options.confidence}%"
                             f"-conf.int. {low:7.5f} - {high:7.5f})")
        else:  # -t 2: the counts summed in the script's row order, truncated
            sums = [0.0, 0.0, 0.0]
            for hit, den_p, den_r in batch.count_array[:, j].tolist():
                sums = [sums[0] + den_r, sums[1] + den_p, sums[2] + hit]
            lines.append(f"{head} M_count: {int(sums[0])} P_count: {int(sums[1])} "
                         f"H_count: {int(sums[2])}")
        if options.per_eval:  # by evaluation ID, as numbers
            lines.append("." * 45)
            for k in range(len(documents)):
                row = back[k]
                if options.counting == 0:
                    p, r, f = batch.score_array[row, j].tolist()
                    values = f"R:{r:7.5f} P:{p:7.5f} F:{f:7.5f}"
                else:
                    hit, den_p, den_r = map(_perl_number, batch.count_array[row, j].tolist())
                    values = f"R:{den_r} P:{den_p} F:{hit}"
                lines.append(f"{head} Eval {k + 1}.{peer} {values}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# pyrouge's file matching


_WORD = re.compile(r"[0-9A-Za-z_]+")
_MAX_INDEXED = 24  # the longest ID the index holds: longer ones take every file


class ModelFiles:
    """pyrouge's model files of an ID: the names (sorted) that ``re.match`` the pattern with
    #ID# replaced by the ID (unescaped, as pyrouge). Trying every name for every ID costs
    files x IDs matches (a second per 2,000 documents, growing as their square): where the ID
    is a word and the pattern leaves it no way around (``_keeps_id``), only the names that
    hold the ID, found in an index of their words' substrings, are tried."""

    def __init__(self, names: list, pattern: str):
        self.names, self.pattern = names, pattern
        index: dict[str, list] = {}
        for k, name in enumerate(names if _keeps_id(pattern) else ()):
            parts = {run[i:j] for run in _WORD.findall(name) for i in range(len(run))
                     for j in range(i + 1, min(len(run), i + _MAX_INDEXED) + 1)}
            for part in parts:
                index.setdefault(part, []).append(k)
        self.index = index if _keeps_id(pattern) else None

    def of(self, doc_id: str) -> list:
        model = re.compile(self.pattern.replace("#ID#", doc_id))
        if self.index is None or len(doc_id) > _MAX_INDEXED or not _WORD.fullmatch(doc_id):
            return [name for name in self.names if model.match(name)]
        return [self.names[k] for k in self.index.get(doc_id, ()) if model.match(self.names[k])]


def _keeps_id(pattern: str) -> bool:
    """Whether every name that a pattern with #ID# replaced by a word ([0-9A-Za-z_]+) matches
    holds that word: #ID# once, outside a class, braces and an escape, no quantifier after it,
    and no group or alternation anywhere (which could go around it). Conservative: a pattern
    it cannot read so simply gets False (every name is tried)."""
    if pattern.count("#ID#") != 1 or any(c in pattern for c in "()|"):
        return False
    before, after = pattern.split("#ID#")
    if after[:1] in ("*", "+", "?", "{"):
        return False
    open_class = open_braces = escaped = False
    for k, c in enumerate(before):
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif open_class:
            open_class = c != "]"
        elif c == "[":
            if before[k + 1:k + 2] == "]" or before[k + 1:k + 3] == "^]":  # ("[]...]": not
                return False  # read here)
            open_class = True
        elif c in "{}":
            open_braces = c == "{"
    return not (escaped or open_class or open_braces)


# --------------------------------------------------------------------------------------------
# The class


class Rouge155:
    """pyrouge's Rouge155 (0.1.3, and its GitHub head's ``log_level``): set ``system_dir``,
    ``model_dir`` and the two filename patterns, then ``convert_and_evaluate()`` (plain text,
    one sentence a line) or ``evaluate()`` (files already in ROUGE's SEE format).

    Args:
        rouge_dir: ROUGE's folder: accepted and kept (``home_dir``), never read.
        rouge_args: the script's options instead of pyrouge's (``DEFAULT_ROUGE_ARGS``);
            enclosing double quotes are removed, as pyrouge does.
        log_level: the level of this module's logger (pyrouge's GitHub head).
        stemming: None (pyrouge 0.1.3): ``-m`` is always added; True or False: added or not
            (the fork that files2rouge installs).
    """

    def __init__(self, rouge_dir=None, rouge_args=None, log_level=None, stemming=None):
        self.log = _LOG
        if log_level is not None:
            self.log.setLevel(log_level)
        self._home_dir = rouge_dir
        self.data_dir = None if rouge_dir is None else os.path.join(rouge_dir, "data")
        self.args = self._clean_rouge_args(rouge_args)
        self.stemming = stemming
        self._system_dir = self._model_dir = None
        self.system_filename_pattern = None
        self.model_filename_pattern = None

    @property
    def home_dir(self):
        return self._home_dir

    @property
    def system_dir(self):
        return self._system_dir

    @system_dir.setter
    def system_dir(self, path):
        self._system_dir = self._existing("system_dir", path)

    @property
    def model_dir(self):
        return self._model_dir

    @model_dir.setter
    def model_dir(self, path):
        self._model_dir = self._existing("model_dir", path)

    @staticmethod
    def _existing(name: str, path):
        if not os.path.exists(path):
            raise ValueError(f"{name}: the path {path} does not exist; allowed: a folder")
        return path

    @staticmethod
    def _clean_rouge_args(rouge_args):
        """pyrouge's: the text inside the first and the last double quote, if it starts with
        one."""
        if not rouge_args:
            return None
        quoted = re.match('"(.+)"', rouge_args)
        return quoted.group(1) if quoted else rouge_args

    # -- pyrouge's conversion (pure text: kept for code that calls it) -----------------------

    @staticmethod
    def convert_text_to_rouge_format(text, title="dummy title"):
        """pyrouge's SEE HTML of a text, one sentence a line."""
        units = "\n".join(f'<a name="{i}">[{i}]</a> <a href="#{i}" id={i}>{sentence}</a>'
                          for i, sentence in enumerate(text.split("\n"), start=1))
        return (f'<html>\n<head>\n<title>{title}</title>\n</head>\n<body bgcolor="white">\n'
                f"{units}\n</body>\n</html>")

    @staticmethod
    def convert_summaries_to_rouge_format(input_dir, output_dir):
        """Every file of input_dir written to output_dir in pyrouge's SEE HTML."""
        os.makedirs(output_dir, exist_ok=True)
        for name in os.listdir(input_dir):
            html = Rouge155.convert_text_to_rouge_format(_read(os.path.join(input_dir, name)))
            with open(os.path.join(output_dir, name), "w", encoding="utf-8", newline="") as f:
                f.write(html)

    # -- scoring --------------------------------------------------------------------------

    def _documents(self) -> list:
        """[(system file, [model files])] as pyrouge's configuration lists them: the system
        files matching system_filename_pattern, sorted by name; for each, the model files
        matching model_filename_pattern with #ID# the pattern's group, sorted."""
        for name in ("system_dir", "model_dir", "system_filename_pattern",
                     "model_filename_pattern"):
            if getattr(self, name) is None:
                raise ValueError(f"{name}: not set; allowed: set it before evaluating")
        system = re.compile(self.system_filename_pattern)
        if system.groups < 1:
            raise ValueError(f"system_filename_pattern: {self.system_filename_pattern!r} has no "
                             "group; allowed: a regular expression whose first group matches "
                             r"the document's ID, e.g. 'doc.(\d+).txt'")
        models = ModelFiles(sorted(os.listdir(self.model_dir)), self.model_filename_pattern)
        out = []
        for name in sorted(os.listdir(self.system_dir)):
            found = system.match(name)
            if not found:
                continue
            doc_id = found.groups(0)[0]
            matched = models.of(str(doc_id))
            if not matched:
                raise ValueError(f"model_filename_pattern: no model summary for the system "
                                 f"summary with ID {doc_id} ({name}); the pattern was "
                                 f"{self.model_filename_pattern!r}")
            out.append((name, matched))
        if not out:
            raise ValueError(f"system_filename_pattern: no file of {self.system_dir} matches "
                             f"{self.system_filename_pattern!r}")
        return out

    def _options(self, rouge_args) -> PerlOptions:
        """pyrouge's options: the constructor's rouge_args, else this call's, else its own;
        then -m (always in pyrouge 0.1.3; with stemming=True in files2rouge's fork)."""
        words = (self.args or rouge_args or DEFAULT_ROUGE_ARGS).split()
        if self.stemming is not False:
            words.append("-m")
        return perl_options(words)

    def _evaluate(self, system_id, rouge_args, texts) -> str:
        options = self._options(rouge_args)
        files = self._documents()
        system_id = system_id or 1  # pyrouge's write_config: a false ID is 1
        documents = [(texts(self.system_dir, name),
                      [texts(self.model_dir, model) for model in models])
                     for name, models in files]
        return rouge155_output(documents, options, system_id)

    def evaluate(self, system_id=1, rouge_args=None):
        """What ROUGE-1.5.5.pl prints for the system and model folders, whose files are
        already in ROUGE's SEE format (convert_summaries_to_rouge_format's)."""
        return self._evaluate(system_id, rouge_args,
                              lambda folder, name: read_see(_read(os.path.join(folder, name))))

    def convert_and_evaluate(self, system_id=1, split_sentences=False, rouge_args=None):
        """What ROUGE-1.5.5.pl prints for the folders' plain texts, one sentence a line
        (split_sentences=True: split first with nltk's Punkt model, as pyrouge)."""
        split = punkt_splitter() if split_sentences else str

        def texts(folder, name):
            return see_units(split(_read(os.path.join(folder, name))))

        return self._evaluate(system_id, rouge_args, texts)

    @staticmethod
    def output_to_dict(output):
        """pyrouge's dict of the script's output: ``rouge_1_f_score``, ``rouge_1_f_score_cb``
        (the interval's low end), ``rouge_1_f_score_ce`` (its high end), ..., for the lines
        of a numeric system ID and a 95% interval (pyrouge's pattern)."""
        pattern = re.compile(r"(\d+) (ROUGE-\S+) (Average_\w): (\d.\d+) "
                             r"\(95%-conf.int. (\d.\d+) - (\d.\d+)\)")
        measures = {"Average_R": "recall", "Average_P": "precision", "Average_F": "f_score"}
        results = {}
        for line in output.split("\n"):
            found = pattern.match(line)
            if found:
                _, rouge_type, measure, value, low, high = found.groups()
                key = f"{rouge_type.lower().replace('-', '_')}_{measures[measure]}"
                results[key] = float(value)
                results[f"{key}_cb"] = float(low)
                results[f"{key}_ce"] = float(high)
        return results

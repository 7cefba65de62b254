"""Text to token ids: the tokenizer profiles, the stem memo, the sentence splitter.

A batch of texts becomes one ``TokenizedBatch`` (a flat ``int64`` array of token ids with
sentence and text offsets): ``tokenize_ascii_batch`` is the fast path of the two ASCII
tokenizers (rouge_score's and ROUGE-1.5.5's: one compiled scan of the batch's bytes, Python
only for words never stemmed before); ``tokenize_string_batch`` interns the string tokens of
any other tokenizer. A ``TokenizerProfile`` says what ROUGE compares in a text: ``batch``
gives the kernels' ids, ``tokens`` the same tokens as strings (the Space's highlights). The
named ones are ``TOKENIZERS``. docs/design.md, "Tokenizers", has the details.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .rouge155_lexicon import (
    SMART_STOPWORDS,
    stem_token_rouge155,
)
from ..kernels import porter as porter_kernels  # (plain Python: the file, not its compiled copy)
from ..kernels.pool import ForkSafeLock
from ..version import installed_version
from ..kernels.backend import (
    resolve,
    threads_here,
)


__all__ = [
    "NotText",
    "first_not_text",
    "TokenizedBatch",
    "StemMemo",
    "tokenize_ascii_batch",
    "tokenize_string_batch",
    "scanned_words",
    "unicode_tokenize",
    "unicode_v1_tokenize",
    "character_v1_tokenize",
    "whitespace_tokenize",
    "split_sentences",
    "decode_token",
    "MAX_PACKED_LEN",
]

# Tokens of up to 12 characters of [a-z0-9] are packed exactly into an int64 (base 37, no zero
# digit, so different lengths never collide: 37**12 < 2**63). Longer tokens get negative ids.
MAX_PACKED_LEN = 12
_DROPPED = np.iinfo(np.int64).min  # marks a token that the stemmer turned into an invalid one
_VALID_TOKEN = re.compile(r"^[a-z0-9]+$")  # rouge_score's final token check
_DIGITS = "abcdefghijklmnopqrstuvwxyz0123456789"
# The non-ASCII characters whose str.lower() contains [a-z0-9]: U+0130 ("i" + combining dot)
# and the Kelvin sign U+212A ("k").
LOWERS_TO_ASCII = ("\u0130", "\u212a")


@dataclass(frozen=True)
class TokenizedBatch:
    """Token ids of K texts: sentence s of the batch is
    ``tokens[sent_offsets[s]:sent_offsets[s + 1]]``, text k holds sentences
    ``text_sent_offsets[k]..text_sent_offsets[k + 1] - 1``."""

    tokens: np.ndarray
    sent_offsets: np.ndarray
    text_sent_offsets: np.ndarray

    @functools.cached_property  # (a frozen dataclass still has a __dict__ for it)
    def text_offsets(self) -> np.ndarray:
        return self.sent_offsets[self.text_sent_offsets]

    def text_len(self, k: int) -> int:
        offsets = self.text_offsets
        return int(offsets[k + 1] - offsets[k])


def encode_token(word: str) -> int:
    """The packed code of a [a-z0-9] word of at most MAX_PACKED_LEN characters, else 0."""
    if len(word) > MAX_PACKED_LEN or not _VALID_TOKEN.match(word):
        return 0
    code = 0
    for ch in word:
        code = code * 37 + _DIGITS.index(ch) + 1
    return code


def decode_token(code: int) -> str:
    chars = []
    while code > 0:
        code, digit = divmod(code, 37)
        chars.append(_DIGITS[digit - 1])
    return "".join(reversed(chars))


class StemMemo:
    """A bounded memo of a stemmer on packed codes: each distinct word is stemmed once.

    Lives as long as the metric module (so the stems of a training run's vocabulary are
    computed once); cleared when it holds ``max_size`` words, or its words too long to pack
    hold ``max_chars`` characters, which bounds its memory: a packed word costs ~250 bytes
    (memo, table, set), so 200,000 of them ~50 MB, and a long word its length (issue 27: a
    server's RSS grew by 1 GB on requests of fresh long words under a 1,000,000-word bound)."""

    def __init__(self, stem: Callable[[str], str], max_size: int = 200_000,
                 max_chars: int = 8_000_000):
        self.stem = stem
        self.max_size = max_size
        self.max_chars = max_chars
        self._long_chars = 0  # characters of the words in _by_word and _long_codes
        self._by_code: dict[int, int | str] = {}
        self._by_word: dict[str, str] = {}  # words too long to pack into a code
        self._long_codes: dict[str, int | str] = {}  # such words -> long_code()
        # the packed stems as an open-addressing hash table for the scanner
        # (kernels.scan.scan_stem_tokens): code -> stem code, or -1 for a stem that
        # does not pack. Replaced, never changed in place, so a scan on another thread keeps a
        # consistent table.
        self.table = (np.zeros(1 << 10, dtype=np.int64), np.zeros(1 << 10, dtype=np.int64))
        # codes in the table: a word two threads both found new is inserted once (a second
        # insert of 5,000 words took 0.09 s, resizing for entries it did not add)
        self._in_table: set[int] = set()
        self._table_lock = ForkSafeLock()
        # held while stemming: chunks scored on two threads share most new words, and each
        # would stem them all (the loop is pure Python, so it holds the GIL anyway)
        self._stem_lock = ForkSafeLock()

    def add_to_table(self, codes: np.ndarray, stems, insert: Callable) -> None:
        """Put the stems of codes (stem_codes' list; a stem that does not pack is -1 in the
        table) into the table (insert: kernels.scan.stem_table_insert). Codes already there
        are skipped: two threads that found the same new words insert them once."""
        stems = np.array([s if isinstance(s, int) else -1 for s in stems], dtype=np.int64)
        with self._table_lock:  # insert releases the GIL: one writer at a time
            listed = codes.tolist()
            new = set(listed) - self._in_table
            if not new:
                return
            if len(new) < len(listed):
                fresh = np.isin(codes, np.fromiter(new, dtype=np.int64, count=len(new)))
                codes, stems = codes[fresh], stems[fresh]
            self._in_table.update(new)
            old_keys, old_vals = self.table
            count = len(self._in_table)
            if 2 * count > len(old_keys):
                size = len(old_keys)
                while 2 * count > size:
                    size *= 2
                used = old_keys != 0
                keys, vals = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
                insert(keys, vals, old_keys[used], old_vals[used])
            else:
                keys, vals = old_keys.copy(), old_vals.copy()
            insert(keys, vals, np.ascontiguousarray(codes, dtype=np.int64),
                   np.ascontiguousarray(stems, dtype=np.int64))
            self.table = (keys, vals)

    def long_code(self, word: str) -> int | str:
        """The stem of a word too long to pack: its code when the stem packs, else the stem."""
        out = self._long_codes.get(word)
        if out is None:
            self._room_for_long(word)
            stemmed = self.stem_word(word)
            out = self._long_codes[word] = encode_token(stemmed) or stemmed
        return out

    def stem_word(self, word: str) -> str:
        stemmed = self._by_word.get(word)
        if stemmed is None:
            self._room_for_long(word)
            stemmed = self._by_word[word] = self.stem(word)
        return stemmed

    def _room_for_long(self, word: str) -> None:
        """Empty the memos of long words when one more (this one) would pass a bound."""
        self._long_chars += 2 * len(word)  # a word and its stem (no longer than it), roughly
        if max(len(self._by_word), len(self._long_codes)) >= self.max_size or \
                self._long_chars > self.max_chars:
            self._by_word.clear()
            self._long_codes.clear()
            self._long_chars = 2 * len(word)

    def _make_room(self, n: int) -> None:
        """Empty the memo and the table when n more words would pass max_size."""
        if max(len(self._by_code), len(self._in_table)) + n > self.max_size:
            self._by_code.clear()
            with self._table_lock:
                self.table = (np.zeros(1 << 10, dtype=np.int64),
                              np.zeros(1 << 10, dtype=np.int64))
                self._in_table = set()

    def stem_codes(self, codes: np.ndarray, batch: Callable | None = None) -> list[int | str]:
        """Stems of packed codes: a packed code, or the stem string when it does not pack.
        ``batch`` (kernels.porter.porter_stem_codes, for nltk's Porter stemmer): the stems of
        the new codes in one call, as codes (a Porter stem of a packed word packs)."""
        with self._stem_lock:
            self._make_room(len(codes))
            memo = self._by_code
            listed = codes.tolist()
            if batch is not None:
                new = [code for code in listed if code not in memo]
                if new:
                    memo.update(zip(new, batch(np.array(new, dtype=np.int64)).tolist()))
                return [memo[code] for code in listed]
            out: list[int | str] = []
            for code in listed:
                stemmed = memo.get(code)
                if stemmed is None:
                    word = self.stem(decode_token(code))
                    stemmed = encode_token(word) or word
                    memo[code] = stemmed
                out.append(stemmed)
            return out


class _LongIds:
    """Batch-local negative ids for tokens that do not pack into a code."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}

    def __call__(self, word: str) -> int:
        if not _VALID_TOKEN.match(word):
            return _DROPPED
        return self._ids.setdefault(word, -1 - len(self._ids))


class NotText(ValueError):
    """A str that is not text: UTF-8 cannot encode it, as it holds a lone surrogate (``bad``).
    ``where`` names it for the user."""

    def __init__(self, where: str, bad: str):
        super().__init__(f"{where}: holds {bad!r}, a lone surrogate that is not text (it "
                         "cannot be encoded as UTF-8); allowed: valid Unicode strings")
        self.where, self.bad = where, bad

    def __reduce__(self):  # pickles (process pools, Ray) with its own arguments
        return type(self), (self.where, self.bad)


def first_not_text(name: str, texts: Sequence[str]) -> NotText | None:
    """NotText for the first of these str that UTF-8 cannot encode, named ``name[i]``, or
    None. Only the non-ASCII ones are encoded."""
    for i in non_ascii(texts):
        try:
            texts[i].encode("utf-8")
        except UnicodeEncodeError as error:
            return NotText(f"{name}[{i}]", texts[i][error.start])
    return None


def non_ascii(texts: Sequence[str]) -> list:
    """The indices of the texts that are not ASCII, found in C (map, filterfalse): callers
    hold the GIL here. TypeError if an item is not a str."""
    is_ascii = list(map(str.isascii, texts))  # then filterfalse: ~30% faster than not_
    return list(itertools.filterfalse(is_ascii.__getitem__, range(len(is_ascii))))


def _ascii_buffer(texts: Sequence[str], unicode_lower: bool, lower: bool = True) -> np.ndarray:
    """One byte buffer (lowercased unless lower=False), texts separated by NUL; bytes >= 0x80
    act as separators. NotText where a text holds a lone surrogate: the non-ASCII texts are
    encoded here anyway, so the scorer leaves that check to this (and names the text).
    (A text that holds NUL itself is caught by the caller: the scan then finds too many
    texts.)"""
    # This runs holding the GIL, so it is kept to copies: a str of ASCII (or Latin-1)
    # characters joins and encodes as a memcpy, while one non-ASCII text would widen the
    # joined str and make its encoding a loop over characters. So each non-ASCII text is
    # replaced by its UTF-8 bytes read as Latin-1 (one character per byte), and the joined
    # str encoded to Latin-1 gives back exactly the UTF-8 bytes of the texts.
    others = non_ascii(texts)
    if others:
        texts = list(texts)  # the caller's list stays as it is
    for i in others:
        text = texts[i]
        # rouge_score: str.lower() first, then every non-[a-z0-9] character separates tokens.
        # Only two non-ASCII characters lower to something with ASCII letters (checked over
        # all of Unicode by the tests); without them, lowering the ASCII bytes is the same.
        if unicode_lower and any(map(text.__contains__, LOWERS_TO_ASCII)):
            text = text.lower()
        # UTF-8 encodes every non-ASCII character as bytes >= 0x80: separators for the
        # scanner. ROUGE-1.5.5 reads raw bytes and lowercases A-Z only.
        try:
            texts[i] = text.encode("utf-8").decode("latin-1")
        except UnicodeEncodeError as error:
            raise NotText(f"texts[{i}]", text[error.start]) from None
    data = "\x00".join(texts).encode("latin-1")
    if lower:  # else the scanner reads A-Z as a-z (kernels.scan.scan_stem_tokens)
        data = data.translate(_ASCII_LOWER)
    return np.frombuffer(data, dtype=np.uint8)


_ASCII_LOWER = bytes(range(65)) + bytes(range(97, 123)) + bytes(range(91, 256))


def _scan(texts: Sequence[str], scan: Callable, unicode_lower: bool) -> tuple:
    """(buffer, codes, starts, ends, sent_ends, text_ends): kernels.scan.scan_ascii_tokens
    over the batch's byte buffer. A text holding NUL, which separates texts in the buffer, is
    read with a space there (the scan then finds too many texts)."""
    buf = _ascii_buffer(texts, unicode_lower)
    scanned = scan(buf, MAX_PACKED_LEN)
    if len(scanned[-1]) != len(texts):
        buf = _ascii_buffer([t.replace("\x00", " ") for t in texts], unicode_lower)
        scanned = scan(buf, MAX_PACKED_LEN)
    return (buf, *scanned)


def tokenize_ascii_batch(
    texts: Sequence[str],
    scan: Callable,
    *,
    unicode_lower: bool,
    stem_memo: StemMemo | None = None,
    stopwords: frozenset[str] | None = None,
    dense_ids: Callable | None = None,
    scan_stem: Callable | None = None,
    table_insert: Callable | None = None,
    batch_stem: Callable | None = None,
) -> TokenizedBatch:
    """Tokenize a batch with the fast byte scanner (``kernels.scan.scan_ascii_tokens``);
    ``dense_ids`` (``kernels.registry.dense_ids``) finds the distinct words to stem in O(n).
    Without stopwords, given ``scan_stem`` (``kernels.scan.scan_stem_tokens``) and
    ``table_insert`` (``kernels.scan.stem_table_insert``), the scanner also applies the
    stems it finds in the memo's table: Python only sees words it has not stemmed before
    (nltk's Porter stemmer: ~15 us a word, once per process; ``batch_stem``,
    kernels.porter.porter_stem_codes, stems them in one compiled call instead).

    Stopwords are removed before stemming (ROUGE-1.5.5 order); only tokens longer than 3
    characters are stemmed (both rouge_score and ROUGE-1.5.5)."""
    if scan_stem is not None and not stopwords and dense_ids is not None:
        return _tokenize_scan_stem(texts, scan_stem, table_insert, unicode_lower, stem_memo,
                                   dense_ids, batch_stem)
    buf, codes, starts, ends, sent_ends, text_ends = _scan(texts, scan, unicode_lower)
    codes = codes.copy()
    raw = buf.tobytes()
    long_ids = _LongIds()
    if not unicode_lower:
        # ROUGE-1.5.5 keeps whatever its stemmer returns, e.g. "comic_strip" (WordNet's base
        # form of "comics"); rouge_score drops a stem that is not [a-z0-9]+ (its token check).
        def long_ids(word, _ids=long_ids._ids):
            return _ids.setdefault(word, -1 - len(_ids))
    long_positions = np.flatnonzero(codes == 0)
    long_words = [raw[starts[i]:ends[i]].decode("ascii") for i in long_positions.tolist()]
    keep = None
    if stopwords:
        stop_codes = np.array(sorted({encode_token(w) for w in stopwords} - {0}), dtype=np.int64)
        keep = ~np.isin(codes, stop_codes)
        for i, word in zip(long_positions.tolist(), long_words):
            if word in stopwords:
                keep[i] = False
    if stem_memo is not None:
        stem_mask = (ends - starts) > 3
        stem_mask &= codes != 0
        if keep is not None:
            stem_mask &= keep
        selected = codes[stem_mask]
        inverse, n_distinct = dense_ids(selected)
        distinct = np.empty(n_distinct, dtype=np.int64)
        distinct[inverse] = selected
        stems = stem_memo.stem_codes(distinct, batch_stem)
        stem_ids = np.array([s if isinstance(s, int) else long_ids(s) for s in stems],
                            dtype=np.int64)
        codes[stem_mask] = stem_ids[inverse] if len(distinct) else codes[stem_mask]
        long_words = [stem_memo.stem_word(w) for w in long_words]
    for i, word in zip(long_positions.tolist(), long_words):
        code = encode_token(word)  # a long word's stem may pack
        codes[i] = code if code else long_ids(word)
    dropped = codes == _DROPPED
    if dropped.any():
        keep = ~dropped if keep is None else keep & ~dropped
    return _scanned_batch(texts, codes, keep, sent_ends, text_ends)


def scanned_words(texts: Sequence[str]) -> tuple:
    """The words of rouge_score's scan (runs of [a-z0-9] after str.lower; a sentence per
    line, empty lines too) of a batch, for a tokenizer that works on each distinct word once
    (py-rouge's): (keys, inverse, sent_ends, text_ends), where keys are the distinct words,
    each as its packed code (an int: encode_token) or, when it does not pack, its str;
    inverse (int64[tokens]) is each token's index in keys; sent_ends and text_ends are the
    scanner's (each sentence's end in tokens, each text's in sentences). Compiled: one scan
    and one hashing pass, Python only for the words longer than MAX_PACKED_LEN."""
    if not texts:  # (the scanner finds one empty text in an empty buffer)
        empty = np.zeros(0, dtype=np.int64)
        return [], empty, empty, empty
    kernels = resolve(("scan_ascii_tokens", "dense_ids"))
    scan = functools.partial(kernels["scan_ascii_tokens"], parts=threads_here())
    buf, codes, starts, ends, sent_ends, text_ends = _scan(texts, scan, True)
    inverse, n_distinct = kernels["dense_ids"](codes)
    distinct = np.empty(n_distinct, dtype=np.int64)
    distinct[inverse] = codes
    keys: list = distinct.tolist()  # (0 stands for the long words, each given its own key)
    long_positions = np.flatnonzero(codes == 0)
    if len(long_positions):  # their bytes, interned in C (dict.fromkeys, map)
        raw = buf.tobytes()
        words = list(map(raw.__getitem__, map(slice, starts[long_positions].tolist(),
                                               ends[long_positions].tolist())))
        at = {word: k for k, word in enumerate(dict.fromkeys(words), start=len(keys))}
        inverse = inverse.copy()
        inverse[long_positions] = np.fromiter(map(at.__getitem__, words), dtype=np.int64,
                                              count=len(words))
        keys += [word.decode("ascii") for word in at]
    return keys, inverse, sent_ends, text_ends


_NO_TABLE = (np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64))


def _tokenize_scan_stem(texts, scan_stem, table_insert, unicode_lower, stem_memo, dense_ids,
                        batch_stem):
    """tokenize_ascii_batch without stopwords: one scan that lowercases, packs and stems."""
    keys, vals = stem_memo.table if stem_memo is not None else _NO_TABLE
    stem = stem_memo is not None
    buf = _ascii_buffer(texts, unicode_lower, lower=False)
    codes, sent_ends, text_ends, long_tok, long_start, long_end, pending = scan_stem(
        buf, MAX_PACKED_LEN, keys, vals, stem)
    if len(text_ends) != len(texts):  # some text holds NUL: there it separates tokens
        texts = [t.replace("\x00", " ") for t in texts]
        buf = _ascii_buffer(texts, unicode_lower, lower=False)
        codes, sent_ends, text_ends, long_tok, long_start, long_end, pending = scan_stem(
            buf, MAX_PACKED_LEN, keys, vals, stem)
    dropped = []
    if len(pending) or len(long_tok):
        long_ids = _LongIds()
        if not unicode_lower:  # as in tokenize_ascii_batch
            def long_ids(word, _ids=long_ids._ids):
                return _ids.setdefault(word, -1 - len(_ids))
    if len(pending):  # words the table does not know yet, or stems that do not pack
        selected = codes[pending]
        inverse, n_distinct = dense_ids(selected)
        distinct = np.empty(n_distinct, dtype=np.int64)
        distinct[inverse] = selected
        stems = stem_memo.stem_codes(distinct, batch_stem)
        stem_memo.add_to_table(distinct, stems, table_insert)
        stem_ids = np.array([s if isinstance(s, int) else long_ids(s) for s in stems],
                            dtype=np.int64)
        codes[pending] = stem_ids[inverse]
        if (stem_ids == _DROPPED).any():
            dropped.append(pending[stem_ids[inverse] == _DROPPED])
    if len(long_tok):
        raw = buf.base if isinstance(buf.base, bytes) else buf.tobytes()
        long_values = []
        for a, b in zip(long_start.tolist(), long_end.tolist()):
            word = raw[a:b].decode("ascii").lower()
            code = stem_memo.long_code(word) if stem else word
            long_values.append(code if isinstance(code, int) else long_ids(code))
        codes[long_tok] = long_values
        if _DROPPED in long_values:  # (a list: numpy's any() of a few values costs ~1.5 us)
            dropped.append(long_tok[np.array(long_values) == _DROPPED])
    keep = None
    if dropped:
        keep = np.ones(len(codes), dtype=np.bool_)
        keep[np.concatenate(dropped)] = False
    return _scanned_batch(texts, codes, keep, sent_ends, text_ends)


def _scanned_batch(texts, codes, keep, sent_ends, text_ends) -> TokenizedBatch:
    """The TokenizedBatch of a scan's codes and bounds, without the tokens where keep is
    False (keep None: all of them)."""
    sent_offsets = np.zeros(len(sent_ends) + 1, dtype=np.int64)
    if keep is not None:
        kept_before = np.concatenate(([0], np.cumsum(keep)))
        sent_offsets[1:] = kept_before[sent_ends]
        codes = codes[keep]
    else:
        sent_offsets[1:] = sent_ends
    text_sent_offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    text_sent_offsets[1:] = text_ends
    return TokenizedBatch(codes, sent_offsets, text_sent_offsets)


def tokenize_string_batch(
    texts: Sequence[str],
    sentences_of: Callable[[str], Iterable[Sequence[str]]],
) -> TokenizedBatch:
    """Intern string tokens: ``sentences_of(text)`` yields each sentence's token list."""
    words: list[str] = []
    sent_offsets = [0]
    text_sent_offsets = [0]
    for text in texts:
        for sentence in sentences_of(text):
            words.extend(sentence)
            sent_offsets.append(len(words))
        text_sent_offsets.append(len(sent_offsets) - 1)
    # ids in order of first appearance; the per-token work runs in C (dict.fromkeys, map): a
    # Python-level setdefault per token was most of a string tokenizer's time
    ids = {word: k for k, word in enumerate(dict.fromkeys(words))}
    return TokenizedBatch(
        np.fromiter(map(ids.__getitem__, words), dtype=np.int64, count=len(words)),
        np.array(sent_offsets, dtype=np.int64),
        np.array(text_sent_offsets, dtype=np.int64),
    )


# ------------------------------------------------------------------------------------------
# The named string tokenizers

# Scripts written without spaces between words: every character is a token of its own.
_SINGLE_CHAR_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo extended A
    (0xAC00, 0xD7FF),  # Hangul syllables, Jamo extended B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x3FFFF),  # CJK extensions B..
)


def _char_class(ch: str) -> int:
    """0: separator, 1: part of a word, 2: a token by itself."""
    cp = ord(ch)
    for lo, hi in _SINGLE_CHAR_RANGES:
        if lo <= cp <= hi:
            return 2 if unicodedata.category(ch)[0] in "LMN" else 0
    # letters, digits and combining marks (Devanagari vowel signs, Arabic harakat) join words
    return 1 if unicodedata.category(ch)[0] in "LMN" else 0


_CLASS_CACHE: dict[str, int] = {}  # per character; bounded by the number of characters seen


def unicode_tokenize(text: str) -> list[str]:
    """Unicode-aware tokens: NFKC, case-folded; runs of letters, marks and digits of any
    script; each CJK ideograph, kana, Hangul syllable and Thai/Lao/Khmer/Myanmar character is
    a token of its own."""
    text = unicodedata.normalize("NFKC", text).casefold()
    tokens: list[str] = []
    word: list[str] = []
    cache = _CLASS_CACHE
    for ch in text:
        cls = cache.get(ch)
        if cls is None:
            cls = cache[ch] = _char_class(ch)
        if cls == 1:
            word.append(ch)
            continue
        if word:
            tokens.append("".join(word))
            word = []
        if cls == 2:
            tokens.append(ch)
    if word:
        tokens.append("".join(word))
    return tokens


def unicode_v1_tokenize(text: str) -> list[str]:
    """rouge-score-rs 0.2.1's UnicodeTokenizer (profile unicode-v1): NFKC, case folding, NFKC;
    the words of Unicode's word boundary rules (UAX #29, Unicode 17.0) that hold a letter or a
    number. text.uax29 has the details."""
    from .uax29 import unicode_words  # (its Unicode 17.0 tables load on first use: ~30 ms)

    return unicode_words(text)


def character_v1_tokenize(text: str) -> list[str]:
    """rouge-score-rs 0.2.1's CharacterTokenizer (profile character-v1): the normalized
    text's grapheme clusters (UAX #29) that hold a letter or a number."""
    from .uax29 import characters

    return characters(text)


def whitespace_tokenize(text: str) -> list[str]:
    """Tokens are the whitespace-separated chunks, case-folded, punctuation kept."""
    return text.casefold().split()


# ------------------------------------------------------------------------------------------
# Sentence splitting without downloads (for rougeLsum on text without newlines)

_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st vs etc inc ltd co corp gen gov sen rep lt col sgt capt "
    "jan feb mar apr jun jul aug sep sept oct nov dec no fig al e.g i.e u.s u.k".split()
)
# Possessive runs, and a match only where a run of end marks begins: a failed match then costs
# the length of its run once, not once per start position (the backtracking form took 246 s
# on "." * 100000). No backtracking could have matched anyway: what follows each run is never
# a character of that run.
_SENTENCE_END = re.compile(r"(?<![.!?。！？])([.!?。！？]++[\"')\]»”’]*+)(\s++)(?=[\"'(\[«“‘]?[A-Z0-9\u00C0-\u024F\u0370-\u04FF])")
_CJK_END = re.compile(r"([。！？])(?=[^\s。！？」』）])")


def split_sentences(text: str) -> str:
    """Put each sentence on its own line: a rule-based splitter that needs no model.

    A sentence ends at ``.``, ``!`` or ``?`` (and closing quotes or brackets) followed by
    whitespace and an upper-case letter or digit, unless the word before the period is a
    common abbreviation or a single letter (initials); CJK full stops end a sentence anyway.
    Existing newlines are kept."""
    out_lines = []
    for line in text.split("\n"):
        pieces = []
        last = 0
        for match in _SENTENCE_END.finditer(line):
            # the last whitespace-separated word before the end marks (line[last:start]
            # .rsplit(None, 1)[-1], but read backwards from the match: a skipped match does
            # not move `last`, and rsplit from there would make the loop quadratic)
            end = match.start(1)
            while end > last and line[end - 1].isspace():
                end -= 1
            start = end
            while start > last and not line[start - 1].isspace():
                start -= 1
            word = line[start:end].lower().rstrip(".")
            if match.group(1).startswith(".") and (word in _ABBREVIATIONS or len(word) == 1):
                continue
            pieces.append(line[last:match.end(1)])
            last = match.end(2)
        pieces.append(line[last:])
        out_lines.extend(_CJK_END.sub("\\1\n", p) for p in pieces)
    return "\n".join(out_lines)


# --------------------------------------------------------------------------------------------
# Stemmers and tokenizer profiles

_ASCII_WORD = re.compile(r"[a-z0-9]+")


# --------------------------------------------------------------------------------------------
# Stemmers: one memo per stemmer, shared by every metric instance of this process (a documented,
# bounded cache: each distinct word is stemmed once per process; see StemMemo's bounds).

_STEM_MEMOS: dict = {}


def _porter_nltk() -> Callable[[str], str]:
    # imported only when stemming: `import nltk` costs 0.2 s, and evaluate.load imports every
    # library the metric script imports at the top (nltk is in requirements.txt)
    from nltk.stem import porter

    return porter.PorterStemmer().stem


def import_stemmer() -> None:
    """Import nltk's stemmer now (evaluate.load calls this, 0.2-0.4 s): then no call imports
    it. An import inside a call holds the module's import lock, and a child forked by another
    thread meanwhile would wait for that lock forever (so not on a thread either)."""
    try:
        _porter_nltk()
    except ImportError:  # not installed: the call that stems says so
        pass


def nltk_version() -> str:
    """The installed nltk's version, for the signature: from its metadata, not from
    `import nltk` (0.2 s, which a call stemmed by kernels.porter does not otherwise pay)."""
    return installed_version("nltk")  # (a requirement; its absence is a broken install)


def _porter_at_first_word() -> Callable[[str], str]:
    """nltk's Porter stemmer without nltk's import (0.15-0.25 s, longer than a small call's
    stemming): a packed word is stemmed by kernels.porter's batch (compiled, or as plain
    Python), a longer ASCII word by its plain-Python porter_stem (tests/test_porter_kernel.py
    holds both equal to nltk); nltk, imported at its first such word, stems the others."""
    loaded: list = []

    def stem(word: str) -> str:
        if word.isascii():
            data = np.frombuffer(word.encode("ascii"), dtype=np.uint8)
            bounds = np.array([len(word)], dtype=np.int64)
            with np.errstate(over="ignore"):
                out, ends = porter_kernels.porter_stem(data, np.zeros(1, dtype=np.int64), bounds)
            return out[:ends[0]].tobytes().decode("ascii")
        if not loaded:
            loaded.append(_porter_nltk())
        return loaded[0](word)
    return stem


def stem_memo(stemmer: str) -> StemMemo:
    """The process's memo of 'porter' (nltk, as rouge_score) or 'rouge155' (Lin's Porter
    variant with WordNet 2.0's exceptions)."""
    if stemmer not in _STEM_MEMOS:
        _STEM_MEMOS[stemmer] = StemMemo(_porter_at_first_word() if stemmer == "porter"
                                        else stem_token_rouge155)
    return _STEM_MEMOS[stemmer]


# --------------------------------------------------------------------------------------------
# Tokenizer profiles


class TokenizerProfile:
    """What ROUGE compares in a text. Subclasses have a ``name`` and ``stems`` (whether
    use_stemmer applies to them)."""

    def batch(self, texts: Sequence[str], *, stemmer: str | None,
              stopwords: bool) -> TokenizedBatch:
        """Token ids of the texts, with a sentence per newline-separated line where the
        tokenizer keeps them (``sentence_view`` says)."""
        raise NotImplementedError

    def sentence_batch(self, texts: Sequence[str], *, stemmer: str | None,
                       stopwords: bool) -> TokenizedBatch | None:
        """The sentence view for rougeLsum/W when ``batch`` has none (None: batch has it)."""
        return None

    def tokens(self, text: str, *, stemmer: str | None, stopwords: bool) -> list:
        """The tokens of each newline-separated sentence, as strings."""
        raise NotImplementedError

    def signature(self) -> str:
        return self.name

    line_sentences = False  # batch() ends a sentence at every "\n" (empty lines too)
    has_sentences = True  # rougeLsum/W compare sentence by sentence (False: the whole text)
    own_sentences = False  # sentences by the tokenizer's own rule, not the lines of the text
    empty_raises = False  # its package raises on a text without words (scorer.notes says so)
    keeps_n_tags = False  # its package scores "<n>" sentence tags as they are (scorer.notes)


# the kernels of a byte tokenizer's batch (the scanner without stems: for stopwords)
_BYTE_KERNELS = ("dense_ids", "scan_stem_tokens", "stem_table_insert")
_BYTE_KERNELS_STOPWORDS = _BYTE_KERNELS + ("scan_ascii_tokens",)


@dataclass(frozen=True)
class ByteTokenizer(TokenizerProfile):
    """The ASCII tokenizers, scanned in one pass over the batch's bytes (text.tokenizers):
    rouge_score's (``unicode_lower``: str.lower first; a stem that is not [a-z0-9]+ is
    dropped) and ROUGE-1.5.5's (raw bytes, A-Z lowered only; stems kept as they are)."""

    name: str
    unicode_lower: bool
    stems: bool = True
    line_sentences = True  # the scanner's sentences are the lines (a class attribute)

    def batch(self, texts, *, stemmer, stopwords):
        # the scanner without stems is only for stopwords (the one scan stems otherwise)
        names = _BYTE_KERNELS_STOPWORDS if stopwords else _BYTE_KERNELS
        kernels = resolve(names + ("porter_stem_codes",) if stemmer == "porter" else names)
        scan = functools.partial(kernels["scan_ascii_tokens"],
                                 parts=threads_here()) if stopwords else None
        return tokenize_ascii_batch(
            texts, scan, unicode_lower=self.unicode_lower,
            stem_memo=stem_memo(stemmer) if stemmer else None,
            stopwords=SMART_STOPWORDS if stopwords else None,
            dense_ids=kernels["dense_ids"], scan_stem=kernels["scan_stem_tokens"],
            table_insert=kernels["stem_table_insert"],
            batch_stem=kernels.get("porter_stem_codes"))

    def tokens(self, text, *, stemmer, stopwords):
        stem = None
        if stemmer:  # each distinct word stemmed once a call (a long text repeats its words)
            stems: dict = {}
            stem_one = stem_memo(stemmer).stem

            def stem(word):
                out = stems.get(word)
                if out is None:
                    out = stems[word] = stem_one(word)
                return out
        out = []
        for sentence in text.split("\n"):
            if self.unicode_lower:
                lowered = sentence.lower()
            else:
                lowered = sentence.encode("utf-8", "surrogatepass").lower().decode("ascii",
                                                                                 "replace")
            words = _ASCII_WORD.findall(lowered)
            if stopwords:
                words = [w for w in words if w not in SMART_STOPWORDS]
            if stem is not None:
                words = [stem(w) if len(w) > 3 else w for w in words]
            if self.unicode_lower:  # rouge_score drops a stem that is not [a-z0-9]+
                words = [w for w in words if _ASCII_WORD.fullmatch(w)]
            out.append(words)
        return out


_STR = {str}


@dataclass(frozen=True)
class StringTokenizer(TokenizerProfile):
    """A tokenizer that gives string tokens (``function(text) -> list[str]``), interned to
    ids here. As in rouge_score, rougeLsum tokenizes each non-empty line on its own.
    ``sentence_function`` (language profiles) tokenizes those lines differently."""

    name: str
    function: Callable = field(compare=False)
    stems: bool = False
    sentence_function: Callable | None = field(default=None, compare=False)

    def _tokens(self, function, text, stopwords):
        try:
            tokens = function(text)
        except Exception as error:  # the user's callable failed: say which text and why
            raise ValueError(f"tokenizer: {self.name} raised {type(error).__name__}: {error} "
                             f"on the text {text[:80]!r}") from error
        # (every token's type in C first: a generator of isinstance per token was a third
        # of a string tokenizer's time; str subclasses, e.g. numpy.str_, pass the slow check)
        if not isinstance(tokens, (list, tuple)) or not (
                set(map(type, tokens)) <= _STR or all(isinstance(t, str) for t in tokens)):
            raise TypeError(f"tokenizer: {self.name} returned {type(tokens).__name__} "
                            f"{str(tokens)[:80]}; allowed: a list of str")
        if stopwords:
            tokens = [t for t in tokens if t not in SMART_STOPWORDS]
        return tokens

    def batch(self, texts, *, stemmer, stopwords):
        return tokenize_string_batch(texts, lambda text: [self._tokens(self.function, text,
                                                                       stopwords)])

    def sentence_batch(self, texts, *, stemmer, stopwords):
        return tokenize_string_batch(texts, lambda text: self.tokens(text, stemmer=stemmer,
                                                                     stopwords=stopwords))

    def tokens(self, text, *, stemmer, stopwords):
        function = self.sentence_function or self.function
        return [self._tokens(function, s, stopwords) for s in text.split("\n") if s]


DEFAULT_TOKENIZER = ByteTokenizer("default", unicode_lower=True)
ROUGE155_TOKENIZER = ByteTokenizer("rouge155", unicode_lower=False)
TOKENIZERS = {
    "default": DEFAULT_TOKENIZER,
    "unicode": StringTokenizer("unicode", unicode_tokenize),
    "whitespace": StringTokenizer("whitespace", whitespace_tokenize),
    # rouge-score-rs's two Unicode profiles (they never stem: use_stemmer is ignored, as there)
    "unicode-v1": StringTokenizer("unicode-v1", unicode_v1_tokenize),
    "character-v1": StringTokenizer("character-v1", character_v1_tokenize),
}


def callable_tokenizer(function: Callable) -> StringTokenizer:
    name = getattr(function, "__name__", type(function).__name__)
    return StringTokenizer(f"callable:{name}", function)

"""The scanners of kernels.registry, each tokenizing a whole batch of texts in a few passes: the
byte scanner of text.tokenizers's byte tokenizers (which, from a table, also stems), with the stem
table's inserts; and the word scanner of the pltrdy and rouge_chinese profiles' tokenizer
(text.peers.SentenceTokenizer), on code points."""

from __future__ import annotations

import numpy as np

from .registry import GOLDEN, njit


# --------------------------------------------------------------------------------------------
# Tokenization of a whole batch


_WORD_BYTE = np.zeros(256, dtype=np.int64)  # base-37 digit of a token byte, 0 for separators
for _b in range(26):
    _WORD_BYTE[97 + _b] = 1 + _b
for _b in range(10):
    _WORD_BYTE[48 + _b] = 27 + _b


def scan_ascii_tokens(buf: np.ndarray, max_packed_len: int, parts: int = 1):
    """Find the tokens (maximal runs of [a-z0-9]) of a lowercased byte buffer.

    Texts are separated by byte 0 and sentences by byte 10 ('\\n'). Tokens of at most
    ``max_packed_len`` (<= 12) characters get an exact base-37 code (> 0); longer ones get
    code 0 and are resolved by the caller from (start, end). Two passes (count, then fill),
    so nothing is allocated for the worst case; a large buffer is cut at text boundaries
    into ``parts`` pieces scanned on threads (the passes release the GIL).

    Returns (codes, starts, ends, sent_ends, text_ends): token codes and byte spans, and for
    each sentence / text the index one past its last token / sentence. (The one scanner,
    _scan_stem, without stemming, and with the spans of every token.)"""
    cuts = [0]
    if parts > 1 and buf.shape[0] > (1 << 20):
        raw = buf.tobytes()
        for k in range(1, parts):
            nul = raw.find(b"\x00", max(cuts[-1], buf.shape[0] * k // parts))
            if nul < 0:
                break
            cuts.append(nul + 1)  # the next piece starts after the separator
    bounds = list(zip(cuts, cuts[1:] + [buf.shape[0] + 1]))

    def scan(span):
        piece = buf[span[0]:span[1] - 1] if span[1] <= buf.shape[0] else buf[span[0]:]
        codes, sent_ends, text_ends, _, _, _, _, starts, ends = _scan_stem(
            piece, _WORD_BYTE, max_packed_len, _NO_TABLE, _NO_TABLE, False, True)
        return codes, starts, ends, sent_ends, text_ends

    if len(bounds) == 1:
        return scan(bounds[0])
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(bounds)) as pool:
        pieces = list(pool.map(scan, bounds))
    # each piece ends its last sentence and text itself; shift its indices and offsets
    codes, starts, ends, sent_ends, text_ends = [], [], [], [], []
    n_tok = 0
    n_sent = 0
    for (lo, _), (c, st, en, se, te) in zip(bounds, pieces):
        codes.append(c)
        starts.append(st + lo)
        ends.append(en + lo)
        sent_ends.append(se + n_tok)
        text_ends.append(te + n_sent)
        n_tok += c.shape[0]
        n_sent += se.shape[0]
    return tuple(np.concatenate(a) for a in (codes, starts, ends, sent_ends, text_ends))


# --------------------------------------------------------------------------------------------
# Tokenization and stemming of a whole batch in one pass (the fast path of
# text.tokenizers.tokenize_ascii_batch)


_NO_TABLE = np.zeros(2, dtype=np.int64)  # an empty stem table, for scans without stemming
_WORD_BYTE_FOLD = _WORD_BYTE.copy()  # the same, and A-Z as a-z: no lowercasing pass first
for _b in range(26):
    _WORD_BYTE_FOLD[65 + _b] = 1 + _b


MIN_STEM_CODE = 52060  # the smallest code of a 4-character word (3 characters: <= 50652)


@njit(cache=True)
def _scan_stem_counts(buf, digit):
    """The number of tokens and of sentence breaks, without branches on the bytes."""
    n_tok = 0
    n_breaks = 0
    prev = 0
    for i in range(buf.shape[0]):
        ch = buf[i]
        inside = 1 if digit[ch] > 0 else 0
        n_tok += inside & (prev ^ 1)
        prev = inside
        n_breaks += 1 if (ch == 10) | (ch == 0) else 0
    return n_tok, n_breaks


@njit(cache=True)
def _table_geometry(size):
    """(shift, mask) of an open-addressing table of `size` (a power of two) slots."""
    bits = 0
    while (1 << bits) < size:
        bits += 1
    return np.uint64(64 - bits), size - 1


@njit(cache=True)
def _slot(keys, code, shift, mask):
    """The slot of code in the table: where it is, or the empty slot (key 0) where it goes
    (Fibonacci hashing, linear probing)."""
    h = np.int64((np.uint64(code) * GOLDEN) >> shift)
    while keys[h] != 0 and keys[h] != code:
        h = (h + 1) & mask
    return h


@njit(cache=True, nogil=True)
def _scan_stem(buf, digit, max_packed_len, keys, vals, stem, spans):
    """The byte scanner: one pass (after a branch-free count) that finds the tokens (runs of
    bytes with digit > 0), packs each into its base-37 code and, when stem is True, replaces
    each code >= MIN_STEM_CODE by its stem from the hash table (keys, vals). Returns codes
    (0 for tokens longer than max_packed_len), sent_ends, text_ends, the long tokens (index,
    start, end), the indices of the tokens to stem that the table does not resolve (not
    there, or a stem that does not pack: value <= 0), and with spans True the byte span
    (starts, ends) of every token (else empty)."""
    n = buf.shape[0]
    n_tok, n_breaks = _scan_stem_counts(buf, digit)
    codes = np.empty(n_tok, dtype=np.int64)
    sent_ends = np.empty(n_breaks + 1, dtype=np.int64)
    text_ends = np.empty(n_breaks + 1, dtype=np.int64)
    n_long_max = n // (max_packed_len + 1) + 1
    long_tok = np.empty(n_long_max, dtype=np.int64)
    long_start = np.empty(n_long_max, dtype=np.int64)
    long_end = np.empty(n_long_max, dtype=np.int64)
    pending = np.empty(n_tok if stem else 0, dtype=np.int64)
    starts = np.empty(n_tok if spans else 0, dtype=np.int64)
    ends = np.empty(n_tok if spans else 0, dtype=np.int64)
    shift, mask = _table_geometry(keys.shape[0])
    t = 0
    n_sent = 0
    n_text = 0
    n_long = 0
    n_pending = 0
    i = 0
    while i < n:
        d = digit[buf[i]]
        if d > 0:
            start = i
            code = d
            i += 1
            while i < n:
                d = digit[buf[i]]
                if d == 0:
                    break
                code = code * 37 + d
                i += 1
            if spans:
                starts[t] = start
                ends[t] = i
            if i - start > max_packed_len:
                code = 0
                long_tok[n_long] = t
                long_start[n_long] = start
                long_end[n_long] = i
                n_long += 1
            elif stem and code >= MIN_STEM_CODE:
                h = _slot(keys, code, shift, mask)
                if keys[h] == code and vals[h] > 0:
                    code = vals[h]
                else:  # not in the table yet, or a stem that does not pack: the caller's
                    pending[n_pending] = t
                    n_pending += 1
            codes[t] = code
            t += 1
            continue
        ch = buf[i]
        if ch == 10 or ch == 0:
            sent_ends[n_sent] = t
            n_sent += 1
            if ch == 0:
                text_ends[n_text] = n_sent
                n_text += 1
        i += 1
    sent_ends[n_sent] = t  # the end of the buffer ends the last sentence and text
    n_sent += 1
    text_ends[n_text] = n_sent
    n_text += 1
    return (codes, sent_ends[:n_sent], text_ends[:n_text], long_tok[:n_long],
            long_start[:n_long], long_end[:n_long], pending[:n_pending], starts, ends)


def scan_stem_tokens(buf: np.ndarray, max_packed_len: int, keys: np.ndarray, vals: np.ndarray,
                     stem: bool):
    """scan_ascii_tokens of a buffer that is not lowercased yet (A-Z read as a-z), with the
    stems of a hash table applied on the way (see _scan_stem)."""
    return _scan_stem(buf, _WORD_BYTE_FOLD, max_packed_len, keys, vals, stem, False)[:7]


@njit(cache=True, nogil=True)
def stem_table_insert(keys, vals, new_keys, new_vals):
    """Insert new_keys -> new_vals into the open-addressing table (keys, vals) in place
    (key 0 marks an empty slot; the caller keeps the load below 1/2)."""
    shift, mask = _table_geometry(keys.shape[0])
    for q in range(new_keys.shape[0]):
        code = new_keys[q]
        h = _slot(keys, code, shift, mask)
        keys[h] = code
        vals[h] = new_vals[q]


# --------------------------------------------------------------------------------------------
# The words and sentences of pltrdy's rouge 1.0.1 and rouge-chinese 1.0.3, on code points
# (text.peers.SentenceTokenizer: its Python is the reference, and this kernel's twin)


@njit(cache=True)
def _is_space(c) -> bool:
    """str.isspace() of code point c: what str.split() and str.rstrip() take as whitespace."""
    if c <= 0x20:
        return c == 0x20 or 0x09 <= c <= 0x0D or 0x1C <= c <= 0x1F
    if c < 0x85:
        return False
    return (c == 0x85 or c == 0xA0 or c == 0x1680 or 0x2000 <= c <= 0x200A or c == 0x2028
            or c == 0x2029 or c == 0x202F or c == 0x205F or c == 0x3000)


@njit(cache=True)
def _is_end(c) -> bool:
    return c == 0x3002 or c == 0xFF01 or c == 0xFF1F or c == 0x3F  # 。！？ ?


@njit(cache=True)
def _is_quote(c) -> bool:
    return c == 0x201D or c == 0x2019  # ” ’


@njit(cache=True)
def _rouge_chinese_cuts(p, lo, hi, cut):
    """cut[i] = 1 where rouge-chinese's cut_sent puts a line break before p[i] (lo < i < hi).
    Its four rules are regex substitutions, each a leftmost, non-overlapping scan of the text
    the rules before it left; the breaks they insert never fall inside or next to another
    rule's match (they follow 。！？?, six dots or two ellipses, which no match of another
    rule ends before), so each rule scans the text as given."""
    i = lo
    while i + 1 < hi:  # ([。！？\?])([^”’])
        if _is_end(p[i]) and not _is_quote(p[i + 1]):
            cut[i + 1] = 1
            i += 2
        else:
            i += 1
    i = lo
    while i + 6 < hi:  # (\.{6})([^”’])
        k = 0
        while k < 6 and p[i + k] == 0x2E:
            k += 1
        if k == 6 and not _is_quote(p[i + 6]):
            cut[i + 6] = 1
            i += 7
        else:
            i += 1
    i = lo
    while i + 2 < hi:  # (\…{2})([^”’])
        if p[i] == 0x2026 and p[i + 1] == 0x2026 and not _is_quote(p[i + 2]):
            cut[i + 2] = 1
            i += 3
        else:
            i += 1
    i = lo
    while i + 2 < hi:  # ([。！？\?][”’])([^，。！？\?])
        if (_is_end(p[i]) and _is_quote(p[i + 1]) and p[i + 2] != 0xFF0C
                and not _is_end(p[i + 2])):
            cut[i + 2] = 1
            i += 3
        else:
            i += 1


@njit(cache=True)
def _walk_words(p, text_ends, stops, cut, sep, starts, lengths, sent_ends, text_sents):
    """The words of every text: its pieces are cut before each p[i] with cut[i] and at each
    separator sep (dropped); a piece of at least one code point is a sentence, whose words
    are its runs of non-whitespace, or one empty word if it has none (pltrdy's and
    rouge-chinese's " ".join(s.split()).split(" ")). Text k is read up to stops[k]. With
    empty output arrays it only counts: (words, sentences)."""
    fill = starts.shape[0] > 0
    t = 0
    s = 0
    lo = 0
    for k in range(text_ends.shape[0]):
        stop = stops[k]
        piece = 0  # code points in the current piece
        words = 0  # words ended in it
        w0 = -1  # the start of the word being read
        for i in range(lo, stop + 1):
            c = p[i] if i < stop else 0
            ends = i == stop or cut[i] or c == sep  # the piece ends before p[i]
            space = _is_space(c)
            if w0 >= 0 and (ends or space):  # so does the word being read
                if fill:
                    starts[t] = w0
                    lengths[t] = i - w0
                t += 1
                words += 1
                w0 = -1
            if ends:
                if piece > 0:
                    if words == 0:  # a piece of whitespace alone: one empty word
                        if fill:
                            starts[t] = i
                            lengths[t] = 0
                        t += 1
                    if fill:
                        sent_ends[s] = t
                    s += 1
                piece = 0
                words = 0
                if i == stop or c == sep:
                    continue
            piece += 1
            if w0 < 0 and not space:
                w0 = i
        if fill:
            text_sents[k] = s
        lo = text_ends[k]
    return t, s


@njit(cache=True)
def _word_hash(p, start, length):
    h = np.uint64(0xCBF29CE484222325) ^ np.uint64(length)  # FNV-1a over the code points
    for i in range(start, start + length):
        h = (h ^ np.uint64(p[i])) * np.uint64(0x100000001B3)
    return h


@njit(cache=True, nogil=True)
def scan_words(points, text_ends, rule):
    """The words of the texts whose code points (uint32) are ``points``, text k ending at
    ``text_ends[k]``, by the sentence rule ``rule``: 0 pltrdy's (the text split on "."), 1
    rouge-chinese's (its cut_sent: line breaks after sentence ends, then the text's trailing
    whitespace dropped and the lines split). Returns TokenizedBatch's arrays: word ids (equal
    words, equal ids: exact, by comparing the code points; dense, in order of first
    appearance), sent_offsets and text_sent_offsets."""
    n_texts = text_ends.shape[0]
    cut = np.zeros(points.shape[0], dtype=np.uint8)
    stops = text_ends.copy()
    sep = 0x2E
    if rule == 1:
        sep = 0x0A
        lo = 0
        for k in range(n_texts):
            hi = text_ends[k]
            _rouge_chinese_cuts(points, lo, hi, cut)
            stop = hi
            while stop > lo and _is_space(points[stop - 1]):  # text.rstrip()
                stop -= 1
            stops[k] = stop
            lo = hi
    none = np.empty(0, dtype=np.int64)
    n_tok, n_sent = _walk_words(points, text_ends, stops, cut, sep, none, none, none, none)
    starts = np.empty(max(n_tok, 1), dtype=np.int64)  # (non-empty: "fill")
    lengths = np.empty(max(n_tok, 1), dtype=np.int64)
    sent_offsets = np.zeros(n_sent + 1, dtype=np.int64)
    text_sent_offsets = np.zeros(n_texts + 1, dtype=np.int64)
    _walk_words(points, text_ends, stops, cut, sep, starts, lengths, sent_offsets[1:],
                text_sent_offsets[1:])
    # intern: an open-addressing table of word ids + 1, probed by hash, confirmed by content;
    # it grows with the vocabulary, not the tokens (a table sized for every token was most
    # of the scan's time: its slots missed the caches)
    size = 1024
    shift, mask = _table_geometry(size)
    slots = np.zeros(size, dtype=np.int64)
    first = np.empty(max(n_tok, 1), dtype=np.int64)  # the token that first had each id
    hashes = np.empty(max(n_tok, 1), dtype=np.uint64)
    ids = np.empty(n_tok, dtype=np.int64)
    u = 0
    for t in range(n_tok):
        start = starts[t]
        length = lengths[t]
        h = _word_hash(points, start, length)
        j = np.int64((h * GOLDEN) >> shift)
        while True:
            held = slots[j] - 1
            if held < 0:
                slots[j] = u + 1
                first[u] = t
                hashes[u] = h
                ids[t] = u
                u += 1
                break
            if hashes[held] == h and lengths[first[held]] == length:
                other = starts[first[held]]
                same = True
                for q in range(length):
                    if points[other + q] != points[start + q]:
                        same = False
                        break
                if same:
                    ids[t] = held
                    break
            j = (j + 1) & mask
        if 2 * u > size:  # over half full: twice the slots, every id placed anew
            size *= 2
            shift, mask = _table_geometry(size)
            slots = np.zeros(size, dtype=np.int64)
            for v in range(u):
                j = np.int64((hashes[v] * GOLDEN) >> shift)
                while slots[j] != 0:
                    j = (j + 1) & mask
                slots[j] = v + 1
    return ids, sent_offsets, text_sent_offsets

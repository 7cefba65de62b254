"""NLTK's Porter stemmer (``PorterStemmer()``, mode NLTK_EXTENSIONS: rouge_score's stemmer) as
kernels on bytes: ``porter_stem`` stems a batch of words given as byte spans of a buffer, and
``porter_stem_codes`` a batch of base-37 packed tokens (text.tokenizers.encode_token).

A word is its bytes read as Latin-1 characters: the stem of bytes ``b`` is
``PorterStemmer().stem(b.decode("latin-1")).encode("latin-1")``, for every byte string (tests/
test_porter_kernel.py checks it on every [a-z0-9] word of up to 4 characters, words of the
test corpus, suffixed and random words, and random bytes). So A-Z and the Latin-1 capitals are
lowercased as str.lower does, and every byte but a, e, i, o, u (and y after a consonant) is a
consonant. rouge_score's tokens are [a-z0-9]+ (it stems those longer than 3 characters).

The word being stemmed lives in a scratch buffer with, for each prefix, its consonant flags,
measure and vowel count: a consonant flag depends only on the letters before it, so replacing
a suffix only recomputes the flags of what it writes, and the measure of any stem that a rule
tests is a look-up. The rules are NLTK's lists, as tables (first matching suffix decides).
"""

from __future__ import annotations

import numpy as np

from .registry import njit


# --------------------------------------------------------------------------------------------
# The tables: NLTK's irregular forms and its rule lists, as byte arrays for the kernels


def _packed(strings):
    """The strings' bytes end to end, and the offsets of each (len(strings) + 1)."""
    data = b"".join(s.encode("ascii") for s in strings)
    at = np.zeros(len(strings) + 1, dtype=np.int64)
    at[1:] = np.cumsum([len(s) for s in strings])
    return np.frombuffer(data, dtype=np.uint8).copy(), at


# NLTK's PorterStemmer.pool (NLTK_EXTENSIONS): a word -> its stem, looked up before any step
_IRREGULAR = {
    "sky": ["sky", "skies"], "die": ["dying"], "lie": ["lying"], "tie": ["tying"],
    "news": ["news"], "inning": ["innings", "inning"], "outing": ["outings", "outing"],
    "canning": ["cannings", "canning"], "howe": ["howe"], "proceed": ["proceed"],
    "exceed": ["exceed"], "succeed": ["succeed"],
}
_POOL = sorted((form, stem) for stem, forms in _IRREGULAR.items() for form in forms)
POOL_KEYS, POOL_KEY_AT = _packed([form for form, _ in _POOL])
POOL_VALS, POOL_VAL_AT = _packed([stem for _, stem in _POOL])

# a rule's condition on the stem (the word without the suffix), of length k
ALWAYS = 0
M_GT_0 = 1  # measure(stem) > 0
M_GT_1 = 2  # measure(stem) > 1
ION = 3  # measure(stem) > 1 and the stem ends in s or t (step 4's -ion)
LOGI = 4  # measure(word[:-3]) > 0: the l of -logi goes with the stem (NLTK's step 2)

_STEP1A = [("sses", "ss", ALWAYS), ("ies", "i", ALWAYS), ("ss", "ss", ALWAYS),
           ("s", "", ALWAYS)]
_STEP2 = [(suffix, replacement, M_GT_0) for suffix, replacement in (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
    ("izer", "ize"), ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"),
    ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"), ("alism", "al"),
    ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"),
    ("iviti", "ive"), ("biliti", "ble"), ("fulli", "ful"))] + [("logi", "log", LOGI)]
_STEP3 = [(suffix, replacement, M_GT_0) for suffix, replacement in (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"),
    ("ful", ""), ("ness", ""))]
_STEP4 = [(suffix, "", ION if suffix == "ion" else M_GT_1) for suffix in (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion",
    "ou", "ism", "ate", "iti", "ous", "ive", "ize")]
_RULES = _STEP1A + _STEP2 + _STEP3 + _STEP4
RULE_SUFFIX, RULE_SUFFIX_AT = _packed([suffix for suffix, _, _ in _RULES])
RULE_REPLACEMENT, RULE_REPLACEMENT_AT = _packed([replacement for _, replacement, _ in _RULES])
RULE_CONDITION = np.array([condition for _, _, condition in _RULES], dtype=np.int64)
# the rules of steps 1a, 2, 3 and 4: RULE_*[STEP_AT[s]:STEP_AT[s + 1]] for s = 0, 1, 2, 3
STEP_AT = np.cumsum([0] + [len(step) for step in (_STEP1A, _STEP2, _STEP3, _STEP4)])
# STEP_LAST[s, b]: a rule of step s has a suffix ending in byte b (else the step is skipped)
STEP_LAST = np.zeros((4, 256), dtype=np.bool_)
for _s, _step in enumerate((_STEP1A, _STEP2, _STEP3, _STEP4)):
    for _suffix, _, _ in _step:
        STEP_LAST[_s, ord(_suffix[-1])] = True

# The suffixes the steps test outside their rule lists. Arrays, not ints: numba compiles a
# function called with a constant once per value (a literal type), and arrays are one type.
IED, EED, ED, ING, AT, BL, IZ, STAR_D, IES, ALLI, LL = (
    _packed([suffix])[0] for suffix in ("ied", "eed", "ed", "ing", "at", "bl", "iz", "*d",
                                        "ies", "alli", "ll"))
# the letters the rules name, as the bytes they are
A, D, E, I, L, O, S, T, U, W, X, Y, Z = (ord(c) for c in "adeilostuwxyz")  # noqa: E741
MAX_CODE = 37 ** 12  # packed tokens are below it (text.tokenizers.MAX_PACKED_LEN = 12)


# --------------------------------------------------------------------------------------------
# The word's state: bytes w[:n]; cons[i]: w[i] is a consonant; vc[k]: the measure of w[:k]
# (its vowel-consonant transitions); nv[k]: the vowels in w[:k]


@njit(cache=True, nogil=True)
def refresh(w, n, frm, cons, vc, nv):
    """Recompute the flags, measures and vowel counts of w[frm:n] (those before stand)."""
    for i in range(frm, n):
        c = w[i]
        if c == A or c == E or c == I or c == O or c == U:
            cons[i] = False
        elif c == Y:  # y is a consonant at the start or after a vowel, else a vowel
            cons[i] = True if i == 0 else not cons[i - 1]
        else:
            cons[i] = True
        vc[i + 1] = vc[i] + (1 if i > 0 and cons[i] and not cons[i - 1] else 0)
        nv[i + 1] = nv[i] + (0 if cons[i] else 1)


@njit(cache=True, nogil=True)
def ends_with(w, n, suffix):
    """w[:n] ends with the bytes of suffix."""
    length = suffix.shape[0]
    if length > n:
        return False
    for j in range(length):
        if w[n - length + j] != suffix[j]:
            return False
    return True


@njit(cache=True, nogil=True)
def ends_cvc(w, k, cons):
    """NLTK's *o on w[:k]: consonant-vowel-consonant, the last not w, x or y; or (an NLTK
    extension) a stem of two letters, vowel-consonant."""
    if k >= 3:
        last = w[k - 1]
        return (cons[k - 3] and not cons[k - 2] and cons[k - 1] and last != W and last != X
                and last != Y)
    return k == 2 and not cons[0] and cons[1]


@njit(cache=True, nogil=True)
def apply_rules(w, n, cons, vc, nv, lo, hi):
    """NLTK's _apply_rule_list with rules lo..hi-1: the first rule whose suffix w[:n] ends
    with decides; its replacement is made if its condition holds, else nothing. Returns n."""
    for r in range(lo, hi):
        s0 = RULE_SUFFIX_AT[r]
        length = RULE_SUFFIX_AT[r + 1] - s0
        if length > n:
            continue
        k = n - length  # the stem's length
        same = True
        for j in range(length - 1, -1, -1):  # from the end: most rules differ there
            if w[k + j] != RULE_SUFFIX[s0 + j]:
                same = False
                break
        if not same:
            continue
        condition = RULE_CONDITION[r]
        if condition == M_GT_0:
            holds = vc[k] > 0
        elif condition == M_GT_1:
            holds = vc[k] > 1
        elif condition == ION:
            holds = vc[k] > 1 and (w[k - 1] == S or w[k - 1] == T)
        elif condition == LOGI:
            holds = vc[n - 3] > 0
        else:
            holds = True
        if not holds:
            return n
        r0 = RULE_REPLACEMENT_AT[r]
        r1 = RULE_REPLACEMENT_AT[r + 1]
        for j in range(r1 - r0):
            w[k + j] = RULE_REPLACEMENT[r0 + j]
        refresh(w, k + r1 - r0, k, cons, vc, nv)
        return k + r1 - r0
    return n


@njit(cache=True, nogil=True)
def step1b(w, n, cons, vc, nv):
    """NLTK's step 1b: -ied (NLTK's), -eed, then -ed/-ing after a vowel and its tidying."""
    if ends_with(w, n, IED):
        return 3 if n == 4 else n - 2  # -ied: "ie" for a word of 4 letters, else "i"
    if ends_with(w, n, EED):
        return n - 1 if vc[n - 3] > 0 else n
    if ends_with(w, n, ED) and nv[n - 2] > 0:
        n -= 2
    elif ends_with(w, n, ING) and nv[n - 3] > 0:
        n -= 3
    else:
        return n
    # NLTK's rule list on the stem, in its order: at, bl, iz -> +e; a double consonant but
    # l, s, z -> one letter; the literal suffix "*d" (how NLTK's list spells the double
    # consonant rule: it matches a stem ending in "*d", which becomes "d"); m = 1 and *o -> +e
    add_e = ends_with(w, n, AT) or ends_with(w, n, BL) or ends_with(w, n, IZ)
    if not add_e:
        if n >= 2 and w[n - 1] == w[n - 2] and cons[n - 1]:
            last = w[n - 1]
            return n if last == L or last == S or last == Z else n - 1
        if ends_with(w, n, STAR_D):
            w[n - 2] = D  # (a consonant for a consonant: the flags stand)
            return n - 1
        add_e = vc[n] == 1 and ends_cvc(w, n, cons)
    if add_e:
        w[n] = E
        refresh(w, n + 1, n, cons, vc, nv)
        n += 1
    return n


@njit(cache=True, nogil=True)
def pool_stem(w, n):
    """The index of w[:n] among NLTK's irregular forms (POOL_KEYS), or -1."""
    for p in range(POOL_KEY_AT.shape[0] - 1):
        k0 = POOL_KEY_AT[p]
        if POOL_KEY_AT[p + 1] - k0 != n:
            continue
        same = True
        for j in range(n):
            if w[j] != POOL_KEYS[k0 + j]:
                same = False
                break
        if same:
            return p
    return -1


@njit(cache=True, nogil=True)
def stem_in_place(w, n, cons, vc, nv):
    """PorterStemmer().stem of the lowercased word w[:n], written over it (a stem is never
    longer than its word). cons, vc, nv: scratch of n, n + 1, n + 1 slots. Returns its length."""
    p = pool_stem(w, n)
    if p >= 0:
        v0 = POOL_VAL_AT[p]
        for j in range(POOL_VAL_AT[p + 1] - v0):
            w[j] = POOL_VALS[v0 + j]
        return POOL_VAL_AT[p + 1] - v0
    if n <= 2:  # NLTK leaves words of 1 or 2 letters as they are
        return n
    vc[0] = 0
    nv[0] = 0
    refresh(w, n, np.int64(0), cons, vc, nv)  # (int64, not a literal 0: one compiled refresh)
    # step 1a; NLTK's extension first: a word of 4 letters in -ies loses the s ("dies")
    if n == 4 and ends_with(w, n, IES):
        n = 3
    elif STEP_LAST[0, w[n - 1]]:
        n = apply_rules(w, n, cons, vc, nv, STEP_AT[0], STEP_AT[1])
    n = step1b(w, n, cons, vc, nv)
    # step 1c: y -> i after a consonant that is not the first letter (NLTK's condition)
    if n >= 3 and w[n - 1] == Y and cons[n - 2]:
        w[n - 1] = I
        refresh(w, n, n - 1, cons, vc, nv)
    # step 2; NLTK's extension first: -alli -> -al when m > 0, then the rules again
    if ends_with(w, n, ALLI) and vc[n - 4] > 0:
        n -= 2
    for step in range(1, 4):  # steps 2, 3 and 4: their rule lists
        if n > 0 and STEP_LAST[step, w[n - 1]]:
            n = apply_rules(w, n, cons, vc, nv, STEP_AT[step], STEP_AT[step + 1])
    # step 5a: -e goes when m > 1, or m = 1 and not *o
    if n >= 1 and w[n - 1] == E and (vc[n - 1] > 1 or (vc[n - 1] == 1
                                                       and not ends_cvc(w, n - 1, cons))):
        n -= 1
    # step 5b: -ll -> -l when m(word[:-1]) > 1
    if ends_with(w, n, LL) and vc[n - 1] > 1:
        n -= 1
    return n


# --------------------------------------------------------------------------------------------
# The batch kernels


@njit(cache=True, nogil=True)
def porter_stem(buf, starts, ends):
    """NLTK's PorterStemmer().stem (NLTK_EXTENSIONS) of each word buf[starts[k]:ends[k]].

    Args:
        buf: uint8 bytes; a word's bytes are read as Latin-1 (see the module's docstring).
        starts, ends: int64 spans of the words, 0 <= start <= end <= len(buf).

    Returns:
        (out, out_ends): the stems end to end (uint8) and where each ends: stem k is
        out[out_ends[k - 1]:out_ends[k]] (from 0 for k = 0). A stem is never longer than its
        word. ValueError if the spans do not fit buf."""
    count = starts.shape[0]
    if ends.shape[0] != count:
        raise ValueError("porter_stem: starts and ends must have the same length")
    total = 0
    longest = 0
    for k in range(count):
        if not 0 <= starts[k] <= ends[k] <= buf.shape[0]:
            raise ValueError("porter_stem: each span must satisfy 0 <= start <= end <= len(buf)")
        total += ends[k] - starts[k]
        longest = max(longest, ends[k] - starts[k])
    out = np.empty(total, dtype=np.uint8)
    out_ends = np.empty(count, dtype=np.int64)
    w = np.empty(longest + 1, dtype=np.uint8)
    cons = np.empty(longest + 1, dtype=np.bool_)
    vc = np.empty(longest + 2, dtype=np.int64)
    nv = np.empty(longest + 2, dtype=np.int64)
    at = 0
    for k in range(count):
        n = ends[k] - starts[k]
        for j in range(n):
            c = buf[starts[k] + j]
            # str.lower of a Latin-1 character: A-Z and U+00C0-U+00DE but U+00D7 (x)
            w[j] = c + 32 if (65 <= c <= 90) or (0xC0 <= c <= 0xDE and c != 0xD7) else c
        n = stem_in_place(w, n, cons, vc, nv)
        for j in range(n):
            out[at + j] = w[j]
        at += n
        out_ends[k] = at
    return out[:at], out_ends


@njit(cache=True, nogil=True)
def porter_stem_codes(codes):
    """porter_stem of packed tokens: the code of each token's stem.

    Args:
        codes: int64 base-37 codes of [a-z0-9] words of 1 to 12 characters (digit d of a
            character: a-z 1-26, 0-9 27-36; text.tokenizers.encode_token).

    Returns:
        int64 codes of the stems (a stem of such a word is such a word: it packs).
        ValueError for a code that is no such word (<= 0, >= 37**12, or a digit 0)."""
    stems = np.empty(codes.shape[0], dtype=np.int64)
    w = np.empty(13, dtype=np.uint8)
    cons = np.empty(13, dtype=np.bool_)
    vc = np.empty(14, dtype=np.int64)
    nv = np.empty(14, dtype=np.int64)
    for k in range(codes.shape[0]):
        code = codes[k]
        if code <= 0 or code >= MAX_CODE:
            raise ValueError("porter_stem_codes: a code is not a packed token (0 < code < "
                             "37**12)")
        n = 0
        while code > 0:  # the characters, last first
            digit = code % 37
            if digit == 0:
                raise ValueError("porter_stem_codes: a code is not a packed token (it has "
                                 "a base-37 digit 0)")
            w[n] = 96 + digit if digit <= 26 else 21 + digit  # a-z, then 0-9 (27 -> "0")
            code //= 37
            n += 1
        for j in range(n // 2):
            w[j], w[n - 1 - j] = w[n - 1 - j], w[j]
        n = stem_in_place(w, n, cons, vc, nv)
        code = 0
        for j in range(n):
            c = w[j]
            code = code * 37 + (int(c) - 96 if c >= 97 else int(c) - 21)
        stems[k] = code
    return stems

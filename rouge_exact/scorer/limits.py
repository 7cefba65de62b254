"""ROUGE-1.5.5's length limits (-l, -b): a text cut to a number of words or bytes, line by
line, as the script reads it (the scorer applies them before tokenizing: scorer.pipeline)."""

from __future__ import annotations

import re



def truncate_words(text: str, limit: int) -> str:
    """ROUGE-1.5.5 -l: keep the first `limit` whitespace chunks (Perl split /\\s+/, which
    yields a leading empty chunk when a line starts with whitespace), line by line."""
    kept = []
    count = 0
    for line in _rouge155_lines(text):
        words = _perl_split(line)
        if count + len(words) < limit:
            kept.append(line)
            count += len(words)
            continue
        kept.append(" ".join(words[:limit - count]))
        break
    return "\n".join(kept)


_PERL_SPACE = re.compile(r"[ \t\n\r\f\v]+")  # Perl's \s on bytes: ASCII whitespace only


def _perl_split(line: str) -> list:
    r"""Perl's split /\s+/ of the raw bytes: only ASCII whitespace separates (not NBSP, the
    em space or \x1c-\x1f, which Python's \s matches); UTF-8 multi-byte sequences never
    contain an ASCII byte, so splitting the str is the same."""
    parts = _PERL_SPACE.split(line)
    while parts and parts[-1] == "":  # Perl drops trailing empty fields
        parts.pop()
    return parts


def truncate_bytes(text: str, limit: int, count_bytes: bool) -> str:
    """ROUGE-1.5.5 -b: readText keeps sentences while the running byte count stays below the
    limit and cuts the first that does not fit; readText_LCS never increases its count
    (count_bytes=False), so it keeps every short sentence and cuts the first long one."""
    kept = []
    used = 0
    for line in _rouge155_lines(text):
        raw = line.encode("utf-8", "surrogatepass")
        if used + len(raw) < limit:
            kept.append(line)
            if count_bytes:
                used += len(raw)
            continue
        kept.append(raw[:limit - used].decode("utf-8", "replace"))
        break
    return "\n".join(kept)


def _rouge155_lines(text: str) -> list:
    """ROUGE-1.5.5's sentences: the non-empty lines (whitespace-only lines are kept)."""
    return [line for line in text.split("\n") if line]

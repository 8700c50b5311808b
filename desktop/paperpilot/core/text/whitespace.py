"""White space as ``str.split()`` sees it, and its collapse to single spaces, made cheap for the
common case: the extractor joins every paragraph and reference entry this way."""

from __future__ import annotations

__all__ = ["SPACES", "collapse_whitespace"]

# Every character str.isspace() holds for (a unit test checks the list).
SPACES = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# The white space that str.split() splits at besides " " and "\n".
_ODD_SPACE = SPACES.replace(" ", "").replace("\n", "")


def collapse_whitespace(text: str) -> str:
    """``" ".join(text.split())``. Most paragraphs are lines joined by single line breaks, with
    no other white space to collapse: for those, replacing the breaks gives the same text, and
    a few scans in C are cheaper than making a str of every word."""
    flat = text.replace("\n", " ")
    # " " is the one white space character that is printable: one pass in C over a printable
    # text rules out all of _ODD_SPACE, cheaper than a scan for each (even by memchr in ASCII).
    plain = flat.isprintable() or not any(map(text.__contains__, _ODD_SPACE))
    if plain and "  " not in flat and flat[:1] != " " and flat[-1:] != " ":
        return flat
    return " ".join(text.split())  # C speed; a regex substitution per space is 5x slower

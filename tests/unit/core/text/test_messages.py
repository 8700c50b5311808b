"""The message catalogue: every code says the same thing in English and Chinese, from the same
parameters, and core says nothing the catalogue cannot render."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import TypeAdapter

from paperpilot.core.agent.events import Info, Result, Status
from paperpilot.core.text.language import has_cjk
from paperpilot.core.text.messages import CATALOGUE, Message, msg, render, template_fields

CORE = Path(__file__).resolve().parents[4] / "desktop" / "paperpilot" / "core"

# Words a Chinese template may keep: names of things, formats, and the user's own data.
_KEPT = {"PaperPilot", "PDF", "OCR", "RAG", "AI", "UTF", "GB18030", "GBK", "Big5", "Windows", "CSL", "JSON", "JSONL", "Markdown", "MB"}


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_each_code_has_both_languages_with_the_same_parameters(code: str) -> None:
    en, zh = CATALOGUE[code]
    assert en.strip() and zh.strip()
    assert template_fields(en) == template_fields(zh), code
    # Its parameters, a file's name or extension ("meta/library.json", ".bib") are not words.
    skeleton = re.sub(r"\{[^}]*\}|[\w/]*\.[a-z]+\b", " ", zh)
    english = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9]+", skeleton) if w not in _KEPT]
    own_words = bool(re.search(r"\w", skeleton))  # "{parts:parts}" only joins other messages
    assert (has_cjk(zh) or not own_words) and not english, (code, zh)


def test_a_message_renders_and_round_trips() -> None:
    m = msg("library.nothing_on", "zh", terms=["quantum gravity", "Marlow"])
    assert m.text("en") == "Your library has nothing on 'quantum gravity', 'Marlow'"
    assert m.text("zh") == m.text() == "你的文献库里没有关于“quantum gravity”、“Marlow”的内容"
    nested = msg("trace.cancelled", during=msg("during.before_round", n=2), n=3)
    assert nested.text("zh") == "在第 2 轮之前被用户停止；保留目前读过的 3 个段落"
    back = TypeAdapter(Message).validate_json(nested.to_json())
    assert Message.from_json(nested.to_json()) == nested
    assert back == nested and back.text("en") == "stopped by the user before round 2; keeping the 3 passage(s) read so far"
    # Results and events carry them through JSON (the conversation store, --json traces).
    r = Result(question="q", status=Status.PARTIAL, answer="a", missing=[m.text()], missing_codes=[m])
    assert Result.model_validate_json(r.model_dump_json()).missing_codes == [m]
    info = Info(code="cancelled", message=nested.text(), msg=nested)
    assert Info.model_validate_json(info.model_dump_json()).msg == nested
    assert render(msg("confidence.answered", value="yes", weight="+1.20"), "zh") == "问题的每个必需部分都已覆盖：是（+1.20）"


def test_an_unknown_code_is_refused() -> None:
    with pytest.raises(KeyError):
        msg("missing.nothing_like_this")


def _codes_in_core() -> list[tuple[str, str]]:
    """(file, code) for every ``msg("…")`` / ``.said(msg("…"))`` in core; an f-string code
    ("missing.slot.{t}") as its fixed head."""
    out = []
    for path in CORE.rglob("*.py"):
        for m in re.finditer(r"\bmsg\(\s*(f?)\"([^\"]+)\"", path.read_text(encoding="utf-8")):
            code = m.group(2).split("{", 1)[0] if m.group(1) else m.group(2)
            out.append((str(path.relative_to(CORE)), code))
    return out


def test_core_says_only_catalogued_codes() -> None:
    found = _codes_in_core()
    assert len(found) > 40
    unknown = [(f, c) for f, c in found if c not in CATALOGUE and not any(k.startswith(c) for k in CATALOGUE)]
    assert not unknown, unknown
    # Every catalogued code is named somewhere in the application (no dead entries), whole or as
    # the fixed head of an f-string ("library.cross_language.{lang}").
    named: set[str] = set()
    for path in (CORE.parent).rglob("*.py"):
        for m in re.finditer(r"(f?)\"([a-z_]+\.[a-z_.]*)(\{?)", path.read_text(encoding="utf-8")):
            named.add(m.group(2) + ("*" if m.group(1) and m.group(3) else ""))
    dead = [k for k in CATALOGUE if k not in named and not any(n.endswith("*") and k.startswith(n[:-1]) for n in named)]
    assert not dead, dead

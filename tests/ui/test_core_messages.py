"""The Chinese interface says what core says in Chinese, from codes: the sufficiency bench's
extra question set, run by the offline agent over small libraries built here, walked through
every missing part, confidence reason and warning of its results."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperpilot.core.agent.events import Finished, Result, Warning
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.offline import OfflinePolicy
from paperpilot.core.library import Library
from paperpilot.core.settings.paths import app_paths
from paperpilot.core.text.language import has_cjk
from paperpilot.core.text.messages import Message
from paperpilot.ui import i18n
from paperpilot.ui.chat_pane import missing_parts
from paperpilot.ui.inspector import confidence_notes

from .ui_text import english_left

ROOT = Path(__file__).resolve().parents[2]
EXTRA = ROOT / "tests" / "bench" / "data" / "extra_questions.jsonl"
SAMPLE = ROOT / "resources" / "sample"

# Stand-ins for the HotpotQA paragraphs the bench's "hotpot" library holds: the supporting
# titles of the extra set, a few facts each, and some that only share words with the questions.
HOTPOT = [
    ("Gal Gadot", "Gal Gadot-Varsano (born April 30, 1985) is an Israeli actress and model. "
                  "Gadot is known for her role as Wonder Woman in the DC Extended Universe."),
    ("Roberta Vinci", "Roberta Vinci (born 18 February 1983) is an Italian tennis player. "
                      "She held the position of World No. 1 in doubles."),
    ("Circe, the Enchantress", "Circe, the Enchantress was a 1924 American silent drama film directed by "
                               "Robert Z. Leonard. The film starred Leonard's then-wife Mae Murray."),
    ("Her Twelve Men", "Her Twelve Men is a 1954 American comedy drama film directed by Robert Z. Leonard "
                       "and starring Greer Garson as a teacher at a boys' school."),
    ("Snatch (film)", "Snatch is a 2000 crime comedy film written and directed by Guy Ritchie."),
    ("Second Best (film)", "Second Best is a 1994 drama film directed by Chris Menges."),
    ("Faith Lutheran High School", "Faith Lutheran High School is a private school in Crystal Lake, Illinois. "
                                   "It serves students of McHenry County."),
    ("Wavves", "Wavves is an American rock band from San Diego formed by Nathan Williams. "
               "Alex Gates plays guitar in the band."),
    ("National Archives of Namibia", "The National Archives of Namibia in Windhoek hold records of the "
                                     "colonial administration and about 61,000 photographs."),
    ("Stormbreaker (film)", "Stormbreaker is a 2006 spy film based on the novel by Anthony Horowitz."),
    ("Dale Evans", "Dale Evans, born Lucille Wood Smith, was an American actress and singer. "
                   "She was married to Roy Rogers."),
    ("Vanessa (opera)", "Vanessa is an opera by Samuel Barber with a libretto by Gian Carlo Menotti. "
                        "It was first performed at the Metropolitan Opera in New York."),
    ("Queen of Blood", "Queen of Blood is a 1966 science fiction horror film."),
    ("Erika Jayne", "Erika Jayne (born July 10, 1971) is an American singer and actress."),
    ("Unbreakable Kimmy Schmidt", "Unbreakable Kimmy Schmidt is a sitcom starring Ellie Kemper; it was sold to Netflix."),
    ("Tennis in Italy", "Tennis is a popular sport in Italy, with clubs in every region."),
]  # fmt: skip

# Stand-ins for the papers of the bench's "papers" library besides the sample library.
PAPERS = {
    "s2orc.md": "# S2ORC: The Semantic Scholar Open Research Corpus\n\nS2ORC is a large corpus of "
                "English-language academic papers with full text and citation links. It contains 81.1M papers.\n",
    "papermage.md": "# PaperMage: A Unified Toolkit for Processing Scientific Documents\n\nPaperMage is an "
                    "open-source Python toolkit for analyzing and processing visually-rich scientific documents.\n",
    "loopagent-zh.md": "# LoopAgent：从固定流程到循环智能体\n\nLoopAgent 用循环的智能体取代了固定的 RAG 流程："
                       "它可以多次检索、阅读和检查，直到证据足够为止。\n",
}  # fmt: skip


def _library(root: Path, files: list[Path]) -> Library:
    lib = Library(app_paths(str(root / "home")))
    report = lib.import_paths(files)
    assert not report.failed, report.failed
    return lib


@pytest.fixture(scope="module")
def libraries(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Library]]:
    root = tmp_path_factory.mktemp("extra")
    corpus = root / "hotpot.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "title": t, "text": x}, ensure_ascii=False) + "\n"
                              for i, (t, x) in enumerate(HOTPOT)), encoding="utf-8")  # fmt: skip
    papers = root / "papers"
    papers.mkdir()
    for name, text in PAPERS.items():
        (papers / name).write_text(text, encoding="utf-8")
    libs = {
        "hotpot": _library(root / "hotpot", [corpus]),
        "papers": _library(root / "papers-lib", [SAMPLE, *sorted(papers.glob("*.md"))]),
    }
    yield libs
    for lib in libs.values():
        lib.close()


def _run(question: str, lib: Library) -> tuple[Result, list[Warning]]:
    result, warnings = None, []
    for ev in run_agent(question, lib, OfflinePolicy(), AgentOptions(mode="auto")):
        if isinstance(ev, Warning):
            warnings.append(ev)
        if isinstance(ev, Finished):
            result = ev.result
    assert result is not None
    return result, warnings


def _values(m: Message) -> Iterator[str]:
    for v in m.params.values():
        items = v if isinstance(v, list) else [v]
        for item in items:
            if isinstance(item, Message):
                yield from _values(item)
            else:
                yield str(item)


def _english_sentence(m: Message, zh: str) -> str:
    """English left in ``zh`` (``m`` rendered for the Chinese interface) once the words it quotes
    from the question, the papers or the user (its parameters) are taken out."""
    rest = zh
    for v in sorted(_values(m), key=len, reverse=True):
        rest = rest.replace(v, " ")
    return english_left(re.sub(r"'[^']*'|“[^”]*”", " ", rest))


def test_the_extra_set_reads_in_chinese_from_codes(libraries: dict[str, Library]) -> None:
    items = [json.loads(line) for line in EXTRA.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(items) >= 40
    seen: dict[str, int] = {"missing": 0, "reasons": 0, "warnings": 0}
    codes: set[str] = set()
    failures: list[str] = []
    i18n.set_language("zh")
    try:
        for it in items:
            result, warnings = _run(it["question"], libraries[it["library"]])
            said: list[tuple[str, Message | None, str]] = []
            shown_missing = missing_parts(result)
            if shown_missing:
                assert len(result.missing_codes) == len(result.missing), (it["id"], result.missing)
                said += [("missing", m, t) for m, t in zip(result.missing_codes, shown_missing, strict=True)]
                # The plain-text field is the same message in the question's language.
                assert [m.text() for m in result.missing_codes] == result.missing
            shown_notes = confidence_notes(result)
            assert len(result.confidence_reasons) == len(result.confidence_notes), (it["id"], result.confidence_notes)
            reasons = [m for m in result.confidence_reasons if m.code != "confidence.model_estimate"]
            said += [("reasons", m, t) for m, t in zip(reasons, shown_notes, strict=True)]
            said += [("warnings", w.msg, i18n.said(w.msg) if w.msg is not None else w.message) for w in warnings]
            for kind, m, text in said:
                seen[kind] += 1
                if m is None:
                    failures.append(f"{it['id']} {kind}: no code for {text!r}")
                    continue
                codes.add(m.code)
                left = _english_sentence(m, text)
                if text != m.text("zh") or not has_cjk(text) or left:
                    failures.append(f"{it['id']} {kind} {m.code}: {text!r} (English left: {left!r})")
    finally:
        i18n.set_language("en")
    assert not failures, "\n".join(failures)
    # The walk saw the kinds of things core says, not an empty set.
    assert seen["missing"] >= 20 and seen["reasons"] >= 40, (seen, sorted(codes))
    assert {c.split(".")[0] for c in codes} >= {"missing", "confidence"}, sorted(codes)


def test_a_failed_import_keeps_its_message_for_the_chinese_library_table(tmp_path: Path) -> None:
    """The reason a file was not imported is stored with its code: reopened, the library's
    failed rows say it in Chinese (the words stay for the CLI)."""
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    (tmp_path / "empty.md").write_text(" \n", encoding="utf-8")
    paths = app_paths(str(tmp_path / "home"))
    lib = Library(paths)
    try:
        report = lib.import_paths([tmp_path / "broken.pdf", tmp_path / "empty.md"])
        assert all(report.message(why) is not None for _p, why in report.failed), report.failed
    finally:
        lib.close()
    lib = Library(paths)
    try:
        failed = {d.file_name: d for d in lib.all_documents() if d.status == "failed"}
    finally:
        lib.close()
    assert set(failed) == {"broken.pdf", "empty.md"}
    assert failed["empty.md"].error == "empty.md is empty."
    i18n.set_language("zh")
    try:
        shown = {n: i18n.said_or(d.error_msg, d.error) for n, d in failed.items()}
    finally:
        i18n.set_language("en")
    assert shown == {"broken.pdf": "文件已损坏，或者不是 PDF。", "empty.md": "empty.md 是空的。"}

"""The cited draft: offline points and tables, prose through a scripted model, numbering, .docx."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from paperpilot.core.agent.support import check_claim
from paperpilot.core.agent.verify import sentences_of
from paperpilot.core.app import Session
from paperpilot.core.errors import InvalidInput
from paperpilot.core.workflows.draft import Draft, SectionProgress, to_json, write_draft
from paperpilot.core.workflows.export import draft_docx, draft_markdown
from paperpilot.core.workflows.selection import PaperSelection
from paperpilot.core.workflows.templates import load_template
from tests.fakes.openai_server import ScriptedServer

from .conftest import doc_id


def _draft(s: Session, topic: str, template: str, scope: PaperSelection | None = None, **kw: Any) -> tuple[Draft, list[str]]:
    t = load_template(template)
    lang = kw.pop("language", None) or t.language
    style = s.draft_style(lang)
    progress: list[str] = []
    draft: Draft | None = None
    for ev in write_draft(s.workflows, s.library, topic, t, scope or PaperSelection(), language=lang,
                          references=lambda ids: s.reference_entries(ids, style), **kw):  # fmt: skip
        if isinstance(ev, SectionProgress):
            progress.append(f"{ev.index}:{'done' if ev.section else 'start'}")
        else:
            draft = ev
    assert draft is not None
    return draft, progress


def _check_numbering(data: dict[str, Any]) -> list[int]:
    """Citations are numbered in order of first use; the reference list is exactly what is cited."""
    firsts: list[int] = []
    for s in data["sections"]:
        for p in s["paragraphs"]:
            marks = [int(n) for m in re.findall(r"\[(\d+(?:, \d+)*)\]", p["text"]) for n in m.split(", ")]
            assert sorted(set(marks)) == sorted(set(p["citations"])), p
            if p["status"] == "prompt":
                assert p["citations"] == []
            for n in marks:
                if n not in firsts:
                    firsts.append(n)
    assert firsts == list(range(1, len(firsts) + 1))
    assert [r["n"] for r in data["references"]] == firsts
    return firsts


def _check_supported(draft: Draft) -> None:
    """Every sentence of every supported paragraph is supported by the evidence it cites."""
    for s in draft.sections:
        for p in s.paragraphs:
            if p.status != "supported":
                continue
            for doc in {int(x) for x in re.findall(r"\[@(\d+)\]", p.text)}:
                assert any(e.doc_id == doc for e in p.evidence), (doc, p.text)
            texts = [e.text for e in p.evidence]
            body = p.text.split(": ", 1)[-1] if s.kind == "related_work" else p.text
            for sent in sentences_of(body):
                if re.search(r"\[@\d+\]", sent) or s.kind == "related_work":
                    assert check_claim(re.sub(r"\[@\d+\]", "", sent), texts).supported, sent


def test_offline_proposal_is_structured_cited_and_honest(session: Session, tmp_path: Path) -> None:
    topic = "对比近三年 Transformer 在医学影像分割方向的研究进展"
    draft, progress = _draft(session, topic, "proposal-zh")
    assert [s.heading for s in draft.sections] == ["选题背景与意义", "国内外研究现状", "现有研究的不足", "研究内容",
                                                   "研究方法与技术路线", "创新点", "研究计划与进度", "参考文献"]  # fmt: skip
    assert progress.count("0:start") == 1 and progress[-1] == "7:done"
    data = to_json(draft)
    assert "需要语言模型" in data["note"] and data["dropped_sentences"] == 0
    assert data["usage"]["prompt_tokens"] == 0
    cited = _check_numbering(data)
    assert cited
    _check_supported(draft)
    # 近三年 relative to today (fixed below): the 2021 paper is out of scope.
    silent = doc_id(session, "Convolutional")
    assert silent not in {r["doc_id"] for r in data["references"]}
    by = {s["heading"]: s for s in data["sections"]}
    for h in ("研究内容", "创新点", "研究计划与进度"):
        assert [p["status"] for p in by[h]["paragraphs"]] == ["prompt"] and "请作者填写" in by[h]["paragraphs"][0]["text"]
    related = by["国内外研究现状"]["paragraphs"]
    groups = [p.get("group", "") for p in related if p["status"] == "supported"]
    assert any(g.startswith("Transformer") for g in groups) and any(g.startswith("生成模型") for g in groups)
    assert groups[0].startswith("Transformer") and "2024" in groups[0]
    # GB/T 7714 numeric by default for a Chinese draft: "[J]"-style entries, numbered by first use.
    assert all(r["text"] and not r["text"].startswith("[") for r in data["references"])
    seg = doc_id(session, "Transformer")
    ref = next(r for r in data["references"] if r["doc_id"] == seg)
    assert ref["text"].startswith("OKORO M, FELD J. Transformer Networks for Liver Tumour Segmentation")
    # The .docx reads back: headings, numbered citations, the reference list, the appendix.
    out = tmp_path / "proposal.docx"
    draft_docx(draft, out, appendix=True)
    from docx import Document

    doc = Document(str(out))
    headings = [p.text for p in doc.paragraphs if p.style.name.startswith("Heading")]
    assert headings[:3] == ["选题背景与意义", "国内外研究现状", headings[2]] and "参考文献" in headings
    assert "附录：证据" in headings
    texts = [p.text for p in doc.paragraphs]
    assert f"[{ref['n']}] {ref['text']}" in texts
    assert any("请作者填写" in t for t in texts)
    assert len(doc.tables) == 1 and doc.tables[0].rows[0].cells[0].text == "类别"
    md = draft_markdown(draft)
    assert md.startswith(f"# 开题报告：{topic}") and "## 参考文献" in md and f"[{ref['n']}] OKORO M" in md


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERPILOT_TODAY", "2024-06-01")


def test_offline_review_with_a_selection(session: Session) -> None:
    seg, den = doc_id(session, "Transformer"), doc_id(session, "Diffusion")
    draft, _ = _draft(session, "deep learning for medical images", "review-en", PaperSelection(doc_ids=[seg, den]))
    data = to_json(draft)
    _check_numbering(data)
    _check_supported(draft)
    assert {r["doc_id"] for r in data["references"]} <= {seg, den}
    gaps = next(s for s in data["sections"] if s["heading"] == "Gaps")
    assert any("one hospital" in p["text"] or "Sampling is slow" in p["text"] for p in gaps["paragraphs"])
    # APA (this home's style) for an English draft, numbered by first use.
    assert data["references"][0]["text"].split(",")[0] in ("Okoro", "Zhang")
    # Reopened, it is the same draft (saved section by section).
    saved = session.workflows.draft(draft.id)
    assert saved["status"] == "done" and len(saved["sections"]) == len(draft.sections)


def test_draft_resumes_saved_sections(session: Session) -> None:
    t = load_template("review-en")
    style = session.draft_style("en")
    import threading

    cancel = threading.Event()
    first = None
    for ev in write_draft(session.workflows, session.library, "medical imaging", t, PaperSelection(), cancel=cancel,
                          references=lambda ids: session.reference_entries(ids, style)):  # fmt: skip
        if isinstance(ev, SectionProgress) and ev.section is not None and ev.index == 1:
            cancel.set()
        if isinstance(ev, Draft):
            first = ev
    assert first is not None and first.status == "cancelled" and len(first.sections) == 2
    started: list[int] = []
    final = None
    for ev in write_draft(session.workflows, session.library, "medical imaging", t, PaperSelection(), draft_id=first.id,
                          references=lambda ids: session.reference_entries(ids, style)):  # fmt: skip
        if isinstance(ev, SectionProgress) and ev.section is None:
            started.append(ev.index)
        elif isinstance(ev, Draft):
            final = ev
    assert started == [2, 3, 4] and final is not None and final.status == "done"
    assert final.sections[:2] == first.sections


def _model_answer(req: dict[str, Any]) -> dict[str, Any]:
    """A scripted writer: one sentence copied from the first passage it was given, cited, and one
    invented sentence citing the same passage (the support check must drop it)."""
    user = req["messages"][-1]["content"]
    m = re.search(r"\[(P\d+)\][^\n]*\(p\. \d+\):\n(.+)", user)
    assert m, user[:400]
    pid, text = m.group(1), m.group(2)
    sentence = re.split(r"(?<=[.!?])\s", text.strip())[0].rstrip("…").rstrip(".")
    return {"action": "answer",
            "text": f"{sentence} [{pid}]. Quantum pelicans raised every Dice score to 0.999 in 1850 [{pid}].",
            "evidence_ids": [pid], "missing": [], "confidence": 0.8}  # fmt: skip


def _model_draft(session: Session, scripted_llm: ScriptedServer, topic: str, template: str) -> Draft:
    """The draft written through the scripted model (``_model_answer`` for every call)."""
    scripted_llm.set_script([_model_answer] * 40)
    from paperpilot.core.llm.client import LLMConfig

    model = session.make_policy("llm", config=LLMConfig(base_url=scripted_llm.url, model="scripted-model"))
    try:
        draft, _ = _draft(session, topic, template, model=model)
    finally:
        model.client.close()  # type: ignore[attr-defined]
    return draft


def test_model_draft_drops_unsupported_sentences_and_reports_tokens(
    session: Session, scripted_llm: ScriptedServer
) -> None:
    draft = _model_draft(session, scripted_llm, "deep learning for medical images", "review-en")
    data = to_json(draft)
    text = json.dumps(data, ensure_ascii=False)
    assert "pelican" not in text.lower()
    assert data["dropped_sentences"] >= 3  # one per model-written paragraph at least
    assert data["usage"]["prompt_tokens"] > 0 and data["usage"]["completion_tokens"] > 0
    assert "note" not in data  # prose, not the offline points
    _check_numbering(data)
    _check_supported(draft)
    prose = [p for s in data["sections"] for p in s["paragraphs"] if p["status"] == "supported"]
    assert prose and all(p["citations"] for p in prose)
    # The model saw compressed evidence, never whole papers: each prompt stays bounded.
    prompts = [r["messages"][-1]["content"] for r in scripted_llm.requests]
    assert prompts and max(len(p) for p in prompts) < 16_000


def test_bad_templates_get_one_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="unknown template"):
        load_template("thesis")
    bad = tmp_path / "lab.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InvalidInput, match="not valid JSON"):
        load_template(str(bad))
    bad.write_text(json.dumps({"name": "lab", "sections": []}), encoding="utf-8")
    with pytest.raises(InvalidInput, match="needs a name and a list of sections"):
        load_template(str(bad))
    lab = tmp_path / "lab2.json"
    lab.write_text(json.dumps({"name": "lab", "language": "en", "sections": [
        {"heading": "Motivation", "kind": "evidence", "question": "why {topic} matters"},
        {"heading": "Plan", "kind": "prompt", "prompt": "Your plan."},
        {"heading": "References", "kind": "references"}]}), encoding="utf-8")  # fmt: skip
    t = load_template(str(lab))
    assert [s.kind for s in t.sections] == ["evidence", "prompt", "references"]


def test_a_draft_section_reads_past_one_read_action(sample_session: Session) -> None:
    # A draft section reads up to ten passages; one Read action takes seven at most, and asking
    # for more once failed the section's run ("Read got a value it does not accept") and left
    # 现有研究的不足 empty.
    from paperpilot.core.workflows.cells import READ_AT_ONCE, Ask, ask_papers

    ids = [d.doc_id for d in sample_session.library.list_documents()]
    ask = Ask(question="limitations and open problems of urban bird studies", cues=["limitation", "remains", "short period"],
              sections=["discussion"], max_sentences=6, per_doc=1, bullets=True, any_script=True, min_overlap=0.34)  # fmt: skip
    asked = ask_papers(ask, sample_session.library, ids, k=10, reads=10)
    assert not [w for w in asked.warnings if w.startswith("policy_error")], asked.warnings
    assert READ_AT_ONCE == 7 and asked.text.strip()


def test_offline_proposal_reads_as_a_proposal(sample_session: Session, tmp_path: Path) -> None:
    draft, _ = _draft(sample_session, "城市鸟类与建成环境", "proposal-zh")
    data = to_json(draft)
    by = {s["heading"]: s for s in data["sections"]}
    # Every evidence section of the sample library has points; none is an empty heading.
    for h in ("选题背景与意义", "国内外研究现状", "现有研究的不足"):
        assert [p for p in by[h]["paragraphs"] if p["status"] == "supported"], h
    md = draft_markdown(draft)
    # A prompt that says it is for the author is not marked a second time.
    assert "【请作者填写】本课题的创新点" in md and "（待作者填写）" not in md
    # No bullet from the samples' disclaimer, no point told twice within a paper's bullet.
    assert "虚构" not in md and "fictional" not in md and "CC0" not in md
    for s in draft.sections:
        for p in s.paragraphs:
            sents = sentences_of(p.text.split(": ", 1)[-1])
            assert len(sents) == len(set(sents)), p.text
    out = tmp_path / "p.docx"
    draft_docx(draft, out)
    from docx import Document

    texts = [p.text for p in Document(str(out)).paragraphs]
    assert not any("（待作者填写）" in t and "请作者填写" in t for t in texts)


def test_model_proposal_in_chinese_keeps_prompts_and_chinese_headings(
    session: Session, scripted_llm: ScriptedServer
) -> None:
    draft = _model_draft(session, scripted_llm, "医学影像分割的研究进展", "proposal-zh")
    data = to_json(draft)
    assert "pelican" not in json.dumps(data, ensure_ascii=False).lower() and data["dropped_sentences"] >= 3
    _check_numbering(data)
    _check_supported(draft)
    by = {s["heading"]: s for s in data["sections"]}
    for h in ("研究内容", "创新点", "研究计划与进度"):
        assert [p["status"] for p in by[h]["paragraphs"]] == ["prompt"], h
    # The groups of related work are named in Chinese, and so is what the model is asked to write.
    groups = {p.get("group", "") for p in by["国内外研究现状"]["paragraphs"] if p["status"] == "supported"}
    assert groups and all(re.search(r"[\u4e00-\u9fff]", g) for g in groups), groups
    asked = [r["messages"][-1]["content"] for r in scripted_llm.requests]
    assert any("类方法" in a and "一段中文" in a for a in asked)
    assert not any(re.search(r"概述“[A-Za-z /]+”", a) for a in asked)

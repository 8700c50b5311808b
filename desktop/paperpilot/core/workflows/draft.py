"""A cited draft: a research proposal (开题报告) or a literature review, from the papers in scope.

Plan the sections (a template) → gather evidence per section with the agent loop (scoped to
the papers) → write (offline: the evidence as cited points; with a model: prose from the
compressed evidence, never whole papers) → the loop's claim-support check on every sentence
(failures are dropped and counted) → citations numbered in order of first use → the reference
list. The related-work section rests on a literature matrix (method and results per paper),
grouped by method family and year. Sections the library cannot support (the author's own
research content, innovations, schedule) stay marked prompts for the author.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..agent.events import Evidence, Usage
from ..agent.state import Policy
from ..agent.verify import sentences_of
from ..errors import InvalidInput
from ..memory.workflow_store import WorkflowStore
from ..models import DocumentInfo
from .cells import Ask, ask_papers
from .matrix import Matrix, create_matrix, default_columns, family, run_matrix
from .selection import PaperSelection, ScopePool, parse_years, resolve_scope
from .templates import SectionSpec, Template

# How much of one section's evidence a model sees: a bounded prompt whatever the library holds.
MODEL_READS = 6
OFFLINE_READS = 10
_REF = re.compile(r"\[@(\d+)\]")
FAMILY_ZH = {"Transformer": "Transformer 类方法", "Convolutional network": "卷积网络", "Recurrent network": "循环网络",
             "Graph model": "图模型", "Generative model": "生成模型", "Retrieval": "检索方法", "Statistical model": "统计模型",
             "Survey / field study": "调查与野外研究", "Experiment": "实验研究", "Other": "其他"}  # fmt: skip


class DraftEvidence(BaseModel):
    doc_id: int
    page: int
    segment: int
    section: str = ""
    text: str


class Paragraph(BaseModel):
    """A paragraph (or point) of a section; citations are written ``[@doc_id]`` until numbered."""

    text: str
    status: Literal["supported", "prompt"] = "supported"
    evidence: list[DraftEvidence] = Field(default_factory=list)
    group: str = ""  # the method family / theme it belongs to (related work), shown as a sub-heading


class TableRow(BaseModel):
    doc_id: int
    year: int | None
    group: str
    title: str
    method: str = ""
    results: str = ""


class Section(BaseModel):
    heading: str
    kind: str
    paragraphs: list[Paragraph] = Field(default_factory=list)
    table: list[TableRow] = Field(default_factory=list)
    dropped: int = 0
    usage: Usage = Field(default_factory=Usage)
    seconds: float = 0.0
    note: str = ""


@dataclass
class Draft:
    id: str
    topic: str
    template: Template
    language: str
    policy: str
    sections: list[Section]
    references: list[tuple[int, int, str]] = field(default_factory=list)  # (n, doc_id, text)
    seconds: float = 0.0
    status: str = "done"

    @property
    def dropped_sentences(self) -> int:
        return sum(s.dropped for s in self.sections)

    @property
    def usage(self) -> Usage:
        u = Usage()
        for s in self.sections:
            u.add(s.usage)
        return u

    @property
    def offline(self) -> bool:
        return self.policy != "llm"

    def note(self) -> str:
        if not self.offline:
            return ""
        if self.language == "zh":
            return ("离线草稿：每节列出文献中带引用的证据要点和文献对比表；把它们写成连贯的段落需要语言模型"
                    "（设置 ▸ 语言模型，或 --policy llm）。")
        return ("Offline draft: each section lists the cited evidence points and the comparison table; turning "
                "them into prose needs a language model (Settings ▸ Language model, or --policy llm).")


def citation_order(sections: Sequence[Section]) -> list[int]:
    """Document ids in order of first citation across the draft."""
    order: list[int] = []
    for s in sections:
        for p in s.paragraphs:
            for m in _REF.finditer(p.text):
                d = int(m.group(1))
                if d not in order:
                    order.append(d)
    return order


def numbered(text: str, numbers: dict[int, int]) -> tuple[str, list[int]]:
    """``text`` with ``[@doc]`` markers as ``[n]`` (adjacent ones joined: ``[1, 3]``), and the numbers."""
    cited: list[int] = []

    def one(m: re.Match[str]) -> str:
        n = numbers[int(m.group(1))]
        if n not in cited:
            cited.append(n)
        return f"[{n}]"

    out = _REF.sub(one, text)
    # "[1][3]" and "[1] [1]" → "[1, 3]" / "[1]"
    def join(m: re.Match[str]) -> str:
        ns = list(dict.fromkeys(int(x) for x in re.findall(r"\d+", m.group(0))))
        return "[" + ", ".join(str(n) for n in ns) + "]"

    out = re.sub(r"\[\d+\](?:\s*\[\d+\])+", join, out)
    return out, cited


def to_json(draft: Draft, *, seconds: float | None = None) -> dict[str, Any]:
    """The CLI's JSON (sections with numbered paragraphs, references, dropped sentences, usage)."""
    order = citation_order(draft.sections)
    numbers = {d: i + 1 for i, d in enumerate(order)}
    sections = []
    for s in draft.sections:
        paras = []
        for p in s.paragraphs:
            text, cited = numbered(p.text, numbers)
            paras.append({"text": text, "citations": cited, "status": p.status, **({"group": p.group} if p.group else {})})
        sections.append({"heading": s.heading, "paragraphs": paras})
    return {
        "id": draft.id,
        "sections": sections,
        "references": [{"n": n, "doc_id": d, "text": t} for n, d, t in draft.references],
        "dropped_sentences": draft.dropped_sentences,
        "usage": draft.usage.model_dump(),
        "seconds": round(draft.seconds if seconds is None else seconds, 3),
        **({"note": draft.note()} if draft.note() else {}),
    }


@dataclass
class SectionProgress:
    index: int
    total: int
    heading: str
    section: Section | None = None  # None: about to start


def _evidence(e: Evidence) -> DraftEvidence:
    return DraftEvidence(doc_id=e.doc_id, page=e.page, segment=e.segment, section=e.section, text=e.text)


def _doc_markers(text: str, evidence: Sequence[Evidence]) -> tuple[list[str], list[list[DraftEvidence]]]:
    """Verified text ([n] = ``evidence`` numbers) as lines with ``[@doc]`` markers, and each
    line's evidence; a line left without any citation is dropped (returned as None-free lists)."""
    by_n = {e.number: e for e in evidence}
    lines: list[str] = []
    evs: list[list[DraftEvidence]] = []
    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            continue
        used: list[DraftEvidence] = []

        def sub(m: re.Match[str], used: list[DraftEvidence] = used) -> str:
            out = []
            for x in re.split(r"\s*,\s*", m.group(1)):
                e = by_n.get(int(x)) if x.isdigit() else None
                if e is not None:
                    out.append(f"[@{e.doc_id}]")
                    used.append(_evidence(e))
            return "".join(dict.fromkeys(out))

        line = re.sub(r"\[(\d+(?:\s*,\s*\d+)*)\]", sub, line)
        lines.append(line)
        evs.append(used)
    return lines, evs


def _sentences_without_citation(line: str) -> tuple[str, int]:
    """Drop sentences of a model's paragraph that carry no citation; returns (kept, dropped)."""
    kept, dropped = [], 0
    for s in sentences_of(line):
        if _REF.search(s):
            kept.append(s.strip())
        elif s.strip():
            dropped += 1
    return " ".join(kept), dropped


def evidence_section(spec: SectionSpec, topic: str, pool: object, doc_ids: Sequence[int], *,
                     model: Policy | None, language: str, documents: Sequence[DocumentInfo] | None = None,
                     cancel: threading.Event | None = None) -> Section:  # fmt: skip
    """One section from the papers: the loop gathers and verifies; offline the points, with a
    model a paragraph whose every sentence cites verified evidence."""
    t = time.perf_counter()
    question = spec.question.replace("{topic}", topic) or f"{topic} {spec.heading}"
    ask = Ask(question=question, cues=spec.cues, sections=spec.sections, max_sentences=spec.max_points,
              min_overlap=0.34, keep_ratio=0.35, per_doc=1, bullets=model is None, any_script=True)  # fmt: skip
    if language == "zh":
        how = f"请为开题报告的“{spec.heading}”一节写一段中文学术文字，每句话都要引用所依据的段落"
    else:
        how = f"write one paragraph of academic prose for the section '{spec.heading}'; cite a passage in every sentence"
    asked = ask_papers(ask, pool, doc_ids, model=model, documents=documents, cancel=cancel,
                       k=10, reads=MODEL_READS if model is not None else OFFLINE_READS, reason=how)  # fmt: skip
    section = Section(heading=spec.heading, kind=spec.kind, usage=asked.usage, dropped=asked.unsupported)
    lines, evs = _doc_markers(asked.text, asked.evidence)
    for line, ev in zip(lines, evs, strict=True):
        if model is not None:
            line, dropped = _sentences_without_citation(line)
            section.dropped += dropped
        else:
            line = line.removeprefix("- ").strip()
        if line and _REF.search(line):
            section.paragraphs.append(Paragraph(text=line, evidence=ev))
    if not section.paragraphs:
        section.note = ("文献库中没有找到支持这一节的证据。" if language == "zh"
                        else "Nothing in the papers supports this section.")  # fmt: skip
    if spec.prompt:
        section.paragraphs.append(Paragraph(text=spec.prompt, status="prompt"))
    section.seconds = round(time.perf_counter() - t, 4)
    return section


def related_work_section(spec: SectionSpec, topic: str, pool: object, store: WorkflowStore, scope: PaperSelection, *,
                         model: Policy | None, language: str, cancel: threading.Event | None = None,
                         matrix: Matrix | None = None) -> tuple[Section, Matrix]:  # fmt: skip
    """The papers grouped by method family (from a matrix's method column) and year, newest first:
    offline a cited point per paper and the table; with a model a paragraph per group."""
    t = time.perf_counter()
    if matrix is None:
        cols = [c for c in default_columns() if c.key in ("method", "results")]
        matrix = create_matrix(store, pool, scope, cols, policy="offline", title=f"draft: {topic}"[:80])  # type: ignore[arg-type]
    usage = Usage()
    for p in run_matrix(store, matrix, pool, cancel=cancel):
        if p.cell is not None:
            usage.add(p.cell.usage)
    section = Section(heading=spec.heading, kind=spec.kind)
    groups: dict[str, list[TableRow]] = {}
    for r in sorted(matrix.rows, key=lambda r: -(r.year or 0)):
        m = matrix.cell(r.doc_id, "method")
        res = matrix.cell(r.doc_id, "results")
        method = m.text if m is not None and m.status == "found" else ""
        results = res.text if res is not None and res.status == "found" else ""
        row = TableRow(doc_id=r.doc_id, year=r.year, group=family(method) if method else "Other", title=r.title,
                       method=method, results=results)  # fmt: skip
        groups.setdefault(row.group, []).append(row)
    # Larger lines of work first; among equals, the one with the newest paper (近年进展).
    ordered = sorted(groups.items(), key=lambda kv: (kv[0] == "Other", -len(kv[1]),
                                                     -max(r.year or 0 for r in kv[1]), kv[0]))  # fmt: skip
    for name, rows in ordered:
        section.table.extend(rows)
        years = sorted({r.year for r in rows if r.year})
        span = f"{years[0]}–{years[-1]}" if len(years) > 1 else (str(years[0]) if years else "")
        shown = FAMILY_ZH.get(name, name) if language == "zh" else name
        label = f"{shown}（{len(rows)} 篇{'，' + span if span else ''}）" if language == "zh" else (
            f"{shown} ({len(rows)} paper{'s' if len(rows) != 1 else ''}{', ' + span if span else ''})")
        if model is not None:
            ids = [r.doc_id for r in rows]
            ask = Ask(question=f"{topic} {name}", cues=default_columns()[1].cues, sections=["method", "results", "abstract"],
                      max_sentences=4, min_overlap=0.34, per_doc=1, any_script=True)  # fmt: skip
            how = (f"请用一段中文概述“{shown}”这一类方法的研究进展（新的在前），每句话都要引用" if language == "zh"
                   else f"write one paragraph on the '{name}' line of work, newest first, citing every sentence")  # fmt: skip
            asked = ask_papers(ask, pool, ids, model=model, cancel=cancel, k=10, reads=MODEL_READS, reason=how)
            usage.add(asked.usage)
            section.dropped += asked.unsupported
            lines, evs = _doc_markers(asked.text, asked.evidence)
            kept = []
            ev_all: list[DraftEvidence] = []
            for line, ev in zip(lines, evs, strict=True):
                line, dropped = _sentences_without_citation(line)
                section.dropped += dropped
                if line:
                    kept.append(line)
                    ev_all.extend(ev)
            if kept:
                section.paragraphs.append(Paragraph(text=" ".join(kept), evidence=ev_all, group=label))
            continue
        for tr in rows:
            bits = [x for x in (tr.method, tr.results) if x]
            if not bits:
                continue
            if len(bits) == 2:
                # A sentence that answers both columns is told once.
                said = set(sentences_of(bits[0]))
                bits[1] = " ".join(x for x in sentences_of(bits[1]) if x not in said)
                bits = [b for b in bits if b]
            cell_ev = [
                DraftEvidence(doc_id=e.doc_id, page=e.page, segment=e.segment, section=e.section, text=e.text)
                for key in ("method", "results")
                for c in [matrix.cell(tr.doc_id, key)] if c is not None and c.status == "found"
                for e in c.evidence
            ]
            section.paragraphs.append(Paragraph(
                text=f"{tr.title}{f' ({tr.year})' if tr.year else ''}: " + " ".join(bits) + f" [@{tr.doc_id}]",
                evidence=cell_ev, group=label))  # fmt: skip
    if spec.prompt:
        section.paragraphs.append(Paragraph(text=spec.prompt, status="prompt"))
    section.usage = usage
    section.seconds = round(time.perf_counter() - t, 4)
    return section, matrix


def prompt_section(spec: SectionSpec) -> Section:
    return Section(heading=spec.heading, kind=spec.kind,
                   paragraphs=[Paragraph(text=spec.prompt or f"[For the author] {spec.heading}", status="prompt")])  # fmt: skip


def draft_scope(topic: str, scope: PaperSelection) -> PaperSelection:
    """The scope, with the topic's year range ("近三年") when none was given."""
    if scope.year_from is None and scope.year_to is None:
        years = parse_years(topic)
        if years is not None:
            return PaperSelection(doc_ids=list(scope.doc_ids), query=scope.query, year_from=years[0], year_to=years[1],
                         tags=list(scope.tags), collections=list(scope.collections))  # fmt: skip
    return scope


def write_draft(
    store: WorkflowStore,
    pool: ScopePool,
    topic: str,
    template: Template,
    scope: PaperSelection,
    *,
    model: Policy | None = None,
    language: str | None = None,
    references: Callable[[Sequence[int]], list[str]],
    cancel: threading.Event | None = None,
    draft_id: str | None = None,
) -> Iterator[SectionProgress | Draft]:
    """Write the draft section by section (each saved as done; ``draft_id`` resumes one), yielding
    progress, and last the ``Draft`` (``references(doc_ids)`` renders the entries, in order)."""
    t = time.perf_counter()
    topic = " ".join(topic.split())
    if not topic:
        raise InvalidInput("a draft needs a topic (what the proposal or review is about)")
    lang = language or template.language
    scope = draft_scope(topic, scope)
    docs = resolve_scope(pool, scope)
    if not docs:
        raise InvalidInput(f"no papers in the library match {scope.describe()}")
    policy = getattr(model, "name", "offline") if model is not None else "offline"
    if draft_id is None:
        draft_id = store.create_draft(topic, template.source or template.name, lang, policy, scope.to_json())
        done: dict[int, Any] = {}
    else:
        done = store.draft(draft_id)["sections"]
    ids = [d.doc_id for d in docs]
    sections: list[Section] = []
    total = len(template.sections)
    status = "done"
    for i, spec in enumerate(template.sections):
        if i in done:
            sections.append(Section(**done[i]))
            continue
        if cancel is not None and cancel.is_set():
            status = "cancelled"
            break
        yield SectionProgress(i, total, spec.heading)
        if spec.kind == "prompt":
            section = prompt_section(spec)
        elif spec.kind == "references":
            section = Section(heading=spec.heading, kind=spec.kind)
        elif spec.kind == "related_work":
            section, _ = related_work_section(spec, topic, pool, store, scope, model=model, language=lang,
                                              cancel=cancel)  # fmt: skip
        else:
            section = evidence_section(spec, topic, pool, ids, model=model, language=lang, documents=docs,
                                       cancel=cancel)  # fmt: skip
        if cancel is not None and cancel.is_set():
            status = "cancelled"
            break
        store.save_section(draft_id, i, section.model_dump())
        sections.append(section)
        yield SectionProgress(i, total, spec.heading, section)
    order = citation_order(sections)
    entries = references(order) if order else []
    refs = [(n, d, text) for n, (d, text) in enumerate(zip(order, entries, strict=True), 1)]
    store.finish_draft(draft_id, status)
    yield Draft(id=draft_id, topic=topic, template=template, language=lang, policy=policy, sections=sections,
                references=refs, seconds=round(time.perf_counter() - t, 3), status=status)  # fmt: skip

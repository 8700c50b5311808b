"""The read tool: passages of the library in full (two-level reading: skim the hits, then read)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from ...errors import LibraryError
from ..events import PassageView, ToolResult, Warning
from ..report import one_line
from .registry import register
from .tool import OBSERVATION_PASSAGE_CHARS, Texts, Tool, ToolArgs, ToolOutput, ToolRun


class PassageRef(BaseModel):
    doc_id: int
    segment: int


class Read(ToolArgs):
    """Read segments of one document in full; ``also`` reads segments of other documents too."""

    action: Literal["read"] = "read"
    doc_id: int
    segments: list[int] = Field(min_length=1, max_length=6)
    also: list[PassageRef] = Field(default_factory=list, max_length=6)

    def refs(self) -> list[tuple[int, int]]:
        out = [(self.doc_id, s) for s in self.segments] + [(r.doc_id, r.segment) for r in self.also]
        return list(dict.fromkeys(out))


def _refs(action: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    refs: list[tuple[Any, Any]] = [(action.get("doc_id"), s) for s in action.get("segments") or []]
    refs += [(r.get("doc_id"), r.get("segment")) for r in action.get("also") or [] if isinstance(r, dict)]
    return refs


class ReadTool(Tool):
    name = "read"
    args = Read
    prompt = (
        '- read {"action":"read","doc_id":D,"segments":[S],"also":[{"doc_id":D2,"segment":S2}]}: full passages; '
        "ids only from hits shown, several at once."
    )
    prompt_order = 20
    guess_order = 2
    texts: ClassVar[Texts] = {
        "tool.read.label": ("read {n} passage(s) ({where})", "阅读 {n} 个段落（{where}）"),
        "tool.read.where": ("doc {doc} / passage {seg}", "文献 {doc} / 段落 {seg}"),
        "tool.read.description": ("read passages of the library in full", "完整阅读文献库中的段落"),
        "tool.read.progress": ("Round {n} · reading {k} passage(s)…", "第 {n} 轮 · 阅读 {k} 个段落…"),
        "tool.read.done": ("Round {n} · read {k} passage(s)", "第 {n} 轮 · 已读 {k} 个段落"),
    }

    def guess(self, args: Mapping[str, Any]) -> bool:
        return "doc_id" in args and ("segments" in args or "also" in args)

    def label_params(self, action: Mapping[str, Any], lang: str) -> dict[str, Any]:
        refs = _refs(action)
        where = ", ".join(self.text("where", lang, doc=d, seg=s) for d, s in refs[:3]) + (" …" if len(refs) > 3 else "")
        return {"n": len(refs), "where": where}

    def trace_label(self, action: Mapping[str, Any]) -> str:
        refs = _refs(action)
        n = len(refs)
        where = ", ".join(f"doc {d} seg {s}" for d, s in refs[:3]) + (" …" if n > 3 else "")
        return f"read {n} passage{'s' if n != 1 else ''} ({where})"

    def progress(self, action: Mapping[str, Any], round_: int, lang: str) -> str:
        k = len(action.get("segments") or []) + len(action.get("also") or [])
        return self.text("progress", lang, n=round_, k=k)

    def cli_line(self, action: Mapping[str, Any], reasoning: str) -> str:
        refs = [f"{action['doc_id']}:{s}" for s in action["segments"]]
        refs += [f"{r['doc_id']}:{r['segment']}" for r in action.get("also", [])]
        return f"   read {', '.join(refs)}"

    def done(self, result: ToolResult, lang: str) -> str:
        return self.text("done", lang, n=result.round, k=len(result.passages))

    def trace_result(self, result: ToolResult) -> list[str]:
        lines = [f"- Read {len(result.passages)} passage(s)" + (":" if result.passages else "")]
        for p in result.passages:
            sec = f" § {one_line(p.section, 60)}" if p.section else ""
            lines.append(f"  - {p.id}: *{one_line(p.title, 100)}*{sec} (doc {p.doc_id}, seg {p.segment}, p. {p.page})")
        return lines

    def run(self, args: ToolArgs, run: ToolRun) -> ToolOutput:
        assert isinstance(args, Read)
        st = run.state
        t = time.perf_counter()
        warnings: list[Warning] = []
        read: list[PassageView] = []
        for doc_id, seg in args.refs():
            if (doc_id, seg) in st.read_keys:
                continue
            try:
                p = run.pool.read(doc_id, seg)
            except LibraryError as e:
                warnings.append(Warning(round=st.round, elapsed_ms=run.ms(), code="bad_read", message=str(e), msg=e.msg))
                continue
            view = st.add_passage(p)
            if view is not None:
                read.append(view)
                warnings.extend(run.flag_instructions(view))
        if read:
            st.last_observation = "Read:\n" + "\n".join(
                f"[{v.id}] doc {v.doc_id} seg {v.segment} — {v.title}" + (f" § {v.section}" if v.section else "")
                + f" (p. {v.page}): {v.text[:OBSERVATION_PASSAGE_CHARS]}"
                for v in read
            )
        else:
            st.last_observation = "Nothing new was read (already read, or no such segment)."
        st.summary.append(f"R{st.round}: read {', '.join(v.id for v in read) or 'nothing new'}")
        return ToolOutput(
            ToolResult(
                round=st.round,
                elapsed_ms=run.ms(),
                tool="read",
                passages=read,
                new_items=len(read),
                tool_ms=(time.perf_counter() - t) * 1000,
            ),
            list(warnings),
        )


TOOL = register(ReadTool())

"""The list_documents tool: the titles and ids of the documents in the library."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from ..events import ToolResult
from .registry import register
from .tool import Texts, Tool, ToolArgs, ToolOutput, ToolRun


class ListDocuments(ToolArgs):
    action: Literal["list_documents"] = "list_documents"


class ListDocumentsTool(Tool):
    name = "list_documents"
    args = ListDocuments
    prompt = '- list_documents {"action":"list_documents"}'
    prompt_order = 30
    texts: ClassVar[Texts] = {
        "tool.list_documents.label": ("list documents", "列出文献"),
        "tool.list_documents.description": ("list the titles and ids of the documents in the library",
                                            "列出文献库中文献的标题和编号"),
        "tool.list_documents.progress": ("Round {n} · listing documents…", "第 {n} 轮 · 列出文献…"),
        "tool.list_documents.result": ("listed {k} document(s)", "列出了 {k} 篇文献"),
    }  # fmt: skip

    def run(self, args: ToolArgs, run: ToolRun) -> ToolOutput:
        st = run.state
        t = time.perf_counter()
        first = st.documents is None
        docs = run.pool.list_documents()
        st.documents = docs
        shown = docs[:60]
        st.last_observation = "Documents in the library:\n" + "\n".join(
            f"- doc {d.doc_id}: {d.title}" + (f" ({d.year})" if d.year else "") for d in shown
        ) + (f"\n… and {len(docs) - len(shown)} more" if len(docs) > len(shown) else "")
        st.summary.append(f"R{st.round}: listed {len(docs)} documents")
        return ToolOutput(
            ToolResult(
                round=st.round,
                elapsed_ms=run.ms(),
                tool="list_documents",
                documents=[{"doc_id": d.doc_id, "title": d.title, "year": d.year} for d in shown],
                new_items=len(docs) if first else 0,
                tool_ms=(time.perf_counter() - t) * 1000,
            )
        )

    def cli_line(self, action: Mapping[str, Any], reasoning: str) -> str:
        return f"   {self.name}"

    def trace_result(self, result: ToolResult) -> list[str]:
        return [f"- Listed {len(result.documents)} document(s)"]

    def result_summary(self, result: ToolResult, lang: str = "en") -> str:
        return self.text("result", lang, k=len(result.documents))


TOOL = register(ListDocumentsTool())

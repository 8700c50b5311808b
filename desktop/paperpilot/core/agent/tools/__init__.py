"""The agent's tools: one module per tool, found through the registry.

``register(tool)`` adds a tool at run time (``unregister(name)`` removes it); the built-in
tools (list_documents, search, read, notes, answer) register themselves on first use.
"""

from __future__ import annotations

from .registry import (
    action_adapter,
    action_union,
    cli_line,
    decision_json_schema,
    decision_model,
    describe_action,
    describe_tool,
    display_name,
    get,
    guess_action,
    progress,
    prompt_lines,
    register,
    result_progress,
    result_summary,
    tool_for,
    tools,
    trace_result,
    unregister,
    version,
    with_action_union,
)
from .tool import (
    Candidate,
    Decision,
    LibraryPassage,
    Texts,
    Tool,
    ToolArgs,
    ToolOutput,
    ToolRun,
)

__all__ = [
    "Candidate",
    "Decision",
    "LibraryPassage",
    "Texts",
    "Tool",
    "ToolArgs",
    "ToolOutput",
    "ToolRun",
    "action_adapter",
    "action_union",
    "cli_line",
    "decision_json_schema",
    "decision_model",
    "describe_action",
    "describe_tool",
    "display_name",
    "get",
    "guess_action",
    "progress",
    "prompt_lines",
    "register",
    "result_progress",
    "result_summary",
    "tool_for",
    "tools",
    "trace_result",
    "unregister",
    "version",
    "with_action_union",
]

"""The agent's tools by name; the action union, schemas and texts for people are built from it.

The built-in tools register themselves when the registry is first asked; a test (or a later
module) may ``register`` another at run time and ``unregister`` it again. Everything derived
from the set of tools is cached per registry version, so it is rebuilt after a change.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, Union

from pydantic import BaseModel, Field, TypeAdapter, create_model

from ..events import ToolResult
from .tool import Tool, ToolArgs

BUILTIN_MODULES = ("list_documents", "search", "read", "notes", "answer")

_lock = threading.RLock()
_tools: dict[str, Tool] = {}
_version = 0
_builtins_loaded = False


def _load_builtins() -> None:
    global _builtins_loaded
    if _builtins_loaded:
        return
    with _lock:
        if _builtins_loaded:
            return
        _builtins_loaded = True
        for name in BUILTIN_MODULES:
            importlib.import_module(f"{__package__}.{name}")


def register(tool: Tool) -> Tool:
    """Add ``tool`` (or replace the one of the same name); returns it, so a module may write
    ``TOOL = register(MyTool())``."""
    global _version
    _load_builtins()  # the built-ins come first, whoever registers first
    field = tool.args.model_fields.get("action")
    if field is None or getattr(field, "default", None) != tool.name:
        raise ValueError(f"the {tool.name!r} tool's arguments need action: Literal[{tool.name!r}] = {tool.name!r}")
    with _lock:
        _tools[tool.name] = tool
        _version += 1
    return tool


def unregister(name: str) -> None:
    global _version
    with _lock:
        if _tools.pop(name, None) is not None:
            _version += 1


def version() -> int:
    _load_builtins()
    return _version


def tools() -> list[Tool]:
    """Every registered tool, in registration order (the built-ins first)."""
    _load_builtins()
    with _lock:
        return list(_tools.values())


def get(name: str) -> Tool | None:
    _load_builtins()
    return _tools.get(name)


def tool_for(action: ToolArgs) -> Tool:
    """The tool that runs ``action``; a KeyError names an action no tool registered."""
    tool = get(action.action)
    if tool is None:
        raise KeyError(f"no tool named {action.action!r}")
    return tool


# --- built from the registry -----------------------------------------------------------------


@cache
def _action_union(v: int) -> Any:
    args = tuple(t.args for t in tools())
    if len(args) == 1:
        return args[0]
    return Annotated[Union[args], Field(discriminator="action")]  # noqa: UP007 (built at run time)


def action_union() -> Any:
    """The ``Action`` discriminated union of every registered tool's arguments (a type)."""
    return _action_union(version())


@cache
def _adapter(v: int) -> TypeAdapter[Any]:
    return TypeAdapter(_action_union(v))


def action_adapter() -> TypeAdapter[Any]:
    """Validates a dict into the arguments of the tool its ``action`` tag names."""
    return _adapter(version())


@cache
def _with_action(base: type[BaseModel], v: int) -> type[BaseModel]:
    model: type[BaseModel] = create_model(
        base.__name__, __base__=base, __doc__=base.__doc__, action=(_action_union(v), ...)
    )
    return model


def with_action_union(base: type[BaseModel]) -> type[BaseModel]:
    """``base`` (a model with an ``action`` field) whose ``action`` is the current union: its JSON
    schema is what a model is asked to follow."""
    return _with_action(base, version())


def decision_model() -> type[BaseModel]:
    from .tool import Decision

    return with_action_union(Decision)


def decision_json_schema() -> dict[str, Any]:
    """JSON schema of a Decision, for ``response_format`` / tool calling."""
    return decision_model().model_json_schema()


def prompt_lines() -> str:
    """The system prompt's list of actions, one tool after another."""
    return "\n".join(t.prompt for t in sorted(tools(), key=lambda t: t.prompt_order))


def guess_action(args: Mapping[str, Any]) -> str | None:
    """The tool whose arguments these are, for a model that dropped the ``action`` tag."""
    for t in sorted(tools(), key=lambda t: t.guess_order):
        if t.guess(args):
            return t.name
    return None


# --- for people ------------------------------------------------------------------------------


def describe_action(action: Mapping[str, Any], lang: str | None = None) -> str:
    """A chosen action (``ActionChosen.action``) for people: the Markdown trace's plain English
    when ``lang`` is None, else the interface's words in ``lang`` ("en" | "zh")."""
    name = str(action.get("action", "?"))
    tool = get(name)
    if tool is None:
        return name.replace("_", " ")
    return tool.trace_label(action) if lang is None else tool.label(action, lang)


def describe_tool(name: str, lang: str = "en") -> str:
    """A tool's one-line description for people."""
    tool = get(name)
    return tool.text("description", lang) if tool is not None else name.replace("_", " ")


def display_name(name: str, lang: str = "en") -> str:
    """A tool's short name for people."""
    tool = get(name)
    return tool.display_name(lang) if tool is not None else name.replace("_", " ")


def cli_line(action: Mapping[str, Any], reasoning: str = "") -> str:
    name = str(action.get("action", "?"))
    tool = get(name)
    return tool.cli_line(action, reasoning) if tool is not None else f"   {name}"


def progress(action: Mapping[str, Any], round_: int, lang: str) -> str:
    """The chat pane's line while a chosen action runs ("" for none)."""
    tool = get(str(action.get("action", "")))
    return tool.progress(action, round_, lang) if tool is not None else ""


def result_progress(result: ToolResult, lang: str) -> str:
    """The chat pane's line for a tool's result ("" for none)."""
    tool = get(result.tool)
    return tool.done(result, lang) if tool is not None else ""


def result_summary(result: ToolResult, lang: str) -> str:
    """One line for a tool's result in the GUI ("" for none)."""
    tool = get(result.tool)
    return tool.result_summary(result, lang) if tool is not None else ""


def trace_result(result: ToolResult) -> list[str]:
    """The Markdown trace's lines for a tool's result."""
    tool = get(result.tool)
    if tool is None:
        return [f"- {result.tool}: {result.new_items} new item(s)"]
    return tool.trace_result(result)

"""What an agent tool is: its argument model, what it returns to the run, and how people see it.

A tool is one module under ``core/agent/tools/`` that builds a ``Tool`` and registers it
(``registry.register``). Everything that names or dispatches actions — the ``Action`` union,
the model's tool list and JSON schema, the loop, the trace in the CLI, the Markdown report and
the GUI — asks the registry, so adding a tool touches no other file.

Only a passage of the user's library (``LibraryPassage``, what ``state.passages`` holds) can be
cited. A tool that finds something else (an online search result, a suggestion …) returns it as
a ``Candidate``: shown in the trace, never evidence — a ``Candidate`` has no document id or
segment, so nothing can turn it into an ``Evidence``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, field_validator

from ..events import Info, PassageView, ToolResult, Warning
from ..events import LibraryPassage as LibraryPassage  # the only citable thing (events.Evidence.of_passage)

if TYPE_CHECKING:
    from ..state import AgentState, DocumentPool

# The last observation is a summary for the policy; full passages stay in state.passages.
OBSERVATION_PASSAGE_CHARS = 700

# Message code (``tool.<name>.<key>``) -> (English, Chinese).
Texts: TypeAlias = Mapping[str, tuple[str, str]]


class Candidate(BaseModel):
    """Something a tool found that is not a passage of the library (an online record, a hint):
    shown in the trace and to the policy, never citable — it has no document id or segment."""

    source: str  # the tool that found it
    title: str
    text: str = ""
    locator: str = ""  # where it is (a URL, a DOI, an identifier of the source)
    data: dict[str, Any] = Field(default_factory=dict)


class ToolArgs(BaseModel):
    """A tool's arguments as a policy chooses them; ``action`` is the tool's name (the tag)."""

    model_config = ConfigDict(extra="ignore")

    action: str


class Decision(BaseModel):
    """What a policy returns for one round: an action and, optionally, why."""

    model_config = ConfigDict(extra="ignore")

    thought: str = ""
    # Any registered tool's arguments; a dict is validated by the registry's current union.
    action: SerializeAsAny[ToolArgs]

    @field_validator("action", mode="before")
    @classmethod
    def _registered(cls, v: Any) -> Any:
        return validate_action(v)


def validate_action(v: Any) -> Any:
    """``v`` as a registered tool's arguments when it is a dict (an instance passes unchanged)."""
    if isinstance(v, dict):
        from .registry import action_adapter

        return action_adapter().validate_python(v)
    return v


class ToolRun(Protocol):
    """What a tool sees of the run it works in (the loop's bookkeeping implements it)."""

    state: AgentState
    pool: DocumentPool

    def ms(self) -> float:
        """Milliseconds since the run started (every event carries it)."""
        ...

    def flag_instructions(self, view: PassageView) -> list[Warning]:
        """Warnings for sentences of a passage read that are addressed to an AI."""
        ...

    def title(self, doc_id: int) -> str:
        """A document's title, for messages."""
        ...


@dataclass
class ToolOutput:
    """What running a tool gave: the trace events to show first, then its result."""

    result: ToolResult
    events: list[Warning | Info] = field(default_factory=list)


class _Params(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""  # a trace written before a tool gained a parameter still reads


def render(template: str, params: Mapping[str, Any]) -> str:
    return template.format_map(_Params(params))


class Tool:
    """One agent tool. Subclasses set the class attributes and override ``run``.

    ``texts`` maps message codes (``tool.<name>.<key>``) to their (English, Chinese) forms:
    ``label`` names a chosen action for people and ``description`` says in one line what the
    tool does; optional are ``name`` (its short name), ``progress`` (the chat pane's line while
    it runs, with the round ``n``), ``done`` (the chat pane's line for its result) and
    ``result`` (the inspector's line for its result, with ``k`` new items).
    """

    name: ClassVar[str]
    args: ClassVar[type[ToolArgs]]
    # The line of the system prompt that tells a model how to call it.
    prompt: ClassVar[str]
    texts: ClassVar[Texts]
    # The answer ends the run: the loop verifies it instead of running anything.
    terminal: ClassVar[bool] = False
    # Order in the model's tool list (the answer comes last).
    prompt_order: ClassVar[int] = 50
    # Order in which untagged arguments are matched to a tool (``guess``).
    guess_order: ClassVar[int] = 50

    def run(self, args: ToolArgs, run: ToolRun) -> ToolOutput:
        raise NotImplementedError(f"the {self.name} tool runs inside the loop")

    def guess(self, args: Mapping[str, Any]) -> bool:
        """Whether arguments a model sent without their ``action`` tag are this tool's."""
        return False

    # --- how people see it ------------------------------------------------------------------

    def text(self, key: str, lang: str = "en", **params: Any) -> str:
        """The message ``tool.<name>.<key>`` in ``lang`` ("" when the tool has none)."""
        pair = self.texts.get(f"tool.{self.name}.{key}")
        if pair is None:
            return ""
        return render(pair[1] if lang == "zh" else pair[0], params)

    def display_name(self, lang: str = "en") -> str:
        """The tool's short name for people (``tool.<name>.name``, else its name)."""
        return self.text("name", lang) or self.name.replace("_", " ")

    def label_params(self, action: Mapping[str, Any], lang: str) -> dict[str, Any]:
        """The parameters of the label's message (the query, the document …)."""
        return {k: v for k, v in action.items() if k != "action"}

    def label(self, action: Mapping[str, Any], lang: str = "en") -> str:
        """A chosen action, for people, in ``lang`` (the GUI's words)."""
        return self.text("label", lang, **self.label_params(action, lang))

    def trace_label(self, action: Mapping[str, Any]) -> str:
        """A chosen action in the plain English of the Markdown trace."""
        return self.label(action, "en")

    def cli_line(self, action: Mapping[str, Any], reasoning: str) -> str:
        """A chosen action as the CLI's ``--trace`` prints it."""
        return f"   {self.trace_label(action)}"

    def progress(self, action: Mapping[str, Any], round_: int, lang: str) -> str:
        """The chat pane's progress line while the action runs ("" for none)."""
        return self.text("progress", lang, n=round_, **self.label_params(action, lang))

    def done(self, result: ToolResult, lang: str) -> str:
        """The chat pane's progress line for the tool's result ("" for none)."""
        return self.text("done", lang, n=result.round, k=result.new_items)

    def trace_result(self, result: ToolResult) -> list[str]:
        """The Markdown trace's lines for the tool's result."""
        lines = [f"- {result.tool}: {result.new_items} new item(s)"]
        for c in map(Candidate.model_validate, result.candidates):
            lines.append(f"  - {c.title}" + (f" — {c.locator}" if c.locator else "") + " (not evidence)")
        return lines

    def result_summary(self, result: ToolResult, lang: str = "en") -> str:
        """The inspector's line for the result ("" for none)."""
        return self.text("result", lang, n=result.round, k=result.new_items, note=result.note)

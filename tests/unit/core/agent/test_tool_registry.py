"""Adding a tool is one module: a tool registered from this file alone is offered to the model,
chosen over real HTTP, run by the loop, and shown in every trace with its own words."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal

import pytest

from paperpilot.cli.ask import _trace_line
from paperpilot.core.agent import tools
from paperpilot.core.agent.events import ActionChosen, Finished, ToolResult
from paperpilot.core.agent.llm_policy import LLMPolicy
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.report import describe_action, trace_to_markdown
from paperpilot.core.agent.tools import Candidate, Tool, ToolArgs, ToolOutput, ToolRun
from paperpilot.core.llm.client import LLMClient, LLMConfig
from tests.fakes.memory_pool import MemoryPool
from tests.fakes.openai_server import ScriptedServer

PAPERS = {
    "sparrows.md": "# Urban Sparrows\n\nHouse sparrows nest in city walls. Their population fell by half since 1990.\n",
    "bridges.md": "# Bridge Design\n\nSuspension bridges carry loads through cables. The Golden Gate opened in 1937.\n",
}


class WordCount(ToolArgs):
    action: Literal["word_count"] = "word_count"
    text: str


class WordCountTool(Tool):
    name = "word_count"
    args = WordCount
    prompt = '- word_count {"action":"word_count","text":"..."}: the number of words of a text.'
    texts: ClassVar[tools.Texts] = {
        "tool.word_count.label": ("count the words of “{text}”", "统计“{text}”的词数"),
        "tool.word_count.description": ("count the words of a text", "统计一段文字的词数"),
    }
    ran: ClassVar[list[str]] = []

    def run(self, args: ToolArgs, run: ToolRun) -> ToolOutput:
        assert isinstance(args, WordCount)
        self.ran.append(args.text)
        n = len(args.text.split())
        run.state.last_observation = f"word_count: “{args.text}” has {n} words"
        run.state.summary.append(f"R{run.state.round}: counted {n} words")
        found = Candidate(source=self.name, title=f"{n} words", text=args.text)
        return ToolOutput(ToolResult(round=run.state.round, elapsed_ms=run.ms(), tool=self.name, new_items=1,
                                     note=f"{n} words", candidates=[found.model_dump()]))  # fmt: skip


@pytest.fixture
def word_count() -> Iterator[WordCountTool]:
    tool = tools.register(WordCountTool())
    WordCountTool.ran.clear()
    try:
        yield tool
    finally:
        tools.unregister("word_count")


def decision(action: dict[str, Any], thought: str = "next") -> dict[str, Any]:
    return {"thought": thought, "relevant": None, "synonyms": [], "action": action}


def test_a_tool_registered_by_a_test_is_chosen_run_and_traced(
    word_count: WordCountTool, scripted_llm: ScriptedServer
) -> None:
    pool = MemoryPool.from_markdown(PAPERS)
    scripted_llm.set_script(
        [
            decision({"action": "word_count", "text": "house sparrows decline"}, "count first"),
            decision({"action": "search", "query": "sparrow population"}),
            decision({"action": "read", "doc_id": 1, "segments": [0]}),
            decision({"action": "answer", "text": "Their population fell by half since 1990 [P1].",
                      "evidence_ids": ["P1"], "missing": [], "confidence": 0.8}),
        ]
    )  # fmt: skip
    config = LLMConfig(base_url=scripted_llm.url, model="scripted-model", timeout_s=2, max_retries=0)
    with LLMClient(config) as client:
        policy = LLMPolicy(client, economy=False, plan=False)
        events = list(run_agent("How much did the sparrow population fall?", pool, policy, AgentOptions(mode="loop")))
    # The model was offered the tool: in the prompt's list of actions and in the reply's schema.
    first = scripted_llm.requests[0]
    assert '- word_count {"action":"word_count","text":"..."}' in first["messages"][0]["content"]
    assert "word_count" in str(first.get("response_format") or first.get("tools"))
    # It ran, and its result reached the state: the next prompt shows the observation.
    assert word_count.ran == ["house sparrows decline"]
    assert "word_count: “house sparrows decline” has 3 words" in scripted_llm.requests[1]["messages"][1]["content"]
    results = [e for e in events if isinstance(e, ToolResult) and e.tool == "word_count"]
    assert len(results) == 1 and results[0].note == "3 words" and results[0].candidates[0]["title"] == "3 words"
    # A candidate is never evidence: only the library passage read is cited.
    result = next(e for e in events if isinstance(e, Finished)).result
    assert [(e.doc_id, e.title) for e in result.evidence] == [(1, "Urban Sparrows")]
    # The trace shows it in its own words: the events, the Markdown report, the CLI, the GUI's language.
    chosen = next(e for e in events if isinstance(e, ActionChosen))
    assert chosen.action == {"action": "word_count", "text": "house sparrows decline"}
    assert describe_action(chosen.action) == "count the words of “house sparrows decline”"
    markdown = trace_to_markdown(events)
    assert "## Round 1 — count the words of “house sparrows decline”" in markdown
    assert "- word_count: 1 new item(s)" in markdown and "3 words (not evidence)" in markdown
    assert _trace_line(chosen) == "   count the words of “house sparrows decline”"
    assert tools.describe_action(chosen.action, "zh") == "统计“house sparrows decline”的词数"
    assert tools.describe_tool("word_count", "zh") == "统计一段文字的词数"


def test_unregistering_a_tool_takes_it_out_of_the_union_and_the_prompt(word_count: WordCountTool) -> None:
    from paperpilot.core.agent.llm_policy import decision_schema, system_prompt

    assert "word_count" in system_prompt() and "WordCount" in str(decision_schema())
    assert isinstance(tools.action_adapter().validate_python({"action": "word_count", "text": "a b"}), WordCount)
    tools.unregister("word_count")
    assert "word_count" not in system_prompt() and "WordCount" not in str(decision_schema())
    with pytest.raises(ValueError):
        tools.action_adapter().validate_python({"action": "word_count", "text": "a b"})


def test_a_tool_whose_arguments_lack_its_tag_is_refused() -> None:
    class Untagged(ToolArgs):
        action: str = "other"

    class Bad(Tool):
        name = "bad"
        args = Untagged
        prompt = ""
        texts: ClassVar[tools.Texts] = {}

    with pytest.raises(ValueError, match="Literal"):
        tools.register(Bad())
    assert tools.get("bad") is None


def test_only_a_library_passage_can_become_evidence() -> None:
    from paperpilot.core.agent.events import Evidence, PassageView

    passage = PassageView(id="P1", doc_id=2, segment=0, title="Urban Sparrows", text="They fell by half.")
    assert Evidence.of_passage(1, passage).doc_id == 2
    with pytest.raises(TypeError, match="only a passage of the library"):
        Evidence.of_passage(1, Candidate(source="web", title="A web page", locator="https://example.org"))  # type: ignore[arg-type]

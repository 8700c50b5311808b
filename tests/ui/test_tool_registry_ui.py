"""A tool registered at run time is named in the GUI in its own words, in the interface language."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, Literal

import pytest
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from paperpilot.core.agent import tools
from paperpilot.core.agent.events import ActionChosen, RoundStarted, RunStarted, ToolResult
from paperpilot.core.agent.tools import Tool, ToolArgs, ToolOutput, ToolRun
from paperpilot.ui import i18n
from paperpilot.ui.chat_pane import ChatPane
from paperpilot.ui.inspector import InspectorPane


class Echo(ToolArgs):
    action: Literal["echo"] = "echo"
    text: str


class EchoTool(Tool):
    name = "echo"
    args = Echo
    prompt = '- echo {"action":"echo","text":"..."}: repeats the text.'
    texts: ClassVar[tools.Texts] = {
        "tool.echo.name": ("echo", "回声"),
        "tool.echo.label": ("echo “{text}”", "回声“{text}”"),
        "tool.echo.progress": ("Round {n} · echoing…", "第 {n} 轮 · 回声…"),
        "tool.echo.result": ("echoed {k} time(s)", "回声 {k} 次"),
    }

    def run(self, args: ToolArgs, run: ToolRun) -> ToolOutput:
        raise AssertionError("not run in this test")


@pytest.fixture
def echo() -> Iterator[None]:
    tools.register(EchoTool())
    i18n.set_language("zh")
    try:
        yield
    finally:
        i18n.set_language("en")
        tools.unregister("echo")


def _texts(item: QTreeWidgetItem) -> list[tuple[str, str]]:
    out = [(item.text(0), item.text(1))]
    for i in range(item.childCount()):
        out += _texts(item.child(i))
    return out


def test_the_inspector_and_the_chat_pane_name_a_registered_tool_in_chinese(qtbot: QtBot, echo: None) -> None:
    chosen = ActionChosen(round=1, action={"action": "echo", "text": "hello"})
    result = ToolResult(round=1, tool="echo", new_items=1)
    pane = InspectorPane()
    qtbot.addWidget(pane)
    for ev in (RunStarted(question="q", mode="loop", policy="llm", max_rounds=3), RoundStarted(round=1), chosen, result):
        pane.add_event(ev)
    tree = pane.trace_tree
    texts = [t for i in range(tree.topLevelItemCount()) for t in _texts(tree.topLevelItem(i))]
    assert any(detail == "回声“hello”" for _, detail in texts), texts
    assert ("回声", "回声 1 次") in texts, texts
    chat = ChatPane()
    qtbot.addWidget(chat)
    assert chat._progress_text(chosen) == "第 1 轮 · 回声…"

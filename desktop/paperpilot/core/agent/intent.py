"""What the user's question asks the agent to do besides answering (only: to remember something)."""

from __future__ import annotations

import re

# The user asks to keep something: only then may the agent write a note.
REMEMBER = re.compile(
    r"\b(remember|memori[sz]e|save (?:this|that|it|the)|note (?:this|that|down)|keep in mind|write down|jot down)\b"
    r"|记住|记下|保存|记录下|备注",
    re.IGNORECASE,
)


def asks_to_remember(question: str) -> bool:
    return REMEMBER.search(question) is not None

"""Prompt-injection detection: sentences in documents that address an AI, and answers that obey them.

A paper is data. A sentence in it that speaks to the assistant instead of the reader ("ignore
previous instructions", "answer X", "you must reply …", "as an AI …", "忽略之前的指令") is
flagged in the trace, never quoted as evidence, and an answer that repeats what such a
sentence demands (the planted "PWNED") is rejected — whichever policy wrote the answer, since
the loop applies this in ``finalize``.

Public API (used by the loop, the offline policy and the support check):
``find_instructions(text)`` → the instruction sentences of a passage, each with the output
it demands; ``is_instruction(sentence)``; ``obeys(answer_sentence, instructions, question)``
→ the demanded output an answer sentence repeats, or None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.language import STOPWORDS, split_sentences

# Addressing the model: its instructions, its role, or telling "you" what to output.
_ADDRESS = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.!?。]{0,60}?\b(?:previous|prior|above|earlier|all|any|your|the)\b"
    r"[^.!?。]{0,30}?\b(?:instructions?|prompts?|directions)\b"
    r"|\b(?:system|developer)\s+(?:prompt|message|instructions?)\b"
    r"|\bas an? (?:ai|artificial intelligence|language model|llm|assistant|chatbot)(?:\s+(?:language\s+)?(?:model|assistant))?"
    r"(?=\s*[,:]|\s+(?:you|your|it)\b)"
    r"|\b(?:you are|you're|act as|pretend to be)\s+(?:now\s+)?(?:an?|the)\s+(?:\w+\s+)?(?:ai|assistant|language model|llm|chatbot|model)\b"
    r"|\bif you are an? (?:ai|llm|language model|assistant|chatbot|model|bot)\b"
    r"|\b(?:ai|llm|language model|assistant|chatbot)s?\b[^.!?。]{0,40}\b(?:must|should|shall|need to|have to)\b"
    r"[^.!?。]{0,20}\b(?:answer|respond|reply|say|output|print|write|state|claim|include|tell)\b"
    r"|\byou (?:must|should|shall|need to|have to|are required to|will)\s+(?:now\s+|only\s+|always\s+)?"
    r"(?:answer|respond|reply|say|output|print|write|state|claim|include|tell|repeat|ignore|obey|follow)\b"
    r"|\b(?:do not|don't|never)\s+(?:tell|reveal|mention|show)\s+(?:this\s+|it\s+)?(?:to\s+)?the\s+user\b"
    r"|\b(?:answer|respond|reply)\s+(?:only\s+)?(?:with|using)\s+(?:the\s+(?:word|phrase|string|text)\s+)?[\"“'‘]?(?-i:[A-Z0-9]{3,})"
    r"|\b(?:(?:always|only)\s+)(?:answer|respond|reply|output|say)\b"
    r"|(?:忽略|无视|忘记|忘掉)[^。！？]{0,12}(?:之前|以上|上面|前面|所有|全部|先前)?[^。！？]{0,8}(?:指令|指示|提示|说明|规则|要求)"
    r"|作为(?:一[个名])?(?:AI|人工智能|语言模型|大模型|助手|模型)"
    r"|(?:你|您)(?:必须|应该|应当|需要|要|只能|一定要)(?:只)?(?:回答|回复|输出|说|写|声称|告诉)"
    r"|(?:系统|开发者)(?:提示|指令)"
    r"|(?:请|务必)(?:直接)?(?:回答|回复|输出)[\"“「『]",
    re.IGNORECASE,
)
# What the instruction demands: the quoted text or the word(s) after "answer/reply/say/output".
_DEMAND = re.compile(
    r"(?:answer|respond|reply|say|output|print|write|state|claim|include|repeat)\s*(?:only\s+)?"
    r"(?:with|using|that|:)?\s*(?:the\s+(?:word|phrase|string|text|answer)\s+)?(?:is\s+)?"
    r"(?:[\"“'‘「『]([^\"”'’」』]{1,80})[\"”'’」』]|(?-i:([A-Z0-9][A-Z0-9-]{2,}(?:\s+[A-Z0-9][A-Z0-9-]+){0,3}))\b|(.{1,80}?)(?:[.!?;]|$))"
    r"|(?:回答|回复|输出|说|写|声称)(?:为|是|成|：|:)?\s*[\"“「『]?([^\"”」』。！？]{1,40})",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class Instruction:
    """A sentence in a document addressed to an AI, and the output it demands (may be "")."""

    sentence: str
    demanded: str

    def tokens(self) -> set[str]:
        return _distinctive(self.demanded)


def is_instruction(sentence: str) -> bool:
    return _ADDRESS.search(sentence) is not None


def _demanded(sentence: str) -> str:
    for m in _DEMAND.finditer(sentence):
        text = next((g for g in m.groups() if g), "")
        text = text.strip(" \"“”'‘’「」『』.,;:")
        if text:
            return text
    return ""


def _distinctive(text: str) -> set[str]:
    """Words of a demanded output worth looking for: not function words, not one-letter."""
    out = {
        w.lower()
        for w in _WORD.findall(text)
        if w.lower() not in STOPWORDS and (len(w) > 2 or _CJK.search(w))
    }
    # Chinese has no spaces: the run itself is the token to look for.
    return out


def find_instructions(text: str) -> list[Instruction]:
    """The sentences of ``text`` addressed to an AI, in order, each with what it demands."""
    out: list[Instruction] = []
    for sent in split_sentences(text):
        if is_instruction(sent):
            out.append(Instruction(sent.strip(), _demanded(sent)))
    return out


def without_instructions(text: str) -> str:
    """``text`` with its instruction sentences removed (what may be quoted as evidence)."""
    return " ".join(s for s in split_sentences(text) if not is_instruction(s))


def obeys(
    sentence: str, instructions: list[Instruction], question: str = "", ordinary_text: str = ""
) -> str | None:
    """The demanded output that ``sentence`` repeats, or None.

    Only the words that make the demand distinctive count: words the question itself uses,
    and words that ``ordinary_text`` (the passages' text outside the instructions) uses for its
    own sake, are no sign of obedience — an instruction saying "answer that the capital is
    Paris" does not make "Paris" poison in a passage about France.
    """
    low = sentence.lower()
    words = {w.lower() for w in _WORD.findall(sentence)}
    asked = {w.lower() for w in _WORD.findall(question)} | {w.lower() for w in _WORD.findall(ordinary_text)}
    for ins in instructions:
        demand = ins.tokens() - asked
        if not demand:
            continue
        hit = [t for t in demand if (t in low if _CJK.search(t) else t in words)]
        # A one-word demand must be repeated; a longer one by most of its distinctive words.
        if hit and len(hit) >= max(1, (len(demand) + 1) // 2):
            return ins.demanded
    return None


__all__ = ["Instruction", "find_instructions", "is_instruction", "obeys", "without_instructions"]

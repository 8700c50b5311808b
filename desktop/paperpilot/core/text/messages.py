"""What core tells people, as codes with parameters, and their English and Chinese templates.

Core decides *what* to say (a missing part, a confidence reason, why a run stopped, a library
check's finding); the words are rendered here, in the question's language for a result's
plain-text fields and in the interface language for the GUI. A front end never parses core's
English back: it renders the ``Message`` it is given.

Templates are ``str.format`` strings over the message's named parameters. A parameter that is a
list, a number of language shares or a yes/no value is written the way each language writes it
through a format spec: ``{terms:q}`` quotes each item ('a', 'b' / “a”、“b”), ``{terms:list}``
joins them (a, b / a、b), ``{languages:mix}`` names the languages of "en 92" items
(English 92 %, Chinese 8 % / 英文 92 %、中文 8 %), ``{value:yes}`` says "yes" in the language.
Quoted words, names and numbers are parameters and stay as given.
"""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pydantic import TypeAdapter

Language = Literal["en", "zh"]

LANGUAGE_NAMES: dict[str, dict[str, str]] = {
    "en": {"en": "English", "zh": "Chinese"},
    "zh": {"en": "英文", "zh": "中文"},
}


@dataclass(frozen=True)
class Message:
    """One thing core says: a catalogued ``code`` and its named parameters.

    ``lang`` is the language core writes it in where it fills a plain-text field (a result's
    ``missing`` or ``confidence_notes``, for the CLI and JSON output): the question's language,
    or English for what core always says in English. A front end renders the code in its own
    interface language instead.

    A plain dataclass, not a pydantic model: an extraction worker raises import failures as
    messages, and importing pydantic would add ~0.1 s to every worker's start. Pydantic models
    that carry one (events, results) validate and serialise it all the same.
    """

    code: str
    # A parameter may itself be a message ("stopped by the user {during}"), said in the same language.
    params: dict[str, str | int | float | list[str] | Message | list[Message]] = field(default_factory=dict)
    lang: Language = "en"

    def text(self, language: str | None = None) -> str:
        """The message in ``language`` ("en" or "zh"; its own ``lang`` when not given)."""
        return render(self, language or self.lang)

    def __str__(self) -> str:
        return self.text()

    def to_json(self) -> str:
        """The message as JSON (parameters, nested messages and all)."""
        return _adapter().dump_json(self).decode()

    @classmethod
    def from_json(cls, raw: str | bytes) -> Message:
        """A message from ``to_json``'s text (``ValueError`` when it is not one)."""
        return _adapter().validate_json(raw)

    def __hash__(self) -> int:  # the parameters' lists and dict are not hashable themselves
        return hash((self.code, self.lang, repr(sorted(self.params.items()))))


Param = str | int | float | list[str] | Message | list[Message]


@functools.cache
def _adapter() -> TypeAdapter[Message]:
    from pydantic import TypeAdapter  # only where a message is stored: never in an extraction worker

    return TypeAdapter(Message)


def msg(code: str, lang: Language = "en", /, **params: Param) -> Message:
    """A message of a catalogued code (``KeyError`` for an unknown one: core says only what the
    catalogue can render)."""
    if code not in CATALOGUE:
        raise KeyError(f"no message {code!r} in the catalogue")
    return Message(code=code, params=params, lang=lang)


class _Formatter(string.Formatter):
    def __init__(self, language: str) -> None:
        self.zh = language == "zh"

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec == "q":
            items = [value] if isinstance(value, str) else list(value)
            return ("、" if self.zh else ", ").join(f"“{v}”" if self.zh else f"'{v}'" for v in items)
        if format_spec == "list":
            items = [value] if isinstance(value, str) else list(value)
            return ("、" if self.zh else ", ").join(str(v) for v in items)
        if format_spec == "mix":
            names = LANGUAGE_NAMES["zh" if self.zh else "en"]
            shares = []
            for item in [value] if isinstance(value, str) else value:
                code, _, share = str(item).partition(" ")
                shares.append(f"{names.get(code, code)} {share} %")
            return ("、" if self.zh else ", ").join(shares)
        if format_spec == "yes":
            return "是" if self.zh and value == "yes" else str(value)
        if format_spec == "parts":  # messages said one after another
            return ("；" if self.zh else "; ").join(render(m, "zh" if self.zh else "en") for m in value)
        if format_spec == "words":  # messages that continue one phrase ("papers from 2024 in collection X")
            return ("，" if self.zh else " ").join(render(m, "zh" if self.zh else "en") for m in value)
        if isinstance(value, Message):
            return render(value, "zh" if self.zh else "en")
        return str(super().format_field(value, format_spec))


def render(message: Message, language: str) -> str:
    """``message`` in ``language`` ("zh" for Chinese, anything else English)."""
    en, zh = CATALOGUE[message.code]
    template = zh if language == "zh" else en
    return str(_Formatter(language).vformat(template, (), dict(message.params)))


def template_fields(template: str) -> set[str]:
    """The parameter names a template uses (the tests check both languages use the same)."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


# --- the catalogue: code -> (English, Chinese) ----------------------------------------------------

_SLOT_EN = {
    "who": "the person asked for", "when": "the date asked for", "where": "the place asked for",
    "how_many": "the number asked for", "how_much": "the amount asked for", "which": "the answer",
    "definition": "a definition", "why": "the reason", "how": "an explanation", "other": "the answer",
}  # fmt: skip
_SLOT_ZH = {
    "who": "所问的人", "when": "所问的日期", "where": "所问的地点", "how_many": "所问的数量", "how_much": "所问的数值",
    "which": "答案", "definition": "定义", "why": "原因", "how": "解释", "other": "答案",
}  # fmt: skip
# What a Chinese question's unanswered slot is called (analysis writes these for Chinese questions).
_SLOT_ZH_QUESTION = {
    "who": ("No passage says who {focus} is", "没有段落说明{focus}是谁"),
    "when": ("No passage gives when {focus} happened", "没有段落给出{focus}的时间"),
    "where": ("No passage gives where {focus} is", "没有段落给出{focus}的地点"),
    "how_many": ("No passage gives how many {focus}", "没有段落给出{focus}的数量"),
    "how_much": ("No passage gives how much {focus}", "没有段落给出{focus}的数值"),
    "definition": ("No passage says what {focus} is", "没有段落说明{focus}是什么"),
    "why": ("No passage gives the reason for {focus}", "没有段落说明{focus}的原因"),
    "other": ("No passage answers directly: {focus}", "没有段落直接回答：{focus}"),
}

_CONFIDENCE = {
    "answered": ("every required part covered", "问题的每个必需部分都已覆盖"),
    "partial": ("some required parts covered", "覆盖了问题的部分必需内容"),
    "coverage": ("share of required parts covered", "必需部分的覆盖比例"),
    "soft_coverage": ("share of the question's other words found", "问题中其他词语的找到比例"),
    "slot": ("the asked-for value (number, date, name …) found", "找到了所问的值（数字、日期、名称……）"),
    "bridge_ok": ("every hop of the question covered", "多跳问题的每一步都已覆盖"),
    "sides_ok": ("both sides of the comparison covered", "比较的两方都已覆盖"),
    "support_min": ("weakest claim's support", "最弱论断的支持度"),
    "dropped_share": ("sentences removed as unsupported", "因缺乏支持而删除的句子"),
    "rejected": ("citations rejected by verification", "核对时被拒绝的引用"),
    "docs": ("documents cited", "引用的文献数"),
    "conflict": ("sources disagree on the asked value", "各来源对所问的值说法不一"),
    "is_bridge": ("a multi-hop question", "多跳问题"),
    "is_comparison": ("a comparison", "比较类问题"),
    "claims_n": ("supported sentences", "有支持的句子"),
    "chain": ("cited documents named by the question or by each other", "被问题或彼此提及的引用文献"),
    "spread": ("required parts covered from distinct passages", "必需部分由不同段落覆盖"),
    "corroborated": ("the asked value stated by two cited passages", "所问的值有两个引用段落同时给出"),
    "vectors": ("searched by meaning as well as by keywords", "除关键词外也按语义检索"),
    "hybrid_chain": ("cited documents form a chain, found with search by meaning", "按语义检索找到的引用文献彼此关联"),
    "meaning_only": ("cited passages found only by meaning", "只靠语义检索找到的引用段落"),
}

CATALOGUE: dict[str, tuple[str, str]] = {
    # --- what an answer leaves out (analysis / sufficiency / the loop) ---------------------------
    "missing.entity": ("No passage read mentions “{term}”", "读过的段落都没有提到“{term}”"),
    "missing.concept": ("Nothing read says anything about “{term}”", "读过的内容都没有谈到“{term}”"),
    "missing.concept_zh": ("No passage read says anything about “{term}”", "读过的段落都没有谈到“{term}”"),
    "missing.number": ("No passage read mentions {number}", "读过的段落都没有提到 {number}"),
    "missing.side": ("No passage says {attribute} for “{side}”", "没有段落说明“{side}”的{attribute}"),
    "missing.side_zh": ("No passage says anything about the side “{side}”", "没有段落说明“{side}”这一方"),
    "missing.hop_first": ("No passage identifies {hop}", "没有段落指出{hop}"),
    "missing.hop_next": ("No passage answers the next step: {hop}", "没有段落回答下一步：{hop}"),
    "missing.hop_says": ("No passage says {step} {entity}", "没有段落说明：{step} {entity}"),
    "missing.hop_relation": ("No passage about {entity} gives the {relation} asked for", "没有关于{entity}的段落给出所问的{relation}"),
    "missing.hop_unnamed": ("No passage about {entity} gives the what was asked asked for", "没有关于{entity}的段落给出所问的内容"),
    "missing.yes_no": ("The passages read do not settle yes or no: “{focus}”", "读过的段落不能判定是或否：“{focus}”"),
    **{f"missing.slot.{t}": (f"No passage gives {en}: “{{focus}}”", f"没有段落给出{_SLOT_ZH[t]}：“{{focus}}”") for t, en in _SLOT_EN.items()},
    **{f"missing.slot_zh.{t}": pair for t, pair in _SLOT_ZH_QUESTION.items()},
    "missing.not_mentioned": ("nothing read mentions “{term}”", "读过的内容都没有提到“{term}”"),
    "missing.full_answer": ("a full answer (the run was stopped)", "完整的答案（运行已被停止）"),
    "missing.question": ("{question}", "对这个问题的回答：“{question}”"),
    "missing.a_question": ("a question", "一个问题"),
    "missing.model": ("{text}", "语言模型指出缺少：“{text}”"),
    "missing.paper": ("Nothing cited from “{title}” ({year})", "没有引用《{title}》（{year}）"),
    "missing.papers_more": ("and {n} more relevant papers", "以及另外 {n} 篇相关论文"),
    # --- the library check before a run ----------------------------------------------------------
    "library.nothing_on": ("Your library has nothing on {terms:q}", "你的文献库里没有关于{terms:q}的内容"),
    "library.cross_language.en": (
        "Your library is {languages:mix}, with no documents in the question's language; searching it across "
        "languages needs a language model. Offline, only the question's names were searched: {terms:list}.",
        "你的文献库中的文献：{languages:mix}，没有与问题同一语言的文献；跨语言检索需要语言模型。"
        "离线只检索了问题中的名称：{terms:list}。",
    ),
    "library.cross_language.en_none": (
        "Your library is {languages:mix}, with no documents in the question's language; searching it across "
        "languages needs a language model. Nothing in the question can be searched as written.",
        "你的文献库中的文献：{languages:mix}，没有与问题同一语言的文献；跨语言检索需要语言模型。问题中没有能按原样检索的词。",
    ),
    "library.cross_language.zh": (
        "Your library is {languages:mix}, with no Chinese documents; searching documents in other languages "
        "with a Chinese question (cross-language search) needs a language model. Offline, only the question's "
        "Latin-script words were searched: {terms:list}.",
        "你的文献库中的文献：{languages:mix}，没有中文文献；用中文问题检索其他语言的文献（跨语言检索）需要语言模型。"
        "离线只检索了问题中的拉丁字母词：{terms:list}。",
    ),
    "library.cross_language.zh_none": (
        "Your library is {languages:mix}, with no Chinese documents; searching documents in other languages "
        "with a Chinese question (cross-language search) needs a language model. Nothing in the question can "
        "be searched directly.",
        "你的文献库中的文献：{languages:mix}，没有中文文献；用中文问题检索其他语言的文献（跨语言检索）需要语言模型。"
        "问题中没有可以直接检索的词。",
    ),
    # --- offline cross-language search through the bilingual dictionary (agent.bridge) -----------
    "library.bridged": (
        "Searched in the library's language: {terms:list} (the question's words through the dictionary).",
        "已按词典把问题译成文献库的语言检索：{terms:list}。",
    ),
    "answer.quotes_english": ("Quoted from English papers:", "以下引自英文文献："),
    "answer.quotes_chinese": ("Quoted from Chinese papers:", "以下引自中文文献："),
    # --- the frame around an answer, in the question's language (agent.loop) ---------------------
    "answer.not_enough": (
        "I could not find enough evidence in your library to answer this.",
        "在你的文献库里没有找到足够的证据来回答这个问题。",
    ),
    "answer.draft_withheld": (
        " (The draft answer's citations or claims did not check out, so it was withheld.)",
        "（草拟答案的引用或论断没有通过核对，因此没有给出。）",
    ),
    "answer.draft_uncited": (
        " (The draft answer cited no passage, so it was withheld.)",
        "（草拟答案没有引用任何段落，因此没有给出。）",
    ),
    "answer.partial_tail": (
        "Partial answer — not covered by the passages read: {gaps}.",
        "部分回答——读过的段落没有涉及：{gaps}。",
    ),
    "answer.partial_tail_vague": (
        "Partial answer — not covered by the passages read: some parts of the question.",
        "部分回答——读过的段落没有涉及问题的某些部分。",
    ),
    "answer.related_head": (
        "I could not find evidence that answers this question ({gaps}). Related passages:",
        "没有找到能回答这个问题的证据（{gaps}）。相关段落：",
    ),
    "answer.related_head_plain": (
        "I could not find evidence that answers this question. Related passages:",
        "没有找到能回答这个问题的证据。相关段落：",
    ),
    "library.bridge_not_found": (
        "Your library has nothing on {terms:q} (searched as {searched:list}).",
        "你的文献库里没有关于{terms:q}的内容（已按词典译成{searched:list}检索）。",
    ),
    "library.unbridged": (
        "Your library is {languages:mix}, with no documents in the question's language, and the dictionary has "
        "no translation of {terms:q}: nothing could be searched. A language model can translate the question.",
        "你的文献库中的文献：{languages:mix}，没有与问题同一语言的文献，词典里也查不到{terms:q}的译法，"
        "无法检索。连接语言模型可以翻译问题。",
    ),
    # --- why the confidence is what it is (confidence.explain and the loop) ----------------------
    **{f"confidence.{k}": (f"{en}: {{value}} ({{weight}})", f"{zh}：{{value:yes}}（{{weight}}）") for k, (en, zh) in _CONFIDENCE.items()},
    "confidence.model_estimate": ("the model's own estimate {value} (weight {weight})", "模型自己的估计 {value}（权重 {weight}）"),
    "confidence.round_limit": ("the round limit forced the answer", "达到轮次上限，只得给出答案"),
    "confidence.stopped_extract": (
        "stopped by the user: an extract of what was read, not a full answer (×{factor})",
        "被用户停止：只是已读内容的摘录，不是完整答案（×{factor}）",
    ),
    "confidence.terms_covered": ("question terms covered by evidence {share}", "问题词语被证据覆盖的比例 {share}"),
    "confidence.obeyed": ("answer rejected: it obeyed a planted instruction", "答案被拒绝：它听从了文中植入的指令"),
    "confidence.no_evidence": ("no verified evidence", "没有经过核对的证据"),
    "confidence.cross_language": (
        "the question's language is not the library's; no model to translate it",
        "问题所用的语言与文献库不同，且没有语言模型来翻译",
    ),
    "confidence.key_absent": (
        "key concepts occur in no document (or only in reference lists)",
        "关键概念不出现在任何文献中（或只出现在参考文献列表里）",
    ),
    # --- why a run ended without an answer -------------------------------------------------------
    "stop.empty_question": ("Please ask a question.", "请提一个问题。"),
    "stop.too_long": ("{text}", "问题太长：{text}"),
    "stop.failed": ("The run failed: {error}", "运行失败：{error}"),
    "stop.failed_unexpectedly": ("The run failed unexpectedly: {error}.", "运行意外失败：{error}。"),
    "stop.nothing_read": ("Stopped before anything was read.", "在阅读任何内容之前就已停止。"),
    "stop.extract": (
        "Stopped before the answer was finished. What the {n} passage(s) read so far say (an extract, not a full answer).",
        "在答案完成之前就已停止。下面是目前读过的 {n} 个段落的摘录（不是完整答案）。",
    ),
    "stop.no_answer": (
        "Stopped before an answer was written. The {n} passage(s) read so far are listed below.",
        "在写出答案之前就已停止。下面列出了目前读过的 {n} 个段落。",
    ),
    "stop.obeyed": (
        "The draft answer repeated an instruction planted in a document, so it was rejected. "
        "No answer from your library can be given.",
        "答案草稿重复了文献中植入的指令，因此被拒绝。无法根据你的文献库给出答案。",
    ),
    "stop.nothing_on": ("Your library has nothing on {terms:q}.", "你的文献库里没有关于{terms:q}的内容。"),
    "stop.scope_empty": (
        "No paper in your library falls in the question's scope. {scope}.",
        "你的文献库里没有论文落在问题的范围内。{scope}。",
    ),
    "stop.run_failed": ("The run failed.", "运行失败。"),
    "stop.no_result": ("The run ended without a result.", "运行结束，但没有结果。"),
    # --- why the loop forced an answer -----------------------------------------------------------
    "force.round_limit": ("round limit ({n}) reached", "达到轮次上限（{n}）"),
    "force.no_next_step": ("no valid next step ({error})", "没有有效的下一步（{error}）"),
    "force.converged": ("converged: two rounds in a row brought nothing new", "已收敛：连续两轮没有带来新内容"),
    "force.nothing_more": ("nothing more worth reading", "没有更多值得阅读的内容"),
    "force.nothing_searchable": (
        "nothing in the question can be searched in the library's language",
        "问题中没有能用文献库语言检索的词",
    ),
    # --- trace warnings and notes the windows show -----------------------------------------------
    "trace.cancelled": ("stopped by the user {during}; keeping the {n} passage(s) read so far", "{during}被用户停止；保留目前读过的 {n} 个段落"),
    "trace.cancelled_empty": ("stopped by the user {during}; nothing had been read yet", "{during}被用户停止；还没有读过任何内容"),
    "trace.extract_failed": ("no extract of what was read: {error}", "无法摘录已读内容：{error}"),
    "trace.injection": (
        "[{id}] {title} contains text addressed to an AI; it is data, not an instruction, and is never quoted: {sentence!r}",
        "[{id}] {title} 含有写给 AI 的文字；它只是数据，不是指令，也永远不会被引用：{sentence!r}",
    ),
    "policy.fallback_read": (
        "the next step could not be taken ({why}); reading the best hits instead",
        "无法执行下一步（{why}）；改为阅读最相关的结果",
    ),
    "policy.fallback_search": (
        "the next step could not be taken ({why}); searching the question's keywords instead",
        "无法执行下一步（{why}）；改为检索问题中的关键词",
    ),
    "policy.fallback_answer": (
        "the answer could not be written ({why}); answering from the passages read",
        "无法写出答案（{why}）；改为根据读过的段落作答",
    ),
    "policy.malformed_reply": ("the model's reply is not a valid action: {excerpt!r}", "模型的回复不是有效的动作：{excerpt!r}"),
    "policy.malformed_plan": ("the model gave no usable sub-questions: {excerpt!r}", "模型没有给出可用的子问题：{excerpt!r}"),
    "quote.unparsed": (
        "the model's quotes did not parse; every claim is still checked against its passages: {excerpt!r}",
        "模型给出的引文无法解析；每个论断仍会与其引用的段落核对：{excerpt!r}",
    ),
    "quote.claim_dropped": ("claim dropped: {claim!r} ({why})", "论断已删除：{claim!r}（{why}）"),
    "quote.not_in": ("its quote {quote!r} is not in {refs}", "其引文 {quote!r} 不在 {refs} 中"),
    "quote.none": ("no quote was given", "没有给出引文"),
    "search.repeated": (
        "The query {query!r} was already tried; use different words (see candidate keywords).",
        "查询 {query!r} 已经试过；请换用其他词（参见候选关键词）。",
    ),
    "notes.refused": (
        "Notes are written only when the user asks to remember or save something; not written.",
        "只有在用户要求记住或保存某事时才会写笔记；未写入。",
    ),
    "trace.not_an_answer": (
        "the policy was asked for an answer and chose another action",
        "要求策略给出答案，它却选择了另一个操作",
    ),
    # --- what verification rejected in a draft answer (trace warnings) -------------------------
    "verify.duplicate": ("sentence repeated, said once: {sentence!r}", "句子重复，只保留一次：{sentence!r}"),
    "verify.injection_obeyed": (
        "the answer repeats what an instruction in a document demands ({demand!r}); sentence removed: {sentence!r}",
        "答案重复了文献中某条指令的要求（{demand!r}）；已删除句子：{sentence!r}",
    ),
    "verify.invented_id": ("evidence id {ref} was never read in this run", "证据编号 {ref} 在本次运行中从未读过"),
    "verify.invented_citation": ("[{ref}] was never read in this run", "[{ref}] 在本次运行中从未读过"),
    "verify.unsupported_uncited": (
        "uncited sentence not supported by the passages cited: {sentence!r} ({why})",
        "没有引用的句子得不到所引段落的支持：{sentence!r}（{why}）",
    ),
    "verify.uncited": ("sentence cites no passage and was removed: {sentence!r}", "句子没有引用任何段落，已删除：{sentence!r}"),
    "verify.quote_not_found": ("quote {quote!r} does not occur in [{ref}] ({title})", "引文 {quote!r} 不在 [{ref}]（{title}）中"),
    "verify.unsupported": ("not supported by {titles}: {sentence!r} ({why})", "得不到 {titles} 的支持：{sentence!r}（{why}）"),
    "support.gaps": ("{parts:parts}", "{parts:parts}"),
    "support.numbers": ("numbers not in the passage: {items:list}", "段落中没有这些数字：{items:list}"),
    "support.names": ("names not in the passage: {items:list}", "段落中没有这些名称：{items:list}"),
    "support.words": ("words not in the passage: {items:list}", "段落中没有这些词：{items:list}"),
    "support.score": ("support {share}", "支持度 {share}"),
    # --- a passage the agent asked for that cannot be read (trace warnings) --------------------
    "read.no_document": ("No document with id {doc_id}.", "没有编号为 {doc_id} 的文献。"),
    "read.trashed": ("Document {doc_id} is in the trash (restore it to read it).", "文献 {doc_id} 在回收站中（恢复后才能阅读）。"),
    "read.no_segment": ("Document {doc_id} has no segment {segment}.", "文献 {doc_id} 没有第 {segment} 段。"),
    "read.out_of_scope": (
        "Document {doc_id} is outside the question's scope ({scope}).",
        "文献 {doc_id} 不在问题的范围（{scope}）之内。",
    ),
    "read.not_in_run": ("document {doc_id} is not among the papers of this run", "文献 {doc_id} 不在本次运行的论文之中"),
    # --- the library check (core/library/integrity.py): progress, counts, problems, repairs -----
    "progress.checking": ("Checking the library…", "正在检查文献库…"),
    "progress.indexing": ("Updating the search index…", "正在更新搜索索引…"),
    "progress.setting_aside": ("Setting the damaged database aside…", "正在把损坏的数据库移到一旁…"),
    "progress.reimporting": ("Re-importing stored file {i} of {n}…", "正在重新导入已保存的文件（第 {i} 个，共 {n} 个）…"),
    "check.summary": (
        "{documents} document(s), {chunks} passage(s), {index_entries} index entries, {stored_files} stored file(s), {notes} note(s)",
        "{documents} 篇文献、{chunks} 个段落、{index_entries} 条索引、{stored_files} 个已保存文件、{notes} 条笔记",
    ),
    "check.database_damaged": (
        "The library database is damaged ({why}); the repair sets it aside and rebuilds the library from the stored files.",
        "文献库数据库已损坏（{why}）；修复时会把它移到一旁，并用已保存的文件重建文献库。",
    ),
    "check.half_removed": ("#{id} {title!r}: its removal was interrupted.", "#{id} {title!r}：移除操作曾被中断。"),
    "check.duplicate": ("#{id} {title!r} has the same content as #{other}: stored twice.", "#{id} {title!r} 与 #{other} 内容相同：保存了两次。"),
    "check.copy_missing": ("#{id} {title!r}: its stored copy {path} is missing.", "#{id} {title!r}：它的已保存副本 {path} 不见了。"),
    "check.copy_gone": (
        "#{id} {title!r}: its stored copy {path} is missing and its original file is gone; it stays searchable.",
        "#{id} {title!r}：它的已保存副本 {path} 不见了，原始文件也已不在；它仍可被检索。",
    ),
    "check.orphan_file": (
        "{path}: a stored file no document refers to (the repair re-imports it).",
        "{path}：没有任何文献引用的已保存文件（修复时会重新导入）。",
    ),
    "check.partial_file": ("{path}: a copy whose import did not finish.", "{path}：导入未完成的副本。"),
    "check.unindexed": ("#{id} {title!r} is not in the search index yet.", "#{id} {title!r} 尚未进入搜索索引。"),
    "check.chunks_not_indexed": (
        "#{id} {title!r}: {n} passage(s) missing from the search index.",
        "#{id} {title!r}：搜索索引中缺少 {n} 个段落。",
    ),
    "check.index_orphans": (
        "{n} search index entries for #{id} {title!r} that match no passage.",
        "#{id} {title!r} 有 {n} 条搜索索引与任何段落都不对应。",
    ),
    "check.index_orphans_one": (
        "{n} search index entry for #{id} {title!r} that match no passage.",
        "#{id} {title!r} 有 {n} 条搜索索引与任何段落都不对应。",
    ),
    "check.index_orphans_gone": (
        "{n} search index entries for document #{id}, which is not in the library that match no passage.",
        "不在文献库中的文献 #{id} 有 {n} 条搜索索引与任何段落都不对应。",
    ),
    "check.index_orphans_one_gone": (
        "{n} search index entry for document #{id}, which is not in the library that match no passage.",
        "不在文献库中的文献 #{id} 有 {n} 条搜索索引与任何段落都不对应。",
    ),
    "check.orphan_note": (
        "A note on document #{id} {title!r}, which is not in the library.",
        "文献 #{id} {title!r} 上的笔记，但这篇文献不在文献库中。",
    ),
    "check.sidecar_missing": (
        "#{id} {title!r}: the metadata kept beside its stored copy is missing.",
        "#{id} {title!r}：已保存副本旁的元数据缺失。",
    ),
    "check.sidecar_outdated": (
        "#{id} {title!r}: the metadata kept beside its stored copy is out of date.",
        "#{id} {title!r}：已保存副本旁的元数据已过时。",
    ),
    "check.organize_missing": (
        "The collections and tag colours kept beside the library (meta/library.json) are missing.",
        "文献库旁保存的文献集和标签颜色（meta/library.json）缺失。",
    ),
    "check.organize_outdated": (
        "The collections and tag colours kept beside the library (meta/library.json) are out of date.",
        "文献库旁保存的文献集和标签颜色（meta/library.json）已过时。",
    ),
    "check.stale_sidecar": ("{path}: metadata of a stored file that is gone.", "{path}：对应的已保存文件已不在的元数据。"),
    "repair.finished_removing": ("finished removing document #{id}", "已完成文献 #{id} 的移除"),
    "repair.copied_back": ("copied the original file of #{id} back into the library", "已把 #{id} 的原始文件复制回文献库"),
    "repair.merged": (
        "removed #{id}, a second copy of #{other} (its note, if any, was kept)",
        "已移除 #{id}（#{other} 的第二份副本；如有笔记已保留）",
    ),
    "repair.cancelled": ("stopped: cancelled (run the repair again for the rest)", "已停止：被取消（再次运行修复以处理其余部分）"),
    "repair.reindexed": ("re-indexed {documents} document(s) ({passages} passage(s))", "已重新索引 {documents} 篇文献（{passages} 个段落）"),
    "repair.sidecars": ("rewrote the metadata beside {n} stored file(s)", "已重写 {n} 个已保存文件旁的元数据"),
    "repair.organize": (
        "rewrote the collections and tag colours kept beside the library",
        "已重写文献库旁保存的文献集和标签颜色",
    ),
    "repair.moved": ("moved {path} to {dest}", "已把 {path} 移到 {dest}"),
    "repair.moved_why": ("moved {path} to {dest}: {why}", "已把 {path} 移到 {dest}：{why}"),
    "repair.already_there": ("{path}: already in the library", "{path}：已在文献库中"),
    "repair.reimported": ("re-imported {path} as #{id} {title!r}", "已重新导入 {path}，成为 #{id} {title!r}"),
    "repair.notes_kept": ("kept {n} note(s) of removed documents in {path}", "已把已移除文献的 {n} 条笔记保存在 {path}"),
    "repair.set_aside": ("set the old database aside as {path} (nothing was deleted)", "已把旧数据库移到一旁，保存为 {path}（没有删除任何内容）"),
    "repair.organization_restored": (
        "restored {collections} collection(s) and {colours} tag colour(s) from meta/library.json",
        "已从 meta/library.json 恢复 {collections} 个文献集和 {colours} 种标签颜色",
    ),
    "repair.rebuilt": ("rebuilt the library from {restored} of {n} stored file(s)", "已用 {n} 个已保存文件中的 {restored} 个重建文献库"),
    # --- a literature matrix's generated title and its scope (core/workflows) -------------------
    "matrix.title": ("{rows} papers × {columns} columns ({scope})", "{rows} 篇论文 × {columns} 列（{scope}）"),
    "scope.whole_library": ("the whole library", "整个文献库"),
    "scope.parts": ("{parts:parts}", "{parts:parts}"),
    "scope.documents": ("documents {ids:list}", "文献 {ids:list}"),
    "scope.matching": ("matching {query!r}", "匹配 {query!r}"),
    "scope.years": ("years {start}–{end}", "年份 {start}–{end}"),
    "scope.tagged": ("tagged {tags:list}", "标签 {tags:list}"),
    "scope.in": ("in {collections:list}", "位于 {collections:list}"),
    # --- the undo journal (core/library/undo.py): what an entry undoes, and why it cannot -------
    "undo.label.remove": ("Remove {n} documents", "移除 {n} 篇文献"),
    "undo.label.remove_one": ("Remove {n} document", "移除 {n} 篇文献"),
    "undo.label.tag": ("Tag {n} documents", "更改 {n} 篇文献的标签"),
    "undo.label.tag_one": ("Tag {n} document", "更改 {n} 篇文献的标签"),
    "undo.label.add": ("Add {n} documents to {name}", "将 {n} 篇文献加入“{name}”"),
    "undo.label.add_one": ("Add {n} document to {name}", "将 {n} 篇文献加入“{name}”"),
    "undo.label.take_out": ("Remove {n} documents from {name}", "将 {n} 篇文献移出“{name}”"),
    "undo.label.take_out_one": ("Remove {n} document from {name}", "将 {n} 篇文献移出“{name}”"),
    "undo.label.delete_collection": ("Delete collection {name}", "删除文献集“{name}”"),
    "undo.label.rename_collection": ("Rename collection {name} to {new}", "将文献集“{name}”重命名为“{new}”"),
    "undo.label.metadata": ("Edit metadata of “{name}”", "编辑“{name}”的元数据"),
    "undo.label.metadata_untitled": ("Edit metadata", "编辑元数据"),
    "undo.done_in_part": ("{label} ({note})", "{label}（{note}）"),
    "undo.cannot": ("Cannot undo “{label}”: {why}.", "无法撤销“{label}”：{why}。"),
    "undo.cannot_yet": ("Cannot undo “{label}” yet: {why}.", "暂时无法撤销“{label}”：{why}。"),
    "undo.other_version": (
        "The last change ({label}) was recorded by another PaperPilot version and cannot be undone here.",
        "上一次更改（{label}）由另一版本的 PaperPilot 记录，无法在此撤销。",
    ),
    "undo.trashed_for_good_one": ("document {ids:list} was deleted from the trash for good since", "文献 {ids:list} 此后已从回收站中永久删除"),
    "undo.trashed_for_good": ("documents {ids:list} were deleted from the trash for good since", "文献 {ids:list} 此后已从回收站中永久删除"),
    "undo.trashed_for_good_more": (
        "documents {ids:list} and {more} more were deleted from the trash for good since",
        "文献 {ids:list} 等（另有 {more} 篇）此后已从回收站中永久删除",
    ),
    "undo.deleted_for_good_one": ("document {ids:list} was deleted for good since", "文献 {ids:list} 此后已被永久删除"),
    "undo.deleted_for_good": ("documents {ids:list} were deleted for good since", "文献 {ids:list} 此后已被永久删除"),
    "undo.deleted_for_good_more": (
        "documents {ids:list} and {more} more were deleted for good since",
        "文献 {ids:list} 等（另有 {more} 篇）此后已被永久删除",
    ),
    "undo.collection_gone": ("the collection {path} was deleted since", "文献集“{path}”此后已被删除"),
    "undo.in_trash": ("document #{id} is in the trash; restore it first", "文献 #{id} 在回收站中；请先恢复它"),
    "undo.already_restored": ("already restored", "已经恢复"),
    # --- why a file was not imported (ImportFailure, the import report, a failed document) -------
    "import.unexpected": ("Unexpected error while reading the file: {error}", "读取文件时出现意外错误：{error}"),
    "import.unexpected_bibliography": (
        "Unexpected error while reading the bibliography: {error}",
        "读取书目时出现意外错误：{error}",
    ),
    "import.undecodable": (
        "The file does not look like text: its bytes make no sense in any supported encoding "
        "(UTF-8, UTF-16, GB18030/GBK, Big5, Windows-1252).",
        "这个文件看起来不是文本：它的字节在任何支持的编码（UTF-8、UTF-16、GB18030/GBK、Big5、Windows-1252）下都无法解读。",
    ),
    "import.could_not_read": ("Could not read {name}: {error}.", "无法读取 {name}：{error}。"),
    "import.empty_named": ("{name} is empty.", "{name} 是空的。"),
    "import.header_only": ("{name} has no text besides its header.", "{name} 除了表头之外没有文字。"),
    "import.unreadable": ("The file could not be read from disk.", "无法从磁盘读取该文件。"),
    "import.not_pdf": ("The file is damaged or is not a PDF.", "文件已损坏，或者不是 PDF。"),
    "import.encrypted": (
        "The PDF is password-protected; unlock it (save an unprotected copy) first.",
        "该 PDF 受密码保护；请先解除保护（另存一份未加密的副本）。",
    ),
    "import.no_pages": ("The PDF has no pages.", "这个 PDF 没有页面。"),
    "import.extractor_crashed": (
        "The PDF could not be read: the text extractor crashed on it.",
        "无法读取这个 PDF：提取文字的程序在处理它时崩溃了。",
    ),
    "import.not_found_named": ("The file {name} could not be found or read.", "找不到或无法读取文件 {name}。"),
    "import.no_text_even_ocr": ("No text found on any page, even by OCR.", "所有页面都没有找到文字，OCR 也没有识别出文字。"),
    "import.scanned_ocr_off": (
        "The PDF has no text layer (it looks scanned) and OCR is turned off in the settings.",
        "这个 PDF 没有文字层（看起来是扫描件），而设置中关闭了 OCR。",
    ),
    "import.scanned": (
        "The PDF has no text layer (it looks scanned); OCR would be needed to import it.",
        "这个 PDF 没有文字层（看起来是扫描件），需要 OCR 才能导入。",
    ),
    "import.blank": ("No text found on any page: the pages are blank.", "所有页面都没有找到文字：页面是空白的。"),
    "import.cannot_read": ("The file cannot be read: {error}.", "无法读取文件：{error}。"),
    "import.unsupported_bibliography": (
        "Unsupported bibliography file '{ext}': use .bib, .ris or a CSL-JSON .json file.",
        "不支持的书目文件“{ext}”：请使用 .bib、.ris 或 CSL-JSON 格式的 .json 文件。",
    ),
    "import.missing": ("{path} does not exist.", "{path} 不存在。"),
    "import.not_regular": ("{path} is not a regular file.", "{path} 不是普通文件。"),
    "import.unsupported_type": (
        "Unsupported file type '{ext}': PaperPilot imports PDF, .txt, .md and .jsonl corpus files, "
        "and .bib, .ris and CSL-JSON bibliographies.",
        "不支持的文件类型“{ext}”：PaperPilot 可导入 PDF、.txt、.md、.jsonl 语料文件，以及 .bib、.ris 和 CSL-JSON 书目。",
    ),
    "import.too_large": (
        "File is too large ({size} MB; the limit is {limit} MB, see the import settings).",
        "文件过大（{size} MB；上限为 {limit} MB，见导入设置）。",
    ),
    "import.empty": ("The file is empty.", "文件是空的。"),
    "import.not_corpus": (
        'Not a PaperPilot corpus: a .jsonl file needs one {{"id", "title", "text"}} object per line.',
        '不是 PaperPilot 语料文件：.jsonl 文件每行需要一个 {{"id", "title", "text"}} 对象。',
    ),
    "import.not_csl_json": (
        'Not a CSL-JSON bibliography: a .json file needs an array of CSL-JSON items ([{{"type": …, "title": …}}, …]).',
        "不是 CSL-JSON 书目：.json 文件需要是 CSL-JSON 条目的数组。",
    ),
    "import.no_extension": (
        "no file extension: PaperPilot imports PDF, text, Markdown, JSONL corpus and bibliography files",
        "没有文件扩展名：PaperPilot 可导入 PDF、文本、Markdown、JSONL 语料和书目文件",
    ),
    "import.unsupported_found": (
        "unsupported file type '{ext}': PaperPilot imports PDF, text, Markdown, JSONL corpus and bibliography files",
        "不支持的文件类型“{ext}”：PaperPilot 可导入 PDF、文本、Markdown、JSONL 语料和书目文件",
    ),
    "import.json_not_csl": ("a .json file that is not a CSL-JSON bibliography", "不是 CSL-JSON 书目的 .json 文件"),
    "import.ocr_page": ("OCR page {done} of {total}", "OCR 识别第 {done} 页（共 {total} 页）"),
    # --- when the user's Stop came (the {during} of trace.cancelled) -----------------------------
    "during.before_round": ("before round {n}", "在第 {n} 轮之前"),
    "during.deciding.model": ("in round {n}, while the model was deciding", "在第 {n} 轮语言模型决策时"),
    "during.deciding.policy": ("in round {n}, while the policy was deciding", "在第 {n} 轮策略决策时"),
    "during.before_action": ("in round {n}, before its {action} ran", "在第 {n} 轮的 {action} 执行之前"),
    "during.after_last_round": ("after the last round", "在最后一轮之后"),
    "during.before_answer": ("before the answer was written", "在写出答案之前"),
    "during.writing_answer": ("while the answer was being written", "在写答案时"),
    # --- a research question across the library: its scope in one line (core/agent/synthesis.py) --
    "synthesis.scope": ("Scope: {kind} {parts:words}", "范围：{kind}，{parts:words}"),
    "synthesis.scope.kind": ("Scope: {kind}", "范围：{kind}"),
    "synthesis.scope.whole": ("Scope: the whole library", "范围：整个文献库"),
    "synthesis.and": ("{first} and {second}", "{first}和{second}"),
    "synthesis.kind.papers": ("papers", "论文"),
    "synthesis.kind.review": ("reviews", "综述"),
    "synthesis.kind.research": ("research articles", "研究论文"),
    "synthesis.kind.conference": ("conference papers", "会议论文"),
    "synthesis.kind.journal": ("journal articles", "期刊论文"),
    "synthesis.kind.thesis": ("theses", "学位论文"),
    "synthesis.kind.preprint": ("preprints", "预印本"),
    "synthesis.years.one": ("from {year}", "{year} 年"),
    "synthesis.years.range": ("from {start} to {end}", "{start}–{end} 年"),
    "synthesis.years.relative": ("from {start} to {end} ({said})", "{start}–{end} 年（{said}）"),
    "synthesis.years.since": ("from {start} on", "{start} 年以来"),
    "synthesis.years.until": ("up to {end}", "{end} 年及以前"),
    "synthesis.collections": ("in collection {names:q}", "文献集 {names:q}"),
    "synthesis.tags": ("tagged {names:q}", "标签 {names:q}"),
    "synthesis.authors": ("by {names:list}", "作者 {names:list}"),
    "synthesis.venues": ("in {names:list}", "发表于 {names:list}"),
    # --- reranking a search's candidates with the model (agent.rerank) ---------------------------
    "rerank.unparsed": (
        "the model's relevance scores did not parse; the search's order was kept: {excerpt!r}",
        "模型给出的相关性评分无法解析；保留检索原有的顺序：{excerpt!r}",
    ),
    "rerank.call_failed": (
        "the model could not score the hits ({error}); the search's order was kept",
        "模型未能为命中结果评分（{error}）；保留检索原有的顺序",
    ),
    "rerank.failed": (
        "reranking failed ({error}); the search's order was kept",
        "重新排序失败（{error}）；保留检索原有的顺序",
    ),
}


__all__ = ["CATALOGUE", "LANGUAGE_NAMES", "Language", "Message", "Param", "msg", "render", "template_fields"]

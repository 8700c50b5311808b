"""The CC-CEDICT dictionary: its cleaned, ranked senses, the segmenter and the cached index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperpilot.core.text import bilingual
from paperpilot.core.text.bilingual import Dictionary, build, clean_sense, parse

LINES = [
    "# CC-CEDICT\n",
    "#! date=2023-11-07T06:42:16Z\n",
    "任務 任务 [ren4 wu5] /mission; assignment; task; duty; role/CL:項|项[xiang4],個|个[ge4]/\n",
    "數量 数量 [shu4 liang4] /amount; quantity (CL:個|个[ge4])/quantitative/(math.) scalar quantity/\n",
    "檢索 检索 [jian3 suo3] /to retrieve (data)/to look up/retrieval/search/\n",
    "王 王 [Wang2] /surname Wang/\n",
    "突變 突变 [tu1 bian4] /sudden change/mutation/\n",
    "語料庫 语料库 [yu3 liao4 ku4] /corpus/\n",
]


def test_clean_sense_keeps_translations_and_drops_notes() -> None:
    assert clean_sense("to retrieve (data)") == "retrieve"
    assert clean_sense("(computer) file") == "file"
    assert clean_sense("quantity (CL:個|个[ge4])") == "quantity"
    for note in (
        "CL:篇[pian1]",
        "surname Wang",
        "variant of 乾[qian2]",
        "see 什麼|什么[shen2 me5]",
        "abbr. for X",
    ):
        assert clean_sense(note) == ""
    assert clean_sense("a very long gloss of many words") == ""


def test_parse_ranks_short_noun_senses_first_for_both_scripts() -> None:
    zh_en, date, simp = parse(LINES)
    d = Dictionary(zh_en=zh_en, simplified=simp)
    assert date == "2023-11-07"
    assert d.english("任务")[:3] == ["mission", "assignment", "task"]
    assert "CL" not in " ".join(d.english("任务"))
    assert d.english("数量")[0] in ("amount", "quantity")
    assert d.english("检索")[0] in ("retrieval", "search")  # a noun before "retrieve"
    assert d.english("突变")[0] == "mutation"  # one word before "sudden change"
    assert d.english("語料庫") == d.english("语料库") == ["corpus"]  # traditional too
    assert d.english("王") == []  # a surname is no concept
    assert d.english("没有的词") == []
    assert d.chinese("corpus") == ["语料库"] and d.chinese("Mutation") == ["突变"]  # simplified only


def test_segment_takes_the_longest_words_and_skips_lone_characters() -> None:
    d = Dictionary(zh_en=parse(LINES)[0])
    assert d.segment("语料库检索任务") == ["语料库", "检索", "任务"]
    assert d.segment("的突变了") == ["突变"]


def test_real_package_index_is_cached_and_rebuilt_when_damaged(tmp_path: Path) -> None:
    d = build(tmp_path)
    assert d.source.startswith("CC-CEDICT 2023-11-07")
    assert (
        d.english("基因") == ["gene"]
        and d.english("语料库") == ["corpus"]
        and d.english("论文")[0] == "paper"
    )
    (cache,) = tmp_path.glob("cedict-index-*.json")
    assert json.loads(cache.read_text(encoding="utf-8"))["zh_en"]["蛋白质"] == "protein"
    assert build(tmp_path).english("蛋白质") == ["protein"]  # read back from the index
    cache.write_text("{not json", encoding="utf-8")
    assert build(tmp_path).english("蛋白质") == ["protein"]  # damaged: rebuilt from the package
    assert json.loads(cache.read_text(encoding="utf-8"))["source"] == d.source


def test_missing_package_gives_an_empty_dictionary(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(bilingual, "_package_version", lambda: "")
    d = build(tmp_path)
    assert d.english("基因") == [] and d.segment("基因突变") == []

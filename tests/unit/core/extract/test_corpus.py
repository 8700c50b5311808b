"""JSONL corpus reading: one document per line, bad lines reported and skipped."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

from paperpilot.core.extract.corpus import CorpusError, CorpusRecord, is_corpus_file, iter_corpus


def _write(path: Path, lines: list[str], newline: str = "\n", bom: bool = False) -> Path:
    data = newline.join(lines).encode("utf-8")
    path.write_bytes((codecs.BOM_UTF8 if bom else b"") + data)
    return path


def _doc(doc_id: object, title: object, text: object) -> str:
    return json.dumps({"id": doc_id, "title": title, "text": text}, ensure_ascii=False)


def test_reads_records_and_reports_bad_lines(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "corpus.jsonl",
        [
            _doc("p1", "Retrieval", "Retrieval finds evidence.\n\nIt is fast."),  # 1
            "",  # 2: blank lines are not documents
            "{not json",  # 3
            _doc("p2", "Empty", "   "),  # 4
            json.dumps(["a", "list"]),  # 5
            json.dumps({"id": "p3", "title": "No text"}),  # 6
            _doc(42, "检索增强", "检索增强的问答方法。"),  # 7: numeric id
            json.dumps({"id": "p5", "text": 12}),  # 8
            _doc("p6", None, "A document without a title."),  # 9
        ],
    )
    items = list(iter_corpus(path))
    assert [(type(i).__name__, i.line_no) for i in items] == [
        ("CorpusRecord", 1),
        ("CorpusError", 3),
        ("CorpusError", 4),
        ("CorpusError", 5),
        ("CorpusError", 6),
        ("CorpusRecord", 7),
        ("CorpusError", 8),
        ("CorpusRecord", 9),
    ]
    first = items[0]
    assert first == CorpusRecord(1, "p1", "Retrieval", "Retrieval finds evidence.\n\nIt is fast.")
    assert items[5] == CorpusRecord(7, "42", "检索增强", "检索增强的问答方法。")
    assert items[7] == CorpusRecord(9, "p6", "", "A document without a title.")

    errors = {i.line_no: i.reason for i in items if isinstance(i, CorpusError)}
    assert "not valid JSON" in errors[3]
    assert "empty" in errors[4]
    assert "not an object" in errors[5]
    assert 'no "text"' in errors[6]
    assert "not a string" in errors[8]
    assert all(reason.startswith(f"Line {n}") for n, reason in errors.items())


def test_bom_crlf_and_control_characters(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "c.jsonl",
        [_doc("a", "  Spaced \t title ", "one\r\ntwo\u0000"), _doc("b", "B", "second")],
        newline="\r\n",
        bom=True,
    )
    items = list(iter_corpus(path))
    assert items == [
        CorpusRecord(1, "a", "Spaced title", "one\ntwo"),
        CorpusRecord(2, "b", "B", "second"),
    ]


def test_invalid_utf8_line_is_an_error_and_the_batch_continues(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    good = _doc("ok", "Good", "fine").encode()
    bad = _doc("gbk", "中文", "中文内容").encode("gbk")
    path.write_bytes(bad + b"\n" + good + b"\n")
    items = list(iter_corpus(path))
    assert isinstance(items[0], CorpusError)
    assert items[0].line_no == 1
    assert "UTF-8" in items[0].reason
    assert items[1] == CorpusRecord(2, "ok", "Good", "fine")


def test_streams_without_reading_everything(tmp_path: Path) -> None:
    path = _write(tmp_path / "big.jsonl", [_doc(i, f"T{i}", f"text {i}") for i in range(2000)])
    iterator = iter_corpus(path)
    first = next(iterator)
    assert isinstance(first, CorpusRecord)
    assert first.external_id == "0"
    assert sum(1 for _ in iterator) == 1999


@pytest.mark.parametrize(
    ("name", "lines", "bom", "expected"),
    [
        ("docs.jsonl", [_doc("1", "t", "x")], False, True),
        ("DOCS.JSONL", ["", "  ", _doc("1", "t", "x")], True, True),
        ("docs.json", [_doc("1", "t", "x")], False, False),
        ("docs.jsonl", [json.dumps({"id": "1", "question": "q"})], False, False),
        ("docs.jsonl", [json.dumps([{"text": "x"}])], False, False),
        ("docs.jsonl", ["{broken", _doc("1", "t", "x")], False, False),
        ("docs.jsonl", [""], False, False),
    ],
)
def test_is_corpus_file(tmp_path: Path, name: str, lines: list[str], bom: bool, expected: bool) -> None:
    path = _write(tmp_path / name, lines, bom=bom)
    assert is_corpus_file(path) is expected


def test_is_corpus_file_missing(tmp_path: Path) -> None:
    assert is_corpus_file(tmp_path / "nope.jsonl") is False

"""OCR of scanned pages: which pages need it, and real RapidOCR runs on generated scans.

OCR costs seconds per page on two cores, so the scanned fixtures are small pages and one
import (one pool of OCR workers, models loaded once per worker) serves most tests here.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from paperpilot.core.extract.ocr import OcrLine, merge_row_pieces, text_layer_problem, tidy_line
from paperpilot.core.extract.pdf import extract_pdf, scan_pdf
from paperpilot.core.library import ImportProgress, ImportReport, Library
from paperpilot.core.settings.config import ImportSettings
from paperpilot.core.settings.paths import app_paths
from tests.fixtures import pdfs


@pytest.fixture
def fixture_dir(tmp_path: Path) -> Path:
    d = tmp_path / "fixtures"
    d.mkdir()
    return d


# --- measuring ------------------------------------------------------------------------------


def _norm(s: str, lang: str) -> str:
    s = unicodedata.normalize("NFKC", s)
    return re.sub(r"\s+", "" if lang == "zh" else " ", s).strip()


def cer(ref: str, hyp: str, lang: str) -> float:
    """Character error rate: Levenshtein distance over the reference length."""
    ref, hyp = _norm(ref, lang), _norm(hyp, lang)
    prev = list(range(len(hyp) + 1))
    for i, rc in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, hc in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (rc != hc))
        prev = cur
    return prev[-1] / max(len(ref), 1)


def test_cer_counts_edits() -> None:
    assert cer("abcd", "abcd", "en") == 0
    assert cer("abcd", "abxd", "en") == 0.25
    assert cer("文字 识别", "文字识别", "zh") == 0  # spaces never count in Chinese


# --- is the text layer usable? (no OCR run) --------------------------------------------------

GOOD_LAYERS = [
    "Retrieval-augmented generation grounds a language model's answer in passages retrieved "
    "from a corpus; we evaluate it on 1,024 questions and report exact match and F1.",
    "Table of contents\n1 Introduction ........................ 1\n2 Methods ............................ 4\n"
    "3 Results ............................ 9\n4 Discussion ........................ 12",
    "许多较早的论文只有扫描版本，页面上没有文字层，研究者无法检索其中的任何一个词。",
    "Die Ergebnisse zeigen, dass die Methode auch bei verrauschten Daten zuverlässig "
    "funktioniert und die Laufzeit kaum steigt. Les résultats montrent que la méthode fonctionne.",
    "We minimise L(θ) = Σ_i (y_i − f(x_i; θ))² + λ‖θ‖² over θ ∈ R^d with step size η = 0.01, "
    "where f is a two-layer network with ReLU activations and d = 4096 parameters.",
]
GARBAGE_LAYERS = [
    pdfs.GARBAGE_LAYER,
    "\ue000\ue001\ue002 \ue003\ue004\ue005\ue006 \ue007\ue008 \ue009\ue00a\ue00b\ue00c" * 5,
    "□□□□□□□□□□ □□□□□□ □□□□□□□□ □□□□ □□□□□□□" * 3,
    "!\"#$%&'()*+ ,-./0:;<=>?@ [\\]^_` {|}~!\"#$ %&'()*+,-./ :;<=>?@[\\" * 3,
    "Xkh txlfn eurzq ira mxpsv ryhu wkh odcb grj. Wkh txlfn eurzq ira mxpsv ryhu wkh odcb grj. " * 2,
    "bcdfg hjklm npqrs tvwxz bcdfgh jklmn pqrst vwxz bcdf ghjk lmnp qrst vwxz bcd fgh jkl mnp",
]


@pytest.mark.parametrize("text", GOOD_LAYERS)
def test_a_real_text_layer_is_usable(text: str) -> None:
    assert text_layer_problem(text) == ""


@pytest.mark.parametrize("text", GARBAGE_LAYERS)
def test_a_garbage_text_layer_is_detected(text: str) -> None:
    assert text_layer_problem(text) == "garbage"


def test_too_little_text_to_judge_is_not_garbage() -> None:
    assert text_layer_problem("\ue000 3") == ""


def test_pieces_of_one_printed_line_are_merged_but_columns_stay_apart() -> None:
    pieces = [
        OcrLine("two-column", 300, 700, 360, 712),  # right column, same row
        OcrLine("The quick", 50, 700, 110, 712),
        OcrLine("brown fox", 114, 701, 170, 711),  # a word gap: same line
        OcrLine("next line", 50, 685, 110, 697),
    ]
    texts = [ln.text for ln in merge_row_pieces(pieces)]
    assert texts == ["The quick brown fox", "two-column", "next line"]
    assert merge_row_pieces([OcrLine("扫描", 0, 0, 20, 10), OcrLine("版本", 22, 0, 42, 10)])[0].text == "扫描版本"
    assert tidy_line("扫 描 版本  and  text") == "扫描版本 and text"


def test_born_digital_pages_do_not_need_ocr(fixture_dir: Path) -> None:
    for make in (pdfs.make_paper_pdf, pdfs.make_two_column_pdf, pdfs.make_chinese_pdf):
        scan = scan_pdf(make(fixture_dir))
        assert scan.ocr_pages == [], make.__name__


def test_pages_that_need_ocr_are_found_per_page(fixture_dir: Path) -> None:
    path = pdfs.make_scanned_pdf(
        fixture_dir,
        [None, pdfs.scan_image(pdfs.SCAN_EN_LINES), pdfs.scan_image(pdfs.SCAN_ZH_LINES)],
        "which.pdf",
        text_pages={0: ["A born-digital page with a real text layer of its own words."]},
        garbage_layer={2: pdfs.GARBAGE_LAYER},
    )
    scan = scan_pdf(path)
    assert [(p.number, p.ocr) for p in scan.pages] == [(1, ""), (2, "no_text"), (3, "garbage")]
    # Without OCR only the text page is imported; the garbage never reaches the text.
    ex = extract_pdf(path)
    assert [p.number for p in ex.pages] == [1] and "\ufffd" not in ex.pages[0].text


def test_blank_pages_without_images_get_a_clear_reason(fixture_dir: Path) -> None:
    path = pdfs.make_scanned_pdf(fixture_dir, [None, None], "blank.pdf")
    assert scan_pdf(path).ocr_pages == []  # nothing drawn: nothing for OCR to read
    report = _import([path], ImportSettings())
    assert report.failed == [(str(path.resolve()), "No text found on any page: the pages are blank.")]


# --- real OCR runs -----------------------------------------------------------------------------


@dataclass
class Batch:
    library: Library
    report: ImportReport
    progress: list[ImportProgress]
    files: dict[str, Path]
    db: Path


def _import(paths: list[Path], settings: ImportSettings, **kw: object) -> ImportReport:
    home = paths[0].parent / f"home-{paths[0].stem}"
    lib = Library(app_paths(home), settings=settings)
    try:
        return lib.import_paths(paths, **kw)  # type: ignore[arg-type]
    finally:
        lib.close()


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Batch]:
    """One import of every scanned fixture: eight PDFs (so the prefetching workers run too),
    nine pages for OCR."""
    d = tmp_path_factory.mktemp("scans")
    two_col = pdfs.scan_image([], columns=[pdfs.SCAN_TWO_COL_LEFT, pdfs.SCAN_TWO_COL_RIGHT])
    files = {
        "scan": pdfs.make_scanned_pdf(
            d, [pdfs.scan_image(pdfs.SCAN_EN_LINES), pdfs.scan_image(pdfs.SCAN_ZH_LINES), two_col], "scan.pdf"
        ),
        "mixed": pdfs.make_scanned_pdf(
            d,
            [None, pdfs.scan_image(pdfs.SCAN_EN_LINES)],
            "mixed.pdf",
            text_pages={0: ["Born-digital words on the first page: marmalade telescope.",
                            "A second line keeps this text layer long enough to count."]},
        ),
        "garbage": pdfs.make_scanned_pdf(
            d, [pdfs.scan_image(pdfs.SCAN_ZH_LINES)], "garbage.pdf", garbage_layer={0: pdfs.GARBAGE_LAYER}
        ),
        "blank": pdfs.make_scanned_pdf(d, [pdfs.scan_image([])], "blank_scan.pdf"),
        "photo": pdfs.make_scanned_pdf(d, [pdfs.photo_image(pdfs.SCAN_EN_LINES)], "photo.pdf"),
        "front": pdfs.make_scanned_pdf(d, [pdfs.scan_layout(pdfs.SCAN_FRONT)], "front_scan.pdf"),
        "inner": pdfs.make_scanned_pdf(d, [pdfs.scan_layout(pdfs.SCAN_INNER)], "inner_scan.pdf"),
        # The inner page again with a text layer: the same rules must hold for both.
        "inner_text": pdfs.make_scanned_pdf(
            d, [None], "inner_text.pdf", text_pages={0: [ln for ln, _size, _c in pdfs.SCAN_INNER]}
        ),
    }
    home = d / "home"
    # Small chunks keep each page's text in chunks of its own, so the tests can compare pages.
    lib = Library(app_paths(home), settings=ImportSettings(chunk_min_chars=50))
    progress: list[ImportProgress] = []
    report = lib.import_paths(list(files.values()), progress=progress.append)
    yield Batch(lib, report, progress, files, app_paths(home).database)
    lib.close()


def _doc(b: Batch, key: str) -> int:
    path = str(b.files[key].resolve())
    return next(d.doc_id for d in b.report.imported if d.path == path)


def _pages(b: Batch, key: str) -> dict[int, tuple[str, set[str]]]:
    """Page number → (its chunks' text joined, the chunks' sources), from SQLite."""
    with sqlite3.connect(b.db) as conn:
        rows = conn.execute(
            "SELECT page, text, source FROM chunks WHERE doc_id=? ORDER BY seq", (_doc(b, key),)
        ).fetchall()
    out: dict[int, tuple[str, set[str]]] = {}
    for page, text, source in rows:
        t, s = out.get(page, ("", set()))
        out[page] = ((t + " " + text).strip(), s | {source})
    return out


def test_scanned_english_and_chinese_pages_are_read_within_the_cer_target(batch: Batch) -> None:
    pages = _pages(batch, "scan")
    assert cer(pdfs.SCAN_EN_TEXT, pages[1][0], "en") <= 0.03
    assert cer(pdfs.SCAN_ZH_TEXT, pages[2][0], "zh") <= 0.03
    # Chinese is joined without spaces; the word broken at a line end is whole again.
    assert " " not in pages[2][0]
    assert "optical character reader" in pages[1][0]
    assert all(sources == {"ocr"} for _, sources in pages.values())


def test_two_columns_are_read_left_column_first(batch: Batch) -> None:
    text = _pages(batch, "scan")[3][0]
    ref = " ".join(pdfs.SCAN_TWO_COL_LEFT + pdfs.SCAN_TWO_COL_RIGHT)
    assert cer(ref, text, "en") <= 0.03
    assert text.index("before the right column") < text.index("Only then does the right one")


def test_ocr_words_are_searchable(batch: Batch) -> None:
    hits = batch.library.search("recogniser hyphenated", k=3)
    assert hits and hits[0].doc_id in (_doc(batch, "scan"), _doc(batch, "mixed"), _doc(batch, "photo"))
    assert any(h.doc_id == _doc(batch, "scan") for h in batch.library.search("光学字符识别", k=5))


def test_a_mixed_pdf_gets_ocr_only_on_its_image_page(batch: Batch) -> None:
    pages = _pages(batch, "mixed")
    assert pages[1][1] == {"text"} and "marmalade telescope" in pages[1][0]
    assert pages[2][1] == {"ocr"} and cer(pdfs.SCAN_EN_TEXT, pages[2][0], "en") <= 0.03
    path = str(batch.files["mixed"])
    assert [p.detail for p in batch.progress if p.path == path and p.detail] == ["OCR page 1 of 1"]


def test_progress_names_each_ocr_page(batch: Batch) -> None:
    path = str(batch.files["scan"])
    details = [p.detail for p in batch.progress if p.path == path and p.detail]
    assert details == ["OCR page 1 of 3", "OCR page 2 of 3", "OCR page 3 of 3"]


def test_a_garbage_text_layer_is_replaced_by_ocr(batch: Batch) -> None:
    pages = _pages(batch, "garbage")
    assert pages[1][1] == {"ocr"}
    assert cer(pdfs.SCAN_ZH_TEXT, pages[1][0], "zh") <= 0.03
    assert "zKpw" not in pages[1][0]


def test_a_photo_of_a_page_is_read(batch: Batch) -> None:
    text = _pages(batch, "photo")[1][0]
    assert cer(pdfs.SCAN_EN_TEXT, text, "en") <= 0.10


def test_blank_scanned_pages_fail_with_a_clear_reason(batch: Batch) -> None:
    reasons = dict(batch.report.failed)
    assert reasons == {str(batch.files["blank"].resolve()): "No text found on any page, even by OCR."}


def test_ocr_off_skips_scanned_pages_and_says_why(fixture_dir: Path) -> None:
    scan = pdfs.make_scanned_pdf(fixture_dir, [pdfs.scan_image(pdfs.SCAN_EN_LINES)], "off.pdf")
    mixed = pdfs.make_scanned_pdf(
        fixture_dir,
        [None, pdfs.scan_image(pdfs.SCAN_EN_LINES)],
        "off_mixed.pdf",
        text_pages={0: ["Born-digital words on the first page: marmalade telescope.",
                        "A second line keeps this text layer long enough to count."]},
    )  # fmt: skip
    progress: list[ImportProgress] = []
    report = _import([scan, mixed], ImportSettings(ocr=False), progress=progress.append)
    assert report.failed == [
        (str(scan.resolve()), "The PDF has no text layer (it looks scanned) and OCR is turned off in the settings.")
    ]
    assert [Path(d.path).name for d in report.imported] == ["off_mixed.pdf"]  # its text page
    assert not any(p.detail for p in progress)


def test_cancel_during_ocr_ends_the_workers_and_stores_nothing(fixture_dir: Path) -> None:
    path = pdfs.make_scanned_pdf(
        fixture_dir, [pdfs.scan_image(pdfs.SCAN_EN_LINES), pdfs.scan_image(pdfs.SCAN_ZH_LINES)] * 2, "long.pdf"
    )
    lib = Library(app_paths(fixture_dir / "home-cancel"), settings=ImportSettings(ocr_workers=1))
    cancel = threading.Event()
    pids: list[int] = []

    def progress(p: ImportProgress) -> None:
        if p.detail == "OCR page 1 of 4":
            pool = lib.importer._ocr_pool
            assert pool is not None and hasattr(pool, "pids")
            pids.extend(pool.pids())
            cancel.set()  # while page 1 is being read

    try:
        report = lib.import_paths([path], progress=progress, cancel=cancel)
        assert report.cancelled and not report.imported and not report.failed
        assert lib.list_documents() == []
        assert pids and lib.importer._ocr_pool is None
        for pid in pids:  # the worker was ended, not left reading the other pages
            with pytest.raises(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
    finally:
        lib.close()


def test_a_chunk_with_any_text_from_an_ocr_page_is_marked_ocr() -> None:
    from paperpilot.core.extract.chunker import chunk_pages
    from paperpilot.core.models import Page

    pages = [Page(1, "Short text-layer words.", "text"), Page(2, "Words read by OCR on the next page.", "ocr"),
             Page(3, "# Later\n\n" + "A long text-layer paragraph of its own. " * 12, "text")]  # fmt: skip
    chunks = chunk_pages(pages, min_chars=100, max_chars=800)
    assert [(c.page, c.source) for c in chunks] == [(1, "ocr"), (3, "text")]


def test_ocr_chunks_get_kinds_and_the_document_metadata_sources(batch: Batch) -> None:
    # The importer finishes a scanned PDF after OCR: structure and front matter run there too.
    with sqlite3.connect(batch.db) as conn:
        rows = conn.execute("SELECT kind, source FROM chunks WHERE doc_id=?", (_doc(batch, "scan"),)).fetchall()
    assert rows and all(kind for kind, _ in rows) and {source for _, source in rows} == {"ocr"}
    doc = batch.library.document(_doc(batch, "mixed"))
    assert doc is not None and doc.metadata_sources and doc.metadata_confidence is not None


def test_extract_pdf_reads_structure_and_front_matter(fixture_dir: Path) -> None:
    extracted = extract_pdf(pdfs.make_structured_paper_pdf(fixture_dir))
    assert extracted.structure is not None and extracted.structure.blocks
    assert extracted.metadata.title == pdfs.STRUCT_TITLE and extracted.metadata.sources.get("title")
    assert all(p.source == "text" for p in extracted.pages)


# --- scanned pages understood like born-digital ones ----------------------------------------


def test_a_scanned_first_page_gives_its_title_and_authors_read_by_ocr(batch: Batch) -> None:
    doc = batch.library.document(_doc(batch, "front"))
    assert doc is not None
    assert doc.title == pdfs.SCAN_FRONT_TITLE
    assert doc.authors == pdfs.SCAN_FRONT_AUTHORS  # the affiliation under them is no person
    assert doc.metadata_sources["title"] == doc.metadata_sources["authors"] == "ocr"
    # Read off pixels: below a text layer's confidence, and flagged for a person to check.
    assert doc.metadata_confidence is not None and doc.metadata_confidence < 0.75 and doc.check_metadata


@pytest.mark.parametrize("key", ["inner", "inner_text"])
def test_a_page_that_prints_no_title_gets_none_made_from_a_line(batch: Batch, key: str) -> None:
    doc = batch.library.document(_doc(batch, key))
    assert doc is not None
    assert doc.title == batch.files[key].stem and doc.metadata_sources["title"] == "filename"
    assert doc.check_metadata
    with sqlite3.connect(batch.db) as conn:
        kinds = [k for (k,) in conn.execute("SELECT kind FROM chunks WHERE doc_id=?", (doc.doc_id,))]
    assert "title" not in kinds


@pytest.mark.parametrize("key", ["inner", "inner_text"])
def test_a_short_first_paragraph_is_found_and_cited_by_the_offline_agent(batch: Batch, key: str) -> None:
    from paperpilot.core.agent.events import Status
    from paperpilot.core.app import Session
    from paperpilot.core.library.scoped_library import CollectionScope

    doc_id = _doc(batch, key)
    batch.library.set_tags({doc_id: [f"only-{key}"]})  # the scan and its text twin say the same
    s = Session(paths=batch.library.paths, library=batch.library)
    run = s.ask(pdfs.SCAN_INNER_QUESTION, scope=CollectionScope("tag", f"only-{key}"))
    for _event in run:
        pass
    result = run.result
    assert result is not None and result.status is Status.ANSWERED, result
    cited = [e for e in result.evidence if e.doc_id == doc_id]
    assert cited and any(pdfs.SCAN_INNER_ANSWER in e.text for e in cited)
    assert pdfs.SCAN_INNER_ANSWER in result.answer


def test_rereading_a_scanned_documents_metadata_reads_its_front_page_by_ocr_again(batch: Batch) -> None:
    from paperpilot.core.citations.model import item_from_csl
    from paperpilot.core.library.metadata import columns_for, reread_metadata

    doc_id = _doc(batch, "front")
    # What an import without OCR metadata stored: the file name for a title, no authors.
    stale = {"id": "", "type": "article", "title": "front_scan"}
    cols = columns_for(item_from_csl(stale))
    cols["authors"] = json.dumps(cols["authors"])
    with batch.library.writing() as w:
        assert w.set_csl(doc_id, json.dumps(stale), cols, provenance=({"title": "filename"}, 0.08, True))
    assert batch.library.document(doc_id).title == "front_scan"  # type: ignore[union-attr]
    update = reread_metadata(batch.library, doc_id)
    assert "title" in update.changed and "authors" in update.changed
    doc = batch.library.document(doc_id)
    assert doc is not None and doc.title == pdfs.SCAN_FRONT_TITLE and doc.authors == pdfs.SCAN_FRONT_AUTHORS
    assert doc.metadata_sources["title"] == "ocr"


def test_a_recognised_line_gets_back_the_space_after_a_bracket_and_its_italic_l() -> None:
    assert tidy_line("Kurbasic et al. Clinica/ Proteomics (2015)12:13") == "Kurbasic et al. Clinical Proteomics (2015) 12:13"
    assert tidy_line("patient 5 (blue)have two") == "patient 5 (blue) have two"
    # Real slashes and brackets stay: inside a word, at a line's end, before punctuation.
    assert tidy_line("km/h and/or f(x), see [12].") == "km/h and/or f(x), see [12]."
    assert tidy_line("input and/") == "input and/"
    assert tidy_line("光学 字符") == "光学字符"

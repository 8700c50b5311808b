"""Citations in the GUI: the metadata editor (with online lookup against a fake Crossref on
127.0.0.1), copying references and in-text citations, exporting, and an answer's references."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QMainWindow

from paperpilot.core.agent.events import Evidence, Result, Status
from paperpilot.core.citations.lookup import LookupFailed, lookup_doi
from paperpilot.core.citations.model import CslItem, CslName
from paperpilot.core.library import Library
from paperpilot.core.library.metadata import in_text, item_for_document, save_item
from paperpilot.ui import metadata_dialog
from paperpilot.ui.chat_pane import bracket_marker, number_by_document, renumber_citations
from paperpilot.ui.library_actions import EXPORT_FORMATS, export_format_for
from paperpilot.ui.metadata_dialog import LookupEndpoints, MetadataDialog
from tests.timing import bound

from .conftest import LagMeter

DOI = "10.5555/sparrows.2021"
CROSSREF_WORK: dict[str, Any] = {
    "status": "ok",
    "message-type": "work",
    "message": {
        "DOI": DOI,
        "type": "journal-article",
        "title": ["Sparrows of the Old Town"],
        "author": [
            {"given": "Elena", "family": "Varga"},
            {"given": "Tomasz", "family": "Brenner"},
            {"name": "Urban Bird Consortium"},
        ],
        "container-title": ["Journal of Urban Ecology"],
        "volume": "12",
        "issue": "3",
        "page": "45-67",
        "publisher": "Oxford University Press",
        "ISSN": ["2058-5543"],
        "URL": f"https://doi.org/{DOI}",
        "published-print": {"date-parts": [[2021, 5]]},
    },
}


# --- a fake Crossref -----------------------------------------------------------------------------


class FakeCrossref:
    """``GET /works/{doi}``: the canned work for ``DOI`` after ``delay`` seconds, else 404."""

    def __init__(self) -> None:
        self.delay = 0.0
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests.append(self.path)
                time.sleep(outer.delay)
                if self.path == f"/works/{DOI}":
                    body, status = json.dumps(CROSSREF_WORK).encode(), 200
                else:
                    body, status = b'{"status":"error","message":"Resource not found."}', 404
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, name="fake-crossref")

    def __enter__(self) -> FakeCrossref:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


@pytest.fixture
def crossref() -> Iterator[FakeCrossref]:
    with FakeCrossref() as server:
        yield server


# --- helpers -------------------------------------------------------------------------------------


def import_papers(library: Library, tmp_path: Path, titles: list[str]) -> list[int]:
    folder = tmp_path / "papers"
    folder.mkdir(exist_ok=True)
    paths = []
    for i, title in enumerate(titles):
        p = folder / f"paper{i}.md"
        p.write_text(
            f"# {title}\n\n## Observations\n\nVolunteers counted {10 + i} kestrels on church towers "
            "and watched them hunt voles along the river meadows at dusk.\n",
            encoding="utf-8",
        )
        paths.append(p)
    library.import_paths(paths)
    by_title = {d.title: d.doc_id for d in library.all_documents()}
    return [by_title[t] for t in titles]


def describe(library: Library, doc_ids: list[int]) -> None:
    """Two journal articles with everything the styles need (one by a Chinese author)."""
    save_item(
        library,
        doc_ids[0],
        CslItem.model_validate(
            {
                "type": "article-journal",
                "title": "Kestrels on cathedral spires",
                "author": [{"family": "Linde", "given": "Rosa"}, {"family": "Sommer", "given": "Karl"}],
                "container-title": "Raptor Notes",
                "volume": "7",
                "issue": "2",
                "page": "10-19",
                "issued": {"date-parts": [[2018]]},
                "DOI": "10.5555/kestrel.1",
                "language": "en-US",
            }
        ),
    )
    save_item(
        library,
        doc_ids[1],
        CslItem.model_validate(
            {
                "type": "article-journal",
                "title": "城市公园鸟类多样性",
                "author": [{"literal": "张伯伟"}],
                "container-title": "生态学报",
                "volume": "39",
                "issue": "4",
                "page": "1-9",
                "issued": {"date-parts": [[2019]]},
                "language": "zh-CN",
            }
        ),
    )


def action_for(window: QMainWindow, shortcut: str) -> QAction:
    wanted = QKeySequence(shortcut)
    found = [a for a in window.findChildren(QAction) if a.shortcut() == wanted]
    assert len(found) == 1, f"{shortcut}: {[a.text() for a in found]}"
    return found[0]


def press(qtbot: Any, window: Any, shortcut: str) -> None:
    """Type ``shortcut`` into the library table and check that it reached its menu action."""
    act = action_for(window, shortcut)
    window.activateWindow()
    seq = QKeySequence(shortcut)[0]
    with qtbot.waitSignal(act.triggered, timeout=1000):
        qtbot.keyClick(window.library_pane.table, seq.key(), seq.keyboardModifiers())


# --- the metadata dialog -------------------------------------------------------------------------


def test_metadata_dialog_round_trip(library: Library, qtbot: Any, tmp_path: Path) -> None:
    (doc_id,) = import_papers(library, tmp_path, ["Field report number one"])
    # A CSL variable the editor has no field for must survive the edit.
    item = item_for_document(library, doc_id).model_copy(update={"original-title": "Rapport de terrain"})
    save_item(library, doc_id, item)

    dlg = MetadataDialog(library, doc_id, style="apa")
    qtbot.addWidget(dlg)
    dlg.set_type("paper-conference")
    assert dlg.container_label.text() == "Proceedings:"
    dlg.title_edit.setText("Kestrels   on Cathedral Spires")
    dlg.authors.set_names([])
    dlg.authors.add_name("Sommer", "Karl")
    dlg.authors.add_name(literal="张伯伟")
    row = dlg.authors.add_name()
    dlg.authors.table.item(row, dlg.authors.FAMILY).setText("Linde")
    dlg.authors.table.item(row, dlg.authors.GIVEN).setText("Rosa")
    dlg.authors.move_row(row, -1)  # Linde before 张伯伟
    dlg.authors.move_row(0, +1)  # Sommer after Linde
    dlg.authors.add_name("Nobody")
    dlg.authors.remove_row(3)
    dlg.edits["container_title"].setText("Proceedings of the Raptor Workshop")
    dlg.edits["page"].setText("10-19")
    dlg.year_spin.setValue(2018)
    dlg.month_spin.setValue(6)
    dlg.doi_edit.setText("https://doi.org/10.5555/Kestrel.1")
    dlg.accessed_edit.setText("2024-03-01")
    dlg.language_combo.setCurrentText("en-US")
    dlg.update_preview()
    assert "Kestrels on Cathedral Spires" in dlg.preview_text()
    assert "Proceedings of the Raptor Workshop" in dlg.preview_text()

    dlg.accept()
    # Saved in a worker (a write may wait for another process's lock); the dialog closes after.
    qtbot.waitUntil(lambda: dlg.result() == QDialog.DialogCode.Accepted, timeout=10_000)

    saved = item_for_document(library, doc_id)
    assert saved.type == "paper-conference"
    assert saved.title == "Kestrels on Cathedral Spires"
    assert saved.author == [
        CslName(family="Linde", given="Rosa"),
        CslName(family="Sommer", given="Karl"),
        CslName(literal="张伯伟"),
    ]
    assert saved.container_title == "Proceedings of the Raptor Workshop"
    assert saved.DOI == "10.5555/Kestrel.1"
    assert saved.issued == {"date-parts": [[2018, 6]]}
    assert saved.accessed == {"date-parts": [[2024, 3, 1]]}
    assert saved.to_csl()["original-title"] == "Rapport de terrain"
    doc = library.document(doc_id)
    assert doc is not None and doc.title == "Kestrels on Cathedral Spires" and doc.year == 2018
    hits = library.search("cathedral spires", 3)
    assert hits and hits[0].doc_id == doc_id


def test_metadata_dialog_keeps_the_user_on_bad_input(library: Library, qtbot: Any, tmp_path: Path) -> None:
    (doc_id,) = import_papers(library, tmp_path, ["Field report number one"])
    dlg = MetadataDialog(library, doc_id)
    qtbot.addWidget(dlg)
    for field, value, words in (
        ("title", "   ", "title"),
        ("DOI", "not a doi", "doi"),
        ("arxiv", "spam", "arxiv"),
    ):
        dlg.edits[field].setText(value)
        dlg.accept()
        assert dlg.result() != QDialog.DialogCode.Accepted
        assert not dlg.error_label.isHidden() and words in dlg.error_label.text().lower()
        dlg.edits[field].setText("Fine title" if field == "title" else "")
    dlg.accessed_edit.setText("1st of May")
    dlg.accept()
    assert "YYYY-MM-DD" in dlg.error_label.text()
    assert item_for_document(library, doc_id).title == "Field report number one"


def test_edit_metadata_from_the_context_menu_uses_the_editor(
    window: Any, library: Library, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = import_papers(library, tmp_path, ["Field report number one", "Field report number two"])
    window.refresh_library()
    pane = window.library_pane
    pane.set_citation_style("gbt7714-2015-numeric")
    seen: list[str] = []

    def fill_and_accept(dlg: MetadataDialog) -> int:
        seen.append(dlg.style_name)
        dlg.title_edit.setText("Kestrels on Cathedral Spires")
        dlg.accept()
        qtbot.waitUntil(lambda: not dlg.is_saving(), timeout=10_000)  # as exec() runs until done
        return int(dlg.result())

    monkeypatch.setattr(MetadataDialog, "exec", fill_and_accept)
    pane.select_ids([ids[0]])
    menu = pane.build_context_menu()
    assert [a.text() for a in menu.actions() if a.text()] == [
        "Open", "Open File", "Show in Folder", "Edit Metadata…", "Notes…", "Papers in My Library That Cite This",
        "Copy Reference", "Copy In-text Citation", "Export Selection…",
        "Re-read Metadata from File", "Retrieve Metadata Online", "Add Tag…", "Add to Collection",
        "Move to Trash",
    ]  # fmt: skip
    next(a for a in menu.actions() if a.text() == "Edit Metadata…").trigger()
    assert seen == ["gbt7714-2015-numeric"]
    titles = [pane.model.document_at(r).title for r in range(pane.model.rowCount())]
    assert "Kestrels on Cathedral Spires" in titles

    pane.select_ids(ids)
    labels = [a.text() for a in pane.build_context_menu().actions() if a.text()]
    assert "Copy References" in labels and "Copy In-text Citations" in labels


# --- online lookup -------------------------------------------------------------------------------


def test_doi_lookup_fills_empty_fields_without_blocking(
    library: Library, qtbot: Any, tmp_path: Path, crossref: FakeCrossref, lag_meter: LagMeter
) -> None:
    (doc_id,) = import_papers(library, tmp_path, ["Sparrows in the old town"])
    dlg = MetadataDialog(library, doc_id, endpoints=LookupEndpoints(crossref_url=crossref.url, timeout=5))
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.authors.set_names([])
    dlg.edits["volume"].setText("99")  # the user's own value stays
    dlg.doi_edit.setText(f"doi:{DOI}")
    crossref.delay = 0.6

    lag_meter.start()
    with qtbot.waitSignal(dlg.lookup_done, timeout=5000) as done:
        dlg.doi_button.click()
        assert dlg.is_looking_up()
        assert dlg.lookup_label.text() == "Looking up…" and not dlg.lookup_spinner.isHidden()
        assert not dlg.doi_button.isEnabled()
    lag_meter.stop()

    assert crossref.requests == [f"/works/{DOI}"]
    # The fake server answers after 0.6 s: a lookup on the GUI thread would stall it that long.
    assert lag_meter.ticks > 20 and lag_meter.max_gap_ms < bound(250), lag_meter.max_gap_ms
    assert done.args[0] is True
    assert not dlg.is_looking_up() and dlg.lookup_spinner.isHidden()
    assert dlg.title_edit.text() == "Sparrows in the old town"  # not empty: not replaced
    assert dlg.edits["volume"].text() == "99"
    assert dlg.current_type() == "article-journal"
    assert dlg.edits["container_title"].text() == "Journal of Urban Ecology"
    assert (dlg.edits["issue"].text(), dlg.edits["page"].text()) == ("3", "45-67")
    assert (dlg.year_spin.value(), dlg.month_spin.value()) == (2021, 5)
    assert [n.display() for n in dlg.authors.names()] == [
        "Elena Varga",
        "Tomasz Brenner",
        "Urban Bird Consortium",
    ]
    for label in ("Journal", "Issue", "Pages", "Authors", "Date", "Publisher", "ISSN"):
        assert label in dlg.filled_fields
        assert label in dlg.lookup_label.text()
    assert "Volume" not in dlg.filled_fields and "Title" not in dlg.filled_fields
    # Nothing is stored until Save.
    assert item_for_document(library, doc_id).container_title == ""
    dlg.accept()
    qtbot.waitUntil(lambda: dlg.result() == QDialog.DialogCode.Accepted, timeout=10_000)
    saved = item_for_document(library, doc_id)
    assert (saved.container_title, saved.volume, saved.publisher) == (
        "Journal of Urban Ecology",
        "99",
        "Oxford University Press",
    )


def test_failed_lookup_shows_its_message(
    library: Library, qtbot: Any, tmp_path: Path, crossref: FakeCrossref
) -> None:
    (doc_id,) = import_papers(library, tmp_path, ["Sparrows in the old town"])
    dlg = MetadataDialog(library, doc_id, endpoints=LookupEndpoints(crossref_url=crossref.url, timeout=5))
    qtbot.addWidget(dlg)
    missing = "10.5555/no.such.work"
    with pytest.raises(LookupFailed) as expected:
        lookup_doi(missing, base_url=crossref.url, timeout=5)
    dlg.doi_edit.setText(missing)
    with qtbot.waitSignal(dlg.lookup_done, timeout=5000) as done:
        dlg.doi_button.click()
    assert done.args == [False, expected.value.message]
    assert dlg.lookup_label.text() == expected.value.message
    assert dlg.doi_button.isEnabled() and dlg.lookup_spinner.isHidden()

    # Offline: nothing listens on the port any more.
    port_closed = LookupEndpoints(crossref_url="http://127.0.0.1:9", timeout=2)
    dlg.endpoints = port_closed
    dlg.doi_edit.setText(DOI)
    with qtbot.waitSignal(dlg.lookup_done, timeout=5000) as done:
        dlg.doi_button.click()
    assert done.args[0] is False and "127.0.0.1" in dlg.lookup_label.text()


def test_closing_the_dialog_mid_lookup_neither_blocks_nor_leaks(
    library: Library, qtbot: Any, tmp_path: Path, crossref: FakeCrossref
) -> None:
    (doc_id,) = import_papers(library, tmp_path, ["Sparrows in the old town"])
    dlg = MetadataDialog(library, doc_id, endpoints=LookupEndpoints(crossref_url=crossref.url, timeout=5))
    qtbot.addWidget(dlg)
    dlg.doi_edit.setText(DOI)
    crossref.delay = 0.8
    dlg.doi_button.click()
    qtbot.waitUntil(lambda: len(crossref.requests) == 1, timeout=3000)
    started = time.perf_counter()
    dlg.reject()
    assert time.perf_counter() - started < 0.5
    assert not dlg.is_looking_up()
    metadata_dialog.stop_lookups(5000)  # what the main window does on exit
    QApplication.processEvents()
    assert item_for_document(library, doc_id).container_title == ""


# --- copying and exporting references ------------------------------------------------------------


@pytest.mark.parametrize(
    ("style", "expected_text", "expected_html"),
    [
        (
            "apa",
            [
                "Linde, R., & Sommer, K. (2018). Kestrels on cathedral spires. Raptor Notes, 7(2), 10–19.",
                "张伯伟",
            ],
            "<i>Raptor Notes</i>",
        ),
        # GB/T 7714 prints nothing in italics: its HTML is the plain entry, numbered.
        (
            "gbt7714-2015-numeric",
            ["[1] LINDE R, SOMMER K.", "[2] 张伯伟. 城市公园鸟类多样性[J]"],
            "<p>[2] 张伯伟.",
        ),
    ],
)
def test_copy_references_shortcut(
    window: Any,
    library: Library,
    qtbot: Any,
    tmp_path: Path,
    style: str,
    expected_text: list[str],
    expected_html: str,
) -> None:
    ids = import_papers(library, tmp_path, ["Field report number one", "Field report number two"])
    describe(library, ids)
    window.refresh_library()
    pane = window.library_pane
    pane.set_citation_style(style)
    pane.select_ids(ids)
    QApplication.clipboard().clear()
    press(qtbot, window, "Ctrl+Shift+C")
    mime = QApplication.clipboard().mimeData()
    assert mime.hasHtml() and mime.hasText()
    lines = mime.text().splitlines()
    assert len(lines) == 2, lines
    for fragment in expected_text:
        assert fragment in mime.text(), (fragment, mime.text())
    assert expected_html in mime.html()
    assert "Copied 2 reference(s)" in window.statusBar().currentMessage()


def test_copy_in_text_shortcut(window: Any, library: Library, qtbot: Any, tmp_path: Path) -> None:
    ids = import_papers(library, tmp_path, ["Field report number one", "Field report number two"])
    describe(library, ids)
    window.refresh_library()
    pane = window.library_pane
    pane.select_ids(ids)
    press(qtbot, window, "Ctrl+Shift+A")
    apa = QApplication.clipboard().text()
    assert apa == in_text(library, ids, "apa")
    assert apa.startswith("(") and "Linde & Sommer, 2018" in apa and "张伯伟" in apa
    pane.set_citation_style("gbt7714-2015-numeric")
    press(qtbot, window, "Ctrl+Shift+A")
    numeric = QApplication.clipboard().text()
    assert numeric == in_text(library, ids, "gbt7714-2015-numeric")
    assert numeric.startswith("[") and "1" in numeric and "2" in numeric


def test_no_selection_says_so(window: Any, library: Library, qtbot: Any, tmp_path: Path) -> None:
    import_papers(library, tmp_path, ["Field report number one"])
    window.refresh_library()
    QApplication.clipboard().setText("untouched")
    window.copy_references_action.trigger()
    assert QApplication.clipboard().text() == "untouched"
    assert "Select the documents" in window.statusBar().currentMessage()


def test_export_selection_and_library(
    window: Any, library: Library, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paperpilot.core.citations.bibtex import parse_bibtex

    ids = import_papers(library, tmp_path, ["Field report number one", "Field report number two", "Third"])
    describe(library, ids)
    window.refresh_library()
    window.library_pane.select_ids(ids[:2])
    chosen: list[tuple[str, str]] = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: chosen.pop(0)))

    chosen.append((str(tmp_path / "refs"), "BibTeX (*.bib)"))  # no suffix: the filter decides
    window.export_selection_action.trigger()
    bib = (tmp_path / "refs.bib").read_text(encoding="utf-8")
    parsed = parse_bibtex(bib)
    assert not parsed.errors
    assert [i.title for i in parsed.items] == ["Kestrels on cathedral spires", "城市公园鸟类多样性"]
    assert parsed.items[0].DOI == "10.5555/kestrel.1"

    chosen.append((str(tmp_path / "all"), "RIS (*.ris)"))
    window.export_library_action.trigger()
    ris = (tmp_path / "all.ris").read_text(encoding="utf-8")
    assert ris.count("TY  - ") == 3 and "Third" in ris

    chosen.append((str(tmp_path / "sel.json"), "BibTeX (*.bib)"))  # a typed suffix wins
    next(
        a for a in window.library_pane.build_context_menu().actions() if a.text() == "Export Selection…"
    ).trigger()
    data = json.loads((tmp_path / "sel.json").read_text(encoding="utf-8"))
    assert [d["title"] for d in data] == ["Kestrels on cathedral spires", "城市公园鸟类多样性"]


def test_export_format_for_paths() -> None:
    assert [f for f, _, _ in EXPORT_FORMATS] == ["bibtex", "ris", "csl-json"]
    assert export_format_for(Path("/x/refs"), "RIS (*.ris)") == ("ris", Path("/x/refs.ris"))
    assert export_format_for(Path("/x/refs.BIB"), "RIS (*.ris)") == ("bibtex", Path("/x/refs.BIB"))
    assert export_format_for(Path("/x/v1.2"), "CSL-JSON (*.json)") == ("csl-json", Path("/x/v1.2.json"))
    assert export_format_for(Path("/x/refs"), "") == ("bibtex", Path("/x/refs.bib"))


# --- an answer's references ----------------------------------------------------------------------


def _evidence(number: int, doc_id: int, verified: bool = True) -> Evidence:
    return Evidence(
        number=number, id=f"d{doc_id}:{number}", doc_id=doc_id, title=f"Doc {doc_id}", page=number,
        text="…", verified=verified,
    )  # fmt: skip


def test_number_by_document_and_renumbering() -> None:
    # Passages 1 and 3 come from document 20, passage 2 from document 10, 4 is never cited.
    evidence = [_evidence(1, 20), _evidence(2, 10), _evidence(3, 20), _evidence(4, 30)]
    answer = "Alpha [1]. Beta [2][3]. Gamma [3]. Delta [2, 1]. Year [2020]. Slip [9]. Mixed [9, 2]."
    cited = number_by_document(answer, evidence)
    assert cited.doc_ids == [20, 10]
    assert cited.numbers == {1: 1, 2: 2, 3: 1}
    assert renumber_citations(answer, cited) == (
        "Alpha [1]. Beta [1, 2]. Gamma [1]. Delta [1, 2]. Year [2020]. Slip [9]. Mixed [2]."
    )
    # The marker callback gets the documents and their entry numbers, in entry order.
    calls: list[tuple[list[int], list[int]]] = []

    def marker(doc_ids: list[int], numbers: list[int]) -> str:
        calls.append((doc_ids, numbers))
        return bracket_marker(doc_ids, numbers)

    renumber_citations("See [3][2].", cited, marker)
    assert calls == [([20, 10], [1, 2])]
    # First citation decides, not the evidence number.
    assert number_by_document("B [2] then A [1].", evidence).doc_ids == [10, 20]
    # No markers at all: the verified evidence, one entry per document.
    fallback = number_by_document("No markers.", [*evidence, _evidence(5, 40, verified=False)])
    assert fallback.doc_ids == [20, 10, 30]


@pytest.mark.parametrize("style", ["gbt7714-2015-numeric", "apa"])
def test_copy_answer_with_references_uses_the_style(
    window: Any, library: Library, qtbot: Any, tmp_path: Path, style: str
) -> None:
    ids = import_papers(library, tmp_path, ["Field report number one", "Field report number two"])
    describe(library, ids)
    kestrels, parks = ids
    result = Result(
        question="Where do kestrels nest?",
        status=Status.ANSWERED,
        answer="Kestrels nest on spires [1]. Parks hold many species [2][3]. Spires again [3].",
        evidence=[_evidence(1, kestrels), _evidence(2, parks), _evidence(3, kestrels)],
    )
    window.chat_pane.show_result(result)
    window.library_pane.set_citation_style(style)
    press(qtbot, window, "Ctrl+Alt+C")
    mime = QApplication.clipboard().mimeData()
    text, body = mime.text(), mime.html()
    answer, refs = text.split("\n\nReferences\n")
    refs_lines = refs.strip().splitlines()
    assert len(refs_lines) == 2  # one entry per document, though three passages were cited
    one = in_text(library, [kestrels], style, [1])
    both = in_text(library, [kestrels, parks], style, [1, 2])
    assert answer == f"Kestrels nest on spires {one}. Parks hold many species {both}. Spires again {one}."
    assert "Kestrels on cathedral spires" in refs_lines[0] and "城市公园鸟类多样性" in refs_lines[1]
    if style.startswith("gbt"):
        assert refs_lines[0].startswith("[1] ") and refs_lines[1].startswith("[2] ")
        assert one == "[1]"
    else:
        assert one.startswith("(Linde")
    assert "<b>References</b>" in body and "cite:" not in body
    # The HTML carries the style's own markup: italics in APA, none in GB/T.
    assert ("<i>Raptor Notes</i>" in body) == (style == "apa")


def test_copy_answer_without_a_formatter_keeps_the_simple_list(window: Any, qtbot: Any) -> None:
    result = Result(
        question="q",
        status=Status.ANSWERED,
        answer="Kestrels nest on spires [1].",
        evidence=[_evidence(1, 5)],
    )
    window.chat_pane.set_reference_formatter(None)
    window.chat_pane.show_result(result)
    window.chat_pane.copy_answer()
    assert "[1] Doc 5, p. 1" in QApplication.clipboard().text()


def test_copy_answer_falls_back_when_a_source_is_gone(window: Any, qtbot: Any) -> None:
    result = Result(
        question="q",
        status=Status.ANSWERED,
        answer="Kestrels nest on spires [1].",
        evidence=[_evidence(1, 999)],
    )
    window.chat_pane.show_result(result)
    window.copy_answer_action.trigger()
    assert "[1] Doc 999, p. 1" in QApplication.clipboard().text()
    assert "could not be formatted" in window.chat_pane.progress_label.text()


def test_settings_style_reaches_the_library_pane(window: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from paperpilot.core.settings.config import Settings, UISettings
    from paperpilot.ui import settings_dialog

    chosen = Settings(ui=UISettings(citation_style="ieee"))

    class FakeDialog:
        def __init__(self, *args: Any) -> None:
            pass

        def exec(self) -> int:
            return 1

        def result_settings(self) -> Settings:
            return chosen

    monkeypatch.setattr(settings_dialog, "SettingsDialog", FakeDialog)
    window.on_settings_triggered()
    assert window.library_pane.citation_style() == "ieee"
    window.library_pane.set_citation_style("no-such-style")
    assert window.library_pane.citation_style() == "apa"


def test_type_labels_cover_every_type() -> None:
    from paperpilot.core.citations.model import ITEM_TYPES

    assert set(metadata_dialog.TYPE_LABELS) >= set(ITEM_TYPES)
    assert metadata_dialog.TYPE_LABELS["article"] == "Preprint"

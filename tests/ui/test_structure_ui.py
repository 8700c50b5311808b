"""The structure of papers in the GUI: the Evidence tab shows a passage's kind and section path,
the References tab the selected paper's reference list, and the library's context menu finds
the papers that cite one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from paperpilot.core.agent.events import Evidence, Result, Status
from paperpilot.core.library import Library
from tests.fixtures import pdfs


def _import(library: Library, tmp_path: Path) -> tuple[int, int]:
    src = tmp_path / "src"
    src.mkdir()
    report = library.import_paths([pdfs.make_structured_paper_pdf(src), pdfs.make_citing_paper_pdf(src)])
    assert not report.failed
    ids = {d.title: d.doc_id for d in library.list_documents()}
    return ids[pdfs.STRUCT_TITLE], ids[pdfs.CITING_TITLE]


def test_evidence_shows_kind_and_section_path(window: Any, qapp: QApplication) -> None:
    ev = Evidence(number=1, id="P1", doc_id=1, title="A paper", section="2.1 Training", page=2, segment=5,
                  text="We train the lattice model with a small learning rate.", kind="body",
                  section_path="2 Method > 2.1 Training")  # fmt: skip
    window.inspector.show_result(Result(question="How is it trained?", status=Status.ANSWERED, answer="x [1]", evidence=[ev]))
    item = window.inspector.evidence_list.item(0).text()
    assert "§ 2 Method > 2.1 Training" in item and "body" in item
    html = window.inspector.passage_view.toHtml()
    assert "Kind" in html and "2 Method &gt; 2.1 Training" in html


def test_references_tab_and_cited_by(window: Any, library: Library, qapp: QApplication, tmp_path: Path) -> None:
    struct, citing = _import(library, tmp_path)
    pane = window.library_pane
    pane.refresh()
    pane.select_ids([citing])
    qapp.processEvents()
    refs = window.inspector.references_list
    assert refs.count() == 2
    texts = [refs.item(i).text() for i in range(refs.count())]
    assert any(pdfs.STRUCT_TITLE in t and f"(doc {struct})" in t for t in texts)
    assert "1 in your library" in window.inspector.references_label.text()

    pane.select_ids([struct])
    qapp.processEvents()
    assert refs.count() == 3 and "[3] T. Okoro" in refs.item(2).text()
    menu = pane.build_context_menu()
    assert menu is not None
    action = next(a for a in menu.actions() if a.text() == "Papers in My Library That Cite This")
    messages: list[str] = []
    pane.message.connect(messages.append)
    action.trigger()
    assert pane.selected_ids() == [citing]
    assert messages and "1 document(s) in your library cite" in messages[-1]
    menu.deleteLater()

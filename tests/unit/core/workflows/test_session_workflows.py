"""The Session's door to the workflows: the one implementation the matrix and draft windows and
``paperpilot matrix`` / ``draft`` call gives what the workflow modules give, and says no in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from docx import Document
from openpyxl import load_workbook

from paperpilot.core.api import Draft, PaperSelection, column
from paperpilot.core.app import Session
from paperpilot.core.errors import InvalidInput
from paperpilot.core.workflows.export import draft_markdown, matrix_csv, matrix_markdown
from paperpilot.core.workflows.matrix import group_rows

from .conftest import doc_id


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERPILOT_TODAY", "2024-06-01")


def test_a_matrix_through_the_session(session: Session, tmp_path: Path) -> None:
    seg, den = doc_id(session, "Transformer"), doc_id(session, "Diffusion")
    cols = [column("Data", "What data were used?"), column("Results", "What are the main results?")]
    m = session.create_matrix(PaperSelection(doc_ids=[seg, den]), cols, title="Two papers")
    assert [r.doc_id for r in m.rows] == [seg, den] and m.title == "Two papers"
    progress = list(session.run_matrix(m))
    assert progress[-1].done == progress[-1].total == 4 and not m.pending()
    # Reopened from the store, with the references numbered by row in the session's style.
    again = session.open_matrix(m.id)
    refs = session.matrix_references(again)
    assert [(r.n, r.doc_id) for r in refs] == [(1, seg), (2, den)]
    assert refs[0].text == session.reference_entries([seg])[0]
    assert session.matrix_text(again, "md") == matrix_markdown(again, refs)
    assert session.matrix_text(again, "csv") == matrix_csv(again, refs)
    grouped = session.matrix_text(again, "md", group_by="year")
    assert all(f"### {name} ({len(rows)})" in grouped for name, rows in group_rows(again, "year"))
    assert grouped.endswith("\n".join(f"[{r.n}] {r.text}" for r in refs) + "\n")
    with pytest.raises(InvalidInput, match="unknown matrix format"):
        session.matrix_text(again, "pdf")
    # Files by their suffix; a folder that is not there yet is made for the text formats.
    assert session.export_matrix(again, tmp_path / "out" / "m.csv").read_bytes().decode() == matrix_csv(again, refs)
    assert session.export_matrix(again, tmp_path / "m.md").read_text(encoding="utf-8") == matrix_markdown(again, refs)
    sheet = load_workbook(session.export_matrix(again, tmp_path / "m.xlsx")).worksheets[0]
    assert sheet.max_row >= 3
    with pytest.raises(InvalidInput, match=r"m\.pdf: export as \.xlsx, \.csv or \.md"):
        session.export_matrix(again, tmp_path / "m.pdf")


def test_matrix_columns_and_column_sets_through_the_session(session: Session) -> None:
    m = session.create_matrix(PaperSelection(doc_ids=[doc_id(session, "Transformer")]))
    assert [c.key for c in m.columns][:2] == ["objective", "method"]  # the standard columns
    session.save_column_set("just data", [column("Data", "What data were used?")])
    assert "just data" in session.column_sets()
    assert [c.name for c in session.load_column_set("just data")] == ["Data"]
    m = session.use_column_set(m, "just data")
    assert [c.name for c in m.columns] == ["Data"]
    m = session.edit_matrix_columns(m, [column("Data", "What data were used?"), column("Sample size", "How many?")])
    assert [c.name for c in session.open_matrix(m.id).columns] == ["Data", "Sample size"]
    made = session.create_matrix(PaperSelection(doc_ids=[doc_id(session, "Diffusion")]), column_set="just data")
    assert [c.name for c in made.columns] == ["Data"]
    assert len(session.scope_documents(PaperSelection(doc_ids=[doc_id(session, "Diffusion")]))) == 1


def test_a_draft_through_the_session(session: Session, tmp_path: Path) -> None:
    seg = doc_id(session, "Transformer")
    runs = list(session.write_draft("deep learning for medical images", "review-en", PaperSelection(doc_ids=[seg])))
    draft = runs[-1]
    assert isinstance(draft, Draft) and draft.status == "done"
    assert session.saved_draft(draft.id)["template"] == "review-en"
    shown = session.open_draft(draft.id)
    assert shown.remaining == 0 and draft_markdown(shown.draft) == draft_markdown(draft)
    md = session.export_draft(draft, tmp_path / "new" / "d.md", appendix=True)
    assert md.read_text(encoding="utf-8") == draft_markdown(draft, appendix=True)
    doc = Document(str(session.export_draft(draft, tmp_path / "d.docx")))
    assert any(p.text for p in doc.paragraphs)
    with pytest.raises(InvalidInput, match=r"d\.pdf: save the draft as \.docx or \.md"):
        session.export_draft(draft, tmp_path / "d.pdf")


def test_saved_workflows_listed_renamed_and_deleted_through_the_session(session: Session) -> None:
    m = session.create_matrix(PaperSelection(doc_ids=[doc_id(session, "Transformer")]), title="First")
    assert [(i.id, i.title) for i in session.saved_workflows("matrix")] == [(m.id, "First")]
    session.rename_workflow("matrix", m.id, "  Renamed   matrix ")
    assert session.saved_workflows("matrix")[0].title == "Renamed matrix"
    assert session.saved_workflows("draft") == []
    session.delete_workflow("matrix", m.id)
    assert session.saved_workflows("matrix") == []

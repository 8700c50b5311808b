"""The literature matrix: scoped agent runs per cell, verified citations, resume, column edits, exports."""

from __future__ import annotations

import csv
import io
import threading
from pathlib import Path

import pytest

from paperpilot.core.app import Session
from paperpilot.core.errors import InvalidInput
from paperpilot.core.text.kinds import answerable, classify_passage
from paperpilot.core.workflows import matrix as matrix_mod
from paperpilot.core.workflows.cells import ScopedPool
from paperpilot.core.workflows.export import (
    Reference,
    matrix_csv,
    matrix_html,
    matrix_markdown,
    matrix_tsv,
    matrix_xlsx,
)
from paperpilot.core.workflows.matrix import (
    Matrix,
    column,
    create_matrix,
    default_columns,
    edit_columns,
    group_rows,
    load_column_set,
    open_matrix,
    run_matrix,
    save_column_set,
    set_columns,
)
from paperpilot.core.workflows.selection import PaperSelection

from .conftest import doc_id


def _fill(s: Session, scope: PaperSelection, columns: list | None = None) -> Matrix:
    m = create_matrix(s.workflows, s.library, scope, columns)
    list(run_matrix(s.workflows, m, s.library))
    return m


def _cell(m: Matrix, doc: int, key: str):  # type: ignore[no-untyped-def]
    c = m.cell(doc, key)
    assert c is not None
    return c


def test_default_matrix_finds_the_papers_cells_with_their_pages(session: Session) -> None:
    seg, silent = doc_id(session, "Transformer"), doc_id(session, "Convolutional")
    m = _fill(session, PaperSelection())
    assert [c.key for c in m.columns] == ["objective", "method", "data", "evaluation", "results", "limitations"]
    assert not m.pending() and len(m.cells) == 18
    results = _cell(m, seg, "results")
    assert results.status == "found" and "0.912" in results.text
    # The main result as the abstract states it (page 1) and as the Results section does (page 3).
    assert {(e.doc_id, e.page) for e in results.evidence} <= {(seg, 1), (seg, 3)}
    assert (seg, 3) in {(e.doc_id, e.page) for e in results.evidence} or "ahead of the convolutional" in results.text
    data = _cell(m, seg, "data")
    assert "LiTS dataset of 131" in data.text and data.evidence[0].page == 2
    method = _cell(m, seg, "method")
    assert "shifted-window transformer encoder" in method.text and method.evidence[0].page == 2
    limit = _cell(m, seg, "limitations")
    assert "one hospital" in limit.text and limit.evidence[0].page == 3
    # Every cited passage is from the row's own paper and holds the cell's sentence.
    for (doc, _key), cell in m.cells.items():
        for e in cell.evidence:
            assert e.doc_id == doc
        if cell.status == "found":
            first = cell.text.split(". ")[0][:40]
            assert any(first in " ".join(e.text.split()) for e in cell.evidence), cell
    # The paper without a limitations statement: not stated, no evidence (never invented).
    silent_limit = _cell(m, silent, "limitations")
    assert silent_limit.status == "not_stated" and silent_limit.text == "not stated in this paper"
    assert silent_limit.evidence == []


def test_no_cell_comes_from_a_reference_list(session: Session) -> None:
    m = _fill(session, PaperSelection())
    bait = ("Cuebait", "Zeppelin", "99.9%", "decoy", "Novak")
    for cell in m.cells.values():
        assert not any(b in cell.text for b in bait), cell.text
        for e in cell.evidence:
            assert e.section.lower() != "references"
            assert answerable(classify_passage(e.text, e.section)), e


def test_cells_are_scoped_agent_runs_over_one_paper(session: Session) -> None:
    seg = doc_id(session, "Transformer")
    pool = ScopedPool(session.library, [seg])
    assert [d.doc_id for d in pool.list_documents()] == [seg]
    hits = pool.search("dataset scans limitation", 10)
    assert hits and {h.doc_id for h in hits} == {seg}
    other = next(d.doc_id for d in session.library.list_documents() if d.doc_id != seg)
    assert pool.search("dataset", 10, doc_ids=[other]) == []
    with pytest.raises(Exception, match="not among the papers"):
        pool.read(other, 0)


def test_sample_library_matrix(sample_session: Session) -> None:
    s = sample_session
    sparrow = doc_id(s, "House Sparrow")
    zh = doc_id(s, "城市公园")
    m = _fill(s, PaperSelection(doc_ids=[sparrow, zh]))
    results = _cell(m, sparrow, "results")
    assert results.status == "found" and "412 breeding pairs" in results.text and "57%" in results.text
    # A Chinese paper is asked in Chinese and says "not stated" in Chinese.
    zh_method = _cell(m, zh, "method")
    assert zh_method.question == "本文采用了什么方法？"
    assert zh_method.status == "found" and "样线法" in zh_method.text
    assert all(c.text == "本文未说明" for (d, _k), c in m.cells.items() if d == zh and c.status == "not_stated")


def test_reopen_shows_the_saved_cells_without_running(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    m = _fill(session, PaperSelection())
    calls: list[int] = []
    real = matrix_mod.ask_papers
    monkeypatch.setattr(matrix_mod, "ask_papers", lambda *a, **k: calls.append(1) or real(*a, **k))
    again = open_matrix(session.workflows, m.id)
    assert again.cells == m.cells and again.columns == m.columns
    assert list(run_matrix(session.workflows, again, session.library)) == [] and calls == []


def test_a_changed_column_reruns_only_that_column(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    m = _fill(session, PaperSelection())
    before = dict(m.cells)
    asked: list[str] = []
    real = matrix_mod.ask_papers
    monkeypatch.setattr(matrix_mod, "ask_papers", lambda ask, *a, **k: asked.append(ask.question) or real(ask, *a, **k))
    # Rename one column, reorder, change another's question.
    cols = edit_columns(m, [
        column("Datasets", "Which datasets were used?"),  # new name: a new column
        *[c for c in m.columns if c.key != "data"],
    ])  # fmt: skip
    cols = [c.model_copy(update={"name": "Findings"}) if c.key == "results" else c for c in cols]
    cols = [c.model_copy(update={"question": "What limitations or weaknesses are admitted?"}) if c.key == "limitations"
            else c for c in cols]  # fmt: skip
    m2 = set_columns(session.workflows, m, cols)
    assert m2.columns[0].name == "Datasets" and not any(c.key == "data" for c in m2.columns)
    list(run_matrix(session.workflows, m2, session.library))
    assert sorted(set(asked)) == ["What limitations or weaknesses are admitted?", "Which datasets were used?"]
    assert len(asked) == 6  # 3 papers × the 2 changed columns, nothing else
    for key in ("objective", "method", "evaluation", "results"):  # renamed "results" kept its cells
        for d in {d for d, _ in before}:
            assert m2.cell(d, key) == before[(d, key)]
    seg = doc_id(session, "Transformer")
    assert "LiTS dataset" in _cell(m2, seg, "datasets").text


def test_cancel_stops_between_cells_and_resume_finishes(session: Session) -> None:
    store = session.workflows
    m = create_matrix(store, session.library, PaperSelection())
    cancel = threading.Event()
    done = 0
    for p in run_matrix(store, m, session.library, cancel=cancel):
        if p.cell is not None:
            done += 1
            if done == 4:
                cancel.set()
    assert store.cell_count(m.id) == 4
    reopened = open_matrix(store, m.id)
    assert len(reopened.pending()) == 14
    assert sum(p.cell is not None for p in run_matrix(store, reopened, session.library)) == 14
    assert store.cell_count(m.id) == 18


def test_scope_by_query_year_and_tag(session: Session) -> None:
    store, lib = session.workflows, session.library
    m = create_matrix(store, lib, PaperSelection(year_from=2022, year_to=2024), [column("Data", "Which data were used?")])
    assert {r.year for r in m.rows} == {2023, 2024}
    m = create_matrix(store, lib, PaperSelection(query="retinal vessels fundus"), [column("Data")])
    assert [r.title for r in m.rows] == ["Convolutional Networks for Retinal Vessel Segmentation"]
    # "Zeppelin" occurs only in the reference lists: no paper is about it.
    with pytest.raises(InvalidInput, match="no papers"):
        create_matrix(store, lib, PaperSelection(query="Zeppelin"), [column("Data")])
    with pytest.raises(InvalidInput, match="no papers"):
        create_matrix(store, lib, PaperSelection(tags=["unread"]), [column("Data")])
    with pytest.raises(Exception, match="no document with id 99"):
        create_matrix(store, lib, PaperSelection(doc_ids=[99]), [column("Data")])


def test_column_sets_are_saved_and_reused(session: Session) -> None:
    store = session.workflows
    cols = [column("Datasets", "Which datasets were used?"), column("Dice", "Which Dice score is reported?")]
    save_column_set(store, "imaging", cols)
    again = load_column_set(store, "imaging")
    assert [(c.name, c.question) for c in again] == [(c.name, c.question) for c in cols]
    assert again[0].cues and "dataset" in again[0].cues  # a datasets column inherits the data cues
    assert [c.key for c in load_column_set(store, "default")] == [c.key for c in default_columns()]
    with pytest.raises(InvalidInput, match="no column set named 'nope'"):
        load_column_set(store, "nope")


def test_group_by_method_family_and_year(session: Session) -> None:
    m = _fill(session, PaperSelection())
    groups = dict(group_rows(m, "method"))
    assert {r.title.split()[0] for r in groups["Transformer"]} == {"Transformer"}
    assert {r.title.split()[0] for r in groups["Generative model"]} == {"Diffusion"}
    assert [g for g, _ in group_rows(m, "year")] == ["2024", "2023", "2021"]
    with pytest.raises(InvalidInput, match="no column"):
        group_rows(m, "colour")


def test_exports_carry_markers_and_references(session: Session, tmp_path: Path) -> None:
    m = _fill(session, PaperSelection())
    ids = [r.doc_id for r in m.rows]
    refs = [Reference(i + 1, d, t) for i, (d, t) in enumerate(zip(ids, session.reference_entries(ids), strict=True))]
    seg = doc_id(session, "Transformer")
    n = ids.index(seg) + 1
    md = matrix_markdown(m, refs)
    results = _cell(m, seg, "results")
    pages = ", ".join(f"p. {pg}" for pg in dict.fromkeys(e.page for e in results.evidence))
    assert "0.912" in results.text and f"{results.text} [{n}, {pages}]" in md
    assert results.text.count("0.912") == 1  # one finding told once, not by the abstract and again by the results
    assert "## References" in md and f"[{n}] Okoro, M., & Feld, J. (2024)." in md
    rows = list(csv.reader(io.StringIO(matrix_csv(m, refs))))
    assert rows[0][:3] == ["Paper", "Year", "Research question"] and len(rows[0]) == 8
    assert any(r and r[0] == f"[{n}]" and "Okoro" in r[1] for r in rows)
    tsv = matrix_tsv(m, refs)
    assert tsv.splitlines()[0].split("\t")[2] == "Research question"
    html = matrix_html(m, refs)
    assert html.startswith("<table>") and "<th>Limitations</th>" in html and "&amp;" in html
    out = tmp_path / "m.xlsx"
    matrix_xlsx(m, refs, out)
    from openpyxl import load_workbook

    wb = load_workbook(out)
    ws = wb["Matrix"]
    header = [c.value for c in ws[1]]
    assert header == ["Paper", "Year", *(c.name for c in m.columns)]
    row = [c.value for c in ws[ids.index(seg) + 2]]
    assert row[0].endswith("Transformer Networks for Liver Tumour Segmentation") and row[1] == "2024"
    assert "0.912" in row[header.index("Main results")] and row[header.index("Main results")].endswith(f"[{n}, p. 3]")
    assert wb["References"].cell(row=n, column=1).value == n


def test_no_cell_of_the_sample_library_comes_from_its_disclaimer(sample_session: Session) -> None:
    # Every sample paper ends with its licence and "all data … are fictional": a data or
    # research-question cell once took that sentence.
    m = _fill(sample_session, PaperSelection())
    assert len(m.rows) == 6
    found = [c for c in m.cells.values() if c.status == "found"]
    assert len(found) >= 24
    for c in found:
        assert "fictional" not in c.text and "CC0" not in c.text and "虚构" not in c.text, c.text
    objective = _cell(m, doc_id(sample_session, "Bird Collisions"), "objective")
    assert objective.status == "found" and "tests two remedies" in objective.text

"""The literature matrix: papers as rows, questions as columns, each cell one scoped agent run.

A cell is the loop run over one paper (``cells.ask_papers``): a short answer whose sentences
passed the claim-support check, with its evidence (passage, page), or "not stated in this
paper". The matrix is saved with its column definitions and every cell as it is done, so it
reopens at once, resumes after a crash, and a column whose question changed re-runs alone.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from ..agent.events import Usage
from ..agent.state import Policy
from ..errors import InvalidInput
from ..memory.workflow_store import WorkflowStore
from ..models import DocumentInfo
from ..text.language import has_cjk
from ..text.messages import Message, msg
from .cells import Ask, ask_papers, first_named
from .selection import PaperSelection, ScopePool, resolve_scope
from .templates import templates_dir

NOT_STATED = "not stated in this paper"
NOT_STATED_ZH = "本文未说明"
MAX_COLUMNS = 20
MAX_ROWS = 500


class Column(Ask):
    """A column: its name, the question asked of each paper (and its Chinese form for Chinese
    papers), with the offline cues. ``key`` stays when the column is renamed or moved."""

    key: str = ""
    name: str
    question_zh: str = ""

    def question_for(self, language: str) -> str:
        return self.question_zh if language == "zh" and self.question_zh else self.question

    def public(self) -> dict[str, str]:
        return {"name": self.name, "question": self.question}


class CellEvidence(BaseModel):
    doc_id: int
    segment: int
    page: int
    text: str
    section: str = ""
    title: str = ""


class Cell(BaseModel):
    column: str  # the column's key
    text: str
    status: Literal["found", "not_stated", "failed"]
    evidence: list[CellEvidence] = Field(default_factory=list)
    question: str = ""  # the question as it was asked (a changed one makes the cell stale)
    policy: str = "offline"
    seconds: float = 0.0
    usage: Usage = Field(default_factory=Usage)
    error: str = ""


class Row(BaseModel):
    doc_id: int
    title: str
    year: int | None = None
    authors: list[str] = Field(default_factory=list)
    language: str = ""


def default_columns() -> list[Column]:
    data = json.loads((templates_dir() / "matrix-columns.json").read_text(encoding="utf-8"))
    return [Column(**c) for c in data["columns"]]


def _slug(name: str) -> str:
    s = re.sub(r"[^\w]+", "-", name.lower()).strip("-")
    return s[:40] or "column"


def column(name: str, question: str = "", *, key: str = "") -> Column:
    """A user's column ("Datasets", "Which datasets were used?"); when its name or question
    matches a default column, that column's cues come along (and its question, when none is given)."""
    name = " ".join(name.split())
    question = " ".join(question.split())
    if not name:
        raise InvalidInput("a column needs a name (NAME=QUESTION)")
    defaults = default_columns()
    base = next((d for d in defaults if name.lower() in (d.name.lower(), d.key)
                 or (question and d.question.lower() == question.lower())), None)  # fmt: skip
    if base is not None and not question:
        return base.model_copy(update={"name": name, "key": key or base.key})
    if not question:
        question = name if name.endswith(("?", "？")) else f"What does the paper say about {name}?"
    if base is None:
        low = f"{name} {question}".lower()
        base = next((d for d in defaults if any(w in low for w in (d.key, *(c for c in d.cues[:3] if " " not in c)))), None)
    zh = question if has_cjk(question) else ""
    return Column(key=key or _slug(name), name=name, question=question, question_zh=zh,
                  cues=list(base.cues) if base else [], sections=list(base.sections) if base else [],
                  headings=list(base.headings) if base else [], numbers=base.numbers if base else False)  # fmt: skip


def parse_column(spec: str) -> Column:
    """``NAME=QUESTION`` (or just NAME) as given to ``--column``."""
    name, _, question = spec.partition("=")
    if not name.strip():
        raise InvalidInput(f"cannot read the column {spec!r}: give it as NAME=QUESTION")
    return column(name, question)


def unique_keys(columns: Sequence[Column]) -> list[Column]:
    seen: set[str] = set()
    out = []
    for c in columns:
        key = c.key or _slug(c.name)
        base, n = key, 2
        while key in seen:
            key, n = f"{base}-{n}", n + 1
        seen.add(key)
        out.append(c.model_copy(update={"key": key}))
    return out


@dataclass
class Matrix:
    """A matrix as saved: columns, rows and the cells done so far (by (doc_id, column key))."""

    id: str
    title: str
    policy: str
    scope: PaperSelection
    columns: list[Column]
    rows: list[Row]
    cells: dict[tuple[int, str], Cell]

    def cell(self, doc_id: int, key: str) -> Cell | None:
        return self.cells.get((doc_id, key))

    def pending(self) -> list[tuple[Row, Column]]:
        """The cells still to run: missing, or asked with another question than the column's."""
        out = []
        for r in self.rows:
            for c in self.columns:
                cell = self.cells.get((r.doc_id, c.key))
                if cell is None or cell.question != c.question_for(r.language) or cell.status == "failed":
                    out.append((r, c))
        return out

    @property
    def total(self) -> int:
        return len(self.rows) * len(self.columns)

    def to_json(self, references: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The CLI's JSON: columns, rows with their cells (in column order), the references."""
        rows = []
        for r in self.rows:
            cells = []
            for c in self.columns:
                cell = self.cells.get((r.doc_id, c.key))
                cells.append({
                    "column": c.name,
                    "text": cell.text if cell is not None else "",
                    "status": cell.status if cell is not None else "pending",
                    "evidence": [{"doc_id": e.doc_id, "segment": e.segment, "page": e.page, "text": e.text}
                                 for e in (cell.evidence if cell is not None else [])],
                })  # fmt: skip
            rows.append({"doc_id": r.doc_id, "title": r.title, "year": r.year, "cells": cells})
        out: dict[str, Any] = {"id": self.id, "columns": [c.public() for c in self.columns], "rows": rows}
        if references is not None:
            out["references"] = list(references)
        return out


def _row(d: DocumentInfo) -> Row:
    return Row(doc_id=d.doc_id, title=d.title, year=d.year, authors=list(d.authors), language=d.language)


def _load(store: WorkflowStore, matrix_id: str) -> Matrix:
    data = store.matrix(matrix_id)
    cells: dict[tuple[int, str], Cell] = {}
    for key, raw in data["cells"].items():
        try:
            cells[key] = Cell(**raw)
        except (ValidationError, TypeError):
            continue  # a cell that no longer reads is run again
    return Matrix(id=data["id"], title=data["title"], policy=data["policy"], scope=PaperSelection.from_json(data["scope"]),
                  columns=[Column(**c) for c in data["columns"]], rows=[Row(**r) for r in data["rows"]], cells=cells)  # fmt: skip


def open_matrix(store: WorkflowStore, matrix_id: str) -> Matrix:
    """A saved matrix with every cell done so far (no agent run: it shows at once)."""
    return _load(store, matrix_id)


def create_matrix(store: WorkflowStore, pool: ScopePool, scope: PaperSelection, columns: Sequence[Column] | None = None,
                  *, policy: str = "offline", title: str = "") -> Matrix:  # fmt: skip
    """A new, empty matrix over the papers of ``scope`` (saved; run it with ``run_matrix``)."""
    cols = unique_keys(list(columns) if columns else default_columns())
    if not cols:
        raise InvalidInput("a matrix needs at least one column")
    if len(cols) > MAX_COLUMNS:
        raise InvalidInput(f"a matrix has at most {MAX_COLUMNS} columns")
    docs = resolve_scope(pool, scope)
    if not docs:
        raise InvalidInput(f"no papers in the library match {scope.describe()}")
    if len(docs) > MAX_ROWS:
        raise InvalidInput(f"{len(docs)} papers match; a matrix has at most {MAX_ROWS} rows: narrow the scope")
    rows = [_row(d) for d in docs]
    title = title or generated_title(len(rows), len(cols), scope).text()
    mid = store.create_matrix(title, policy, scope.to_json(), [c.model_dump() for c in cols],
                              [r.model_dump() for r in rows])  # fmt: skip
    return _load(store, mid)


def generated_title(rows: int, columns: int, scope: PaperSelection) -> Message:
    """The title a matrix gets when it is made without one ("12 papers × 4 columns (…)")."""
    return msg("matrix.title", rows=rows, columns=columns, scope=scope.describe_msg())


def shown_title(matrix: Matrix) -> Message | None:
    """The matrix's title as a message when it is still the one it was made with (a window says
    it in its own language); ``None`` for a title the user gave or that no longer fits."""
    made = generated_title(len(matrix.rows), len(matrix.columns), matrix.scope)
    return made if matrix.title == made.text() else None


def set_columns(store: WorkflowStore, matrix: Matrix, columns: Sequence[Column]) -> Matrix:
    """New column definitions: a renamed or moved column keeps its cells (same key); a column
    whose question changed, or that was removed, loses them, so only it runs again."""
    cols = unique_keys(list(columns))
    if not cols:
        raise InvalidInput("a matrix needs at least one column")
    old = {c.key: c for c in matrix.columns}
    new_keys = {c.key for c in cols}
    drop = [k for k in old if k not in new_keys]
    drop += [c.key for c in cols if c.key in old and (old[c.key].question, old[c.key].question_zh) != (c.question, c.question_zh)]
    store.update_matrix(matrix.id, columns=[c.model_dump() for c in cols], drop_columns=drop)
    return _load(store, matrix.id)


def edit_columns(matrix: Matrix, specs: Sequence[Column]) -> list[Column]:
    """The matrix's columns after ``specs`` (``NAME=QUESTION`` lines, in their order): a spec with
    an existing column's name takes its key (a changed question re-runs it); one with an existing
    column's question is that column renamed (its cells stay); anything else is a new column."""
    by_name = {c.name.lower(): c for c in matrix.columns}
    by_question = {c.question.lower(): c for c in matrix.columns}
    out = []
    for s in specs:
        old = by_name.get(s.name.lower())
        if old is not None:
            same = s.question == old.question or not s.question
            out.append(old if same else old.model_copy(update={"question": s.question,
                                                                "question_zh": s.question_zh}))  # fmt: skip
        elif s.question.lower() in by_question:
            out.append(by_question[s.question.lower()].model_copy(update={"name": s.name}))
        else:
            out.append(s)
    return out


@dataclass
class CellProgress:
    """One cell done (``cell``), or about to run (``cell`` None); ``done``/``total`` count the matrix."""

    done: int
    total: int
    row: Row
    column: Column
    cell: Cell | None = None


def not_stated(language: str) -> str:
    return NOT_STATED_ZH if language == "zh" else NOT_STATED


def _strip_markers(text: str) -> str:
    return " ".join(re.sub(r"\s*\[\d+(?:\s*,\s*\d+)*\]", "", text).split())


def run_cell(row: Row, col: Column, pool: object, *, model: Policy | None = None,
             documents: Sequence[DocumentInfo] | None = None, cancel: threading.Event | None = None) -> Cell:  # fmt: skip
    """One cell: the column's question asked of this paper alone, through the loop."""
    question = col.question_for(row.language)
    ask = col.model_copy(update={"question": question})
    t = time.perf_counter()
    try:
        asked = ask_papers(ask, pool, [row.doc_id], model=model, documents=documents, cancel=cancel,
                           max_rounds=5)  # fmt: skip
    except Exception as e:  # one cell's failure must not cost the others; it runs again next time
        return Cell(column=col.key, text="", status="failed", question=question, error=f"{type(e).__name__}: {e}",
                    seconds=round(time.perf_counter() - t, 4), policy=getattr(model, "name", "offline"))  # fmt: skip
    policy = getattr(model, "name", "offline") if model is not None else "offline"
    # Offline, the cue phrases chose the sentence and the support check vouched for it; with a
    # model, the coverage check must also find that it answers the question.
    found = asked.found if model is not None else bool(asked.text and asked.evidence)
    if asked.result.status.value in ("failed", "cancelled"):
        status: Literal["found", "not_stated", "failed"] = "failed"
        found = False
    else:
        status = "found" if found else "not_stated"
    evidence = [CellEvidence(doc_id=e.doc_id, segment=e.segment, page=e.page, text=e.text, section=e.section,
                             title=e.title) for e in asked.evidence] if found else []  # fmt: skip
    text = _strip_markers(asked.text) if found else not_stated(row.language)
    return Cell(column=col.key, text=text, status=status, evidence=evidence, question=question, policy=policy,
                seconds=round(time.perf_counter() - t, 4), usage=asked.usage,
                error=asked.result.error if status == "failed" else "")  # fmt: skip


def run_matrix(
    store: WorkflowStore,
    matrix: Matrix,
    pool: object,
    *,
    model: Policy | None = None,
    cancel: threading.Event | None = None,
    only: Callable[[Row, Column], bool] | None = None,
) -> Iterator[CellProgress]:
    """Fill the matrix's pending cells, saving each as it is done; yields the progress. Stops
    between cells when ``cancel`` is set (what is done stays saved)."""
    pending = [(r, c) for r, c in matrix.pending() if only is None or only(r, c)]
    done = matrix.total - len(matrix.pending())
    docs = {d.doc_id: d for d in getattr(pool, "list_documents", list)()}
    policy = getattr(model, "name", "offline") if model is not None else "offline"
    if policy != matrix.policy:
        store.update_matrix(matrix.id, policy=policy)
        matrix.policy = policy
    for row, col in pending:
        if cancel is not None and cancel.is_set():
            return
        yield CellProgress(done, matrix.total, row, col, None)
        doc = docs.get(row.doc_id)
        cell = run_cell(row, col, pool, model=model, documents=[doc] if doc is not None else None, cancel=cancel)
        if cell.status == "failed" and cancel is not None and cancel.is_set():
            return  # stopped mid-cell: not saved, it runs again on resume
        store.save_cell(matrix.id, row.doc_id, col.key, cell.question, cell.model_dump())
        matrix.cells[(row.doc_id, col.key)] = cell
        done += 1
        yield CellProgress(done, matrix.total, row, col, cell)


# --- views: sort, filter, group -------------------------------------------------------------------

_FAMILIES: list[tuple[str, re.Pattern[str]]] = [
    ("Transformer", re.compile(r"transformer|self-attention|\bvit\b|bert|gpt|注意力", re.I)),
    ("Convolutional network", re.compile(r"convolution|\bcnn\b|u-net|unet|resnet|卷积", re.I)),
    ("Recurrent network", re.compile(r"lstm|\brnn\b|recurrent|\bgru\b|循环神经", re.I)),
    ("Graph model", re.compile(r"\bgraph\b|\bgnn\b|\bgcn\b|图神经", re.I)),
    ("Generative model", re.compile(r"diffusion|\bgan\b|generative|variational|生成", re.I)),
    ("Retrieval", re.compile(r"retriev|\bbm25\b|dense passage|检索", re.I)),
    ("Statistical model", re.compile(r"regression|mixed model|anova|statistic|bayesian|回归|统计", re.I)),
    ("Survey / field study", re.compile(r"census|survey|transect|field|recorded|counted|monitor|调查|样地|观测", re.I)),
    ("Experiment", re.compile(r"experiment|controlled|trial|实验", re.I)),
]


def family(text: str) -> str:
    """The method family a method cell names ("Transformer", "Survey / field study" …), or "Other"."""
    return first_named(_FAMILIES, text, "Other")


def year_group(year: int | None) -> str:
    return str(year) if year else "no year"


def group_rows(matrix: Matrix, by: str) -> list[tuple[str, list[Row]]]:
    """Rows grouped by ``by``: "year", or a column's name/key (by method family for a method
    column, else by the cell's text); groups in a stable order."""
    groups: dict[str, list[Row]] = {}
    if by == "year":
        for r in sorted(matrix.rows, key=lambda r: -(r.year or 0)):
            groups.setdefault(year_group(r.year), []).append(r)
        return list(groups.items())
    col = next((c for c in matrix.columns if by in (c.key, c.name)), None)
    if col is None:
        raise InvalidInput(f"no column {by!r}; group by year or one of: {', '.join(c.name for c in matrix.columns)}")
    for r in matrix.rows:
        cell = matrix.cell(r.doc_id, col.key)
        if cell is None or cell.status != "found":
            g = "not stated"
        elif col.key == "method" or "method" in col.name.lower():
            g = family(cell.text)
        else:
            g = cell.text[:60]
        groups.setdefault(g, []).append(r)
    return sorted(groups.items(), key=lambda kv: (kv[0] == "not stated", -len(kv[1]), kv[0]))


def save_column_set(store: WorkflowStore, name: str, columns: Sequence[Column]) -> None:
    if not name.strip():
        raise InvalidInput("a column set needs a name")
    store.save_column_set(name.strip(), [c.model_dump() for c in unique_keys(list(columns))])


def load_column_set(store: WorkflowStore, name: str) -> list[Column]:
    if name == "default":
        return default_columns()
    raw = store.column_set(name)
    if raw is None:
        p = Path(name)
        if p.suffix == ".json" and p.is_file():
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
                return [Column(**c) for c in (data["columns"] if isinstance(data, dict) else data)]
            except (OSError, ValueError, KeyError, TypeError, ValidationError) as e:
                raise InvalidInput(f"cannot read the column set {name}: {type(e).__name__}") from None
        names = ", ".join(["default", *store.column_sets()])
        raise InvalidInput(f"no column set named {name!r}; saved sets: {names}")
    return [Column(**c) for c in raw]

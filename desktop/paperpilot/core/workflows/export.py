"""Matrix and draft exports: Markdown, CSV, XLSX, TSV + HTML (copy as table), .docx.

Every cell carries its citation marker ("[2, p. 5]": reference 2, the page of its evidence)
and every export ends with the reference list in the chosen style, so a table pasted into a
manuscript stays traceable. openpyxl and python-docx are imported only when used.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .draft import FAMILY_ZH, Draft, Section, citation_order, numbered
from .matrix import Cell, Matrix


@dataclass
class Reference:
    n: int
    doc_id: int
    text: str

    def to_json(self) -> dict[str, object]:
        return {"n": self.n, "doc_id": self.doc_id, "text": self.text}


def marker(n: int, pages: Sequence[int]) -> str:
    """``[2, p. 5]`` / ``[2, pp. 3, 5]`` / ``[2]``."""
    ps = list(dict.fromkeys(p for p in pages if p))
    if not ps:
        return f"[{n}]"
    return f"[{n}, p. {ps[0]}]" if len(ps) == 1 else f"[{n}, pp. {', '.join(str(p) for p in ps)}]"


def cell_text(cell: Cell | None, n: int) -> str:
    if cell is None:
        return ""
    if cell.status != "found":
        return cell.text
    return f"{cell.text} {marker(n, [e.page for e in cell.evidence])}"


def _numbers(matrix: Matrix, refs: Sequence[Reference]) -> dict[int, int]:
    by_doc = {r.doc_id: r.n for r in refs}
    return {row.doc_id: by_doc.get(row.doc_id, i + 1) for i, row in enumerate(matrix.rows)}


def table(matrix: Matrix, refs: Sequence[Reference]) -> tuple[list[str], list[list[str]]]:
    """Header and rows as plain strings (the form every export starts from)."""
    nums = _numbers(matrix, refs)
    header = ["Paper", "Year", *(c.name for c in matrix.columns)]
    rows = []
    for r in matrix.rows:
        n = nums[r.doc_id]
        rows.append([f"[{n}] {r.title}", str(r.year or ""),
                     *(cell_text(matrix.cell(r.doc_id, c.key), n) for c in matrix.columns)])  # fmt: skip
    return header, rows


def _md_cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def matrix_markdown(matrix: Matrix, refs: Sequence[Reference], *, with_references: bool = True) -> str:
    header, rows = table(matrix, refs)
    lines = ["| " + " | ".join(_md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    if refs and with_references:
        lines += ["", "## References", ""] + [f"[{r.n}] {r.text}" for r in refs]
    return "\n".join(lines) + "\n"


def matrix_csv(matrix: Matrix, refs: Sequence[Reference]) -> str:
    header, rows = table(matrix, refs)
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(header)
    w.writerows(rows)
    if refs:
        w.writerow([])
        w.writerow(["References"])
        for r in refs:
            w.writerow([f"[{r.n}]", r.text])
    return out.getvalue()


def matrix_tsv(matrix: Matrix, refs: Sequence[Reference]) -> str:
    header, rows = table(matrix, refs)

    def clean(s: str) -> str:
        return " ".join(s.replace("\t", " ").split())

    lines = ["\t".join(clean(c) for c in row) for row in [header, *rows]]
    if refs:
        lines += ["", *(f"[{r.n}]\t{clean(r.text)}" for r in refs)]
    return "\n".join(lines) + "\n"


def matrix_html(matrix: Matrix, refs: Sequence[Reference]) -> str:
    header, rows = table(matrix, refs)
    e = html.escape
    parts = ["<table>", "<tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>"]
    parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows]
    parts.append("</table>")
    if refs:
        parts.append("<ol>" + "".join(f'<li value="{r.n}">{e(r.text)}</li>' for r in refs) + "</ol>")
    return "".join(parts)


def matrix_xlsx(matrix: Matrix, refs: Sequence[Reference], path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    header, rows = table(matrix, refs)
    wb = Workbook()
    ws = wb.active
    ws.title = "Matrix"
    ws.append(header)
    for cell in ws[1]:
        cell.font = Font(bold=True)
    for row in rows:
        ws.append(row)
    for i, _ in enumerate(header):
        letter = ws.cell(row=1, column=i + 1).column_letter
        ws.column_dimensions[letter].width = 12 if i == 1 else 45
    for row_cells in ws.iter_rows(min_row=2):
        for c in row_cells:
            c.alignment = Alignment(wrap_text=True, vertical="top")
    rs = wb.create_sheet("References")
    for r in refs:
        rs.append([r.n, r.text])
    rs.column_dimensions["B"].width = 120
    path.parent.mkdir(parents=True, exist_ok=True)
    wb.save(str(path))


# --- drafts --------------------------------------------------------------------------------------


def _draft_parts(draft: Draft) -> tuple[dict[int, int], list[tuple[Section, list[tuple[str, str, str]]]]]:
    order = citation_order(draft.sections)
    numbers = {d: i + 1 for i, d in enumerate(order)}
    out = []
    for s in draft.sections:
        paras: list[tuple[str, str, str]] = []
        for p in s.paragraphs:
            text, _cited = numbered(p.text, numbers)
            paras.append((text, str(p.status), p.group))
        out.append((s, paras))
    return numbers, out


def _table_rows(section: Section, numbers: dict[int, int], zh: bool) -> tuple[list[str], list[list[str]]]:
    header = ["类别", "文献", "年份", "方法", "主要结果"] if zh else ["Group", "Paper", "Year", "Method", "Main results"]
    rows = []
    for r in section.table:
        n = numbers.get(r.doc_id)
        group = FAMILY_ZH.get(r.group, r.group) if zh else r.group
        rows.append([group, f"[{n}] {r.title}" if n else r.title, str(r.year or ""), r.method, r.results])
    return header, rows


def _prompt(text: str, zh: bool) -> str:
    """A prompt for the author, marked as one unless its text already says so ("【请作者填写】…")."""
    if re.search(r"作者填写|for the author", text, re.I):
        return f"✎ {text}"
    return f"✎ {text} " + ("（待作者填写）" if zh else "(for the author)")


def draft_markdown(draft: Draft, *, appendix: bool = False) -> str:
    zh = draft.language == "zh"
    numbers, parts = _draft_parts(draft)
    lines = [f"# {draft.template.title.replace('{topic}', draft.topic)}", ""]
    if draft.note():
        lines += [f"> {draft.note()}", ""]
    for s, paras in parts:
        lines += [f"## {s.heading}", ""]
        if s.note:  # "nothing in the papers supports this section" comes before the author's prompt
            lines += [f"*{s.note}*", ""]
        if s.kind == "references":
            lines += [f"[{n}] {text}" for n, _d, text in draft.references] or ["—"]
            lines.append("")
            continue
        group = ""
        for text, status, g in paras:
            if g and g != group:
                group = g
                lines += ["", f"### {g}", ""]
            if status == "prompt":
                lines += ["", f"> {_prompt(text, zh)}", ""]
            elif draft.offline:
                lines.append(f"- {text}")
            else:
                lines += [text, ""]
        if draft.offline and paras and paras[-1][1] != "prompt":
            lines.append("")
        if s.table:
            header, rows = _table_rows(s, numbers, zh)
            lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
            lines.append("")
    if appendix:
        lines += ["## " + ("附录：证据" if zh else "Appendix: evidence"), ""]
        for s in draft.sections:
            for p in s.paragraphs:
                for e in p.evidence:
                    n = numbers.get(e.doc_id)
                    lines.append(f"- [{n}] p. {e.page}" + (f" § {e.section}" if e.section else "") + f": {' '.join(e.text.split())[:400]}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def draft_docx(draft: Draft, path: Path, *, appendix: bool = False) -> None:
    from docx import Document

    zh = draft.language == "zh"
    numbers, parts = _draft_parts(draft)
    doc = Document()
    doc.add_heading(draft.template.title.replace("{topic}", draft.topic), level=0)
    if draft.note():
        doc.add_paragraph().add_run(draft.note()).italic = True
    for s, paras in parts:
        doc.add_heading(s.heading, level=1)
        if s.note:
            doc.add_paragraph().add_run(s.note).italic = True
        if s.kind == "references":
            for n, _d, text in draft.references:
                doc.add_paragraph(f"[{n}] {text}")
            continue
        group = ""
        for text, status, g in paras:
            if g and g != group:
                group = g
                doc.add_heading(g, level=2)
            if status == "prompt":
                p = doc.add_paragraph()
                run = p.add_run(_prompt(text, zh))
                run.italic = True
            elif draft.offline:
                doc.add_paragraph(text, style="List Bullet")
            else:
                doc.add_paragraph(text)
        if s.table:
            header, rows = _table_rows(s, numbers, zh)
            t = doc.add_table(rows=1, cols=len(header))
            t.style = "Table Grid"
            for i, h in enumerate(header):
                t.rows[0].cells[i].text = h
            for row in rows:
                cells = t.add_row().cells
                for i, c in enumerate(row):
                    cells[i].text = c
    if appendix:
        doc.add_heading("附录：证据" if zh else "Appendix: evidence", level=1)
        for sec in draft.sections:
            for para in sec.paragraphs:
                for e in para.evidence:
                    doc.add_paragraph(f"[{numbers.get(e.doc_id)}] p. {e.page}: {' '.join(e.text.split())[:400]}")
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(path))

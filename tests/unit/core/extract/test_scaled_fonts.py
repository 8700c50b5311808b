"""Text whose font is set at size 1 and scaled by the text matrix (Elsevier, some generators):
sizes, paragraphs, plain numbered headings, small-print columns and back matter read right."""

from __future__ import annotations

import textwrap
from pathlib import Path

from paperpilot.core.extract.pdf import extract_pdf
from paperpilot.core.text.kinds import Kind, section_kind
from tests.fixtures.raw_pdf import raw_pdf

Line = tuple[float, float, float, str]
PROSE = (
    "Forests use more water than the grasslands they replace, and the difference shows in the streams "
    "that drain them over the years that follow the planting. "
) * 4


def para(
    y: float, text: str, *, x: float = 60, scale: float = 10, width: int = 95, lead: float = 12
) -> tuple[list[Line], float]:
    out: list[Line] = []
    for ln in textwrap.wrap(text, width):
        out.append((x, y, scale, ln))
        y -= lead
    return out, y - 0.6 * lead


def test_matrix_scaled_type_gives_paragraphs_and_plain_numbered_headings(tmp_path: Path) -> None:
    lines: list[Line] = []
    y = 780.0
    heads = ["1. Introduction", "2. Methods", "2.1. Catchment selection", "3. Results", "4. Discussion"]
    for head in heads:
        lines.append((60, y, 10, head))  # the body's own type: no weight, no size of its own
        y -= 16
        body, y = para(y, PROSE)
        lines += body
    pdf = tmp_path / "scaled.pdf"
    pdf.write_bytes(raw_pdf([lines]))
    blocks = extract_pdf(pdf).structure.blocks  # type: ignore[union-attr]
    assert [(b.kind, b.path) for b in blocks] == [
        ("body", "1. Introduction"),
        ("body", "2. Methods"),
        ("body", "2. Methods > 2.1. Catchment selection"),
        ("body", "3. Results"),
        ("body", "4. Discussion"),
    ]
    assert all(b.text.startswith("Forests use more water") and b.text.endswith("planting.") for b in blocks)


def test_a_small_print_reference_page_keeps_its_two_columns_and_back_matter(tmp_path: Path) -> None:
    first, y = para(780.0, PROSE * 3)
    page1 = [(60.0, 800.0, 10.0, "1. Introduction"), *first]
    # The last page: the end of the text, then back matter and references in small type.
    page2, y = para(780.0, PROSE, width=45)
    page2.append((60, y, 7.5, "Acknowledgments"))
    ack, _ = para(y - 10, "We thank the rangers of the Eastfield catchments for their help with the gauges.",
                  scale=7.5, width=60, lead=9)  # fmt: skip
    page2 += ack
    page2.append((310, 780, 7.5, "References"))
    yr = 768.0
    entries = [f"{name}, A.B., {1990 + i}. Streamflow after planting in catchment number {i} of the survey. "
               f"Journal of Hydrology {40 + i}, {100 + i}-{110 + i}." for i, name in enumerate(
                   ["Bosch", "Chiew", "Cornish", "Fahey", "Hickel", "Holmes", "Lane", "Legates"])]  # fmt: skip
    for entry in entries:
        wrapped = textwrap.wrap(entry, 55)
        page2.append((310, yr, 7.5, wrapped[0]))
        for cont in wrapped[1:]:
            yr -= 9
            page2.append((318, yr, 7.5, cont))  # a hanging indent
        yr -= 11
    pdf = tmp_path / "refs.pdf"
    pdf.write_bytes(raw_pdf([page1, page2]))
    structure = extract_pdf(pdf).structure
    assert structure is not None
    ack_blocks = [b for b in structure.blocks if b.kind == Kind.ACKNOWLEDGEMENTS]
    assert len(ack_blocks) == 1 and "rangers" in ack_blocks[0].text  # not a footnote, not mixed with refs
    assert [r.authors[0].split(",")[0] for r in structure.references] == [
        "Bosch", "Chiew", "Cornish", "Fahey", "Hickel", "Holmes", "Lane", "Legates"]  # fmt: skip
    assert all(r.year == 1990 + i for i, r in enumerate(structure.references))


def test_a_thesis_chapter_about_references_is_not_the_reference_list() -> None:
    assert section_kind("第六章参考文献") is None  # a chapter of the template about citing
    assert section_kind("第6章 参考文献") is None
    assert section_kind("参考文献") == Kind.REFERENCES
    assert section_kind("五、参考文献") == Kind.REFERENCES
    assert section_kind("7 References") == Kind.REFERENCES

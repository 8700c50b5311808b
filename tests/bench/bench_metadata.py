"""Metadata accuracy: per-field exact-match rates on the real truth set and the synthetic PDFs.

    .venv/bin/python tests/bench/bench_metadata.py [--synthetic DIR] [--show]

Reads each PDF with the importer's extractor (no online lookup, no library) and compares title,
all authors (complete and in order), year, journal, volume, issue, pages, DOI and arXiv id with
tests/bench/data/metadata_truth.json. Only printed fields are scored (``not_printed`` fields are
skipped); a template placeholder (``placeholders``) is scored as "must stay empty". Titles are
compared after NFC, collapsed whitespace, dashes folded to "-" and curly quotes to straight ones
(CJK titles also without spaces), against the title and its alternates; a journal matches its
full name or a printed abbreviation.

The 23 real PDFs are split once, fixed here before tuning: TUNE (15 files, used while building
the extractor) and HELD_OUT (8 files, looked at only to report). The scanned PDFs have no text
layer: without ``--ocr`` they are scored as empty, with it their pages are read by OCR as an
import does; the "text layer" column leaves them out either way. A page that prints no title
(an inner page) is scored on its own line: it must get no title (the library then shows the
file name, flagged). ``--synthetic DIR`` also scores the PDFs written by
make_metadata_pdfs.py into DIR (generated first when DIR has none).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ROOT, SHARED

from paperpilot.core.extract.pdf import extract_pdf
from paperpilot.core.models import ImportFailure

FIELDS = ["title", "authors", "year", "container_title", "volume", "issue", "pages", "doi", "arxiv_id"]
HELD_OUT = {
    "pdfs/eacl2023_longeval_2023.eacl-main.121.pdf",
    "pdfs_dev/en_conf_ieee_two_column_2013.pdf",
    "pdfs_dev/en_journal_bmc_review_2010.pdf",
    "pdfs_dev/en_journal_springer_inflammopharmacology_2007.pdf",
    "pdfs_dev/en_proceedings_iop_open_access_2021.pdf",
    "pdfs_dev/scanned_en_conference_abstract_page.pdf",
    "pdfs_dev/zh_journal_acta_math_appl_sinica_2011_sample.pdf",
    "pdfs_dev/zh_thesis_undergrad_word_template_example.pdf",
}
_DASH = re.compile("[\u2010-\u2015\u2212]")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_CJK_GAP = re.compile(r"(?<=[\u3400-\u9fff])\s+|\s+(?=[\u3400-\u9fff])")


def norm(text: Any) -> str:
    t = unicodedata.normalize("NFC", " ".join(str(text or "").split()))
    t = _DASH.sub("-", t).translate(_QUOTES)
    return _CJK_GAP.sub("", t)


def name_key(n: dict[str, Any]) -> tuple[str, str]:
    if n.get("literal"):
        return (norm(n["literal"]).replace(" ", ""), "")
    return (norm(n.get("family", "")), norm(n.get("given", "")))


def authors_ok(got: list[dict[str, Any]], truth: list[dict[str, Any]]) -> bool:
    if len(got) != len(truth):
        return False
    for g, t in zip(got, truth, strict=True):
        options = [t, *t.get("alternates", [])]
        if name_key(g) not in {name_key(o) for o in options}:
            return False
    return True


def field_ok(f: str, got: dict[str, Any], truth: dict[str, Any]) -> bool | None:
    """True/False when the field is scored for this paper, None when it is not printed."""
    if f in truth.get("placeholders", {}):
        return not got.get(f)
    want = truth.get(f)
    if f in truth.get("not_printed", []) or want in (None, []):
        return None
    have = got.get(f)
    if f == "title":
        return norm(have) in {norm(x) for x in [want, *truth.get("title_alternates", [])]}
    if f == "authors":
        return authors_ok(have or [], want)
    if f == "year":
        return have == want
    if f == "container_title":
        return norm(have) in {norm(x) for x in [want, *truth.get("container_abbrev", [])]}
    if f == "doi":
        return str(have or "").lower() == str(want).lower()
    return norm(have) == norm(want)


OCR = False  # --ocr: scanned pages are read by OCR, as an import does


def _extract(path: Path) -> Any:
    if not OCR:
        return extract_pdf(path)
    from paperpilot.core.extract.ocr import LocalOcrPool, run_ocr
    from paperpilot.core.extract.pdf import finish_pdf, read_pdf_for_import
    from paperpilot.core.models import Extracted

    got = read_pdf_for_import(path, ocr=True)
    if isinstance(got, Extracted):
        return got
    return finish_pdf(got, run_ocr(LocalOcrPool(), got.path, got.ocr_pages))


def extract(path: Path) -> tuple[dict[str, Any], dict[str, str], float | None, bool, str]:
    try:
        ex = _extract(path)
    except ImportFailure as e:
        return {}, {}, None, True, e.code
    md = ex.metadata
    csl = md.csl
    got = {
        "title": md.title, "authors": csl.get("author", []), "year": md.year,
        "container_title": csl.get("container-title", ""), "volume": csl.get("volume", ""),
        "issue": csl.get("issue", ""), "pages": csl.get("page", ""), "doi": md.doi, "arxiv_id": csl.get("arxiv", ""),
    }  # fmt: skip
    return got, md.sources, md.confidence, md.check, ""


def score(entries: list[dict[str, Any]], base: Path, show: bool) -> dict[str, dict[str, list[int]]]:
    """{group: {field: [right, scored]}}"""
    groups: dict[str, dict[str, list[int]]] = {}
    for e in entries:
        path = base / e["file"]
        got, sources, conf, check, failure = extract(path)
        names = ["all"]
        if base == SHARED:
            names.append("held_out" if e["file"] in HELD_OUT else "tune")
            if not Path(e["file"]).name.startswith("scanned_"):
                names.append("text_layer")
        wrong = []
        if e.get("title") is None and "title" in e.get("not_printed", []):
            # A page that prints no title (an inner page) must not get one made from a line.
            cell = groups.setdefault("no_title", {}).setdefault("title", [0, 0])
            cell[0] += int(not got.get("title"))
            cell[1] += 1
            if got.get("title"):
                wrong.append("title")
        for f in FIELDS:
            ok = field_ok(f, got, e)
            if ok is None:
                continue
            for g in names:
                cell = groups.setdefault(g, {}).setdefault(f, [0, 0])
                cell[0] += int(ok)
                cell[1] += 1
            if not ok:
                wrong.append(f)
        if show:
            mark = "ok " if not wrong else "BAD"
            print(f"{mark} {e['file']}  conf={conf} check={check} {failure}")
            for f in wrong:
                want = e.get(f)
                if f == "authors":
                    want = [a.get("literal") or f"{a.get('given', '')}|{a.get('family', '')}" for a in want or []]
                    have = [a.get("literal") or f"{a.get('given', '')}|{a.get('family', '')}" for a in got.get(f) or []]
                else:
                    have = got.get(f)
                print(f"    {f}: got {have!r} want {want!r} (source {sources.get(f)})")
    return groups


def rate(cell: list[int] | None) -> str:
    if not cell or not cell[1]:
        return "–"
    return f"{100 * cell[0] / cell[1]:.0f} % ({cell[0]}/{cell[1]})"


def cost(rounds: int) -> None:
    """CPU time of extract_pdf on the papers in shared/data/pdfs with and without the metadata
    sources (page-1 glyphs, XMP, mastheads, merge), interleaved so machine load hits both alike."""
    from paperpilot.core.extract import metadata as front_matter
    from paperpilot.core.extract import pdf as pdf_mod

    papers = sorted((SHARED / "pdfs").glob("*.pdf"))
    real_front, real_step = front_matter.FrontReader.take, pdf_mod._front_matter
    times = {"with": 0.0, "without": 0.0}
    pages = 0
    for r in range(rounds):
        for mode in (("with", "without") if r % 2 == 0 else ("without", "with")):
            if mode == "without":
                front_matter.FrontReader.take = lambda *a, **k: None  # type: ignore[method-assign]
                pdf_mod._front_matter = lambda *a, **k: None  # type: ignore[assignment]
            t = time.process_time()
            for p in papers:
                ex = extract_pdf(p)
                if mode == "with" and r == 0:
                    pages += max(pg.number for pg in ex.pages)
            times[mode] += time.process_time() - t
            front_matter.FrontReader.take = real_front  # type: ignore[method-assign]
            pdf_mod._front_matter = real_step  # type: ignore[assignment]
    w, wo = times["with"] / rounds, times["without"] / rounds
    print(f"extract_pdf over {len(papers)} papers ({pages} pages), CPU seconds per round, {rounds} rounds:")
    print(f"  without metadata sources {wo:.3f} s, with {w:.3f} s: +{100 * (w - wo) / wo:.1f} %")

    # The whole import (extract, chunk, store, index) of the same papers into a fresh library;
    # three files are extracted in this process, so its CPU time is all of it.
    import tempfile

    from paperpilot.core.library import Library
    from paperpilot.core.settings.paths import app_paths

    times = {"with": 0.0, "without": 0.0}
    for r in range(rounds):
        for mode in (("with", "without") if r % 2 == 0 else ("without", "with")):
            if mode == "without":
                front_matter.FrontReader.take = lambda *a, **k: None  # type: ignore[method-assign]
                pdf_mod._front_matter = lambda *a, **k: None  # type: ignore[assignment]
            with tempfile.TemporaryDirectory(prefix="pp-bench-meta-") as home:
                lib = Library(app_paths(Path(home)))
                t = time.process_time()
                lib.import_paths(papers)
                lib.flush()
                times[mode] += time.process_time() - t
                lib.close()
            front_matter.FrontReader.take = real_front  # type: ignore[method-assign]
            pdf_mod._front_matter = real_step  # type: ignore[assignment]
    w, wo = times["with"] / rounds, times["without"] / rounds
    print(f"import of the same papers into a fresh library, CPU seconds per round, {rounds} rounds:")
    print(f"  without metadata sources {wo:.3f} s, with {w:.3f} s: +{100 * (w - wo) / wo:.1f} %")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cost", type=int, metavar="ROUNDS", help="measure the extraction cost instead")
    ap.add_argument("--synthetic", type=Path, help="folder with (or for) the synthetic PDFs")
    ap.add_argument("--show", action="store_true", help="list every wrong field")
    ap.add_argument("--json", type=Path, help="also write the rates as JSON here")
    ap.add_argument("--ocr", action="store_true", help="read scanned pages by OCR (minutes on two cores)")
    args = ap.parse_args()
    global OCR
    OCR = args.ocr
    if args.cost:
        cost(args.cost)
        return
    truth = json.loads((ROOT / "tests/bench/data/metadata_truth.json").read_text(encoding="utf-8"))
    t0 = time.perf_counter()
    groups = score(truth["entries"], SHARED, args.show)
    if args.synthetic:
        syn_truth = args.synthetic / "metadata_truth.json"
        if not syn_truth.exists():
            subprocess.run([sys.executable, str(ROOT / "tests/bench/make_metadata_pdfs.py"), str(args.synthetic)],
                           check=True)  # fmt: skip
        syn = json.loads(syn_truth.read_text(encoding="utf-8"))
        groups["synthetic"] = score(syn["entries"], args.synthetic, args.show)["all"]
    elapsed = time.perf_counter() - t0
    cols = ["tune", "held_out", "text_layer", "all", "synthetic"]
    print("| field | tune (15) | held-out (8) | real, text layer (19) | real, all (23) | synthetic (11) |")
    print("|---|---|---|---|---|---|")
    for f in FIELDS:
        print(f"| {f} | " + " | ".join(rate(groups.get(c, {}).get(f)) for c in cols) + " |")
    print(f"\nno title made up where none is printed: {rate(groups.get('no_title', {}).get('title'))}")
    print(f"{elapsed:.1f} s for all files" + (" (scanned pages read by OCR)" if OCR else ""))
    if args.json:
        args.json.write_text(json.dumps(groups, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

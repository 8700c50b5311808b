"""Open at source: how long locating a cited passage's whole span takes, and how much is found.

Every chunk of every PDF in ``data/pdfs`` (and ``data/pdfs_dev`` with ``--dev``; scans are
skipped) is located with ``core.extract.pdf_spans.locate_span`` as the viewer does, cold
(document opened per look-up). Reports time per look-up (median / p95 / max), the PDFium
share of it (opening the document, parsing the page, its text) measured apart, and the
share of chunks found whole (coverage ≥ 0.9), in part, or not at all.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ROOT, SHARED, percentile

sys.path.insert(0, str(ROOT / "desktop"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", action="store_true", help="also the papers in data/pdfs_dev")
    # A worktree sits one level deeper than the main checkout; look for the data there too.
    default = SHARED if SHARED.is_dir() else ROOT.parents[1] / "shared" / "data"
    ap.add_argument("--data", type=Path, default=default, help=f"the shared data folder (default {default})")
    args = ap.parse_args()
    import pypdfium2 as pdfium

    from paperpilot.core.extract.chunker import chunk_pages
    from paperpilot.core.extract.pdf import extract_pdf
    from paperpilot.core.extract.pdf_spans import locate_span
    from paperpilot.core.models import Extracted

    files = sorted((args.data / "pdfs").glob("*.pdf"))
    if args.dev:
        files += sorted(p for p in (args.data / "pdfs_dev").glob("*.pdf") if not p.name.startswith("scanned"))
    if not files:
        raise SystemExit(f"no PDFs under {args.data}/pdfs")
    times: list[float] = []
    pdfium_times: list[float] = []
    whole = partial = missed = 0
    for f in files:
        ex = extract_pdf(f)
        if not isinstance(ex, Extracted):
            continue
        chunks = chunk_pages(ex.pages)
        for c in chunks:
            t0 = time.perf_counter()
            loc = locate_span(f, c.text, c.page)
            times.append((time.perf_counter() - t0) * 1000)
            # The PDFium part alone: open, parse the chunk's page, read its text.
            t0 = time.perf_counter()
            doc = pdfium.PdfDocument(str(f))
            page = doc[c.page - 1]
            tp = page.get_textpage()
            tp.get_text_range()
            tp.close()
            page.close()
            doc.close()
            pdfium_times.append((time.perf_counter() - t0) * 1000)
            if loc.coverage >= 0.9:
                whole += 1
            elif loc.found:
                partial += 1
            else:
                missed += 1
        print(f"  {f.name[:50]:50} {len(chunks):4} chunks", flush=True)
    n = len(times)
    print(f"{n} look-ups in {len(files)} PDFs")
    print(
        f"locate_span: median {statistics.median(times):.1f} ms, p95 {percentile(times, 95):.1f} ms, "
        f"max {max(times):.1f} ms"
    )
    print(
        f"  of which PDFium open + page parse + text (one page): median {statistics.median(pdfium_times):.1f} ms, "
        f"p95 {percentile(pdfium_times, 95):.1f} ms"
    )
    print(
        f"found whole (coverage >= 0.9): {whole / n:.1%}, in part: {partial / n:.1%}, "
        f"not found (viewer falls back to a search): {missed / n:.1%}"
    )


if __name__ == "__main__":
    main()

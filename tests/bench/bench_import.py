"""PDF import throughput (extract + clean + chunk + store + index) against raw pypdfium2 text
extraction of the same files in the same run. Target: import >= 60% of raw speed."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import SHARED, run_child


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-pages", type=int, default=300)
    args = ap.parse_args()
    import pypdfium2 as pdfium

    sources = sorted((SHARED / "pdfs").glob("*.pdf"))
    if not sources:
        raise SystemExit(f"no PDFs in {SHARED / 'pdfs'}")
    pages_each = [len(pdfium.PdfDocument(str(p))) for p in sources]
    work = Path(tempfile.mkdtemp(prefix="pp-bench-import-"))
    files: list[Path] = []
    total = 0
    copy = 0
    while total < args.min_pages:
        for src, n in zip(sources, pages_each, strict=True):
            # A distinct byte suffix per copy so the importer does not see duplicates.
            dest = work / "pdfs" / f"{src.stem}-{copy}.pdf"
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(src.read_bytes() + f"\n% copy {copy}\n".encode())
            files.append(dest)
            total += n
        copy += 1
    print(f"{len(files)} files, {total} pages (from {len(sources)} papers)")

    raw = run_child(f"""
        import time, pypdfium2 as pdfium
        files = {[str(f) for f in files]!r}
        t = time.perf_counter(); pages = 0; chars = 0
        for f in files:
            doc = pdfium.PdfDocument(f)
            for page in doc:
                tp = page.get_textpage(); chars += len(tp.get_text_range()); pages += 1
                tp.close(); page.close()
            doc.close()
        RESULT = {{"pages": pages, "seconds": time.perf_counter() - t, "chars": chars}}
    """)
    imp = run_child(f"""
        import time
        from paperpilot.core.library import Library
        from paperpilot.core.settings.paths import app_paths
        lib = Library(app_paths({str(work / "home")!r}))
        t = time.perf_counter()
        rep = lib.import_paths([{str(work / "pdfs")!r}])
        secs = time.perf_counter() - t
        RESULT = {{"pages": sum(d.pages for d in rep.imported), "seconds": secs,
                   "chunks": sum(d.chunks for d in rep.imported), "failed": len(rep.failed)}}
        lib.close()
    """)
    raw_ps = raw["pages"] / raw["seconds"]
    imp_ps = imp["pages"] / imp["seconds"]
    print(
        f"raw pypdfium2 text extraction: {raw['pages']} pages in {raw['seconds']:.2f} s = {raw_ps:.0f} pages/s, "
        f"peak RSS {raw['peak_rss_mb']:.0f} MB"
    )
    print(
        f"PaperPilot import (extract+clean+chunk+store+index): {imp['pages']} pages in {imp['seconds']:.2f} s = "
        f"{imp_ps:.0f} pages/s, {imp['chunks']} chunks, {imp['failed']} failed, peak RSS {imp['peak_rss_mb']:.0f} MB"
    )
    print(f"ratio: {imp_ps / raw_ps:.0%} of raw extraction speed (target >= 60%)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

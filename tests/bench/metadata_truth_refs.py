"""Fill the reference fields of tests/bench/data/metadata_truth.json from the PDFs themselves.

The truth fields in that file were read off the page images by hand and are never touched here.
This script only (re)writes ``ref_info`` (the PDF Info dictionary) and ``ref_xmp`` (the XMP packet,
flattened to ``prefix:property`` -> value) for every entry, so that whoever builds the metadata
extractor can see what each embedded source offers and how often it disagrees with the page.

    .venv/bin/python tests/bench/metadata_truth_refs.py            # rewrite the JSON in place
    .venv/bin/python tests/bench/metadata_truth_refs.py --check    # exit 1 if the file is stale

Needs pypdf (``.venv/bin/pip install pypdf``). Reads shared/data beside the checkout (or $PAPERPILOT_DATA).
Standalone: does not import paperpilot.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pypdf

HERE = Path(__file__).resolve().parent
TRUTH = HERE / "data" / "metadata_truth.json"
# shared/data sits beside the main checkout; a git worktree is one or more levels further down.
DATA = Path(os.environ.get("PAPERPILOT_DATA") or next(
    (p / "shared" / "data" for p in HERE.parents if (p / "shared" / "data").is_dir()), "/work/shared/data"))

RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
# Producers declare the same namespace under different prefixes (xap vs xmp, none at all); the
# reader of the reference fields wants one spelling per namespace.
KNOWN_PREFIXES = {
    "http://purl.org/dc/elements/1.1/": "dc",
    "http://ns.adobe.com/xap/1.0/": "xmp",
    "http://ns.adobe.com/xap/1.0/mm/": "xmpMM",
    "http://ns.adobe.com/pdf/1.3/": "pdf",
    "http://ns.adobe.com/pdfx/1.3/": "pdfx",
    "http://prismstandard.org/namespaces/basic/2.0/": "prism",
    "http://prismstandard.org/namespaces/basic/2.1/": "prism",
    "http://prismstandard.org/namespaces/basic/3.0/": "prism",
    "http://www.aiim.org/pdfa/ns/id/": "pdfaid",
    "http://ns.adobe.com/photoshop/1.0/": "photoshop",
    "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/": "Iptc4xmpCore",
    "http://crossref.org/crossmark/1.0/": "crossmark",
    "http://ns.adobe.com/xap/1.0/rights/": "xmpRights",
}
# Editing history and PDF/A schema declarations say nothing about the paper.
DROP_PREFIXES = ("xmpMM:", "pdfaExtension:", "pdfaSchema:", "pdfaProperty:", "stEvt:", "stRef:")

log = logging.getLogger("metadata_truth_refs")


def _qualified(tag: str, declared: dict[str, str]) -> str:
    if not tag.startswith("{"):
        return tag
    uri, local = tag[1:].split("}", 1)
    return f"{KNOWN_PREFIXES.get(uri) or declared.get(uri) or uri}:{local}"


def _value(el: ET.Element, declared: dict[str, str]) -> Any:
    for container in ("Seq", "Bag", "Alt"):
        c = el.find(RDF + container)
        if c is not None:
            items = [(li.text or "").strip() for li in c.findall(RDF + "li")]
            if container == "Alt":
                # Language alternatives of one value: x-default is first by convention.
                return items[0] if items else ""
            return items
    desc = el.find(RDF + "Description")
    if desc is not None:
        return {_qualified(k.tag, declared): _value(k, declared) for k in desc}
    return (el.text or "").strip()


def parse_xmp(raw: str) -> dict[str, Any]:
    """Flatten an XMP packet into {"prefix:property": value}; lists for Seq/Bag."""
    declared = {uri: p for p, uri in re.findall(r'xmlns:([A-Za-z0-9_.-]+)="([^"]+)"', raw)}
    start = raw.find("<x:xmpmeta")
    end_tag = "</x:xmpmeta>"
    if start < 0:
        start, end_tag = raw.find("<rdf:RDF"), "</rdf:RDF>"
    body = raw[start : raw.rfind(end_tag) + len(end_tag)]
    root = ET.fromstring(body)
    out: dict[str, Any] = {}
    for desc in root.iter(RDF + "Description"):
        for k, v in desc.attrib.items():
            if k.startswith(RDF):
                continue
            out[_qualified(k, declared)] = v
        for child in desc:
            out[_qualified(child.tag, declared)] = _value(child, declared)
    return {k: v for k, v in out.items() if not k.startswith(DROP_PREFIXES)}


def references(pdf: Path) -> tuple[dict[str, str], dict[str, Any] | None]:
    reader = pypdf.PdfReader(str(pdf))
    info = {str(k).lstrip("/"): str(v) for k, v in (reader.metadata or {}).items()}
    xmp: dict[str, Any] | None = None
    root = reader.trailer["/Root"]
    if "/Metadata" in root:
        raw = root["/Metadata"].get_object().get_data().decode("utf-8", "replace").strip("\x00")
        try:
            xmp = parse_xmp(raw)
        except ET.ParseError as exc:
            xmp = {"_unparsable": f"{exc}"}
    return info, xmp


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report whether the file is up to date")
    args = ap.parse_args()
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # one PDF has a broken xref; pypdf copes, loudly

    doc = json.loads(TRUTH.read_text(encoding="utf-8"))
    for entry in doc["entries"]:
        info, xmp = references(DATA / entry["file"])
        entry["ref_info"] = info
        entry["ref_xmp"] = xmp
    text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    if args.check:
        stale = text != TRUTH.read_text(encoding="utf-8")
        print("stale" if stale else "up to date")
        return 1 if stale else 0
    TRUTH.write_text(text, encoding="utf-8")
    print(f"wrote {TRUTH} ({len(doc['entries'])} entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

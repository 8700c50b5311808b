"""`paperpilot cite` and `paperpilot export`: every style and format, CSL-JSON files, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperpilot.cli import main
from paperpilot.core.citations.styles import STYLE_NAMES
from paperpilot.core.library import Library
from paperpilot.core.library.metadata import update_metadata
from paperpilot.core.settings.config import Settings, UISettings, save_settings
from paperpilot.core.settings.paths import app_paths

DATA = Path(__file__).resolve().parents[2] / "data" / "citations"
NUMERIC = {"gbt7714-2015-numeric", "ieee"}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(tmp_path: Path) -> tuple[str, int, int]:
    """A library with an English conference paper (doc a) and a Chinese journal article (doc b)."""
    h = tmp_path / "h"
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "owls.md").write_text(
        "# Barn Owls in Church Towers\n\nBarn owls nested in fourteen of twenty church towers.\n",
        encoding="utf-8",
    )
    (papers / "poetics.md").write_text("# 唐代诗学研究\n\n唐代诗学的研究方法与文献整理。\n", encoding="utf-8")
    with Library(app_paths(h)) as lib:
        ids = [d.doc_id for d in lib.import_paths([papers / "owls.md", papers / "poetics.md"]).imported]
        update_metadata(
            lib,
            ids[0],
            authors=["Ana Ruiz", "Bo Chen", "Carla Diaz"],
            year=2019,
            venue="Proceedings of the Owl Conference",
            doi="10.1234/owl.77",
        )
        update_metadata(lib, ids[1], authors=["张伯伟"], year=2002, venue="中国社会科学")
    return str(h), ids[0], ids[1]


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_cite_text_every_style(
    capsys: pytest.CaptureFixture[str], home: tuple[str, int, int], style: str
) -> None:
    h, a, b = home
    code, out, err = run(capsys, "--home", h, "cite", str(b), str(a), "--style", style)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2
    assert "唐代诗学研究" in lines[0] and "Barn Owls in Church Towers" in lines[1]  # the given order
    if style in NUMERIC:
        assert lines[0].startswith("[1] ") and lines[1].startswith("[2] ")
    else:
        assert not lines[0].startswith("[")
    if style.startswith("gbt7714"):
        assert "[C" in lines[1] and "[J]" in lines[0]  # [C/OL] when the DOI is printed


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_cite_html_and_json(
    capsys: pytest.CaptureFixture[str], home: tuple[str, int, int], style: str
) -> None:
    h, a, b = home
    code, out, _ = run(capsys, "--home", h, "cite", str(a), str(b), "--style", style, "--format", "html")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 2 and all(
        ln.startswith('<div class="csl-entry">') and ln.endswith("</div>") for ln in lines
    )
    code, out, _ = run(capsys, "--home", h, "cite", str(a), str(b), "--style", style, "--json")
    data = json.loads(out)
    assert data["style"] == style
    assert [e["doc_id"] for e in data["entries"]] == [a, b]
    assert all(set(e) == {"doc_id", "text", "html"} for e in data["entries"])
    assert "Barn Owls" in data["entries"][0]["text"]


def test_cite_default_style_comes_from_settings(
    capsys: pytest.CaptureFixture[str], home: tuple[str, int, int]
) -> None:
    h, a, _ = home
    save_settings(Settings(ui=UISettings(citation_style="ieee")), app_paths(h).settings_file)
    code, out, _ = run(capsys, "--home", h, "cite", str(a), "--json")
    assert code == 0 and json.loads(out)["style"] == "ieee"
    assert json.loads(out)["entries"][0]["text"].startswith("[1] A. Ruiz")


@pytest.mark.parametrize("fmt", ["bibtex", "ris", "csl-json"])
def test_cite_machine_formats(
    capsys: pytest.CaptureFixture[str], home: tuple[str, int, int], fmt: str
) -> None:
    h, a, b = home
    code, out, err = run(capsys, "--home", h, "cite", str(a), str(b), "--format", fmt)
    assert code == 0, err
    if fmt == "bibtex":
        assert out.count("@") >= 2 and "Barn Owls in Church Towers" in out
    elif fmt == "ris":
        assert out.count("TY  - ") == 2 and "ER  -" in out
    else:
        titles = [i["title"] for i in json.loads(out)]
        assert titles == ["Barn Owls in Church Towers", "唐代诗学研究"]


def test_cite_in_text(capsys: pytest.CaptureFixture[str], home: tuple[str, int, int]) -> None:
    h, a, b = home
    code, out, _ = run(
        capsys, "--home", h, "cite", str(a), str(b), "--style", "gbt7714-2015-numeric", "--in-text"
    )
    assert code == 0 and out.strip().startswith("[1")
    code, out, _ = run(capsys, "--home", h, "cite", str(a), "--style", "apa", "--in-text")
    assert code == 0 and "Ruiz" in out and "2019" in out


CSL_ITEMS = [
    {
        "id": "b1",
        "type": "book",
        "title": "中国佛教疑伪经综录",
        "author": [{"literal": "曹凌"}],
        "publisher": "上海古籍出版社",
        "publisher-place": "上海",
        "issued": {"date-parts": [["2011"]]},
        "language": "zh-CN",
    },
    {
        "id": "j1",
        "type": "article-journal",
        "title": "Deep learning",
        "author": [
            {"family": "LeCun", "given": "Yann"},
            {"family": "Bengio", "given": "Yoshua"},
            {"family": "Hinton", "given": "Geoffrey"},
        ],
        "container-title": "Nature",
        "volume": "521",
        "issue": "7553",
        "page": "436-444",
        "issued": {"date-parts": [[2015]]},
        "DOI": "10.1038/nature14539",
        "language": "en-US",
    },
]


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_cite_csl_json_file(capsys: pytest.CaptureFixture[str], tmp_path: Path, style: str) -> None:
    f = tmp_path / "items.json"
    f.write_text(json.dumps(CSL_ITEMS, ensure_ascii=False), encoding="utf-8")
    code, out, err = run(capsys, "cite", "--csl-json", str(f), "--style", style)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2 and "中国佛教疑伪经综录" in lines[0] and "Deep learning" in lines[1]
    if style in NUMERIC:
        assert lines[0].startswith("[1] ") and lines[1].startswith("[2] ")
    if style == "gbt7714-2015-numeric":
        assert lines[0] == "[1] 曹凌. 中国佛教疑伪经综录[M]. 上海: 上海古籍出版社, 2011."
    code, out, _ = run(capsys, "cite", "--csl-json", str(f), "--style", style, "--json")
    assert [e["id"] for e in json.loads(out)["entries"]] == ["b1", "j1"]


def test_cite_csl_json_with_a_bad_item_warns_and_renders_the_rest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "items.json"
    f.write_text(json.dumps([CSL_ITEMS[1], {"type": "book", "author": "not a list"}]), encoding="utf-8")
    code, out, err = run(capsys, "cite", "--csl-json", str(f), "--style", "apa")
    assert code == 0 and len(out.splitlines()) == 1 and "Deep learning" in out
    assert "warning" in err and "items.json" in err


def test_cite_errors(capsys: pytest.CaptureFixture[str], home: tuple[str, int, int], tmp_path: Path) -> None:
    h, a, _ = home
    code, out, err = run(capsys, "--home", h, "cite", str(a), "--style", "harvard")
    assert code != 0 and not out
    assert len(err.strip().splitlines()) == 1 and all(name in err for name in STYLE_NAMES)
    code, _, err = run(capsys, "--home", h, "cite", "999")
    assert code != 0 and "999" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "--home", h, "cite")
    assert code != 0 and "nothing to cite" in err
    code, _, err = run(capsys, "--home", h, "cite", str(a), "--csl-json", "x.json")
    assert code != 0 and "not both" in err
    code, _, err = run(capsys, "cite", "--csl-json", str(tmp_path / "missing.json"))
    assert code != 0 and "does not exist" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, _, err = run(capsys, "cite", "--csl-json", str(bad))
    assert code != 0 and "no usable" in err


def test_export_command(
    capsys: pytest.CaptureFixture[str], home: tuple[str, int, int], tmp_path: Path
) -> None:
    h, a, b = home
    code, out, _ = run(capsys, "--home", h, "export", "--format", "csl-json")
    assert code == 0 and len(json.loads(out)) == 2
    code, out, _ = run(capsys, "--home", h, "export", str(b), "--format", "csl-json")
    assert [i["title"] for i in json.loads(out)] == ["唐代诗学研究"]
    target = tmp_path / "out" / "lib.bib"
    code, out, _ = run(capsys, "--home", h, "export", "--format", "bibtex", "-o", str(target), "--json")
    assert code == 0 and json.loads(out) == {"format": "bibtex", "count": 2, "path": str(target.resolve())}
    assert "Barn Owls in Church Towers" in target.read_text(encoding="utf-8")
    # The exported file imports into another library as two metadata-only documents.
    other = str(tmp_path / "other")
    code, out, _ = run(capsys, "--home", other, "import", str(target), "--json")
    data = json.loads(out)
    assert code == 0 and len(data["imported"]) == 2 and not data["failed"]
    assert all(d["pages"] == 0 for d in data["imported"])
    # Re-importing it into the library it came from adds nothing.
    code, out, _ = run(capsys, "--home", h, "import", str(target), "--json")
    data = json.loads(out)
    assert not data["imported"] and not data["failed"]
    assert not data["updated"] and {d["doc_id"] for d in data["duplicates"]} == {a, b}


@pytest.mark.parametrize("style", ["gbt7714-2015-numeric", "gbt7714-2015-author-date"])
def test_cli_renders_the_standards_examples(
    style: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI contract on the GB/T 7714 worked examples: one entry per line, in file order."""
    import json
    import re

    from paperpilot.cli import main as cli_main

    rows = [json.loads(line) for line in (DATA / f"{style}.expected.jsonl").read_text().splitlines() if line]
    items_file = tmp_path / "items.json"
    items_file.write_text(json.dumps([r["item"] for r in rows], ensure_ascii=False))
    assert cli_main(["cite", "--csl-json", str(items_file), "--style", style]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(rows)

    def unlabel(s: str) -> str:
        return re.sub(r"^\[\d+\]\s*", "", s)

    matches = sum(unlabel(got) == unlabel(r["expected"]) for got, r in zip(lines, rows, strict=True))
    assert matches / len(rows) >= 0.95, f"{matches}/{len(rows)}"

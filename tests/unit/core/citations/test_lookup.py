"""Online lookup against a fake Crossref / arXiv server on 127.0.0.1: success, not found, slow, offline."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

import httpx
import pytest

from paperpilot.core.citations.identifiers import normalize_arxiv, normalize_doi
from paperpilot.core.citations.lookup import (
    LookupFailed,
    crossref_to_item,
    lookup_arxiv,
    lookup_doi,
    name_from_string,
)

CROSSREF_WORK = {
    "status": "ok",
    "message-type": "work",
    "message": {
        "DOI": "10.1038/nature14539",
        "type": "journal-article",
        "title": ["Deep <i>learning</i>"],
        "author": [
            {"given": "Yann", "family": "LeCun", "sequence": "first"},
            {"given": "Yoshua", "family": "Bengio", "sequence": "additional"},
            {"given": "Geoffrey", "family": "Hinton", "sequence": "additional"},
            {"name": "The Deep Learning Consortium", "sequence": "additional"},
        ],
        "container-title": ["Nature"],
        "volume": "521",
        "issue": "7553",
        "page": "436-444",
        "publisher": "Springer Science and Business Media LLC",
        "published-online": {"date-parts": [[2015, 5, 27]]},
        "published-print": {"date-parts": [[2015, 5, 28]]},
        "issued": {"date-parts": [[2015, 5, 27]]},
        "URL": "https://doi.org/10.1038/nature14539",
        "ISSN": ["0028-0836", "1476-4687"],
        "language": "en",
        "abstract": "<jats:p>Deep learning allows computational models &amp; more.</jats:p>",
    },
}

CHAPTER_WORK = {
    "message": {
        "DOI": "10.1007/978-3-030-00000-0_1",
        "type": "book-chapter",
        "title": ["A chapter"],
        "author": [{"family": "Doe", "given": "Jane"}],
        "container-title": ["Lecture Notes in Things"],
        "issued": {"date-parts": [[2019]]},
        "ISBN": ["978-3-030-00000-0"],
        "publisher-location": "Cham",
    }
}

ARXIV_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <title type="html">ArXiv Query: id_list=1706.03762</title>
  <entry>
    <id>http://arxiv.org/abs/1706.03762v7</id>
    <published>2017-06-12T17:57:34Z</published>
    <updated>2023-08-02T00:41:18Z</updated>
    <title>Attention Is All
      You Need</title>
    <summary>  The dominant sequence transduction models are based on complex recurrent
  networks.</summary>
    <author><name>Ashish Vaswani</name></author>
    <author><name>Noam Shazeer</name></author>
    <author><name>Łukasz Kaiser</name></author>
    <arxiv:doi>10.48550/arXiv.1706.03762</arxiv:doi>
    <link href="http://arxiv.org/abs/1706.03762v7" rel="alternate" type="text/html"/>
  </entry>
</feed>
"""

ARXIV_ERROR_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <entry>
    <id>http://arxiv.org/api/errors#incorrect_id_format_for_9999.99999</id>
    <title>Error</title>
    <summary>incorrect id format for 9999.99999</summary>
  </entry>
</feed>
"""

ARXIV_EMPTY_FEED = '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>q</title></feed>'


class FakeServer:
    """Crossref and arXiv look-alikes; the slow routes wait until the test ends."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.user_agents: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def send(self, code: int, body: bytes, ctype: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                fake.user_agents.append(self.headers.get("User-Agent", ""))
                url = urlsplit(self.path)
                path = unquote(url.path)
                if path.startswith("/slow"):
                    fake.release.wait(10)
                    self.send(200, b"{}", "application/json")
                elif path == "/crossref/works/10.1038/nature14539":
                    self.send(200, json.dumps(CROSSREF_WORK).encode(), "application/json")
                elif path == "/crossref/works/10.1007/978-3-030-00000-0_1":
                    self.send(200, json.dumps(CHAPTER_WORK).encode(), "application/json")
                elif path == "/crossref/works/10.1234/garbage":
                    self.send(200, b"<html>not json</html>", "text/html")
                elif path == "/crossref/works/10.1234/down":
                    self.send(503, b"busy", "text/plain")
                elif path.startswith("/crossref/works/"):
                    self.send(404, b"Resource not found.", "text/plain")
                elif path == "/arxiv":
                    ids = parse_qs(url.query).get("id_list", [""])[0]
                    feed = {"1706.03762": ARXIV_FEED, "9999.99999": ARXIV_ERROR_FEED}.get(
                        ids, ARXIV_EMPTY_FEED
                    )
                    self.send(200, feed.encode(), "application/atom+xml")
                else:
                    self.send(404, b"", "text/plain")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-lookup", daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    s = FakeServer()
    yield s
    s.close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_doi_lookup_maps_crossref(server: FakeServer) -> None:
    item = lookup_doi("https://doi.org/10.1038/nature14539", base_url=f"{server.base}/crossref")
    assert item.type == "article-journal"
    assert item.title == "Deep learning"  # markup stripped
    assert [(a.family, a.given) for a in item.author[:3]] == [
        ("LeCun", "Yann"),
        ("Bengio", "Yoshua"),
        ("Hinton", "Geoffrey"),
    ]
    assert item.author[3].literal == "The Deep Learning Consortium"
    assert item.container_title == "Nature"
    assert (item.volume, item.issue, item.page) == ("521", "7553", "436-444")
    assert item.issued == {"date-parts": [[2015, 5, 28]]}  # print date first
    assert item.DOI == "10.1038/nature14539" and item.ISSN == "0028-0836"
    assert item.abstract == "Deep learning allows computational models & more."
    assert server.user_agents[-1].startswith("PaperPilot/")


def test_doi_lookup_chapter_and_type_mapping(server: FakeServer) -> None:
    item = lookup_doi("doi:10.1007/978-3-030-00000-0_1", base_url=f"{server.base}/crossref")
    assert item.type == "chapter" and item.container_title == "Lecture Notes in Things"
    assert item.ISBN == "978-3-030-00000-0" and item.publisher_place == "Cham"
    for crossref, csl in [
        ("proceedings-article", "paper-conference"),
        ("posted-content", "article"),
        ("dissertation", "thesis"),
        ("book", "book"),
    ]:
        assert crossref_to_item({"type": crossref, "title": ["T"]}).type == csl


def test_doi_lookup_errors_in_plain_words(server: FakeServer) -> None:
    base = f"{server.base}/crossref"
    with pytest.raises(LookupFailed, match=r"Crossref has no record for DOI 10\.5555/nothing-here"):
        lookup_doi("10.5555/nothing-here", base_url=base)
    with pytest.raises(LookupFailed, match="cannot read"):
        lookup_doi("10.1234/garbage", base_url=base)
    with pytest.raises(LookupFailed, match="HTTP 503"):
        lookup_doi("10.1234/down", base_url=base)
    with pytest.raises(LookupFailed, match="does not look like a DOI"):
        lookup_doi("not-a-doi", base_url=base)


def test_timeout_is_reported(server: FakeServer) -> None:
    with pytest.raises(LookupFailed) as e:
        lookup_doi("10.1038/nature14539", base_url=f"{server.base}/slow", timeout=0.3)
    assert e.value.message == "Crossref did not answer within 0.3 s; try again later."
    with pytest.raises(LookupFailed, match=r"arXiv did not answer within 0\.3 s"):
        lookup_arxiv("1706.03762", base_url=f"{server.base}/slow", timeout=0.3)


def test_offline_is_reported() -> None:
    base = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(LookupFailed, match=r"No internet connection: could not reach 127\.0\.0\.1"):
        lookup_doi("10.1038/nature14539", base_url=base, timeout=2)
    with pytest.raises(LookupFailed, match="No internet connection"):
        lookup_arxiv("1706.03762", base_url=base, timeout=2)


def test_arxiv_lookup(server: FakeServer) -> None:
    item = lookup_arxiv("arXiv:1706.03762v5", base_url=f"{server.base}/arxiv")
    assert item.type == "article" and item.container_title == "arXiv"
    assert item.title == "Attention Is All You Need"
    assert [a.family for a in item.author] == ["Vaswani", "Shazeer", "Kaiser"]
    assert item.author[2].given == "Łukasz"
    assert item.year == 2017 and item.issued == {"date-parts": [[2017, 6, 12]]}
    assert item.abstract.startswith("The dominant sequence transduction models")
    assert item.DOI == "10.48550/arXiv.1706.03762"
    assert item.URL == "https://arxiv.org/abs/1706.03762" and item.arxiv == "1706.03762"


def test_arxiv_not_found(server: FakeServer) -> None:
    with pytest.raises(LookupFailed, match=r"arXiv has no record for 9999\.99999"):
        lookup_arxiv("9999.99999", base_url=f"{server.base}/arxiv")
    with pytest.raises(LookupFailed, match=r"arXiv has no record for 2101\.00001"):
        lookup_arxiv("2101.00001", base_url=f"{server.base}/arxiv")
    with pytest.raises(LookupFailed, match="does not look like an arXiv id"):
        lookup_arxiv("attention", base_url=f"{server.base}/arxiv")


def test_a_given_client_is_used(server: FakeServer) -> None:
    with httpx.Client() as client:
        item = lookup_doi("10.1038/nature14539", base_url=f"{server.base}/crossref", client=client)
    assert item.title == "Deep learning"


@pytest.mark.parametrize(
    ("raw", "family", "given", "literal"),
    [
        ("张伯伟", "", "", "张伯伟"),
        ("Ashish Vaswani", "Vaswani", "Ashish", ""),
        ("Vaswani, Ashish", "Vaswani", "Ashish", ""),
        ("Ludwig van Beethoven", "van Beethoven", "Ludwig", ""),
        ("Martin Luther King Jr.", "King Jr.", "Martin Luther", ""),
        ("Plato", "Plato", "", ""),
    ],
)
def test_name_from_string(raw: str, family: str, given: str, literal: str) -> None:
    n = name_from_string(raw)
    assert (n.family, n.given, n.literal) == (family, given, literal)


def test_identifier_normalisation() -> None:
    assert normalize_doi("https://doi.org/10.1038/NATURE14539") == "10.1038/nature14539"
    assert normalize_arxiv("https://arxiv.org/abs/1706.03762v7") == "1706.03762"
    assert normalize_arxiv("arXiv:hep-th/9901001v2") == "hep-th/9901001"
    assert normalize_arxiv("math.GT/0309136v1") == "math.GT/0309136"

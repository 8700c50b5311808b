"""Candidate keywords also come from passages found by meaning (issue 25): the skim of a hit only
the search by meaning found says the question's concept in the documents' own words, and the
offline policy's query refinement can search those words before anything of it is read."""

from __future__ import annotations

from collections.abc import Sequence

from paperpilot.core.agent.events import Info, ToolResult
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.offline import OfflinePolicy
from paperpilot.core.agent.state import AgentState
from paperpilot.core.library_records import DocumentInfo, Hit, Passage

QUESTION = "How do staff report a sick day?"
SURVEY = "Staff report a sick day to the team; a sick day is reported by staff on the day itself."
SKIM = "Employees file a leave declaration in the personnel portal before nine."


class Pool:
    """Keyword search finds the survey (the question's own words); only the search by meaning
    finds the procedure, which names the thing differently. Records every query."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def list_documents(self) -> list[DocumentInfo]:
        return [DocumentInfo(1, "Staff Survey", [], 2020, 1, 3, "ready"),
                DocumentInfo(2, "Leave Procedure", [], 2021, 1, 2, "ready")]  # fmt: skip

    def search(self, query: str, k: int = 3, *, doc_ids: Sequence[int] | None = None, year_from: int | None = None,
               year_to: int | None = None, kinds: Sequence[str] | None = None, mode: str | None = None) -> list[Hit]:  # fmt: skip
        self.queries.append(query)
        if set(query.lower().split()) & {"leave", "declaration", "personnel"}:  # the procedure's words
            return [Hit(2, 21, 1, "Leave Procedure", "", 1, 4.0, "The leave declaration is approved in a day.")]
        hits = [Hit(1, 10 + s, s, "Staff Survey", "", 1, 5.0 - s, SURVEY) for s in range(3)]
        # Last and weak: the skim that names the thing as the documents do.
        hits.append(Hit(2, 20, 0, "Leave Procedure", "", 1, 0.01, SKIM, found_by="meaning", dense=0.83))
        return hits[:k]

    def read(self, doc_id: int, segment: int) -> Passage:
        text = SURVEY if doc_id == 1 else (SKIM if segment == 0 else "The leave declaration is approved in a day.")
        return Passage(doc_id, 10 * doc_id + segment, segment, self.list_documents()[doc_id - 1].title, "", 1, text,
                       None, None)  # fmt: skip


def test_terms_of_a_skim_found_by_meaning_become_candidate_keywords() -> None:
    pool = Pool()
    events = list(run_agent(QUESTION, pool, OfflinePolicy(), AgentOptions(mode="loop", max_rounds=6)))
    first = next(e for e in events if isinstance(e, ToolResult) and e.tool == "search")
    meaning = [h for h in first.hits if h.found_by == "meaning"]
    assert meaning and meaning[0].doc_id == 2
    (info,) = [e for e in events if isinstance(e, Info) and e.code == "meaning_keywords"]
    words = info.data["terms"]
    assert words and all(w.lower() in ("Leave Procedure. " + SKIM).lower() for w in words)
    # The procedure's passage was not read after that search: its words came from the skim.
    reads = [e for e in events if isinstance(e, ToolResult) and e.tool == "read"]
    assert reads and all(p.doc_id == 1 for p in reads[0].passages)
    # The refinement searched the documents' word, which found the procedure's other passage.
    later = pool.queries[1:]
    assert any(set(q.lower().split()) & {"leave", "declaration", "personnel"} for q in later), pool.queries
    found = [h for e in events if isinstance(e, ToolResult) and e.tool == "search" for h in e.hits]
    assert any((h.doc_id, h.segment, h.found_by) == (2, 1, "keyword") for h in found)


def test_hits_found_by_keyword_add_no_terms_from_their_skims() -> None:
    from paperpilot.core.agent.events import HitView

    st = AgentState(question=QUESTION)
    keyword = HitView(doc_id=1, segment=0, title="Staff Survey", snippet=SKIM, found_by="keyword")
    both = HitView(doc_id=1, segment=1, title="Staff Survey", snippet=SKIM, found_by="both")
    assert st.add_meaning_terms([keyword, both]) == [] and st.candidate_keywords == []
    meaning = HitView(doc_id=2, segment=0, title="Leave Procedure", snippet=SKIM, found_by="meaning")
    added = st.add_meaning_terms([meaning])
    assert 0 < len(added) <= 3 and st.candidate_keywords == added
    again = st.add_meaning_terms([meaning])
    assert not {w.lower() for w in again} & {w.lower() for w in added}  # a known term is not added twice

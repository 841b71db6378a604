"""What the terminal client shows, computed with no widget (:mod:`tui.model`): the tree and each node's state
as replies arrive, the labels that say a state in words, and the evidence rows and linked citations."""

from __future__ import annotations

from types import SimpleNamespace

from bus.client import Node
from bus.messages import ErrorInfo, Hit, NodeReport, PassageRef, SearchResult, Summary, SummarySentence
from bus.asking import OrgResult
from tests.helpers.terminal import PATHS, fixed_answer
from tui import model


def node(role: str, path: str, children: str = "") -> Node:
    """A node as discovery describes it (only its metadata matters here)."""
    metadata = {"role": role, "path": path, **({"children": children} if children else {})}
    return Node(info=SimpleNamespace(metadata=metadata, endpoints=[]), stats=None)


def test_the_tree_holds_every_path_and_those_above_it_in_name_order():
    tree = model.Federation.of(["hospital_b.cardiology", "hospital_a.surgery", "hospital_a.clinical.medicine"])
    assert set(tree.nodes) == {"hospital_a", "hospital_a.surgery", "hospital_a.clinical", "hospital_a.clinical.medicine",
                               "hospital_b", "hospital_b.cardiology"}
    assert tree.roots == ["hospital_a", "hospital_b"]
    assert tree.nodes["hospital_a"].children == ["hospital_a.clinical", "hospital_a.surgery"]
    assert sorted(tree.below("hospital_a")) == ["hospital_a.clinical", "hospital_a.clinical.medicine", "hospital_a.surgery"]
    assert tree.below("hospital_c") == [] and tree.nodes["hospital_a.clinical.medicine"].name == "medicine"


def test_discovery_gives_the_tree_with_the_children_that_are_down():
    nodes = [node("gateway", "", "hospital_a,hospital_c"), node("router", "hospital_a", "hospital_a.medicine"),
             node("leaf", "hospital_a.medicine")]
    tree = model.Federation.discovered(nodes)
    assert set(tree.nodes) == {"hospital_a", "hospital_a.medicine", "hospital_c"}, "hospital C is named by the gateway"


def test_a_question_makes_every_node_pending_and_replies_set_their_states():
    tree = model.Federation.of(PATHS)
    tree.nodes["hospital_a"].become("successful")  # from the question before
    tree.start()
    assert set(tree.pending()) == set(tree.nodes) and all(n.seen == ["pending"] for n in tree.nodes.values())
    a_result = SearchResult(nodes={"fed.q.hospital_a.medicine": NodeReport(status="successful", hits=2),
                                   "fed.q.hospital_a.surgery": NodeReport(status="failed")})
    changed = tree.apply(OrgResult(org="hospital_a", subject="fed.q.hospital_a",
                                   report=NodeReport(status="partial", hits=2), result=a_result))
    assert sorted(changed) == ["hospital_a", "hospital_a.medicine", "hospital_a.surgery"]
    assert [tree.nodes[p].state for p in ("hospital_a", "hospital_a.medicine", "hospital_a.surgery")] == \
        ["partial", "successful", "failed"]
    assert tree.nodes["hospital_a.medicine"].report.hits == 2
    changed = tree.apply(OrgResult(org="hospital_c", subject="fed.q.hospital_c", report=NodeReport(status="timed_out")))
    assert sorted(changed) == ["hospital_c", "hospital_c.neurology"], "what is under a node that did not answer did not either"
    assert tree.nodes["hospital_c.neurology"].seen == ["pending", "timed_out"]
    tree.finish()
    assert tree.pending() == [] and tree.nodes["hospital_b"].seen == ["pending", "idle"]
    assert tree.nodes["hospital_a"].state == "partial", "finishing leaves the states replies set"


def test_the_final_answer_sets_every_node_and_its_summary_but_not_the_gateways_own_report():
    answer = fixed_answer()
    answer.nodes["fed.ask"] = NodeReport(status="successful")
    tree = model.Federation.of(PATHS)
    tree.start()
    changed = tree.apply(answer)
    assert "fed.ask" not in tree.nodes and "fed.ask" not in changed
    assert tree.nodes["hospital_c"].state == "timed_out" and tree.nodes["hospital_b.cardiology"].state == "successful"
    assert tree.nodes["hospital_a"].summary is answer.summaries[0] and changed.count("hospital_a") == 2


def test_a_label_says_the_state_in_words_with_hits_latency_and_summary():
    done = model.NodeState("hospital_a.medicine", state="successful",
                           report=NodeReport(status="successful", took_ms=12.4, hits=3))
    assert model.label(done) == "medicine  [green]✓ successful[/]  3 hits  12 ms"
    failed = model.NodeState("hospital_c", state="timed_out", report=NodeReport(status="timed_out", took_ms=3000.0, hits=0))
    assert model.label(failed) == "hospital_c  [red]✗ timed out[/]  3000 ms", "no hit count for a node that did not answer"
    pending = model.NodeState("hospital_b", state="pending", report=NodeReport(status="successful"))
    assert model.label(pending, frame=1) == f"hospital_b  [yellow]{model.SPINNER[1]} pending[/]", "a spinner, no old figures"
    assert model.label(model.NodeState("x", state="odd")) == "x  [white]? odd[/]", "a state it does not know is still said"
    summary = Summary(path="hospital_a", method="llm", status="timed_out")
    assert model.label(model.NodeState("hospital_a", summary=summary)).endswith("[italic]summary timed_out[/]")
    summary = Summary(path="hospital_a", method="llm", status="successful")
    assert model.label(model.NodeState("hospital_a", summary=summary)).endswith("[italic]summarized[/]")


def test_evidence_rows_are_numbered_as_cited_with_a_one_line_snippet():
    long = Hit(id="1", org="a", path="a.u", score=0.5, text="word  \n" * 40)
    withheld = Hit(id="2", org="a", path="a.u", score=0.4, text="", patient="Ana Ruiz", withheld=True)
    rows = model.evidence_rows([long, withheld])
    assert [(r.n, r.where, r.patient) for r in rows] == [(1, "a.u", ""), (2, "a.u", "Ana Ruiz")]
    assert len(rows[0].snippet) == 120 and rows[0].snippet.endswith("…") and "\n" not in rows[0].snippet
    assert rows[1].snippet == "(released only as a summary)" and rows[1].hit is withheld
    assert model.snippet(Hit(id="3", org="a", path="a.u", score=0.1, text=" short\ttext ")) == "short text"


def test_citations_become_links_in_order_of_first_appearance():
    text = "Ana Ruiz: apixaban. [2]\n\nBo Chen: warfarin stopped. [1] [2]\n"
    assert model.citations(text) == [2, 1]
    assert model.cited_markdown(text) == ("Ana Ruiz: apixaban. [\\[2\\]](cite:2)\n\n"
                                          "Bo Chen: warfarin stopped. [\\[1\\]](cite:1) [\\[2\\]](cite:2)")
    assert model.citations("no citation here") == []


def test_a_passage_shows_whole_with_its_metadata_and_copies_or_says_it_was_withheld():
    hit = fixed_answer().hits[0]
    details = model.passage_details(hit)
    assert details.startswith("**Ana Ruiz** · `hospital_a.medicine` · `hospital_a.medicine/note-1#0` · score 0.612")
    assert hit.text in details and "date: 2023-02-01 · note_type: Progress note" in details
    assert details.endswith("Same text also in: `hospital_a.medicine` `hospital_a.medicine/note-7#0`")
    assert model.passage_details(hit, per_patient=True).endswith(
        "More of this patient's passages: `hospital_a.medicine` `hospital_a.medicine/note-7#0`")
    withheld = Hit(id="9", org="a", path="a.u", score=0.3, text="", withheld=True)
    assert "*released only as a summary: no text*" in model.passage_details(withheld)
    assert model.passage_details(withheld).startswith("**no patient**")


def test_a_summary_links_the_sources_the_answer_shows_and_names_the_others():
    hits = fixed_answer().hits
    summary = Summary(path="hospital_a", method="extractive", status="failed", passages=20, relevant=6,
                      error=ErrorInfo(type="llm", reason="the model was too slow"),
                      sentences=[SummarySentence(text="Started apixaban.", patients=["Ana Ruiz"],
                                                 sources=[hits[2].ref(), PassageRef(path="hospital_a.x", id="gone")])])
    assert model.summary_markdown(summary, hits).splitlines() == [
        "**hospital_a** — extractive, failed; 6 of 20 passages relevant",
        "*the model was too slow*",
        "- Ana Ruiz: Started apixaban. ([\\[3\\]](cite:3), `gone`)",
    ]

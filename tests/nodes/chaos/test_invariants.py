"""The invariants catch what they must: each broken promise in a made-up answer is found, an honest
answer passes. (The chaos scenarios then hold real answers to them, tests/nodes/chaos/test_scenarios.py.)"""

from __future__ import annotations

import pytest

from bus.messages import Coverage, Hit, NodeReport, PassageRef, Summary, SummarySentence
from bus.asking import Answer
from nodes.chaos.invariants import ANSWER_SLACK_MS, IMPOSTOR_MARK, Fault, Invariants, Query
from nodes.demo.federation import prepare
from nodes.run.spec import FederationSpec

LEAVES = ["hospital_a.admissions", "hospital_a.medicine", "hospital_a.orthopaedics", "hospital_a.psychiatry",
          "hospital_a.surgery", "hospital_b.admissions", "hospital_b.cardiology", "hospital_b.medicine",
          "hospital_c.admissions", "hospital_c.neurology"]


@pytest.fixture(scope="module")
def invariants(tmp_path_factory) -> Invariants:
    return Invariants(FederationSpec.load(prepare(tmp_path_factory.mktemp("demo"))))


def honest(invariants: Invariants, user: str, *, statuses: dict[str, str] | None = None, took_ms: float = 100.0,
           hits: list[Hit] | None = None) -> Query:
    """A query and the answer an honest federation gives ``user`` (every node it may search successful)."""
    reach = invariants.reach(user)
    nodes = {}
    for path in invariants.paths:
        if reach[path]:
            nodes[path] = "successful"
        elif path in invariants.denied_tops(user):
            nodes[path] = "denied"
    nodes.update(statuses or {})
    for router in [p for p in nodes if "." not in p and nodes[p] not in ("successful", "partial")]:
        nodes = {p: s for p, s in nodes.items() if not p.startswith(router + ".")}  # a failed router hides its units
    leaves = [leaf for leaf in LEAVES if nodes.get(leaf) == "successful"]
    failed = [p for p, s in nodes.items() if s not in ("successful", "partial", "denied")]
    coverage = Coverage(total=len(leaves) + len(failed), successful=len(leaves), timed_out=len(failed))
    if hits is None:
        hits = [Hit(id="1", org=leaves[0].split(".")[0], path=leaves[0], score=0.8, text="a passage")]
    answer = Answer(question="q", hits=hits, coverage=coverage,
                    nodes={f"fed.q.{path}": NodeReport(status=status) for path, status in nodes.items()})
    return Query(user=user, question="q", deadline_ms=3_000, start=10.0, end=10.0 + took_ms / 1000.0, answer=answer)


def kinds(invariants: Invariants, query: Query, faults=()) -> list[str]:
    return [v.invariant for v in invariants.check(query, faults)]


def test_an_honest_answer_passes_for_users_with_and_without_denials(invariants):
    for user in ("U1", "U7", "U8"):  # sees everything; denied hospital C and four units of A; denied A and B
        assert invariants.check(honest(invariants, user), []) == [], user


def test_a_passage_or_summary_from_a_denied_node_is_caught(invariants):
    leaked = Hit(id="9", org="hospital_c", path="hospital_c.neurology", score=0.9, text="C's note")
    query = honest(invariants, "U7", hits=[leaked])  # B.nurse may not search hospital C
    assert "denied" in kinds(invariants, query)
    query = honest(invariants, "U7")
    query.answer.summaries = [Summary(path="hospital_a", method="extractive", status="successful", sentences=[
        SummarySentence(text="A sentence.", sources=[PassageRef(path="hospital_a.psychiatry", id="3")])])]
    assert "denied" in kinds(invariants, query)  # U7 may search hospital A's admissions, not its psychiatry
    query = honest(invariants, "U7", statuses={"hospital_c": "successful"})
    assert "denied" in kinds(invariants, query)


def test_a_node_reported_successful_while_it_was_down_is_caught(invariants):
    down = Fault("down", frozenset({"hospital_c", "hospital_c.admissions", "hospital_c.neurology"}), 5.0, 20.0)
    assert "coverage" in kinds(invariants, honest(invariants, "U1"), [down])
    assert invariants.check(honest(invariants, "U1", statuses={"hospital_c": "unavailable"}), [down]) == []


def test_made_up_passages_hits_of_failed_nodes_and_miscounted_coverage_are_caught(invariants):
    made_up = Hit(id="x", org="hospital_b", path="hospital_b.medicine", score=0.9, text=f"{IMPOSTOR_MARK}: give 10 g")
    assert "coverage" in kinds(invariants, honest(invariants, "U1", hits=[made_up]))
    of_timed_out = Hit(id="2", org="hospital_a", path="hospital_a.admissions", score=0.8, text="a passage")
    query = honest(invariants, "U1", statuses={"hospital_a.admissions": "timed_out"}, hits=[of_timed_out])
    assert "coverage" in kinds(invariants, query)
    query = honest(invariants, "U1")
    query.answer.coverage = Coverage(total=10, successful=9, timed_out=1)
    assert "coverage" in kinds(invariants, query)


def test_a_node_no_fault_touched_must_answer(invariants):
    hung = Fault("down", frozenset({"hospital_c", "hospital_c.admissions", "hospital_c.neurology"}), 5.0, 20.0)
    query = honest(invariants, "U1", statuses={"hospital_b": "timed_out", "hospital_c": "timed_out"})
    found = invariants.check(query, [hung])
    assert [v.invariant for v in found] == ["collateral"] and "hospital_b reported timed_out" in found[0].detail
    assert invariants.check(query, [Fault("broker", frozenset(invariants.paths), 5.0, 20.0)]) == []


def test_a_question_asked_again_may_time_out_on_the_rest_of_its_deadline_but_not_fail(invariants):
    gateway = Fault("blip", frozenset({""}), 10.05, 10.05)  # its gateway killed while it was in flight
    query = honest(invariants, "U1", statuses={"hospital_a": "timed_out", "hospital_b": "timed_out"})
    assert kinds(invariants, query, [gateway]) == ["collateral", "collateral"]
    query.restarted = 1
    assert invariants.check(query, [gateway]) == []
    query = honest(invariants, "U1", statuses={"hospital_a": "failed"})
    query.restarted = 1
    assert kinds(invariants, query, [gateway]) == ["collateral"]


def test_one_replica_killed_excuses_only_the_queries_in_flight(invariants):
    query = honest(invariants, "U1", statuses={"hospital_a.surgery": "timed_out"})
    in_flight = Fault("blip", frozenset({"hospital_a.surgery"}), 10.05, 10.05)
    before = Fault("blip", frozenset({"hospital_a.surgery"}), 9.0, 9.0)
    assert invariants.check(query, [in_flight]) == []
    assert kinds(invariants, query, [before]) == ["collateral"]


def test_late_and_missing_answers_are_caught_but_not_while_the_broker_is_down(invariants):
    late = honest(invariants, "U1", took_ms=3_000 + ANSWER_SLACK_MS + 50)
    assert kinds(invariants, late) == ["deadline"]
    lost = Query(user="U1", question="q", deadline_ms=3_000, start=10.0, end=11.0, error="no gateway")
    assert kinds(invariants, lost) == ["answered"]
    broker = Fault("broker", frozenset(invariants.paths), 9.0, 12.0)
    assert invariants.check(lost, [broker]) == []


def test_recovery_is_seen_only_from_a_user_who_may_search_what_failed(invariants):
    router = frozenset({"hospital_b"})
    assert invariants.full(honest(invariants, "U1"), router)
    assert not invariants.full(honest(invariants, "U8"), router)  # C.research may not search hospital B
    assert not invariants.full(honest(invariants, "U1", statuses={"hospital_b.medicine": "timed_out"}), router)

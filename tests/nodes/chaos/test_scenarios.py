"""Every chaos scenario, at a small size, against the demo federation (identities and policies on) run
as real processes on a real three-server NATS cluster: no invariant violated on any query, full
coverage back within each scenario's bound, and each fault seen to bite. The full run is
``fedrag chaos all`` (its report is in the README)."""

from __future__ import annotations

import json

import pytest

from nodes.chaos import scenarios
from nodes.chaos.lab import Lab


def reported(outcome: scenarios.Outcome, path: str) -> set[str]:
    """Every status ``path`` was reported with in the outcome's answers."""
    return {q.answer.nodes[f"fed.q.{path}"].status for q in outcome.queries
            if q.answer is not None and f"fed.q.{path}" in q.answer.nodes}


@pytest.mark.slow
@pytest.mark.timing  # every answer by its deadline plus the invariants' slack, recovery within each bound
@pytest.mark.timeout(900)
async def test_every_scenario_keeps_every_invariant(demo_spec, demo_dir):
    questions = json.loads((demo_dir / "corpus" / "questions.json").read_text())
    lab = await Lab.start(demo_spec)
    outcomes = {}
    try:
        for name, scenario in scenarios.SCENARIOS.items():
            outcomes[name] = await scenarios.run(lab, scenario, questions, list(demo_spec.users), clients=3,
                                                 before_s=0.5, hold_s=2.0, after_s=1.0)
    finally:
        await lab.stop()
    report = scenarios.report(list(outcomes.values()))
    print(report)
    assert all(not o.violations for o in outcomes.values()), report
    assert all(o.recovery_s is not None and o.queries for o in outcomes.values()), report
    targets = lab.targets
    # each fault bit: what it struck was reported as it should be while it lasted
    assert "unavailable" in reported(outcomes["leaf-killed"], targets.leaf)
    assert "unavailable" in reported(outcomes["router-killed"], targets.router)
    assert "unavailable" in reported(outcomes["org-killed"], targets.org)
    assert "timed_out" in reported(outcomes["org-hung"], targets.org)
    assert "failed" in reported(outcomes["impostor"], targets.org)
    assert "successful" in reported(outcomes["replica-killed"], targets.replica)
    assert outcomes["broker-restart"].unanswered + outcomes["broker-restart"].incomplete > 0

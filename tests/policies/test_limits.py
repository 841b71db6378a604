"""Per-person limits: the caps a caller's attributes give, and the token bucket of questions a minute."""

from __future__ import annotations

import pytest

from bus.errors import RateLimitedError
from policies.limits import Caps, LimitRule, Limits, RateLimiter, cost

NURSE = {"org": ["hospital_b"], "role": ["nurse"]}
PHYSICIAN = {"org": ["hospital_a"], "role": ["physician"]}


def test_rules_replace_the_defaults_for_whom_they_name_and_node_rules_only_lower_them():
    limits = Limits(max_passages=50, max_questions_per_minute=600,
                    rules=[LimitRule(name="nurses", require={"role": ["nurse"]}, max_passages=20),
                           LimitRule(name="physicians", require={"role": ["physician"]}, max_passages=200)])
    assert (limits.caps(NURSE).max_passages, limits.caps(NURSE).rules) == (20, ("nurses",))
    assert limits.caps(PHYSICIAN).max_passages == 200  # a rule may allow more than the default
    assert limits.caps({"role": ["admin"]}) == Caps(50, 600)
    strict = [LimitRule(name="b-only", require={"org": ["hospital_b"]}, max_passages=5, max_questions_per_minute=6)]
    assert limits.caps(NURSE, strict) == Caps(5, 6, ("nurses", "b-only"))
    loose = [LimitRule(name="loose", require={"org": ["hospital_b"]}, max_passages=900)]
    assert limits.caps(NURSE, loose).max_passages == 20, "a node's rule never raises what the federation allows"


def test_a_bucket_allows_a_tenth_of_a_minute_at_once_then_refills_at_the_rate():
    rate = RateLimiter()
    caps = Caps(max_passages=10, max_questions_per_minute=60)  # a token a second, bursts of 6
    for i in range(6):
        rate.check("u", caps, "q", now=100.0)
    with pytest.raises(RateLimitedError) as caught:
        rate.check("u", caps, "q", now=100.0)
    assert caught.value.retry_after_ms == pytest.approx(1000.0)
    rate.check("someone else", caps, "q", now=100.0)  # every person has a bucket of their own
    rate.check("u", caps, "q", now=101.0)  # one token back a second later
    with pytest.raises(RateLimitedError):
        rate.check("u", caps, "q", now=101.0)


def test_a_long_question_counts_as_several_and_a_dry_check_takes_nothing():
    assert (cost("x"), cost("x" * 600), cost("x" * 601), cost("x" * 8000)) == (1, 1, 2, 14)
    rate = RateLimiter()
    caps = Caps(max_passages=10, max_questions_per_minute=120)  # bursts of 12
    for _ in range(5):
        rate.check("u", caps, "x" * 1200, now=0.0, dry=True)
    rate.check("u", caps, "x" * 6000, now=0.0)  # 10 of the 12
    with pytest.raises(RateLimitedError, match="more than 120 questions a minute"):
        rate.check("u", caps, "x" * 1800, now=0.0)  # 3 more do not fit
    rate.check("u", caps, "x" * 1200, now=0.0)


def test_a_limiter_forgets_the_least_recently_seen_beyond_its_size():
    rate = RateLimiter(size=2)
    caps = Caps(max_passages=1, max_questions_per_minute=6)  # bursts of one
    rate.check("a", caps, now=0.0)
    rate.check("b", caps, now=0.0)
    rate.check("c", caps, now=0.0)
    rate.check("a", caps, now=0.0)  # forgotten, so a full bucket again
    with pytest.raises(RateLimitedError):
        rate.check("c", caps, now=0.0)


def test_a_gate_judges_each_caller_by_their_own_claims_whatever_it_judged_before():
    from policies.abac import NodePolicy, Policy
    from policies.gate import PolicyGate
    from policies.tokens import Identity

    policy = NodePolicy(gate=[Policy(name="neuro", require={"dept": ["neurology"]})],
                        limits=[LimitRule(name="students", require={"role": ["student"]}, max_passages=5)])
    gate = PolicyGate(verifier=None, policy=policy, limits=Limits(max_passages=50))
    neurologist = Identity(sub="a", org="hospital_a", role="physician", dept="neurology", iss="idp")
    student = Identity(sub="b", org="hospital_a", role="student", dept="neurology", iss="idp")
    cardiologist = Identity(sub="c", org="hospital_a", role="physician", dept="cardiology", iss="idp")
    for _ in range(2):  # judged, then remembered: the same answers, each caller their own
        assert gate.standing(neurologist)[1].allowed and gate.caps(neurologist).max_passages == 50
        assert gate.standing(student)[1].allowed and gate.caps(student) == Caps(5, 600, ("students",))
        assert not gate.standing(cardiologist)[1].allowed
    assert not gate.standing(Identity(sub="a", org="hospital_a", role="physician", dept="cardiology", iss="idp"))[1].allowed, \
        "the same person with other claims is judged again"

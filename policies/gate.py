"""The two points where a node asks a policy: the gate and the per-passage check.

Every node — gateway, router and leaf — calls :meth:`Gate.check` in its request prologue
(:mod:`nodes._service`), with the raw request headers and the question, never with claims decided by
another node: each node verifies the caller itself. Every leaf calls :meth:`Gate.visible` for each
candidate passage and :meth:`Gate.hidden` once per query with how many it hid; every router calls
:meth:`Gate.only_summaries` to learn whether it may release passage text to the caller.

* :class:`AllowAll` is an open federation's gate (no identities configured): everyone is the
  anonymous caller and sees everything — except that a router set to ``summaries_only = true``
  releases only summaries to everyone.
* :class:`PolicyGate` verifies the token (:mod:`policies.tokens`) and the proof binding it to this
  question (:mod:`policies.proof`), evaluates the node's policies (:mod:`policies.abac`), holds the
  caller to their limits (:mod:`policies.limits`: questions a minute at :meth:`Gate.check`, passages a
  question at :meth:`Gate.limit_k`) and writes every decision to the organization's audit log
  (:mod:`policies.audit`).
"""

from __future__ import annotations

from typing import Any, Protocol

from bus import headers as h
from bus.errors import DeniedError, RateLimitedError
from policies import proof
from policies.abac import Decision, NodePolicy
from policies.audit import AuditLog
from policies.limits import Caps, Limits, RateLimiter
from policies.tokens import ANONYMOUS, Identity, Verifier


#: How many callers' standing a gate remembers (all forgotten at once when full: judging one again is cheap).
STANDING_CACHE = 4096


class Gate(Protocol):
    """What nodes require of a policy."""

    async def check(self, headers: dict[str, str], question: str, path: str, trace: str, use: str = "search") -> Any:
        """Returns the verified caller, or raises :class:`bus.errors.DeniedError` with the reason. ``use`` is
        what the request is for: ``search``, or ``stats`` (counting the question's words, which costs the
        caller none of their questions a minute)."""

    def visible(self, caller: Any, metadata: dict) -> bool:
        """Whether the caller (as returned by :meth:`check`) may see a passage with ``metadata``."""

    def hidden(self, caller: Any, path: str, trace: str, count: int) -> None:
        """Told, once per query at a leaf, how many passages :meth:`visible` hid."""

    def filters_passages(self, caller: Any) -> bool:
        """Whether :meth:`visible` may hide any passage from the caller here (if not, nothing need be checked)."""

    def only_summaries(self, caller: Any, path: str, trace: str) -> bool:
        """Whether a router releases only summaries of its subtree (no passage text) to the caller."""

    def limit_k(self, caller: Any, k: int, path: str, trace: str) -> int:
        """How many passages the caller may have of a question that asks for ``k``."""


class AllowAll:
    """Every caller may search everything and see every passage (no identities configured).

    Args:
        policy: the node's policies; only ``summaries_only = true`` counts here (there are no attributes).
    """

    def __init__(self, policy: NodePolicy | None = None) -> None:
        self.policy = policy or NodePolicy()

    async def check(self, headers: dict[str, str], question: str, path: str, trace: str, use: str = "search") -> Identity:
        return ANONYMOUS

    def visible(self, caller: Any, metadata: dict) -> bool:
        return True

    def hidden(self, caller: Any, path: str, trace: str, count: int) -> None:
        return None

    def filters_passages(self, caller: Any) -> bool:
        return False

    def only_summaries(self, caller: Any, path: str, trace: str) -> bool:
        return self.policy.summaries_only is True

    def limit_k(self, caller: Any, k: int, path: str, trace: str) -> int:
        return k

    def max_passages(self, caller: Any) -> None:
        return None


def bearer(value: str | None) -> str | None:
    """The token in an ``Authorization: Bearer <token>`` header value."""
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class PolicyGate:
    """A node's gate over signed identities and its own policies.

    Args:
        verifier: the process's token verifier (shared by its nodes).
        policy: this node's policies.
        audit: the organization's audit log (``None``: decisions are not logged).
        replay: this node's cache of proof ids already served.
        limits: the federation's limits (this node's own rules are in ``policy.limits``).
    """

    def __init__(self, verifier: Verifier, policy: NodePolicy, *, audit: AuditLog | None = None,
                 replay: proof.ReplayCache | None = None, limits: Limits | None = None) -> None:
        self.verifier = verifier
        self.policy = policy
        self.audit = audit
        self.replay = replay or proof.ReplayCache()
        self.limits = limits or Limits()
        self.rate = RateLimiter()
        self._standing: dict[Identity, tuple[Caps, Decision]] = {}  # what a caller may do here, by who they are

    async def check(self, headers: dict[str, str], question: str, path: str, trace: str, use: str = "search") -> Identity:
        node = path or "gateway"
        identity = None
        try:
            identity = await self.verifier.verify(bearer(headers.get(h.AUTHORIZATION)))
            caps, decision = self.standing(identity)
            self.rate.check(identity.key, caps, question, dry=True)  # refused anyway: spare the proof's check
            proof.verify_proof(headers.get(h.PROOFS[use]), identity, question, self.replay, use=use)
            if not decision.allowed:
                raise DeniedError(decision.reason)
            if use == "search":
                self.rate.check(identity.key, caps, question)
        except DeniedError as exc:
            self._log(trace, identity, node, "deny", None, str(exc), question)
            raise DeniedError(f"{node}: {exc}") from None
        except RateLimitedError as exc:
            self._log(trace, identity, node, "limit", None, str(exc), question)
            raise RateLimitedError(f"{node}: {exc}", exc.retry_after_ms) from None
        self._log(trace, identity, node, "allow", decision.policy, decision.reason, question)
        return identity

    def standing(self, caller: Identity) -> tuple[Caps, Decision]:
        """The caller's limits at this node, and whether its policies admit them: the same for every question of
        theirs (an identity is its verified claims; the policies and limits are fixed), so judged once."""
        known = self._standing.get(caller)
        if known is None:
            if len(self._standing) >= STANDING_CACHE:
                self._standing.clear()
            attributes = caller.attributes()
            known = self._standing[caller] = (self.limits.caps(attributes, self.policy.limits), self.policy.admit(attributes))
        return known

    def caps(self, caller: Identity) -> Caps:
        """The caller's limits at this node."""
        return self.standing(caller)[0]

    def max_passages(self, caller: Identity) -> int:
        """How many passages one question of the caller's may carry at this node, both rankings together."""
        return self.caps(caller).max_passages

    def limit_k(self, caller: Identity, k: int, path: str, trace: str) -> int:
        caps = self.caps(caller)
        if k <= caps.max_passages:
            return k
        if self.audit is not None:
            self.audit.record(trace=trace, sub=caller.sub, iss=caller.iss, node=path or "gateway", decision="cap",
                              policy=None, reason=f"asked for {k} passages, at most {caps.max_passages} ({caps.source})")
        return caps.max_passages

    def visible(self, caller: Identity, metadata: dict) -> bool:
        return self.policy.visible(caller.attributes(), metadata).allowed

    def hidden(self, caller: Identity, path: str, trace: str, count: int) -> None:
        if count and self.audit is not None:
            self.audit.record(trace=trace, sub=caller.sub, iss=caller.iss, node=path, decision="hide", policy=None,
                              reason=f"document rules hid {count} passage(s)", hidden=count)

    def filters_passages(self, caller: Identity) -> bool:
        return bool(self.policy.documents)

    def only_summaries(self, caller: Identity, path: str, trace: str) -> bool:
        decision = self.policy.only_summaries(caller.attributes())
        if decision.allowed and self.audit is not None:
            self.audit.record(trace=trace, sub=caller.sub, iss=caller.iss, node=path, decision="summaries_only",
                              policy=decision.policy, reason=decision.reason)
        return decision.allowed

    def _log(self, trace: str, identity: Identity | None, node: str, decision: str, policy: str | None,
             reason: str, question: str) -> None:
        if self.audit is not None:
            self.audit.record(trace=trace, sub=identity.sub if identity else "?", iss=identity.iss if identity else "?",
                              node=node, decision=decision, policy=policy, reason=reason, question=question)

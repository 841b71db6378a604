"""Attribute-based access policies, as a federation spec writes them, and their evaluation.

A *policy* names the values each attribute may take::

    {name = "a-clinicians", require = {org = ["hospital_a"], role = ["physician", "nurse"]}}

An attribute holds if the caller's value — or, for a list attribute such as ``affiliations``, any of
its values — is one of the allowed ones; a policy allows if all its attributes hold; a node with
several policies allows if any of them does. A node's ``gate`` decides who may search its subtree;
with no gate policies the node is open unless it says ``default = "deny"``.

Leaves also decide per passage, on its metadata. A *document rule* selects passages and says who may
see them::

    {name = "psych-notes", passage = {note_type = ["psychiatry"]}, require = {role = ["physician"]}}

A passage no rule selects is visible to whoever passed the gate; a passage some rules select is
visible if the caller satisfies the ``require`` of at least one of them.

A node may also lower what one person may ask and read there (``limits``, :mod:`policies.limits`).

A router may release only summaries of its subtree to some audiences — ``summaries_only = true``
for everyone, or a list of policies for the callers who match any of them — so raw passage text
never leaves it for those callers, only its summaries and the passages' ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from policies.limits import LimitRule

_Values = list[str]


class Policy(BaseModel):
    """One named set of attribute requirements (all must hold)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    require: dict[str, _Values] = Field(min_length=1)

    def unmet(self, attributes: dict[str, list[str]]) -> str | None:
        """The first requirement ``attributes`` do not meet, as a short phrase, or ``None``."""
        for attribute, allowed in self.require.items():
            have = attributes.get(attribute, [])
            if not set(have) & set(allowed):
                shown = ",".join(have) or "(none)"
                return f"{attribute}={shown} is not one of {','.join(allowed)}"
        return None


class DocumentRule(BaseModel):
    """Who may see the passages whose metadata match ``passage``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    passage: dict[str, list[str | int | float | bool]] = Field(min_length=1)
    require: dict[str, _Values] = Field(min_length=1)

    def selects(self, metadata: dict) -> bool:
        """Whether this rule is about a passage with ``metadata``."""
        return all(metadata.get(key) in allowed for key, allowed in self.passage.items())

    def allows(self, attributes: dict[str, list[str]]) -> bool:
        return Policy(name=self.name, require=self.require).unmet(attributes) is None


@dataclass(frozen=True)
class Decision:
    """What a policy point decided: ``policy`` names the policy that allowed, ``reason`` says why not."""

    allowed: bool
    policy: str | None
    reason: str


class NodePolicy(BaseModel):
    """Everything one node decides: its gate and, at a leaf, its per-passage rules."""

    model_config = ConfigDict(extra="forbid")

    gate: list[Policy] = Field(default_factory=list)
    default: Literal["allow", "deny"] = "allow"
    documents: list[DocumentRule] = Field(default_factory=list)
    summaries_only: bool | list[Policy] = False
    limits: list[LimitRule] = Field(default_factory=list)

    def admit(self, attributes: dict[str, list[str]]) -> Decision:
        """May a caller with ``attributes`` search this node's subtree?"""
        if not self.gate:
            if self.default == "allow":
                return Decision(True, None, "open node (no gate policy)")
            return Decision(False, None, "this node denies by default and has no gate policy")
        reasons = []
        for policy in self.gate:
            unmet = policy.unmet(attributes)
            if unmet is None:
                return Decision(True, policy.name, f"policy {policy.name} allows")
            reasons.append(f"{policy.name}: {unmet}")
        return Decision(False, None, "no policy allows: " + "; ".join(reasons))

    def visible(self, attributes: dict[str, list[str]], metadata: dict) -> Decision:
        """May a caller with ``attributes`` (who passed the gate) see a passage with ``metadata``?"""
        rules = [rule for rule in self.documents if rule.selects(metadata)]
        if not rules:
            return Decision(True, None, "no document rule applies")
        for rule in rules:
            if rule.allows(attributes):
                return Decision(True, rule.name, f"document rule {rule.name} allows")
        return Decision(False, None, f"document rules {', '.join(r.name for r in rules)} do not allow")

    def only_summaries(self, attributes: dict[str, list[str]]) -> Decision:
        """Is a caller with ``attributes`` given only summaries of this subtree (``allowed``: yes)?"""
        if self.summaries_only is True:
            return Decision(True, None, "this node releases only summaries")
        for policy in self.summaries_only or []:
            if policy.unmet(attributes) is None:
                return Decision(True, policy.name, f"policy {policy.name} releases only summaries")
        return Decision(False, None, "passages are released")

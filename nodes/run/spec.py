"""The federation spec: a TOML file naming the organizations, their units and their data.

Example::

    [federation]
    name = "demo"
    deadline_ms = 3000      # default budget of a question
    k = 10                  # hits returned
    fetch_k = 20            # candidates each leaf takes from its index at first (it takes more until sure)
    answer_min_score = 0.35 # below this best score, an answer says the evidence is not enough
    summary_min_score = 0.4 # routers summarize only passages scoring this much
    summary_tokens = 200    # about how long a router's summary is
    state_dir = "state"     # where leaves keep their passages and indexes (relative to this file)

    [llm]                   # an OpenAI-compatible endpoint for summarize = "llm" and LLM answers
    base_url = "http://127.0.0.1:8080/v1"
    model = "default"
    api_key_env = "OPENAI_API_KEY"   # the variable holding the key, never the key itself

    [orgs.hospital_a]
    summarize = "extractive"            # this router summarizes everything its units returned
    summaries_only = [{name = "outside", require = {org = ["hospital_b"]}}]  # they get summaries, no text

    [orgs.hospital_a.units.medicine]
    data = "corpus/hospital_a/medicine.jsonl"

    [orgs.hospital_b.units.cardiology.units.echo]     # units nest to any depth
    data = "corpus/hospital_b/echo.jsonl"

    [orgs.hospital_c.units.notes]
    data = "/srv/mimic/note/discharge.csv"
    format = "mimic-discharge"          # see nodes.data.loaders for the formats and their options
    options = {synthetic_names = true}
    where = {service = ["MEDICINE"]}    # keep only these records (split a hospital by department)
    retriever = "passages"              # the leaf's kind: see nodes.data.retrievers
    shard = [3, 0]                      # or one of N stable shares of the patients
    ingest = true                       # also take records live from fed.ingest.hospital_c.notes
    max_chars = 800                     # passage size

A node with ``data`` (or ``ingest = true``) is a leaf; a node with ``units`` is a router over them.
Relative paths are relative to the spec file. A router may summarize what its subtree returned
(``summarize``, :mod:`summarizer.summaries`) and release only summaries to some callers
(``summaries_only``: ``true``, or policies as in :mod:`policies.abac`).

Identities and access are optional: an ``[identity]`` table, ``[users.<id>]`` tables for development
sign-in (:mod:`policies.access`), and on any node ``gate = [...]``, ``default`` and, on leaves,
``documents = [...]`` (:mod:`policies.abac`). What one person may ask and read, and what a node takes
on at once, is the ``[limits]`` table, and ``limits = [...]`` rules on any node (:mod:`policies.limits`)::

    [identity]
    audience = "fedrag:demo"

    [users.U2]
    name = "A.phys"
    org = "hospital_a"
    role = "physician"
    dept = "medicine"

    [orgs.hospital_a]
    gate = [{name = "a-and-b", require = {org = ["hospital_a", "hospital_b"]}}]
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field, model_validator

from bus.errors import SpecError
from bus.messages import FETCH_K, MAX_FETCH_K
from bus.subjects import validate_path, within
from nodes.data import loaders, retrievers
from nodes.data.chunking import DEFAULT_MAX_CHARS
from nodes.data.sync import DataSource
from policies.abac import DocumentRule, NodePolicy, Policy
from policies.access import IdentitySettings, UserSpec
from policies.limits import LimitRule, Limits
from policies.tokens import Identity
from summarizer.llm import LLMSettings


class NodeSpec(BaseModel):
    """One node of the tree: a leaf (``data``) or a router (``units``), with its access policies.

    ``gate`` (who may search this subtree), ``default`` and, at leaves, ``documents`` (who may see
    which passages) are described in :mod:`policies.abac`; they take effect when the spec has an
    ``[identity]`` table.
    """

    model_config = ConfigDict(extra="forbid")

    label: str | None = None
    data: Path | None = None
    format: str = "fedrag"
    retriever: str = retrievers.DEFAULT
    options: dict[str, str | int | float | bool] = Field(default_factory=dict)
    where: dict[str, list[str | int | float | bool]] | None = None
    shard: tuple[int, int] | None = None
    ingest: bool = False
    max_chars: int = Field(DEFAULT_MAX_CHARS, ge=100, le=10_000)
    units: dict[str, "NodeSpec"] = Field(default_factory=dict)
    gate: list[Policy] = Field(default_factory=list)
    default: Literal["allow", "deny"] = "allow"
    documents: list[DocumentRule] = Field(default_factory=list)
    summarize: Literal["none", "extractive", "llm"] = "none"
    summaries_only: bool | list[Policy] = False
    limits: list[LimitRule] = Field(default_factory=list)

    @model_validator(mode="after")
    def _leaf_or_router(self) -> "NodeSpec":
        leaf = self.data is not None or self.ingest
        if leaf == bool(self.units):
            raise ValueError("a node needs either 'data' and/or 'ingest = true' (a leaf) or 'units' (a router)")
        if self.units and self.documents:
            raise ValueError("'documents' rules belong to leaves (nodes with 'data'), not routers")
        if leaf and (self.summarize != "none" or self.summaries_only):
            raise ValueError("'summarize' and 'summaries_only' belong to routers (nodes with 'units'), not leaves")
        if self.shard is not None and not 0 <= self.shard[1] < self.shard[0]:
            raise ValueError("'shard' is [N, i] with 0 <= i < N")
        loaders.check(self.format, self.options)
        retrievers.check(self.retriever)
        return self

    @property
    def is_leaf(self) -> bool:
        return not self.units

    def source(self) -> DataSource | None:
        """The leaf's data file or folder and how to read it (``None`` for an ingestion-only leaf)."""
        if self.data is None:
            return None
        return DataSource(self.data, self.format, dict(self.options), self.where, self.shard)

    def policy(self) -> NodePolicy:
        """This node's policies, as its gate enforces them."""
        return NodePolicy(gate=self.gate, default=self.default, documents=self.documents,
                          summaries_only=self.summaries_only, limits=self.limits)


class Settings(BaseModel):
    """Federation-wide settings."""

    model_config = ConfigDict(extra="forbid")

    name: str = "federation"
    deadline_ms: int = Field(3000, ge=1, le=600_000)
    k: int = Field(10, ge=1, le=1000)
    fetch_k: int = Field(FETCH_K, ge=1, le=MAX_FETCH_K)
    answer_min_score: float = Field(0.35, ge=-1.0, le=1.0)
    summary_min_score: float = Field(0.4, ge=-1.0, le=1.0)  # summarizer.extractive.MIN_SCORE
    summary_tokens: int = Field(200, ge=20, le=4_000)
    state_dir: Path | None = None


class FederationSpec(BaseModel):
    """A whole federation: its settings, its organizations and, optionally, identities and users.

    Without an ``[identity]`` table the federation is open: every node allows everyone (for tests
    and a single trusted site). With one, every node verifies every caller's signed token and proof
    and enforces its policies (:mod:`policies.access`).
    """

    model_config = ConfigDict(extra="forbid")

    federation: Settings = Field(default_factory=Settings)
    llm: LLMSettings | None = None
    identity: IdentitySettings | None = None
    limits: Limits = Field(default_factory=Limits)
    users: dict[str, UserSpec] = Field(default_factory=dict)
    orgs: dict[str, NodeSpec] = Field(min_length=1)
    source: Path | None = Field(None, exclude=True)

    @model_validator(mode="after")
    def _users_belong_to_orgs(self) -> "FederationSpec":
        for uid, user in self.users.items():
            if user.org not in self.orgs:
                raise ValueError(f"user {uid} belongs to {user.org!r}, which is not an organization here")
        if self.identity is not None:
            self.identity.check(list(self.orgs))
            for uid, user in self.users.items():
                beyond = self.identity.scope(user.org).unmet(self.identity_of(uid))
                if beyond is not None:
                    raise ValueError(f"user {uid} has {beyond}, which fedrag:{user.org} may not vouch for "
                                     f'(list it in [identity.trust."fedrag:{user.org}"] vouches)')
        if self.llm is None:
            for path, node in self.nodes():
                if node.summarize == "llm":
                    raise ValueError(f"router {path} summarizes with an LLM but the spec has no [llm] table")
        return self

    def user(self, name: str) -> tuple[str, UserSpec]:
        """A user by id (``U2``) or name (``A.phys``).

        Raises:
            SpecError: no such user; the message lists them.
        """
        for uid, user in self.users.items():
            if name in (uid, user.name):
                return uid, user
        known = ", ".join(f"{uid} ({u.name})" if u.name else uid for uid, u in self.users.items()) or "none"
        raise SpecError(f"no user {name!r} in {self.source} (users: {known})")

    def identity_of(self, uid: str) -> Identity:
        """The user ``uid`` as nodes see them once signed in (their verified token's claims)."""
        u = self.users[uid]
        return Identity(sub=uid, org=u.org, role=u.role, dept=u.dept, affiliations=tuple(u.affiliations))

    def attributes(self, uid: str) -> dict[str, list[str]]:
        """What policies see of the user ``uid`` once signed in (their verified token's attributes)."""
        return self.identity_of(uid).attributes()

    def policies(self) -> dict[str, NodePolicy]:
        """Every node's policies, by path."""
        return {path: node.policy() for path, node in self.nodes()}

    @classmethod
    def load(cls, path: Path) -> "FederationSpec":
        """Reads, validates and resolves a spec file.

        Raises:
            SpecError: the file is missing, not TOML, or does not describe a valid federation;
                the message names the offending key.
        """
        path = Path(path)
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SpecError(f"cannot read federation spec {path}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise SpecError(f"cannot read federation spec {path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        except tomllib.TOMLDecodeError as exc:
            raise SpecError(f"{path} is not valid TOML: {exc}") from None
        return cls.parse(raw, path)

    @classmethod
    def parse(cls, raw: dict, path: Path) -> "FederationSpec":
        """Validates a spec already read into a dict; ``path`` anchors relative paths."""
        try:
            spec = cls.model_validate({**raw, "source": path})
        except pydantic.ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
            raise SpecError(f"invalid federation spec {path}: {problems}") from None
        base = path.parent.resolve()
        settings = spec.federation
        settings.state_dir = base / (settings.state_dir or Path(".fedrag-state") / settings.name)
        for node_path, node in spec.nodes():
            validate_path(node_path)
            if node.data is not None:
                node.data = base / node.data
        return spec

    def nodes(self, org: str | None = None) -> Iterator[tuple[str, NodeSpec]]:
        """Every node as ``(path, spec)``, parents before children (one organization if given)."""
        def walk(path: str, node: NodeSpec):
            yield path, node
            for name, child in node.units.items():
                yield from walk(f"{path}.{name}", child)

        for name, node in self.orgs.items():
            if org is None or name == org:
                yield from walk(name, node)

    def leaves(self, org: str | None = None) -> dict[str, NodeSpec]:
        """Leaf path to its node spec."""
        return {path: node for path, node in self.nodes(org) if node.is_leaf}

    def routers(self, org: str | None = None) -> dict[str, list[str]]:
        """Router path to its children's paths."""
        return {path: [f"{path}.{name}" for name in node.units] for path, node in self.nodes(org) if node.units}

    def count_leaves(self, path: str) -> int:
        """How many leaves the subtree at ``path`` holds (1 for a leaf)."""
        return sum(1 for leaf in self.leaves() if within(leaf, path))

    def leaf_folder(self, path: str) -> Path:
        """Where the leaf at ``path`` keeps its store."""
        return self.federation.state_dir / "leaves" / path

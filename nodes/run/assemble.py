"""A spec into nodes: the leaves, routers and gateway of a federation, wired to their identities and limits.

Nothing here starts a process or supervises one (:mod:`nodes.run.federation` does): :func:`build_org`
opens (or builds) an organization's leaf stores and makes its nodes, :func:`make_gateway` the
federation's gateway or an organization's own, :func:`make_access` a process's identities and
policies, :func:`sign_in` a spec user's development sign-in, and :func:`serving` what a process does on
each new connection to the broker (publish its keys, start its nodes and wait until they answer).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable

from nats.aio.client import Client

from bus.client import wait_until_serving
from bus.errors import FedragError, SpecError, StoreError
from bus.subjects import ask_subject
from nodes._admission import Admission
from nodes._service import NodeService
from nodes.data import embedder as emb
from nodes.data import retrievers
from nodes.data.ingest import Ingestor
from nodes.data.sync import open_leaf
from nodes.gateway import Gateway
from nodes.leaf import Leaf
from nodes.router import Router
from nodes.run.spec import FederationSpec
from policies import broker, keys
from policies.abac import NodePolicy, Policy
from policies.access import Access, Credentials
from policies.gate import AllowAll
from summarizer.llm import LLM
from summarizer.summaries import Summarizer

log = logging.getLogger(__name__)


def make_access(spec: FederationSpec) -> Access | None:
    """This process's identities and policies, or ``None`` for an open federation (no ``[identity]``)."""
    if spec.identity is None:
        return None
    return Access(spec.identity, federation=spec.federation.name, orgs=list(spec.orgs),
                  state_dir=spec.federation.state_dir, limits=spec.limits)


async def build_org(spec: FederationSpec, org: str, *, embedder_factory: Callable = emb.shared,
                    verbose: bool = True, access: Access | None = None, keep_model: bool = True,
                    only: tuple[str, ...] = ()) -> list[NodeService]:
    """Opens (or builds) the organization's leaf stores and makes its leaves and routers (not started yet):
    all of them, or only the nodes at the paths in ``only``.

    With ``keep_model`` false (an organization process, which embeds no questions), the embedding
    model is released once the stores are built; an ingesting leaf loads it again while it embeds.

    A leaf whose data file is missing or malformed is reported on stderr and left out; the rest
    of the organization serves, and queries report that leaf ``unavailable``.
    """
    loop = asyncio.get_running_loop()
    fingerprint = emb.fingerprint()
    settings = spec.federation
    deadline = settings.deadline_ms
    llm = make_llm(spec) if any(node.summarize == "llm" for _, node in spec.nodes(org)) else None
    nodes: list[NodeService] = []
    unknown = set(only) - {path for path, _ in spec.nodes(org)}
    if unknown:
        raise FedragError(f"{', '.join(sorted(unknown))}: not a node of organization {org} in {spec.source}")
    for path, node in spec.nodes(org):
        if only and path not in only:
            continue
        gate = access.gate(org, node.policy()) if access is not None else AllowAll(node.policy())
        if node.units:
            children = [f"{path}.{name}" for name in node.units]
            summarizer = None if node.summarize == "none" else Summarizer(
                node.summarize, llm=llm, budget_tokens=settings.summary_tokens, min_score=settings.summary_min_score)
            nodes.append(Router(path, children, default_budget_ms=deadline, gate=gate, summarizer=summarizer,
                                leaves={child: spec.count_leaves(child) for child in children},
                                admission=Admission(spec.limits)))
            continue
        try:
            store, outcome, report = await loop.run_in_executor(None, lambda: open_leaf(
                spec.leaf_folder(path), node.source(), fingerprint, embedder_factory, path=path,
                max_chars=node.max_chars, verbose=verbose))
        except StoreError as exc:
            # One bad data file must not take its organization down: the leaf stays away from the
            # bus, so every query reports it ``unavailable`` until its data is fixed.
            print(f"  {path}: NOT SERVING: {exc}", file=sys.stderr, flush=True)
            log.error("leaf %s not started: %s", path, exc)
            continue
        if verbose:
            done = outcome.summary() if outcome is not None else "reused saved index"
            print(f"  {path}: {len(store)} passages ({done})", file=sys.stderr, flush=True)
            if report is not None and (report.skipped_count or report.notes):
                print("    " + report.summary().replace("\n", "\n    "), file=sys.stderr, flush=True)
        ingestor = None
        if node.ingest:
            release = emb.release if embedder_factory is emb.shared and not keep_model else None
            ingestor = Ingestor(path, store, embedder_factory, release=release)
        nodes.append(Leaf(path, retrievers.make(node.retriever, store, path), default_budget_ms=deadline, gate=gate,
                          ingestor=ingestor, admission=Admission(spec.limits)))
    return nodes


def build_leaves(spec: FederationSpec, embedder_factory: Callable = emb.shared, *, fingerprint: str | None = None,
                 verbose: bool = True) -> None:
    """Builds every leaf's store of ``spec`` (or brings it up to date) and closes it: before several
    processes open the same stores (replicas), and for benchmarks and tests."""
    fingerprint = fingerprint or emb.fingerprint()
    for path, node in spec.leaves().items():
        open_leaf(spec.leaf_folder(path), node.source(), fingerprint, embedder_factory, path=path,
                  max_chars=node.max_chars, verbose=verbose)[0].close()


def sign_in(spec: FederationSpec, user: str) -> Credentials:
    """Development sign-in of one of the spec's users (by id or name).

    Raises:
        SpecError: the spec has no ``[identity]`` table or no such user.
    """
    access = make_access(spec)
    if access is None:
        raise SpecError(f"{spec.source} has no [identity] table: its federation is open, nobody signs in")
    uid, found = spec.user(user)
    try:
        return access.sign_in(uid, found)
    finally:
        access.close()


def make_llm(spec: FederationSpec) -> LLM | None:
    """The client of the spec's LLM endpoint (``[llm]``), or ``None`` if it names none."""
    return LLM(spec.llm) if spec.llm is not None else None


def serving(nodes: list[NodeService], org: str | None = None, access: Access | None = None):
    """What a process does on each new connection: publish its keys, learn where others' are, start its nodes."""
    async def on_connect(nc: Client) -> None:
        if access is not None:
            access.fetch_keys_with(lambda other: keys.fetch(nc, other))
            if org is not None:
                await keys.serve(nc, org, keys.public_jwks(keys.org_key(access.state_dir, org)))
        await start_nodes(nodes, nc)
    return on_connect


async def start_nodes(nodes: list[NodeService], nc: Client) -> None:
    """Starts ``nodes`` on ``nc`` and returns once each of them answers on the bus."""
    for node in nodes:
        await node.start(nc)
    await wait_until_serving(nc, [node.subject for node in nodes])


def make_gateway(spec: FederationSpec, embedder_factory: Callable = emb.shared, *, access: Access | None = None,
                 org: str | None = None) -> Gateway:
    """The federation-wide gateway on ``fed.ask``, or ``org``'s own gateway on ``fed.ask.<org>`` (its users only)."""
    settings = spec.federation
    gate = None
    if access is not None:
        policy = NodePolicy(gate=[Policy(name=f"{org}-users", require={"org": [org]})]) if org else NodePolicy()
        gate = access.gate(org or "gateway", policy)
    return Gateway(list(spec.orgs), embedder_factory, k=settings.k, fetch_k=settings.fetch_k,
                   default_budget_ms=settings.deadline_ms, leaves={o: spec.count_leaves(o) for o in spec.orgs},
                   gate=gate, subject=ask_subject(org), answer_min_score=settings.answer_min_score,
                   llm=make_llm(spec), admission=Admission(spec.limits))


def broker_options(spec: FederationSpec, user: str) -> dict:
    """How ``user`` connects: its broker credentials from this site's state directory, if there are any."""
    return broker.connect_options(spec.federation.state_dir, user)


async def stop_nodes(nodes: list[NodeService]) -> None:
    """Stops nodes in reverse start order."""
    for node in reversed(nodes):
        await node.stop()

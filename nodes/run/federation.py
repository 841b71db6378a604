"""Running a federation from its spec: the nodes of one organization, the gateway, or all of it.

``fedrag up SPEC`` runs one OS process per organization (``fedrag org``), as real sites would,
plus the gateway; :class:`Federation` with ``processes=False`` runs everything in the current
event loop, each organization on its own connection (for tests). A multi-site deployment runs
``fedrag org SPEC --org NAME --nats URL`` at each site and ``fedrag gateway`` wherever clients
connect; they meet on the broker.

Nothing stays down by itself: every organization and gateway holds its connection through a
:class:`bus.connection.Link`, which opens a new one and registers the nodes again if the broker
closes it; :class:`Federation` restarts an organization process that dies (with backoff, saying so
on stderr), and its processes die with it: they are stopped on exit, and the kernel sends them
SIGTERM if the launcher itself is killed.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import signal
import sys
import time
from collections.abc import Callable

from nats.aio.client import Client

from bus.client import wait_until_serving
from bus.connection import Link
from bus.errors import FedragError, StoreError
from bus.subjects import ASK
from nodes.data import embedder as emb
from nodes._service import NodeService
from nodes.gateway import Gateway
from nodes.leaf import Leaf
from nodes.router import Router
from nodes.run.spec import FederationSpec
from nodes.data.ingest import Ingestor
from nodes.data.sync import open_leaf
from policies import broker, keys
from policies.abac import NodePolicy, Policy
from policies.access import Access
from policies.gate import AllowAll
from summarizer.llm import LLM
from summarizer.summaries import Summarizer

log = logging.getLogger(__name__)

READY = "FEDRAG_READY"
#: First and longest wait before restarting an organization process that died; a process that ran
#: this long (seconds) before dying starts again from the first wait.
RESTART_BACKOFF_S = (1.0, 30.0)
STABLE_AFTER_S = 60.0


def make_access(spec: FederationSpec) -> Access | None:
    """This process's identities and policies, or ``None`` for an open federation (no ``[identity]``)."""
    if spec.identity is None:
        return None
    return Access(spec.identity, federation=spec.federation.name, orgs=list(spec.orgs),
                  state_dir=spec.federation.state_dir)


async def build_org(spec: FederationSpec, org: str, *, embedder_factory: Callable = emb.shared,
                    verbose: bool = True, access: Access | None = None, keep_model: bool = True) -> list[NodeService]:
    """Opens (or builds) the organization's leaf stores and makes its leaves and routers (not started yet).

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
    for path, node in spec.nodes(org):
        gate = access.gate(org, node.policy()) if access is not None else AllowAll(node.policy())
        if node.units:
            children = [f"{path}.{name}" for name in node.units]
            summarizer = None if node.summarize == "none" else Summarizer(
                node.summarize, llm=llm, budget_tokens=settings.summary_tokens, min_score=settings.summary_min_score)
            nodes.append(Router(path, children, default_budget_ms=deadline, gate=gate, summarizer=summarizer,
                                leaves={child: spec.count_leaves(child) for child in children}))
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
        nodes.append(Leaf(path, store, default_budget_ms=deadline, gate=gate, ingestor=ingestor))
    return nodes


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
                   gate=gate, subject=f"{ASK}.{org}" if org else ASK, answer_min_score=settings.answer_min_score,
                   llm=make_llm(spec))


def broker_options(spec: FederationSpec, user: str) -> dict:
    """How ``user`` connects: its broker credentials from this site's state directory, if there are any."""
    return broker.connect_options(spec.federation.state_dir, user)


async def stop_nodes(nodes: list[NodeService]) -> None:
    """Stops nodes in reverse start order."""
    for node in reversed(nodes):
        await node.stop()


#: Set by :class:`Federation` in the environment of the organization processes it launches.
PARENT_ENV = "FEDRAG_PARENT_PID"


def die_with_parent() -> None:
    """In an organization process launched by :class:`Federation`: ask the kernel for SIGTERM when
    the launcher dies (Linux), and stop at once if it already has."""
    parent = os.environ.get(PARENT_ENV)
    if not parent or not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
    if os.getppid() != int(parent):  # the launcher died before the request above was made
        raise SystemExit(1)


class Federation:
    """A running federation on the broker at ``url``.

    Args:
        spec: the federation spec.
        url: the broker.
        processes: one OS process per organization (default) or everything in this event loop.
        verbose: print progress to stderr.
        restart: restart an organization process that dies.
    """

    def __init__(self, spec: FederationSpec, url: str, *, processes: bool = True, verbose: bool = True,
                 embedder_factory: Callable = emb.shared, restart: bool = True) -> None:
        self.spec = spec
        self.url = url
        self.processes = processes
        self.verbose = verbose
        self.restart = restart
        self.embedder_factory = embedder_factory
        self.gateway: Gateway | None = None
        self.access = make_access(spec)
        self._links: dict[str, Link] = {}
        self._nodes: dict[str, list[NodeService]] = {}
        self._procs: dict[str, asyncio.subprocess.Process] = {}
        self._watchers: dict[str, asyncio.Task] = {}
        self._pumps: list[asyncio.Task] = []
        self._stopping = False
        #: The subjects each organization reported serving once it was ready.
        self.serving: dict[str, list[str]] = {}
        #: How many times each organization's process was restarted after dying.
        self.restarts: dict[str, int] = {}

    async def start(self, startup_timeout: float = 900.0) -> None:
        """Starts every organization, then the gateway; returns once every node they launched answers.

        Readiness is checked on the bus (:func:`bus.client.wait_until_serving`), from the gateway's
        connection, never assumed from a process having started.
        """
        if self.processes:
            await asyncio.gather(*(self._spawn(org, startup_timeout) for org in self.spec.orgs))
        else:
            for org in self.spec.orgs:
                await self.start_org(org)
        self.gateway = make_gateway(self.spec, self.embedder_factory, access=self.access)
        link = Link(self.url, "fedrag-gateway", on_connect=serving([self.gateway], access=self.access),
                    **broker_options(self.spec, broker.GATEWAY))
        self._links["<gateway>"] = link
        nc = await link.open()
        await wait_until_serving(nc, [ASK, *(s for subjects in self.serving.values() for s in subjects)])

    async def start_org(self, org: str) -> None:
        """Starts one organization in this process (in-process mode, or to restart it in tests)."""
        nodes = await build_org(self.spec, org, embedder_factory=self.embedder_factory, verbose=self.verbose,
                                access=self.access)
        link = Link(self.url, f"fedrag-org-{org}", on_connect=serving(nodes, org, self.access),
                    **broker_options(self.spec, broker.org_user(org)))
        await link.open()
        self._links[org], self._nodes[org] = link, nodes
        self.serving[org] = [node.subject for node in nodes]

    def link(self, org: str) -> Link:
        """The connection an in-process organization (or ``"<gateway>"``) holds."""
        return self._links[org]

    def nodes(self, org: str) -> list[NodeService]:
        """The nodes an in-process organization runs."""
        return list(self._nodes[org])

    async def stop_org(self, org: str) -> None:
        """Stops one organization (its nodes disappear from the bus at once); it is not restarted."""
        watcher = self._watchers.pop(org, None)
        if watcher is not None:
            watcher.cancel()
        proc = self._procs.pop(org, None)
        if proc is not None:
            await _terminate(proc)
            return
        await stop_nodes(self._nodes.pop(org, []))
        link = self._links.pop(org, None)
        if link is not None:
            await link.close()

    async def stop(self) -> None:
        """Stops the gateway and every organization; no process of the federation is left, whatever failed before."""
        self._stopping = True
        try:
            if self.gateway is not None:
                await self.gateway.stop()
                self.gateway = None
            link = self._links.pop("<gateway>", None)
            if link is not None:
                await link.close()
            for org in list(self._procs) + list(self._nodes):
                try:
                    await self.stop_org(org)
                except Exception:  # keep going: the other organizations must still be stopped
                    log.exception("stopping organization %s failed", org)
        finally:
            for proc in list(self._procs.values()):
                if proc.returncode is None:
                    proc.kill()
            for task in [*self._watchers.values(), *self._pumps]:
                task.cancel()
            if self.access is not None:
                self.access.close()

    async def _spawn(self, org: str, timeout: float) -> None:
        args = [sys.executable, "-m", "nodes.run.cli", "org", str(self.spec.source), "--org", org, "--nats", self.url]
        if not self.verbose:
            args.append("--quiet")
        # Organizations embed at the same time on first start: give each its share of the cores.
        threads = max(1, (os.cpu_count() or 1) // len(self.spec.orgs))
        env = {**os.environ, "FEDRAG_TORCH_THREADS": os.environ.get("FEDRAG_TORCH_THREADS", str(threads)),
               PARENT_ENV: str(os.getpid())}
        proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE, stderr=None,
                                                    stdin=asyncio.subprocess.DEVNULL, env=env)
        self._procs[org] = proc
        try:
            await asyncio.wait_for(self._await_ready(org, proc), timeout)
        except asyncio.TimeoutError:
            proc.kill()
            raise FedragError(f"organization {org} did not become ready within {timeout:.0f} s") from None
        self._pumps.append(asyncio.create_task(self._pump(proc)))
        if self.restart:
            self._watchers[org] = asyncio.create_task(self._watch(org, proc, timeout))

    async def _watch(self, org: str, proc: asyncio.subprocess.Process, timeout: float) -> None:
        """Restarts ``org`` whenever its process dies, with backoff, until the federation stops."""
        wait, longest = RESTART_BACKOFF_S
        while True:
            started = time.monotonic()
            code = await proc.wait()
            if self._stopping or self._procs.get(org) is not proc:
                return
            if time.monotonic() - started >= STABLE_AFTER_S:
                wait = RESTART_BACKOFF_S[0]
            print(f"  organization {org} exited with code {code}; restarting it in {wait:.0f} s",
                  file=sys.stderr, flush=True)
            await asyncio.sleep(wait)
            wait = min(wait * 2, longest)
            if self._stopping:
                return
            try:
                self._watchers.pop(org, None)  # _spawn installs a new watcher on success
                await self._spawn(org, timeout)
            except FedragError as exc:
                print(f"  organization {org} could not be restarted: {exc}", file=sys.stderr, flush=True)
                continue
            self.restarts[org] = self.restarts.get(org, 0) + 1
            print(f"  organization {org} restarted and serving", file=sys.stderr, flush=True)
            return

    async def _await_ready(self, org: str, proc: asyncio.subprocess.Process) -> None:
        while True:
            line = await proc.stdout.readline()
            if not line:
                code = await proc.wait()
                raise FedragError(f"organization {org} exited with code {code} before it was ready "
                                  "(its error is printed above)")
            text = line.decode()
            if text.startswith(READY):
                fields = dict(part.split("=", 1) for part in text.split()[1:] if "=" in part)
                self.serving[org] = [s for s in fields.get("subjects", "").split(",") if s]
                return
            sys.stderr.write(text)

    @staticmethod
    async def _pump(proc: asyncio.subprocess.Process) -> None:
        while line := await proc.stdout.readline():
            sys.stderr.write(line.decode())


async def _terminate(proc: asyncio.subprocess.Process, timeout: float = 15.0) -> None:
    """SIGTERM, then SIGKILL after ``timeout``."""
    if proc.returncode is None:
        try:
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), timeout)
        except ProcessLookupError:
            pass
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()


async def serve_org(spec: FederationSpec, org: str, url: str, verbose: bool = True) -> None:
    """Runs one organization until SIGINT/SIGTERM (the body of ``fedrag org``)."""
    if org not in spec.orgs:
        raise FedragError(f"organization {org!r} is not in {spec.source} (it has: {', '.join(spec.orgs)})")
    die_with_parent()
    access = make_access(spec)
    nodes = await build_org(spec, org, verbose=verbose, access=access, keep_model=False)
    emb.release()  # built: the model is loaded again only to embed records that arrive live
    link = Link(url, f"fedrag-org-{org}", on_connect=serving(nodes, org, access),
                **broker_options(spec, broker.org_user(org)))
    await link.open()
    print(f"{READY} org={org} subjects={','.join(node.subject for node in nodes)}", flush=True)
    await wait_for_signal()
    await stop_nodes(nodes)
    await link.close()


async def serve_gateway(spec: FederationSpec, url: str, org: str | None = None) -> None:
    """Runs a gateway until SIGINT/SIGTERM (the body of ``fedrag gateway``): ``org``'s own, or the federation-wide one."""
    if org is not None and org not in spec.orgs:
        raise FedragError(f"organization {org!r} is not in {spec.source} (it has: {', '.join(spec.orgs)})")
    access = make_access(spec)
    gateway = make_gateway(spec, access=access, org=org)
    link = Link(url, f"fedrag-gateway{'-' + org if org else ''}", on_connect=serving([gateway], access=access),
                **broker_options(spec, broker.gateway_user(org) if org else broker.GATEWAY))
    await link.open()
    print(f"gateway serving {gateway.subject} for {', '.join(spec.orgs)}", flush=True)
    await wait_for_signal()
    await gateway.stop()
    await link.close()


async def wait_for_signal() -> None:
    """Returns on SIGINT or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()

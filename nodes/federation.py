"""Running a federation from its spec: the nodes of one organization, the gateway, or all of it.

``fedrag up SPEC`` runs one OS process per organization (``fedrag org``), as real sites would,
plus the gateway; :class:`Federation` with ``processes=False`` runs everything in the current
event loop, each organization on its own connection (for tests). A multi-site deployment runs
``fedrag org SPEC --org NAME --nats URL`` at each site and ``fedrag gateway`` wherever clients
connect; they meet on the broker.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable

from nats.aio.client import Client

from bus.client import wait_until_serving
from bus.connection import connect
from bus.errors import FedragError, StoreError
from bus.subjects import ASK
from nodes import embedder as emb
from nodes._service import NodeService
from nodes.gateway import Gateway
from nodes.leaf import Leaf
from nodes.router import Router
from nodes.spec import FederationSpec
from nodes.store import LeafStore

log = logging.getLogger(__name__)

READY = "FEDRAG_READY"


def progress_printer(path: str) -> Callable[[int, int], None]:
    """Prints embedding progress for one leaf to stderr, about every tenth of the way."""
    step = {"next": 0}

    def report(done: int, total: int) -> None:
        if done >= step["next"] or done == total:
            print(f"  {path}: embedded {done}/{total} passages", file=sys.stderr, flush=True)
            step["next"] = done + max(total // 10, 1)

    return report


async def start_org(spec: FederationSpec, org: str, nc: Client, *,
                    embedder_factory: Callable = emb.shared, verbose: bool = True) -> list[NodeService]:
    """Opens (or builds) the organization's leaf stores and starts its leaves and routers on ``nc``.

    A leaf whose data file is missing or malformed is reported on stderr and left out; the rest
    of the organization serves, and queries report that leaf ``unavailable``.
    """
    loop = asyncio.get_running_loop()
    fingerprint = emb.fingerprint()
    deadline = spec.federation.deadline_ms
    nodes: list[NodeService] = []
    for path, data in spec.leaves(org).items():
        progress = progress_printer(path) if verbose else None
        try:
            store, built = await loop.run_in_executor(
                None, LeafStore.open, spec.leaf_folder(path), data, embedder_factory, fingerprint, progress)
        except StoreError as exc:
            # One bad data file must not take its organization down: the leaf stays away from the
            # bus, so every query reports it ``unavailable`` until its data is fixed.
            print(f"  {path}: NOT SERVING: {exc}", file=sys.stderr, flush=True)
            log.error("leaf %s not started: %s", path, exc)
            continue
        if verbose:
            print(f"  {path}: {len(store)} passages ({'built' if built else 'reused saved index'})",
                  file=sys.stderr, flush=True)
        nodes.append(Leaf(path, store, default_budget_ms=deadline))
    for path, children in spec.routers(org).items():
        nodes.append(Router(path, children, default_budget_ms=deadline))
    for node in nodes:
        await node.start(nc)
    await wait_until_serving(nc, [node.subject for node in nodes])
    return nodes


def make_gateway(spec: FederationSpec, embedder_factory: Callable = emb.shared) -> Gateway:
    """The gateway for the spec's organizations, with its defaults."""
    settings = spec.federation
    return Gateway(list(spec.orgs), embedder_factory, k=settings.k, fetch_k=settings.fetch_k,
                   default_budget_ms=settings.deadline_ms)


async def stop_nodes(nodes: list[NodeService]) -> None:
    """Stops nodes in reverse start order."""
    for node in reversed(nodes):
        await node.stop()


class Federation:
    """A running federation on the broker at ``url``.

    Args:
        spec: the federation spec.
        url: the broker.
        processes: one OS process per organization (default) or everything in this event loop.
        verbose: print progress to stderr.
    """

    def __init__(self, spec: FederationSpec, url: str, *, processes: bool = True, verbose: bool = True,
                 embedder_factory: Callable = emb.shared) -> None:
        self.spec = spec
        self.url = url
        self.processes = processes
        self.verbose = verbose
        self.embedder_factory = embedder_factory
        self.gateway: Gateway | None = None
        self._connections: dict[str, Client] = {}
        self._nodes: dict[str, list[NodeService]] = {}
        self._procs: dict[str, asyncio.subprocess.Process] = {}
        self._pumps: list[asyncio.Task] = []
        #: The subjects each organization reported serving once it was ready.
        self.serving: dict[str, list[str]] = {}

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
        nc = await connect(self.url, "fedrag-gateway")
        self._connections["<gateway>"] = nc
        self.gateway = make_gateway(self.spec, self.embedder_factory)
        await self.gateway.start(nc)
        await wait_until_serving(nc, [ASK, *(s for subjects in self.serving.values() for s in subjects)])

    async def start_org(self, org: str) -> None:
        """Starts one organization in this process (in-process mode, or to restart it in tests)."""
        nc = await connect(self.url, f"fedrag-org-{org}")
        self._connections[org] = nc
        self._nodes[org] = await start_org(self.spec, org, nc, embedder_factory=self.embedder_factory,
                                           verbose=self.verbose)
        self.serving[org] = [node.subject for node in self._nodes[org]]

    async def stop_org(self, org: str) -> None:
        """Stops one organization (its nodes disappear from the bus at once)."""
        if org in self._procs:
            proc = self._procs.pop(org)
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(proc.wait(), 15)
                except asyncio.TimeoutError:
                    proc.kill()
                    await proc.wait()
            return
        await stop_nodes(self._nodes.pop(org, []))
        nc = self._connections.pop(org, None)
        if nc is not None:
            await nc.drain()

    async def stop(self) -> None:
        """Stops the gateway and every organization."""
        if self.gateway is not None:
            await self.gateway.stop()
            self.gateway = None
        nc = self._connections.pop("<gateway>", None)
        if nc is not None:
            await nc.drain()
        for org in list(self._procs) + list(self._nodes):
            await self.stop_org(org)
        for pump in self._pumps:
            pump.cancel()

    async def _spawn(self, org: str, timeout: float) -> None:
        args = [sys.executable, "-m", "nodes.cli", "org", str(self.spec.source), "--org", org, "--nats", self.url]
        if not self.verbose:
            args.append("--quiet")
        # Organizations embed at the same time on first start: give each its share of the cores.
        threads = max(1, (os.cpu_count() or 1) // len(self.spec.orgs))
        env = {**os.environ, "FEDRAG_TORCH_THREADS": os.environ.get("FEDRAG_TORCH_THREADS", str(threads))}
        proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE, stderr=None,
                                                    stdin=asyncio.subprocess.DEVNULL, env=env)
        self._procs[org] = proc
        try:
            await asyncio.wait_for(self._await_ready(org, proc), timeout)
        except asyncio.TimeoutError:
            proc.kill()
            raise FedragError(f"organization {org} did not become ready within {timeout:.0f} s") from None
        self._pumps.append(asyncio.create_task(self._pump(proc)))

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


async def serve_org(spec: FederationSpec, org: str, url: str, verbose: bool = True) -> None:
    """Runs one organization until SIGINT/SIGTERM (the body of ``fedrag org``)."""
    if org not in spec.orgs:
        raise FedragError(f"organization {org!r} is not in {spec.source} (it has: {', '.join(spec.orgs)})")
    nc = await connect(url, f"fedrag-org-{org}")
    nodes = await start_org(spec, org, nc, verbose=verbose)
    print(f"{READY} org={org} subjects={','.join(node.subject for node in nodes)}", flush=True)
    await wait_for_signal()
    await stop_nodes(nodes)
    await nc.drain()


async def wait_for_signal() -> None:
    """Returns on SIGINT or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()

"""Launching and supervising a federation's processes: one organization's nodes, a gateway, or all of it.

``fedrag up SPEC`` runs one OS process per organization (``fedrag org``), as real sites would,
plus the gateway; :class:`Federation` with ``processes=False`` runs everything in the current
event loop, each organization on its own connection (for tests). Other layouts are lists of
:class:`Unit`: an organization split over several processes (a leaf on its own, two replicas of a
leaf sharing its subject), gateways in processes of their own — what the chaos scenarios kill. A multi-site deployment runs
``fedrag org SPEC --org NAME --nats URL`` at each site and ``fedrag gateway`` wherever clients
connect; they meet on the broker.

What each process runs is assembled from the spec by :mod:`nodes.run.assemble`; this module starts,
watches and stops processes. :func:`launched` is the one way to run a spec (or the demo) together with
the broker it needs, and stop both::

    async with launched(spec) as running:       # an embedded broker, one process per organization
        nc = await connect(running.client_url, "me")

Nothing stays down by itself: every organization and gateway holds its connection through a
:class:`bus.connection.Link`, which opens a new one and registers the nodes again if the broker
closes it; :class:`Federation` restarts an organization process that dies (with backoff, saying so
on stderr), and its processes die with it: they are stopped on exit, and the kernel sends them
SIGTERM if the launcher itself is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

from bus._system import starting_at, terminate_async
from bus.client import wait_until_serving
from bus.connection import Link, connect, drain
from bus.errors import FedragError, SpecError
from bus.server import NatsServer
from bus.subjects import ASK
from nodes._service import NodeService
from nodes.data import embedder as emb
from nodes.gateway import Gateway
from nodes.run.assemble import (broker_options, build_org, make_access, make_gateway, serving, stop_nodes)
from nodes.run.brokers import embedded_broker
from nodes.run.process import READY, settled
from nodes.run.spec import FederationSpec
from policies import broker

log = logging.getLogger(__name__)

#: First and longest wait before restarting an organization process that died; a process that ran
#: this long (seconds) before dying starts again from the first wait.
RESTART_BACKOFF_S = (1.0, 30.0)
STABLE_AFTER_S = 60.0


@dataclass(frozen=True)
class Unit:
    """One OS process of a federation: an organization's nodes (all of them, or those named), or a gateway.

    Attributes:
        name: what the launcher calls it (an organization's name for a whole organization).
        org: the organization, or ``None`` for a gateway serving ``fed.ask``.
        nodes: the node paths it runs (empty: the whole organization). Two units naming the same
            leaf are replicas: they share its subject in a queue group.
    """

    name: str
    org: str | None = None
    nodes: tuple[str, ...] = ()

    def command(self, spec: FederationSpec, url: str, verbose: bool) -> list[str]:
        """The command line that runs it (``fedrag org`` or ``fedrag gateway``)."""
        args = [sys.executable, "-m", "nodes.cli"]
        if self.org is None:
            args += ["gateway", str(spec.source), "--nats", url]
        else:
            args += ["org", str(spec.source), "--org", self.org, "--nats", url]
            args += [arg for path in self.nodes for arg in ("--node", path)]
        return args if verbose else [*args, "--quiet"]

    @property
    def label(self) -> str:
        """How messages name it."""
        if self.org is None:
            return f"gateway {self.name}"
        return f"organization {self.org}" + (f" ({', '.join(self.nodes)})" if self.nodes else "")


def one_per_org(spec: FederationSpec) -> list[Unit]:
    """The usual layout: one process per organization."""
    return [Unit(org, org) for org in spec.orgs]


def gateway_units(count: int) -> list[Unit]:
    """``count`` gateway processes; they share ``fed.ask`` (a queue group), so each question goes to one of them.

    Raises:
        SpecError: ``count`` is less than one.
    """
    if count < 1:
        raise SpecError(f"--gateways {count}: a federation needs at least one gateway")
    return [Unit("gateway")] if count == 1 else [Unit(f"gateway#{n}") for n in range(1, count + 1)]


def default_gateways() -> int:
    """How many gateway processes this machine runs by default: one per two cores (a gateway embeds questions
    on every core it is given), at least one, at most four."""
    return max(1, min(4, (os.cpu_count() or 1) // 2))


class Federation:
    """A running federation on the broker at ``url``.

    Args:
        spec: the federation spec.
        url: the broker (what the gateway and every organization not in ``urls`` connect to).
        urls: where some organizations connect instead, by name: e.g. each at its own site's servers
            of a multi-site broker (:mod:`bus.sites`).
        processes: OS processes (default) or everything in this event loop.
        units: the processes (default: one per organization, and the gateway in this process); a
            layout with gateway units runs no gateway in this process.
        verbose: print progress to stderr.
        restart: restart a process that dies.
    """

    def __init__(self, spec: FederationSpec, url: str, *, processes: bool = True, verbose: bool = True,
                 embedder_factory: Callable = emb.shared, restart: bool = True, units: list[Unit] | None = None,
                 urls: dict[str, str] | None = None) -> None:
        self.spec = spec
        self.url = url
        self.urls = dict(urls or {})
        unknown = set(self.urls) - set(spec.orgs)
        if unknown:
            raise FedragError(f"URLs given for organizations not in {spec.source}: {', '.join(sorted(unknown))}")
        self.processes = processes
        self.verbose = verbose
        self.restart = restart
        self.embedder_factory = embedder_factory
        self.units = {unit.name: unit for unit in units or one_per_org(spec)}
        if not processes and units is not None:
            raise FedragError("a layout of units needs processes")
        self.gateway: Gateway | None = None
        self.access = make_access(spec)
        self._links: dict[str, Link] = {}
        self._nodes: dict[str, list[NodeService]] = {}
        self._procs: dict[str, asyncio.subprocess.Process] = {}
        self._watchers: dict[str, asyncio.Task] = {}
        self._pumps: list[asyncio.Task] = []
        self._stopping = False
        #: The subjects each unit (an organization, by default) reported serving once it was ready.
        self.serving: dict[str, list[str]] = {}
        #: How many times each unit's process was restarted after dying.
        self.restarts: dict[str, int] = {}

    async def start(self, startup_timeout: float = 900.0) -> None:
        """Starts every organization, then the gateway; returns once every node they launched answers.

        Readiness is checked on the bus (:func:`bus.client.wait_until_serving`), never assumed from
        a process having started.
        """
        if self.processes:
            await asyncio.gather(*(self._spawn(name, startup_timeout) for name, unit in self.units.items() if unit.org))
            await asyncio.gather(*(self._spawn(name, startup_timeout) for name, unit in self.units.items() if not unit.org))
        else:
            for org in self.spec.orgs:
                await self.start_org(org)
        expected = {s for subjects in self.serving.values() for s in subjects}
        if any(unit.org is None for unit in self.units.values()):
            nc = await connect(self.url, "fedrag-launcher", **broker_options(self.spec, broker.CLIENT))
            try:
                await wait_until_serving(nc, expected)
            finally:
                await drain(nc)
            settled()
            return
        self.gateway = make_gateway(self.spec, self.embedder_factory, access=self.access)
        link = Link(self.url, "fedrag-gateway", on_connect=serving([self.gateway], access=self.access),
                    **broker_options(self.spec, broker.GATEWAY))
        self._links["<gateway>"] = link
        nc = await link.open()
        await wait_until_serving(nc, [ASK, *expected])
        settled()

    async def __aenter__(self) -> "Federation":
        try:
            await self.start()
        except BaseException:
            await self.stop()
            raise
        return self

    async def __aexit__(self, *exc) -> None:
        await self.stop()

    def pid(self, name: str) -> int | None:
        """The process id of unit ``name`` while it runs."""
        proc = self._procs.get(name)
        return proc.pid if proc is not None and proc.returncode is None else None

    def signal(self, name: str, sig: int) -> None:
        """Sends ``sig`` to unit ``name`` (SIGKILL, SIGSTOP, SIGCONT ...), for fault injection.

        Raises:
            FedragError: it is not running.
        """
        pid = self.pid(name)
        if pid is None:
            raise FedragError(f"unit {name} is not running")
        os.kill(pid, sig)

    async def respawn(self, name: str, timeout: float = 900.0, *, nice: int = 0) -> None:
        """Starts unit ``name`` again after it died (what ``restart`` does by itself, when a caller wants
        to choose the moment); returns once it is ready.

        Args:
            nice: start it at this lower CPU priority, back to normal once ready — so that, on one host
                standing in for many, its start-up does not take the CPU from the processes serving.
        """
        proc = self._procs.get(name)
        if proc is not None:
            try:
                await asyncio.wait_for(proc.wait(), 10.0)  # a process just killed may not be reaped yet
            except asyncio.TimeoutError:
                raise FedragError(f"{self.units[name].label} is still running (pid {proc.pid})") from None
        watcher = self._watchers.pop(name, None)
        if watcher is not None:
            watcher.cancel()
        await self._spawn(name, timeout, nice=nice)
        if nice:
            with contextlib.suppress(OSError):  # raising a priority again needs CAP_SYS_NICE: else it stays lower
                os.setpriority(os.PRIO_PROCESS, self._procs[name].pid, 0)

    def url_of(self, org: str | None) -> str:
        """Where organization ``org`` connects (``None``: a gateway)."""
        return self.urls.get(org, self.url) if org is not None else self.url

    async def start_org(self, org: str) -> None:
        """Starts one organization in this process (in-process mode, or to restart it in tests)."""
        nodes = await build_org(self.spec, org, embedder_factory=self.embedder_factory, verbose=self.verbose,
                                access=self.access)
        link = Link(self.url_of(org), f"fedrag-org-{org}", on_connect=serving(nodes, org, self.access),
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
        for name in [name for name, unit in self.units.items() if unit.org == org]:
            await self._stop_unit(name)
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
            for name in list(self._procs):
                try:
                    await self._stop_unit(name)
                except Exception:  # keep going: the other processes must still be stopped
                    log.exception("stopping %s failed", name)
            for org in list(self._nodes):
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
            gc.unfreeze()  # what this process loaded for the federation may go, as it goes

    async def _stop_unit(self, name: str) -> None:
        watcher = self._watchers.pop(name, None)
        if watcher is not None:
            watcher.cancel()
        proc = self._procs.pop(name, None)
        if proc is not None:
            await terminate_async(proc)

    async def _spawn(self, name: str, timeout: float, nice: int = 0) -> None:
        args = self.units[name].command(self.spec, self.url_of(self.units[name].org), self.verbose)
        # Organizations embed at the same time on first start: give each its share of the cores.
        threads = max(1, (os.cpu_count() or 1) // sum(1 for unit in self.units.values() if unit.org))
        env = {**os.environ, "FEDRAG_TORCH_THREADS": os.environ.get("FEDRAG_TORCH_THREADS", str(threads))}
        proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE, stderr=None,
                                                    stdin=asyncio.subprocess.DEVNULL, env=env,
                                                    preexec_fn=starting_at(nice))
        self._procs[name] = proc
        try:
            await asyncio.wait_for(self._await_ready(name, proc), timeout)
        except asyncio.TimeoutError:
            proc.kill()
            raise FedragError(f"{self.units[name].label} did not become ready within {timeout:.0f} s") from None
        self._pumps.append(asyncio.create_task(self._pump(proc)))
        if self.restart:
            self._watchers[name] = asyncio.create_task(self._watch(name, proc, timeout))

    async def _watch(self, name: str, proc: asyncio.subprocess.Process, timeout: float) -> None:
        """Restarts unit ``name`` whenever its process dies, with backoff, until the federation stops."""
        wait, longest = RESTART_BACKOFF_S
        while True:
            started = time.monotonic()
            code = await proc.wait()
            if self._stopping or self._procs.get(name) is not proc:
                return
            if time.monotonic() - started >= STABLE_AFTER_S:
                wait = RESTART_BACKOFF_S[0]
            print(f"  {self.units[name].label} exited with code {code}; restarting it in {wait:.0f} s",
                  file=sys.stderr, flush=True)
            await asyncio.sleep(wait)
            wait = min(wait * 2, longest)
            if self._stopping:
                return
            try:
                self._watchers.pop(name, None)  # _spawn installs a new watcher on success
                await self._spawn(name, timeout)
            except FedragError as exc:
                print(f"  {self.units[name].label} could not be restarted: {exc}", file=sys.stderr, flush=True)
                continue
            self.restarts[name] = self.restarts.get(name, 0) + 1
            print(f"  {self.units[name].label} restarted and serving", file=sys.stderr, flush=True)
            return

    async def _await_ready(self, name: str, proc: asyncio.subprocess.Process) -> None:
        while True:
            line = await proc.stdout.readline()
            if not line:
                code = await proc.wait()
                raise FedragError(f"{self.units[name].label} exited with code {code} before it was ready "
                                  "(its error is printed above)")
            text = line.decode()
            if text.startswith(READY):
                fields = dict(part.split("=", 1) for part in text.split()[1:] if "=" in part)
                self.serving[name] = [s for s in fields.get("subjects", "").split(",") if s]
                return
            sys.stderr.write(text)

    @staticmethod
    async def _pump(proc: asyncio.subprocess.Process) -> None:
        while line := await proc.stdout.readline():
            sys.stderr.write(line.decode())


@dataclass(frozen=True)
class Running:
    """A federation serving on its broker (see :func:`launched`).

    Attributes:
        federation: its processes.
        url: the broker, as nodes connect to it.
        client_url: the broker with the shared ``client`` user's login in it when the spec has identities
            (what ``fedrag demo --serve`` prints as ``NATS_URL``).
        server: the broker started for it, or ``None`` if it was given.
    """

    federation: Federation
    url: str
    client_url: str
    server: NatsServer | None = None


@contextlib.asynccontextmanager
async def launched(spec: FederationSpec, url: str | None = None, *, store_dir: Path | None = None,
                   **options) -> AsyncIterator[Running]:
    """Runs ``spec``'s federation until the block ends, on the broker at ``url`` or on an embedded one
    started here with the spec's broker users (:func:`nodes.run.brokers.embedded_broker`); stops both
    whatever happens.

    Args:
        spec: the federation.
        url: an existing broker; none: start one.
        store_dir: the embedded broker's JetStream folder (default: in the spec's state directory).
        options: passed on to :class:`Federation` (``processes``, ``units``, ``verbose``, ``embedder_factory`` ...).
    """
    with contextlib.ExitStack() as stack:
        server = None
        if url is None:
            server = stack.enter_context(embedded_broker(spec, store_dir))
            url = server.url
        async with Federation(spec, url, **options) as federation:
            yield Running(federation, url, broker.client_url(url, spec.federation.state_dir), server)

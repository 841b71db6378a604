"""The federation a chaos scenario acts on: a broker, processes serving nodes, and ways to hurt them.

:meth:`Lab.start` runs a federation of its own on a broker of its own, in the layout faults need:
the gateway twice, one leaf in a process of its own, one leaf in two replicas, one router without its
leaves, the other organizations whole (:func:`chaos_units`). :meth:`Lab.join` acts on a federation
someone else runs (``fedrag chaos SCENARIO --nats URL``): it finds which process serves each node
through discovery (every node publishes its pid and host) and leaves restarting what it kills to that
federation's own supervisor (``fedrag up`` restarts a dead organization within seconds).
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from dataclasses import dataclass

from bus.client import processes
from bus import connection
from bus.connection import connect, drain
from bus.errors import FedragError
from bus.server import NatsServer
from bus.subjects import org_of
from bus.sites import Sites
from nodes.run.brokers import embedded_broker, sites_broker
from nodes.run.federation import Federation, Unit
from nodes.run.assemble import broker_options, build_leaves
from nodes.run.spec import FederationSpec
from policies import broker

#: A process restarted by the lab starts at this lower priority: this host stands in for many, and one
#: process importing its libraries must not take the CPU from those serving (raised again once ready).
RESPAWN_NICE = 10


@dataclass(frozen=True)
class Targets:
    """Which nodes the scenarios hurt (node paths; ``org`` is an organization's name)."""

    leaf: str
    router: str
    org: str
    slow: str
    replica: str | None = None


def chaos_units(spec: FederationSpec) -> tuple[list[Unit], Targets]:
    """The layout of :meth:`Lab.start` for ``spec`` (at least two organizations, the first with two leaves,
    the second a router with leaves): what runs in which process, and which nodes the scenarios hurt.

    Raises:
        FedragError: the spec's tree is too small for every scenario.
    """
    orgs = list(spec.orgs)
    first, second = (orgs + [None, None])[:2]
    first_leaves = list(spec.leaves(first)) if first else []
    second_routers = spec.routers(second) if second else {}
    if len(orgs) < 2 or len(first_leaves) < 2 or second not in second_routers:
        raise FedragError(f"{spec.source}: chaos needs two organizations, the first with at least two leaves and "
                          "the second a router with units")
    alone, replicated = first_leaves[0], first_leaves[-1]
    rest = [path for path, _ in spec.nodes(first) if path not in (alone, replicated)]
    units = [Unit(first, first, tuple(rest)), Unit(alone, first, (alone,)),
             Unit(f"{replicated}#1", first, (replicated,)), Unit(f"{replicated}#2", first, (replicated,)),
             Unit(second, second, (second,)),
             Unit(f"{second}.*", second, tuple(p for p, _ in spec.nodes(second) if p != second)),
             *(Unit(org, org) for org in orgs[2:]),
             Unit("gateway#1"), Unit("gateway#2")]
    return units, Targets(leaf=alone, router=second, org=orgs[-1], slow=second, replica=replicated)


@dataclass(frozen=True)
class Victims:
    """The processes a fault strikes: what each serves, the nodes nobody else serves then (``down``),
    and which of the lab's own units they are."""

    pids: dict[int, set[str]]
    down: frozenset[str]
    units: list[str]

    @property
    def served(self) -> frozenset[str]:
        """Every node path the struck processes serve (a gateway as ``""``)."""
        return frozenset(node for nodes in self.pids.values() for node in nodes)


class Lab:
    """A running federation and what may be done to it.

    Use :meth:`start` (a federation of our own) or :meth:`join` (someone else's).
    """

    def __init__(self, spec: FederationSpec, url: str, targets: Targets, *, federation: Federation | None = None,
                 server: NatsServer | None = None, sites: Sites | None = None) -> None:
        self.spec = spec
        self.url = url
        self.targets = targets
        self.federation = federation
        self.server = server
        self.sites = sites
        self.host = socket.gethostname()
        #: Every node's path, parents before children.
        self.paths = [path for path, _ in spec.nodes()]
        #: The broker's address without the ``client`` user's credentials (an impostor brings its own).
        self.broker_url = federation.url if federation is not None else ",".join(connection.servers(url)[0])

    @classmethod
    async def start(cls, spec: FederationSpec, *, servers: int = 3, verbose: bool = False) -> "Lab":
        """Starts a broker with the spec's per-organization users — a cluster of ``servers`` servers, or
        one server — and the federation in the chaos layout on it (every process given every server)."""
        units, targets = chaos_units(spec)
        # replicas share a leaf's store: build every store once, here, before they start
        await asyncio.to_thread(build_leaves, spec, verbose=verbose)
        server = sites = None
        if servers > 1:
            sites = sites_broker(spec, "cluster", {"chaos": list(spec.orgs)}, {"chaos": servers},
                                 spec.federation.state_dir / "chaos-cluster")
            await asyncio.to_thread(sites.start)
            url = sites.url("chaos")
        else:
            server = await asyncio.to_thread(embedded_broker(spec).start)
            url = server.url
        federation = Federation(spec, url, units=units, restart=False, verbose=verbose)
        lab = cls(spec, broker.client_url(url, spec.federation.state_dir), targets, federation=federation,
                  server=server, sites=sites)
        try:
            await federation.start()
        except BaseException:
            await lab.stop()
            raise
        return lab

    @classmethod
    async def join(cls, spec: FederationSpec, url: str) -> "Lab":
        """A federation already running at ``url`` (its processes on this host)."""
        lab = cls(spec, url, Targets(leaf="", router="", org="", slow=""))
        served = await lab.serving()
        paths = {path for paths in served.values() for path in paths}
        missing = [path for path, _ in spec.nodes() if path not in paths]
        if missing:
            raise FedragError(f"not serving at {url}: {', '.join(missing)} (is the federation of {spec.source} "
                              "running, and on this host?)")
        orgs = list(spec.orgs)
        routers = [path for org in orgs for path in spec.routers(org) if path != org] or orgs
        lab.targets = Targets(leaf=next(iter(spec.leaves(orgs[0]))), router=routers[0], org=orgs[-1],
                              slow=orgs[1 % len(orgs)])
        return lab

    @property
    def owned(self) -> bool:
        """Whether this lab started the federation (and may restart its processes and broker)."""
        return self.federation is not None

    async def serving(self) -> dict[int, set[str]]:
        """Which node paths each live process on this host serves (the gateway as ``""``), from discovery."""
        nc = await self.connect()
        try:
            return await processes(nc, self.host)
        finally:
            await drain(nc)

    async def connect(self, name: str = "fedrag-chaos"):
        return await connect(self.url, name, timeout=5.0)

    async def victims(self, *paths: str, org: str | None = None, one: bool = False) -> "Victims":
        """The processes serving any of ``paths`` (or any node of ``org``), with everything each serves;
        with ``one``, only the first of them (one replica)."""
        served = await self.serving()
        pids = {pid: nodes for pid, nodes in sorted(served.items())
                if any(node in paths or (org and org_of(node) == org) for node in nodes)}
        if not pids:
            raise FedragError(f"no process on this host serves {', '.join(paths) or org}")
        if one:
            pids = dict([next(iter(pids.items()))])
        survivors = {node for pid, nodes in served.items() if pid not in pids for node in nodes}
        down = frozenset(node for nodes in pids.values() for node in nodes if node not in survivors and node)
        units = [name for name, pid in self.unit_pids().items() if pid in pids]
        return Victims(pids, down, units)

    def signal(self, victims: "Victims", sig: int) -> None:
        for pid in victims.pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    async def revive(self, victims: "Victims", timeout: float = 120.0) -> float:
        """Brings back what killed ``victims`` served: restarts their units (our federation), or waits
        for the running federation's supervisor to do it.

        Returns:
            A time (monotonic) at which it was surely not back yet: when the restart began, or when
            discovery last did not find it.

        Raises:
            FedragError: not serving again within ``timeout``.
        """
        if self.federation is not None:
            began = time.monotonic()
            await asyncio.gather(*(self.federation.respawn(name, timeout, nice=RESPAWN_NICE) for name in victims.units))
            return began
        wanted = victims.served
        unseen = time.monotonic()
        end = unseen + timeout
        while time.monotonic() < end:
            asked = time.monotonic()
            served = await self.serving()
            if wanted <= {node for pid, nodes in served.items() if pid not in victims.pids for node in nodes}:
                return unseen
            unseen = asked
            await asyncio.sleep(0.2)
        raise FedragError(f"not serving again {timeout:.0f} s after the kill: {', '.join(sorted(wanted))}")

    def unit_pids(self) -> dict[str, int | None]:
        """Each of our units' process id (``None`` while it is down)."""
        return {name: self.federation.pid(name) for name in self.federation.units} if self.federation else {}

    def connect_options(self, org: str) -> dict:
        """How a process of ``org`` connects (an impostor standing in for it uses its credentials)."""
        return broker_options(self.spec, broker.org_user(org))

    @property
    def servers(self) -> list[str]:
        """The names of the broker's servers this lab runs (none when it joined a running federation)."""
        if self.sites is not None:
            return list(self.sites.servers)
        return ["broker"] if self.server is not None else []

    def kill_server(self, name: str) -> None:
        """SIGKILL one of the broker's servers, as a crash would."""
        if self.sites is not None:
            self.sites.kill(name)
        elif self.server is not None:
            self.server.kill()

    async def restart_servers(self, names: list[str]) -> None:
        """Starts killed servers again on their ports; returns once the broker is whole again."""
        if self.sites is not None:
            await asyncio.to_thread(self.sites.restart, *names)
        else:
            await asyncio.to_thread(self.server.start)

    async def stop(self) -> None:
        try:
            if self.federation is not None:
                await self.federation.stop()
        finally:
            if self.sites is not None:
                self.sites.stop()
            if self.server is not None:
                self.server.stop()

"""Several ``nats-server`` processes as one broker: a cluster, a supercluster of sites, or leaf-node sites.

A *site* is a group of servers that clients of one place connect to; its servers form a cluster
(joined by routes, full mesh), so a client given all of them (``nats://a,nats://b,...``) moves to
another when its server dies. Sites are joined in one of three ways:

* ``cluster``: a single site of N servers.
* ``supercluster``: every site is a cluster named after it, and the clusters are joined by NATS
  gateways; JetStream spans them all (one meta group, no domain).
* ``leaf``: the first site is the hub; every server of the other sites connects to the hub's servers
  as a leaf node (outbound only, so a site behind a firewall can join). Each site keeps a JetStream
  of its own, in a domain named after the site (``$JS.<site>.API`` reaches it from elsewhere).

A one-server site of a supercluster runs no JetStream (clustered JetStream needs routes); its
clients use the other sites' across the gateways.

Every server has a unique ``server_name`` (``<site>-<n>``), an HTTP monitoring port, and loopback
ports that are free when the configuration is rendered (or consecutive from ``base_port``);
:meth:`Sites.start` picks new ones and starts again if another process took one in between.
Client authorization is passed in as configuration text per site (this module knows no users;
:mod:`policies.broker` writes them), route and gateway links may carry a user and password of their
own, and leaf links log in to the hub as a user of its authorization block, whose permissions bound
what crosses the link.

Readiness is what clients need, not a process having started: :meth:`Sites.start` returns once each
server accepts clients, its routes to every running peer of its site, its gateways to every other
site, or its leaf link to the hub are up (checked on the monitoring endpoints ``/routez``,
``/gatewayz``, ``/leafz``) and its JetStream answers ``/healthz``.

Example::

    with Sites("supercluster", {"east": 3, "west": 1}, folder) as sites:
        nc = await connect(sites.url("east"), "me")     # nats://127.0.0.1:p1,nats://127.0.0.1:p2,...
        sites.kill("east-1")                            # a crash; clients of east-1 move to east-2/3
        sites.restart("east-1")                         # back on the same ports
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bus._system import free_ports, write_atomically
from bus.errors import BrokerError
from bus.server import NatsServer

TOPOLOGIES = ("cluster", "supercluster", "leaf")
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
#: How many times :meth:`Sites.start` picks new ports when another process took one first.
PORT_ATTEMPTS = 3


@dataclass(frozen=True)
class Login:
    """A user name and password that one server presents to another (routes, gateways, leaf links)."""

    user: str
    password: str

    def url(self, scheme: str, host: str, port: int) -> str:
        return f"{scheme}://{self.user}:{self.password}@{host}:{port}"


@dataclass
class ServerPlan:
    """Where one server listens. A port is 0 when the server has no such listener."""

    name: str
    site: str
    client: int
    monitor: int
    route: int = 0
    gateway: int = 0
    leaf: int = 0


class Sites:
    """The servers of a topology: rendered into ``folder``, started, watched, and stopped together.

    Args:
        topology: ``cluster``, ``supercluster`` or ``leaf`` (see the module's docstring).
        sites: each site's name and number of servers, in order (for ``leaf``, the first is the hub).
        folder: where the configurations (``<server>.conf``, mode 0600) and JetStream's storage go.
        authorization: the client ``authorization { ... }`` block, the same for every site or per site
            name; empty for an open broker.
        routes: the login of route and gateway links (none: they are not authenticated).
        leaf: the login leaf links present to the hub (a user of the hub's authorization block).
        jetstream: whether the servers run JetStream.
        host: the address every listener binds.
        base_port: allocate ports consecutively from here instead of picking free ones (for
            configurations rendered to be run elsewhere).

    Raises:
        BrokerError: an unknown topology, a bad site name, a site without servers, or a topology
            the sites do not fit (``cluster`` has one site; ``supercluster`` and ``leaf`` two or more).
    """

    def __init__(self, topology: str, sites: Mapping[str, int], folder: Path, *,
                 authorization: str | Mapping[str, str] = "", routes: Login | None = None, leaf: Login | None = None,
                 jetstream: bool = True, host: str = "127.0.0.1", base_port: int | None = None) -> None:
        if topology not in TOPOLOGIES:
            raise BrokerError(f"unknown topology {topology!r}: expected one of {', '.join(TOPOLOGIES)}")
        if not sites:
            raise BrokerError("no sites given")
        for name, count in sites.items():
            if not _NAME.match(name):
                raise BrokerError(f"site name {name!r}: use letters, digits, '_' and '-' only")
            if count < 1:
                raise BrokerError(f"site {name} has {count} servers: it needs at least one")
        if topology == "cluster" and len(sites) != 1:
            raise BrokerError(f"a cluster is one site, got {len(sites)} ({', '.join(sites)}): "
                              "use the supercluster or leaf topology to join sites")
        if topology != "cluster" and len(sites) < 2:
            raise BrokerError(f"a {topology} joins two or more sites, got {len(sites)}")
        if not isinstance(authorization, str):
            unknown = set(authorization) - set(sites)
            if unknown:
                raise BrokerError(f"authorization given for unknown sites: {', '.join(sorted(unknown))}")
        self.topology = topology
        self.sites = dict(sites)
        self.folder = Path(folder)
        self.authorization = authorization
        self.routes = routes
        self.leaf = leaf
        self.jetstream = jetstream
        self.host = host
        self.base_port = base_port
        self.plans: dict[str, ServerPlan] = {}
        self.servers: dict[str, NatsServer] = {}

    # -- the plan ------------------------------------------------------------------------------------

    @property
    def hub(self) -> str:
        """The first site: the hub of a ``leaf`` topology."""
        return next(iter(self.sites))

    def _clustered(self, site: str) -> bool:
        """Whether the site's servers carry a cluster block (several servers, or gateways need its name)."""
        return self.topology == "supercluster" or self.sites[site] > 1

    def runs_jetstream(self, site: str) -> bool:
        """Whether ``site``'s servers run JetStream: not a one-server site of a supercluster (clustered
        JetStream needs routes); its clients use the JetStream of the other sites, across the gateways."""
        return self.jetstream and not (self.topology == "supercluster" and self.sites[site] == 1)

    def plan(self) -> dict[str, ServerPlan]:
        """Assigns every server its name and ports (free ones now, or from ``base_port``)."""
        wanted = []
        for site, count in self.sites.items():
            for n in range(1, count + 1):
                kinds = ["client", "monitor"]
                if self._clustered(site):
                    kinds.append("route")
                if self.topology == "supercluster":
                    kinds.append("gateway")
                if self.topology == "leaf" and site == self.hub:
                    kinds.append("leaf")
                wanted.append((f"{site}-{n}", site, kinds))
        total = sum(len(kinds) for _, _, kinds in wanted)
        ports = iter(range(self.base_port, self.base_port + total) if self.base_port else free_ports(total, self.host))
        self.plans = {name: ServerPlan(name, site, **{kind: next(ports) for kind in kinds}) for name, site, kinds in wanted}
        return self.plans

    def names(self, site: str) -> list[str]:
        """The server names of ``site``."""
        return [name for name, plan in self.plans.items() if plan.site == site]

    def urls(self, site: str) -> list[str]:
        """The client URLs of ``site``'s servers."""
        if site not in self.sites:
            raise BrokerError(f"no site {site!r} (sites: {', '.join(self.sites)})")
        return [f"nats://{self.host}:{self.plans[name].client}" for name in self.names(site)]

    def url(self, site: str) -> str:
        """``site``'s client URLs joined by commas: what ``--nats`` takes so clients fail over within it."""
        return ",".join(self.urls(site))

    def server_at(self, port: int) -> str:
        """The name of the server listening for clients on ``port`` (e.g. a client's ``connected_url.port``)."""
        for name, plan in self.plans.items():
            if plan.client == port:
                return name
        raise BrokerError(f"no server of these sites listens for clients on port {port}")

    # -- rendering -----------------------------------------------------------------------------------

    def config(self, name: str) -> str:
        """The configuration text of server ``name``."""
        plan = self.plans[name]
        site, host = plan.site, self.host
        lines = [f"# {self.topology} site {site}, server {name} (written by fedrag, bus/sites.py)",
                 f"server_name: {_q(name)}",
                 f"listen: {_q(f'{host}:{plan.client}')}",
                 f"http: {_q(f'{host}:{plan.monitor}')}"]
        if self.runs_jetstream(site):
            domain = f", domain: {_q(site)}" if self.topology == "leaf" else ""
            lines.append(f"jetstream {{store_dir: {_q(str(self.store_dir(name)))}{domain}}}")
        if plan.route:
            peers = [self._link_url("nats-route", self.plans[other].route) for other in self.names(site) if other != name]
            lines += ["cluster {", f"  name: {_q(site)}", f"  listen: {_q(f'{host}:{plan.route}')}",
                      *self._auth_lines(self.routes), f"  routes: {_list(peers)}", "}"]
        if plan.gateway:
            others = [f"{{name: {_q(other)}, urls: "
                      f"{_list([self._link_url('nats', self.plans[n].gateway) for n in self.names(other)])}}}"
                      for other in self.sites if other != site]
            lines += ["gateway {", f"  name: {_q(site)}", f"  listen: {_q(f'{host}:{plan.gateway}')}",
                      *self._auth_lines(self.routes), "  gateways: [", *(f"    {g}" for g in others), "  ]", "}"]
        if plan.leaf:
            lines.append(f"leafnodes {{listen: {_q(f'{host}:{plan.leaf}')}}}")
        elif self.topology == "leaf":
            hub = [self._login_url(self.leaf, "nats-leaf", self.plans[n].leaf) for n in self.names(self.hub)]
            lines.append(f"leafnodes {{remotes: [{{urls: {_list(hub)}}}]}}")
        auth = self.authorization if isinstance(self.authorization, str) else self.authorization.get(site, "")
        if auth:
            lines.append(auth.rstrip("\n"))
        return "\n".join(lines) + "\n"

    def _link_url(self, scheme: str, port: int) -> str:
        return self._login_url(self.routes, scheme, port)

    def _login_url(self, login: Login | None, scheme: str, port: int) -> str:
        return login.url(scheme, self.host, port) if login else f"{scheme}://{self.host}:{port}"

    @staticmethod
    def _auth_lines(login: Login | None) -> list[str]:
        if login is None:
            return []
        return [f"  authorization {{user: {_q(login.user)}, password: {_q(login.password)}}}"]

    def store_dir(self, name: str) -> Path:
        return self.folder / "jetstream" / name

    def config_path(self, name: str) -> Path:
        return self.folder / f"{name}.conf"

    def render(self) -> list[Path]:
        """Plans the servers (unless planned already) and writes their configurations; returns their paths."""
        if not self.plans:
            self.plan()
        self.folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for name in self.plans:
            paths.append(write_atomically(self.config_path(name), self.config(name)))  # it may hold passwords
        return paths

    # -- running -------------------------------------------------------------------------------------

    def start(self, timeout: float = 60.0) -> "Sites":
        """Renders and starts every server; returns once all of them are ready (see the module's docstring).

        Raises:
            BrokerError: a server did not start, or the links were not up within ``timeout``; the
                message names the server and what it was missing, with the end of its log.
        """
        for attempt in range(1, PORT_ATTEMPTS + 1):
            if not self.plans or attempt > 1:
                self.plan()
            self.render()
            try:
                for name in self.plans:
                    self.servers[name] = NatsServer(config=self.config_path(name)).start(timeout)
                break
            except BrokerError as exc:
                self.stop()
                taken = "address already in use" in str(exc)
                if not taken or self.base_port or attempt == PORT_ATTEMPTS:
                    raise
        try:
            self.wait_ready(timeout)
        except BrokerError:
            self.stop()
            raise
        return self

    def running(self) -> list[str]:
        """The names of the servers whose process is alive."""
        return [name for name, server in self.servers.items() if server.running]

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Returns once every running server has all the links it should have to running servers.

        Raises:
            BrokerError: some server is still missing a link after ``timeout``.
        """
        deadline = time.monotonic() + timeout
        while True:
            missing = {name: why for name in self.running() if (why := self._missing(name))}
            if not missing:
                return
            if time.monotonic() >= deadline:
                name, why = next(iter(missing.items()))
                raise BrokerError(f"servers not ready within {timeout:.0f} s: "
                                  + "; ".join(f"{n}: {w}" for n, w in missing.items())
                                  + f"\nlast lines of {name}'s log:\n{self.servers[name].log_tail()}")
            time.sleep(0.1)

    def _missing(self, name: str) -> str:
        """What server ``name`` still lacks ('' once ready)."""
        plan, server, alive = self.plans[name], self.servers[name], set(self.running())
        try:
            if plan.route:
                peers = {n for n in self.names(plan.site) if n != name and n in alive}
                routed = {route.get("remote_name") for route in _get(server, "/routez").get("routes") or []}
                if peers - routed:
                    return f"no route to {', '.join(sorted(peers - routed))}"
            if plan.gateway:
                others = {s for s in self.sites if s != plan.site and any(n in alive for n in self.names(s))}
                out = _get(server, "/gatewayz").get("outbound_gateways") or {}
                linked = {gw for gw, remote in out.items() if remote.get("connection")}
                if others - linked:
                    return f"no gateway to {', '.join(sorted(others - linked))}"
            if self.topology == "leaf" and not plan.leaf and any(n in alive for n in self.names(self.hub)):
                if not _get(server, "/leafz").get("leafnodes"):
                    return f"no leaf link to {self.hub}"
            if self.runs_jetstream(plan.site):
                health = _get(server, "/healthz")
                if health.get("status") != "ok":
                    return f"JetStream not ready ({health.get('error') or health})"
        except (OSError, ValueError) as exc:
            return f"monitoring not answering ({exc})"
        return ""

    def kill(self, name: str) -> None:
        """Kills server ``name`` as a crash would (SIGKILL); :meth:`restart` brings it back."""
        self._server(name).kill()

    def restart(self, *names: str, timeout: float = 60.0) -> None:
        """Starts the servers ``names`` again on their ports and waits until every server is ready again."""
        servers = [self._server(name) for name in names]
        for name, server in zip(names, servers):
            if server.running:
                raise BrokerError(f"server {name} is still running")
        for server in servers:
            server.start(timeout)
        self.wait_ready(timeout)

    def _server(self, name: str) -> NatsServer:
        if name not in self.servers:
            raise BrokerError(f"no server {name!r} (servers: {', '.join(self.plans) or 'none started'})")
        return self.servers[name]

    def stop(self) -> None:
        """Stops every server; no process is left, whatever failed before."""
        for server in self.servers.values():
            try:
                server.stop()
            except Exception:  # keep going: the others must stop too
                if server.process is not None:
                    server.process.kill()
        self.servers = {}

    def __enter__(self) -> "Sites":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _q(text: str) -> str:
    return json.dumps(text)


def _list(items: list[str]) -> str:
    return "[" + ", ".join(_q(item) for item in items) + "]"


def _get(server: NatsServer, path: str) -> dict:
    """A monitoring endpoint's JSON (an error status's body too: ``/healthz`` answers 503 with a reason)."""
    try:
        with urllib.request.urlopen(server.monitor_url + path, timeout=2.0) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return json.loads(exc.read() or b"{}")

"""The broker a federation runs on, with its organizations' users: one embedded server, or sites.

:func:`embedded_broker` is the single ``nats-server`` that ``fedrag demo``, ``fedrag up`` and the
tests start; :func:`sites_broker` is the cluster, supercluster or leaf-node sites of ``fedrag broker``
(and of the chaos runs' three-server cluster). Both give each organization, gateway and person of
the spec a broker user of their own when the spec has identities (:mod:`policies.broker`).
"""

from __future__ import annotations

from pathlib import Path

from bus.server import NatsServer
from bus.sites import Login, Sites
from nodes.run.spec import FederationSpec
from policies import broker
from policies.access import issuer


def embedded_broker(spec: FederationSpec, store_dir: Path | None = None) -> NatsServer:
    """One broker (not started): with per-organization users when the spec has identities.

    Args:
        store_dir: JetStream's folder (default ``jetstream`` in the spec's state directory).
    """
    args = []
    if spec.identity is not None:
        args = ["-c", str(broker.write_server_config(spec.federation.state_dir, list(spec.orgs), _issuers(spec)))]
    return NatsServer(store_dir=store_dir or spec.federation.state_dir / "jetstream", extra_args=args)


def sites_broker(spec: FederationSpec, topology: str, sites: dict[str, list[str]], servers: dict[str, int],
                 folder: Path, **options) -> Sites:
    """The servers of a multi-site broker (not started) where each site's organizations connect, each
    site knowing only its own organizations' users (open if the spec has no identities).

    Args:
        topology: ``cluster``, ``supercluster`` or ``leaf`` (see :mod:`bus.sites`).
        sites: each site's name and its organizations.
        servers: each site's number of servers.
        folder: where configurations and JetStream's storage go.
        options: passed on to :class:`bus.sites.Sites` (``base_port`` ...).
    """
    return multisite(spec.federation.state_dir, topology, sites, servers, folder,
                            secure=spec.identity is not None, issuers=_issuers(spec),
                            homes={uid: user.org for uid, user in spec.users.items()}, **options)


def multisite(state_dir: Path, topology: str, sites: dict[str, list[str]], servers: dict[str, int], folder: Path, *,
              secure: bool = True, issuers: dict[str, str] | None = None, homes: dict[str, str] | None = None,
              **options) -> Sites:
    """The servers of a multi-site broker for a federation whose organizations connect at ``sites``
    (not started: call :meth:`bus.sites.Sites.start`, or :meth:`~bus.sites.Sites.render` only).

    Args:
        state_dir: the federation's state directory (credentials live under ``broker/``).
        topology: ``cluster``, ``supercluster`` or ``leaf`` (the first site is the hub).
        sites: each site's name and the organizations that connect there.
        servers: each site's number of servers.
        folder: where the configurations and JetStream's storage go.
        secure: give each site its users (:func:`policies.broker.site_configs`) and the servers their own
            logins; otherwise the broker is open, like a federation without identities.
        issuers: each person's id and token issuer.
        homes: each person's id and organization.
        options: passed on to :class:`bus.sites.Sites` (``base_port``, ``jetstream``...).
    """
    if not secure:
        return Sites(topology, servers, folder, **options)
    hub = next(iter(sites)) if topology == "leaf" else None
    links = broker.link_credentials(state_dir)
    return Sites(topology, servers, folder, authorization=broker.site_configs(state_dir, sites, issuers, homes, hub),
                 routes=Login(broker.ROUTE, links[broker.ROUTE]), leaf=Login(broker.LEAF, links[broker.LEAF]),
                 **options)


def _issuers(spec: FederationSpec) -> dict[str, str]:
    return {uid: issuer(user.org) for uid, user in spec.users.items()}

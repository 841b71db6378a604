"""The broker a federation runs on, with its organizations' users: one embedded server, or sites.

:func:`embedded_broker` is the single ``nats-server`` that ``fedrag demo``, ``fedrag up`` and the
tests start; :func:`sites_broker` is the cluster, supercluster or leaf-node sites of ``fedrag broker``
(and of the chaos runs' three-server cluster). Both give each organization, gateway and person of
the spec a broker user of their own when the spec has identities (:mod:`policies.broker`).
"""

from __future__ import annotations

from pathlib import Path

from bus.server import NatsServer
from bus.sites import Sites
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
    return broker.multisite(spec.federation.state_dir, topology, sites, servers, folder,
                            secure=spec.identity is not None, issuers=_issuers(spec),
                            homes={uid: user.org for uid, user in spec.users.items()}, **options)


def _issuers(spec: FederationSpec) -> dict[str, str]:
    return {uid: issuer(user.org) for uid, user in spec.users.items()}

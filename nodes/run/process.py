"""One process of a federation: an organization's nodes, or a gateway, serving until SIGINT or SIGTERM.

What ``fedrag org`` and ``fedrag gateway`` run — each site runs its organizations this way, and
:class:`nodes.run.federation.Federation` launches them as child processes. A process says
``FEDRAG_READY`` with the subjects it serves once every node answers on the bus (its launcher waits for
that line), holds its connection through a :class:`bus.connection.Link` that comes back when the broker
closes it, and stops its nodes before it exits.
"""

from __future__ import annotations

import asyncio
import gc
import signal
import sys

from bus.connection import Link
from bus.errors import FedragError
from nodes.data import embedder as emb
from nodes.run.assemble import broker_options, build_org, make_access, make_gateway, serving, stop_nodes
from nodes.run.spec import FederationSpec
from policies import broker

#: The line a process prints once it serves (``FEDRAG_READY org=... subjects=a,b``).
READY = "FEDRAG_READY"


async def serve_org(spec: FederationSpec, org: str, url: str, verbose: bool = True, only: tuple[str, ...] = ()) -> None:
    """Runs one organization (or only the nodes at the paths in ``only``) until SIGINT/SIGTERM (the body of ``fedrag org``)."""
    if org not in spec.orgs:
        raise FedragError(f"organization {org!r} is not in {spec.source} (it has: {', '.join(spec.orgs)})")
    access = make_access(spec)
    nodes = await build_org(spec, org, verbose=verbose, access=access, keep_model=False, only=only)
    emb.release()  # built: the model is loaded again only to embed records that arrive live
    link = Link(url, f"fedrag-org-{org}", on_connect=serving(nodes, org, access),
                **broker_options(spec, broker.org_user(org)))
    await link.open()
    settled()
    print(f"{READY} org={org} subjects={','.join(node.subject for node in nodes)}", flush=True)
    await wait_for_signal()
    await stop_nodes(nodes)
    await link.close()


async def serve_gateway(spec: FederationSpec, url: str, org: str | None = None, verbose: bool = True) -> None:
    """Runs a gateway until SIGINT/SIGTERM (the body of ``fedrag gateway``): ``org``'s own, or the federation-wide one."""
    if org is not None and org not in spec.orgs:
        raise FedragError(f"organization {org!r} is not in {spec.source} (it has: {', '.join(spec.orgs)})")
    access = make_access(spec)
    gateway = make_gateway(spec, access=access, org=org)
    link = Link(url, f"fedrag-gateway{'-' + org if org else ''}", on_connect=serving([gateway], access=access),
                **broker_options(spec, broker.gateway_user(org) if org else broker.GATEWAY))
    await link.open()
    if verbose:
        print(f"gateway serving {gateway.subject} for {', '.join(spec.orgs)}", file=sys.stderr, flush=True)
    settled()
    print(f"{READY} gateway subjects={gateway.subject}", flush=True)
    await wait_for_signal()
    await gateway.stop()
    await link.close()


def settled() -> None:
    """Moves everything loaded so far (the model, spaCy, the stores' caches) out of the garbage collector's sight:
    it lives as long as the process, and a full collection walking its half a million objects stalls whichever
    question is in flight for a tenth of a second or more."""
    gc.collect()
    gc.freeze()


async def wait_for_signal() -> None:
    """Returns on SIGINT or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()

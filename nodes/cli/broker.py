"""A broker of several sites on this machine: ``fedrag broker``."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bus.errors import SpecError
from nodes.cli._common import say
from nodes.run.brokers import sites_broker
from nodes.run.process import wait_for_signal
from nodes.run.spec import FederationSpec


def add_commands(sub) -> None:
    p = sub.add_parser("broker", help="render and run a broker of several sites on this machine",
                       description="Each --site is a cluster of --servers nats-servers where the organizations "
                       "named connect (with their broker users only, when the spec has identities); sites are joined "
                       "by NATS gateways (supercluster) or as leaf nodes of the first site (leaf). Prints "
                       "SITE_<name>=URL,URL,... for each site once every link is up, and serves until Ctrl-C.")
    p.add_argument("spec")
    p.add_argument("--site", action="append", metavar="NAME=ORG[,ORG...]", help="a site and the organizations that "
                   "connect there (repeatable; every organization on one site; default: one site of all of them)")
    p.add_argument("--topology", choices=["cluster", "supercluster", "leaf"], help="how the sites are joined "
                   "(default: cluster for one site, supercluster for several; leaf: the first site is the hub)")
    p.add_argument("--servers", default="3", metavar="N[,N...]", help="servers per site: one number for all, or one "
                   "per site in order (default 3)")
    p.add_argument("--out", metavar="DIR", help="where the configurations and JetStream's storage go "
                   "(default <state_dir>/broker/sites)")
    p.add_argument("--base-port", type=int, metavar="PORT", help="use consecutive ports from PORT (default: free ones)")
    p.add_argument("--render-only", action="store_true", help="write the configurations and print how to run them")
    p.set_defaults(run=cmd_broker)


def parse_sites(spec: FederationSpec, given: list[str] | None) -> dict[str, list[str]]:
    """Each ``--site NAME=ORG,ORG`` as ``{name: [orgs]}`` (default: one site of every organization).

    Raises:
        SpecError: a malformed ``--site``, a site given twice or without organizations, an organization
            unknown, on two sites, or on none.
    """
    sites: dict[str, list[str]] = {}
    for text in given or [f"site1={','.join(spec.orgs)}"]:
        name, _, orgs = text.partition("=")
        name, orgs = name.strip(), [org.strip() for org in orgs.split(",") if org.strip()]
        if not name or "=" not in text:
            raise SpecError(f"--site {text!r}: expected NAME=ORG[,ORG...], e.g. east=hospital_a")
        if name in sites:
            raise SpecError(f"--site {name} is given twice")
        if not orgs:
            raise SpecError(f"site {name} has no organizations: give them as --site {name}=ORG[,ORG...]")
        unknown = [org for org in orgs if org not in spec.orgs]
        if unknown:
            raise SpecError(f"site {name}: {', '.join(unknown)} is not an organization of {spec.source} "
                            f"(it has: {', '.join(spec.orgs)})")
        twice = [org for org in orgs if any(org in others for others in sites.values())]
        if twice:
            raise SpecError(f"site {name}: {', '.join(twice)} is already on another site (an organization connects at one)")
        sites[name] = orgs
    nowhere = [org for org in spec.orgs if not any(org in orgs for orgs in sites.values())]
    if nowhere:
        raise SpecError(f"{', '.join(nowhere)} is on no site: add it to a --site")
    return sites


def parse_servers(text: str, sites: list[str]) -> dict[str, int]:
    """``--servers N`` (every site) or ``N,N,...`` (one per site, in order) as ``{site: servers}``.

    Raises:
        SpecError: not positive numbers, or not one per site.
    """
    counts = [part.strip() for part in text.split(",")]
    if len(counts) not in (1, len(sites)) or not all(c.isdigit() and int(c) > 0 for c in counts):
        raise SpecError(f"--servers {text!r}: one positive number for every site, or one per site in order "
                        f"({len(sites)} sites)")
    return dict(zip(sites, [int(c) for c in counts] * len(sites) if len(counts) == 1 else map(int, counts)))


async def cmd_broker(args) -> int:
    """Renders (and, unless ``--render-only``, runs) a multi-site broker: each ``--site NAME=ORG,ORG`` a
    cluster of ``--servers`` servers where those organizations connect, with their broker users only."""
    spec = FederationSpec.load(Path(args.spec))
    sites = parse_sites(spec, args.site)
    servers = parse_servers(args.servers, list(sites))
    topology = args.topology or ("cluster" if len(sites) == 1 else "supercluster")
    folder = Path(args.out) if args.out else spec.federation.state_dir / "broker" / "sites"
    multisite = sites_broker(spec, topology, sites, servers, folder, base_port=args.base_port)
    variable = {site: "SITE_" + site.replace("-", "_") for site in sites}
    if args.render_only:
        for path in multisite.render():
            print(f"nats-server -c {path}")
        for site in sites:
            print(f"{variable[site]}={multisite.url(site)}")
        return 0
    say(f"starting {sum(servers.values())} nats-servers: a {topology} of {len(sites)} site(s), configurations in {folder}")
    started = time.monotonic()
    await asyncio.to_thread(multisite.start)
    try:
        say(f"ready in {time.monotonic() - started:.1f} s" + (" (each site knows only its own organizations' "
            "broker users)" if spec.identity is not None else " (open: the spec has no [identity])"))
        for site, orgs in sites.items():
            print(f"{variable[site]}={multisite.url(site)}", flush=True)
            for org in orgs:
                say(f"  {org}: fedrag org {spec.source} --org {org} --nats ${variable[site]}")
        say("serving until Ctrl-C")
        await wait_for_signal()
    finally:
        multisite.stop()
    return 0

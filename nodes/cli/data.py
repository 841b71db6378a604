"""Records into a running federation: ``fedrag ingest``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from bus.client import discover
from bus.connection import connect
from bus.errors import SpecError
from bus.subjects import org_of, validate_path
from nodes.cli._common import DEFAULT_SPEC, nats_option, say
from nodes.run.assemble import broker_options
from nodes.run.spec import FederationSpec
from policies import broker


def add_commands(sub) -> None:
    p = sub.add_parser("ingest", help="send records (and deletions) to a leaf through its durable stream",
                       description="Exits 0 when every record was applied, 3 when some were skipped or rejected "
                       "(listed), 4 when the leaf had not applied everything when --wait ended (the rest waits "
                       "in the stream).")
    p.add_argument("files", nargs="*", metavar="FILE", help="records to add or replace (a folder for folder formats)")
    p.add_argument("--to", required=True, metavar="PATH", help="the leaf, e.g. hospital_a.medicine")
    p.add_argument("--format", default="fedrag", help="the files' format (fedrag, jsonl, csv, mtsamples, "
                   "mimic-discharge, mimic-hosp, synthea, aci-bench)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a loader option, e.g. text=note")
    p.add_argument("--delete", nargs="+", default=[], metavar="ID", help="record ids to delete")
    p.add_argument("--spec", default=DEFAULT_SPEC, help="the federation spec: check the leaf, connect as its organization")
    p.add_argument("--wait", type=float, default=120.0, help="seconds to wait for the leaf to apply (default 120)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    nats_option(p)
    p.set_defaults(run=cmd_ingest)


async def cmd_ingest(args) -> int:
    from nodes.data.loaders import check
    from nodes.run.ingest import IngestSummary, ingest, read_records

    path = validate_path(args.to)
    options = dict(_option(text) for text in args.option)
    check(args.format, options)
    if not args.files and not args.delete:
        raise SpecError("nothing to ingest: give a FILE and/or --delete ID")
    connect_options, url = {}, args.nats
    if args.spec:
        spec = FederationSpec.load(Path(args.spec))
        node = spec.leaves().get(path)
        if node is None or not node.ingest:
            live = ", ".join(p for p, n in spec.leaves().items() if n.ingest) or "none"
            raise SpecError(f"{path} is not a leaf that takes records live in {spec.source} "
                            f"(give it 'ingest = true'; leaves that do: {live})")
        connect_options = broker_options(spec, broker.org_user(org_of(path)))
    summary = IngestSummary(path)
    records = read_records([Path(f) for f in args.files], args.format, options, summary)
    nc = await connect(url, "fedrag-ingest", timeout=5.0, **connect_options)
    try:
        if not args.spec and not args.quiet:
            nodes = await discover(nc, timeout=0.5)
            if not any(n.path == path and n.info.metadata.get("ingest") == "yes" for n in nodes):
                say(f"note: no leaf {path} that takes records live is serving now; the records wait in the stream")
        await ingest(nc, path, records, list(args.delete), summary, wait_s=args.wait, verbose=not args.quiet)
    finally:
        await nc.drain()
    print(json.dumps(dataclasses.asdict(summary), default=str, indent=2) if args.json else summary.text())
    if not summary.complete:
        return 4
    return 3 if summary.applied.rejected or summary.skipped else 0


def _option(text: str) -> tuple[str, str | bool]:
    """``NAME=VALUE`` as a loader option (``true``/``false`` as booleans)."""
    if "=" not in text:
        raise SpecError(f"--option {text!r}: expected NAME=VALUE")
    name, value = text.split("=", 1)
    return name.strip(), {"true": True, "false": False}.get(value.strip().lower(), value.strip())

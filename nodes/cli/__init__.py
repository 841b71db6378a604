"""The ``fedrag`` command: one module per family of commands, each adding its own subcommands.

Commands::

    fedrag demo [--serve]              broker + demo federation; ask a sample question (or keep serving)
    fedrag up SPEC [--nats URL]        run a federation from its spec (one process per organization)
    fedrag org SPEC --org NAME         run one organization's nodes (what each site runs)
    fedrag gateway SPEC [--org NAME]   run the federation's gateway on fed.ask, or an organization's own
    fedrag llm serve                   a local OpenAI-compatible LLM for answers and summaries
    fedrag ask "QUESTION" [--json]     ask a running federation (--as USER or --token FILE)
    fedrag tui                         the terminal client
    fedrag status                      the live tree of nodes with their counters
    fedrag compare SPEC                federated top-k against a centralized index, per question
    fedrag login USER --spec SPEC      development sign-in: a token and proof key for a spec's user
    fedrag explain SPEC                the access matrix from the spec's policies, or why one user may not
    fedrag ingest FILE --to LEAF       records into a leaf through its durable stream
    fedrag broker SPEC --site S=ORGS   a broker of several sites (cluster, supercluster, leaf nodes) on loopback
    fedrag chaos SCENARIO|all          inject faults while questions stream in; every answer checked
    fedrag load [--clients 1,4,16]     throughput, latency and lost replies under load; --soak for memory
    fedrag flood [--count 20000]       one user's malformed asks while another is answered
    fedrag eval SET [--modes ...]      relevance on a labelled set (medquad, pubmedqa, demo-negatives), per ranking mode

:data:`FAMILIES` lists the modules; each has ``add_commands(sub)``. ``--nats`` defaults to
``$FEDRAG_NATS_URL`` or ``nats://127.0.0.1:4222``; ``--spec`` (for ``--as``) to ``$FEDRAG_SPEC``. Errors
are one line on stderr and exit code 2. Nothing below the command line imports it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys

from bus.errors import FedragError
from nodes.cli import ask, broker, chaos, data, eval, identity, serve

#: The command families, in the order ``fedrag --help`` lists them.
FAMILIES = (serve, ask, identity, data, broker, chaos, eval)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fedrag", description="Federated clinical question answering over NATS.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debugging detail")
    sub = parser.add_subparsers(dest="command", required=True)
    for family in FAMILIES:
        family.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        result = args.run(args)
        return asyncio.run(result) if asyncio.iscoroutine(result) else result
    except FedragError as exc:
        print(f"fedrag: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`fedrag ask ... | head`): end quietly, like any filter
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:  # a file or folder named on the command line cannot be used
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"fedrag: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130

"""Relevance on labelled sets (:mod:`nodes.eval`): ``fedrag eval SET``."""

from __future__ import annotations

import json
from pathlib import Path

from bus.errors import SpecError
from nodes.cli._common import say
from nodes.eval import harness, sets


def add_commands(sub) -> None:
    p = sub.add_parser("eval", help="relevance on a labelled set: nDCG, MRR, recall, success@10, ROUGE-L, "
                       "negative rejection, per ranking mode",
                       description="Builds the set's federation (reusing what an earlier run embedded), asks every "
                       "question through the gateway once per ranking mode, and prints per mode nDCG@10, MRR@10, "
                       "recall@10 and success@10 over records, overall and per question type; the extractive answers' "
                       "ROUGE-L against the gold answer beside the top passage's; in every mode the same against "
                       "an exact centralized index ranking the same way; and, for sets with unanswerable questions, "
                       "negative rejection.")
    p.add_argument("set", metavar="SET", help=f"the labelled set: {', '.join(sets.SETS)}")
    p.add_argument("--data", default=sets.DATA_DIR, metavar="DIR", help=f"the public data sets (default {sets.DATA_DIR})")
    p.add_argument("--state-dir", metavar="DIR", help=f"where the set's federation is built (default {sets.STATE_DIR}/SET)")
    p.add_argument("--limit", type=int, metavar="N", help="ask at most N questions (the same ones every run)")
    p.add_argument("--offset", type=int, default=0, metavar="N", help="skip the first N of those questions "
                   "(--limit 400 --offset 400: the 400 after the first 400, a held-out sample)")
    p.add_argument("--modes", default=",".join(harness.MODES), help=f"ranking modes, comma-separated "
                   f"(default {','.join(harness.MODES)})")
    p.add_argument("--processes", action="store_true", help="run each organization in a process of its own "
                   "(default: every node in this process, sharing one model)")
    p.add_argument("--nats", metavar="URL", help="an existing broker (default: start one)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(run=cmd_eval)


async def cmd_eval(args) -> int:
    modes = harness.parse_modes(args.modes)
    if args.limit is not None and args.limit < 1:
        raise SpecError(f"--limit must be at least 1, not {args.limit}")
    if args.offset < 0:
        raise SpecError(f"--offset must be 0 or more, not {args.offset}")
    labelled = sets.load(args.set, Path(args.data))
    folder = Path(args.state_dir or Path(sets.STATE_DIR) / args.set).resolve()
    result = await harness.run(labelled, folder, modes=modes, limit=args.limit, offset=args.offset, url=args.nats,
                               processes=args.processes, say=say)
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.text())
    return 0

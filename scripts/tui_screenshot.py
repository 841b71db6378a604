"""Exports an SVG screenshot of the terminal client answering the demo's sample question (for the README).

The demo federation runs in this process over an embedded broker (as ``fedrag tui`` starts it); the
real app asks as the demo user, waits for the answer, jumps to its first citation's evidence row,
and Textual writes the screen as SVG.

Usage::

    python scripts/tui_screenshot.py [--out tui/screenshot.svg] [--question Q]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from nodes.demo.federation import DEMO_USER, SAMPLE_QUESTION, STATE_DIR, prepare  # noqa: E402
from nodes.run.assemble import sign_in  # noqa: E402
from nodes.run.federation import launched  # noqa: E402
from nodes.run.spec import FederationSpec  # noqa: E402
from tui import model  # noqa: E402
from tui.app import FedragApp  # noqa: E402


async def shoot(out: Path, question: str) -> None:
    spec = FederationSpec.load(prepare(Path(STATE_DIR).resolve()))
    async with launched(spec, processes=False, verbose=False) as running:
        app = FedragApp(running.client_url, sign_in(spec, DEMO_USER))
        async with app.run_test(size=(160, 48)) as pilot:
            await asyncio.wait_for(app.connected.wait(), 30)
            app.query_one("#question").value = question
            await pilot.press("enter")
            while not app.history:
                await pilot.pause(0.1)
            cited = model.citations(app.history[-1].answer or "")
            app.query_one("#answer-box").focus()
            await pilot.press(str(min(cited[0], 9)) if cited else "1")
            await pilot.pause(0.5)
            out.parent.mkdir(parents=True, exist_ok=True)
            app.save_screenshot(filename=out.name, path=str(out.parent))
    print(f"wrote {out}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="tui/screenshot.svg")
    parser.add_argument("--question", default=SAMPLE_QUESTION)
    args = parser.parse_args()
    asyncio.run(shoot(Path(args.out), args.question))
    return 0


if __name__ == "__main__":
    sys.exit(main())

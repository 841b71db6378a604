"""The Textual terminal client: ``fedrag tui``.

- :mod:`tui.model` — what the screen shows, from the wire's messages: the federation's tree and each
  node's state, the evidence rows, the answer as Markdown with linked citations.
- :mod:`tui.widgets` — the panels, one module each: the federation's tree, the answer with the
  routers' summaries, the evidence table with the selected passage.
- :mod:`tui.screens` — the help, the history and the sign-in.
- :mod:`tui.app` — the app: the question box and the panels, the worker that asks and follows the
  answer, the broker connection.
"""

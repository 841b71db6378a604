"""The Textual terminal client: ``fedrag tui``.

- :mod:`tui.model` — what the screen shows, from the wire's messages: the federation's tree and each
  node's state, the evidence rows, the answer as Markdown with linked citations.
- :mod:`tui.app` — the app: the question box, the live tree, the streamed answer, the evidence table,
  history, sign-in and help.
"""

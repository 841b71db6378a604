"""Chaos: faults injected into a running federation while questions stream in, every answer checked.

* :mod:`nodes.chaos.lab` — the federation acted on (one of our own in a layout faults need, or one
  running elsewhere on this host) and the processes serving each node;
* :mod:`nodes.chaos.faults` — kill, hang, slow down, impersonate, restart the broker;
* :mod:`nodes.chaos.stream` — clients asking questions as several users meanwhile;
* :mod:`nodes.chaos.invariants` — what must hold of every query;
* :mod:`nodes.chaos.scenarios` — the named scenarios, running one, and the report;
* :mod:`nodes.chaos.load` — many clients at once, and memory over a soak;
* :mod:`nodes.chaos.flood` — one signed-in user flooding the gateway while another asks;
* :mod:`nodes.chaos.table` — the reports' tables.

``fedrag chaos``, ``load`` and ``flood`` (:mod:`nodes.cli.chaos`) run them; ``tests/nodes/chaos`` runs every scenario at a
small size.
"""

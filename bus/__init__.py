"""The wire: subjects, message models and their codec, deadline budgets, scatter-gather, the broker.

Nothing in ``bus`` imports ``nodes``, ``policies``, ``summarizer`` or ``tui``: it is the contract
every process of a federation speaks, and it can be read on its own.
"""

"""Identities and access policies: who may search which subtree, and see which passage.

For now every node uses :class:`policies.gate.AllowAll`; signed identities and attribute-based
policies plug in here without touching the nodes (they only call the :class:`policies.gate.Gate`
interface).
"""

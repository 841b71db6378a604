"""Identities and access policies: who may search which subtree, and see which passage.

Tokens signed by each organization (:mod:`policies.tokens`), proofs that bind them to one question
(:mod:`policies.proof`), attribute-based policies (:mod:`policies.abac`) evaluated by every node's
gate (:mod:`policies.gate`) and written to an organization-local audit log (:mod:`policies.audit`);
broker users and permissions (:mod:`policies.broker`); the access matrix (:mod:`policies.explain`).
:mod:`policies.access` puts them together for one process. Nothing here imports ``nodes``.
"""

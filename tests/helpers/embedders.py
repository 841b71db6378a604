"""Embedders for stores whose tests do not read vectors."""

from __future__ import annotations

import numpy as np


class Fixed:
    """An embedder giving every text the same unit vector (the lexical index does not read vectors)."""

    fingerprint = "fixed"

    def embed(self, texts):
        vectors = np.zeros((len(texts), 4), dtype=np.float32)
        vectors[:, 0] = 1.0
        return vectors

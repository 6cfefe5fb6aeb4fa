"""Where replicas stand: one grid cell each (no Newton or Warp import)."""

from __future__ import annotations

import math


def replica_offsets(count: int, spacing: float) -> list[tuple[float, float, float]]:
    """Grid cells, row by row, for ``count`` replicas ``spacing`` apart (replica 0 at the origin)."""
    columns = max(1, math.ceil(math.sqrt(count)))
    return [((i % columns) * spacing, (i // columns) * spacing, 0.0) for i in range(count)]

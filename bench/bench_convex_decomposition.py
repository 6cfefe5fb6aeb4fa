"""Convex decomposition: Articula's ``core.convex.decompose`` vs CoACD called directly, and a cache hit.

RATIO convex_decompose_vs_coacd = ``coacd.run_coacd`` time / ``decompose`` time (uncached), the same
U-slot mesh (one connected part) and the same parameters; the difference is Articula's splitting into
parts, Qhull's vertex cap and bookkeeping; aim >= 0.9.
RATIO convex_cache_hit_100k = 50 ms / the time of ``decompose`` on a 100k-triangle mesh whose result is
cached (hashing its arrays and the lookup); aim >= 1 (a hit under 50 ms).
"""

import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def load_core():
    spec = importlib.util.spec_from_file_location("articula", ROOT / "__init__.py",
                                                  submodule_search_locations=[str(ROOT)])
    sys.modules["articula"] = importlib.util.module_from_spec(spec)
    from articula.core import convex, sample_meshes
    return convex, sample_meshes


def best_of(runs, function):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    convex, sample_meshes = load_core()
    coacd = convex.load_coacd()
    settings = convex.DecompositionSettings(threshold=0.05)
    vertices, triangles = sample_meshes.u_slot()

    def direct():
        coacd.run_coacd(coacd.Mesh(vertices, triangles.astype(np.int32)), **settings.coacd_arguments())

    def articula():
        convex.CACHE.clear()
        convex.decompose(vertices, triangles, settings)

    baseline, ours = best_of(2, direct), best_of(2, articula)
    print(f"RATIO convex_decompose_vs_coacd {baseline / ours:.3f} 0.9 coacd.run_coacd {baseline:.2f} s vs "
          f"decompose {ours:.2f} s, U-slot, threshold 0.05")

    big_v, big_t = sample_meshes.bowl(segments=512, rings=50)
    hulls = convex.decompose(vertices, triangles, settings)
    key = convex.cache_key(np.ascontiguousarray(big_v), np.ascontiguousarray(big_t, dtype=np.int32), settings)
    convex.CACHE.put(key, hulls)
    hit = best_of(5, lambda: convex.decompose(big_v, big_t, settings))
    assert convex.decompose(big_v, big_t, settings) is hulls
    print(f"RATIO convex_cache_hit_100k {0.05 / hit:.2f} 1 cache hit {hit * 1e3:.1f} ms for "
          f"{len(big_t):,} triangles (aim: under 50 ms)")


if __name__ == "__main__":
    main()

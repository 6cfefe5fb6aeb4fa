"""A description mesh's arrays (``core.mesh_files``): the values and types ``np.asarray`` gives, whatever
the mesh holds (tuples, lists or arrays), so that every writer, mass rule and hull sees the same numbers."""

import numpy as np
import pytest

from articula.core.mesh_files import binary_stl, triangle_arrays, vertex_array
from articula.core.model import MeshData


def _soup(rng, count: int) -> MeshData:
    vertices = [tuple(v) for v in rng.normal(size=(count, 3)).tolist()]
    triangles = [tuple(t) for t in rng.integers(0, count, size=(2 * count, 3)).tolist()]
    return MeshData(vertices=vertices, triangles=triangles)


@pytest.mark.parametrize("dtype, index_dtype", [(np.float64, np.int64), (np.float32, np.int32)])
def test_arrays_equal_numpys_own_conversion(dtype, index_dtype):
    mesh = _soup(np.random.default_rng(7), 500)
    vertices, triangles = triangle_arrays(mesh, dtype, index_dtype)
    assert vertices.dtype == dtype and triangles.dtype == index_dtype
    assert vertices.shape == (500, 3) and triangles.shape == (1000, 3)
    assert vertices.tobytes() == np.asarray(mesh.vertices, dtype=dtype).tobytes()  # the same rounding
    assert np.array_equal(triangles, np.asarray(mesh.triangles))


def test_lists_and_arrays_read_alike():
    mesh = _soup(np.random.default_rng(3), 50)
    as_lists = MeshData(vertices=[list(v) for v in mesh.vertices], triangles=[list(t) for t in mesh.triangles])
    as_arrays = MeshData(vertices=np.asarray(mesh.vertices, dtype=np.float32), triangles=np.asarray(mesh.triangles))
    for other in (as_lists, as_arrays):
        assert np.array_equal(vertex_array(other, np.float32), vertex_array(mesh, np.float32))
        assert np.array_equal(triangle_arrays(other)[1], triangle_arrays(mesh)[1])


def test_empty_mesh_gives_empty_arrays_and_an_empty_stl():
    vertices, triangles = triangle_arrays(MeshData())
    assert vertices.shape == (0, 3) and triangles.shape == (0, 3)
    assert len(binary_stl(MeshData())) == 84  # header and a count of zero


def test_a_ragged_vertex_is_refused():
    with pytest.raises(ValueError):
        vertex_array(MeshData(vertices=[(0.0, 1.0, 2.0), (3.0, 4.0)]))

"""core.background: the USD import reads a file's physics on a worker thread while Blender's
importer runs; the caller gets the reader's result or its exception, in its own thread."""

import threading

import pytest

from articula.core.background import BackgroundCall
from articula.core.usd.errors import UsdReadError
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import write_usd
from articula.core.samples import pendulum


def test_the_result_is_the_functions_value_computed_on_another_thread():
    threads = []
    call = BackgroundCall(lambda a, b=0: (threads.append(threading.current_thread()), a + b)[1], 2, b=3)
    assert call.result() == 5
    assert threads and threads[0] is not threading.current_thread()


def test_the_functions_exception_reaches_the_caller(tmp_path):
    broken = tmp_path / "broken.usda"
    broken.write_text("#usda 1.0\n(\n  this is not usd\n")
    call = BackgroundCall(read_usd, str(broken))
    with pytest.raises(UsdReadError, match="broken.usda"):
        call.result()


def test_a_background_read_gives_the_same_description_as_a_direct_read(tmp_path):
    path = tmp_path / "pendulum.usda"
    write_usd(pendulum(), str(path))
    assert BackgroundCall(read_usd, str(path)).result().scene == read_usd(str(path)).scene

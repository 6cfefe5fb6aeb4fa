"""MuJoCo's compiler, with what it warns about kept as text for the caller's report."""

from __future__ import annotations


def compile_spec(spec) -> tuple[object, list[str]]:
    """``spec.compile()`` and MuJoCo's warnings, one line each: its Python warnings (deprecated
    attributes) and its C library's (which would otherwise go to MUJOCO_LOG.TXT in the working
    folder). MuJoCo's own exception, naming the element, propagates."""
    import warnings

    import mujoco

    previous = mujoco.get_mju_user_warning()
    messages: list[str] = []
    mujoco.set_mju_user_warning(messages.append)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = spec.compile()
    finally:
        mujoco.set_mju_user_warning(previous)
    return model, [" ".join(str(m).split()) for m in [w.message for w in caught] + messages]

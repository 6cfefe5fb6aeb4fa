"""Frames of physics steps, as Newton's and MuJoCo's simulations both advance them."""

from __future__ import annotations


class FrameSteps:
    """``advance_steps`` and ``steps_per_frame`` for a simulation with ``dt``, ``step()``, ``kinematic.hold()``
    and ``raise_if_diverged()``; ``_frame_fraction`` tells ``step`` where in its frame it is, so kinematic
    bodies reach their goal at the frame's end."""

    def steps_per_frame(self, frame_dt: float) -> int:
        return max(1, int(round(frame_dt / self.dt)))

    def advance_steps(self, frame_dt: float, check: bool = True):
        """:meth:`advance` one step at a time: yields (steps done, steps in the frame) after each step, so
        a caller can show progress or stop between steps (the frame then stays unfinished)."""
        count = self.steps_per_frame(frame_dt)
        for i in range(count):
            self._frame_fraction = (i + 1, count)
            self.step()
            if i + 1 < count:
                yield i + 1, count
        self._frame_fraction = (1, 1)
        self.kinematic.hold()
        if check:
            self.raise_if_diverged()
        yield count, count

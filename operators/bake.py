"""Bake the simulation over a frame range into keyframes; clear the bake.

The bake itself (simulating the range, writing the keys, restoring on clear) is
``addon.adapters.simulation_to_keyframes``; these operators call it and report.
"""

from __future__ import annotations

import bpy
from bpy.props import EnumProperty, IntProperty

from ..addon.adapters.simulation_to_keyframes import bake, bake_action, clear_bake
from .simulate import SOLVER_ITEMS


class ARTICULA_OT_bake(bpy.types.Operator):
    """Simulate the frame range and bake the bodies' motion to keyframes (replaces an earlier bake)"""

    bl_idname = "articula.bake"
    bl_label = "Bake Simulation"
    bl_options = {"REGISTER", "UNDO"}

    frame_start: IntProperty(name="Start", description="First frame (-1: the scene's start)", default=-1)
    frame_end: IntProperty(name="End", description="Last frame (-1: the scene's end)", default=-1)
    solver: EnumProperty(name="Solver", items=SOLVER_ITEMS, default="SCENE")
    substeps: IntProperty(name="Substeps", description="Physics steps per frame (0: from the scene's "
                          "steps per second)", default=0, min=0, soft_max=100)

    def execute(self, context):
        from ..sim.simulation import SimulationDiverged

        scene = context.scene
        start = scene.frame_start if self.frame_start < 0 else self.frame_start
        end = scene.frame_end if self.frame_end < 0 else self.frame_end
        try:
            session, action = bake(context, start, end, self.solver, self.substeps,
                                   on_status=lambda text: self.report({"INFO"}, text))
        except SimulationDiverged as error:
            self.report({"ERROR"}, f"The simulation blew up at body {error.body!r}; nothing was baked")
            return {"CANCELLED"}
        except Exception as error:
            self.report({"ERROR"}, f"Cannot bake: {error}")
            return {"CANCELLED"}
        for note in session.sim.notes:
            self.report({"WARNING"}, note)
        replicas = session.sim.replicas
        shown = f"; replicas 1-{replicas - 1} baked for display only (instances)" if replicas > 1 else ""
        self.report({"INFO"}, f"Baked {len(session.writer.objects)} bodies of replica 0 to keyframes over "
                    f"frames {start}-{end}{shown}")
        return {"FINISHED"}


class ARTICULA_OT_clear_bake(bpy.types.Operator):
    """Remove the baked simulation and put the bodies back where they were before baking"""

    bl_idname = "articula.clear_bake"
    bl_label = "Clear Bake"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return bake_action() is not None

    def execute(self, context):
        restored = clear_bake(context.scene)
        self.report({"INFO"}, f"Cleared the bake of {restored} bodies")
        return {"FINISHED"}


classes = (ARTICULA_OT_bake, ARTICULA_OT_clear_bake)

register, unregister = bpy.utils.register_classes_factory(classes)

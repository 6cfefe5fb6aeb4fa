"""Validation: every problem of the scene, listed in the panel, each leading to its object."""

import bpy
from bpy.props import IntProperty

from ..addon.adapters.blender_to_description import blender_problems, scene_from_blender
from ..addon.reports import problem_text, report_type


def scene_problems(scene) -> list:
    """The core rules on the scene's description, then the Blender-only checks."""
    from ..core.validation import validate

    return validate(scene_from_blender(scene)) + blender_problems(scene)


def store_problems(scene, problems) -> None:
    props = scene.articula
    props.problems.clear()
    for problem in problems:
        item = props.problems.add()
        item.severity, item.message = problem.severity, problem.message
        item.object_name = problem.subject if problem.subject in scene.objects else ""
        item.code = problem.code
    props.active_problem_index = 0


class ARTICULA_OT_validate(bpy.types.Operator):
    """Check the scene's physics and list every problem with the object it concerns"""

    bl_idname = "articula.validate"
    bl_label = "Validate Physics"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        problems = scene_problems(context.scene)
        store_problems(context.scene, problems)
        for problem in problems:
            self.report(report_type(problem.severity), problem_text(problem))
        errors = sum(p.severity == "ERROR" for p in problems)
        warnings = len(problems) - errors
        summary = f"{errors} error(s), {warnings} warning(s)" if problems else "No problems found"
        self.report({"INFO"}, summary)
        return {"FINISHED"}


class ARTICULA_OT_select_problem_object(bpy.types.Operator):
    """Select the object a validation problem concerns"""

    bl_idname = "articula.select_problem_object"
    bl_label = "Select Problem Object"
    bl_options = {"REGISTER", "UNDO"}

    index: IntProperty(name="Problem", default=-1, description="The problem's index; -1: the active one")

    @classmethod
    def poll(cls, context):
        if context.mode != "OBJECT":
            cls.poll_message_set("Switch to Object Mode first")
            return False
        return len(context.scene.articula.problems) > 0

    def execute(self, context):
        props = context.scene.articula
        index = props.active_problem_index if self.index < 0 else self.index
        if not 0 <= index < len(props.problems):
            self.report({"ERROR"}, f"No problem number {index + 1}; run Validate Physics again")
            return {"CANCELLED"}
        problem = props.problems[index]
        obj = context.scene.objects.get(problem.object_name) if problem.object_name else None
        if obj is None:
            self.report({"ERROR"}, f"The problem concerns no object of this scene: {problem.message}")
            return {"CANCELLED"}
        if not obj.visible_get(view_layer=context.view_layer):
            self.report({"ERROR"}, f"'{obj.name}' is hidden; unhide it to select it")
            return {"CANCELLED"}
        for other in context.selected_objects:
            other.select_set(False)
        obj.select_set(True)
        context.view_layer.objects.active = obj
        props.active_problem_index = index
        self.report({"INFO"}, f"Selected '{obj.name}'")
        return {"FINISHED"}


class ARTICULA_OT_fix_problem(bpy.types.Operator):
    """Select the problem's object and run the operator that fixes it"""

    bl_idname = "articula.fix_problem"
    bl_label = "Fix Problem"
    bl_options = {"REGISTER", "UNDO"}

    index: IntProperty(name="Problem", default=-1, description="The problem's index; -1: the active one")

    @classmethod
    def poll(cls, context):
        return ARTICULA_OT_select_problem_object.poll(context)

    def invoke(self, context, event):
        return self._fix(context, "INVOKE_DEFAULT")  # a decomposition then runs with progress and Esc

    def execute(self, context):
        return self._fix(context, "EXEC_DEFAULT")

    def _fix(self, context, call: str) -> set:
        props = context.scene.articula
        index = props.active_problem_index if self.index < 0 else self.index
        fix = props.problems[index].fix if 0 <= index < len(props.problems) else None
        if fix is None:
            self.report({"ERROR"}, "This problem has no automatic fix; run Validate Physics again")
            return {"CANCELLED"}
        operator, arguments, _ = fix
        category, name = operator.split(".")
        try:
            if bpy.ops.articula.select_problem_object(index=index) != {"FINISHED"}:
                return {"CANCELLED"}
            return getattr(getattr(bpy.ops, category), name)(call, **arguments)
        except RuntimeError as error:  # the object is gone or hidden, or the fix cannot run: they say why
            self.report({"ERROR"}, str(error).removeprefix("Error: ").strip())
            return {"CANCELLED"}


classes = (ARTICULA_OT_validate, ARTICULA_OT_select_problem_object, ARTICULA_OT_fix_problem)

register, unregister = bpy.utils.register_classes_factory(classes)

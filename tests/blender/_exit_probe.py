"""Run by test_exit.py in a fresh process: enable Articula the way a script does, then exit.

    python _exit_probe.py <way> [<extension zip>]

ways: ``script-enabled`` / ``script-disabled`` (the package's own register()/unregister() a few
times, ending enabled or disabled, never disabling it at the end), ``addon-utils`` (a user repository
holding this clone, ``addon_utils.enable``), ``extension-install`` (``package_install_files`` of the
zip with ``enable_on_install``). ``BLENDER_USER_RESOURCES`` is a throwaway folder.
"""

import os
import sys
import tempfile

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="articula-exit-"))
import bpy  # noqa: E402

import addon_utils  # noqa: E402  (on sys.path once bpy is imported)

REPO = "articula_exit"
CLONE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_as_script(last_state):
    import articula
    from articula.addon.pxr_runtime import ensure_blender_pxr

    ensure_blender_pxr()
    for _ in range(3):
        articula.register()
        articula.unregister()
    if last_state == "enabled":
        articula.register()


def enable_from_user_repository():
    parent = tempfile.mkdtemp(prefix="articula-repo-")
    os.symlink(CLONE, os.path.join(parent, "articula"))
    bpy.context.preferences.extensions.repos.new(name=REPO, module=REPO, custom_directory=parent,
                                                 source='USER')
    errors = []
    addon_utils.enable(f"bl_ext.{REPO}.articula", default_set=True, handle_error=errors.append)
    assert not errors, errors


def install_extension(zip_path):
    status = bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                                      enable_on_install=True)
    assert status == {'FINISHED'}, status
    assert "bl_ext.user_default.articula" in bpy.context.preferences.addons


way = sys.argv[1]
if way.startswith("script-"):
    run_as_script(way.removeprefix("script-"))
elif way == "addon-utils":
    enable_from_user_repository()
elif way == "extension-install":
    install_extension(sys.argv[2])
else:
    raise SystemExit(f"unknown way {way!r}")
assert hasattr(bpy.types.Object, "articula") == (way != "script-disabled")
print(f"{way}, exiting", flush=True)

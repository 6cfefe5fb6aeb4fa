"""The bpy-free core: the physics description, its rules, and USD read/write.

Nothing in this package imports bpy; it runs in plain Python with usd-core or Blender's pxr.
"""

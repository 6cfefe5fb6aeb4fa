"""Adapters between Blender data and the core description, named by direction."""

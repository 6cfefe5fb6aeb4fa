"""Adapters between Blender data and the core description or the simulation, named by direction."""

"""Simulation of the physics description on Warp with Newton; bpy-free."""

"""Simulation tier: plain Python with Newton and Warp on the CPU, never bpy."""

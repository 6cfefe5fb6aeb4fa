"""USD read and write of the physics description (the one place that knows USD attribute names)."""

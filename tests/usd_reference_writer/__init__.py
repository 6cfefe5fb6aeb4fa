"""The USD writer as it was before it authored in batches (core/usd writer.py, physics_author.py,
isaac.py, actuation.py), kept for the tests that check the batched writer writes the same files."""

"""Reading judgment sets, aligning a reference with a candidate (with an account of every input row),
inspecting files, and the bundled sample data."""

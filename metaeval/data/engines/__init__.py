"""Alignment engines: pandas (in memory), DuckDB (embedded, beyond memory), Spark (a cluster)."""

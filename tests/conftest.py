"""pytest configuration shared by the test suite."""

# Reference-value generators run in throwaway environments with the peers installed (irrCAC, choix,
# R); they are not tests and their imports are not this package's dependencies.
collect_ignore = ["reference"]

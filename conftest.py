"""pytest configuration for the doctests of metaeval/ (the tests have their own in tests/)."""

# aliases: importing them yields metaeval.output.figures and metaeval.data.datasets, whose doctests
# are collected from those modules
collect_ignore = ["metaeval/figures.py", "metaeval/datasets.py"]

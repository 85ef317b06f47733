"""``import metaeval.datasets`` gives :mod:`metaeval.data.datasets` itself (defined once, there)."""

import sys

from .data import datasets as _datasets

sys.modules[__name__] = _datasets

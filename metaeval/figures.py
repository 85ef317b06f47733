"""``import metaeval.figures`` gives :mod:`metaeval.output.figures` itself (defined once, there)."""

import sys

from .output import figures as _figures

sys.modules[__name__] = _figures

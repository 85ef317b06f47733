"""Read evaluation-harness logs and annotation-tool exports into the long judgment frame.

:func:`~metaeval.data.logs.reader.read_eval_log` is the one entry point; :mod:`.detect` tells the
format from the content, one module per format turns records into rows, and :mod:`.base` holds the
frame, the accounting (:class:`~metaeval.data.logs.base.LogReport`) and the bounded reading they share.
"""

from .base import LOG_FATES, LogReport, epoch_matrix, judges, reduce_epochs
from .detect import FORMATS, detect_format, sniff
from .reader import LOG_EXTENSIONS, log_or_source, read_eval_log, select

__all__ = ["read_eval_log", "detect_format", "sniff", "FORMATS", "LOG_FATES", "LogReport", "judges",
           "epoch_matrix", "reduce_epochs", "select", "log_or_source", "LOG_EXTENSIONS"]

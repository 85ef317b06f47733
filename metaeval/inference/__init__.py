"""Judge-corrected inference: what may be concluded when the judge's labels are used anyway.

:mod:`metaeval.inference.ppi` holds prediction-powered inference (PPI, PPI++, stratified and clustered
PPI) for means, proportions, paired differences, quantiles and regression coefficients: a few human
labels correct the bias of many judge labels, with intervals that stay valid.
"""

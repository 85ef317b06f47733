# Generate tests/reference/irrcac_raw_values.json: the R package irrCAC's many-rater coefficients
# (*.raw and *.dist functions) with standard errors, intervals and p-values, on Gwet's example data
# sets that ship with irrCAC and on two published examples.
#
# Run from the repository root (R >= 4, irrCAC and jsonlite installed; irrCAC 1.0 is the CRAN
# release, also at github.com/cran/irrCAC):
#
#     Rscript tests/reference/make_reference_irrcac_raw.R
#
# The environment variable IRRCAC_LIB may name an extra library directory that holds irrCAC
# (a throwaway one, e.g. /work/tmp-multirater-venv/Rlib: R CMD INSTALL -l <dir> <irrCAC source>).
#
# Precision. irrCAC's raw functions round the coefficient and its standard error to 5 decimals and
# the interval to 3 decimals before returning them (R's round()). To get every figure to full
# precision, each function is called with its own body unchanged but with `round` replaced by the
# identity in its enclosing environment (see `unround()` below); the interval then comes back as
# the string "(lcb,ucb)" written by paste0(), i.e. with 15 significant digits. Nothing else in the
# computation changes; the rounded figures irrCAC prints are the published ones (tests/test_multirater.py
# checks those as well, from irrCAC's vignettes and the Python port's tests).
#
# Inputs. Every data set is written to the JSON as the subjects x raters matrix irrCAC analysed,
# after irrCAC's own cleaning (as.matrix, trim(toupper(.)), "" -> NA), with null for a missing
# rating, or as the subjects x categories count matrix for the *.dist functions.

extra_lib <- Sys.getenv("IRRCAC_LIB")
if (nzchar(extra_lib)) .libPaths(c(extra_lib, .libPaths()))
suppressPackageStartupMessages({
  library(irrCAC)
  library(jsonlite)
})

unround <- function(f) {
  e <- new.env(parent = environment(f))
  e$round <- function(x, digits = 0) x
  environment(f) <- e
  f
}

RAW <- list(
  percent_agreement = unround(pa.coeff.raw),
  gwet_ac = unround(gwet.ac1.raw),
  fleiss_kappa = unround(fleiss.kappa.raw),
  krippendorff_alpha = unround(krippen.alpha.raw),
  conger_kappa = unround(conger.kappa.raw),
  brennan_prediger = unround(bp.coeff.raw)
)
DIST <- list(
  gwet_ac = unround(gwet.ac1.dist),
  fleiss_kappa = unround(fleiss.kappa.dist),
  krippendorff_alpha = unround(krippen.alpha.dist),
  brennan_prediger = unround(bp.coeff.dist)
)
WEIGHTS <- c("unweighted", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar")

num <- function(x) {
  x <- suppressWarnings(as.numeric(x))
  if (length(x) != 1 || is.na(x) || !is.finite(x)) NULL else x
}

parse_ci <- function(s) {
  s <- gsub("[()]", "", as.character(s))
  parts <- strsplit(s, ",", fixed = TRUE)[[1]]
  list(lower = num(parts[1]), upper = num(parts[2]))
}

leaf <- function(call, fn) {
  warns <- character(0)
  res <- tryCatch(
    withCallingHandlers(fn(), warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    }),
    error = function(e) structure(list(msg = conditionMessage(e)), class = "err"))
  if (inherits(res, "err")) return(list(call = call, error = res$msg))
  est <- if (!is.null(res$est)) res$est else res
  coef <- if (!is.null(est$coeff.val)) est$coeff.val else est$coeff
  se <- if (!is.null(est$coeff.se)) est$coeff.se else est$stderr
  ci <- parse_ci(est$conf.int)
  out <- list(call = call, coeff_name = as.character(est$coeff.name), coefficient = num(coef), se = num(se),
              ci_lower = ci$lower, ci_upper = ci$upper, p_value = num(est$p.value), pa = num(est$pa),
              pe = num(est$pe))
  if (length(warns)) out$warnings <- unique(warns)
  out
}

clean_raw <- function(df) {
  # irrCAC's own cleaning of character ratings (agree.coeff3.raw.r): as.matrix, trim(toupper()), "" -> NA
  m <- as.matrix(df)
  if (is.character(m)) {
    m <- trimws(toupper(m))
    m[m == ""] <- NA_character_
  }
  m
}

as_rows <- function(m) {
  lapply(seq_len(nrow(m)), function(i) {
    lapply(m[i, ], function(v) if (is.na(v)) NULL else if (is.numeric(v)) v else as.character(v))
  })
}

# Fleiss (1971), Table 1: 30 patients x 6 psychiatrists (the `diagnoses` array of statsmodels'
# test_inter_rater.py); published kappa 0.430.
fleiss1971 <- matrix(c(
  4, 4, 4, 4, 4, 4, 2, 2, 2, 5, 5, 5, 2, 3, 3, 3, 3, 5, 5, 5, 5, 5, 5, 5,
  2, 2, 2, 4, 4, 4, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 5, 5, 1, 1, 3, 3, 3, 4,
  1, 1, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 1, 4, 4, 4, 4, 4, 1, 2, 4, 4, 4, 4,
  2, 2, 2, 3, 3, 3, 1, 4, 4, 4, 4, 4, 2, 2, 4, 4, 4, 5, 3, 3, 3, 3, 3, 5,
  1, 1, 1, 4, 5, 5, 1, 1, 1, 1, 1, 2, 2, 2, 4, 4, 4, 4, 1, 3, 3, 5, 5, 5,
  5, 5, 5, 5, 5, 5, 2, 4, 4, 4, 4, 4, 2, 2, 4, 5, 5, 5, 1, 1, 4, 4, 4, 4,
  1, 4, 4, 4, 4, 5, 2, 2, 2, 2, 2, 4, 1, 1, 1, 1, 5, 5, 2, 2, 4, 4, 4, 4,
  1, 3, 3, 3, 3, 3, 5, 5, 5, 5, 5, 5), ncol = 6, byrow = TRUE)
colnames(fleiss1971) <- paste0("Rater", 1:6)

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 observers x 12 units, here
# transposed to units x observers; published alpha 0.743 (nominal) and 0.849 (interval).
kripp2011 <- t(matrix(c(
  1, 2, 3, 3, 2, 1, 4, 1, 2, NA, NA, NA,
  1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NA, 3,
  NA, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NA,
  1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NA), nrow = 4, byrow = TRUE))
colnames(kripp2011) <- c("A", "B", "C", "D")

raw_sets <- list(
  cac.raw4raters = list(data = cac.raw4raters, note = "irrCAC data set cac.raw4raters (Gwet 2014): 12 subjects x 4 raters, categories 1..5, missing ratings"),
  cac.raw5obser = list(data = cac.raw5obser, note = "irrCAC data set cac.raw5obser: 15 subjects x 5 observers, categories 0..3 (ratio weights need no 0 category: R gives NaN)"),
  cac.raw.g1g2 = list(data = cac.raw.g1g2[, 3:6], note = "irrCAC data set cac.raw.g1g2, columns Rater1..Rater4: 14 subjects, letter categories"),
  cac.raw.gender = list(data = cac.raw.gender[, 2:5], note = "irrCAC data set cac.raw.gender, columns RaterA..RaterD: 15 subjects, letter categories"),
  cac.ben.gerry = list(data = cac.ben.gerry[, 3:4], note = "irrCAC data set cac.ben.gerry, columns Ben and Gerry: 12 subjects, 2 raters"),
  fleiss1971 = list(data = fleiss1971, note = "Fleiss (1971) Table 1, 30 patients x 6 psychiatrists, diagnoses 1..5"),
  krippendorff2011 = list(data = kripp2011, note = "Krippendorff (2011) reliability data, 12 units x 4 observers, values 1..5")
)

dist_sets <- list(
  distrib.6raters = list(data = distrib.6raters, note = "irrCAC data set distrib.6raters: 15 subjects x 5 categories, 6 raters"),
  cac.dist4cat = list(data = cac.dist4cat[, 2:4], note = "irrCAC data set cac.dist4cat, columns a, b, c: 15 subjects"),
  cac.dist.g1g2 = list(data = cac.dist.g1g2[, 3:7], note = "irrCAC data set cac.dist.g1g2, columns a..e: 14 subjects")
)

# the Python port's custom-weights test (test/unit/irrCAC/raw/test_*.py): a non-symmetric matrix
custom5 <- matrix(c(
  1.00, 0.75, 0.50, 0.25, 0.00,
  0.00, 1.00, 0.75, 0.50, 0.25,
  0.25, 0.00, 1.00, 0.75, 0.50,
  0.50, 0.25, 0.00, 1.00, 0.75,
  0.75, 0.50, 0.25, 0.00, 1.00), nrow = 5, byrow = TRUE)

out_raw <- list()
for (nm in names(raw_sets)) {
  m <- clean_raw(raw_sets[[nm]]$data)
  cats <- sort(unique(na.omit(as.vector(m))))
  res <- list()
  for (w in WEIGHTS) {
    res[[w]] <- lapply(names(RAW), function(co) {
      leaf(sprintf("%s(%s, weights = \"%s\")", co, nm, w), function() RAW[[co]](raw_sets[[nm]]$data, weights = w))
    })
    names(res[[w]]) <- names(RAW)
  }
  entry <- list(note = raw_sets[[nm]]$note, raters = colnames(m), categories = cats, ratings = as_rows(m),
                weights = res)
  if (nm == "cac.raw4raters") {
    entry$custom_weights <- list(matrix = lapply(seq_len(5), function(i) custom5[i, ]))
    entry$custom_weights$results <- lapply(names(RAW), function(co) {
      leaf(sprintf("%s(cac.raw4raters, weights = custom5)", co), function() RAW[[co]](raw_sets[[nm]]$data, weights = custom5))
    })
    names(entry$custom_weights$results) <- names(RAW)
    settings <- list()
    for (w in c("unweighted", "quadratic")) {
      settings[[w]] <- lapply(names(RAW), function(co) {
        leaf(sprintf("%s(cac.raw4raters, weights = \"%s\", conflev = 0.90, N = 50)", co, w),
             function() RAW[[co]](raw_sets[[nm]]$data, weights = w, conflev = 0.90, N = 50))
      })
      names(settings[[w]]) <- names(RAW)
    }
    entry$conflev_0.90_N_50 <- settings
  }
  out_raw[[nm]] <- entry
}

out_dist <- list()
for (nm in names(dist_sets)) {
  m <- as.matrix(dist_sets[[nm]]$data)
  q <- ncol(m)
  res <- list()
  for (w in c("unweighted", "quadratic", "linear")) {
    wm <- if (w == "unweighted") identity.weights(1:q) else if (w == "quadratic") quadratic.weights(1:q) else linear.weights(1:q)
    res[[w]] <- lapply(names(DIST), function(co) {
      leaf(sprintf("%s(%s, weights = %s.weights(1:%d))", co, nm, if (w == "unweighted") "identity" else w, q),
           function() DIST[[co]](dist_sets[[nm]]$data, weights = wm))
    })
    names(res[[w]]) <- names(DIST)
  }
  # krippen.alpha.dist linearises alpha differently from krippen.alpha.raw; the raw function on the same
  # counts (each subject's ratings listed in category order, padded with NA; categories 1..q) gives the
  # raw variance that metaeval's value_counts= form computes
  expanded <- t(apply(m, 1, function(cnt) {
    v <- rep(seq_len(q), times = cnt)
    c(v, rep(NA, max(rowSums(m)) - length(v)))
  }))
  raw_alpha <- list()
  for (w in c("unweighted", "quadratic", "linear")) {
    raw_alpha[[w]] <- leaf(sprintf("krippendorff_alpha(expanded %s, weights = \"%s\", categ.labels = 1:%d)", nm, w, q),
                           function() RAW$krippendorff_alpha(expanded, weights = w, categ.labels = 1:q))
  }
  out_dist[[nm]] <- list(note = dist_sets[[nm]]$note, categories = colnames(m),
                         counts = lapply(seq_len(nrow(m)), function(i) unname(m[i, ])), weights = res,
                         krippendorff_alpha_raw_on_expanded = raw_alpha)
}

out <- list(
  generated_by = "tests/reference/make_reference_irrcac_raw.R",
  r_version = R.version.string,
  irrcac_version = as.character(packageVersion("irrCAC")),
  jsonlite_version = as.character(packageVersion("jsonlite")),
  conventions = list(
    precision = "round() replaced by the identity inside each irrCAC function (unround()); intervals parsed from irrCAC's paste0('(', lcb, ',', ucb, ')') string: 15 significant digits",
    defaults = "conflev = 0.95, N = Inf (no finite-population correction) unless the key says otherwise",
    interval = "irrCAC: coeff -/+ stderr * qt(1 - (1 - conflev)/2, n - 1), upper end min(1, .); lower end not clipped; n = subjects (Krippendorff: subjects with >= 2 ratings)",
    p_value = "raw: 2 * (1 - pt(|coeff/stderr|, n - 1)); dist: 2 * (1 - pt(coeff/stderr, n - 1))",
    categories = "raw functions without categ.labels: the sorted categories the raters used; numeric categories give the weights their values, letters their positions 1..q",
    dist = "*.dist functions take subjects x categories counts and weights built on 1..q (quadratic.weights(1:q) as in irrCAC's weighting vignette); krippen.alpha.dist uses another variance linearisation than krippen.alpha.raw",
    nulls = "null = NA/NaN/Inf in irrCAC's output (e.g. ratio weights with a 0 category); error = the R error message"
  ),
  raw = out_raw,
  dist = out_dist
)

writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, null = "null", na = "null", pretty = TRUE),
           "tests/reference/irrcac_raw_values.json")
cat("wrote tests/reference/irrcac_raw_values.json\n")

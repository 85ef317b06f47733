# Generate tests/reference/r_psych_values.json from tests/reference/tables.json
# using psych::cohen.kappa (R).
#
# Run from the repository root:
#   Rscript tests/reference/make_reference_r.R
# Requires Debian packages: r-base-core r-cran-psych r-cran-jsonlite
#
# psych conventions (checked against the source of psych:::cohen.kappa1, 2.2.9):
#   * A square matrix passed as `x` is read as a contingency table; an n x 2
#     matrix/data frame is read as item-level ratings.  We always pass item-level
#     data (a data.frame with columns ref, cand) plus levels = 0:(K-1) so that
#     categories unused by both raters are still part of the K x K table.
#   * `w` may be EITHER an agreement weight matrix (1 on the diagonal; psych's
#     default w = NULL means quadratic agreement weights 1 - (i-j)^2/(K-1)^2)
#     OR a disagreement weight matrix (0 on the diagonal).  psych branches on
#     tr(w): if tr(w) > 0 it uses kw = (po_w - pe_w)/(1 - pe_w) (agreement),
#     otherwise kw = 1 - po_w/pe_w (disagreement).  Both give the same point
#     estimate; we pass both forms and record both.
#   * var.weighted / the weighted-kappa confidence bounds use an agreement-weight
#     variance formula in which the column-mean weights are computed wrongly
#     (roww <- rowSums(w * rs) gives rs_j * sum_k w_jk instead of
#     sum_k rs_k w_kj); with disagreement weights the formula is not even meant
#     to apply.  They are recorded only under *_known_wrong keys.
#   * Unweighted confidence bounds: kappa -/+ qnorm(0.975) * sqrt(var.kappa)
#     (normal approximation, Fleiss-Cohen-Everitt 1969 asymptotic variance),
#     clipped to [-1, 1] with a warning.

suppressPackageStartupMessages({
  library(psych)
  library(jsonlite)
})

args <- commandArgs(trailingOnly = FALSE)
file_arg <- sub("^--file=", "", args[grep("^--file=", args)])
here <- if (length(file_arg) == 1) dirname(normalizePath(file_arg)) else "tests/reference"

input <- fromJSON(file.path(here, "tables.json"), simplifyVector = FALSE)

num_or_null <- function(v) {
  v <- as.numeric(v)
  if (length(v) != 1 || is.na(v) || is.nan(v) || !is.finite(v)) NA_real_ else v
}

# Run expr, capturing the value, warnings and errors.
capture <- function(expr) {
  warns <- character(0)
  val <- withCallingHandlers(
    tryCatch(expr, error = function(e) structure(list(msg = conditionMessage(e)), class = "ck_error")),
    warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    },
    message = function(m) {
      warns <<- c(warns, paste("message:", trimws(conditionMessage(m))))
      invokeRestart("muffleMessage")
    }
  )
  list(value = val, warnings = warns)
}

results <- list()
for (tab in input$tables) {
  counts <- do.call(rbind, lapply(tab$counts, function(r) as.numeric(unlist(r))))
  K <- nrow(counts)
  cats <- 0:(K - 1)
  # item-level expansion, row-major over cells
  ref <- integer(0)
  cand <- integer(0)
  for (i in seq_len(K)) for (j in seq_len(K)) {
    n_ij <- counts[i, j]
    if (n_ij > 0) {
      ref <- c(ref, rep(cats[i], n_ij))
      cand <- c(cand, rep(cats[j], n_ij))
    }
  }
  items <- data.frame(ref = ref, cand = cand)

  d <- abs(outer(cats, cats, "-"))
  w_lin_dis <- d / (K - 1)          # linear DISagreement weights, 0 on diagonal
  w_quad_dis <- d^2 / (K - 1)^2     # quadratic DISagreement weights, 0 on diagonal
  w_lin_agr <- 1 - w_lin_dis        # linear agreement weights, 1 on diagonal
  w_quad_agr <- 1 - w_quad_dis      # quadratic agreement weights, 1 on diagonal

  run <- function(w) capture(cohen.kappa(items, w = w, levels = cats))

  entry <- list(name = tab$name, K = K, n = length(ref))
  base <- run(NULL)
  if (inherits(base$value, "ck_error")) {
    entry$error <- base$value$msg
    entry$kappa <- NA_real_
  } else {
    ck <- base$value
    entry$kappa <- num_or_null(ck$kappa)
    entry$kappa_var <- num_or_null(ck$var.kappa)
    entry$kappa_ci95 <- list(
      lower = num_or_null(ck$confid[1, "lower"]),
      estimate = num_or_null(ck$confid[1, "estimate"]),
      upper = num_or_null(ck$confid[1, "upper"])
    )
    entry$weighted_kappa_default_w <- num_or_null(ck$weighted.kappa)
    entry$bad_flag <- isTRUE(ck$bad)
    if (is.na(entry$kappa)) entry$kappa_null_reason <- "psych returned NaN/NA for kappa"
  }
  entry$warnings <- as.list(base$warnings)

  wk <- list()
  for (spec in list(
    list(key = "linear_disagreement_w", w = w_lin_dis),
    list(key = "linear_agreement_w", w = w_lin_agr),
    list(key = "quadratic_disagreement_w", w = w_quad_dis),
    list(key = "quadratic_agreement_w", w = w_quad_agr)
  )) {
    r <- run(spec$w)
    if (inherits(r$value, "ck_error")) {
      wk[[spec$key]] <- list(weighted_kappa = NA_real_, error = r$value$msg,
                             warnings = as.list(r$warnings))
    } else {
      ck <- r$value
      wk[[spec$key]] <- list(
        weighted_kappa = num_or_null(ck$weighted.kappa),
        weighted_var_psych_known_wrong = num_or_null(ck$var.weighted),
        weighted_ci_psych_known_wrong = list(
          lower = num_or_null(ck$confid[2, "lower"]),
          upper = num_or_null(ck$confid[2, "upper"])
        ),
        warnings = as.list(r$warnings)
      )
    }
  }
  entry$weighted <- wk
  # Convenience: the headline weighted values, from the disagreement-weight call
  # (as the brief specified); identical to the agreement-weight call.
  entry$weighted_kappa_linear <- wk$linear_disagreement_w$weighted_kappa
  entry$weighted_kappa_quadratic <- wk$quadratic_disagreement_w$weighted_kappa
  results[[length(results) + 1]] <- entry
}

out <- list(
  generated_by = "tests/reference/make_reference_r.R (psych::cohen.kappa on item-level data expanded from tables.json)",
  r_version = R.version.string,
  psych_version = as.character(packageVersion("psych")),
  jsonlite_version = as.character(packageVersion("jsonlite")),
  conventions = list(
    call = "psych::cohen.kappa(data.frame(ref, cand), w = W, levels = 0:(K-1)); alpha = 0.05",
    weights = paste(
      "W passed explicitly for linear/quadratic. *_disagreement_w: W[i,j] = |i-j|/(K-1) resp. (i-j)^2/(K-1)^2 (0 on diagonal);",
      "*_agreement_w: 1 minus those. psych detects the convention via tr(W) (>0: agreement formula, 0: 1 - po_w/pe_w).",
      "weighted_kappa_linear / weighted_kappa_quadratic are taken from the disagreement-weight calls.",
      "weighted_kappa_default_w is psych's default (w = NULL) = quadratic agreement weights."
    ),
    kappa_ci95 = "unweighted kappa -/+ qnorm(0.975)*sqrt(kappa_var) (normal), clipped to [-1, 1] by psych (with a warning)",
    kappa_var = "psych var.kappa (Fleiss-Cohen-Everitt 1969 large-sample variance, no n/(n-1) correction); psych sets it to 0 (and bad_flag = TRUE) when it is NA or negative",
    known_wrong = "weighted_var_psych_known_wrong / weighted_ci_psych_known_wrong: psych 2.2.9's weighted-kappa variance has a marginal-weight bug; do not test against them",
    nulls = "null means psych returned NaN/NA/Inf (e.g. 0/0 when chance agreement is 1); 'error' holds an R error message if the call failed"
  ),
  tables = results
)

writeLines(toJSON(out, auto_unbox = TRUE, pretty = TRUE, digits = NA, null = "null", na = "null"),
           file.path(here, "r_psych_values.json"))
cat("wrote", file.path(here, "r_psych_values.json"), "\n")

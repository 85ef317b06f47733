# Generate tests/reference/statcheck_values.json: statcheck's own test cases, run through statcheck.
#
# statcheck (R; Nuijten & Epskamp) is not on CRAN from this machine, so its source is read from a
# checkout of github.com/MicheleNuijten/statcheck (version 1.6.0, commit b288d94) and its R/ files
# are sourced into an environment; statcheck's own testthat suite passes on that environment (all
# 78 tests; the PDF/HTML file tests skip because the papers are not shipped).
#
#     git -C <statcheck checkout> archive HEAD | tar -x -C /tmp/statcheck-src
#     apt-get install -y r-base-core r-cran-jsonlite          # Debian bookworm: R 4.2.2
#     STATCHECK_SRC=/tmp/statcheck-src Rscript tests/reference/make_reference_statcheck.R
#
# What it records
# ---------------
# * "calls": every call of statcheck() made by statcheck's test files tests/testthat/test-*.R,
#   with the texts exactly as the tests built them (paste0() of qt() values included: R prints
#   15 significant digits), the options, and statcheck's output rows.
# * "expectations": every expect_true / expect_false / expect_equal / expect_output in those files
#   that looks at a statcheck result: the file and line, the expression, the expected value, the
#   value statcheck gave, and the id of the call it looks at (the call made while the expectation
#   was evaluated, else the last call before it).
# * "manual": the results coded by hand in statcheck's inst/test_materials/*.csv
#   (manually_extracted_stats.csv: the Nuijten et al. 2016 paper, rows marked extract_apa = 1;
#   test_dir/manually_extracted_stats_testpapers.csv: its fake test papers), each raw result run
#   through statcheck alone (csv_row: the 1-based data row of read.csv) and, with " (one-tailed)" appended, with OneTailedTxt = TRUE.
# The file's "versions" entry records R, statcheck and jsonlite.

suppressPackageStartupMessages(library(jsonlite))

src <- Sys.getenv("STATCHECK_SRC", "/tmp/statcheck-src")
out <- if (length(commandArgs(TRUE))) commandArgs(TRUE)[1] else "tests/reference/statcheck_values.json"

sc <- new.env()
for (f in list.files(file.path(src, "R"), full.names = TRUE)) sys.source(f, envir = sc)
real_statcheck <- sc$statcheck

calls <- list()
expectations <- list()
current_file <- NULL

rows_of <- function(res) {
  if (is.null(res) || nrow(res) == 0) return(list())
  res <- as.data.frame(res)
  lapply(seq_len(nrow(res)), function(i) list(
    source = as.character(res$source[i]), test_type = as.character(res$test_type[i]),
    df1 = res$df1[i], df2 = res$df2[i], test_comp = as.character(res$test_comp[i]),
    test_value = res$test_value[i], p_comp = as.character(res$p_comp[i]),
    reported_p = res$reported_p[i], computed_p = sprintf("%.17g", res$computed_p[i]),
    raw = as.character(res$raw[i]), error = res$error[i], decision_error = res$decision_error[i],
    one_tailed_in_txt = res$one_tailed_in_txt[i]))
}

statcheck_logged <- function(texts, ...) {
  args <- list(...)
  res <- NULL
  printed <- capture.output(res <- real_statcheck(texts, ...))
  opts <- args[setdiff(names(args), c("messages", "AllPValues"))]
  calls[[length(calls) + 1]] <<- list(id = length(calls) + 1, file = current_file,
                                      texts = as.list(unname(as.character(texts))),
                                      options = opts, all_p_values = isTRUE(args$AllPValues),
                                      n = if (is.null(res)) 0L else nrow(res),
                                      rows = if (isTRUE(args$AllPValues)) list() else rows_of(res))
  if (length(printed)) cat(printed, sep = "\n")
  res
}
sc$statcheck <- statcheck_logged

record <- function(kind, expr, expected, object_thunk) {
  frames <- sys.calls()
  sr <- attr(frames[[length(frames) - 1]], "srcref")
  before <- length(calls)
  printed <- NULL
  actual <- tryCatch({
    if (kind == "expect_output") {
      printed <- capture.output(v <- object_thunk())
      paste(printed, collapse = "\n")
    } else object_thunk()
  }, error = function(e) paste("ERROR:", conditionMessage(e)))
  call_ids <- if (length(calls) > before) seq(before + 1, length(calls)) else length(calls)
  expectations[[length(expectations) + 1]] <<- list(
    file = current_file, line = if (is.null(sr)) NA else sr[1], kind = kind, expr = expr,
    expected = expected, actual = actual, call_ids = as.list(call_ids))
  invisible(actual)
}

sc$expect_true <- function(object, ...) record("expect_true", deparse(substitute(object)), TRUE,
                                              function() object)
sc$expect_false <- function(object, ...) record("expect_false", deparse(substitute(object)), FALSE,
                                               function() object)
sc$expect_equal <- function(object, expected, ...) record("expect_equal", deparse(substitute(object)),
                                                          expected, function() object)
sc$expect_output <- function(object, regexp, ...) record("expect_output", deparse(substitute(object)),
                                                         regexp, function() object)
sc$test_that <- function(desc, code) eval(substitute(code), new.env(parent = sc))
sc$context <- function(...) invisible(NULL)

test_files <- c("test-extract-t-tests.R", "test-extract-F-tests.R", "test-extract-correlations.R",
                "test-extract-chi2-tests.R", "test-extract-Q-tests.R", "test-extract-z-tests.R",
                "test-extract-pvalues.R", "test-compute-pvalues.R", "test-error.R",
                "test-decisionerror.R", "test-S3-methods.R")
for (tf in test_files) {
  current_file <- file.path("tests/testthat", tf)
  sys.source(file.path(src, "tests", "testthat", tf), envir = new.env(parent = sc), keep.source = TRUE)
}

# hand-coded results of statcheck's test materials --------------------------------------------------
manual <- list()
read_manual <- function(path) {
  read.csv(file.path(src, "inst", "test_materials", path), sep = ";", stringsAsFactors = FALSE,
           encoding = "UTF-8")
}
m1 <- read_manual("manually_extracted_stats.csv")
m1 <- m1[m1$file_id %in% c("nuijten_html", "nuijten_pdf") & m1$extract_apa == 1, ]
m1$path <- "inst/test_materials/manually_extracted_stats.csv"
m1$csv_row <- as.integer(rownames(m1))
m2 <- read_manual("test_dir/manually_extracted_stats_testpapers.csv")
m2$path <- "inst/test_materials/test_dir/manually_extracted_stats_testpapers.csv"
m2$csv_row <- as.integer(rownames(m2))
cols <- c("path", "csv_row", "paper_id", "raw_result", "test_type", "df1", "df2", "test_value", "p",
          "error", "decision_error", "error_1tail", "decision_error_1tail")
m1$paper_id <- m1$file_id
mm <- rbind(m1[, cols], m2[, cols])
for (i in seq_len(nrow(mm))) {
  txt <- mm$raw_result[i]
  two <- real_statcheck(txt, messages = FALSE)
  one <- real_statcheck(paste(txt, "(one-tailed)"), messages = FALSE, OneTailedTxt = TRUE)
  manual[[i]] <- c(as.list(mm[i, ]), list(rows = rows_of(two), rows_one_tailed_txt = rows_of(one)))
}

versions <- list(r = R.version.string, statcheck = read.dcf(file.path(src, "DESCRIPTION"))[1, "Version"],
                 statcheck_commit = "b288d94 (github.com/MicheleNuijten/statcheck)",
                 jsonlite = as.character(packageVersion("jsonlite")))
res <- list(generated_by = "tests/reference/make_reference_statcheck.R", versions = versions,
            calls = calls, expectations = expectations, manual = manual)
writeLines(toJSON(res, auto_unbox = TRUE, digits = NA, null = "null", na = "null", pretty = TRUE), out,
           useBytes = TRUE)
cat(sprintf("%d calls, %d expectations, %d manual rows -> %s\n", length(calls), length(expectations),
            length(manual), out))

# Generate tests/reference/r_correlation_nulls.json: R's cor.test p-values for Spearman's rho and
# Kendall's tau on seeded permutations (no ties), the references of metaeval.review.nulls.
#
#     apt-get install -y r-base-core r-cran-jsonlite          # Debian bookworm: R 4.2.2
#     Rscript tests/reference/make_reference_r_correlation_nulls.R
#
# For each n in 5..12, 15, 20, 30, 45, 80, 200 and 8 permutations each (set.seed(2026); half of them
# near the identity so that small p occur) it records the permutation, S = sum of squared rank
# differences, the discordant pairs, and
#   * cor.test(1:n, y, method = "spearman")$p.value: R's default, exact for n <= 9 (enumeration),
#     Edgeworth series AS 89 for 10 <= n < 1290 (no ties);
#   * cor.test(1:n, y, method = "kendall", exact = TRUE)$p.value: the exact null distribution of
#     tau (R's ckendall);
#   * cor.test(1:n, y, method = "kendall", exact = FALSE)$p.value: the normal approximation.
suppressPackageStartupMessages(library(jsonlite))
out <- if (length(commandArgs(TRUE))) commandArgs(TRUE)[1] else "tests/reference/r_correlation_nulls.json"
set.seed(2026)
cases <- list()
for (n in c(5:12, 15, 20, 30, 45, 80, 200)) {
  for (k in 1:8) {
    y <- if (k %% 2 == 0) sample(n) else {
      z <- 1:n
      for (s in seq_len(sample(0:3, 1))) { i <- sample(n - 1, 1); z[c(i, i + 1)] <- z[c(i + 1, i)] }
      z
    }
    disc <- sum(outer(1:n, 1:n, "<") & outer(y, y, ">"))
    cases[[length(cases) + 1]] <- list(
      n = n, y = y, s = sum((1:n - y)^2), discordant = disc,
      spearman_p = suppressWarnings(cor.test(1:n, y, method = "spearman")$p.value),
      kendall_exact_p = cor.test(1:n, y, method = "kendall", exact = TRUE)$p.value,
      kendall_normal_p = cor.test(1:n, y, method = "kendall", exact = FALSE)$p.value)
  }
}
res <- list(generated_by = "tests/reference/make_reference_r_correlation_nulls.R",
            versions = list(r = R.version.string, jsonlite = as.character(packageVersion("jsonlite"))),
            cases = cases)
writeLines(toJSON(res, auto_unbox = TRUE, digits = NA, pretty = TRUE), out)

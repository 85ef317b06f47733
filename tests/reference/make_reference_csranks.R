# Generate tests/reference/csranks_values.json: confidence sets for ranks from the authors' R
# package csranks (Mogstad, Romano, Shaikh & Wilhelm 2024, Review of Economic Studies), on fixed
# shared cases, for tests/test_panel_ranks.py.
#
# csranks is not on CRAN from this machine, so its source is read from a checkout of
# github.com/danielwilhelm/R-CS-ranks (version 1.2.2.9001, commit bd4f755) and the R/ files it needs
# are sourced (not installed):
#
#     git -C <R-CS-ranks checkout or mirror> archive HEAD R DESCRIPTION | tar -x -C /tmp/csranks-src
#     apt-get install -y r-base-core r-cran-jsonlite r-cran-cli   # Debian bookworm: R 4.2.2, MASS 7.3
#     CSRANKS_SRC=/tmp/csranks-src CSRANKS_COMMIT=bd4f755 Rscript tests/reference/make_reference_csranks.R
#
# What it records, per case (estimates x, their covariance matrix Sigma, seed, R draws):
# * "Z": the R x p Gaussian draw csranks makes (set.seed(seed); MASS::mvrnorm(R, 0, Sigma)). With
#   stepdown = FALSE this is exactly the draw csranks uses for the simultaneous sets and, for every
#   population, for its marginal set (each marginal call resets the seed and needs every variable).
# * "simul" / "marg": csranks(x, Sigma, coverage, simul = TRUE / FALSE, stepdown = FALSE, R, seed)
#   lower and upper rank bounds (rank 1 = the largest x).
# * "diff_L" / "diff_U": csdiffmeans(x, Sigma, coverage, cstype = "symmetric", stepdown = FALSE, R,
#   seed): the simultaneous intervals for x_i - x_j (row i, column j; NA on the diagonal).
# * "simul_stepdown" / "marg_stepdown": the same sets with csranks' default stepdown = TRUE (its
#   later steps draw new, smaller Gaussian samples, so they are reproduced only in distribution).
# What equality means: driven by the same draw Z and the same standard errors
# sqrt(Sigma_ii + Sigma_jj - 2 Sigma_ij), metaeval.panels.simultaneous gives the same critical value
# (R's quantile type 7 = numpy's "linear"), the same difference intervals and the same rank sets.
# The file's "versions" entry records R, MASS, jsonlite and the csranks source.

suppressPackageStartupMessages(library(jsonlite))

src <- Sys.getenv("CSRANKS_SRC", "/tmp/csranks-src")
commit <- Sys.getenv("CSRANKS_COMMIT", "unknown")
out <- if (length(commandArgs(TRUE))) commandArgs(TRUE)[1] else "tests/reference/csranks_values.json"

cs <- new.env()
for (f in c("argument_checks.R", "utilityfunctions.R", "diffmeans.R", "rank_utils.R", "ranks.R")) {
  sys.source(file.path(src, "R", f), envir = cs)
}
desc <- read.dcf(file.path(src, "DESCRIPTION"))

corr_cov <- function(se, rho) {
  p <- length(se)
  C <- matrix(rho, p, p)
  diag(C) <- 1
  C * outer(se, se)
}

cases <- list(
  list(name = "independent, spread out (PISA-like)",
       x = c(0.62, 0.55, 0.51, 0.50, 0.41, 0.30),
       Sigma = diag(c(0.02, 0.025, 0.02, 0.03, 0.02, 0.025)^2), seed = 101L),
  list(name = "judges on the same items: correlated, near ties at the top",
       x = c(0.412, 0.405, 0.398, 0.36, 0.31),
       Sigma = corr_cov(c(0.018, 0.02, 0.017, 0.021, 0.019), 0.7), seed = 202L),
  list(name = "one clearly best, unequal correlations",
       x = c(0.71, 0.52, 0.50, 0.47, 0.46, 0.33, 0.31, 0.12),
       Sigma = {
         se <- c(0.03, 0.025, 0.03, 0.028, 0.02, 0.035, 0.03, 0.04)
         C <- outer(1:8, 1:8, function(i, j) 0.8^abs(i - j))
         C * outer(se, se)
       }, seed = 303L),
  list(name = "ten populations, two groups of ties",
       x = c(1.0, 0.98, 0.97, 0.8, 0.79, 0.78, 0.77, 0.5, 0.2, 0.1),
       Sigma = corr_cov(rep(0.05, 10), 0.3) + diag(seq(0.0005, 0.005, length.out = 10)), seed = 404L)
)

R <- 500L
coverage <- 0.95
res <- lapply(cases, function(cs_) {
  x <- cs_$x; Sigma <- cs_$Sigma; p <- length(x)
  set.seed(cs_$seed)
  Z <- MASS::mvrnorm(R, mu = rep(0, p), Sigma = Sigma)
  simul <- cs$csranks(x, Sigma, coverage = coverage, simul = TRUE, stepdown = FALSE, R = R, seed = cs_$seed)
  marg <- cs$csranks(x, Sigma, coverage = coverage, simul = FALSE, stepdown = FALSE, R = R, seed = cs_$seed)
  dm <- cs$csdiffmeans(x, Sigma, coverage = coverage, cstype = "symmetric", stepdown = FALSE, R = R,
                       seed = cs_$seed)
  simul_sd <- cs$csranks(x, Sigma, coverage = coverage, simul = TRUE, stepdown = TRUE, R = R, seed = cs_$seed)
  marg_sd <- cs$csranks(x, Sigma, coverage = coverage, simul = FALSE, stepdown = TRUE, R = R, seed = cs_$seed)
  diagNA <- function(M) { diag(M) <- NA; M }
  list(name = cs_$name, x = x, Sigma = Sigma, seed = cs_$seed, R = R, coverage = coverage,
       Z = Z,
       rank = as.integer(simul$rank),
       simul = list(L = simul$L, U = simul$U),
       marg = list(L = marg$L, U = marg$U),
       diff_L = diagNA(dm$L), diff_U = diagNA(dm$U),
       simul_stepdown = list(L = simul_sd$L, U = simul_sd$U),
       marg_stepdown = list(L = marg_sd$L, U = marg_sd$U))
})

versions <- list(R = R.version.string, MASS = as.character(packageVersion("MASS")),
                 jsonlite = as.character(packageVersion("jsonlite")),
                 csranks = paste0(desc[1, "Version"], " (github.com/danielwilhelm/R-CS-ranks @ ", commit,
                                  ", R/ sourced)"))
write(toJSON(list(versions = versions, script = "tests/reference/make_reference_csranks.R", cases = res),
             digits = I(17), auto_unbox = TRUE, na = "null", matrix = "rowmajor", pretty = FALSE), out)
cat("wrote", out, "\n")

# Reference variance components for metaeval.variance_components: REML fits of lme4 on balanced,
# fully crossed random designs (items x runs; items x runs x judges), data simulated here.
#   Rscript tests/reference/make_reference_gstudy.R   (Debian: r-base-core, r-cran-lme4, r-cran-jsonlite)
# writes tests/reference/gstudy_lme4.json with the data, the REML variance components and the versions.
suppressPackageStartupMessages({library(lme4); library(jsonlite)})
set.seed(20261202)
ctrl <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhobeg = 0.2, rhoend = 1e-12, maxfun = 1e6),
                    check.conv.singular = "ignore")
vc <- function(fit) { v <- as.data.frame(VarCorr(fit)); setNames(as.list(v$vcov), v$grp) }
cases <- list()
for (k in 1:3) {
  ni <- c(40, 80, 25)[k]; nr <- c(3, 5, 4)[k]
  d <- expand.grid(item = seq_len(ni), run = seq_len(nr))
  d$score <- rnorm(ni, 0, 1)[d$item] + rnorm(nr, 0, 0.4)[d$run] + rnorm(nrow(d), 0, 0.6)
  d$item <- factor(d$item); d$run <- factor(d$run)
  fit <- lmer(score ~ 1 + (1 | item) + (1 | run), data = d, REML = TRUE, control = ctrl)
  cases[[length(cases) + 1]] <- list(design = "item x run", item = as.integer(d$item), run = as.integer(d$run),
                                     score = d$score, reml = vc(fit))
}
ni <- 30; nr <- 3; nj <- 4
d <- expand.grid(item = seq_len(ni), run = seq_len(nr), judge = seq_len(nj))
d$score <- rnorm(ni)[d$item] + rnorm(nr, 0, 0.3)[d$run] + rnorm(nj, 0, 0.5)[d$judge] +
  rnorm(ni * nj, 0, 0.4)[(d$item - 1) * nj + d$judge] + rnorm(ni * nr, 0, 0.3)[(d$item - 1) * nr + d$run] +
  rnorm(nr * nj, 0, 0.3)[(d$run - 1) * nj + d$judge] + rnorm(nrow(d), 0, 0.5)
d$item <- factor(d$item); d$run <- factor(d$run); d$judge <- factor(d$judge)
fit <- lmer(score ~ 1 + (1 | item) + (1 | run) + (1 | judge) + (1 | item:run) + (1 | item:judge) + (1 | run:judge),
            data = d, REML = TRUE, control = ctrl)
cases[[length(cases) + 1]] <- list(design = "item x run x judge", item = as.integer(d$item), run = as.integer(d$run),
                                   judge = as.integer(d$judge), score = d$score, reml = vc(fit))
out <- list(generator = "tests/reference/make_reference_gstudy.R", R = R.version.string,
            lme4 = as.character(packageVersion("lme4")), cases = cases)
write_json(out, "tests/reference/gstudy_lme4.json", digits = NA, auto_unbox = TRUE)
cat("written\n")

"""The main job: the demo report over the sample data is complete and byte-identical on a rerun."""

import hashlib
import json

import pytest

from metaeval.output.demo import run_demo


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    a = tmp_path_factory.mktemp("a")
    b = tmp_path_factory.mktemp("b")
    summary = run_demo(a, seed=7, n_resamples=300)
    run_demo(b, seed=7, n_resamples=300)
    return a, b, summary


def _digests(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def demo_is_byte_identical_test(two_runs):
    a, b, _ = two_runs
    da, db = _digests(a), _digests(b)
    assert da == db and len(da) >= 10


def demo_contents_test(two_runs):
    a, _, summary = two_runs
    assert "trec_dl_like" in summary and "imageclef_like" in summary
    md = (a / "report.md").read_text()
    for section in ("Inspection", "trec_dl_like", "imageclef_like", "rubric_like", "battles_like"):
        assert section in md
    res = json.loads((a / "results.json").read_text())
    assert res["_meta"]["seed"] == 7 and res["_meta"]["n_resamples"] == 300
    # alignment accounts for every row of both qrels files (7,734 human, 7,731 judge: data_samples/README.md)
    sides = {}
    for r in res["trec_alignment"]:
        sides[r["side"]] = sides.get(r["side"], 0) + r["count"]
    assert sides == {"human": 7734, "judge": 7731}
    kappa = {r["statistic"]: r for r in res["imageclef_agreement"]}["cohen_kappa"]
    # the validation table is [[85, 20], [20, 77]] by construction: kappa 0.6033 (STATISTICS.md example)
    assert kappa["estimate"] == pytest.approx(0.603338, abs=1e-6)
    assert kappa["ci_low"] < kappa["estimate"] < kappa["ci_high"]

"""TV against the number of draws (generator/data/tv_curve.py): the points are sampler.py's own, reproducible from
the recorded seeds in CPython; their shape is checked by the contract; correct and direct fall like 1/√n together
and resample_p levels off at its closed-form TV."""
import copy
import math

import pytest

from generator import contract
from generator.data.settings import PREFIXES
from generator.shared_sampler import sampler
from generator.data.tv_curve import TV_CURVE, tv_curve
from generator.errors import InputError
from generator.models.family import DRAFTS

SMALL = dict(TV_CURVE, ns=(100, 1000), seeds=2)


def tiny_dists():
    p = [0.4, 0.3, 0.2, 0.1, 0.0]
    q = [0.1, 0.2, 0.3, 0.0, 0.4]
    return {PREFIXES[0]: {"p": p, "q": {DRAFTS[0]: q}}}


def point(entry, draft, scheme, seed, n):
    pair = sampler.Pair(entry["p"], entry["q"][draft])
    return sampler.summary(sampler.run(pair, n, seed, scheme), pair)["tv"]


def test_each_point_is_sampler_py_with_its_recorded_seed():
    dists = tiny_dists()
    curve = tv_curve(dists, SMALL)
    assert (curve["prefix"], curve["draft"]) == (PREFIXES[0], DRAFTS[0])
    assert curve["ns"] == [100, 1000] and curve["schemes"] == list(TV_CURVE["schemes"])
    every = [seed for s in curve["schemes"] for seed in curve["seeds"][s]]
    assert every == list(range(TV_CURVE["seed"], TV_CURVE["seed"] + len(every)))  # seed + index, never reused
    for scheme in curve["schemes"]:
        for s, seed in enumerate(curve["seeds"][scheme]):
            for i, n in enumerate(curve["ns"]):
                assert curve["tv"][scheme][s][i] == point(dists[PREFIXES[0]], DRAFTS[0], scheme, seed, n)
    pair = sampler.Pair(dists[PREFIXES[0]]["p"], dists[PREFIXES[0]]["q"][DRAFTS[0]])
    assert curve["closed_form_tv"] == sampler.resample_p_tv(pair.p, pair.q) > 0
    assert tv_curve(dists, SMALL) == curve  # deterministic


@pytest.mark.slow("every TV point redrawn by sampler.py")
def test_the_data_points_are_reproduced_by_sampler_py_in_cpython(data):
    """The committed points, from their recorded seeds: every n up to 10⁵, and the largest n once per scheme."""
    curve = data["tv_curve"]
    entry = data["distributions"][curve["prefix"]]
    assert curve["prefix"] == data["replay"]["prompt"] and curve["draft"] == data["constants"]["drafts"][0]
    assert curve["closed_form_tv"] == entry["tv_resample_p_closed_form"][curve["draft"]]
    for scheme in curve["schemes"]:
        for s, seed in enumerate(curve["seeds"][scheme]):
            for i, n in enumerate(curve["ns"]):
                if n <= 100_000 or s == 0:
                    assert curve["tv"][scheme][s][i] == point(entry, curve["draft"], scheme, seed, n), (scheme, seed, n)


def test_correct_and_direct_fall_like_one_over_root_n_and_resample_p_levels_off(data):
    curve = data["tv_curve"]
    mean = {s: [math.exp(sum(math.log(row[i]) for row in curve["tv"][s]) / len(curve["tv"][s]))
                for i in range(len(curve["ns"]))] for s in curve["schemes"]}
    span = math.log10(curve["ns"][-1] / curve["ns"][-3])  # the last two decades, where n·p is large
    for scheme in ("correct", "direct"):
        slope = math.log10(mean[scheme][-1] / mean[scheme][-3]) / span
        assert -0.6 < slope < -0.4, (scheme, slope)
        assert mean["correct"][-1] == pytest.approx(mean["direct"][-1], rel=0.2)
    assert mean["resample_p"][-1] == pytest.approx(curve["closed_form_tv"], rel=0.05)
    assert mean["resample_p"][-1] > 5 * mean["correct"][-1]


def broken(data, change):
    bad = copy.deepcopy(data)
    change(bad["tv_curve"])
    return contract.seal(bad)


@pytest.mark.parametrize("change,field", [
    (lambda c: c.pop("tv"), "tv_curve.tv"),
    (lambda c: c.update(prefix="不在这里"), "tv_curve.prefix"),
    (lambda c: c.update(draft="nobody"), "tv_curve.draft"),
    (lambda c: c["tv"]["correct"][0].pop(), "tv_curve.tv.correct"),
    (lambda c: c["seeds"].update(direct=[]), "tv_curve.seeds.direct"),
    (lambda c: c["seeds"]["direct"].pop(), "tv_curve.tv.direct"),
    (lambda c: c["tv"]["resample_p"][1].__setitem__(0, "0.1"), "tv_curve.tv.resample_p"),
    (lambda c: c.update(ns=[1000, 100, 10_000, 100_000, 1_000_000]), "tv_curve.ns"),
    (lambda c: c.update(schemes=["correct", "naive", "resample_p"]), "tv_curve.schemes"),
])
def test_the_contract_refuses_a_broken_curve_naming_the_field(data, tmp_path, change, field):
    contract.validate(contract.seal(copy.deepcopy(data)), tmp_path / "c13.json")  # the data as it is passes
    with pytest.raises(InputError) as err:
        contract.validate(broken(data, change), tmp_path / "c13.json")
    assert field in str(err.value)


def test_tv_points_report_each_seed_done():
    from generator.data.tv_curve import tv_points
    heard = []
    seeds, points = tv_points(tiny_dists(), "correct", SMALL, progress=heard.append)
    assert heard == [(i + 1) / SMALL["seeds"] for i in range(SMALL["seeds"])] and len(points) == len(seeds)

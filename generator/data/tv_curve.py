"""TV against the number of draws: the points of the lesson's log–log figure.

For one prefix and draft (the first prefix of E2 and the small draft), each scheme is run through
widgets/sampler.py at n = 10², 10³, …, 10⁶ with a few recorded seeds (seed + index, as the offline checks do):
the correct scheme and direct sampling from p fall like 1/√n together, resample-from-p levels off at its
closed-form TV. A point is sampler.summary(sampler.run(pair, n, seed, scheme), pair)["tv"], the very call the
browser's rerun makes through the Pyodide worker, so the page reproduces each point to the last bit.

One seed serves every n of a scheme: the run of 10² draws is the start of the run of 10⁶ (the same stream), so
each seed draws one path of TV as the draws accumulate. Cost: about 10 million draws (3 schemes × 3 seeds ×
1,111,100), within the whole regeneration that `benchmarks/bench_regen.py` times.
"""
from ..models.family import DRAFTS
from .settings import PREFIXES, TV
from ..shared_sampler import sampler

# ns, seeds per scheme and the first seed from precomputed/lesson.toml ([tv]); seeds are seed + index, recorded
TV_CURVE = dict(TV, schemes=("correct", "direct", "resample_p"))


def tv_points(dists, scheme, settings=TV_CURVE, progress=None):
    """One scheme's part of the figure: its seeds and, for each seed, the TV to p at every n of settings["ns"].
    progress(fraction), if given, hears after each seed which share is done."""
    pair = _pair(dists)
    count, j = settings["seeds"], list(settings["schemes"]).index(scheme)
    seeds = [settings["seed"] + j * count + i for i in range(count)]
    points = []
    for seed in seeds:
        points.append([sampler.summary(sampler.run(pair, n, seed, scheme), pair)["tv"] for n in settings["ns"]])
        if progress:
            progress(len(points) / count)
    return seeds, points


def tv_curve(dists, settings=TV_CURVE, points=None):
    """The figure's points for PREFIXES[0] and the small draft: per scheme, its seeds and, for each seed, the TV of
    the output histogram to p at every n of settings["ns"]; with the closed-form TV that resample_p tends to.
    points: {scheme: tv_points(dists, scheme, settings)} when computed already (each scheme may run elsewhere)."""
    pair = _pair(dists)
    points = points or {scheme: tv_points(dists, scheme, settings) for scheme in settings["schemes"]}
    return {"prefix": PREFIXES[0], "draft": DRAFTS[0], "ns": list(settings["ns"]), "seed": settings["seed"],
            "schemes": list(settings["schemes"]),
            "seeds": {scheme: points[scheme][0] for scheme in settings["schemes"]},
            "tv": {scheme: points[scheme][1] for scheme in settings["schemes"]},
            "closed_form_tv": sampler.resample_p_tv(pair.p, pair.q)}


def _pair(dists):
    entry = dists[PREFIXES[0]]
    return sampler.Pair(entry["p"], entry["q"][DRAFTS[0]])

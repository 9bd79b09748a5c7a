"""What the Pyodide check asks of the sampler, written once: tests/widgets/test_sampler_pyodide.py runs it in CPython
and tests/widgets/node/pyodide_sampler.mjs loads this very file into Pyodide, so the two sides cannot drift apart.

Standard library only (it runs inside Pyodide); the sampler module is passed in.
"""
import random


def primitives(sampler, case):
    """The calls the real-model loop makes, on the case's p and q as rows."""
    rng = random.Random(case["seed"])
    us = [rng.random() for _ in range(64)]
    drafted = [sampler.draw(case["q"], u) for u in us[:3]]
    residual = any(sampler.residual(case["p"], case["q"]))
    return dict(
        draws=[sampler.draw(case["q"], u) for u in us],
        residual_draws=[sampler.draw_residual(case["p"], case["q"], u) for u in us] if residual else None,
        accepts=[sampler.accepts(case["p"][x], case["q"][x], u) for x, u in zip(drafted, us[3:])],
        verify=[sampler.verify([case["p"]] * 4, [case["q"]] * 3, drafted, random.Random(case["seed"] + i))
                for i in range(8)] if residual else None,
        verify_greedy=sampler.verify([case["p"]] * 4, [case["q"]] * 3, drafted),
    )


def exercise(sampler, cases):
    """Every case's seeded run, summary, first rounds and primitives, as plain JSON values."""
    out = []
    for case in cases:
        pair = sampler.Pair(case["p"], case["q"])
        result = sampler.run(pair, case["n"], case["seed"], case["scheme"], case["chunk"])
        summ = sampler.summary(result, pair)
        out.append(dict(
            scheme=case["scheme"], n=result["n"], seed=result["seed"], chunk=case["chunk"],
            counts=result["counts"], accepted=result["accepted"],
            tv=summ["tv"], acceptance_rate=summ["acceptance_rate"], alpha=pair.alpha,
            one_round={s: sampler.one_round(pair, random.Random(case["seed"]), s) for s in sampler.SCHEMES},
            primitives=primitives(sampler, case),
        ))
    return out

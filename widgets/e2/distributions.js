// E2's view of the embedded distributions: p and q of a prefix and a draft decoded once (with the JSON the
// Python worker receives), their α, Σ p·q, the closed-form TV of resample-from-p, the offline checks, the token
// that resample-from-p under-produces most and the stacked picture's split of p and q (both computed by the
// generator with sampler.py), and the expected TV of direct sampling (the noise floor) for each run size asked for.
import { decodeProbs, expectedNoiseTV } from "../c13-util.js";

export function distributionStore(data) {
  const cache = new Map();
  const labelsLength = data.labels.length;

  function get(prefix, draft) {
    const key = `${prefix}|${draft}`;
    if (!cache.has(key)) {
      const entry = data.distributions[prefix];
      const p = decodeProbs(entry.p);
      const q = decodeProbs(entry.q[draft]);
      if (p.length !== labelsLength || q.length !== labelsLength) {
        throw new Error(`E2: the distributions of 「${prefix}」 (${draft}) do not have one value per token`);
      }
      cache.set(key, {
        key, prefix, draft, p, q, pJSON: JSON.stringify(p), qJSON: JSON.stringify(q),
        alpha: entry.alpha[draft], sumPQ: entry.sum_pq[draft], closedTV: entry.tv_resample_p_closed_form[draft],
        deficit: entry.resample_p_deficit[draft], columns: entry.columns[draft], offline: data.offline.results[prefix][draft], noiseBySize: new Map(),
      });
    }
    return cache.get(key);
  }

  /** The expected TV between p and the histogram of n direct draws from p. */
  function noise(dist, n) {
    if (!dist.noiseBySize.has(n)) dist.noiseBySize.set(n, expectedNoiseTV(dist.p, n));
    return dist.noiseBySize.get(n);
  }

  return { get, noise };
}

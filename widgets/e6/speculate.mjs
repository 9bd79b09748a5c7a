// E6's two decoding loops, target alone and speculative (Leviathan et al. 2022, Algorithm 1), in the browser.
//
// The mirror of generator/data/speculative.py `speculative_run`: the models run here (model.mjs Decoders over a KV
// cache), and every decision — each drafted token's draw, each accept test, the residual or bonus draw, the T = 0
// greedy picks — is a call into widgets/sampler.py running in Pyodide (`sampler`, an adapter made by engine.mjs).
// The random stream is one Python random.Random(seed) used in speculative_run's order: one random() per drafted
// token (a draw from that position's q), then verify's own (one per accept test up to the first rejection, one for
// the final token). At T = 0 `stream` is null.
//
// No DOM, no worker code: Node runs this file too (tests/widgets/node/e6_greedy.mjs). Each model forward and each
// sampler call is timed with the injected clock; between rounds the loop yields to the event loop (so a cancel message
// can arrive) and asks `cancelled()`.
import { cancelledError } from "../python-task.mjs";

const YIELD_EVERY_MS = 30; // a yield costs a timer tick (clamped to ~4 ms in browsers): not after every round

export { cancelledError };  // the page's (python-task.mjs), so that both sides mark a cancel the one way

/** The loop's own bookkeeping: time per part, and the pauses that are not part of any. */
class Timer {
  constructor(clock, pause) {
    this.clock = clock || (() => performance.now());
    this.pause = pause || (() => new Promise((resolve) => setTimeout(resolve, 0)));
    this.ms = { target: 0, draft: 0, sampler: 0, total: 0 };
    this.start = this.clock();
    this.lastYield = this.start;
    this.paused = 0;
  }

  /** fn() timed into ms[part]; returns [value, ms]. */
  time(part, fn) {
    const t0 = this.clock();
    const value = fn();
    const dt = this.clock() - t0;
    this.ms[part] += dt;
    return [value, dt];
  }

  /** Between rounds: stop if asked, and now and then let the event loop run (time not counted). */
  async between(cancelled) {
    if (cancelled?.()) throw cancelledError();
    const now = this.clock();
    if (now - this.lastYield < YIELD_EVERY_MS) return;
    await this.pause();
    this.lastYield = this.clock();
    this.paused += this.lastYield - now;
    if (cancelled?.()) throw cancelledError();
  }

  finish() {
    this.ms.total = this.clock() - this.start - this.paused;
    return this.ms;
  }
}

/** The target alone, one forward per token (KV cache): T = 0 sampler.greedy_pick, T = 1 sampler.draw with
 * the stream. onToken({index, token, ms: {target, sampler}}) after each. */
export async function targetOnly({ target, prompt, nNew, greedy, stream, sampler, clock, pause, onToken, cancelled }) {
  const timer = new Timer(clock, pause);
  const tokens = [...prompt];
  const targetSingleMs = [];
  const forwards0 = target.forwards;
  while (tokens.length - prompt.length < nNew) {
    await timer.between(cancelled);
    const [rows, targetMs] = timer.time("target", () => target.probs(tokens, 1));
    targetSingleMs.push(targetMs);
    const [token, samplerMs] = timer.time("sampler",
      () => (greedy ? sampler.greedyPick(rows[0]) : sampler.draw(stream, rows[0]).token));
    tokens.push(token);
    onToken?.({ index: tokens.length - prompt.length - 1, token, ms: { target: targetMs, sampler: samplerMs } });
  }
  return { tokens: tokens.slice(prompt.length), forwards: target.forwards - forwards0, targetSingleMs, ms: timer.finish() };
}

/** The draft's k proposals of one round: drafted tokens, their q rows and the uniforms of their draws. */
function propose({ draft, tokens, k, greedy, stream, sampler, timer, round }) {
  const drafted = [];
  const qRows = [];
  const drawU = [];
  for (let i = 0; i < k; i++) {
    const [rows, draftMs] = timer.time("draft", () => draft.probs(tokens.concat(drafted), 1));
    round.draftMs.push(draftMs);
    round.ms.draft += draftMs;
    const [picked, samplerMs] = timer.time("sampler",
      () => (greedy ? { token: sampler.greedyPick(rows[0]), u: null } : sampler.draw(stream, rows[0])));
    round.ms.sampler += samplerMs;
    drafted.push(picked.token);
    qRows.push(rows[0]);
    drawU.push(picked.u);
  }
  return { drafted, qRows, drawU };
}

/** Speculative decoding: rounds of k drafts and one verifying target forward over the k + 1 positions, until at
 * least nNew tokens (a round yields 1 … k + 1 of them; like speculative_run, the last may overshoot nNew).
 * onRound(round) after each, with sampler.verify's record and the round's times. */
export async function speculative({ target, draft, prompt, nNew, k, greedy, stream, sampler, clock, pause, onRound,
  cancelled }) {
  if (!(k >= 1)) throw new Error(`k = ${k}：草稿每轮至少要提议 1 个 token`);
  const timer = new Timer(clock, pause);
  const tokens = [...prompt];
  const rounds = [];
  const draftMs = [];
  const verifyMs = [];
  const forwards0 = { target: target.forwards, draft: draft.forwards };
  while (tokens.length - prompt.length < nNew) {
    await timer.between(cancelled);
    const round = { index: rounds.length, draftMs: [], ms: { draft: 0, target: 0, sampler: 0 } };
    const { drafted, qRows, drawU } = propose({ draft, tokens, k, greedy, stream, sampler, timer, round });
    const [pRows, targetMs] = timer.time("target", () => target.probs(tokens.concat(drafted), k + 1));
    verifyMs.push(targetMs);
    round.ms.target = targetMs;
    const [rec, samplerMs] = timer.time("sampler", () => sampler.verify(greedy ? null : stream, pRows, qRows, drafted));
    round.ms.sampler += samplerMs;
    target.rollback(tokens.length + rec.accepted);
    draft.rollback(tokens.length + rec.accepted);
    tokens.push(...drafted.slice(0, rec.accepted), rec.token);
    draftMs.push(...round.draftMs);
    Object.assign(round, rec, { draft: drafted, draw_u: drawU, yield: rec.accepted + 1 });
    rounds.push(round);
    onRound?.(round);
  }
  return {
    tokens: tokens.slice(prompt.length), rounds,
    targetForwards: target.forwards - forwards0.target, draftForwards: draft.forwards - forwards0.draft,
    draftMs, verifyMs, ms: timer.finish(),
  };
}

// E6's measuring phase, in the worker after the two decoding runs (and again for each 再测一次): blocks of
// repeated forwards, timed long enough for a coarse clock.
//
// Why: in a worker of a page that is not cross-origin isolated, performance.now() steps by 0.1 ms, and one forward
// of the small draft lasts only a few of those steps, so one call read alone is off by a large share of it. Here one block repeats
// one kind of call until the block lasts at least `minBlockMs` by the clock (fifty steps of it, at least 5 ms); the
// block's time ÷ its calls is one sample, off by at most one step ÷ the block. The kinds are the target's
// one-position forward, the draft's, and the target's verify of k + 1 positions, at one context (the reader's
// prompt and part of the text, engine.mjs measuringInput); each call feeds the same last positions again, since
// the Decoder first cuts its KV cache back to what precedes them, which only resets a length. A round times one
// block of each kind, in an order rotated from round to round (reversed every other round), so that none always
// goes first; blocks too short to keep grow their calls and are run again (discarded: they warm the code up too).
// Between blocks the loop asks `cancelled()` and now and then yields to the worker's event loop, so that 取消
// reaches it; it stops after `rounds` rounds, or earlier (never before `minRounds`) once `budgetMs` have passed.
//
// No DOM, no worker code: Node runs this file too (tests/widgets/node/e6_timing.mjs, with a fake clock of 0.1 ms
// steps).

import { cancelledError } from "./speculate.mjs";

// runs: how many times each loop runs again for the verdict (odd: the median is one pair's ratio)
export const TIMING = { runs: 5, rounds: 9, minRounds: 3, budgetMs: 1500, minBlockMs: 5, maxBlockMs: 20, stepsPerBlock: 50,
  coarsestStepMs: 2, aimAbove: 1.5, maxCalls: 20000, yieldEveryMs: 30 };

export const KINDS = ["target", "draft", "verify"];

/** The kinds in round r's order: started at a different place each round, reversed on odd rounds. */
export function rotated(items, r) {
  const shift = r % items.length;
  const out = [...items.slice(shift), ...items.slice(0, shift)];
  return r % 2 ? out.reverse() : out;
}

/** The clock's step: the smallest change seen over a few changes of its reading (null when it never moves). */
export function clockStep(clock, changes = 8, maxReads = 2_000_000) {
  let step = Infinity;
  let last = clock();
  for (let reads = 0, seen = 0; seen < changes && reads < maxReads; reads++) {
    const now = clock();
    if (now !== last) {
      if (now > last) step = Math.min(step, now - last);
      last = now;
      seen += 1;
    }
  }
  return Number.isFinite(step) ? Number(step.toPrecision(3)) : null; // 0.0999999… of two readings: 0.1
}

/** How long a block must last by this clock: fifty of its steps, within [minBlockMs, maxBlockMs]. */
export function blockLength(step, settings = TIMING) {
  const want = (step ?? settings.minBlockMs) * settings.stepsPerBlock;
  return Math.min(settings.maxBlockMs, Math.max(settings.minBlockMs, want));
}

function clockError(calls, ms) {
  return new Error(`计时失败：重复 ${calls} 次前向，浏览器的时钟只走了 ${ms} ms，不够一段样本。` +
    "这个浏览器的计时器可能被关掉或放慢了；请换一个浏览器再试，或按“再测一次”。");
}

/** A clock too coarse to time blocks of a few ms (a browser's anti-fingerprinting setting), or one that stands. */
function coarseClockError(step) {
  return new Error(step === null ? "计时失败：浏览器的时钟（performance.now）不走，没法计时。请换一个浏览器再试。"
    : `计时失败：浏览器的计时精度只有 ${step} ms，太粗，几毫秒一段的样本测不准（可能开了防指纹的设置）。` +
      "请关掉这个设置或换一个浏览器再试。");
}

/** One kept block of fn(): calls grow until the block lasts at least minMs by the clock. → {calls, ms} */
function timedBlock(fn, calls, clock, minMs, settings) {
  for (;;) {
    const t0 = clock();
    for (let i = 0; i < calls; i++) fn();
    const ms = clock() - t0;
    if (ms >= minMs) return { calls, ms };
    if (calls >= settings.maxCalls) throw clockError(calls, ms);
    // aim a little above the bound, so that the next blocks (the machine's speed wanders) seldom fall short
    const guess = ms > 0 ? Math.ceil((calls * minMs * settings.aimAbove) / ms) : calls * 10;
    calls = Math.min(settings.maxCalls, Math.max(calls + 1, guess));
  }
}

/** A block's calls: its kind's size and up to half as many again, a different share each block (the golden ratio's
 * steps), so that the clock's steps fall at other places of each block: each sample's rounding differs, and the
 * samples' spread shows it, instead of every block rounding the same way. */
function dithered(size, index) {
  const share = ((index + 1) * 0.6180339887) % 1;
  return size + Math.floor(share * (size / 2 + 1));
}

/** The untimed pause between blocks (a timer tick in a worker; time not counted in any block). */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * The measuring phase. target and draft: Decoders (engine.mjs CheckedDecoder) of their own; context: token ids;
 * drafted: k token ids that follow it, for the verify. onRound({round, rounds}) after each round.
 * → {samples: [{target, draft, verify}] (ms per call), blocks: [{round, kind, calls, ms}], step, minBlockMs,
 *    positions, k, stopped: "rounds" | "budget", ms}
 */
export async function measureForwards({ target, draft, context, drafted, clock, pause, cancelled, onRound,
  settings = TIMING }) {
  const now = clock || (() => performance.now());
  const wait = pause || tick;
  const k = drafted.length;
  const verifying = context.concat(drafted);
  const calls = {
    target: () => target.probs(context, 1),
    draft: () => draft.probs(context, 1),
    verify: () => target.probs(verifying, k + 1),
  };
  const step = clockStep(now);
  if (step === null || step > settings.coarsestStepMs) throw coarseClockError(step);
  const minMs = blockLength(step, settings);
  for (const kind of KINDS) calls[kind](); // untimed: the first call of a decoder fills its cache (the prefill)
  const sizes = { target: 1, draft: 1, verify: 1 };
  const samples = [];
  const blocks = [];
  const start = now();
  let lastYield = start;
  let stopped = "rounds";
  for (let round = 0; round < settings.rounds; round++) {
    if (round >= settings.minRounds && now() - start >= settings.budgetMs) { stopped = "budget"; break; }
    const sample = {};
    for (const kind of rotated(KINDS, round)) {
      if (cancelled?.()) throw cancelledError();
      if (now() - lastYield >= settings.yieldEveryMs) {
        await wait();
        lastYield = now();
        if (cancelled?.()) throw cancelledError();
      }
      const want = dithered(sizes[kind], blocks.length);
      const block = timedBlock(calls[kind], want, now, minMs, settings);
      if (block.calls > want) sizes[kind] = block.calls; // it had to grow (the first blocks, or a faster machine)
      sample[kind] = block.ms / block.calls;
      blocks.push({ round, kind, ...block });
    }
    samples.push(sample);
    onRound?.({ round: round + 1, rounds: settings.rounds });
  }
  return { samples, blocks, step, minBlockMs: minMs, positions: context.length, k, stopped, ms: now() - start };
}

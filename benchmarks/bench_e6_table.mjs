// The tables benchmarks/bench_e6.mjs prints (in Node, and in Chromium through bench_e6_browser.py): its results as lines
// of text, beside the build machine's torch figures (precomputed/measured.json). No imports: the page fetches this file
// from the benchmark's own folder.

const num = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
export const fmt = (s) => (s ? `${num(s.median)} [${num(s.q1)}–${num(s.q3)}] (${num(s.min)}–${num(s.max)})` : "—");

function torchRow(measured, pick) {
  try {
    return pick(measured) ?? null;
  } catch {
    return null;
  }
}

// The results as lines of text: one column for this run, one for the build machine's torch figures (measured.json)
export function formatTable(results, where, measured) {
  const W = 40;
  const line = (label, mine, torch) => `${label.padEnd(30)}${mine.padEnd(W)}${torch}`.trimEnd();
  const t = (pick) => fmt(measured ? torchRow(measured, pick) : null);
  const m = results.method;
  const out = [
    `E6 in ${where}: ${m.repeats} repeats over ${m.jobs} prompt × seed runs, ${m.nNew} new tokens per run, ` +
      `context ${m.context}, ${m.calls} forwards per sample; ${m.seconds.toFixed(0)} s`,
    `median [q1–q3] (min–max) over ${results.v[0].n} forward samples and ${m.repeats} speedup samples (one per ` +
      "repeat: the repeat's pooled target-only ms per token ÷ the configuration's)",
    line("", where, measured ? `torch, build machine (${measured.machine.cpu}, ${measured.machine.threads} thread, ` +
      `${measured.machine.date_utc.slice(0, 10)})` : "torch: no precomputed/measured.json"),
    "ms per token (one new position, KV cache)",
  ];
  for (const name of [results.target, ...results.drafts]) {
    out.push(line(`  ${name}`, fmt(results.ms[name]), t((d) => d.models[name].ms_per_forward)));
  }
  out.push("c (draft ÷ target, per token)");
  for (const d of results.drafts) out.push(line(`  ${d}`, fmt(results.c[d]), t((x) => x.forward.c[d])));
  out.push("v(k) (target over k + 1 positions ÷ one)");
  for (const v of results.v) out.push(line(`  k = ${v.k}`, fmt(v), t((x) => x.forward.v.find((r) => r.k === v.k))));
  out.push("speedup, speculative ÷ target-only (T = 1)");
  for (const d of results.drafts) {
    for (const row of results.speedup[d]) {
      const torch = (x) => x.speedup.drafts[d].find((r) => r.k === row.k)?.speedup;
      out.push(line(`  ${d} k = ${row.k} model`, fmt(row.model), ""));
      out.push(line(`  ${"".padEnd(d.length)} k = ${row.k} end to end`, fmt(row.wall), t(torch)));
    }
  }
  out.push(`target-only ms per token, end to end: ${fmt(results.speedup[results.drafts[0]][0].targetOnlyMsPerToken)}`);
  const forward = results.ms[results.target].median, share = (ms) => `${(100 * ms / forward).toFixed(1)}% of the forward`;
  const base = results.targetOnlySamplerMsPerToken;
  out.push(`target-only decisions, one draw per token, each after a target forward: ${fmt(base)} ms per token ` +
    `(${share(base.median)})`);
  if (results.nopMs) {
    out.push("a call into Pyodide that does nothing, right after a forward (mean ms; the least a decision costs there): " +
      [results.target, ...results.drafts].map((name) => `${name} ${num(results.nopMs[name])} ` +
        `(${share(results.nopMs[name])})`).join(", "));
  }
  out.push("per configuration (k: α, tokens per target forward, sampler ms per round in Pyodide, " +
    "per token ÷ target ms):");
  for (const d of results.drafts) {
    out.push(`  ${d}: ` + results.speedup[d].map((r) => `${r.k}: ${r.alpha === null ? "—" : r.alpha.toFixed(2)}, ` +
      `${r.tokensPerTargetForward.toFixed(2)}, ${num(r.samplerMsPerRound.median)}, ${(100 * r.samplerMsPerRound.median /
        r.tokensPerTargetForward / results.ms[results.target].median).toFixed(1)}%`).join("; "));
  }
  return out;
}

// The two forwards side by side: each model's ms per token and the target's v(k), JavaScript | WebAssembly | ratio
export function formatSideBySide(results) {
  const { js, ms } = results, line = (label, a, b, r = "") => `${label.padEnd(30)}${a.padEnd(40)}${b.padEnd(40)}${r}`.trimEnd();
  return [`the two forwards side by side, interleaved (medians [q1–q3] (min–max) over ${js.v[0].n} samples each)`,
    line("", "JavaScript (model.mjs)", `WebAssembly, ${results.simd} SIMD`, "JS ÷ WebAssembly"), "  ms per token",
    ...[results.target, ...results.drafts].map((name) => line(`    ${name}`, fmt(js.ms[name]), fmt(ms[name]),
                                                               `${num(js.ms[name].median / ms[name].median)}×`)),
    `  v(k) of ${results.target}`, ...js.v.map((v, i) => line(`    v(${v.k})`, fmt(v), fmt(results.v[i])))];
}

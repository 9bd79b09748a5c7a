// E6's downloads (engine.mjs loads each file through them): a fetch that reports its bytes as they arrive, is
// aborted by the run's cancel and by itself when nothing arrives for a while, and the checks of what arrived — its
// size and its sha256 against what the build recorded (c13.json → browser.files) — with the reader's messages, in
// Chinese, naming the file and saying what to do.
import { cancelledError } from "./speculate.mjs";

const BYTES_EVERY_MS = 100;

// A download that receives nothing (no answer, no byte) for this long is aborted; the page may set it (stallMs).
export const STALL_MS = 45_000;

function stallError(file, ms) {
  const err = new Error(`${file} 下载停滞：${Math.round(ms / 1000)} 秒没有收到任何数据。网络可能中断了，或服务器没有响应；` +
    "这份下载已经中止，没有留下；按“开始”重试。");
  err.stalled = true;
  return err;
}

/** An ArrayBuffer from url, reporting onBytes(bytes, total) while it arrives (at most every BYTES_EVERY_MS, and
 * always the latest count once that interval ends: what is shown never lags behind what arrived). Aborted by
 * `signal` (the run's cancel), and by itself when nothing arrives for stallMs. */
export async function fetchBytes(fetchFn, url, file, total, onBytes, { signal, stallMs = STALL_MS } = {}) {
  const controller = new AbortController();
  let why = null; // the reason this download was aborted: the run's cancel, or a stall
  const abort = (err) => { if (!why) { why = err; controller.abort(); } };
  const onCancel = () => abort(signal.reason ?? cancelledError());
  if (signal?.aborted) throw signal.reason ?? cancelledError();
  signal?.addEventListener("abort", onCancel);
  let watchdog = null;
  const feed = () => { clearTimeout(watchdog); watchdog = setTimeout(() => abort(stallError(file, stallMs)), stallMs); };
  let got = 0;
  let last = 0;
  let trailing = null;
  const report = () => { clearTimeout(trailing); trailing = null; last = performance.now(); onBytes(got, size); };
  let size = total || null;
  feed();
  try {
    let response;
    try {
      response = await fetchFn(url, { signal: controller.signal });
    } catch (err) {
      if (why) throw why;
      throw new Error(`${file} 下载失败（${err?.message || err}）。网络可能中断了，可以按“开始”重试。`);
    }
    if (!response.ok) {
      throw new Error(`${file} 下载失败（HTTP ${response.status}）。站点可能没有完整构建：请在项目目录执行 make site 后重试。`);
    }
    size = total || Number(response.headers.get("Content-Length")) || null;
    if (!response.body) {
      const buffer = await response.arrayBuffer();
      got = buffer.byteLength;
      report();
      return buffer;
    }
    const reader = response.body.getReader();
    const chunks = [];
    for (;;) {
      let step;
      try {
        step = await reader.read();
      } catch (err) {
        if (why) throw why;
        throw new Error(`${file} 下载中断（已收到 ${got} 字节${size ? `，共 ${size} 字节` : ""}）：连接断了。` +
          "网络可能中断了，可以按“开始”重试。");
      }
      if (step.done) break;
      feed();
      chunks.push(step.value);
      got += step.value.byteLength;
      if (performance.now() - last >= BYTES_EVERY_MS) report();
      else trailing ??= setTimeout(report, BYTES_EVERY_MS);
    }
    if (why) throw why;
    report();
    const out = new Uint8Array(got);
    let at = 0;
    for (const chunk of chunks) { out.set(chunk, at); at += chunk.byteLength; }
    return out.buffer;
  } finally {
    clearTimeout(watchdog);
    clearTimeout(trailing);
    signal?.removeEventListener("abort", onCancel);
  }
}

/** The bytes' sha256 in hex: Web Crypto where the page is a secure context (localhost, or a TLS host), else sha256.mjs. */
export async function sha256Hex(buffer) {
  const subtle = globalThis.crypto?.subtle;
  if (subtle) {
    const digest = new Uint8Array(await subtle.digest("SHA-256", buffer));
    return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  const { sha256 } = await import("./sha256.mjs");
  return sha256(new Uint8Array(buffer));
}

/** A download whose bytes are not the ones the build recorded (c13.json → browser.files): nothing is parsed. */
export function mismatchError(file) {
  return new Error(`${file} 的内容和构建时记录的不一样（sha256 不符）：文件在传输中损坏了，或者站点上的文件被换过。` +
    "这份下载没有留下；按“开始”会重新下载它。如果仍然不符，请在项目目录执行 make site 重新构建站点。");
}

/** A download shorter (or longer) than the file the build wrote. */
export function incompleteError(file, got, size) {
  return new Error(`${file} 不完整：只收到 ${got} 字节，应当是 ${size} 字节（下载被截断了，或站点上的文件不完整）。` +
    "这份下载没有留下；按“开始”会重新下载它。如果仍然不完整，请在项目目录执行 make site 重新构建站点。");
}

/** Bytes that do not parse as the file they should be (a corrupt header, a broken JSON): the parser's reason kept
 * in brackets, for whoever debugs it. */
export function unreadableError(file, err) {
  const what = file.endsWith(".json") ? "分词器文件" : "模型文件（safetensors）";
  return new Error(`${file} 读不出来：它不是一个完好的${what}（${err?.message || err}）。文件可能在传输中损坏，或站点上的文件` +
    "不完整；这份下载没有留下，按“开始”会重新下载。如果仍然出错，请在项目目录执行 make site 重新构建站点。");
}

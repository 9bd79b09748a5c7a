// The lesson's byte-level BPE in the browser: reads models/tokenizer.json (written by the `tokenizers` library,
// generator/models/tokenizer.py) and encodes exactly as that library does. Text is split into words with GPT-2's
// regex; each word starts as one token per UTF-8 byte, and the merges are applied by rank within the word.
// decode() is the UTF-8 of the tokens' bytes; label() is generator/models/tokenizer.py's label(). No dependencies;
// runs in browsers and in Node 20.

// GPT-2's split, as the library writes it, with its \s spelled \p{White_Space}: that is what Oniguruma's \s
// matches there (U+0085 in, U+FEFF out), unlike JS's \s.
const WORDS =
  /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\p{White_Space}\p{L}\p{N}]+|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}+/gu;
const CACHE_LIMIT = 10000; // words kept encoded (the library keeps as many)
const SHOWN = { "\n": "⏎", " ": "␠", "\t": "⇥", "\r": "␍" };
const HIDDEN = /^[\p{C}\p{Z}]$/u; // what Python's str.isprintable() rejects (the space aside, shown as ␠ above)

/** Byte-level BPE's table, byte → the character that stands for it (GPT-2's bytes_to_unicode): printable Latin-1
 * bytes stand for themselves, the other 68 for U+0100, U+0101, … in order. */
function byteChars() {
  let extra = 0;
  const kept = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || b >= 0xae;
  return Array.from({ length: 256 }, (_, b) => String.fromCharCode(kept(b) ? b : 256 + extra++));
}
const BYTE_CHAR = byteChars();
const CHAR_BYTE = new Map(BYTE_CHAR.map((ch, b) => [ch, b]));

/** The UTF-8 bytes of a string, a lone surrogate as U+FFFD (what TextEncoder does, without its per-call cost). */
function utf8(text) {
  const out = [];
  for (const ch of text) {
    let c = ch.codePointAt(0);
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

const fail = (what) => {
  throw new Error(`tokenizer.json: ${what}`);
};

/** Refuse any option this encoder would not reproduce exactly; return the pre-tokenizer's settings. */
function checkOptions(obj) {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) fail("not a JSON object");
  const model = obj.model;
  if (!model || model.type !== "BPE") fail(`model.type is ${JSON.stringify(model?.type)}, expected "BPE"`);
  if (obj.normalizer != null) fail(`normalizer ${JSON.stringify(obj.normalizer.type)} is not supported (expected null)`);
  for (const key of ["truncation", "padding"]) if (obj[key] != null) fail(`${key} is set: expected null`);
  if (obj.added_tokens?.length) fail(`added_tokens are not supported (${obj.added_tokens.length} given)`);
  const post = obj.post_processor;
  if (post != null && post.type !== "ByteLevel") fail(`post_processor ${JSON.stringify(post.type)} is not supported`);
  const pre = obj.pre_tokenizer;
  if (!pre || pre.type !== "ByteLevel") fail(`pre_tokenizer.type is ${JSON.stringify(pre?.type)}, expected "ByteLevel"`);
  if (model.dropout) fail(`model.dropout ${model.dropout} is not supported (encoding would be random)`);
  for (const key of ["continuing_subword_prefix", "end_of_word_suffix"]) {
    if (model[key]) fail(`model.${key} ${JSON.stringify(model[key])} is not supported`);
  }
  return { addPrefixSpace: pre.add_prefix_space === true, useRegex: pre.use_regex !== false };
}

/** The vocabulary: a Map piece → id, and each id's bytes; every id 0…n−1 once, every single byte present. */
function readVocab(vocab) {
  if (!vocab || typeof vocab !== "object" || Array.isArray(vocab)) fail("model.vocab is missing or not an object");
  const ids = new Map(Object.entries(vocab));
  const missing = BYTE_CHAR.findIndex((ch) => !ids.has(ch));
  if (missing >= 0) fail(`model.vocab has no token for byte ${missing} (${JSON.stringify(BYTE_CHAR[missing])})`);
  const bytes = new Array(ids.size);
  for (const [piece, id] of ids) {
    if (!Number.isInteger(id) || id < 0 || id >= ids.size) {
      fail(`model.vocab: id ${id} of ${JSON.stringify(piece)} is not in 0…${ids.size - 1}`);
    }
    if (bytes[id] !== undefined) fail(`model.vocab: id ${id} is given twice`);
    for (const ch of piece) if (!CHAR_BYTE.has(ch)) fail(`model.vocab: ${JSON.stringify(piece)} is not byte-level`);
    bytes[id] = Uint8Array.from(piece, (ch) => CHAR_BYTE.get(ch));
  }
  return { ids, bytes };
}

/** The merges by rank: a Map from the pair's key (left id · vocabulary size + right id) to its rank, and the id each
 * rank makes. Pairs, or the older "left right" strings; a repeated pair keeps its first rank, as the library does. */
function readMerges(merges, ids) {
  if (!Array.isArray(merges)) fail("model.merges is missing or not a list");
  const ranks = new Map();
  const made = new Int32Array(merges.length);
  merges.forEach((m, rank) => {
    const pair = typeof m === "string" ? m.split(" ") : m;
    if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((p) => typeof p === "string")) {
      fail(`model.merges[${rank}] is ${JSON.stringify(m)}, not a pair of strings`);
    }
    for (const piece of [...pair, pair[0] + pair[1]]) {
      if (!ids.has(piece)) fail(`model.merges[${rank}]: ${JSON.stringify(piece)} is not in the vocabulary`);
    }
    const key = ids.get(pair[0]) * ids.size + ids.get(pair[1]);
    if (!ranks.has(key)) ranks.set(key, rank);
    made[rank] = ids.get(pair[0] + pair[1]);
  });
  return { ranks, made };
}

export class BPETokenizer {
  constructor({ ids, bytes, ranks, made, addPrefixSpace = false, useRegex = true, ignoreMerges = false }) {
    Object.assign(this, { ids, bytes, ranks, made, addPrefixSpace, useRegex, ignoreMerges });
    this.byteIds = BYTE_CHAR.map((ch) => ids.get(ch));
    this.cache = new Map();
    this.labels = new Array(bytes.length);
  }

  /** Build from the parsed tokenizer.json; throws an Error naming what is wrong with it. */
  static fromJSON(obj) {
    const options = checkOptions(obj);
    const { ids, bytes } = readVocab(obj.model.vocab);
    const { ranks, made } = readMerges(obj.model.merges, ids);
    return new BPETokenizer({ ids, bytes, ranks, made, ...options, ignoreMerges: obj.model.ignore_merges === true });
  }

  get vocabSize() {
    return this.bytes.length;
  }

  encode(text) {
    const out = [];
    for (const word of this.words(text)) for (const id of this.encodeWord(word)) out.push(id);
    return out;
  }

  /** The pre-tokenizer's split: the words that merges stay within. */
  words(text) {
    if (this.addPrefixSpace && text && !text.startsWith(" ")) text = " " + text;
    return this.useRegex ? text.match(WORDS) ?? [] : text ? [text] : [];
  }

  /** One word's ids (cached): one token per UTF-8 byte, merged by rank; with ignore_merges, a word that is itself
   * in the vocabulary is that one token. */
  encodeWord(word) {
    let out = this.cache.get(word);
    if (out) return out;
    const bytes = utf8(word);
    const whole = this.ignoreMerges ? bytes.map((b) => BYTE_CHAR[b]).join("") : null;
    out = this.ids.has(whole) ? [this.ids.get(whole)] : this.merge(bytes.map((b) => this.byteIds[b]));
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(word, out);
    return out;
  }

  /** Merge the adjacent pair of lowest rank (the leftmost of equals) until no pair has a rank: the library's order. */
  merge(parts) {
    const rankAt = (i) => this.ranks.get(parts[i] * this.bytes.length + parts[i + 1]) ?? Infinity;
    const ranks = parts.slice(1).map((_, i) => rankAt(i)); // ranks[i]: the pair parts[i], parts[i + 1]
    for (;;) {
      const best = ranks.reduce((a, b) => Math.min(a, b), Infinity);
      if (best === Infinity) return parts;
      const at = ranks.indexOf(best);
      parts.splice(at, 2, this.made[best]);
      ranks.splice(at, 1);
      if (at > 0) ranks[at - 1] = rankAt(at - 1);
      if (at < ranks.length) ranks[at] = rankAt(at);
    }
  }

  /** A token's bytes (a copy: the tokenizer keeps its own). */
  bytesOf(id) {
    return this.#bytesOf(id).slice();
  }

  #bytesOf(id) {
    if (this.bytes[id] === undefined) throw new RangeError(`token id ${id} is not in 0…${this.bytes.length - 1}`);
    return this.bytes[id];
  }

  /** The UTF-8 text of the tokens' bytes; malformed sequences (a character cut between tokens) read as U+FFFD. */
  decode(ids) {
    const parts = ids.map((id) => this.#bytesOf(id));
    const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    return new TextDecoder("utf-8", { ignoreBOM: true }).decode(all);
  }

  label(id) {
    return (this.labels[id] ??= label(this.#bytesOf(id)));
  }
}

// fatal: a byte that starts no whole character throws; ignoreBOM: U+FEFF is a character, as in Python
const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const hex = (n, digits = 2) => n.toString(16).toUpperCase().padStart(digits, "0");

/** The character that starts at bytes[i] and its width, or null when no valid UTF-8 character starts there. */
function charAt(bytes, i) {
  for (let width = 1; width <= 4 && i + width <= bytes.length; width++) {
    try {
      return [STRICT.decode(bytes.subarray(i, i + width)), width];
    } catch {
      // not a whole character yet: try one byte more
    }
  }
  return null;
}

/** A readable label for a token's bytes: whole UTF-8 characters as text, other bytes as ‹hex›, consecutive ones
 * grouped; whitespace and control characters made visible (generator/models/tokenizer.py's label()). */
export function label(bytes) {
  let out = "";
  let hexes = [];
  for (let i = 0; i < bytes.length; ) {
    const found = charAt(bytes, i);
    if (!found) {
      hexes.push(hex(bytes[i]));
      i += 1;
      continue;
    }
    if (hexes.length) out += "‹" + hexes.join(" ") + "›";
    hexes = [];
    const [ch, width] = found;
    out += SHOWN[ch] ?? (HIDDEN.test(ch) ? `‹U+${hex(ch.codePointAt(0), 4)}›` : ch);
    i += width;
  }
  return hexes.length ? out + "‹" + hexes.join(" ") + "›" : out;
}

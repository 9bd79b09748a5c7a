// Reading safetensors files in the browser and in Node: the header, each tensor's bytes checked against its
// dtype and shape, float16 converted to float32 (every bit pattern: subnormals, ±inf and NaN included).
// Used by widgets/e6/model.mjs (and through it by every E6 forward).

const DTYPE_BYTES = { F16: 2, F32: 4 };
let halfTable = null;

// float16 bit pattern → float32 value: all 65,536 of them, computed once (subnormals, ±inf and NaN included)
function halfToFloat() {
  if (halfTable) return halfTable;
  halfTable = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 31, mant = h & 1023;
    if (exp === 0) halfTable[h] = sign * mant * 2 ** -24;
    else if (exp === 31) halfTable[h] = mant ? NaN : sign * Infinity;
    else halfTable[h] = sign * (1 + mant / 1024) * 2 ** (exp - 15);
  }
  return halfTable;
}

function parseHeader(buffer) {
  if (!(buffer instanceof ArrayBuffer)) throw new TypeError("readSafetensors expects an ArrayBuffer");
  if (buffer.byteLength < 8) throw new Error(`safetensors: truncated file (${buffer.byteLength} bytes, no header length)`);
  const length = Number(new DataView(buffer).getBigUint64(0, true));
  if (8 + length > buffer.byteLength) {
    throw new Error(`safetensors: truncated file: the header needs ${8 + length} bytes, the file has ${buffer.byteLength}`);
  }
  let header;
  try {
    header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(buffer, 8, length)));
  } catch (err) {
    throw new Error(`safetensors: bad header (not JSON: ${err.message})`);
  }
  if (header === null || typeof header !== "object" || Array.isArray(header)) {
    throw new Error("safetensors: bad header (not a JSON object)");
  }
  return { header, start: 8 + length };
}

function readTensor(buffer, start, name, info) {
  const bad = (why) => new Error(`safetensors: tensor ${name}: ${why}`);
  if (!info || typeof info !== "object") throw bad("bad header entry");
  const { dtype, shape, data_offsets: offsets } = info;
  if (!(dtype in DTYPE_BYTES)) throw bad(`dtype ${dtype} is not supported (F16 or F32)`);
  if (!Array.isArray(shape) || !shape.every((n) => Number.isInteger(n) && n >= 0)) throw bad("bad shape");
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(Number.isInteger)) throw bad("bad data_offsets");
  const count = shape.reduce((a, b) => a * b, 1), [begin, end] = offsets;
  if (end - begin !== count * DTYPE_BYTES[dtype] || begin < 0) {
    throw bad(`data_offsets [${begin}, ${end}] do not hold ${count} ${dtype} values of shape [${shape}]`);
  }
  if (start + end > buffer.byteLength) {
    throw bad(`truncated file: the data ends at byte ${start + end}, the file has ${buffer.byteLength}`);
  }
  const bytes = buffer.slice(start + begin, start + end);  // a copy: aligned, and independent of the download
  if (dtype === "F32") return { shape, data: new Float32Array(bytes) };
  const half = new Uint16Array(bytes), table = halfToFloat(), data = new Float32Array(count);
  for (let i = 0; i < count; i++) data[i] = table[half[i]];
  return { shape, data };
}

// safetensors bytes → {metadata, tensors: {name: {shape, data: Float32Array}}}; F16 and F32 (little-endian).
export function readSafetensors(buffer) {
  const { header, start } = parseHeader(buffer);
  const metadata = header.__metadata__ ?? {};
  const tensors = {};
  for (const [name, info] of Object.entries(header)) {
    if (name !== "__metadata__") tensors[name] = readTensor(buffer, start, name, info);
  }
  return { metadata, tensors };
}

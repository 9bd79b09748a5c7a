// Node driver for tests/widgets/test_e6_tokenizer.py: runs widgets/e6/tokenizer.mjs on one JSON job and prints one
// JSON answer.
//   node tests/widgets/node/e6_tokenize.mjs JOB.json      (or the job on stdin)
// job: {"tokenizer": path to tokenizer.json, "texts": [...], "words": true, "decodeIds": [[id, ...], ...],
//       "labels": true, "labelBytes": [[byte, ...], ...], "malformed": [tokenizer objects]}
// answer: {"ids": [[...] per text], "decoded": [...], "words": [[...] per text], "decodedIds": [...], "encodeMs",
//          "labels": [label(id) for every id], "vocabSize", "byteLabels": [label(bytes) per labelBytes],
//          "errors": [the Error message fromJSON throws per malformed object, or null when it does not throw]}
import { readFileSync } from "node:fs";
import { BPETokenizer, label } from "../../../widgets/e6/tokenizer.mjs";

const job = JSON.parse(readFileSync(process.argv[2] ?? 0, "utf8"));
const answer = {};
if (job.tokenizer) {
  const tok = BPETokenizer.fromJSON(JSON.parse(readFileSync(job.tokenizer, "utf8")));
  answer.vocabSize = tok.vocabSize;
  const started = performance.now();
  answer.ids = (job.texts ?? []).map((text) => tok.encode(text));
  answer.encodeMs = performance.now() - started;
  answer.decoded = answer.ids.map((ids) => tok.decode(ids));
  if (job.words) answer.words = job.texts.map((text) => tok.words(text));
  answer.decodedIds = (job.decodeIds ?? []).map((ids) => tok.decode(ids));
  if (job.labels) answer.labels = Array.from({ length: tok.vocabSize }, (_, id) => tok.label(id));
}
answer.byteLabels = (job.labelBytes ?? []).map((bytes) => label(Uint8Array.from(bytes)));
answer.errors = (job.malformed ?? []).map((obj) => {
  try {
    BPETokenizer.fromJSON(obj);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : `threw a non-Error: ${String(e)}`;
  }
});
process.stdout.write(JSON.stringify(answer));

"""E6's plain-JavaScript SHA-256 (widgets/e6/sha256.mjs, used where Web Crypto is missing) agrees with hashlib on
the lengths where the padding changes (55, 56, 63, 64, 65 bytes), on empty input and on a model-sized file."""
import hashlib
import json
import random
import subprocess

from tests.conftest import ROOT

SCRIPT = """
import { readFileSync } from "node:fs";
import { sha256 } from "%s";
const inputs = JSON.parse(readFileSync(0, "utf8"));
const big = new Uint8Array(3_000_017);
for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
console.log(JSON.stringify([...inputs.map((hex) => sha256(Uint8Array.from(Buffer.from(hex, "hex")))), sha256(big)]));
"""


def test_the_fallback_sha256_agrees_with_hashlib():
    rng = random.Random(13)
    inputs = [bytes(rng.randrange(256) for _ in range(n)) for n in (0, 1, 3, 55, 56, 63, 64, 65, 119, 1000)]
    big = bytes(((i * 2654435761) & 0xFFFFFFFF) >> 24 for i in range(3_000_017))
    module = (ROOT / "widgets" / "e6" / "sha256.mjs").as_uri()
    run = subprocess.run(["node", "--input-type=module", "-e", SCRIPT % module], input=json.dumps(
        [b.hex() for b in inputs]), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [hashlib.sha256(b).hexdigest() for b in inputs + [big]]

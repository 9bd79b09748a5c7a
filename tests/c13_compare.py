"""Two c13.json made from the same inputs, compared field by field: what "the same data on any machine" allows.

The data stage pins its CPU kernels (generator/data/kernels.py), and on the machines we know that gives the same
bytes. Where a CPU takes another path all the same (MKL's AVX2 code differs between vendors), the bits of a
float may differ and nothing else may: every key, length, string, whole number and boolean (every decision,
token and count) is identical, and every float lies within FLOAT_BOUND of the other, relatively: every float, a
rounded one too (the data stage computes every figure in float64, so none comes from a float32 computation that
could move its last stored digit). What the pages print is compared apart (tests/data/test_same_bytes.py builds both).
"""
import math

FLOAT_BOUND = 1e-12        # float64 kernels that sum in another order differ by ~1e-14 here (measured: 7e-15)
IGNORED = {"digest"}       # the seal of the content: differs whenever a bit does


def differences(new, old, where="", limit=20):
    """The fields where new and old differ more than allowed, as 'field: what' lines (at most limit of them)."""
    out = []
    _walk(new, old, where, out, limit)
    return out


def _walk(new, old, where, out, limit):
    if len(out) >= limit:
        return
    if isinstance(new, dict) and isinstance(old, dict):
        for key in sorted(set(new) | set(old)):
            field = f"{where}.{key}" if where else key
            if field in IGNORED:
                continue
            if key not in new or key not in old:
                out.append(f"{field}: only in the {'old' if key not in new else 'new'} file")
                continue
            _walk(new[key], old[key], field, out, limit)
    elif isinstance(new, list) and isinstance(old, list):
        if len(new) != len(old):
            out.append(f"{where}: {len(new)} entries, was {len(old)}")
            return
        for i, (a, b) in enumerate(zip(new, old)):
            _walk(a, b, f"{where}[{i}]", out, limit)
    elif isinstance(new, float) and isinstance(old, float):
        if not _close(new, old):
            out.append(f"{where}: {new!r}, was {old!r} (beyond the allowed difference)")
    elif type(new) is not type(old) or new != old:
        out.append(f"{where}: {new!r}, was {old!r}")


def _close(a, b):
    if a == b:
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return abs(a - b) <= FLOAT_BOUND * max(abs(a), abs(b))

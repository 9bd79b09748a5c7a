"""Two c13.json made from the same inputs, compared field by field: what "the same data on any machine" allows.

The data stage pins its CPU kernels (generator/data/kernels.py), and on the machines we know that gives the same
bytes. Where a CPU takes another path all the same (MKL's AVX2 code differs between vendors), the bits of a
float may differ and nothing else may: every key, length, string, whole number and boolean (every decision,
token and count) is identical, and every float lies within FLOAT_BOUND of the other, relatively. A float that
the data stage rounds to DIGITS significant digits from a float32 computation (ROUNDED_FLOAT32) may move by one
unit in its last digit. What the pages print is compared apart (tests/test_same_bytes.py builds both).
"""
import math

FLOAT_BOUND = 1e-12        # float64 kernels that sum in another order differ by ~1e-14 here (measured: 7e-15)
ROUNDED_FLOAT32 = {"browser.float16_error.max_abs_dp": 4}   # field: significant digits it is stored with
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
        if not _close(new, old, _plain(where)):
            out.append(f"{where}: {new!r}, was {old!r} (beyond the allowed difference)")
    elif type(new) is not type(old) or new != old:
        out.append(f"{where}: {new!r}, was {old!r}")


def _plain(field):
    """The field without its list indices: accounting.drafts.x.rows[3].alpha → accounting.drafts.x.rows.alpha."""
    return "".join(part.split("[")[0] for part in field.split("]"))


def _close(a, b, field):
    if a == b:
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    if field in ROUNDED_FLOAT32:  # one unit in the last stored digit
        unit = 10 ** (math.floor(math.log10(max(abs(a), abs(b)))) - ROUNDED_FLOAT32[field] + 1)
        return abs(a - b) <= unit * (1 + 1e-9)
    return abs(a - b) <= FLOAT_BOUND * max(abs(a), abs(b))

"""The site's named number formats, registered as Jinja filters (generator/pages/templates.py).

Every figure printed in the prose goes through one of these, so a percentage, a speedup or a count looks the
same everywhere; each function has the name of its filter. The figures drawn in SVG use
widgets/figures/formats.mjs, which follows the same rules; tests/pages/test_formats_parity.py runs both over one
table of values.
"""
import math

from markupsafe import Markup


def _number(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{what}: expected a finite number, got {value!r}")
    return value


def pct(value, digits=1):
    """A fraction as a percentage: 0.5672 → '56.7%'."""
    return f"{_number(value, 'pct') * 100:.{digits}f}%"


def times(value, digits=2):
    """Our speedup or yield ratio: 1.5 → '1.50×'."""
    return f"{_number(value, 'times'):.{digits}f}×"


def times_as_reported(value):
    """A ratio as its source reported it (no digits added): 3.4 → '3.4×'."""
    return f"{_number(value, 'times_as_reported'):g}×"


# What a speed figure is, once for the page and the widgets (widgets/figures/formats.mjs SPEED_KINDS): the lesson's
# formula (v = 1), the formula with measured costs, a measured wall clock, or a paper's own report.
SPEED_KINDS = {
    "formula": "课上的公式（v = 1）",
    "formula-measured": "公式代入实测的 c 和 v(k)",
    "wall-clock": "实测墙钟",
    "reported": "作者自报，未经我们复现",
}

C_PARAMS = "c = 参数比"  # where a formula speed with c taken as the parameter ratio comes from (its title)
C_PARAMS_N = "c = 参数比，代入这个 k 实测的 N"  # the same formula with one k's measured N put in


def speed(text, kind, where=None):
    """A speed figure, already formatted (times, times_as_reported, a range), marked with what it is: its kind as
    data-kind and, as its title, the kind in words and where it comes from (machine, engine, date; or c = 参数比)."""
    if kind not in SPEED_KINDS:
        raise ValueError(f"speed: unknown kind {kind!r}; expected one of {', '.join(SPEED_KINDS)}")
    title = SPEED_KINDS[kind] + (f"：{where}" if where else "")
    return Markup('<span class="c13-speed" data-kind="{}" title="{}">{}</span>').format(kind, title, text)


def reported_speed(fig, work):
    """A paper's figure of c13.json → papers as a speed it reported itself: its speedup, or its range low–high."""
    text = (times_as_reported(fig["speedup"]) if "speedup" in fig
            else f"{as_written(fig['low'])}–{times_as_reported(fig['high'])}")
    return speed(text, "reported", work)


def as_written(value):
    """A number as its source wrote it: 2.0 → '2', 0.85 → '0.85'."""
    return f"{_number(value, 'as_written'):g}"


def num(value, digits=0):
    """Thousands separators: 3688704 → '3,688,704'."""
    value = _number(value, "num")
    if digits == 0 and float(value) != round(value):
        raise ValueError(f"num: {value!r} is not a whole number; give digits")
    return f"{value:,.{digits}f}"


def fixed(value, digits=2):
    return f"{_number(value, 'fixed'):.{digits}f}"


def fixed2(value):
    return fixed(value, 2)


def fixed3(value):
    return fixed(value, 3)


def fixed4(value):
    return fixed(value, 4)


def sig(value, digits=2):
    """Fixed decimals showing `digits` significant digits: 0.05183 → '0.052', 0.2591 → '0.26', 15.3 → '15.30'."""
    value = _number(value, "sig")
    if value == 0:
        return "0"
    if abs(value) >= 1:
        return f"{value:.2f}"
    decimals = digits - 1 - math.floor(math.log10(abs(value)))
    return f"{value:.{decimals}f}"


def prob(value):
    """A probability, readable when small: 0.1234 → '12.3%', 0.0015 → '0.15%', 0.000042 → '0.0042%'."""
    value = _number(value, "prob")
    if value >= 0.01 or value == 0:
        return f"{value * 100:.1f}%"
    return f"{sig(value * 100)}%"


def ms(value):
    """Milliseconds: 0.05183 → '0.052 ms', 15.3015 → '15.30 ms'."""
    return f"{sig(value)} ms"


def frac(value):
    """A ratio below 1 as '≈ 1/n': 0.0901 → '≈ 1/11', 0.289 → '≈ 1/3.5'."""
    value = _number(value, "frac")
    if not 0 < value <= 1:
        raise ValueError(f"frac: expected a ratio in (0, 1], got {value!r}")
    inverse = 1 / value
    text = f"{round(inverse)}" if inverse >= 10 else f"{inverse:.1f}".removesuffix(".0")
    return f"≈ 1/{text}"


def gb(value):
    """Bytes in decimal gigabytes: 51260000000 → '51.26 GB'."""
    return f"{_number(value, 'gb') / 1e9:.2f} GB"


def gflop(value):
    return f"{_number(value, 'gflop') / 1e9:.2f} GFLOP"


def _significant(value, digits):
    """`digits` significant digits but never fewer than the whole part, no trailing zeros: 1234.56 → '1235'."""
    whole_digits = math.floor(math.log10(abs(value))) + 1
    text = f"{value:.{max(0, digits - whole_digits)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def chinese_units(value):
    """A large count in Chinese units: 25630000000 → '256.3 亿', 332352 → '33.2 万', 12345678 → '1235 万'."""
    value = _number(value, "chinese_units")
    if abs(value) >= 1e8:
        return f"{_significant(value / 1e8, 4)} 亿"
    if abs(value) >= 1e4:
        return f"{_significant(value / 1e4, 3)} 万"
    return num(value)


def mb(value):
    return f"{_number(value, 'mb'):.0f} MB"


def mib(value):
    return f"{_number(value, 'mib'):.0f} MiB"


def short(digest, length=12):
    """The first characters of a sha256, enough to tell versions apart."""
    if not isinstance(digest, str) or len(digest) < length:
        raise ValueError(f"short: expected a hash string, got {digest!r}")
    return digest[:length]


FORMATS = {"pct": pct, "prob": prob, "times": times, "times_as_reported": times_as_reported,
           "as_written": as_written, "num": num, "fixed": fixed, "fixed2": fixed2, "fixed3": fixed3,
           "fixed4": fixed4, "sig": sig, "ms": ms, "frac": frac, "gb": gb, "gflop": gflop,
           "chinese_units": chinese_units, "mb": mb, "mib": mib, "short": short, "speed": speed}

"""The named number formats, the encoded probabilities of the widget data, token labels as text."""
import html

import pytest

from generator.pages import formats
from generator.pages.templates import md_text
from generator.pages.widget_payload import decode_probs, encode_probs


def test_named_formats():
    assert formats.pct(0.5672) == "56.7%"
    assert formats.times(1.5) == "1.50×"
    assert formats.times_as_reported(3.4) == "3.4×"
    assert formats.num(3688704) == "3,688,704"
    assert formats.frac(332352 / 3688704) == "≈ 1/11"
    assert formats.frac(1066112 / 3688704) == "≈ 1/3.5"
    assert formats.ms(0.05183) == "0.052 ms" and formats.ms(15.3015) == "15.30 ms" and formats.ms(0.2591) == "0.26 ms"
    assert formats.fixed2(2.404) == "2.40" and formats.fixed4(0.165906) == "0.1659"
    assert formats.prob(0.0015) == "0.15%" and formats.prob(0.1234) == "12.3%"
    assert formats.chinese_units(25630000000) == "256.3 亿"
    with pytest.raises(ValueError):
        formats.num(1.5)
    with pytest.raises(ValueError):
        formats.pct(None)


def test_encoded_probabilities_round_trip_exactly():
    values = [0.0, 1.0, 0.5, 0.0004423, 1.234e-12, 3.5e-60, 0.1, 0.9999, 2e-5]
    encoded = encode_probs(values)
    assert decode_probs(encoded) == values
    assert encode_probs([0.0004423]) == "4423h"


def test_token_labels_are_inserted_as_text():
    ctx_tok = md_text("<b>*x*</b>|$\\(")
    assert "<" not in ctx_tok and "*" not in ctx_tok and "|" not in ctx_tok and "$" not in ctx_tok
    assert html.unescape(ctx_tok) == "<b>*x*</b>|$\\("

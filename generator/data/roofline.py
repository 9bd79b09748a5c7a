"""Roofline lower bounds of one decode step of the anchor model at batch 1, from anchor-model.json.

Both times are lower bounds: the compute bound assumes every multiply-add at peak dense BF16 throughput,
the weight-read bound assumes every weight byte streams once at peak HBM bandwidth. The file itself is read
and checked by generator/contract.py (load_anchor).
"""


def roofline(anchor, positions):
    """The anchor's lower bounds, and those of one forward over `positions` positions (the lesson's k + 1: the
    drafts of one round and the bonus position, verified together)."""
    m, hw, a = anchor["model"], anchor["hardware"], anchor["assumptions"]
    bytes_per_token = m["params_read_per_token"] * m["bytes_per_param"]
    flops_per_position = a["flops_per_param_per_position"] * m["params_read_per_token"]
    k1 = positions
    compute_ms = flops_per_position / hw["peak_bf16_dense_flops"] * 1e3
    read_ms = bytes_per_token / hw["hbm_bandwidth_bytes_per_s"] * 1e3
    return {
        "model": m["name"], "hardware": hw["name"], "vocab_size": m["vocab_size"],
        "params_read_per_token": m["params_read_per_token"],
        "bytes_read_per_token": bytes_per_token,
        "flops_per_position": flops_per_position,
        "compute_ms_per_token": compute_ms,
        "weight_read_ms_per_token": read_ms,
        "positions_verified": k1,
        "compute_ms_for_positions": compute_ms * k1,
        "read_over_compute": read_ms / compute_ms,
        "arithmetic_intensity_flops_per_byte": flops_per_position / bytes_per_token,
        "ridge_flops_per_byte": hw["peak_bf16_dense_flops"] / hw["hbm_bandwidth_bytes_per_s"],
        "linear_attention_state_bytes": m["linear_attention_state_bytes_per_request"],
        "linear_attention_state_mib": m["linear_attention_state_bytes_per_request"] / 2**20,
        "linear_attention_state_mb": m["linear_attention_state_bytes_per_request"] / 1e6,
    }

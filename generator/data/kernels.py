"""The CPU kernels the data stage runs on, pinned so that c13.json has the same bytes on any x86-64 machine.

PyTorch picks its kernels for the CPU it finds: ATen's vectorised loops (softmax, LayerNorm, GELU, attention),
MKL's matrix products and oneDNN's, each in an AVX2 and an AVX-512 flavour that sum in different orders. The
two agree to ~1e-15 but not bit for bit, and c13.json stores float64 probabilities to their last bit, so a
machine with AVX-512 wrote other bytes than one without. The data stage therefore asks all three for their
AVX2 code, which every x86-64 CPU of the last decade has, through their environment variables, set here before
torch is imported (they are read once, when torch loads) and inherited by the worker process, which is spawned
after. A value the caller set is overridden: the point is that nothing outside the data stage can change its
bytes. Threads are pinned too (torch.set_num_threads(1) in both processes), so load and core count cannot either.

A CPU without AVX2 falls back to the plain kernels; ARM has none of these and is not covered. MKL may still take
other AVX2 paths on other vendors' CPUs (its bit-for-bit mode, MKL_CBWR, holds only across Intel's and costs 30%
here in its vendor-neutral form), so the tests also compare a regeneration field by field within a stated bound.
Torch-free: importing this module never loads torch.
"""
import os
import sys

PINNED = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
# what torch.backends.cpu.get_cpu_capability() may report once pinned: AVX2, or less on an older CPU
ALLOWED_CAPABILITIES = ("AVX2", "DEFAULT")


def pin():
    """Set the kernel choices in this process's environment (so also for processes it starts from now on).

    Returns False when torch was already imported here, in which case this process keeps whatever it picked
    (check() then says whether that is the pinned kind)."""
    os.environ.update(PINNED)
    return "torch" not in sys.modules


def capability():
    """The ATen kernel family torch dispatches to in this process (imports torch)."""
    import torch
    return torch.backends.cpu.get_cpu_capability()


def check(where="this process"):
    """Refuse to compute figures with kernels other than the pinned ones: returns the capability, or raises
    RuntimeError naming it (a programming error, e.g. torch imported before pin(), not a reader's input)."""
    found = capability()
    if found not in ALLOWED_CAPABILITIES:
        raise RuntimeError(f"{where} runs torch's {found} kernels, not the pinned AVX2 ones: the figures would "
                           "depend on this CPU. Call generator.data.kernels.pin() before torch is imported "
                           "(python -m generator data does).")
    return found

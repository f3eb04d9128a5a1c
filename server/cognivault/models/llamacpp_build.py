"""The llama-cpp-python build that runs on any machine, and how to get it when a build crashes here.

llama.cpp builds by default for every feature of the CPU compiling it (``GGML_NATIVE=ON``). On
recent Intel Xeons that turns on its AMX backend, whose matrix code segfaults on the first
token (ggml-org/llama.cpp#20824); turning the AMX options off is not enough while native is
on. The portable build turns native off and names the instruction sets itself: AVX, AVX2, FMA
and F16C on x86-64 where the CPU has them (all four when it cannot tell), AVX-512 and AMX off.
Elsewhere (ARM) llama.cpp's own defaults stand: the crash is x86's.

``scripts/install-llama-cpp.sh`` builds with :func:`portable_cmake_args` (``python -m
cognivault.models.llamacpp_build`` prints them) and caches the wheel under a key made of these
flags; ``cognivault doctor`` prints :func:`rebuild_command` when its probe crashes.
"""

from __future__ import annotations

import platform
import re
import signal
from pathlib import Path

X86_MACHINES = frozenset({"x86_64", "amd64"})
# llama.cpp option -> the /proc/cpuinfo flag a CPU running that code needs
X86_SETS = {"GGML_AVX": "avx", "GGML_AVX2": "avx2", "GGML_FMA": "fma", "GGML_F16C": "f16c"}
X86_OFF = ("GGML_AVX512", "GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16")


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str]:
    """The instruction-set flags the CPU reports (Linux); empty where they cannot be read."""
    try:
        text = cpuinfo.read_text("utf-8", "replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def portable_cmake_args(machine: str | None = None, flags: frozenset[str] | None = None) -> str:
    """``CMAKE_ARGS`` for a llama-cpp-python that runs on this kind of CPU, whatever its extras."""
    if (machine or platform.machine()).lower() not in X86_MACHINES:
        return ""
    present = cpu_flags() if flags is None else flags
    options = ["-DGGML_NATIVE=OFF"]
    options += [f"-D{option}={'ON' if not present or flag in present else 'OFF'}"
                for option, flag in X86_SETS.items()]
    options += [f"-D{option}=OFF" for option in X86_OFF]
    return " ".join(options)


def rebuild_command() -> str:
    """The command that replaces the installed llama-cpp-python by the portable build."""
    args = portable_cmake_args()
    prefix = f'CMAKE_ARGS="{args}" ' if args else ""
    return (f"{prefix}pip install --force-reinstall --no-deps --no-cache-dir --no-binary llama-cpp-python "
            "llama-cpp-python (in a checkout: scripts/install-llama-cpp.sh)")


def explain_crash(exitcode: int | None, system_info: str) -> tuple[str, str]:
    """Why llama.cpp's process died here, and the fix; ``system_info`` is the build's feature line."""
    if exitcode == -signal.SIGKILL:
        return ("the system stopped it, most often because memory ran out",
                "close other programs or choose a smaller model (a smaller quantization of it)")
    if exitcode == -signal.SIGILL:
        return ("this llama-cpp-python was built for a CPU with instructions this one lacks",
                f"rebuild it for this machine: {rebuild_command()}")
    if re.search(r"\bAMX\w* = 1\b", system_info):
        return ("this llama-cpp-python build uses llama.cpp's AMX code, which crashes on the first token "
                "(ggml-org/llama.cpp#20824)", f"rebuild it without AMX: {rebuild_command()}")
    return ("llama.cpp crashed on this machine; a build made for another CPU's features is the usual cause",
            f"rebuild it portable: {rebuild_command()}; if it still crashes, try another GGUF file")


if __name__ == "__main__":
    print(portable_cmake_args())

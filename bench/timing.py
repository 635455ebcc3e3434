"""How the benchmark measures: one fresh interpreter per measurement, peak memory, rounds, ratios.

Every measurement runs in a subprocess of its own (``run_child``: ``bench/benchmark.py --child``),
which times only the training or encoding call itself, not interpreter start-up or reading the
corpus. Peak memory is the peak resident size of the whole process tree (bpe_core's counting
workers included), sampled from /proc every 10 ms, and never less than the child's own peak
(VmHWM). ``Rounds`` keeps the results round by round; its ratios are medians over rounds of one
tool's value divided by the reference's value in the same round, so a noisy phase of the machine
hits both sides of each ratio.

What it does not do: choose what to measure (the ``*_bench`` modules do) or build texts
(``corpora``). Where /proc is missing (not Linux), the tree sampling reads 0 and only the child's
own peak counts.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
ENTRY_POINT = BENCH / "benchmark.py"
MB = 1_000_000
TOOL_MODULES = {
    "bpe_core": "bpe_core",
    "bpe_core-python": "bpe_core",
    "hf": "tokenizers",
    "rustbpe": "rustbpe",
    "tiktoken": "tiktoken",
}


def ids_digest(ids) -> str:
    """SHA-256 of a list of token ids (or of lists of them), to compare tools without shipping ids."""
    return hashlib.sha256(json.dumps(ids).encode()).hexdigest()


def fmt_ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def verdict(name: str, ok: bool, detail: str) -> str:
    """One line of the targets summary: ``- PASS: name: detail`` (or FAIL)."""
    return f"- {'PASS' if ok else 'FAIL'}: {name}: {detail}"


def load_average() -> str:
    return str(os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"


def versions() -> str:
    """Python, CPU count and the reference tools' versions, for the report's first line."""
    from importlib.metadata import PackageNotFoundError, version

    parts = [f"Python {platform.python_version()}", f"{os.cpu_count()} CPUs"]
    for module in ("tokenizers", "tiktoken", "rustbpe", "regex"):
        try:
            parts.append(f"{module} {version(module)}")
        except PackageNotFoundError:
            pass
    return ", ".join(parts)


def available_tools(tools, log=print) -> list[str]:
    """The tools among ``tools`` whose package imports; the others are reported and skipped."""
    found = []
    for tool in tools:
        try:
            __import__(TOOL_MODULES[tool])
        except ImportError:
            log(f"  ({tool} is not installed: skipped; see bench/requirements.txt)")
            continue
        found.append(tool)
    return found


def own_peak_rss() -> int:
    """This process's peak resident size since exec (VmHWM). Not getrusage: on Linux ru_maxrss also
    counts the parent's memory image copied by fork before exec."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and its descendants (0 where /proc is unavailable)."""
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/statm") as handle:
                total += int(handle.read().split()[1]) * page
            with open(f"/proc/{current}/task/{current}/children") as handle:
                stack.extend(int(child) for child in handle.read().split())
        except (OSError, ValueError):
            continue
    return total


def _address_space_limit(memory_limit: int | None):
    """A preexec_fn capping the child's address space (RLIMIT_AS), or None for no cap."""
    if not memory_limit or os.name != "posix":
        return None

    def limit():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    return limit


def run_script_child(script: str | os.PathLike, spec: dict, *, timeout: float = 6 * 3600) -> dict:
    """``spec`` run by ``script --child SPEC_JSON`` in a fresh interpreter with this checkout first on
    its path; the JSON object its last line of output holds."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    done = subprocess.run(
        [sys.executable, str(script), "--child", json.dumps(spec)],
        stdout=subprocess.PIPE,
        env=env,
        timeout=timeout,
        check=True,
    )
    return json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1])


def run_child(spec: dict, *, memory_limit: int | None = None, timeout: float = 3600) -> dict:
    """Run one measurement (``spec["task"]``) in a fresh interpreter; add ``peak_rss`` (bytes,
    process tree) to its result."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    process = subprocess.Popen(
        [sys.executable, str(ENTRY_POINT), "--child", json.dumps(spec)],
        stdout=subprocess.PIPE,
        env=env,
        preexec_fn=_address_space_limit(memory_limit),
    )
    peak = 0
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(process.pid))
            done.wait(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        output = process.stdout.read()
        process.wait(timeout)
    finally:
        done.set()
        sampler.join()
    if process.returncode != 0:
        raise RuntimeError(f"child {spec} failed with exit code {process.returncode}")
    result = json.loads(output.decode("utf-8").strip().splitlines()[-1])
    result["peak_rss"] = max(peak, result["own_peak_rss"])
    return result


def rotated(items: list, number: int) -> list:
    """``items`` started at position ``number`` (round ``number``'s order, so each tool goes first
    in turn)."""
    cut = number % len(items) if items else 0
    return items[cut:] + items[:cut]


def alternated(items: list, number: int) -> list:
    """``items`` in order on even rounds, reversed on odd ones."""
    return list(items) if number % 2 == 0 else list(reversed(items))


@dataclass
class Rounds:
    """Results of one scenario, round by round: ``runs[tool]`` lists the child results in order."""

    label: str
    runs: dict[str, list[dict]] = field(default_factory=dict)

    def add(self, tool: str, result: dict) -> dict:
        self.runs.setdefault(tool, []).append(result)
        return result

    def has(self, *tools: str) -> bool:
        """True when every one of ``tools`` has runs here."""
        return all(tool in self.runs for tool in tools)

    def median(self, tool: str, key: str) -> float | None:
        if tool not in self.runs:
            return None
        return statistics.median(r[key] for r in self.runs[tool])

    def ratio(self, tool: str, reference: str, key: str = "seconds") -> float | None:
        """Median over rounds of tool/reference, each pair measured in the same round."""
        if not self.has(tool, reference):
            return None
        pairs = zip(self.runs[tool], self.runs[reference], strict=True)
        return statistics.median(a[key] / b[key] for a, b in pairs)

    def same_ids(self) -> bool:
        """True when every run of every tool produced the same ids (``ids_sha256``)."""
        return len({r["ids_sha256"] for runs in self.runs.values() for r in runs}) == 1

"""``airlab bench --against REF``: the engine's CPU time against another commit's, measured
interleaved in one run.

Figures taken at different times on a shared machine move by tens of percent with its load, so
a speed claim is a ratio of two builds measured side by side: each round runs every scenario on
both builds, in alternating order, and a scenario's ratio is the median of its rounds' ratios
(this build's CPU time over the reference's). A reading repeats a short scenario until it took
half a CPU second and counts the time per run. Each build runs its own copy of the scenario
file through its own ``run_scenario`` example binary (the engine without Python: scenario
resolution, the run and its summary), in a child process whose CPU time (user + system) the
kernel accounts; the CPU the rest of the machine used meanwhile is read from ``/proc/stat`` so
a run on a loaded machine says so instead of passing for a measurement.

The reference is built once from ``git archive REF`` under ``target/bench-ref/<commit>/`` of
the checkout and reused; this build is the working tree as it is (uncommitted changes
included).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import tarfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from airlab import _cpu

#: The engine binary each build is measured through (crates/airlab-core/examples).
EXAMPLE = "run_scenario"

#: A reading repeats a short scenario until its runs took this much CPU time, at most
#: ``MAX_RUNS`` runs, and reports the time per run.
MIN_CPU_S = 0.5
MAX_RUNS = 50

#: Interference above which a round is not a measurement: CPU the rest of the machine used,
#: in cores, and the hypervisor's steal, as a share of the machine's CPU time.
MAX_OTHERS_CORES = 0.25
MAX_STEAL = 0.05


class BenchError(RuntimeError):
    """A reference that cannot be found or built, or a checkout that is not one."""


@dataclass(frozen=True)
class Build:
    """One side of a comparison: its label, engine binary and scenarios folder."""

    label: str
    binary: Path
    scenarios: Path

    def scenario(self, name: str) -> Path | None:
        """The build's own copy of built-in scenario ``name``; a file named by its path (one
        outside the built-ins, such as ``bench/scale/``) is the same for both builds."""
        given = Path(name)
        if given.suffix == ".toml" and given.is_file():
            return given.resolve()
        path = self.scenarios / f"{name}.toml"
        return path if path.is_file() else None


@dataclass
class Reading:
    """One run of one build on one scenario."""

    cpu_s: float
    wall_s: float
    events: int
    others_cores: float
    steal: float


@dataclass
class ScenarioComparison:
    """A scenario's readings on both builds, round by round; ``missing`` says why there are
    none (the scenario is not in one of the builds, or a build failed on it)."""

    scenario: str
    ours: list[Reading] = field(default_factory=list)
    reference: list[Reading] = field(default_factory=list)
    missing: str = ""
    same_file: bool = True

    @property
    def ratios(self) -> list[float]:
        return [
            a.cpu_s / b.cpu_s for a, b in zip(self.ours, self.reference, strict=True) if b.cpu_s > 0
        ]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"scenario": self.scenario}
        if self.missing:
            return out | {"missing": self.missing}
        r = sorted(self.ratios)
        return out | {
            "ratio": statistics.median(r),
            "ratio_min": r[0],
            "ratio_max": r[-1],
            "rounds": len(r),
            "cpu_s": statistics.median(x.cpu_s for x in self.ours),
            "cpu_s_reference": statistics.median(x.cpu_s for x in self.reference),
            "events": self.ours[0].events,
            "events_reference": self.reference[0].events,
            "same_scenario_file": self.same_file,
        }


@dataclass
class Comparison:
    """Every scenario's comparison, the two builds and the machine's interference."""

    ours: str
    reference: str
    rounds: int
    scenarios: list[ScenarioComparison]

    def readings(self) -> list[Reading]:
        return [x for s in self.scenarios for x in (*s.ours, *s.reference)]

    @property
    def others_cores(self) -> float:
        """Median CPU of the rest of the machine during the runs, in cores."""
        r = self.readings()
        return statistics.median(x.others_cores for x in r) if r else 0.0

    @property
    def steal(self) -> float:
        r = self.readings()
        return statistics.median(x.steal for x in r) if r else 0.0

    @property
    def degraded(self) -> str:
        """Why these ratios are not a measurement, or "" if the machine was quiet enough."""
        why = []
        if self.others_cores > MAX_OTHERS_CORES:
            why.append(f"the rest of the machine used {self.others_cores:.2f} cores (median)")
        if self.steal > MAX_STEAL:
            why.append(f"the hypervisor stole {self.steal:.1%} of the CPU time")
        return "; ".join(why)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ours": self.ours,
            "reference": self.reference,
            "rounds": self.rounds,
            "others_cores": round(self.others_cores, 3),
            "steal": round(self.steal, 4),
            "degraded": self.degraded,
            "scenarios": [s.as_dict() for s in self.scenarios],
        }


# -- the builds ---------------------------------------------------------------------------------


def checkout(starts: Sequence[Path] | None = None) -> Path:
    """The git checkout of airlab that holds the first of ``starts`` in one [default: where
    airlab runs from (an editable install or a source tree), then the current directory];
    :class:`BenchError` if none does."""
    for start in starts or (Path(__file__).resolve().parent, Path.cwd()):
        top = _git(start, "rev-parse", "--show-toplevel")
        if top and (Path(top) / "crates" / "airlab-core").is_dir():
            return Path(top)
    raise BenchError(
        "bench --against needs a git checkout of airlab (with crates/airlab-core): run it from "
        "one, or install airlab from one (pip install -e .)"
    )


def _git(cwd: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                             timeout=60)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def commit_label(cwd: Path) -> str | None:
    """The checkout's commit at ``cwd``, with ``-dirty`` when tracked files are modified; None
    outside a checkout."""
    head = _git(cwd, "rev-parse", "--short=12", "HEAD")
    if head and _git(cwd, "status", "--porcelain", "--untracked-files=no"):
        head += "-dirty"
    return head


def cargo_build(tree: Path, target_dir: Path, say: Callable[[str], None] = print) -> Path:
    """Build ``tree``'s engine binary in release mode into ``target_dir`` (cargo reuses what is
    up to date); its path."""
    say(f"building {EXAMPLE} in {tree} (release)")
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir))
    cmd = ["cargo", "build", "--release", "-q", "-p", "airlab-core", "--example", EXAMPLE]
    try:
        proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    except OSError as e:
        raise BenchError(f"cannot run cargo to build {tree}: {e}") from None
    if proc.returncode != 0:
        raise BenchError(f"building {tree} failed:\n{proc.stderr[-3000:]}")
    return target_dir / "release" / "examples" / EXAMPLE


def this_build(repo: Path, say: Callable[[str], None] = print) -> Build:
    """The working tree as it is, built into its usual target folder."""
    target = Path(os.environ.get("CARGO_TARGET_DIR") or repo / "target")
    return Build(commit_label(repo) or "?", cargo_build(repo, target, say), repo / "scenarios")


def extract(ref: str, repo: Path, say: Callable[[str], None] = print) -> tuple[str, Path]:
    """Commit ``ref`` of ``repo`` as a source tree under target/bench-ref/<commit>/src
    (extracted once): the commit's full hash and the tree."""
    commit = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if not commit:
        raise BenchError(f"--against {ref!r}: not a commit of the checkout at {repo}")
    src = repo / "target" / "bench-ref" / commit[:12] / "src"
    if not src.is_dir():
        say(f"extracting {ref} ({commit[:12]}) into {src}")
        # Extracted beside and renamed when whole, so an interrupted extraction is redone.
        partial = src.with_name("src.partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        tar = src.parent / "src.tar"
        subprocess.run(["git", "archive", "-o", str(tar), commit], cwd=repo, check=True)
        with tarfile.open(tar) as t:
            t.extractall(partial, filter="tar")
        tar.unlink()
        partial.rename(src)
    return commit, src


def reference_build(ref: str, repo: Path, say: Callable[[str], None] = print) -> Build:
    """Commit ``ref`` of ``repo``, extracted and built once under target/bench-ref/."""
    commit, src = extract(ref, repo, say)
    return Build(commit[:12], cargo_build(src, src.parent / "target", say), src / "scenarios")


# -- the measurement ----------------------------------------------------------------------------


def measure(build: Build, scenario: Path, min_cpu_s: float = MIN_CPU_S) -> Reading:
    """Run ``build`` on ``scenario`` until the runs took ``min_cpu_s`` together (at least
    once): the CPU time per run, the events of one, and the interference meanwhile. A short
    scenario's single run is a few tens of milliseconds, where a scheduler tick or a cold
    cache is a tenth of the figure; repeating it averages that out."""
    import json

    runs, cpu, wall = 0, 0.0, 0.0
    stat0 = _cpu.ticks()
    while runs == 0 or (cpu < min_cpu_s and runs < MAX_RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        proc = subprocess.run([str(build.binary), str(scenario)], capture_output=True, text=True)
        wall += time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise BenchError(
                f"{build.label} on {scenario}: exit {proc.returncode}: {proc.stderr.strip()[-500:]}"
            )
        cpu += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        runs += 1
    summary = json.loads(proc.stdout)
    shares = _cpu.shares(stat0, _cpu.ticks(), own_cpu_s=cpu)
    return Reading(
        cpu_s=cpu / runs,
        wall_s=wall / runs,
        events=int(summary["engine"]["events"]),
        others_cores=shares.others * shares.cores if shares else 0.0,
        steal=shares.steal if shares else 0.0,
    )


def compare(
    ours: Build,
    reference: Build,
    names: Sequence[str],
    rounds: int = 7,
    on_round: Callable[[int, int], None] | None = None,
    min_cpu_s: float = MIN_CPU_S,
) -> Comparison:
    """Run every scenario on both builds ``rounds`` times, interleaved: in each round every
    scenario runs on both builds back to back, the order alternating between rounds and
    scenarios so neither build always runs first (a warm cache, a governor's ramp)."""
    out = [ScenarioComparison(n) for n in names]
    for s in out:
        a, b = ours.scenario(s.scenario), reference.scenario(s.scenario)
        if a is None or b is None:
            s.missing = f"not a scenario of {ours.label if a is None else reference.label}"
        else:
            s.same_file = a.read_bytes() == b.read_bytes()
    for r in range(rounds):
        for i, s in enumerate(out):
            if s.missing:
                continue
            pair = [(ours, s.ours), (reference, s.reference)]
            if (r + i) % 2:
                pair.reverse()
            try:
                for build, readings in pair:
                    path = build.scenario(s.scenario)
                    assert path is not None  # checked above
                    readings.append(measure(build, path, min_cpu_s))
            except BenchError as e:
                s.missing, s.ours, s.reference = str(e), [], []
        if on_round:
            on_round(r + 1, rounds)
    return Comparison(ours.label, reference.label, rounds, out)

"""The paper's side of every row of ``targets.json``: each reproduction's numbers and claims,
read from ``airlab/reproduce/targets/<paper>.toml``. The analysis computes ours and looks the
paper's up by experiment and metric, so what airlab compares against is one file to read.

One entry per number or claim::

    [[target]]
    experiment = "E3-1 (Fig. 3a)"        # the experiment, and where in the paper it is
    metric = "throughput ratio, BBRv2"    # what is compared (for a claim: the claim)
    variant = "A"                         # optional: the entry of this variant's row only
    rule = "point"                        # how ours is judged: a key of RULES
    value = 1.44                          # the numbers the rule takes
    note = "..."                          # optional: where the number comes from

An entry without ``variant`` is the paper's number for the rows of every variant; a metric
whose number differs between variants has one entry per variant instead.
"""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from airlab.reproduce import runner
from airlab.reproduce.runner import Target

#: Each rule, what it means and the numbers it takes (``tolerance``: the ± of ``absolute``,
#: the factor of ``factor``; an open side of a range is ``-inf`` or ``inf``).
RULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "point": ("within ±20 % of value", ("value",)),
    "absolute": ("within ± tolerance of value", ("value", "tolerance")),
    "factor": ("within a factor tolerance of value, either way", ("value", "tolerance")),
    "range": ("in [lo, hi] read off a plot, widened by 20 % of each bound", ("lo", "hi")),
    "threshold": ("in [lo, hi] exactly: an acceptance rule's bounds", ("lo", "hi")),
    "direction": ("a qualitative claim, stated by the metric: it holds or fails", ()),
}
#: The rules each kind of row the analysis builds takes.
KINDS = {
    "point": ("point", "absolute", "factor"),
    "span": ("range", "threshold"),
    "direction": ("direction",),
}
_NUMBERS = ("value", "tolerance", "lo", "hi")
_KEYS = {"experiment", "metric", "variant", "rule", "note", *_NUMBERS}

#: A row's key in targets.json: (experiment, variant, metric).
Key = tuple[str, str, str]


@dataclass(frozen=True)
class Entry:
    """One number (or claim) of the paper: what the file says, numbers as floats (those the
    rule does not take are NaN)."""

    experiment: str
    metric: str
    variant: str | None
    rule: str
    value: float = math.nan
    tolerance: float = math.nan
    lo: float = math.nan
    hi: float = math.nan
    note: str = ""

    @property
    def bounds(self) -> tuple[float, float]:
        """The paper's number as a range: ``(value, value)`` for a point, ``(lo, hi)`` for a
        range (for a figure that shades what the paper gives)."""
        return (self.value, self.value) if math.isnan(self.lo) else (self.lo, self.hi)

    def describe(self) -> str:
        variant = f", variant {self.variant!r}" if self.variant is not None else ""
        return f"experiment {self.experiment!r}, metric {self.metric!r}{variant}"


class PaperTargets:
    """A paper's entries, by (experiment, metric); its rows are built by :meth:`point`,
    :meth:`span` and :meth:`direction`, which raise ``LookupError`` naming the file and the key
    for a number the file does not declare."""

    def __init__(self, entries: Iterable[Entry], source: str) -> None:
        self.source = source
        self.entries = tuple(entries)
        self._by: dict[tuple[str, str], dict[str | None, Entry]] = {}
        for e in self.entries:
            self._by.setdefault((e.experiment, e.metric), {})[e.variant] = e

    def entry(self, experiment: str, metric: str, variant: str = "") -> Entry:
        """The entry of ``metric`` in ``experiment`` for a row of ``variant``. A row of a
        reading other than the primary carries the reading after the entry's variant, past a
        comma ("300 Mbit/s, A-MPDU, PER 20 %" is entry "300 Mbit/s, A-MPDU"): the longest
        such prefix with an entry is the row's."""
        by_variant = self._by.get((experiment, metric))
        if by_variant is None:
            known = sorted(m for e, m in self._by if e == experiment)
            hint = (
                f"its metrics: {', '.join(map(repr, known))}"
                if known
                else f"no entry has experiment {experiment!r}"
            )
            raise LookupError(
                f"{self.source}: no target for experiment {experiment!r}, metric {metric!r} "
                f"({hint})"
            )
        found = by_variant.get(None)
        prefix = variant
        while found is None:
            found = by_variant.get(prefix)
            if ", " not in prefix:
                break
            prefix = prefix.rsplit(", ", 1)[0]
        if found is None:
            raise LookupError(
                f"{self.source}: no target for experiment {experiment!r}, metric {metric!r}, "
                f"variant {variant!r} (its variants: {', '.join(map(repr, by_variant))})"
            )
        return found

    def _of(self, kind: str, experiment: str, metric: str, variant: str) -> Entry:
        e = self.entry(experiment, metric, variant)
        if e.rule not in KINDS[kind]:
            raise ValueError(
                f"{self.source}: {e.describe()}: rule {e.rule!r}, but the analysis compares a "
                f"{kind} here (rule {' or '.join(map(repr, KINDS[kind]))})"
            )
        return e

    def point(
        self, experiment: str, metric: str, ours: float, variant: str = "", note: str = ""
    ) -> Target:
        """Our number beside the paper's point (rule point, absolute or factor); ``note``: what
        this run adds to the entry's note."""
        e = self._of("point", experiment, metric, variant)
        return runner.point(
            experiment,
            metric,
            e.value,
            ours,
            variant,
            absolute=e.tolerance if e.rule == "absolute" else 0.0,
            factor=e.tolerance if e.rule == "factor" else 0.0,
            note=_join(e.note, note),
        )

    def span(
        self, experiment: str, metric: str, ours: float, variant: str = "", note: str = ""
    ) -> Target:
        """Our number beside the paper's range (rule range or threshold)."""
        e = self._of("span", experiment, metric, variant)
        return runner.span(experiment, metric, e.lo, e.hi, ours, variant, _join(e.note, note),
                           read_off_plot=e.rule == "range")  # fmt: skip

    def direction(
        self,
        experiment: str,
        claim: str,
        holds: bool,
        margin: float,
        variant: str = "",
        note: str = "",
    ) -> Target:
        """The paper's claim (rule direction): whether our numbers bear it out, by ``margin``."""
        e = self._of("direction", experiment, claim, variant)
        return runner.direction(experiment, claim, holds, margin, variant, _join(e.note, note))

    def unreported(self, rows: Iterable[Key]) -> list[Entry]:
        """The entries no row of ``rows`` (keys of ``targets.json``) reports: a number the file
        declares and the analysis drops."""
        keys = set(rows)
        pairs = {(x, m) for x, _, m in keys}
        return [
            e
            for e in self.entries
            if ((e.experiment, e.metric) not in pairs if e.variant is None
                else (e.experiment, e.variant, e.metric) not in keys)
        ]  # fmt: skip


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _number(raw: Any, key: str, where: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise ValueError(f"{where}: {key!r} must be a number, got {raw!r}")
    x = float(raw)
    if math.isnan(x) or (math.isinf(x) and key in ("value", "tolerance")):
        raise ValueError(f"{where}: {key!r} must be a finite number, got {raw!r}")
    return x


def _entry(raw: Any, where: str) -> Entry:
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: expected a table ([[target]]), got {raw!r}")
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}, expected some of: "
                         f"{', '.join(sorted(_KEYS))}")  # fmt: skip
    for key in ("experiment", "metric", "rule"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise ValueError(f"{where}: {key!r} must be a non-empty string")
    where = f"{where} ({raw['experiment']!r}, {raw['metric']!r})"
    for key in ("variant", "note"):
        if key in raw and not isinstance(raw[key], str):
            raise ValueError(f"{where}: {key!r} must be a string, got {raw[key]!r}")
    rule = raw["rule"]
    if rule not in RULES:
        known = "; ".join(f"{name} ({meaning})" for name, (meaning, _) in RULES.items())
        raise ValueError(f"{where}: rule {rule!r}, expected one of: {known}")
    takes = RULES[rule][1]
    missing = [k for k in takes if k not in raw]
    if missing:
        raise ValueError(f"{where}: rule {rule!r} needs {', '.join(takes)}; missing {missing}")
    extra = [k for k in _NUMBERS if k in raw and k not in takes]
    if extra:
        takes_text = ", ".join(takes) if takes else "no numbers"
        raise ValueError(f"{where}: rule {rule!r} takes {takes_text}, not {extra}")
    numbers = {k: _number(raw[k], k, where) for k in takes}
    if numbers.get("tolerance", 1.0) <= 0:
        raise ValueError(f"{where}: 'tolerance' must be positive, got {raw['tolerance']!r}")
    if rule == "factor" and numbers["tolerance"] <= 1:
        raise ValueError(f"{where}: a factor tolerance must exceed 1, got {raw['tolerance']!r}")
    if "lo" in numbers and not numbers["lo"] < numbers["hi"]:
        raise ValueError(f"{where}: expected lo < hi, got lo = {raw['lo']!r}, hi = {raw['hi']!r}")
    return Entry(raw["experiment"], raw["metric"], raw.get("variant"), rule,
                 note=raw.get("note", ""), **numbers)  # fmt: skip


def parse(doc: Mapping[str, Any], source: str) -> PaperTargets:
    """The entries of one paper's file (its TOML read as ``doc``); ``ValueError`` naming
    ``source``, the entry and the key on anything else than the layout above."""
    unknown = sorted(set(doc) - {"target"})
    if unknown:
        raise ValueError(f"{source}: unknown key(s) {unknown}, expected [[target]] entries")
    raw = doc.get("target")
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"{source}: expected [[target]] entries, one per number of the paper")
    entries = [_entry(r, f"{source}: target {i}") for i, r in enumerate(raw, 1)]
    seen: dict[tuple[str, str], dict[str | None, int]] = {}
    for i, e in enumerate(entries, 1):
        variants = seen.setdefault((e.experiment, e.metric), {})
        where = f"{source}: target {i} ({e.experiment!r}, {e.metric!r})"
        if e.variant in variants:
            raise ValueError(f"{where}: declared twice (as target {variants[e.variant]})")
        if variants and (e.variant is None or None in variants):
            raise ValueError(f"{where}: declared both for every variant and per variant (see "
                             f"target {next(iter(variants.values()))})")  # fmt: skip
        variants[e.variant] = i
    return PaperTargets(entries, source)


@functools.cache
def load(paper: str) -> PaperTargets:
    """The numbers of ``paper`` (its file must exist: every reproduction compares some)."""
    name = f"{paper}.toml"
    source = f"airlab/reproduce/targets/{name}"
    path = resources.files("airlab.reproduce").joinpath("targets", name)
    if not path.is_file():
        raise ValueError(f"{source}: no such file: every paper declares its numbers there")
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{source}: not TOML ({e})") from None
    return parse(doc, source)

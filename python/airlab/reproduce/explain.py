"""Why a reproduction's rows miss: the explanations, with their class, that land in
``targets.json`` beside the rows they explain.

Each paper keeps them in ``airlab/reproduce/explanations/<paper>.toml``, written as the gaps are
traced. One entry explains one or more rows::

    [[explanation]]
    class = "demonstrated"
    text = "What the controlled variant changed and the numbers it gave."
    rows = [
        { experiment = "E3-1 (Fig. 3a)", variant = "A", metric = "throughput ratio, BBRv2" },
    ]

The class says how far the explanation got (:data:`CLASSES`). An explanation is attached to its
rows whatever their status; the test suite checks that every informative row a recorded full
run misses has one, and that no entry names a row the run does not have.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

#: How far an explanation of a miss got.
CLASSES = {
    "demonstrated": "a controlled variant shows the mechanism; the text gives its numbers",
    "untested": "a hypothesis that no run has tested yet",
    "refuted": "the hypothesis once given, kept with the variant that refuted it",
    "none": "no explanation yet",
}

Key = tuple[str, str, str]


@dataclass(frozen=True)
class Explanation:
    cls: str
    text: str

    def as_dict(self) -> dict[str, str]:
        return {"class": self.cls, "text": self.text}


def parse(doc: Mapping[str, Any], source: str) -> dict[Key, Explanation]:
    """The explanations of one paper's file (its TOML read as ``doc``), by row key
    (experiment, variant, metric); ``ValueError`` naming ``source``, the entry and the key on
    anything else than the layout above."""
    unknown = set(doc) - {"explanation"}
    if unknown:
        raise ValueError(f"{source}: unknown key(s) {sorted(unknown)}, expected [[explanation]]")
    out: dict[Key, Explanation] = {}
    entries = doc.get("explanation", [])
    if not isinstance(entries, list):
        raise ValueError(f"{source}: 'explanation' must be an array of tables ([[explanation]])")
    for i, e in enumerate(entries, 1):
        where = f"{source}: explanation {i}"
        if not isinstance(e, dict) or set(e) != {"class", "text", "rows"}:
            got = sorted(e) if isinstance(e, dict) else type(e).__name__
            raise ValueError(f"{where}: expected the keys class, text and rows, got {got}")
        if e["class"] not in CLASSES:
            raise ValueError(
                f"{where}: class {e['class']!r}, expected one of: {', '.join(CLASSES)}"
            )
        if not isinstance(e["text"], str) or not e["text"].strip():
            raise ValueError(f"{where}: 'text' must be a non-empty string")
        if not isinstance(e["rows"], list) or not e["rows"]:
            raise ValueError(f"{where}: 'rows' must be a non-empty array")
        for j, r in enumerate(e["rows"], 1):
            if (
                not isinstance(r, dict)
                or set(r) != {"experiment", "variant", "metric"}
                or not all(isinstance(v, str) for v in r.values())
            ):
                raise ValueError(
                    f"{where}, row {j}: expected {{experiment, variant, metric}} as strings, "
                    f"got {r!r}"
                )
            key = (r["experiment"], r["variant"], r["metric"])
            if key in out:
                raise ValueError(f"{where}, row {j}: {key} is explained twice")
            out[key] = Explanation(e["class"], " ".join(e["text"].split()))
    return out


def load(paper: str) -> dict[Key, Explanation]:
    """The explanations of ``paper`` (none when it has no file yet)."""
    name = f"{paper}.toml"
    path = resources.files("airlab.reproduce").joinpath("explanations", name)
    if not path.is_file():
        return {}
    source = f"airlab/reproduce/explanations/{name}"
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{source}: not TOML ({e})") from None
    return parse(doc, source)

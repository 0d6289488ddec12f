"""airlab: a laboratory for TCP congestion control and queue management.

>>> import airlab
>>> res = airlab.run("basics/dumbbell-cubic", seed=3, set={"duration": "10s"})
>>> res.summary["jain_index"], res.flows.head()
>>> res.save("results/db")
>>> sw = airlab.Sweep.run("aqm/bufferbloat-fq_codel", seeds=3, out="results/sweep",
...                       set={"link.bottleneck.qdisc.kind": ["pfifo", "cake"]})
>>> sw.flows  # one row per run and flow
"""

from __future__ import annotations

from airlab import _checks, _core, renderers, results
from airlab.engine import (
    MAX_SCENARIO_BYTES,  # noqa: F401 (public, not in __all__)
    InternalError,
    Overrides,  # noqa: F401 (public, not in __all__)
    ScenarioError,
    ScenarioFileError,
    TomlText,
    components,
    format_value,  # noqa: F401 (public, not in __all__)
    overrides_list,  # noqa: F401 (public, not in __all__)
    params,
    run,
    run_text,
    validate,
)
from airlab.locate import list_builtin, resolve
from airlab.results import Result
from airlab.sweep import Sweep

# The package wires its layers: the core's Result draws with the render layer's functions,
# handed to it here (airlab.results imports no renderer).
results.use_renderers(renderers.DEFAULT)

__version__: str = _core.version()
#: The largest run seed (the engine's seeds are u64).
MAX_SEED = _checks.MAX_SEED

__all__ = [
    "InternalError",
    "Result",
    "ScenarioError",
    "ScenarioFileError",
    "Sweep",
    "TomlText",
    "__version__",
    "components",
    "list_builtin",
    "params",
    "resolve",
    "run",
    "run_text",
    "validate",
]

# Types of the compiled engine module (crates/airlab-py/src/lib.rs). A test checks that this
# file declares exactly the names the module exports.

from collections.abc import Callable
from typing import Any

class ScenarioError(ValueError):
    """A scenario file or override is invalid."""

class InternalError(RuntimeError):
    """A run's results broke a physical invariant: a bug in the engine, not in the scenario."""

# A time-series table as the engine hands it over: the time column, the entity column as
# (codes into names, names) and one float64 array per value column.
_Table = dict[str, Any]

def run(
    text: str,
    file: str,
    overrides: list[tuple[str, str]],
    seed: int | None = None,
    progress: Callable[[float], object] | None = None,
) -> dict[str, str | _Table]: ...
def validate(text: str, file: str, overrides: list[tuple[str, str]]) -> str: ...
def columns() -> dict[str, tuple[str, str, list[tuple[str, str, str]]]]: ...
def components() -> dict[str, list[str]]: ...
def families() -> list[tuple[str, str, str, str]]: ...
def params(name: str) -> tuple[str, str, list[tuple[str, str, str, str]]] | None: ...
def quantity(kind: str, text: str) -> int: ...
def delay_line(
    wires: list[tuple[int, int, int, int, float, int]],
    stop_fd: int,
    cpu: int | None = None,
) -> list[dict[str, float | int | bool | None]]: ...
def version() -> str: ...
def scenario_schema() -> str: ...

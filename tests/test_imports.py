"""What importing airlab loads, and that drawing keeps out of pyplot's global state. Each check
runs in a fresh interpreter: this one has long imported everything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

#: The heavy libraries a module of airlab imports only where it uses them.
HEAVY = ("numpy", "pandas", "pyarrow", "matplotlib", "scipy", "dask", "distributed")


def _fresh(code: str, *args: str) -> str:
    """The standard output of ``code`` run by a new interpreter (with this one's path)."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout


def _loaded_after(statement: str) -> list[str]:
    """The heavy libraries loaded once ``statement`` ran."""
    loaded = f"[m for m in {HEAVY!r} if m in sys.modules]"
    code = f"{statement}\nimport json, sys\nprint(json.dumps({loaded}))"
    return json.loads(_fresh(code))


def test_import_airlab_loads_no_heavy_library() -> None:
    assert _loaded_after("import airlab") == []


def test_the_public_names_need_no_heavy_library() -> None:
    # every name airlab exports (and the ones it keeps out of __all__) resolves without them
    names = "from airlab import *\nfrom airlab import MAX_SCENARIO_BYTES, Overrides, format_value"
    assert _loaded_after(names) == []


def test_the_command_line_loads_no_heavy_library_before_a_command_runs() -> None:
    # `airlab --help` imports every command module: none may load a heavy library for it
    assert _loaded_after("import airlab.cli") == []


def test_overrides_take_numpy_bools_though_airlab_does_not_import_numpy() -> None:
    out = _fresh(
        "import airlab, numpy as np\n"
        "print(airlab.overrides_list({'a': np.bool_(True), 'b': np.int64(3), 'c': True}))"
    )
    assert out.strip() == "[('a', 'true'), ('b', '3'), ('c', 'true')]"


_DRAW = """
import sys
from pathlib import Path
import airlab
from airlab import flentplots, plots, samples

res = airlab.run("basics/dumbbell-cubic", set={"duration": "1s"})
out = Path(sys.argv[1])
drawn = sorted(plots.plot_all(res, out))
sets = [flentplots.Dataset("run", samples.of_result(res))]
png = flentplots.figure("cdf", sets)._repr_png_()
print(drawn, "matplotlib.pyplot" in sys.modules, png[:4] == b"\\x89PNG")

# a user's pyplot sees none of airlab's figures (none left open, none shown twice)
import matplotlib.pyplot as plt
plots.plot_all(res, out)
flentplots.figure("box", sets)
print(plt.get_fignums())
"""


def test_drawing_uses_no_pyplot_and_leaves_no_figure_open(tmp_path: Path) -> None:
    first, second = _fresh(_DRAW, str(tmp_path)).splitlines()
    assert first == "['cwnd', 'links', 'queues', 'rtt', 'throughput'] False True"
    assert second == "[]"
    # the figures' size and resolution as before: 7 x 3.8 in (two panels: 7 x 5.6 in) at 160 dpi
    from PIL import Image

    sizes = {p.stem: Image.open(p).size for p in tmp_path.iterdir()}
    one, two = (1120, 608), (1120, 896)
    assert sizes == {"cwnd": one, "links": one, "queues": two, "rtt": one, "throughput": one}


_SAVE = """
import sys
from pathlib import Path
import airlab

res = airlab.run("basics/dumbbell-cubic", set={"duration": "1s"})
out = res.save(sys.argv[1])
print(sorted(p.name for p in (out / "plots").iterdir()), "pandas" in sys.modules)
"""


def test_saving_a_run_with_its_figures_and_report_loads_no_pandas(tmp_path: Path) -> None:
    # the tables are written and drawn from the engine's columns (importing pandas would cost
    # a third of a 1 s run's budget); a DataFrame is built only when one is read
    drawn, pandas = _fresh(_SAVE, str(tmp_path)).strip().rsplit(" ", 1)
    assert drawn == "['cwnd.png', 'links.png', 'queues.png', 'rtt.png', 'throughput.png']"
    assert pandas == "False"
    assert {p.name for p in tmp_path.glob("*.parquet")} == {
        f"{t}.parquet" for t in ("flows", "queues", "links", "wifi", "fcts", "pings", "batches")
    }
    assert (tmp_path / "report.html").stat().st_size > 0

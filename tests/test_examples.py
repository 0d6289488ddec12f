"""The example notebook runs from top to bottom (with short runs) and shows its plots."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "examples" / "sweep-plots.ipynb"


def test_the_sweep_notebook_runs_and_plots(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("AIRLAB_EXAMPLE_DURATION", "6s")
    monkeypatch.setenv("AIRLAB_EXAMPLE_OUT", str(tmp_path))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # the notebook as committed carries no outputs: what a reader sees comes from running it
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 3  # CDF, ellipsis, box
    html = "".join(o["data"].get("text/html", "") for o in outputs if "data" in o)
    assert "kind=fq_codel" in html and "goodput_mbps" in html
    # 4 queue disciplines x 3 seeds, and the plots the last cell wrote
    assert len(list((tmp_path / "runs").glob("*.json"))) == 12
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == [
        "ellipsis.pdf",
        "ellipsis.png",
    ]

"""docs/components.md is generated from the engine's declarations and stays so."""

from pathlib import Path

import airlab
from airlab import components_doc

ROOT = Path(__file__).resolve().parent.parent


def test_the_components_page_is_current() -> None:
    # `python -m airlab.components_doc` writes it again.
    assert not components_doc.stale(ROOT)


def test_the_page_lists_every_component_with_its_parameters() -> None:
    page = components_doc.render()
    for family in components_doc.FAMILIES:
        for name in airlab.components()[family]:
            assert f"### `{name}`" in page, name
    assert "| `window` | `100` |" in page
    assert "| `ber` | `0.000001` |" in page

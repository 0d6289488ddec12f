"""Writes the corpus of malformed Flent data files next to this script (run it from anywhere:
``python tests/data/flent-malformed/generate.py``); tests/test_flent.py says what error each
must give. Each JSON case is one small, valid Flent file (``BASE``) with one thing wrong, so
the error it gives is that thing's. The output is the same on every run (gzip without a time
stamp)."""

from __future__ import annotations

import bz2
import copy
import gzip
import json
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from airlab.flent import BYTES_PER_VALUE, MAX_BYTES, MAX_SERIES

HERE = Path(__file__).parent
ISO = "2026-01-02T03:04:05.000000Z"
T0 = 1767323045.0  # ISO as a Unix time
TCP, PING = "TCP upload", "Ping (ms) ICMP"

BASE: dict[str, Any] = {
    "version": 4,
    "metadata": {
        "NAME": "tcp_1up",
        "TITLE": "malformed corpus",
        "T0": ISO,
        "TIME": ISO,
        "TOTAL_LENGTH": 0.3,
        "STEP_SIZE": 0.1,
        "HOST": "server",
        "FLENT_VERSION": "2.3.0",
        "SERIES_META": {TCP: {"UNITS": "Mbits/s", "CONG_CONTROL": "cubic"}, PING: {"UNITS": "ms"}},
    },
    "x_values": [0.0, 0.1, 0.2, 0.3],
    "results": {TCP: [None, 9.5, 9.8, 9.7], PING: [None, 41.0, 45.5, None]},
    "raw_values": {
        TCP: [
            {"t": T0 + 0.1, "val": 9.5, "tcp_rtt": 40.2, "tcp_cwnd": 20},
            {"t": T0 + 0.2, "val": 9.8, "tcp_rtt": 44.9, "tcp_cwnd": 22},
            {"t": T0 + 0.3, "val": 9.7, "tcp_rtt": 46.0, "tcp_cwnd": 23},
        ],
        PING: [{"t": T0 + 0.1, "val": 41.0, "seq": 1}, {"t": T0 + 0.2, "val": 45.5, "seq": 2}],
    },
}

#: Placeholders for JSON that json.dumps does not write: an overflowing float literal and an
#: integer longer than Python converts (4300 digits).
RAW_TEXT = {'"@1e999"': "1e999", '"@5000 digits"': "9" * 5000}


def _set(*path: Any, value: Any = None, drop: bool = False) -> Callable[[dict[str, Any]], None]:
    """A change to BASE: the value at ``path`` set (or dropped)."""

    def change(doc: dict[str, Any]) -> None:
        *parents, last = path
        for p in parents:
            doc = doc[p]
        if drop:
            del doc[last]
        else:
            doc[last] = value

    return change


def _json(*changes: Callable[[dict[str, Any]], None]) -> bytes:
    doc = copy.deepcopy(BASE)
    for change in changes:
        change(doc)
    text = json.dumps(doc, indent=1)
    for placeholder, raw in RAW_TEXT.items():
        text = text.replace(placeholder, raw)
    return text.encode()


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def _bomb_gz() -> bytes:
    """One gzip stream of whitespace a MiB beyond airlab's bound: about 1,000 times smaller."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip header (time stamp 0)
    chunk = b" " * 2**20
    return b"".join(z.compress(chunk) for _ in range(MAX_BYTES // 2**20 + 1)) + z.flush()


def _bomb_bz2() -> bytes:
    """1 GiB of whitespace in under a kilobyte: bzip2 shrinks runs far more than gzip can."""
    z = bz2.BZ2Compressor(9)
    chunk = b" " * 2**20
    return b"".join(z.compress(chunk) for _ in range(1024)) + z.flush()


def _bad_crc() -> bytes:
    data = bytearray(_gz(_json()))
    data[-8] ^= 0xFF  # the trailer's CRC-32
    return bytes(data)


def _non_utf8() -> bytes:
    return _json(_set("metadata", "TITLE", value="@latin-1")).replace(b"@latin-1", b"caf\xe9")


LONG_NAME = "TCP upload " + "x" * 10_000
#: A series name with a terminal escape sequence: an error message must not pass it through.
ESCAPE_NAME = "TCP upload \x1b[31mred"


def cases() -> dict[str, bytes]:
    """File name -> content."""
    raw_tcp0 = ("raw_values", TCP, 0)
    meta, sm = "metadata", ("metadata", "SERIES_META")
    return {
        # -- the bytes: compression, size, encoding, JSON syntax
        "empty.flent.gz": b"",
        "empty-gzip.flent.gz": _gz(b""),
        "not-gzip.flent.gz": _json(),
        "truncated-gzip.flent.gz": _gz(_json())[:150],
        "corrupt-deflate.flent.gz": _gz(_json())[:10] + b"\xff" * 64,
        "bad-crc.flent.gz": _bad_crc(),
        "gzip-bomb.flent.gz": _bomb_gz(),
        "bzip2-bomb.flent.bz2": _bomb_bz2(),
        "json-values-bomb.flent.gz": _gz(b"[" + b"[]," * (MAX_BYTES // BYTES_PER_VALUE) + b"[]]"),
        "truncated-bzip2.flent.bz2": bz2.compress(_json())[:100],
        "not-json.flent.gz": _gz(b"this is not JSON\n"),
        "not-json-plain.flent": b"{'metadata': {}}\n",
        "non-utf8.flent.gz": _gz(_non_utf8()),
        "deep-nesting.flent.gz": _gz(b'{"metadata": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        "integer-5000-digits.flent.gz": _gz(_json(_set(*raw_tcp0, "val", value="@5000 digits"))),
        # -- the top level
        "top-level-array.flent.gz": _gz(b"[1, 2, 3]"),
        "top-level-null.flent.gz": _gz(b"null"),
        "no-version.flent.gz": _gz(_json(_set("version", drop=True))),
        "version-2.flent.gz": _gz(_json(_set("version", value=2))),
        "version-5.flent.gz": _gz(_json(_set("version", value=5))),
        "version-string.flent.gz": _gz(_json(_set("version", value="4"))),
        "no-metadata.flent.gz": _gz(_json(_set(meta, drop=True))),
        "no-x_values.flent.gz": _gz(_json(_set("x_values", drop=True))),
        "no-results.flent.gz": _gz(_json(_set("results", drop=True))),
        "no-raw_values.flent.gz": _gz(_json(_set("raw_values", drop=True))),
        "metadata-array.flent.gz": _gz(_json(_set(meta, value=[]))),
        "x_values-string.flent.gz": _gz(_json(_set("x_values", value="0.0 0.1 0.2"))),
        "results-array.flent.gz": _gz(_json(_set("results", value=[[1.0]]))),
        "raw_values-array.flent.gz": _gz(_json(_set("raw_values", value=[]))),
        # -- x_values and results
        "x_values-nan.flent.gz": _gz(_json(_set("x_values", 1, value=float("nan")))),
        "x_values-huge-integer.flent.gz": _gz(_json(_set("x_values", 3, value=10**400))),
        "results-series-object.flent.gz": _gz(_json(_set("results", TCP, value={"0": 1.0}))),
        "results-too-short.flent.gz": _gz(_json(_set("results", TCP, value=[None, 9.5]))),
        "results-too-long.flent.gz": _gz(_json(_set("results", PING, value=[1.0] * 5))),
        "results-value-string.flent.gz": _gz(_json(_set("results", TCP, 1, value="9.5"))),
        "results-value-infinity.flent.gz": _gz(_json(_set("results", PING, 2, value=float("inf")))),
        # -- raw values
        "raw-series-object.flent.gz": _gz(_json(_set("raw_values", TCP, value={"t": T0}))),
        "raw-sample-number.flent.gz": _gz(_json(_set("raw_values", PING, 1, value=45.5))),
        "raw-t-string.flent.gz": _gz(_json(_set(*raw_tcp0, "t", value="1767323045.1"))),
        "raw-t-1e999.flent.gz": _gz(_json(_set("raw_values", PING, 0, "t", value="@1e999"))),
        "raw-val-nan.flent.gz": _gz(_json(_set(*raw_tcp0, "val", value=float("nan")))),
        "raw-val-minus-infinity.flent.gz": _gz(
            _json(_set("raw_values", PING, 1, "val", value=float("-inf")))
        ),
        "raw-val-huge-integer.flent.gz": _gz(_json(_set(*raw_tcp0, "val", value=-(10**400)))),
        "raw-val-object.flent.gz": _gz(_json(_set(*raw_tcp0, "val", value={"mbps": 9.5}))),
        "raw-val-null.flent.gz": _gz(_json(_set("raw_values", PING, 0, "val", value=None))),
        "raw-val-true.flent.gz": _gz(_json(_set(*raw_tcp0, "val", value=True))),
        "raw-tcp_rtt-string.flent.gz": _gz(_json(_set(*raw_tcp0, "tcp_rtt", value="40 ms"))),
        "raw-tcp_cwnd-list.flent.gz": _gz(_json(_set(*raw_tcp0, "tcp_cwnd", value=[20]))),
        "raw-seq-null.flent.gz": _gz(_json(_set("raw_values", PING, 1, "seq", value=None))),
        "too-many-series.flent.gz": _gz(
            _json(_set("raw_values", value={f"s{i}": [] for i in range(MAX_SERIES + 1)}))
        ),
        "raw-long-series-name.flent.gz": _gz(
            _json(_set("raw_values", LONG_NAME, value=3), _set(*sm, LONG_NAME, value={}))
        ),
        "raw-escape-series-name.flent.gz": _gz(
            _json(_set("raw_values", ESCAPE_NAME, value=[1]), _set(*sm, ESCAPE_NAME, value={}))
        ),
        # -- metadata
        "series_meta-array.flent.gz": _gz(_json(_set(*sm, value=[TCP, PING]))),
        "series_meta-entry-string.flent.gz": _gz(_json(_set(*sm, TCP, value="Mbits/s"))),
        "series_meta-units-number.flent.gz": _gz(_json(_set(*sm, PING, "UNITS", value=1000))),
        "series_meta-flow-list.flent.gz": _gz(_json(_set(*sm, TCP, "AIRLAB_FLOW", value=["a"]))),
        "series_meta-flow-twice.flent.gz": _gz(
            _json(
                _set(*sm, TCP, "AIRLAB_FLOW", value="f"), _set(*sm, PING, "AIRLAB_FLOW", value="f")
            )
        ),
        "series_meta-cc-object.flent.gz": _gz(_json(_set(*sm, TCP, "CONG_CONTROL", value={}))),
        "name-number.flent.gz": _gz(_json(_set(meta, "NAME", value=42))),
        "title-array.flent.gz": _gz(_json(_set(meta, "TITLE", value=["a", "b"]))),
        "t0-number.flent.gz": _gz(_json(_set(meta, "T0", value=T0))),
        "t0-not-a-time.flent.gz": _gz(_json(_set(meta, "T0", value="yesterday at noon"))),
        "no-start-time.flent.gz": _gz(
            _json(_set(meta, "T0", drop=True), _set(meta, "TIME", drop=True))
        ),
        "time-bad-without-t0.flent.gz": _gz(
            _json(_set(meta, "T0", value=None), _set(meta, "TIME", value="2026-13-45T99:00:00"))
        ),
        "total_length-string.flent.gz": _gz(_json(_set(meta, "TOTAL_LENGTH", value="30 s"))),
        "total_length-negative.flent.gz": _gz(_json(_set(meta, "TOTAL_LENGTH", value=-1.0))),
        "total_length-huge-integer.flent.gz": _gz(_json(_set(meta, "TOTAL_LENGTH", value=10**309))),
        "airlab-string.flent.gz": _gz(_json(_set(meta, "AIRLAB", value="airlab 0.1.0"))),
        "airlab-warmup-nan.flent.gz": _gz(
            _json(_set(meta, "AIRLAB", value={"warmup_s": float("nan")}))
        ),
        "airlab-provenance-nested.flent.gz": _gz(
            _json(_set(meta, "AIRLAB", value={"provenance": {"seed": [1, [2, [3]]]}}))
        ),
    }


def main() -> None:
    for name, content in cases().items():
        (HERE / name).write_bytes(content)


if __name__ == "__main__":
    main()

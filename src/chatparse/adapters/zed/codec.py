"""Zed's thread blobs: which kind each is, and reading the kinds this Python can read.

A ``threads`` row's ``data`` is JSON, either as it is (``data_type`` ``json``, older rows) or
compressed as one zstd frame (``zstd``, what Zed writes today). The blob's own first bytes say
which it is (a zstd frame starts with ``28 b5 2f fd``); ``data_type`` is used only when they do
not.

zstd is in the standard library from Python 3.14 (:mod:`compression.zstd`, PEP 784). On an older
Python the ``backports.zstd`` package, with the same interface, is used when it is installed
(the ``zstd`` extra installs it there, and nothing on 3.14), and otherwise a compressed thread is
listed but its messages are not read, and ``doctor`` and the conversation's diagnostics say why.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Final

from attrs import frozen

__all__ = [
    "JSON",
    "MAX_THREAD_BYTES",
    "NO_ZSTD",
    "ZSTD",
    "Blob",
    "Unreadable",
    "blob_kind",
    "open_blob",
    "zstd_decoder",
]

JSON: Final = "json"
ZSTD: Final = "zstd"
ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"
MAX_THREAD_BYTES: Final = 512 * 1024 * 1024
"""The most a thread may decompress to: a frame that claims more is damage (or a bomb)."""
_ZSTD_MODULES: Final = ("compression.zstd", "backports.zstd")
NO_ZSTD: Final = (
    "the thread is zstd-compressed and this Python has no zstd decoder "
    "(Python 3.14 and later have one; on older versions: pip install 'chatparse[zstd]')"
)


def _find_zstd() -> Any:
    for name in _ZSTD_MODULES:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


_ZSTD_MODULE: Final = _find_zstd()


def _decompress_with(module: Any) -> Callable[[bytes], bytes]:
    def decompress(blob: bytes) -> bytes:
        decompressor = module.ZstdDecompressor()
        data: bytes = decompressor.decompress(blob, max_length=MAX_THREAD_BYTES)
        if not decompressor.eof:
            more = "longer than 512 MiB" if len(data) >= MAX_THREAD_BYTES else "cut short"
            raise ValueError(f"zstd frame {more}")
        return data

    return decompress


def zstd_decoder() -> Callable[[bytes], bytes] | None:
    """Decompress one zstd frame, when this Python can; ``None`` when it cannot."""
    return None if _ZSTD_MODULE is None else _decompress_with(_ZSTD_MODULE)


@frozen
class Blob:
    """A thread's JSON, ready to decode."""

    kind: str
    data: bytes


@frozen
class Unreadable:
    """A thread blob this Python cannot read (``malformed`` false) or that is damaged (true)."""

    kind: str
    reason: str
    malformed: bool


def blob_kind(blob: bytes, data_type: object) -> str:
    """``"zstd"`` or ``"json"`` by the blob's first bytes, else what ``data_type`` says."""
    if blob.startswith(ZSTD_MAGIC):
        return ZSTD
    if blob.lstrip()[:1] in (b"{", b"["):
        return JSON
    return data_type if isinstance(data_type, str) and data_type else "unknown"


def open_blob(
    blob: bytes, data_type: object, decompress: Callable[[bytes], bytes] | None
) -> Blob | Unreadable:
    """The JSON a blob holds, or why it cannot be had (``decompress``: see :func:`zstd_decoder`)."""
    kind = blob_kind(blob, data_type)
    if kind == JSON:
        return Blob(kind, blob)
    if kind != ZSTD:
        return Unreadable(kind, f"data_type {kind!r} is not one Zed writes", malformed=False)
    if decompress is None:
        return Unreadable(kind, NO_ZSTD, malformed=False)
    try:
        return Blob(kind, decompress(blob))
    except Exception as exc:  # noqa: BLE001 -- each codec raises its own error type for a bad frame
        return Unreadable(kind, f"not a readable zstd frame ({exc})", malformed=True)

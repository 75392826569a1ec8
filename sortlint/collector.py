"""Python's cyclic garbage collector paused while a burst of long-lived objects is made.

Splitting a big file, or receiving a big document's result, makes hundreds of thousands of
objects at once, none of them garbage; the collector's passes would go over them again and
again as they pile up. Pausing it is safe: it collects them later, once resumed. A pause on
one thread may be ended early by another thread's: that one only takes longer."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()

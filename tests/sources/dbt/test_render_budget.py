"""The render budget's watcher: one thread per process for every rendering (a thread per
rendering made a 1,200-model project's cold check slower, issue 31), which still stops a
rendering that computes past its budget, on any thread."""

from __future__ import annotations

import threading

import pytest

from sortlint.sources.dbt import budget


def watchers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "sortlint-render-budget"]


def test_renderings_share_one_watching_thread():
    seen = []
    for _ in range(20):
        with budget.limited(10, 1_000_000):
            seen.append(tuple(t.ident for t in watchers()))
    assert len(set(seen)) == 1 and len(seen[0]) == 1


def test_a_rendering_past_its_budget_is_stopped_while_others_go_on():
    outcomes: dict[str, str] = {}

    def render(name: str, forever: bool) -> None:
        try:
            with budget.limited(1, 1_000_000):
                while forever:
                    pass
            outcomes[name] = "finished"
        except budget.RenderTimedOut:
            outcomes[name] = "timed out"

    threads = [threading.Thread(target=render, args=("endless", True)),
               threading.Thread(target=render, args=("quick", False))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert outcomes == {"endless": "timed out", "quick": "finished"}
    with pytest.raises(budget.RenderTimedOut):
        with budget.limited(1, 1_000_000):
            while True:
                pass
    assert len(watchers()) == 1

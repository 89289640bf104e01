"""How the README's figures are written: rates, times, ratios, from rows of a run."""

from __future__ import annotations

from benchmarks.figures import Cell

X = "×"


def rate(value: float) -> str:
    """A rate as people quote it: 621k, 1.39M, 5,657."""
    if value >= 1e6:
        return f"{value / 1e6:.2f}M"
    if value >= 1e4:
        return f"{value / 1e3:.0f}k"
    return f"{value:,.0f}"


def secs(value: float) -> str:
    return f"{value:.2f} s"


def ms(value: float) -> str:
    """Milliseconds, as seconds from one second up (1,595 ms reads as 1.6 s)."""
    if value >= 1000:
        return f"{value / 1000:.3g} s" if value < 100_000 else f"{value / 1000:,.0f} s"
    return f"{value:.3g} ms" if value < 100 else f"{value:,.0f} ms"


def us(value: float) -> str:
    return f"{value:.3g} µs" if value < 1000 else f"{value:,.0f} µs"


def times(value: float) -> str:
    return f"{value:.2f}{X}" if value < 10 else f"{value:,.0f}{X}"


def mb(value: float) -> str:
    return f"{value:.3g} MB" if value < 100 else f"{value:,.0f} MB"


def arrow(*cells: Cell) -> Cell:
    return lambda r: " → ".join(cell(r) for cell in cells)


def authz(workload: str, impl: str = "aclog", metric: str = "p50") -> Cell:
    return lambda r: us(r.value("authz", impl, workload, metric))

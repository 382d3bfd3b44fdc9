"""The bench's training-memory goals (issue 23 part 6): ResNet peak RSS at most 1.1x PyTorch's,
the MNIST CNN's peak RSS within 10% across Frost runs and at most PyTorch's, as printed rows."""
from __future__ import annotations

from nsm.bench import memory_goals

MB = 2**20


def systems(frost_mb: float, torch_mb: float | None) -> dict:
    s = {"frost": {"summary": {"peak_rss_mb": frost_mb}}}
    if torch_mb is not None:
        s["torch"] = {"summary": {"peak_rss_mb": torch_mb}}
    return s


def test_resnet_ratio_goal():
    [row] = memory_goals.resnet(systems(1137, 1377))
    assert memory_goals.text(row, "resnet18") == (
        "memory goal (resnet18) peak RSS <= 1.1x PyTorch's: 1137 MB vs 1377 MB (0.83x)  PASS")
    [row] = memory_goals.resnet(systems(2948, 1324))
    assert row["pass"] is False and row["measured"].endswith("(2.23x)")
    [row] = memory_goals.resnet(systems(1000, None))
    assert memory_goals.text(row, "resnet18").endswith("not measured (needs --compare torch)  -")


def test_mnist_spread_and_torch_goals():
    res = {"frost": {"runs_peak_rss_bytes": [400 * MB, 430 * MB, 410 * MB]},
           "torch": {"peak_rss_bytes": 829 * MB}}
    spread, vs_torch = memory_goals.mnist(res)
    assert memory_goals.text(spread, "mnist cnn") == (
        "memory goal (mnist cnn) peak RSS within 10% across runs: 400, 430, 410 MB "
        "(spread 7.5%)  PASS")
    assert vs_torch["pass"] is True and vs_torch["measured"] == "410 MB (median) vs 829 MB (0.49x)"
    res["frost"]["runs_peak_rss_bytes"] = [374 * MB, 511 * MB]
    assert memory_goals.mnist(res)[0]["pass"] is False
    one = memory_goals.mnist({"frost": {"runs_peak_rss_bytes": [900 * MB]}})
    assert [r["pass"] for r in one] == [None, None]

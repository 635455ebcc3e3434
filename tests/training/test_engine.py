"""learn_merges pauses the cyclic garbage collector while it runs and always leaves it as it found
it: enabled or disabled, after a normal return and after an error raised from inside the loop."""

import gc

import pytest

from bpe_core.training.engine import learn_merges
from bpe_core.training.pairs import id_string, merge_pair_in_words


def _learn(progress=None):
    words = [id_string(b"abab"), id_string(b"abc"), id_string(b"bcd")]
    return learn_merges(
        words,
        [3, 2, 1],
        token_bytes={i: bytes([i]) for i in range(256)},
        next_id=256,
        num_merges=3,
        min_frequency=1,
        tie_break="lexicographic",
        progress=progress,
    )


@pytest.fixture
def restore_gc():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_paused_during_the_loop_and_enabled_after(restore_gc):
    gc.enable()
    seen = []
    merges, _ = _learn(lambda phase, done, total: seen.append(gc.isenabled()))
    assert len(merges) == 3 and seen and not any(seen)
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled(restore_gc):
    gc.disable()
    _learn()
    assert not gc.isenabled()


def test_an_error_inside_the_loop_still_restores_the_collector(restore_gc):
    gc.enable()

    def stop(phase, done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _learn(stop)
    assert gc.isenabled()


def test_merging_a_pair_skips_words_that_lost_it():
    words = ["abab", "xy", "cab"]
    counts = {"ab": 3, "ba": 1, "xy": 1, "ca": 1}
    where = {"ab": [0, 2], "ba": [0], "xy": [1], "ca": [2]}
    replaced, created = merge_pair_in_words("ab", "Z", [0, 1, 2], words, [1, 1, 1], counts, where)
    assert words == ["ZZ", "xy", "cZ"]
    assert replaced == 3 and created == ["ZZ", "cZ"]
    assert counts == {"ab": 3, "ba": 0, "xy": 1, "ca": 0, "ZZ": 1, "cZ": 1}
    assert where["ZZ"] == [0] and where["cZ"] == [2]

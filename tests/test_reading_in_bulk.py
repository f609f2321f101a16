"""``structpred.io.reading_in_bulk``: the cyclic collector paused in the block, then what
was read frozen; resumed and nothing frozen on an exception."""

import gc

import pytest

from structpred.io import reading_in_bulk


@pytest.fixture(autouse=True)
def _thawed():
    yield
    gc.unfreeze()
    gc.enable()


def test_the_collector_pauses_in_the_block_and_what_was_read_is_frozen():
    gc.unfreeze()
    assert gc.isenabled()
    with reading_in_bulk():
        assert not gc.isenabled()
        lists = [[str(i), str(i + 1)] for i in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(lists)
    assert not any(gc.is_tracked(x) and x in gc.get_objects(generation=2) for x in lists[:3])


def test_an_exception_resumes_the_collector_and_freezes_nothing():
    gc.unfreeze()
    with pytest.raises(ValueError):
        with reading_in_bulk():
            raise ValueError("a bad line")
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_paused_collector_stays_paused():
    gc.unfreeze()
    gc.disable()
    with reading_in_bulk():
        pass
    assert not gc.isenabled()

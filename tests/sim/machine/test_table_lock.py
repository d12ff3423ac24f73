"""The memory tables and their lock (helpers/sim/machine/table_lock.py): a change made while its
own thread holds the lock (a finalizer run by a garbage collection) waits until the thread lets
go; one from another thread waits for the lock. A table finds the value whose start is the last
at or below an address, and those around it."""

import threading

import pytest

from helpers.sim.machine.table_lock import AddressTable, TableLock


def test_a_change_inside_the_lock_is_made_when_its_thread_lets_go_in_order():
    lock, done = TableLock(), []
    with lock:
        with lock:
            lock.change(done.append, 1)
            lock.change(done.append, 2)
        assert done == []  # still held once
    assert done == [1, 2]


def test_a_change_queued_while_the_queue_is_emptied_is_made_too():
    lock, done = TableLock(), []

    def first():
        done.append("first")
        lock.change(done.append, "second")  # as a collection during a change would

    with lock:
        lock.change(first)
    assert done == ["first", "second"]


def test_a_change_outside_the_lock_is_made_at_once_and_its_error_raised():
    lock, done = TableLock(), []
    lock.change(done.append, 1)
    assert done == [1]
    with pytest.raises(ZeroDivisionError):
        lock.change(lambda: 1 / 0)
    with lock:  # a queued change's error is a finalizer's: it does not reach the holder
        lock.change(lambda: 1 / 0)
        lock.change(done.append, 2)
    assert done == [1, 2]


def test_another_thread_waits_for_the_lock_and_then_makes_its_change():
    lock, done, holding, release = TableLock(), [], threading.Event(), threading.Event()

    def hold():
        with lock:
            holding.set()
            release.wait(10)
            done.append("holder")

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(10)
    other = threading.Thread(target=lambda: lock.change(done.append, "other"))
    other.start()
    other.join(0.2)
    assert other.is_alive() and done == []  # waiting for the lock, not queued behind it
    release.set()
    holder.join(10)
    other.join(10)
    assert done == ["holder", "other"]


def test_a_table_finds_the_last_start_at_or_below_an_address_and_those_around_it():
    table = AddressTable()
    for start in (300, 100, 200):
        table.add(start, f"at {start}")
    table.add(200, "again at 200")  # in place of the one there
    assert len(table) == 3 and 200 in table and 150 not in table
    assert [table.at_or_below(a) for a in (99, 100, 199, 200, 10**9)] == [
        None, "at 100", "at 100", "again at 200", "at 300"]
    assert table.around(250) == ["at 100", "again at 200", "at 300"]
    assert table.around(50) == ["at 100"]
    assert table.pop(100) == "at 100" and table.pop(100) is None
    with table.lock:
        table.forget(300)  # as a finalizer run inside a lookup: made when the lock is let go
        assert 300 in table
    assert table.values() == ["again at 200"] and table.at_or_below(10**9) == "again at 200"

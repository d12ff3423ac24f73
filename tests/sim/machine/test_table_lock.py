"""The lock of the memory tables (helpers/sim/machine/table_lock.py): a change made while its own
thread holds the lock (a finalizer run by a garbage collection) waits until the thread lets go;
one from another thread waits for the lock."""

import threading

import pytest

from helpers.sim.machine.table_lock import TableLock


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

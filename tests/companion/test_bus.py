"""The event bus: order, filtering, unsubscribe, a broken subscriber never silences the rest, and
delivery on the dispatcher thread, outside every publisher's lock."""

import threading
import time

from hypothesis import given, settings, strategies as st

from companion.bus import EventBus, Outbox


def test_subscribers_receive_messages_in_publish_order_with_rising_sequence():
    bus = EventBus(wall_clock=lambda: 12.5)
    seen = []
    bus.subscribe(seen.append)
    bus.publish("turn", seat="north")
    bus.publish("played", seat="north", card="red-1")
    assert bus.join(timeout=30)
    assert [(m.seq, m.type) for m in seen] == [(1, "turn"), (2, "played")]
    assert seen[1].to_json() == {"seq": 2, "type": "played", "time": 12.5, "seat": "north",
                                 "card": "red-1"}


def test_last_seq_is_the_last_message_published_delivered_or_not():
    bus = EventBus()
    assert bus.last_seq == 0
    release = threading.Event()
    bus.subscribe(lambda m: release.wait(5))
    first = bus.publish("a")
    second = bus.publish("b")
    assert bus.last_seq == second.seq == first.seq + 1        # before either is delivered
    release.set()
    assert bus.join(5) and bus.last_seq == second.seq


def test_types_narrow_what_a_subscriber_receives():
    bus = EventBus()
    turns = []
    bus.subscribe(turns.append, types={"turn"})
    bus.publish("played", card="red-1")
    bus.publish("turn", seat="east")
    bus.join()
    assert [m.type for m in turns] == ["turn"]


def test_unsubscribe_stops_delivery():
    bus = EventBus()
    seen = []
    unsubscribe = bus.subscribe(seen.append)
    bus.publish("a")
    bus.join()
    unsubscribe()
    unsubscribe()  # twice is harmless
    bus.publish("b")
    bus.join()
    assert [m.type for m in seen] == ["a"]


def test_a_failing_subscriber_does_not_stop_the_others(caplog):
    bus = EventBus()
    seen = []

    def broken(message):
        raise RuntimeError("boom")

    bus.subscribe(broken)
    bus.subscribe(seen.append)
    bus.publish("turn", seat="west")
    bus.publish("turn", seat="north")
    bus.join()
    assert [m.data["seat"] for m in seen] == ["west", "north"]
    assert "boom" in caplog.text


def test_publishing_from_many_threads_keeps_one_total_order():
    bus = EventBus()
    seen = []
    bus.subscribe(lambda m: seen.append(m.seq))
    threads = [threading.Thread(target=lambda: [bus.publish("x") for _ in range(200)])
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bus.join()
    assert seen == list(range(1, 801))


def test_publish_order_is_kept_per_thread_and_seq_is_the_delivery_order():
    bus = EventBus()
    seen = []
    bus.subscribe(lambda m: seen.append((m.seq, m.data["by"], m.data["n"])))

    def publisher(by):
        for n in range(300):
            bus.publish("x", by=by, n=n)

    threads = [threading.Thread(target=publisher, args=(by,)) for by in "abcd"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bus.join()
    assert [s for s, _, _ in seen] == list(range(1, 1201))
    for by in "abcd":
        assert [n for _, b, n in seen if b == by] == list(range(300))


def test_delivery_happens_on_the_dispatcher_thread_not_under_the_publishers_lock():
    bus = EventBus()
    lock = threading.Lock()
    where = []

    def subscriber(message):
        # the publisher still holds its lock when it publishes: a synchronous delivery
        # would find it held (and, taking it, deadlock)
        where.append((threading.current_thread().name, lock.acquire(timeout=30)))
        lock.release()

    bus.subscribe(subscriber)
    with lock:
        bus.publish("under-a-lock")
    assert bus.join(timeout=30)
    assert where == [("event-bus", True)]


def test_a_subscriber_that_publishes_does_not_deadlock_and_its_message_comes_after():
    bus = EventBus()
    seen = []

    def echo(message):
        seen.append(message.type)
        if message.type == "ping":
            bus.publish("pong")
            assert bus.join() is False  # the dispatcher cannot wait for itself

    bus.subscribe(echo)
    bus.publish("ping")
    bus.publish("after")
    assert bus.join(timeout=30)
    assert bus.join(timeout=30)  # the pong published meanwhile
    assert seen[0] == "ping" and sorted(seen[1:]) == ["after", "pong"]  # pong after its ping


def test_join_waits_for_a_slow_subscriber():
    bus = EventBus()
    release = threading.Event()
    done = []

    def slow(message):
        release.wait(30)
        done.append(message.type)

    bus.subscribe(slow)
    bus.publish("slow")
    assert bus.join(timeout=0.01) is False and done == []  # still held up
    release.set()
    assert bus.join(timeout=30) and done == ["slow"]


def test_close_delivers_what_is_queued_and_drops_what_comes_after(caplog):
    bus = EventBus()
    seen = []
    bus.subscribe(lambda m: seen.append(m.type))
    bus.publish("before")
    assert bus.close(timeout=30) and bus.closed
    message = bus.publish("after")
    assert message.seq == 2 and bus.join(timeout=30)
    assert seen == ["before"] and "after the bus was closed" in caplog.text


def test_an_outbox_filled_under_a_lock_by_many_threads_publishes_in_lock_order():
    bus = EventBus()
    seen = []
    bus.subscribe(lambda m: seen.append(m.data["v"]))
    outbox, lock, state = Outbox(bus), threading.Lock(), {"n": 0}

    def changer():
        for _ in range(300):
            with lock:  # the state changes and its events are queued together
                state["n"] += 1
                outbox.add([("x", {"v": state["n"]})])
            time.sleep(0)  # let another thread change the state before this one publishes
            outbox.flush()  # published outside the lock

    threads = [threading.Thread(target=changer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    outbox.flush()
    bus.join()
    assert seen == list(range(1, 1201))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), max_size=5), max_size=12))
def test_an_outbox_publishes_batches_in_the_order_they_were_added(batches):
    bus = EventBus()
    seen = []
    bus.subscribe(lambda m: seen.append(m.data["v"]))
    outbox = Outbox(bus)
    for batch in batches:
        outbox.add([("x", {"v": v}) for v in batch])
    outbox.flush()
    bus.join()
    assert seen == [v for batch in batches for v in batch]

"""The event bus: order, filtering, unsubscribe, and a broken subscriber never silences the rest."""

import threading

from companion.bus import EventBus


def test_subscribers_receive_messages_in_publish_order_with_rising_sequence():
    bus = EventBus(wall_clock=lambda: 12.5)
    seen = []
    bus.subscribe(seen.append)
    bus.publish("turn", seat="north")
    bus.publish("played", seat="north", card="red-1")
    assert [(m.seq, m.type) for m in seen] == [(1, "turn"), (2, "played")]
    assert seen[1].to_json() == {"seq": 2, "type": "played", "time": 12.5, "seat": "north",
                                 "card": "red-1"}


def test_types_narrow_what_a_subscriber_receives():
    bus = EventBus()
    turns = []
    bus.subscribe(turns.append, types={"turn"})
    bus.publish("played", card="red-1")
    bus.publish("turn", seat="east")
    assert [m.type for m in turns] == ["turn"]


def test_unsubscribe_stops_delivery():
    bus = EventBus()
    seen = []
    unsubscribe = bus.subscribe(seen.append)
    bus.publish("a")
    unsubscribe()
    unsubscribe()  # twice is harmless
    bus.publish("b")
    assert [m.type for m in seen] == ["a"]


def test_a_failing_subscriber_does_not_stop_the_others(caplog):
    bus = EventBus()
    seen = []

    def broken(message):
        raise RuntimeError("boom")

    bus.subscribe(broken)
    bus.subscribe(seen.append)
    bus.publish("turn", seat="west")
    assert [m.type for m in seen] == ["turn"]
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
    assert seen == list(range(1, 801))

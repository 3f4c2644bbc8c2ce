"""A club night: every table publishes to an MQTT broker, one league page shows them all.

Opt-in with a ``[league]`` section in the configuration (docs/league.md). Each table runs a
:class:`~league.publisher.TablePublisher` beside its companion: it reads the table's event log
(the truth) and publishes every entry with its log's id and sequence number (QoS 1) on
``uno/<league>/<table>/events``, the table's state (retained) on ``.../state`` and ``online``
(retained, ``false`` by the connection's last will) on ``.../online``. ``companion league``
runs a :class:`~league.subscriber.LeagueSubscriber` feeding a :class:`~league.view.LeagueView`
(every table, the standings, each match's history) kept in a :class:`~league.store.LeagueStore`,
and serves it with :func:`~league.page.create_app`.

This package sits beside ``web/``, ``vision/`` and ``hardware/`` and imports only ``companion``.
"""

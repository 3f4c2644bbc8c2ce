"""A phone that joined the table, for tests through Flask's test client."""

from __future__ import annotations


def joined(app, seat):
    """A test client joined as ``seat`` (None: the organiser, with the app's organiser PIN) and
    the CSRF header its POSTs need."""
    c = app.test_client()
    r = c.post("/api/join", json={"token": "tok", "seat": seat, "pin": organiser_pin(app)})
    assert r.status_code == 200, r.json
    return c, {"X-CSRF-Token": r.json["csrf"]}


def organiser_pin(app) -> str:
    """The app's organiser PIN (shown on the table screen on the table's own machine)."""
    return app.extensions["companion"]["phones"].organiser_pin

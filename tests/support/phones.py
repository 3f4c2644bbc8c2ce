"""A phone that joined the table, for tests through Flask's test client."""

from __future__ import annotations


def joined(app, seat):
    """A test client joined as ``seat`` (None: the organiser) and the CSRF header its POSTs need."""
    c = app.test_client()
    r = c.post("/api/join", json={"token": "tok", "seat": seat})
    assert r.status_code == 200, r.json
    return c, {"X-CSRF-Token": r.json["csrf"]}

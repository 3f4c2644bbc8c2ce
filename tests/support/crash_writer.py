"""A real process for the kill -9 test: referees a scripted match into an event log.

    python -m tests.support.crash_writer DB SCRIPT [PACE]

SCRIPT holds a replay (set-up line, then action lines). The writer resumes the unfinished match
in DB if there is one, applies the script's actions from where the log stands, and prints
``acked N`` after the N-th action is written: from that moment it must survive a kill -9.
PACE (seconds, default 0) spaces the actions, as a real table would, so that a kill at a
random moment can land anywhere in the match.
"""

from __future__ import annotations

import json
import sys
import time

from companion.eventlog import EventLog
from companion.host import Host


def main(db: str, script: str, pace: str = "0") -> int:
    with open(script, encoding="utf-8") as fh:
        lines = [json.loads(line) for line in fh if line.strip()]
    setup, actions = lines[0], lines[1:]
    host = Host(EventLog(db), mode="timer")
    table = host.table or host.start_match(setup)
    done = len(table.actions_taken())
    print(f"resumed {done}", flush=True)
    for n, action in enumerate(actions[done:], start=done + 1):
        table.act(action, source="script")
        print(f"acked {n}", flush=True)
        time.sleep(float(pace))
    print("finished " + json.dumps(table.state_json(), sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

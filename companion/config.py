"""Configuration: one TOML file, every key documented in ``docs/configuration.md``.

Command-line options override the file. Unknown sections or keys and wrongly typed values stop
the companion with a :class:`ConfigError` that names the key and what it expects: a typo in a
config file must never be silently ignored on a table with no screen. A file that cannot be read
at all (missing, a folder, not readable, not UTF-8, not TOML, nested too deeply) is one
:class:`ConfigError` too, never a traceback.

>>> cfg = load_config(None, {"web.port": 9000})
>>> cfg.web.port, cfg.table.mode, cfg.rules["turn_seconds"]
(9000, 'referee', 30)
"""

from __future__ import annotations

import dataclasses
import os
import re
import reprlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Config", "ConfigError", "LeagueSection", "load_config", "default_state_dir"]


class ConfigError(ValueError):
    """A configuration file or option that cannot be used; the message says which key and why."""


def default_state_dir() -> Path:
    """Where the event log lives: $STATE_DIRECTORY (systemd), else ~/.local/state/uno-companion."""
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "uno-companion"


@dataclass(frozen=True)
class TableSection:
    #: referee (the camera reads the table), timer (no camera: phones/buttons end turns) or
    #: scoreboard (scores typed on a phone or computed from hands).
    mode: str = "referee"
    #: The game the set-up page proposes first: grid, flip or classic.
    game: str = "grid"
    #: Seats, clockwise. Grid game: side names (north, east, south, west).
    seats: tuple[str, ...] = ("north", "south")


@dataclass(frozen=True)
class CameraSection:
    #: auto (the Pi camera; refused where there is none, never the synthetic table), picamera,
    #: opencv:<index or video file>, folder:<path of images>, synthetic.
    source: str = "auto"
    width: int = 1280
    height: int = 720
    fps: int = 15
    #: Failed reads in a row before the table hears "camera lost" (a glitch is not a loss).
    lost_after: int = 3
    #: Good frames in a row before the table hears "camera ok" again (no flapping).
    ok_after: int = 5
    #: The Pi camera's sensor mode: full (the fastest mode that shows the sensor's whole field of
    #: view), auto (picamera2's own choice: often a centre crop) or WIDTHxHEIGHT (that mode).
    sensor_mode: str = "full"
    #: The lens's height above the mat in cm: the Pi camera focuses there where it has a lens
    #: control (Camera Module 3). 0 leaves the focus alone.
    height_cm: int = 88
    #: manual (focus at height_cm) or once (one autofocus cycle at start, then held; never
    #: continuous: the lens would hunt whenever a hand passes).
    focus: str = "manual"
    #: The mains frequency in Hz (50 or 60; 0: none): lamps flicker at twice it, and the exposure
    #: is kept to whole flicker periods so that the picture neither bands nor pulses.
    mains_hz: int = 50
    #: full (the hands laid open at a round's end are read in a still at the sensor's full width)
    #: or off (in the frames: a Pi without the memory for a full-resolution picture).
    still: str = "full"
    #: MB of disk the frames the camera's calls were taken on may take (beside the event log;
    #: the current match's and the one before; the oldest dropped first). 0: none kept.
    evidence_mb: int = 50


@dataclass(frozen=True)
class WebSection:
    host: str = "0.0.0.0"
    port: int = 8000
    #: The address phones use (in the QR code); empty = this machine's LAN IP address.
    public_url: str = ""
    #: How many phones may hold one seat (the organiser may change it on the set-up page).
    phones_per_seat: int = 1
    #: More names the web page answers to (besides loopback, the LAN address and host name).
    allowed_hosts: tuple[str, ...] = ()


@dataclass(frozen=True)
class LogSection:
    #: The SQLite event log; empty = <state dir>/events.sqlite3.
    path: str = ""


@dataclass(frozen=True)
class LeagueSection:
    """A club night (docs/league.md): the MQTT broker every table publishes to, opt-in."""

    #: mqtt://host[:port] (1883) or mqtts://host[:port] (8883, TLS); empty = no league.
    broker: str = ""
    #: The league's name: the second level of every topic (uno/<league>/<table>/...).
    league: str = "club"
    #: This table's name in the league; empty = this table does not publish (the league's own
    #: machine leaves it empty).
    table: str = ""
    #: The broker account (the ACL in deploy/mosquitto/ lets a table write only its own topics).
    username: str = ""
    password: str = ""
    #: The CA certificate that signed the broker's (mqtts:// only); empty = the system's CAs.
    ca_file: str = ""
    #: The league page's address, linked from this table's page; empty = no link.
    page_url: str = ""
    #: Where ``companion league`` keeps what it heard; empty = <state dir>/league.sqlite3.
    store: str = ""


@dataclass(frozen=True)
class Config:
    table: TableSection = field(default_factory=TableSection)
    #: docs/rules.md flags by name (turn_seconds, timeout_action, wild_matches_all, ...), handed to
    #: the engine, which checks them.
    rules: dict[str, Any] = field(default_factory=lambda: {"turn_seconds": 30})
    camera: CameraSection = field(default_factory=CameraSection)
    #: The GPIO pin map, read by :mod:`hardware` (see docs/hardware.md for keys and defaults).
    pins: dict[str, Any] = field(default_factory=dict)
    web: WebSection = field(default_factory=WebSection)
    log: LogSection = field(default_factory=LogSection)
    league: LeagueSection = field(default_factory=LeagueSection)

    def log_path(self) -> Path:
        return Path(self.log.path).expanduser() if self.log.path else default_state_dir() / "events.sqlite3"

    def league_store_path(self) -> Path:
        """Where ``companion league`` keeps what it heard from the tables."""
        return (Path(self.league.store).expanduser() if self.league.store
                else default_state_dir() / "league.sqlite3")


_SECTIONS = {"table": TableSection, "camera": CameraSection, "web": WebSection, "log": LogSection,
             "league": LeagueSection}
_FREE_SECTIONS = ("rules", "pins")  # checked by the engine and by hardware/


def _shown(value: Any) -> str:
    """A value as the message echoes it: cut short (a file may hold a huge list)."""
    return reprlib.repr(value)


def _read_toml(path: str | Path) -> dict[str, Any]:
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"configuration file {path} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"configuration file {path} is a folder, not a file") from None
    except OSError as exc:
        raise ConfigError(f"configuration file {path} cannot be read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise ConfigError(f"configuration file {path} is not UTF-8 text (line {line}, byte "
                          f"0x{raw[exc.start]:02x})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"configuration file {path} is not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"configuration file {path} is not valid TOML for this companion: "
                          "a value nested too deeply") from None


def _section(cls: type, name: str, values: dict[str, Any]) -> Any:
    known = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"[{name}] has no key {key!r}; known keys: {', '.join(known)}")
        default = known[key].default
        if isinstance(default, tuple):
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"[{name}] {key} must be a list of strings, got {_shown(value)}")
            value = tuple(value)
        elif isinstance(default, int) and (not isinstance(value, int) or isinstance(value, bool)):
            raise ConfigError(f"[{name}] {key} must be a whole number, got {_shown(value)}")
        elif isinstance(default, str) and not isinstance(value, str):
            raise ConfigError(f"[{name}] {key} must be a string, got {_shown(value)}")
        kwargs[key] = value
    section = cls(**kwargs)
    if cls is TableSection and section.mode not in ("referee", "timer", "scoreboard"):
        raise ConfigError(f"[table] mode must be referee, timer or scoreboard, got {section.mode!r}")
    if cls is TableSection and section.game not in ("grid", "flip", "classic"):
        raise ConfigError(f"[table] game must be grid, flip or classic, got {section.game!r}")
    if cls is CameraSection:
        for key in ("lost_after", "ok_after"):
            if getattr(section, key) < 1:
                raise ConfigError(f"[camera] {key} must be 1 or more, got {getattr(section, key)}")
        if section.sensor_mode not in ("full", "auto") and not re.fullmatch(r"\d+x\d+", section.sensor_mode):
            raise ConfigError(f"[camera] sensor_mode must be full, auto or WIDTHxHEIGHT (a mode of "
                              f"`rpicam-hello --list-cameras`), got {section.sensor_mode!r}")
        if section.still not in ("full", "off"):
            raise ConfigError(f"[camera] still must be full or off, got {section.still!r}")
        if section.focus not in ("manual", "once"):
            raise ConfigError(f"[camera] focus must be manual or once, got {section.focus!r}")
        if section.mains_hz not in (0, 50, 60):
            raise ConfigError(f"[camera] mains_hz must be 50, 60 or 0 (no flicker handling), got "
                              f"{section.mains_hz}")
        if not 0 <= section.evidence_mb <= 100_000:
            raise ConfigError(f"[camera] evidence_mb must be 0-100000 (MB of frames kept; 0: none), "
                              f"got {section.evidence_mb}")
        if section.height_cm != 0 and not 20 <= section.height_cm <= 300:
            raise ConfigError(f"[camera] height_cm must be 20-300 (the lens above the mat), or 0 "
                              f"(leave the focus alone), got {section.height_cm}")
    if cls is WebSection and not 0 <= section.port < 65536:
        # 0 asks the system for any free port (tests, a second demo on one laptop).
        raise ConfigError(f"[web] port must be 0-65535, got {section.port}")
    if cls is WebSection and not 1 <= section.phones_per_seat <= 8:
        raise ConfigError(f"[web] phones_per_seat must be 1-8, got {section.phones_per_seat}")
    if cls is LeagueSection:
        _check_league(section)
    return section


#: What may not appear in a league's or a table's name: it is one level of an MQTT topic.
_TOPIC_LEVEL_FORBIDDEN = set("/+#\0")


def _check_league(section: LeagueSection) -> None:
    """One line per mistake: a bad broker address, a name that is not one topic level, a
    password with no user, a CA file that is missing or not for a TLS broker."""
    from urllib.parse import urlsplit

    for key in ("league", "table"):
        value = getattr(section, key)
        if (key == "league" and not value) or len(value) > 64 or \
                _TOPIC_LEVEL_FORBIDDEN & set(value) or value != value.strip():
            raise ConfigError(f"[league] {key} must be 1-64 characters with no / + # or spaces "
                              f"around, got {_shown(value)}")
    if section.broker:
        url = urlsplit(section.broker)
        try:
            port = url.port
        except ValueError:
            raise ConfigError(f"[league] broker has a bad port: {_shown(section.broker)}") from None
        if url.scheme not in ("mqtt", "mqtts") or not url.hostname or url.path not in ("", "/") \
                or port == 0:
            raise ConfigError("[league] broker must look like mqtt://host:1883 or "
                              f"mqtts://host:8883, got {_shown(section.broker)}")
    elif section.table:
        raise ConfigError(f"[league] table is {section.table!r} but broker is empty: set the "
                          "broker's address (mqtt://host:1883)")
    if section.password and not section.username:
        raise ConfigError("[league] password is set but username is empty")
    if section.page_url:
        page = urlsplit(section.page_url)
        if page.scheme not in ("http", "https") or not page.netloc:
            raise ConfigError("[league] page_url must look like http://host:8100/, got "
                              f"{_shown(section.page_url)}")
    if section.ca_file:
        if not section.broker.startswith("mqtts://"):
            raise ConfigError("[league] ca_file is only used with a TLS broker (mqtts://...)")
        if not Path(section.ca_file).expanduser().is_file():
            raise ConfigError(f"[league] ca_file {section.ca_file} does not exist")
        import ssl

        try:
            ssl.create_default_context(cafile=str(Path(section.ca_file).expanduser()))
        except (ssl.SSLError, OSError, ValueError) as exc:
            raise ConfigError(f"[league] ca_file {section.ca_file} is not a CA certificate in "
                              f"PEM form ({getattr(exc, 'reason', None) or exc})") from None


def load_config(path: str | Path | None, overrides: dict[str, Any] | None = None) -> Config:
    """Read ``path`` (None: defaults only) and apply ``overrides`` ({"web.port": 9000, ...})."""
    data: dict[str, Any] = _read_toml(path) if path is not None else {}
    for dotted, value in (overrides or {}).items():
        if value is None:
            continue
        section, _, key = dotted.partition(".")
        if not isinstance(data.setdefault(section, {}), dict):
            raise ConfigError(f"[{section}] must be a table of keys, got {section} = "
                              f"{_shown(data[section])}")
        data[section][key] = value
    unknown = set(data) - set(_SECTIONS) - set(_FREE_SECTIONS)
    if unknown:
        raise ConfigError(f"unknown section(s) {', '.join(sorted(unknown))}; known: "
                          f"{', '.join(list(_SECTIONS) + list(_FREE_SECTIONS))}")
    kwargs: dict[str, Any] = {}
    for name, cls in _SECTIONS.items():
        values = data.get(name, {})
        if not isinstance(values, dict):
            raise ConfigError(f"[{name}] must be a table of keys")
        kwargs[name] = _section(cls, name, values)
    for name in _FREE_SECTIONS:
        if name in data and not isinstance(data[name], dict):
            raise ConfigError(f"[{name}] must be a table of keys")
    kwargs["rules"] = {"turn_seconds": 30, **data.get("rules", {})}
    kwargs["pins"] = dict(data.get("pins", {}))
    return Config(**kwargs)

"""A real Mosquitto for the league's tests, on a free loopback port, set up from deploy/mosquitto/.

The broker's configuration is the club's one (deploy/mosquitto/uno-league.conf and its ACL),
with the paths moved into the test's folder and the listener on 127.0.0.1:<free port>; the
accounts are made with ``mosquitto_passwd``. :func:`mosquitto_or_skip` skips a test with what to
install where Mosquitto is missing (``make test`` installs it: scripts/install-test-tools.sh).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy" / "mosquitto"
MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
PASSWD = shutil.which("mosquitto_passwd")


def mosquitto_or_skip() -> None:
    if MOSQUITTO is None or PASSWD is None:
        pytest.skip("Mosquitto is not installed: run scripts/install-test-tools.sh "
                    "(or apt-get install mosquitto) to run the league's broker tests")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """One Mosquitto process; :meth:`stop` and :meth:`start` again keep its port and its
    persisted sessions and retained messages (a restart of the club's broker)."""

    def __init__(self, folder: Path, users: dict[str, str], *, tls: "TLSFiles | None" = None):
        """``tls``: listen with TLS only (the server's certificate and key; the URL is then
        ``mqtts://``). The ACL is ``acl`` (a copy of the shipped one)."""
        mosquitto_or_skip()
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"{'mqtts' if tls else 'mqtt'}://127.0.0.1:{self.port}"
        passwd = folder / "uno-league.passwd"
        passwd.write_text("")
        for user, password in users.items():
            subprocess.run([PASSWD, "-b", str(passwd), user, password], check=True,
                           capture_output=True, timeout=10)
        acl = folder / "uno-league.acl"
        shutil.copy(DEPLOY / "uno-league.acl", acl)
        self.acl = acl
        conf = (DEPLOY / "uno-league.conf").read_text()
        conf = (conf.replace("/etc/mosquitto/uno-league.passwd", str(passwd))
                    .replace("/etc/mosquitto/uno-league.acl", str(acl))
                    .replace("/var/lib/mosquitto/", f"{folder}/")
                    .replace("listener 1883", f"listener {self.port} 127.0.0.1"))
        if tls:
            conf = conf.replace(f"listener {self.port} 127.0.0.1",
                                f"listener {self.port} 127.0.0.1\ncertfile {tls.cert}\n"
                                f"keyfile {tls.key}")
        conf += f"\nlog_dest file {folder}/mosquitto.log\nlog_type all\n"
        if os.geteuid() == 0:
            conf += "user root\n"  # stay root: the files above are root's
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text(conf)
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 10.0) -> "Broker":
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.proc.stderr.read().decode()}\n"
                                   f"{self.log()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on port {self.port} within {timeout} s")

    def reload(self) -> None:
        """Reread the ACL and password file, as ``systemctl reload mosquitto`` does (SIGHUP)."""
        self.proc.send_signal(signal.SIGHUP)

    def stop(self) -> None:
        """Stop it as systemd would (SIGTERM: it saves its persistence file first)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def log(self, tail: int | None = 4000) -> str:
        """The broker's log (its last ``tail`` characters; None: all of it)."""
        path = self.folder / "mosquitto.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return text[-tail:] if tail else text


def start_league(work: Path, broker: "Broker", password: str = "pw-league", *,
                 stderr=subprocess.DEVNULL) -> tuple[subprocess.Popen, int]:
    """``companion league`` in its own process, listening to ``broker`` as the account
    ``league`` and serving its page on a free loopback port: (the process, the port)."""
    port = free_port()
    conf = work / "league.toml"
    conf.write_text(f'[league]\nbroker = "{broker.url}"\nusername = "league"\npassword = "{password}"\n'
                    f'store = "{work / "league.sqlite3"}"\n')
    league = subprocess.Popen([sys.executable, "-m", "app", "league", "--config", str(conf),
                               "--host", "127.0.0.1", "--port", str(port)],
                              env={**os.environ, "PYTHONPATH": str(REPO)},
                              stdout=subprocess.DEVNULL, stderr=stderr)
    return league, port


def wait_until(check, timeout: float, what: str, step: float = 0.05):
    """Poll ``check()`` until it is truthy (returned) or ``timeout`` seconds pass (AssertionError
    naming ``what``): no wait in these tests can hang."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)


OPENSSL = shutil.which("openssl")


class TLSFiles:
    """A certificate authority made for one test and a server certificate it signed for
    127.0.0.1 and localhost (``openssl``, EC P-256, valid two days): ``ca``, ``cert``, ``key``."""

    def __init__(self, folder: Path, name: str = "uno test CA"):
        if OPENSSL is None:
            pytest.skip("the openssl command is not installed: apt-get install openssl")
        folder.mkdir(parents=True, exist_ok=True)
        self.ca, self.ca_key = folder / "ca.crt", folder / "ca.key"
        self.cert, self.key = folder / "server.crt", folder / "server.key"
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        self._openssl("req", "-x509", *ec, "-keyout", self.ca_key, "-out", self.ca, "-days", "2",
                      "-subj", f"/CN={name}", "-addext", "basicConstraints=critical,CA:TRUE",
                      "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        csr = folder / "server.csr"
        self._openssl("req", *ec, "-keyout", self.key, "-out", csr, "-subj", "/CN=127.0.0.1")
        ext = folder / "server.ext"
        ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                       "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
                       "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid,issuer\n")
        self._openssl("x509", "-req", "-in", csr, "-CA", self.ca, "-CAkey", self.ca_key,
                      "-CAcreateserial", "-out", self.cert, "-days", "2", "-extfile", ext)

    @staticmethod
    def _openssl(*args) -> None:
        subprocess.run([OPENSSL, *map(str, args)], check=True, capture_output=True, timeout=30)

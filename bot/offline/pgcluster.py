"""A throwaway PostgreSQL server for tests and benches: ``initdb`` in a fresh temporary folder,
``pg_ctl start`` on a free loopback port (its unix socket in the folder too), trust
authentication on loopback only, and at the end ``pg_ctl stop`` and the folder removed.

PostgreSQL refuses to run as root: as root (CI, this machine), the folder is given to an
unprivileged user (:data:`RUN_AS`, ``nobody`` by default) and the server runs as them through
``runuser``. The binaries are found on PATH or where Debian's ``postgresql`` package puts them
(``/usr/lib/postgresql/<version>/bin``, not on PATH).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

import asyncpg

DEBIAN_BINS = "/usr/lib/postgresql/*/bin"
RUN_AS = os.environ.get("GOUJI_PG_USER", "nobody")
USER = "gouji"  # the cluster's superuser (trust on loopback: no password)
# a test server: durability off, as a crash of a throwaway cluster loses nothing that matters
FAST = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")


def pg_bin() -> Path | None:
    """Where ``initdb`` and ``pg_ctl`` are: on PATH, or the newest Debian version."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob(DEBIAN_BINS), key=lambda p: int(Path(p).parent.name or 0))
    usable = [Path(p) for p in versions if (Path(p) / "initdb").exists()]
    return usable[-1] if usable else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PgCluster:
    """``with PgCluster() as pg:`` a running server; ``pg.url(name)`` its URLs,
    ``await pg.create_database(name)`` a new empty database. ``fast``: durability settings off
    (tests); without, the server's defaults (benches, to compare with SQLite's FULL sync)."""

    def __init__(self, *, fast: bool = False) -> None:
        bin_dir = pg_bin()
        if bin_dir is None:
            raise FileNotFoundError(
                "PostgreSQL's initdb was not found (apt-get install postgresql): neither on PATH"
                f" nor in {DEBIAN_BINS}"
            )
        self.bin = bin_dir
        self.fast = fast
        self.port = 0
        self.folder: Path | None = None
        self._created = 0

    @property
    def data(self) -> Path:
        assert self.folder is not None
        return self.folder / "data"

    def _run(self, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:  # the server refuses root
            command = ["runuser", "-u", RUN_AS, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd="/")
        if done.returncode != 0:
            log = self.folder / "server.log" if self.folder else None
            tail = log.read_text(errors="replace")[-2000:] if log and log.exists() else ""
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr}{tail}")

    def start(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="gouji-pg-"))
        if os.geteuid() == 0:
            user = pwd.getpwnam(RUN_AS)
            os.chown(self.folder, user.pw_uid, user.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8")
        self.port = _free_port()
        # several bot processes, each with its pools (storage, table locks, deliveries)
        settings = [
            "listen_addresses=127.0.0.1",
            "max_connections=200",
            *(FAST if self.fast else ()),
        ]
        options = f"-p {self.port} -k {self.folder} " + " ".join(f"-c {s}" for s in settings)
        log = str(self.folder / "server.log")
        try:
            self._run("pg_ctl", "-D", str(self.data), "-l", log, "-o", options, "-w", "start")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        if self.folder is None:
            return
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None

    def __enter__(self) -> PgCluster:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    async def create_database(self, name: str | None = None) -> str:
        """A new empty database (named ``name``, or ``gouji_<n>``); its URL."""
        if name is None:
            self._created += 1
            name = f"gouji_{self._created}"
        conn = await asyncpg.connect(self.url())
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        return self.url(name)

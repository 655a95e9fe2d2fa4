"""A private PostgreSQL cluster on this machine, for a Prefect server that outgrows SQLite.

Debian's `postgresql` package provides the binaries (`/usr/lib/postgresql/*/bin`); this module
finds them (installing the package with apt-get when they are missing and we are root), creates a
cluster in a directory of its own, serves it on a loopback port with password authentication, and
stops it again with `pg_ctl stop` on that directory. PostgreSQL refuses to run as root, so under
root every server command runs as the `postgres` account the package creates (`runuser -u`).

>>> cluster = init_cluster(Path("/tmp/cairn-pg"), port=55432, password="s3cret")  # doctest: +SKIP
>>> start_cluster(cluster).url  # doctest: +SKIP
'postgresql+asyncpg://cairn:s3cret@127.0.0.1:55432/prefect'
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cairn.core import CairnError

BIN_GLOB = "/usr/lib/postgresql/*/bin"
SERVICE_USER = "postgres"  # the account Debian's package creates; owns the cluster when we are root


class PostgresError(CairnError):
    """PostgreSQL could not be found, installed, started or stopped."""


@dataclass(frozen=True)
class Cluster:
    root: Path  # holds `data/`, the log and the Unix socket
    port: int
    password: str
    bin_dir: Path
    os_user: str | None  # run server commands as this account (None: as ourselves)
    user: str = "cairn"
    database: str = "prefect"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def log(self) -> Path:
        return self.root / "postgres.log"

    @property
    def url(self) -> str:
        """The SQLAlchemy URL Prefect's server takes (`PREFECT_SERVER_DATABASE_CONNECTION_URL`)."""
        return f"postgresql+asyncpg://{self.user}:{self.password}@127.0.0.1:{self.port}/{self.database}"

    def pid(self) -> int | None:
        """The postmaster's pid from its pid file, or None when the cluster is not running."""
        try:
            return int((self.data_dir / "postmaster.pid").read_text(encoding="ascii").split()[0])
        except (OSError, ValueError, IndexError):
            return None


def find_bin_dir() -> Path | None:
    """The newest installed version's bin directory holding both `initdb` and `pg_ctl`."""
    dirs = [Path(d) for d in glob.glob(BIN_GLOB)]
    found = [d for d in dirs if (d / "initdb").exists() and (d / "pg_ctl").exists()]
    return max(found, key=lambda d: _version(d.parent.name)) if found else None


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def ensure_installed(timeout: float = 900.0) -> Path:
    """The binaries' directory; installs Debian's `postgresql` package first when none is found."""
    found = find_bin_dir()
    if found is not None:
        return found
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise PostgresError("PostgreSQL is not installed: `apt-get install postgresql` (as root) installs it")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", "postgresql"]
    for command in (["apt-get", "update"], install):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise PostgresError(f"{' '.join(command)} failed: {done.stderr[-2000:]}")
    found = find_bin_dir()
    if found is None:
        raise PostgresError(f"the postgresql package installed no initdb/pg_ctl under {BIN_GLOB}")
    return found


def init_cluster(root: Path, port: int, password: str, bin_dir: Path | None = None) -> Cluster:
    """Create a new cluster under `root` (which must not hold one yet), owned by the service account
    when we are root. Authentication is scram-sha-256, also on loopback."""
    os_user = SERVICE_USER if os.geteuid() == 0 else None
    cluster = Cluster(
        root=root, port=port, password=password, bin_dir=bin_dir or ensure_installed(), os_user=os_user
    )
    root.mkdir(parents=True, exist_ok=True)
    pwfile = root / "pwfile"
    pwfile.write_text(password + "\n", encoding="utf-8")
    pwfile.chmod(0o600)
    if os_user is not None:  # the service account must own what the server writes
        shutil.chown(root, user=os_user)
        shutil.chown(pwfile, user=os_user)
    try:
        _run(
            cluster,
            "initdb",
            "-D",
            str(cluster.data_dir),
            "-U",
            cluster.user,
            f"--pwfile={pwfile}",
            "--auth=scram-sha-256",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
        )
    finally:
        pwfile.unlink(missing_ok=True)
    return cluster


def start_cluster(cluster: Cluster, timeout: float = 60.0) -> Cluster:
    """Start the server on 127.0.0.1:port (socket in `root`, not /var/run) and create the database."""
    options = (
        f"-c port={cluster.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={cluster.root}"
    )
    _run(
        cluster,
        "pg_ctl",
        "-D",
        str(cluster.data_dir),
        "-l",
        str(cluster.log),
        "-o",
        options,
        "-w",
        "-t",
        str(int(timeout)),
        "start",
    )
    asyncio.run(_create_database(cluster))
    return cluster


def stop_cluster(cluster: Cluster, timeout: float = 60.0) -> None:
    """Stop the cluster that runs on `cluster.data_dir` (fast shutdown: open sessions are ended)."""
    if cluster.pid() is not None:
        _run(
            cluster,
            "pg_ctl",
            "-D",
            str(cluster.data_dir),
            "-m",
            "fast",
            "-w",
            "-t",
            str(int(timeout)),
            "stop",
        )


async def _create_database(cluster: Cluster) -> None:
    import asyncpg  # installed with Prefect's server extras; only needed here

    conn = await asyncpg.connect(
        host="127.0.0.1", port=cluster.port, user=cluster.user, password=cluster.password, database="postgres"
    )
    try:
        exists = await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", cluster.database)
        if not exists:
            await conn.execute(f'CREATE DATABASE "{cluster.database}"')
    finally:
        await conn.close()


def _run(cluster: Cluster, program: str, *args: str) -> None:
    command = [str(cluster.bin_dir / program), *args]
    if cluster.os_user is not None:
        command = ["runuser", "-u", cluster.os_user, "--", *command]
    # cwd: runuser keeps ours, and the service account may not be allowed to read it.
    done = subprocess.run(command, capture_output=True, text=True, cwd=cluster.root, timeout=300)
    if done.returncode != 0:
        raise PostgresError(f"{program} failed ({done.returncode}): {(done.stderr or done.stdout)[-2000:]}")

"""Connecting to the broker with one set of options for every fedrag process, and staying connected.

nats.py reconnects by itself when the network drops, but it gives up for good when the broker
*closes* the connection over a protocol error (a message over the maximum payload, an unknown
operation): the process would stay alive and never serve again. :class:`Link` closes that gap: when
its connection is closed by anyone but itself, it opens a new one, with backoff, and runs its
``on_connect`` again so the process's services register anew.

A URL may list several servers of one site's cluster, separated by commas
(``nats://10.0.0.1:4222,nats://10.0.0.2:4222``): the client connects to one of them and, when that
server dies, moves to another of the list (or one the cluster announced), keeping its subscriptions.

Example::

    link = Link(url, "fedrag-org-hospital_a", on_connect=start_my_nodes)
    nc = await link.open()
    ...
    await link.close()
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import nats
import nats.errors
from nats.aio.client import Client

from bus.errors import BrokerError

log = logging.getLogger(__name__)

#: First and longest wait between attempts to open a new connection after one was closed.
BACKOFF_S = (0.2, 10.0)


def servers(url: str) -> tuple[list[str], dict]:
    """The server URLs of a comma-separated list, without credentials, and the ``nats.connect`` options
    that carry the credentials written in them (``user``/``password``, or ``token``).

    nats.py uses a URL's credentials only for that very server; as options they also hold for the
    servers a cluster announces, so a client can fail over to those too.

    Raises:
        BrokerError: the list is empty, or its URLs carry different credentials.
    """
    urls, logins = [], set()
    for one in url.split(","):
        one = one.strip()
        if not one:
            continue
        parts = urlsplit(one if "://" in one else f"nats://{one}")
        if parts.username is not None:
            logins.add((parts.username, parts.password))
        host = parts.netloc.rsplit("@", 1)[-1]
        urls.append(f"{parts.scheme}://{host}")
    if not urls:
        raise BrokerError(f"no NATS server in {url!r}: expected nats://HOST:PORT, or several separated by commas")
    if len(logins) > 1:
        raise BrokerError("the NATS URLs carry different credentials; give every server of a site the same ones")
    if not logins:
        return urls, {}
    user, password = logins.pop()
    return urls, {"token": user} if password is None else {"user": user, "password": password}


async def connect(url: str, name: str, *, timeout: float = 10.0, **options) -> Client:
    """Connects to ``url`` as client ``name``; once connected, reconnects forever after a network loss,
    to any server of the list or of its cluster.

    Args:
        url: the broker, e.g. ``nats://127.0.0.1:4222``, or several servers of one site separated by
            commas (credentials in the URLs hold for all of them; ``user`` in ``options`` wins over them).
        name: the client name shown in the broker's monitoring.
        timeout: how long to keep trying before the first connection.
        options: passed on to :func:`nats.connect`.

    Raises:
        BrokerError: no server of ``url`` could be reached within ``timeout``.
    """
    async def quiet(_exc):  # connection errors surface as BrokerError or as unavailable children
        return None

    urls, login = servers(url)
    if not any(key in options for key in ("user", "token", "user_credentials", "nkeys_seed")):
        options.update(login)
    options.setdefault("error_cb", quiet)
    try:
        return await asyncio.wait_for(nats.connect(
            urls, name=name, connect_timeout=min(timeout, 3.0), max_reconnect_attempts=-1,
            reconnect_time_wait=0.5, **options), timeout)
    except Exception as exc:
        reason = "no answer" if isinstance(exc, asyncio.TimeoutError) else f"{type(exc).__name__}: {exc}"
        where = urls[0] if len(urls) == 1 else f"any of {', '.join(urls)}"
        raise BrokerError(f"cannot reach NATS at {where} within {timeout:.0f} s ({reason})") from None


async def drain(nc: Client | None) -> None:
    """Drains ``nc`` if it is still open; a connection that is already gone is not an error."""
    if nc is None or nc.is_closed:
        return
    try:
        await nc.drain()
    except (nats.errors.Error, asyncio.TimeoutError) as exc:
        log.debug("drain of %s failed: %s", nc, exc)
        if not nc.is_closed:
            await nc.close()


class Link:
    """A connection that is opened again whenever it is closed, until :meth:`close` is called.

    Args:
        url: the broker (or several servers of one site, separated by commas).
        name: the client name.
        on_connect: awaited with every new connection (the first one too), e.g. to register services.
        options: passed on to :func:`connect`.
    """

    def __init__(self, url: str, name: str, on_connect: Callable[[Client], Awaitable[None]] | None = None,
                 **options) -> None:
        self.url = url
        self.name = name
        self.on_connect = on_connect
        self.options = options
        self.nc: Client | None = None
        #: How many times the connection was opened again after being closed.
        self.reopened = 0
        self._closing = False
        self._reopening: asyncio.Task | None = None

    async def open(self, timeout: float = 10.0) -> Client:
        """Opens the first connection and runs ``on_connect`` on it.

        Raises:
            BrokerError: the broker could not be reached within ``timeout``.
        """
        self.nc = await connect(self.url, self.name, timeout=timeout, closed_cb=self._on_closed, **self.options)
        if self.on_connect is not None:
            await self.on_connect(self.nc)
        return self.nc

    async def _on_closed(self) -> None:
        if self._closing or (self._reopening is not None and not self._reopening.done()):
            return
        log.warning("%s: the broker closed the connection; opening a new one", self.name)
        self._reopening = asyncio.get_running_loop().create_task(self._reopen())

    async def _reopen(self) -> None:
        wait, longest = BACKOFF_S
        while not self._closing:
            try:
                nc = await connect(self.url, self.name, timeout=3.0, closed_cb=self._on_closed, **self.options)
                self.nc = nc
                if self.on_connect is not None:
                    await self.on_connect(nc)
            except (BrokerError, nats.errors.Error) as exc:
                log.warning("%s: %s; trying again in %.1f s", self.name, exc or type(exc).__name__, wait)
                await asyncio.sleep(wait)
                wait = min(wait * 2, longest)
                continue
            self.reopened += 1
            log.warning("%s: connected again", self.name)
            return

    async def close(self) -> None:
        """Drains the connection and stops opening new ones."""
        self._closing = True
        if self._reopening is not None and not self._reopening.done():
            self._reopening.cancel()
            await asyncio.gather(self._reopening, return_exceptions=True)
        await drain(self.nc)

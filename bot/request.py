"""The bot's HTTP client for the Bot API: python-telegram-bot's request interface on aiohttp.

PTB's own client (httpx) costs the event loop about 1.5 ms of CPU per call, and more as its
connection pool grows (it looks through every connection, idle ones twice over, for each
request); aiohttp costs about 0.2 ms. At a few hundred tables the bot makes dozens of calls a
second — every button press is answered — so the client was most of the bot's CPU and, in
bursts of presses, most of each answer's wait.

Same contract as PTB's ``HTTPXRequest``: ``do_request`` returns the status and body; timeouts
raise ``TimedOut``, other transport failures ``NetworkError``; proxies come from the
environment (``HTTPS_PROXY``, ``NO_PROXY``) as with httpx — looked up once per host, not per
call (aiohttp's ``trust_env`` looks up the proxy and ``~/.netrc`` in a thread for every call:
two trips through a thread pool and back into the event loop for each answer of a press).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import JSONDict, ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData
from yarl import URL

if TYPE_CHECKING:
    from .intake import Intake

# what the bot never reads of a message it sent or edited (bot.sender reads its id and file_ids)
UNREAD = ("reply_markup", "entities", "caption_entities")
UPLOAD_TIMEOUT = 30.0  # seconds to write an upload, and to read its answer (PTB's media: 20)


def _timeout(
    pool: float | None, connect: float | None, write: float | None, read: float | None
) -> aiohttp.ClientTimeout:
    """A call's timeouts: aiohttp has no write timeout of its own, so the whole call is bounded
    by the sum of its parts instead (None: that part unbounded, so the whole); its "connect"
    includes the wait for a free connection."""
    parts = (pool, connect, write, read)
    return aiohttp.ClientTimeout(
        total=None if None in parts else sum(p for p in parts if p is not None),
        connect=None if pool is None or connect is None else pool + connect,
        sock_connect=connect,
        sock_read=read,
    )


class AiohttpRequest(BaseRequest):
    """One aiohttp session with up to ``connections`` connections; a call waits up to
    ``pool_timeout`` seconds for a free one."""

    def __init__(
        self,
        connections: int,
        *,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 30.0,
        on_ok: Callable[[], None] | None = None,
    ) -> None:
        self.connections = connections
        self.on_ok = on_ok  # called after each answer of HTTP 200 (the polling heartbeat)
        self._read = read_timeout
        self._write = write_timeout
        self._connect = connect_timeout
        self._pool = pool_timeout
        self._session: aiohttp.ClientSession | None = None
        # getUpdates: its answer's updates looked at before PTB reads them (bot.intake)
        self.intake: Intake | None = None
        # scheme://host → the environment's proxy for it and its credentials (None: direct)
        self._proxies: dict[str, tuple[URL | None, aiohttp.BasicAuth | None]] = {}

    @property
    def read_timeout(self) -> float | None:
        return self._read

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.connections),
                headers={"User-Agent": self.USER_AGENT},
            )

    def parse_json_payload(self, payload: bytes) -> JSONDict:  # type: ignore[override]
        """The answer's JSON; a getUpdates answer's updates through :attr:`intake` first; a
        message the bot sent or edited without its keyboard and text entities (the bot never
        reads them back, and PTB would build an object of every button)."""
        data = BaseRequest.parse_json_payload(payload)
        result = data.get("result")
        if self.intake is not None and isinstance(result, list):
            data["result"] = self.intake.batch(result)
        elif isinstance(result, dict) and "message_id" in result:
            for unread in UNREAD:
                result.pop(unread, None)
        return data

    async def call(self, url: str, fields: dict[str, str]) -> int:
        """A plain call (form fields in, the status out), without PTB: a junk press's answer
        (bot.intake) costs the event loop as little as a call can."""
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("AiohttpRequest is not initialized")
        proxy, proxy_auth = self.proxy(url)
        # the whole call bounded as PTB's are (a connection slow to open counted too)
        timeout = _timeout(self._pool, self._connect, self._write, self._read)
        try:
            async with session.post(
                url, data=fields, timeout=timeout, proxy=proxy, proxy_auth=proxy_auth
            ) as response:
                await response.read()
                return response.status
        except TimeoutError as e:
            raise TimedOut from e
        except aiohttp.ClientError as e:  # the kind only: the URL holds the token
            raise NetworkError(f"aiohttp.{type(e).__name__}") from e

    def proxy(self, url: str) -> tuple[URL | None, aiohttp.BasicAuth | None]:
        """The environment's proxy for ``url`` (``HTTPS_PROXY``, ``NO_PROXY``), looked up
        once for its scheme and host."""
        origin = url[: url.find("/", url.find("//") + 2)]
        found = self._proxies.get(origin)
        if found is None:
            found = (None, None)
            with suppress(LookupError):  # none for it, or it bypasses the proxy
                found = get_env_proxy_for_url(URL(url))
            self._proxies[origin] = found
        return found

    async def shutdown(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("AiohttpRequest is not initialized")
        read = self._read if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = self._connect if isinstance(connect_timeout, DefaultValue) else connect_timeout
        pool = self._pool if isinstance(pool_timeout, DefaultValue) else pool_timeout
        write = self._write if isinstance(write_timeout, DefaultValue) else write_timeout
        if request_data is not None and request_data.multipart_data:
            # an upload (a picture of up to ~200 KB) on a slow link: time to send it and for
            # the server to take it in, unless the caller said otherwise
            if isinstance(write_timeout, DefaultValue):
                write = UPLOAD_TIMEOUT
            if isinstance(read_timeout, DefaultValue):
                read = UPLOAD_TIMEOUT
        timeout = _timeout(pool, connect, write, read)
        data: aiohttp.FormData | dict[str, str] | None = None
        if request_data is not None:
            files = request_data.multipart_data
            if files:
                form = aiohttp.FormData()
                for name, value in request_data.json_parameters.items():
                    form.add_field(name, value)
                for name, (filename, content, mimetype) in files.items():
                    form.add_field(name, content, filename=filename, content_type=mimetype)
                data = form
            else:
                data = request_data.json_parameters
        proxy, proxy_auth = self.proxy(url)
        try:
            async with session.request(
                method, url, data=data, timeout=timeout, proxy=proxy, proxy_auth=proxy_auth
            ) as response:
                body = await response.read()
                if response.status == 200 and self.on_ok is not None:
                    self.on_ok()
                return response.status, body
        except TimeoutError as e:  # aiohttp's timeouts are TimeoutErrors
            raise TimedOut from e
        except aiohttp.ClientError as e:
            # the kind only: some of aiohttp's messages quote the URL, and the token is in it
            raise NetworkError(f"aiohttp.{type(e).__name__}") from e

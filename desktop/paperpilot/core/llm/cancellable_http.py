"""HTTP a Stop can interrupt: an httpx transport whose sockets never wait long without checking
the caller's cancel event.

A thread blocked in ``recv()`` cannot be woken from another thread by closing its socket (on
Linux the read simply goes on until the server answers or the timeout fires), which is how a
Stop while a model server hung used to take a whole minute. Here every blocking step (name
lookup, connect, TLS handshake, each write and each read) waits in slices of ``POLL_S`` and
checks, between slices, the cancel event of the request being served; when it is set the
step raises ``RequestCancelled`` and httpcore drops the connection. The same slices enforce a
deadline for the whole exchange, so a server trickling a byte at a time cannot keep a request
alive for ever either.

The cancel event and deadline reach the sockets through a context variable set around one
request (``cancel_scope``): httpcore's synchronous stack runs entirely in the calling thread,
and a pooled connection serves requests of different runs, so the event cannot belong to the
connection. A plain HTTP proxy from the environment (``HTTP(S)_PROXY``, ``NO_PROXY``) is used
the same way; behind an HTTPS or SOCKS proxy ``transport_for`` gives None, so httpx's own
transport is used and a request is interrupted only between attempts.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import select
import socket
import ssl
import threading
import time
import urllib.request
from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

from ..errors import Cancelled

# Longest wait between two looks at the cancel event: Stop takes effect within about this long.
POLL_S = 0.1

SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]


class RequestCancelled(Cancelled):
    """The cancel event of the request was set while it waited on the network."""


@dataclass(frozen=True)
class _Scope:
    cancel: threading.Event | None
    deadline: float | None  # time.monotonic() by which the whole exchange must be over


_scope: ContextVar[_Scope | None] = ContextVar("paperpilot_http_scope", default=None)


@contextlib.contextmanager
def cancel_scope(cancel: threading.Event | None, total_timeout: float | None = None) -> Iterator[None]:
    """Requests made inside the block stop when ``cancel`` is set, and after ``total_timeout`` s."""
    deadline = None if total_timeout is None else time.monotonic() + total_timeout
    token = _scope.set(_Scope(cancel, deadline))
    try:
        yield
    finally:
        _scope.reset(token)


def _raise_if_cancelled(what: str) -> None:
    scope = _scope.get()
    if scope is not None and scope.cancel is not None and scope.cancel.is_set():
        raise RequestCancelled(f"cancelled while {what}")


def _ready(sock: socket.socket, *, write: bool, timeout: float) -> bool:
    """Whether ``sock`` is readable (or writable) within ``timeout`` s; poll() has no fd limit."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(sock, (select.POLLOUT if write else select.POLLIN) | select.POLLERR | select.POLLHUP)
        return bool(poller.poll(max(0, int(timeout * 1000))))
    readable, writable, failed = select.select([] if write else [sock], [sock] if write else [], [sock], timeout)
    return bool(readable or writable or failed)


def _waits(timeout: float | None, on_timeout: type[Exception], what: str) -> Iterator[float]:
    """Slices of at most POLL_S until ``timeout`` (or the scope's deadline) runs out.

    Raises RequestCancelled as soon as the scope's event is set, ``on_timeout`` when the time
    is up; the caller retries its step once per slice.
    """
    scope = _scope.get()
    now = time.monotonic()
    end = now + timeout if timeout is not None else None
    if scope is not None and scope.deadline is not None:
        end = scope.deadline if end is None else min(end, scope.deadline)
    while True:
        _raise_if_cancelled(what)
        now = time.monotonic()
        if end is not None and now >= end:
            raise on_timeout(f"timed out while {what}")
        yield POLL_S if end is None else min(POLL_S, end - now)


class _Stream(httpcore.NetworkStream):
    """One TCP (or TLS) connection whose reads and writes wait in short slices."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        for wait in _waits(timeout, httpcore.ReadTimeout, "waiting for the server's reply"):
            self._sock.settimeout(wait)
            try:
                return self._sock.recv(max_bytes)
            except TimeoutError:
                # Nothing arrived in this slice and nothing was consumed (TLS keeps a partial
                # record buffered), so reading again is safe.
                continue
            except OSError as e:
                raise httpcore.ReadError(str(e) or type(e).__name__) from e
        raise AssertionError("unreachable")  # _waits only ends by raising

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        view = memoryview(buffer)
        waits = _waits(timeout, httpcore.WriteTimeout, "sending the request")
        while view:
            self._sock.settimeout(next(waits))
            try:
                sent = self._sock.send(view)
            except TimeoutError:
                continue  # nothing was sent: offer the same bytes again (TLS requires it)
            except OSError as e:
                raise httpcore.WriteError(str(e) or type(e).__name__) from e
            view = view[sent:]

    def close(self) -> None:
        self._sock.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        if isinstance(self._sock, ssl.SSLSocket):
            raise httpcore.ConnectError("TLS inside TLS (an HTTPS proxy) is not supported by this transport")
        try:
            tls = ssl_context.wrap_socket(self._sock, server_hostname=server_hostname, do_handshake_on_connect=False)
        except OSError as e:
            self.close()
            raise httpcore.ConnectError(str(e) or type(e).__name__) from e
        try:
            for wait in _waits(timeout, httpcore.ConnectTimeout, "setting up TLS"):
                tls.settimeout(wait)
                try:
                    tls.do_handshake()
                except TimeoutError:
                    continue
                except OSError as e:  # ssl.SSLError included: a bad certificate, a wrong protocol
                    raise httpcore.ConnectError(str(e) or type(e).__name__) from e
                return _Stream(tls)
        except BaseException:
            tls.close()
            raise
        raise AssertionError("unreachable")

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            # httpcore asks it for the negotiated ALPN protocol, which SSLSocket answers itself.
            return self._sock if isinstance(self._sock, ssl.SSLSocket) else None
        if info == "socket":
            return self._sock
        if info == "client_addr":
            return self._sock.getsockname()
        if info == "server_addr":
            return self._sock.getpeername()
        if info == "is_readable":
            # An idle keep-alive connection that is readable has been closed by the server.
            if self._sock.fileno() < 0:
                return True
            if isinstance(self._sock, ssl.SSLSocket) and self._sock.pending():
                return True
            return _ready(self._sock, write=False, timeout=0)
        return None


_CONNECTING = {0, errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EAGAIN, getattr(errno, "WSAEWOULDBLOCK", -1)}


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


AddrInfo = Sequence[tuple[socket.AddressFamily, socket.SocketKind, int, str, tuple[Any, ...]]]


def _resolve(host: str, port: int, timeout: float | None) -> AddrInfo:
    """getaddrinfo, given up on when the request is cancelled.

    A stuck resolver cannot be interrupted, so a name (not an address) is looked up in a
    daemon thread that is abandoned on Stop; it ends when the resolver does.
    """
    if _is_ip(host):
        return socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    done = threading.Event()
    out: dict[str, Any] = {}

    def lookup() -> None:
        try:
            out["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as e:
            out["error"] = e
        finally:
            done.set()

    threading.Thread(target=lookup, name="paperpilot-dns", daemon=True).start()
    for wait in _waits(timeout, httpcore.ConnectTimeout, f"looking up {host}"):
        if done.wait(wait):
            break
    if "error" in out:
        raise httpcore.ConnectError(str(out["error"])) from out["error"]
    infos: AddrInfo = out["infos"]
    return infos


class _Backend(httpcore.NetworkBackend):
    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.NetworkStream:
        options = list(socket_options or ())
        last: OSError | None = None
        for family, kind, proto, _name, address in _resolve(host, port, timeout):
            sock = socket.socket(family, kind, proto)
            try:
                for opt in options:
                    sock.setsockopt(*opt)
                if family in (socket.AF_INET, socket.AF_INET6):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if local_address:
                    sock.bind((local_address, 0))
                sock.setblocking(False)
                code = sock.connect_ex(address)
                if code not in _CONNECTING:
                    raise OSError(code, os.strerror(code))
                if code != 0:
                    for wait in _waits(timeout, httpcore.ConnectTimeout, f"connecting to {host}:{port}"):
                        if _ready(sock, write=True, timeout=wait):
                            break
                    code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                    if code:
                        raise OSError(code, os.strerror(code))
                sock.setblocking(True)
                return _Stream(sock)
            except OSError as e:
                sock.close()
                last = e
            except BaseException:
                sock.close()
                raise
        raise httpcore.ConnectError(str(last) if last else f"no address found for {host}")

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[SocketOption] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("Unix sockets are not supported by this transport")

    def sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            _raise_if_cancelled("waiting to retry")
            time.sleep(min(POLL_S, left))


# httpcore's errors as httpx's, most specific first (the order of each class's MRO decides).
_ERRORS: dict[type[Exception], type[httpx.TransportError]] = {
    httpcore.ConnectTimeout: httpx.ConnectTimeout,
    httpcore.ReadTimeout: httpx.ReadTimeout,
    httpcore.WriteTimeout: httpx.WriteTimeout,
    httpcore.PoolTimeout: httpx.PoolTimeout,
    httpcore.TimeoutException: httpx.TimeoutException,
    httpcore.ConnectError: httpx.ConnectError,
    httpcore.ReadError: httpx.ReadError,
    httpcore.WriteError: httpx.WriteError,
    httpcore.NetworkError: httpx.NetworkError,
    httpcore.RemoteProtocolError: httpx.RemoteProtocolError,
    httpcore.LocalProtocolError: httpx.LocalProtocolError,
    httpcore.ProtocolError: httpx.ProtocolError,
    httpcore.ProxyError: httpx.ProxyError,
    httpcore.UnsupportedProtocol: httpx.UnsupportedProtocol,
}


@contextlib.contextmanager
def _as_httpx_errors() -> Iterator[None]:
    try:
        yield
    except Exception as e:
        for cls in type(e).__mro__:
            target = _ERRORS.get(cls)
            if target is not None:
                raise target(str(e)) from e
        raise


class _Body(httpx.SyncByteStream):
    def __init__(self, stream: Iterable[bytes]) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[bytes]:
        with _as_httpx_errors():
            yield from self._stream

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if callable(close):
            close()


class CancellableTransport(httpx.BaseTransport):
    """An httpx transport (direct, or through a plain HTTP proxy) whose requests end promptly
    when their scope's cancel event is set."""

    def __init__(
        self,
        *,
        verify: ssl.SSLContext | bool = True,
        limits: httpx.Limits | None = None,
        proxy: str | None = None,
    ) -> None:
        limits = limits or httpx.Limits()
        context = verify if isinstance(verify, ssl.SSLContext) else httpx.create_ssl_context(verify=verify)
        self._pool: httpcore.ConnectionPool
        if proxy is None:
            self._pool = httpcore.ConnectionPool(
                ssl_context=context,
                max_connections=limits.max_connections,
                max_keepalive_connections=limits.max_keepalive_connections,
                keepalive_expiry=limits.keepalive_expiry,
                network_backend=_Backend(),
            )
            return
        via = httpx.Proxy(proxy)
        if via.url.scheme != "http":
            raise ValueError(f"only plain http:// proxies are supported here, not {via.url.scheme}://")
        self._pool = httpcore.HTTPProxy(
            proxy_url=httpcore.URL(
                scheme=via.url.raw_scheme, host=via.url.raw_host, port=via.url.port, target=via.url.raw_path
            ),
            proxy_auth=via.raw_auth,
            proxy_headers=via.headers.raw,
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_Backend(),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if not isinstance(request.stream, httpx.SyncByteStream):
            raise TypeError("CancellableTransport needs a synchronous request body")
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx_errors():
            response = self._pool.handle_request(core_request)
        if not isinstance(response.stream, Iterable):
            raise TypeError("httpcore returned an asynchronous body")
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_Body(response.stream),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()


def environment_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (``*_PROXY``, minus ``NO_PROXY``), if any."""
    try:
        parts = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        return None  # the request itself will say what is wrong with the URL
    proxies = urllib.request.getproxies()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(parts.host):
        return None
    return proxy


def transport_for(url: str) -> CancellableTransport | None:
    """The cancellable transport for requests to ``url``; None behind a proxy it cannot use
    (HTTPS or SOCKS), where httpx's own transport, which honours the environment, must be."""
    proxy = environment_proxy(url)
    if proxy is None:
        return CancellableTransport()
    if "://" not in proxy:
        proxy = f"http://{proxy}"  # "host:port", as some set HTTP_PROXY
    if proxy.lower().startswith("http://"):
        return CancellableTransport(proxy=proxy)
    return None

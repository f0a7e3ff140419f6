"""Fault rules of POST /_emu/faults and how they are applied to a request.

Actions: status, reset, delay, stall, truncate (CONTROL.md) plus
drop_boundary (an extension: a multipart response that ends without its
closing boundary, the last part cut short, properly framed - what the daemon
sends when a file read fails mid-way, PROTOCOL 7.2)."""
import asyncio
import re
import socket
import struct

from aiohttp import web

from util import api_error, reason

ACTIONS = ("status", "reset", "delay", "stall", "truncate", "drop_boundary")


class FaultRule:
    def __init__(self, spec):
        self.method = (spec.get("method") or "*").upper()
        self.path_regex = spec.get("path_regex") or ".*"
        self.regex = re.compile(self.path_regex)
        self.times = int(spec.get("times", 1))
        self.action = spec.get("action", "status")
        if self.action not in ACTIONS:
            raise ValueError("unknown action %r" % self.action)
        self.status = int(spec.get("status", 500))
        self.headers = dict(spec.get("headers") or {})
        self.body = spec.get("body")
        self.content_type = spec.get("content_type")
        self.delay_ms = int(spec.get("delay_ms", 0))
        self.spec = spec

    def matches(self, request):
        if self.times <= 0:
            return False
        if self.method not in ("*", request.method):
            return False
        return bool(self.regex.search(request.path) or self.regex.search(request.raw_path))


class Faults:
    def __init__(self):
        self.rules = []

    def add(self, spec):
        rule = FaultRule(spec)
        self.rules.append(rule)
        return rule

    def clear(self):
        self.rules = []

    def take(self, request):
        """The first matching rule with uses left (one use consumed), or None."""
        for r in self.rules:
            if r.matches(request):
                r.times -= 1
                return r
        return None


def abort_connection(request):
    """Close the TCP connection with a RST and no response."""
    tr = request.transport
    if tr is None:
        return
    sock = tr.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    tr.abort()


def status_response(request, rule):
    headers = dict(rule.headers)
    if rule.body is not None:
        ct = rule.content_type or "application/json"
        return web.Response(status=rule.status, body=rule.body.encode(), headers=headers,
                            content_type=ct.split(";")[0].strip())
    if request.path.startswith("/api/"):
        msg = {429: "ThrottlerException: Too Many Requests",
               500: "An unexpected error occurred."}.get(rule.status, reason(rule.status))
        return api_error(request, rule.status, msg, headers=headers)
    return web.Response(status=rule.status, body=b"", headers=headers)


def _raw_head(resp, length):
    lines = ["HTTP/1.1 %d %s" % (resp.status, resp.reason)]
    for k, v in resp.headers.items():
        if k.lower() in ("content-length", "transfer-encoding"):
            continue
        lines.append("%s: %s" % (k, v))
    lines.append("Content-Length: %d" % length)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def send_truncated(request, resp):
    """Real headers and Content-Length, only half the body, then close."""
    body = resp.body if isinstance(resp.body, (bytes, bytearray)) else b""
    tr = request.transport
    if tr is None:
        return
    tr.write(_raw_head(resp, len(body)) + bytes(body[:len(body) // 2]))
    tr.close()


def drop_closing_boundary(resp):
    """Rewrite a multipart body: last part cut in half, no closing boundary."""
    body = bytes(resp.body or b"")
    ct = resp.headers.get("Content-Type", "")
    m = re.search(r"boundary=([^;\s]+)", ct)
    if not m:
        return resp
    delim = b"--" + m.group(1).encode()
    end = body.rfind(delim + b"--")
    if end < 0:
        return resp
    body = body[:end]
    start = body.rfind(delim)
    hdr_end = body.find(b"\r\n\r\n", start)
    if start >= 0 and hdr_end >= 0:
        payload = body[hdr_end + 4:]
        if payload.endswith(b"\r\n"):
            payload = payload[:-2]
        body = body[:hdr_end + 4] + payload[:len(payload) // 2]
    resp.body = body
    return resp


async def stall(request):
    """Hold the connection without answering (max 120 s), then drop it."""
    await asyncio.sleep(120)
    abort_connection(request)

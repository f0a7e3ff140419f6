"""Command log follow (PROTOCOL 6.2-6.4): WebSocket with binary frames, and the
legacy plain-HTTP chunked follow.

Every connection replays the log from byte 0, polls it every 20 ms (the file
is read only when the session appended to it), and after 50 consecutive empty
polls (~1 s; one timer once the exit code is known) ends as soon as the
command has its exit code: close 1000.  Read errors close with 1011; deleting the
session closes with 1000.  Pings are answered (aiohttp autoping); client data
frames are ignored.  `ws_mode` / `ws_frame_max` of /_emu/config shape the stream:
normal | never_close | stall | drop_after:N | error_after:N (extension: close
1011 after N payload bytes, as on a log read failure)."""
import asyncio
import os

from aiohttp import WSMsgType, web

from faults import abort_connection
from util import M_ERR, M_OUT, output_mode

POLL_S = 0.02
EMPTY_READS_BEFORE_EXIT_CHECK = 50


class MarkerFilter:
    """Streaming removal of 3-byte markers (combined output)."""
    def __init__(self):
        self.hold = b""

    def feed(self, data, final=False):
        buf = (self.hold + data).replace(M_OUT, b"").replace(M_ERR, b"")
        self.hold = b""
        if not final:
            for k in (2, 1):
                tail = buf[-k:]
                if len(buf) >= k and (tail == M_OUT[:k] or tail == M_ERR[:k]):
                    self.hold, buf = tail, buf[:-k]
                    break
        return buf


def _mode(request):
    mode = output_mode(request.headers)
    if not request.headers.get("X-Daytona-SDK-Version"):
        for p in request.headers.get("Sec-WebSocket-Protocol", "").split(","):
            p = p.strip()
            if p.startswith("X-Daytona-SDK-Version~"):
                hdrs = {"X-Daytona-SDK-Version": p.split("~", 1)[1]}
                mode = output_mode(hdrs)
    return mode


def _read_from(cmd, offset):
    with open(cmd.log_path, "rb") as f:
        f.seek(offset)
        return f.read(65536)


async def _quiet_wait(ev, polls):
    """`polls` empty 20 ms polls in one timer: after the exit code the log
    cannot grow, so only a session delete (ev) can end the wait early."""
    try:
        await asyncio.wait_for(ev.wait(), polls * POLL_S)
    except asyncio.TimeoutError:
        pass


async def _log_chunks(session, cmd, follow, state, ev=None):
    """Yields log bytes as they appear; sets state['end'] to 1000/1011.
    The file is read only when the session has appended to it (cmd.log_size)."""
    offset, empty = 0, 0
    while True:
        if session.deleted:
            state["end"] = 1000
            return
        data = b""
        if cmd.log_size > offset:
            try:
                data = _read_from(cmd, offset)
            except OSError:
                state["end"] = 1000 if session.deleted else 1011
                return
        if data:
            empty = 0
            offset += len(data)
            yield data
            continue
        if not follow:
            state["end"] = 1000
            return
        quiet = EMPTY_READS_BEFORE_EXIT_CHECK - empty
        if quiet > 0 and cmd.exit_code is not None and ev is not None:
            await _quiet_wait(ev, quiet)
            empty = EMPTY_READS_BEFORE_EXIT_CHECK
            continue
        empty += 1
        if empty >= EMPTY_READS_BEFORE_EXIT_CHECK and cmd.exit_code is not None:
            state["end"] = 1000
            return
        await asyncio.sleep(POLL_S)


async def follow(request, session, cmd):
    emu = request.app["emu"]
    offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",")
               if p.strip().startswith("X-Daytona-SDK-Version~")]
    ws = web.WebSocketResponse(autoping=True, compress=False, protocols=offered[:1],
                               max_msg_size=0)
    await ws.prepare(request)
    emu.stats["websockets"] += 1
    sbx = request.get("sbx")
    if sbx is not None:     # an open WebSocket counts as activity (auto_stop_ms)
        sbx.open_ws += 1
    try:
        return await _follow(request, session, cmd, emu, ws)
    finally:
        if sbx is not None:
            sbx.open_ws -= 1


async def _follow(request, session, cmd, emu, ws):
    mode = _mode(request)
    filt = MarkerFilter() if mode == "combined" else None
    ws_mode = str(emu.config.get("ws_mode") or "normal")
    frame_max = max(1, min(1024, int(emu.config.get("ws_frame_max") or 1024)))
    limit, limit_kind = None, None
    if ws_mode.startswith(("drop_after:", "error_after:")):
        limit_kind, n = ws_mode.split(":", 1)
        limit = max(0, int(n))

    async def drain_client():
        async for msg in ws:       # answers pings; ignores data frames
            if msg.type == WSMsgType.ERROR:
                break
    reader = asyncio.get_event_loop().create_task(drain_client())
    ev = asyncio.Event()
    session.listeners.add(ev)
    sent = 0
    state = {"end": 1000}
    try:
        if ws_mode == "stall":
            await _wait_client_or_session(reader, session)
            return ws
        async for data in _log_chunks(session, cmd, request.query.get("follow") == "true",
                                      state, ev):
            if filt is not None:
                data = filt.feed(data)
            for i in range(0, len(data), frame_max):
                chunk = data[i:i + frame_max]
                if limit is not None and sent + len(chunk) >= limit:
                    chunk = chunk[:limit - sent]
                    if chunk:
                        await ws.send_bytes(chunk)
                    sent = limit
                    if limit_kind == "drop_after":
                        abort_connection(request)
                        reader.cancel()
                        return ws
                    await ws.close(code=1011, message=b"log read error")
                    return ws
                await ws.send_bytes(chunk)
                sent += len(chunk)
            if ws.closed:
                return ws
        if filt is not None:
            tail = filt.feed(b"", final=True)
            if tail:
                await ws.send_bytes(tail)
        if ws_mode == "never_close" and state["end"] == 1000 and not session.deleted:
            await _wait_client_or_session(reader, session, stop_on_delete=False)
            return ws
        await ws.close(code=state["end"])
    except ConnectionError:
        # the client closed while frames were being written (a client that
        # has its exit code stops reading): like the daemon, stop quietly
        return ws
    finally:
        session.listeners.discard(ev)
        if not reader.done():
            reader.cancel()
    return ws


async def _wait_client_or_session(reader, session, stop_on_delete=False):
    """Keep the socket open until the client goes away (bounded by the emulator's
    own lifetime)."""
    while not reader.done():
        if stop_on_delete and session.deleted:
            return
        await asyncio.sleep(0.05)


async def http_follow(request, session, cmd):
    """Legacy runner path: chunked application/octet-stream, combined output."""
    resp = web.StreamResponse(status=200, headers={"Content-Type": "application/octet-stream"})
    resp.enable_chunked_encoding()
    await resp.prepare(request)
    filt = MarkerFilter()
    state = {"end": 1000}
    async for data in _log_chunks(session, cmd, True, state):
        out = filt.feed(data)
        if out:
            await resp.write(out)
    tail = filt.feed(b"", final=True)
    if tail:
        await resp.write(tail)
    await resp.write_eof()
    return resp

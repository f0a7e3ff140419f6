"""Small helpers shared by the emulator modules: time stamps, JSON responses,
and the two error body shapes of PROTOCOL.md section 8.1."""
import datetime
import http
import json
import re
import uuid

from aiohttp import web


def now_iso():
    """ISO-8601 with milliseconds and Z, as the NestJS API prints dates."""
    t = datetime.datetime.now(datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def new_id():
    return str(uuid.uuid4())


def reason(status):
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def json_response(obj, status=200, headers=None):
    return web.Response(status=status, body=json.dumps(obj).encode(),
                        content_type="application/json", charset="utf-8",
                        headers=headers)


def api_error(request, status, message, headers=None):
    """Main API error body (NestJS exception filter)."""
    body = {"path": request.path_qs, "timestamp": now_iso(), "statusCode": status,
            "error": reason(status), "message": message}
    return json_response(body, status, headers)


TOOLBOX_CODES = {400: "BAD_REQUEST", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND",
                 408: "REQUEST_TIMEOUT", 409: "CONFLICT", 410: "GONE",
                 422: "UNPROCESSABLE_ENTITY", 500: "INTERNAL_SERVER_ERROR"}

TOOLBOX_PREFIX = {400: "bad request", 401: "unauthorized", 403: "forbidden", 404: "not found",
                  408: "request timeout", 409: "conflict", 410: "gone",
                  422: "unprocessable entity", 500: "internal server error"}


def toolbox_error(path, method, status, detail, code=None):
    """Daemon / proxy JSON error; `detail` is prefixed with the category."""
    body = {"statusCode": status,
            "message": "%s: %s" % (TOOLBOX_PREFIX.get(status, "error"), detail),
            "code": code or TOOLBOX_CODES.get(status, "INTERNAL_SERVER_ERROR"),
            "timestamp": now_iso(), "path": path, "method": method}
    return json_response(body, status)


def wrapped_error(message):
    """A daemon error that went through a wrapping layer: 500, zero time, no code."""
    return json_response({"statusCode": 500, "message": message,
                          "timestamp": "0001-01-01T00:00:00Z", "path": ""}, 500)


def status_only(status):
    return web.Response(status=status, body=b"")


def parse_semver(v):
    """'0.190.0' -> (0, 190, 0); None when not a plain semver (leading v allowed)."""
    v = v.strip()
    if v.startswith("v"):
        v = v[1:]
    core = v.split("-", 1)[0].split("+", 1)[0]
    parts = core.split(".")
    if len(parts) != 3:
        return None
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        return None


def output_mode(headers):
    """PROTOCOL 5.6: returns 'modern', 'raw' or 'combined'."""
    v = headers.get("X-Daytona-SDK-Version", "")
    if v:
        if "dev" in v:
            return "modern"
        sv = parse_semver(v)
        if sv is None:
            return "raw"
        if sv >= (0, 167, 0):
            return "modern"
        if sv >= (0, 27, 0):
            return "raw"
        return "combined"
    if headers.get("X-Daytona-Split-Output", "").lower() == "true":
        return "raw"
    return "combined"


M_OUT = b"\x01\x01\x01"
M_ERR = b"\x02\x02\x02"


_MARKER_RE = re.compile(b"(\x01\x01\x01|\x02\x02\x02)")


def demux(log):
    """The daemon's whole-log demux: returns (stdout bytes, stderr bytes).
    Bytes before the first marker belong to no stream and are skipped."""
    out, err = [], []
    cur = None
    for piece in _MARKER_RE.split(log):
        if piece == M_OUT:
            cur = out
        elif piece == M_ERR:
            cur = err
        elif cur is not None:
            cur.append(piece)
    return b"".join(out), b"".join(err)


def strip_markers(log):
    """Combined output: the log with every marker removed."""
    return log.replace(M_OUT, b"").replace(M_ERR, b"")

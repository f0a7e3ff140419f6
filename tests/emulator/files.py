"""Toolbox file routes (PROTOCOL 7).  Sandbox paths map to per-sandbox host
directories: /sandbox/... -> <root>/<id>/sandbox, /home/daytona/... and
relative paths -> <root>/<id>/home.  Other absolute paths are refused (403),
so tests can never touch the host file system through this API."""
import datetime
import json
import mimetypes
import os
import posixpath
import shutil
import stat
import urllib.parse

from aiohttp import web

from util import json_response, now_iso, status_only

BOUNDARY = "DAYTONA-FILE-BOUNDARY"
P = "/toolbox/{sbx}"


class PathError(Exception):
    def __init__(self, status, code, msg):
        super().__init__(msg)
        self.status, self.code, self.msg = status, code, msg


def map_path(request, p):
    """Sandbox path -> host path (raises PathError)."""
    if p is None or p == "":
        raise PathError(400, "INVALID_FILE_PATH", "invalid file path")
    sbx_dir, home_dir = request.app["emu"].sessions.sandbox_dirs(request["sbx"])
    if not p.startswith("/"):
        p = "/home/daytona/" + p
    norm = posixpath.normpath(p)
    if norm.startswith("//"):
        norm = norm[1:]
    for prefix, host in (("/home/daytona", home_dir), ("/sandbox", sbx_dir)):
        if norm == prefix:
            return host
        if norm.startswith(prefix + "/"):
            return os.path.join(host, norm[len(prefix) + 1:])
    raise PathError(403, "FILE_ACCESS_DENIED", "permission denied: %s" % p)


def parse_multipart(content_type, body):
    """Binary-safe multipart/form-data parser: [(name, filename, headers, data)].
    Raises ValueError when the body is not a multipart form."""
    params = {}
    ctype, _, rest = content_type.partition(";")
    if ctype.strip().lower() != "multipart/form-data":
        raise ValueError("not multipart")
    for item in rest.split(";"):
        k, _, v = item.strip().partition("=")
        params[k.strip().lower()] = v.strip().strip('"')
    if not params.get("boundary"):
        raise ValueError("no boundary")
    delim = b"--" + params["boundary"].encode()
    pos = body.find(delim)
    if pos < 0:
        raise ValueError("no parts")
    parts = []
    pos += len(delim)
    while True:
        if body[pos:pos + 2] == b"--":
            return parts
        if body[pos:pos + 2] != b"\r\n":
            raise ValueError("bad delimiter line")
        pos += 2
        hend = body.find(b"\r\n\r\n", pos)
        if hend < 0:
            raise ValueError("bad part headers")
        headers = {}
        for line in body[pos:hend].split(b"\r\n"):
            k, _, v = line.decode("utf-8", "replace").partition(":")
            headers[k.strip().lower()] = v.strip()
        nxt = body.find(b"\r\n" + delim, hend + 4)
        if nxt < 0:
            raise ValueError("unterminated part")
        data = body[hend + 4:nxt]
        name = filename = None
        for item in headers.get("content-disposition", "").split(";"):
            k, _, v = item.strip().partition("=")
            v = v.strip().strip('"')
            if k.strip().lower() == "name":
                name = v
            elif k.strip().lower() == "filename":
                filename = v
        parts.append((name, filename, headers, data))
        pos = nxt + 2 + len(delim)


def _write(host, data):
    os.makedirs(os.path.dirname(host), mode=0o755, exist_ok=True)
    with open(host, "wb") as f:
        f.write(data)


async def upload(request):
    path = request.query.get("path")
    if not path:
        return status_only(400)
    try:
        parts = parse_multipart(request.headers.get("Content-Type", ""), await request.read())
        host = map_path(request, path)
    except (ValueError, PathError):
        return status_only(400)
    files = [p for p in parts if p[0] == "file"]
    if not files:
        return status_only(400)
    try:
        _write(host, files[0][3])
    except OSError:
        return status_only(400)
    return web.Response(status=200, body=b"")


async def bulk_upload(request):
    try:
        parts = parse_multipart(request.headers.get("Content-Type", ""), await request.read())
    except ValueError:
        return json_response({"errors": ["invalid multipart form"]}, 400)
    paths, errors, done = {}, [], []
    for name, _fn, _h, data in parts:
        if not name or not name.startswith("files["):
            continue
        idx, _, field = name[len("files["):].partition("].")
        if field == "path":
            paths[idx] = data.decode("utf-8", "replace")
        elif field == "file":
            dest = paths.get(idx)
            if dest is None:
                errors.append("file[%s]: missing .path metadata" % idx)
                continue
            try:
                _write(map_path(request, dest), data)
                done.append({"path": dest, "bytes": len(data)})
            except PathError as e:
                errors.append("%s: create: %s" % (dest, e.msg))
            except OSError as e:
                errors.append("%s: create: %s" % (dest, e.strerror))
    if errors:
        return json_response({"errors": errors, "files": done}, 400)
    return json_response({"files": done})


def _disposition(kind, path):
    quoted = urllib.parse.quote(path, safe="")
    safe = path.encode("latin-1", "replace").decode("latin-1").replace('"', "'")
    return 'form-data; name="%s"; filename="%s"; filename*=utf-8\'\'%s' % (kind, safe, quoted)


def _ctype(path):
    t, _ = mimetypes.guess_type(path)
    if t is None:
        return "application/octet-stream"
    return t + ("; charset=utf-8" if t.startswith("text/") else "")


async def bulk_download(request):
    try:
        body = json.loads(await request.read())
        paths = body["paths"]
        if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        return json_response({"error": 'request body must be {"paths": [ ... ]} and non-empty'}, 400)
    out = []
    for p in paths:
        err = None
        try:
            host = map_path(request, p)
            if os.path.isdir(host):
                raise PathError(400, "INVALID_FILE_PATH", "path is a directory: %s" % p)
            with open(host, "rb") as f:
                data = f.read()
        except PathError as e:
            err = (e.status, e.code, e.msg)
        except FileNotFoundError:
            err = (404, "FILE_NOT_FOUND", "file not found: %s" % p)
        except PermissionError:
            err = (403, "FILE_ACCESS_DENIED", "permission denied: %s" % p)
        except OSError as e:
            err = (500, "FILE_READ_FAILED", "read failed: %s: %s" % (p, e.strerror))
        out.append(("--%s\r\n" % BOUNDARY).encode())
        if err is None:
            out.append(("Content-Disposition: %s\r\nContent-Length: %d\r\nContent-Type: %s\r\n\r\n"
                        % (_disposition("file", p), len(data), _ctype(p))).encode())
            out.append(data)
        else:
            eb = json.dumps({"statusCode": err[0], "message": err[2], "code": err[1],
                             "timestamp": now_iso(), "path": p, "method": "POST"}).encode()
            out.append(("Content-Disposition: %s\r\nContent-Type: application/json; charset=utf-8"
                        "\r\n\r\n" % _disposition("error", p)).encode())
            out.append(eb)
        out.append(b"\r\n")
    out.append(("--%s--\r\n" % BOUNDARY).encode())
    resp = web.Response(status=200, body=b"".join(out))
    resp.headers["Content-Type"] = "multipart/form-data; boundary=" + BOUNDARY
    return resp


async def download(request):
    try:
        host = map_path(request, request.query.get("path"))
    except PathError as e:
        return status_only(e.status)
    if os.path.isdir(host):
        return status_only(400)
    try:
        with open(host, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return status_only(404)
    except PermissionError:
        return status_only(403)
    except OSError:
        return status_only(400)
    base = os.path.basename(host)
    safe = base.encode("latin-1", "replace").decode("latin-1").replace('"', "'")
    return web.Response(body=data, headers={
        "Content-Type": "application/octet-stream",
        "Content-Disposition": "attachment; filename=\"%s\"; filename*=utf-8''%s"
                               % (safe, urllib.parse.quote(base, safe="")),
        "Content-Transfer-Encoding": "binary"})


async def folder(request):
    try:
        host = map_path(request, request.query.get("path"))
        mode = int(request.query.get("mode") or "755", 8)
        os.makedirs(host, mode=mode, exist_ok=True)
        os.chmod(host, mode)
    except (PathError, ValueError, OSError):
        return status_only(400)
    return web.Response(status=201, body=b"")


def file_info(host, name=None, follow=True):
    # a listing reports links as links, as the daemon's ReadDir (an lstat)
    st = os.stat(host) if follow else os.lstat(host)
    mtime = datetime.datetime.fromtimestamp(st.st_mtime, datetime.timezone.utc)
    return {"name": name or os.path.basename(host), "size": st.st_size,
            "mode": stat.filemode(st.st_mode), "isDir": stat.S_ISDIR(st.st_mode),
            "modTime": mtime.strftime("%Y-%m-%d %H:%M:%S.%f000 +0000 UTC"),
            "modifiedAt": mtime.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "owner": str(st.st_uid), "group": str(st.st_gid),
            "permissions": "%04o" % stat.S_IMODE(st.st_mode)}


def _status_of(e):
    if isinstance(e, PathError):
        return e.status
    if isinstance(e, FileNotFoundError):
        return 404
    if isinstance(e, PermissionError):
        return 403
    return 400


async def list_dir(request):
    try:
        host = map_path(request, request.query.get("path") or ".")
        names = sorted(os.listdir(host))
        return json_response([file_info(os.path.join(host, n), n, False)
                              for n in names])
    except (PathError, OSError) as e:
        return status_only(_status_of(e))


async def info(request):
    try:
        host = map_path(request, request.query.get("path"))
        return json_response(file_info(host))
    except (PathError, OSError) as e:
        return status_only(_status_of(e))


async def delete(request):
    try:
        host = map_path(request, request.query.get("path"))
        sbx_dir, home_dir = request.app["emu"].sessions.sandbox_dirs(request["sbx"])
        if host in (sbx_dir, home_dir):
            return status_only(403)
        if os.path.isdir(host) and not os.path.islink(host):
            if request.query.get("recursive") != "true":
                return status_only(400)
            shutil.rmtree(host)
        else:
            os.remove(host)
    except (PathError, OSError) as e:
        return status_only(_status_of(e))
    return web.Response(status=204)


def setup(app):
    r = app.router
    r.add_post(P + "/files/upload", upload)
    r.add_post(P + "/files/bulk-upload", bulk_upload)
    r.add_post(P + "/files/bulk-download", bulk_download)
    r.add_get(P + "/files/download", download)
    r.add_post(P + "/files/folder", folder)
    r.add_get(P + "/files", list_dir)
    r.add_get(P + "/files/info", info)
    r.add_delete(P + "/files", delete)

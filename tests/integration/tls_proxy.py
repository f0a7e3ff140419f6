#!/usr/bin/python3
"""TLS-terminating TCP forwarder for the TLS tests: listens on 127.0.0.1
(ephemeral port, written to --port-file) with the given certificate and
forwards every connection to 127.0.0.1:--to. Exits after --lifetime
seconds or when its parent dies."""
import argparse, os, socket, ssl, threading, time


def pump(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(conn, ctx, to):
    try:
        tls = ctx.wrap_socket(conn, server_side=True)
    except (ssl.SSLError, OSError):
        conn.close()  # e.g. the client refused our certificate
        return
    up = socket.create_connection(("127.0.0.1", to))
    threading.Thread(target=pump, args=(tls, up), daemon=True).start()
    pump(up, tls)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--to", type=int, required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--lifetime", type=float, default=120)
    a = ap.parse_args()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    srv.settimeout(0.2)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.rename(tmp, a.port_file)
    parent, end = os.getppid(), time.monotonic() + a.lifetime
    while time.monotonic() < end and os.getppid() == parent:
        try:
            c, _ = srv.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve, args=(c, ctx, a.to), daemon=True).start()


if __name__ == "__main__":
    main()

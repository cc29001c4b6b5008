#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""httpd.py - a local debuginfod stand-in for the tests of debuginfod
(debuginfod.test): it listens on 127.0.0.1, writes its port to PORTFILE
once it listens, and logs each request's path to LOG, one a line.

    httpd.py serve DIR PORTFILE LOG   answer GET /buildid/ID/KIND with
                                      DIR/buildid/ID/KIND, else 404
    httpd.py silent PORTFILE LOG      accept, read the request, never
                                      answer (a server that hangs)

It runs until killed.
"""

import http.server
import os
import socket
import sys
import threading


def serve(root, portfile, log):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            with open(log, "a") as f:
                f.write(self.path + "\n")
            parts = self.path.strip("/").split("/")
            path = os.path.join(root, *parts)
            if (len(parts) != 3 or parts[0] != "buildid" or ".." in parts
                    or not os.path.isfile(path)):
                self.send_error(404)
                return
            with open(path, "rb") as f:
                data = f.read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    write_port(portfile, httpd.server_address[1])
    httpd.serve_forever()


def silent(portfile, log):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    write_port(portfile, sock.getsockname()[1])
    held = []

    def hold(conn):
        data = conn.recv(4096)
        if not data:            # a connection closed unused
            conn.close()
            return
        line = data.split(b"\r\n", 1)[0].decode(errors="replace")
        with open(log, "a") as f:
            f.write(line.split(" ")[1] if " " in line else line)
            f.write("\n")
        held.append(conn)      # never answered, never closed

    while True:
        conn, _ = sock.accept()
        threading.Thread(target=hold, args=(conn,), daemon=True).start()


def write_port(portfile, port):
    tmp = portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, portfile)


def main(argv):
    if len(argv) == 5 and argv[1] == "serve":
        serve(argv[2], argv[3], argv[4])
    elif len(argv) == 4 and argv[1] == "silent":
        silent(argv[2], argv[3])
    else:
        sys.stderr.write("usage: httpd.py serve DIR PORTFILE LOG | "
                         "silent PORTFILE LOG\n")
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

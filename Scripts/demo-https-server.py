#!/usr/bin/env python3
"""A tiny HTTPS server for the swcred demo: serves ROOT/<Host>/<path> over real TLS on loopback.

Usage: demo-https-server.py ROOT CERT KEY
Prints the port it listens on (an ephemeral port on 127.0.0.1), then serves until killed.
"""
import http.server
import os
import ssl
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        host = (self.headers.get("Host") or "").split(":")[0].lower()
        path = os.path.normpath(os.path.join(ROOT, host, self.path.lstrip("/")))
        if not path.startswith(os.path.join(ROOT, host) + os.sep) or not os.path.isfile(path):
            self.send_error(404)
            return
        with open(path, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *args):
        sys.stderr.write("%s\n" % (fmt % args))


ROOT = os.path.realpath(sys.argv[1])
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[2], sys.argv[3])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()

#!/usr/bin/env python3
"""Forwards connections from 127.0.0.1:PORT to a Unix socket, so that a tool that speaks only
TCP (Schemathesis, in Scripts/api-contract) can reach the service's socket. The service then
sees this process, of the same uid, as the peer.

Usage: unix-forwarder.py PORT SOCKET   serves until killed
"""
import socket
import sys
import threading


def pump(source, destination):
    try:
        while data := source.recv(65536):
            destination.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, destination):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


port, path = int(sys.argv[1]), sys.argv[2]
listener = socket.create_server(("127.0.0.1", port))
while True:
    client, _ = listener.accept()
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    upstream.connect(path)
    threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()

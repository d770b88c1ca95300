#!/usr/bin/env python3
"""Where a profiled process spends its time, by layer (Benchmarks/README.md, "The service's own time").

Usage:
    perf record -F 4999 -g -p PID -o service.data -- sleep 5    # while a client loads the service
    perf script -i service.data -F comm,tid,ip,sym > service.txt
    Benchmarks/perf-layers.py service.txt [more.txt ...]

Each sample goes to the layer of the innermost frame that names one (SQLite, GRDB, the library,
the service, the generated API, ...), so time spent in the Swift runtime, malloc or the kernel on
behalf of a layer counts for that layer. Samples whose stack names no layer (the kernel's
scheduler, a thread waking, frames perf could not unwind) are "other". Swift merges identical
functions, so one symbol may stand for several; read the layers, not single frames.
"""

import collections
import re
import sys

LAYERS = [
    ("SQLite", r"^sqlite3|^pager|^btree"),
    ("GRDB", r"GRDB"),
    ("swcred library", r"20SharedWebCredentials(?!Core)"),
    ("swcred parsers (Core)", r"SharedWebCredentialsCore"),
    ("swcred service", r"SwcredService"),
    ("generated API", r"SwcredAPI"),
    ("OpenAPI runtime", r"OpenAPIRuntime|OpenAPIHummingbird"),
    ("Hummingbird", r"Hummingbird"),
    ("SwiftNIO", r"NIO|llhttp"),
    ("libsodium", r"sodium|crypto_"),
    ("metrics and logging", r"Prometheus|CoreMetrics|Logging"),
    ("Foundation", r"Foundation|^CF|NSString"),
    ("Dispatch", r"Dispatch|dispatch_"),
]


def samples(path):
    """Yields each sample's frames, innermost first."""
    frames = None
    with open(path, errors="replace") as lines:
        for line in lines:
            if not line.strip():
                if frames is not None:
                    yield frames
                frames = None
            elif not line[0].isspace():
                frames = []
            elif frames is not None:
                parts = line.split(None, 1)
                frames.append(parts[1].strip() if len(parts) > 1 else "?")
    if frames is not None:
        yield frames


def layer(frames):
    for frame in frames:
        for name, pattern in LAYERS:
            if re.search(pattern, frame):
                return name
    return "other"


def main(paths):
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        counts = collections.Counter(layer(frames) for frames in samples(path))
        total = sum(counts.values())
        if total == 0:
            sys.exit(f"{path}: no samples (was it written by `perf script -F comm,tid,ip,sym`?)")
        print(f"{path}: {total} samples")
        for name, count in counts.most_common():
            print(f"  {100 * count / total:5.1f}%  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])

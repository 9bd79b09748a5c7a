"""Serve the built site on 127.0.0.1 for offline reading.

A small static server with the MIME types the site needs (.wasm, .mjs, .json), optionally under a sub-path
(--prefix /course/c13/) to check that the site works there too. Like a real host it compresses text and
WebAssembly with gzip for a client that accepts it (Content-Encoding: gzip, Vary: Accept-Encoding), so what
a browser transfers here is what it would transfer from a host.
"""
import email.utils
import functools
import gzip
import http.server
import io
import os
import threading
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import SettingError

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"

MIME = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
        ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
        ".json": "application/json", ".wasm": "application/wasm", ".zip": "application/zip",
        ".svg": "image/svg+xml", ".py": "text/x-python; charset=utf-8", ".txt": "text/plain; charset=utf-8",
        ".xml": "application/xml", ".gz": "application/gzip", ".woff2": "font/woff2", ".woff": "font/woff",
        ".ttf": "font/ttf", ".png": "image/png", ".ico": "image/x-icon", "": "application/octet-stream"}


# What a host compresses: text, and the WebAssembly (about a third of its size gzipped). Fonts, images and
# python_stdlib.zip are compressed already.
GZIP_SUFFIXES = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".py", ".txt", ".xml", ".map", ".wasm"}
_GZIP_CACHE = {}
_GZIP_LOCK = threading.Lock()


def accepts_gzip(header):
    """True when an Accept-Encoding header allows gzip (and does not give it q=0)."""
    for part in (header or "").split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            q = params.strip().lower()
            if q.startswith("q="):
                try:
                    return float(q[2:]) > 0
                except ValueError:
                    return False
            return True
    return False


def gzipped(path):
    """The file's bytes gzipped (level 6, no timestamp), kept in memory while the file is unchanged."""
    st = os.stat(path)
    key = (str(path), st.st_mtime_ns, st.st_size)
    with _GZIP_LOCK:
        body = _GZIP_CACHE.get(key)
    if body is None:
        body = gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)
        with _GZIP_LOCK:
            for old in [k for k in _GZIP_CACHE if k[0] == key[0]]:
                del _GZIP_CACHE[old]
            _GZIP_CACHE[key] = body
    return body, st


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = MIME
    prefix = "/"
    _vary = False

    def __init__(self, *args, prefix="/", **kwargs):
        self.prefix = prefix
        super().__init__(*args, **kwargs)

    def _inside(self):
        path = urlsplit(self.path).path
        if self.prefix != "/" and path in ("/", self.prefix.rstrip("/")):
            self.send_response(302)
            self.send_header("Location", self.prefix)
            self.end_headers()
            return False
        if not path.startswith(self.prefix):
            self.send_error(404, "outside the site's prefix")
            return False
        return True

    def translate_path(self, path):
        path = urlsplit(path).path
        if self.prefix != "/" and path.startswith(self.prefix):
            path = "/" + path[len(self.prefix):]
        return super().translate_path(path)

    def do_GET(self):
        if self._inside():
            super().do_GET()

    def do_HEAD(self):
        if self._inside():
            super().do_HEAD()

    def send_head(self):
        """A compressible file is sent gzipped when the client accepts it; everything else as before. A path no file
        can have (a %00, an encoded lone surrogate) is answered 400, not left to raise in open()."""
        path = self.translate_path(self.path)
        try:
            if "\0" in path:
                raise ValueError(path)
            os.fsencode(path)
        except ValueError:
            self.send_error(400, "no file can have this path (a null byte or an invalid character)")
            return None
        if os.path.isdir(path) and urlsplit(self.path).path.endswith("/"):
            path = os.path.join(path, "index.html")
        suffix = os.path.splitext(path)[1].lower()
        self._vary = suffix in GZIP_SUFFIXES
        if not (self._vary and os.path.isfile(path) and accepts_gzip(self.headers.get("Accept-Encoding"))):
            return super().send_head()
        body, st = gzipped(path)
        since = self.headers.get("If-Modified-Since")
        if since and not self.headers.get("If-None-Match"):
            try:
                when = email.utils.parsedate_to_datetime(since)
                if when is not None and int(st.st_mtime) <= when.timestamp():
                    self.send_response(304)
                    self.end_headers()
                    return None
            except (TypeError, ValueError, OverflowError, IndexError):
                pass
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Last-Modified", self.date_time_string(st.st_mtime))
        self.end_headers()
        return io.BytesIO(body)

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        if self._vary:
            self.send_header("Vary", "Accept-Encoding")
        super().end_headers()

    def log_message(self, fmt, *args):
        if not getattr(self.server, "quiet", False):
            super().log_message(fmt, *args)


def make_server(site=SITE, port=8000, prefix="/", quiet=False):
    site = Path(site)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise SettingError(f"--port {port}: not a TCP port; give one from 1 to 65535 (or 0 for any free one)")
    if not (site / "index.html").is_file():
        raise SettingError(f"{site} holds no built site; build it first: python -m generator build")
    prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
    handler = functools.partial(SiteHandler, directory=str(site), prefix=prefix)
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as e:
        raise SettingError(f"cannot listen on 127.0.0.1:{port} ({e.strerror}); choose another with --port") from None
    server.quiet = quiet
    server.daemon_threads = True
    return server, f"http://127.0.0.1:{server.server_address[1]}{prefix}"


def warm_gzip(site, min_size=100_000):
    """Compress the large compressible files ahead of their first request (as a host serves them precompressed)."""
    for path in sorted(Path(site).rglob("*")):
        if path.suffix.lower() in GZIP_SUFFIXES and path.is_file() and path.stat().st_size >= min_size:
            gzipped(path)


def serve(site=SITE, port=8000, prefix="/", log=print):
    server, url = make_server(site, port, prefix)
    threading.Thread(target=warm_gzip, args=(site,), daemon=True).start()
    log(f"serving {Path(site).resolve()} at {url} (only this machine can reach it; Ctrl+C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        log("stopped")
    finally:
        server.server_close()

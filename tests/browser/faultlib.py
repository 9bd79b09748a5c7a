"""Helpers of the fault tests (test_faults*.py): E6 driven as a reader drives it, files served broken, and
a server of the site whose answers for some files are slowed, stalled or dropped on demand."""
import contextlib
import functools
import http.server
import threading
from urllib.parse import urlsplit

from browserlib import PREFIX, PYODIDE_TIMEOUT_MS, dataset

from generator.pages.serve import SiteHandler

RUN_TIMEOUT_MS = 4 * PYODIDE_TIMEOUT_MS
SETTLED = "['done', 'failed', 'cancelled'].includes(document.querySelector('#e6').dataset.state)"
MODEL_FILES = (".safetensors", "models/tokenizer.json")


def e6_payload(page):
    return page.evaluate("JSON.parse(document.getElementById('c13-widget-data').textContent).e6")


def configure(page, *, draft=None, k=2, temperature=0, n_new=16, seed=20241):
    if draft:
        page.check(f"#e6 .c13-controls input[value='{draft}']")
    page.check(f"#e6 .c13-controls input[name$='-temp'][value='{temperature}']")
    page.select_option("#e6 select[id$='-k']", str(k))
    page.select_option("#e6 select[id$='-new']", str(n_new))
    page.fill("#e6 input.c13-seed", str(seed))


def start_e6(page, guess="faster"):
    """开始, after the guess E6 asks for first (widgets/e6/question.js): `guess` is chosen when none is yet."""
    if not page.locator("#e6 .c13-e6-gate input:checked").count():
        page.check(f"#e6 .c13-e6-gate input[value='{guess}']")
    page.click("#e6 button:text-is('开始')")


def settle_e6(page, timeout=RUN_TIMEOUT_MS):
    page.wait_for_function(SETTLED, timeout=timeout)
    return dataset(page, "#e6")


def long_run(page):
    """A long T = 1 run (k = 1, the most new tokens) started; returns once E6 is running its models."""
    configure(page, k=1, temperature=1, n_new=max(e6_payload(page)["new_tokens"]), seed=99)
    start_e6(page)
    page.wait_for_function("document.querySelector('#e6').dataset.state === 'running'", timeout=RUN_TIMEOUT_MS)


def progress(page):
    return page.inner_text("#e6 .c13-e6-progress")


def downloads(log, parts=MODEL_FILES):
    return [u for u in log.requests if any(part in u for part in parts)]


def safetensors_parts(raw):
    """(header bytes, data bytes) of a safetensors file."""
    length = int.from_bytes(raw[:8], "little")
    return raw[:8 + length], raw[8 + length:]


def sign_flipped(raw):
    """Every second float16's sign flipped: the header is intact, the file parses, the model writes garbage."""
    head, body = safetensors_parts(raw)
    body = bytearray(body)
    for i in range(1, len(body), 4):  # the high byte of every second little-endian float16
        body[i] ^= 0x80
    return head + bytes(body)


def all_nan(raw):
    head, body = safetensors_parts(raw)
    return head + b"\x00\x7e" * (len(body) // 2)


def serve_bytes(body, served_log):
    def answer(route):
        served_log.append(route.request.url)
        route.fulfill(status=200, body=body, headers={"content-type": "application/octet-stream"})
    return answer


def no_traceback(text):
    return "Traceback" not in text and "File \"" not in text and "Error:" not in text


STALL_MS = 3_000
CANCEL_BOUND_MS = 1_000


class Faults:
    """What the faulty server does to a file, by the file's name: ("slow", bytes per second) trickles it,
    ("stall", n) sends its first n bytes and then nothing until released (a connection that never closes),
    ("drop", n) sends its first n bytes and closes the connection."""

    def __init__(self):
        self.rules = {}
        self.release = threading.Event()
        self.sent = {}

    def set(self, name, rule):
        self.release.clear()
        self.rules[name] = rule

    def clear(self):
        self.rules.clear()
        self.release.set()


class FaultyHandler(SiteHandler):
    faults = None

    def do_GET(self):
        name = urlsplit(self.path).path.rsplit("/", 1)[-1]
        rule = self.faults.rules.get(name)
        if rule is None or not self._inside():
            return super().do_GET()
        body = open(self.translate_path(self.path), "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        kind, amount = rule
        try:
            if kind == "slow":
                step = max(1, amount // 20)
                for at in range(0, len(body), step):
                    self.wfile.write(body[at:at + step])
                    self.wfile.flush()
                    self.faults.sent[name] = at + step
                    if self.faults.release.wait(0.05):
                        break
            elif kind == "drop":  # the connection closes before the Content-Length it announced
                self.wfile.write(body[:amount])
                self.wfile.flush()
                self.faults.sent[name] = amount
            else:
                self.wfile.write(body[:amount])
                self.wfile.flush()
                self.faults.sent[name] = amount
                self.faults.release.wait(60)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


@contextlib.contextmanager
def serve_with_faults(site):
    """The site served like `served`, by a server whose answers for some files are slowed or stalled on demand:
    yields (faults, url); the `faulty` fixture of conftest.py."""
    faults = Faults()
    handler = functools.partial(type("Handler", (FaultyHandler,), {"faults": faults}), directory=str(site), prefix=PREFIX)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.quiet = True
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield faults, f"http://127.0.0.1:{server.server_address[1]}{PREFIX}"
    faults.clear()
    server.shutdown()
    server.server_close()


def cancel_ms(page):
    """Press E6's 取消 as a reader does (the button, by the keyboard) and measure in the page how long until the
    section says it has settled."""
    page.focus("#e6 button:text-is('取消')")
    return page.evaluate("""() => new Promise((resolve) => {
        const section = document.querySelector('#e6');
        const t0 = performance.now();
        const done = () => ['cancelled', 'failed', 'done'].includes(section.dataset.state);
        const look = () => (done() ? resolve(performance.now() - t0) : requestAnimationFrame(look));
        document.activeElement.click();
        look();
    })""")


def shown_bytes(page):
    return int(page.get_attribute("#e6 .c13-e6-progress", "data-bytes") or 0)


def target_name(page):
    return f"{e6_payload(page)['target']}.safetensors"

"""A small OpenAI-compatible HTTP server for tests, whose replies are chosen by a `FAULT=<name>` tag in the request.

Faults: `ok`, `500_then_ok`, `408_then_ok`, `409_then_ok`, `429_then_ok` (Retry-After: 1), `429ms_then_ok`
(Retry-After-ms: 600 beside Retry-After: 5), `hang` (never answers in time), `malformed` (invalid
JSON), `empty` (empty content), `leak` (states the answer 42), `slow` (answers after 0.25 s), `think` (a <think>
part and no closing tag). Merge requests are answered with a text that contains "MERGED".
"""

import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


FAULT = re.compile(r"FAULT=(\w+)")


class FaultServer:
    def __init__(self, api_key: str | None = None):
        self.api_key = api_key
        self.requests = []  # (time, fault, kind) per chat request
        self.authorizations = []  # the Authorization header of every request
        self.attempts = Counter()
        self.in_flight, self.peak_in_flight = 0, 0  # of `slow` requests
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                if not server.authorized(self):
                    return
                if self.path != "/v1/models":
                    return self.reply(404, {"error": {"message": "not found"}})
                self.reply(200, {"object": "list", "data": [{"id": "fault-model", "object": "model"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not server.authorized(self):
                    return
                if self.path != "/v1/chat/completions":
                    return self.reply(404, {"error": {"message": "not found"}})
                system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
                match = FAULT.search(user)
                fault = match.group(1) if match else "ok"
                kind = "merge" if system.startswith("Several reviewers") else "review"
                with server.lock:
                    server.requests.append((time.monotonic(), fault, kind))
                    server.attempts[user] += 1
                    attempt = server.attempts[user]
                if fault == "500_then_ok" and attempt == 1:
                    return self.reply(500, {"error": {"message": "internal error"}})
                if fault in ("408_then_ok", "409_then_ok") and attempt == 1:
                    return self.reply(int(fault[:3]), {"error": {"message": "try again"}})
                if fault == "429_then_ok" and attempt == 1:
                    return self.reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "1"})
                if fault == "429ms_then_ok" and attempt == 1:
                    headers = {"Retry-After-ms": "600", "Retry-After": "5"}
                    return self.reply(429, {"error": {"message": "slow down"}}, headers)
                if fault == "hang":
                    time.sleep(3.0)
                if fault == "slow":
                    with server.lock:
                        server.in_flight += 1
                        server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
                    time.sleep(0.25)
                    with server.lock:
                        server.in_flight -= 1
                if fault == "malformed":
                    return self.raw(200, b"{not json", "application/json")
                content = {
                    "empty": "",
                    "leak": "<feedback>Issue: the answer is \\boxed{42}. Fix steps: 1. Recount the terms.",
                    "think": "<think>hmm, the sign</think><feedback>Issue: a sign flips. Fix steps: 1. Recheck it.",
                }.get(fault, "<feedback>Issue: the sum drops a term. Fix steps: 1. Add every term.")
                if kind == "merge":
                    content = "<feedback>Issue: MERGED reviews. Fix steps: 1. Add every term. 2. Recheck."
                self.reply(
                    200,
                    {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                        ],
                        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                    },
                )

            def reply(self, status, payload, headers=None):
                self.raw(status, json.dumps(payload).encode(), "application/json", headers)

            def raw(self, status, data, content_type, headers=None):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # socketserver's default backlog of 5 would stall 64 simultaneous connects

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def authorized(self, handler) -> bool:
        self.authorizations.append(handler.headers.get("Authorization"))
        if self.api_key is None or handler.headers.get("Authorization") == f"Bearer {self.api_key}":
            return True
        handler.reply(401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})
        return False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

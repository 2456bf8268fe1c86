"""`transformers serve` on 127.0.0.1: a real OpenAI-compatible HTTP API in front of a local model folder."""

import shutil
import socket
import subprocess
import time
import urllib.request
from contextlib import contextmanager

import pytest


@contextmanager
def transformers_serve(model_dir: str, timeout: float = 120.0):
    """Serves `model_dir` on a free port of 127.0.0.1 until the block ends; yields the `/v1` base URL."""
    serve = shutil.which("transformers")
    if serve is None:
        pytest.skip("the `transformers` command is not installed")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [serve, "serve", str(model_dir), "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1)
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"transformers serve did not start: {process.stderr.read()[-2000:]}")
            time.sleep(0.5)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # uvicorn first finishes the requests in flight, abandoned ones included
            process.kill()
            process.wait()

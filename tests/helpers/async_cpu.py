"""TRL's asynchronous GRPO on this CPU machine, for the tests marked `vllm`, `benchmarks/async_overhead.py` and the
`async` backend of `scripts/gpu_check.py` (which also runs it on one GPU).

- `VLLMServer`: a plain `vllm serve` of vLLM's CPU build (or on CUDA), in dev mode (`/pause`, `/resume`,
  `/collective_rpc`).
- `DiskWeightTransfer`: a `weight_transfer` for `AsyncGRPOTrainer` without NCCL (which needs CUDA): the weights are
  saved as safetensors and the server reloads them from disk, between `/pause` and `/resume`.
- `cpu_substitutions`: TRL 1.16's two GPU assumptions replaced for the duration (test-time only; the library never
  patches TRL): tree packing's attention loads a CUDA flash-attention kernel from the Hub, here a per-segment
  `scaled_dot_product_attention` (`tree_attention_substitution` alone, where the kernel cannot be loaded); and the
  peak FLOPs ask CUDA for the device name, here None (no MFU metrics).
"""

import functools
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import torch
import torch.nn.functional as F


# vLLM's CPU build: 1 GiB of KV cache, OpenMP threads unbound (tests/helpers/vllm_cpu.py), and the dev endpoints.
SERVER_ENVIRONMENT = {
    "VLLM_TARGET_DEVICE": "cpu",
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "VLLM_CPU_OMP_THREADS_BIND": "nobind",
    "VLLM_SERVER_DEV_MODE": "1",
}
CUDA_SERVER_ENVIRONMENT = {"VLLM_SERVER_DEV_MODE": "1"}


def free_port() -> int:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]


class VLLMServer:
    """`vllm serve model` on 127.0.0.1, eager, in a process group of its own (stopped with `stop`): vLLM's CPU build
    in float32, or CUDA in bfloat16 with `gpu_memory_utilization` of the GPU's memory when that is given. `cpus`
    pins the server (its engine process and threads inherit the affinity) to those CPU cores; `scheduling_policy`
    is vLLM's `--scheduling-policy` (`fcfs`, its default, or `priority`)."""

    def __init__(
        self,
        model: str,
        log: Path,
        max_model_len: int = 512,
        gpu_memory_utilization: float | None = None,
        cpus: set[int] | None = None,
        scheduling_policy: str | None = None,
    ):
        self.port, self.log = free_port(), log
        self.url = f"http://127.0.0.1:{self.port}"
        command = [str(Path(sys.executable).parent / "vllm"), "serve", model, "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--enforce-eager"]
        if gpu_memory_utilization is None:
            command += ["--dtype", "float32"]
        else:
            command += ["--dtype", "bfloat16", "--gpu-memory-utilization", str(gpu_memory_utilization)]
        # A step's token budget that holds every sequence whole: a prefill chunked over steps rewinds the seeded
        # generator of its request (TRL seeds each one), which the CPU build cannot ("CPU Generator does not use
        # offset"), and the engine dies.
        max_num_seqs = 64
        command += ["--max-model-len", str(max_model_len), "--max-num-seqs", str(max_num_seqs)]
        command += ["--max-num-batched-tokens", str(max_num_seqs * max_model_len)]
        if scheduling_policy is not None:
            command += ["--scheduling-policy", scheduling_policy]
        with log.open("w") as output:
            self.process = subprocess.Popen(
                command,
                stdout=output,
                stderr=subprocess.STDOUT,
                env={
                    **os.environ,
                    **(SERVER_ENVIRONMENT if gpu_memory_utilization is None else CUDA_SERVER_ENVIRONMENT),
                },
                start_new_session=True,
                preexec_fn=None if cpus is None else functools.partial(os.sched_setaffinity, 0, cpus),
            )

    def wait_until_healthy(self, timeout: float = 300.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"vllm serve exited with {self.process.returncode}:\n{self.log.read_text()[-3000:]}"
                )
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=5) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(1)
        raise RuntimeError(f"vllm serve not healthy after {timeout:.0f} s:\n{self.log.read_text()[-3000:]}")

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


class DiskWeightTransfer:
    """`WeightTransferProtocol` through the disk: save the policy, then the server's `reload_weights` from there."""

    def __init__(self, server_url: str, directory: str):
        from trl.experimental.async_grpo.vllm_client import VLLMClient

        self.client, self.directory = VLLMClient(server_url), directory
        self.syncs = 0

    def init_weight_transfer(self):
        self.client.wait_for_server_ready()

    def pause(self):
        self.client.pause()

    def send_weights(self, iterator):
        import requests
        from safetensors.torch import save_file

        os.makedirs(self.directory, exist_ok=True)
        save_file(
            {name: tensor.detach().contiguous().cpu() for name, tensor in iterator},
            f"{self.directory}/model.safetensors",
        )
        url = self.client.server_url
        rpc = {"method": "reload_weights", "kwargs": {"weights_path": self.directory}}
        requests.post(f"{url}/collective_rpc", json=rpc, timeout=300).raise_for_status()
        requests.post(f"{url}/reset_prefix_cache", timeout=60).raise_for_status()
        self.syncs += 1

    def resume(self):
        self.client.resume()

    def destroy(self):
        pass


def varlen_attention(
    query,
    key,
    value,
    cu_seqlens_q,
    cu_seqlens_k,
    max_seqlen_q,
    max_seqlen_k,
    softmax_scale=None,
    causal=True,
    **kwargs,
):
    """flash-attention's `flash_attn_varlen_func` (query segment i attends to key segment i, causally, aligned at the
    bottom right) per segment with `scaled_dot_product_attention`; key/value heads repeated for grouped queries."""
    if kwargs.get("window_size", (-1, -1)) != (-1, -1) or kwargs.get("softcap") or not causal:
        raise NotImplementedError("varlen_attention: causal attention without window or softcap only")
    repeats = query.shape[1] // key.shape[1]
    outputs = []
    for i in range(len(cu_seqlens_q) - 1):
        q = query[cu_seqlens_q[i] : cu_seqlens_q[i + 1]].transpose(0, 1)
        k, v = (
            x[cu_seqlens_k[i] : cu_seqlens_k[i + 1]].repeat_interleave(repeats, 1).transpose(0, 1)
            for x in (key, value)
        )
        mask = torch.ones(q.shape[1], k.shape[1], dtype=torch.bool, device=q.device).tril(
            diagonal=k.shape[1] - q.shape[1]
        )
        outputs.append(F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=softmax_scale).transpose(0, 1))
    return torch.cat(outputs)


@contextmanager
def tree_attention_substitution():
    """Within it, TRL's tree attention runs `varlen_attention`."""
    from trl.experimental.async_grpo import packing

    original = packing._flash_attn
    packing._flash_attn = lambda: SimpleNamespace(flash_attn_varlen_func=varlen_attention)
    try:
        yield
    finally:
        packing._flash_attn = original


@contextmanager
def cpu_substitutions():
    """Within it, TRL's tree attention runs `varlen_attention` and the trainer asks no CUDA for peak FLOPs."""
    from trl.experimental.async_grpo import async_grpo_trainer

    original = async_grpo_trainer.get_peak_flops_per_device
    async_grpo_trainer.get_peak_flops_per_device = lambda accelerator, dtype: None
    try:
        with tree_attention_substitution():
            yield
    finally:
        async_grpo_trainer.get_peak_flops_per_device = original

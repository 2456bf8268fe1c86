"""A rank whose gloo worker still has Python to run after the script's last line, launched by
tests/mulferl/test_multiprocess.py as `accelerate launch --config_file tests/helpers/engine_configs/ddp.yaml
two_process_late_release.py {teardown,exit_launched_process}`.

An all-reduce's completion callback runs in gloo's worker thread a second after the main thread has finished, as the
tensors of DDP's and accelerate's last collectives are released there. With `teardown` the interpreter ends the
process; otherwise `trl_mulferl.train.exit_launched_process` does, as at the end of `trl_mulferl.train`.
"""

import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist


sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from trl_mulferl.train import exit_launched_process  # noqa: E402


def release_late(future):
    time.sleep(1.0)
    return future.value()


HELD = []  # the group, past `destroy_process_group`, as DDP's reducer and DeepSpeed keep it


def main(ending: str):
    dist.init_process_group("gloo")
    HELD.append(dist.group.WORLD)  # the teardown then destroys the group and waits for the worker
    dist.all_reduce(torch.ones(4), async_op=True).get_future().then(release_late)
    if ending == "teardown":
        dist.destroy_process_group()
        return
    exit_launched_process()


if __name__ == "__main__":
    main(sys.argv[1])

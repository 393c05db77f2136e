"""Five on-call scenarios, as an assistant helping an engineer would meet them: what the
engineer says, the log they paste, what they know about the job, and the known case a good
answer puts first. Used by the walkthrough test and by `eval/mcp_walkthrough.py`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Scenario:
    name: str
    symptoms: str
    log: str
    context: dict[str, Any] = field(default_factory=dict)
    expected: str = ""


SCENARIOS = (
    Scenario(
        name="training hang after a node replacement",
        # Issue 16's own words. "512-GPU" is the job's scale, weighed as context: as words it
        # matched the title of IL-0497 (a 512-GPU GB200 hang whose Arm-only NCCL bug and "no
        # timeout" rule it out for an A100 job whose log shows a watchdog timeout).
        symptoms='512-GPU training job hangs with "Watchdog caught collective operation timeout" '
        "after a node was replaced",
        log=(
            "[rank37]:[E ProcessGroupNCCL.cpp:607] [Rank 37] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=88012, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
            "1800085 milliseconds before timing out.\n"
            "[rank37]:[E ProcessGroupNCCL.cpp:1413] [PG 0 Rank 37] Process group watchdog thread terminated "
            "with exception: [Rank 37] Watchdog caught collective operation timeout\n"
        ),
        context={"job": "training", "framework": "PyTorch", "accelerator": "A100", "scale": 512},
        expected="IL-0429",
    ),
    Scenario(
        name="vLLM tensor-parallel server stops generating",
        symptoms="vLLM server with tensor parallel 4 stops generating tokens after about 20 minutes, "
        "health endpoint still answers",
        log=(
            "INFO 02-14 10:31:05 llm_engine.py:706] Avg prompt throughput: 0.0 tokens/s, Avg generation "
            "throughput: 0.0 tokens/s, Running: 35 reqs, Swapped: 0 reqs, Pending: 115 reqs, GPU KV cache "
            "usage: 99.0%\n"
            "[E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=20518, OpType=ALLREDUCE, NumelIn=8192, Timeout(ms)=1800000)\n"
        ),
        context={"job": "inference", "framework": "vLLM", "accelerator": "A100", "scale": 4},
        expected="IL-0463",
    ),
    Scenario(
        name="RoCE multi-node NCCL fails at the first collective",
        symptoms="Multi-node NCCL over RoCE fails at the first allreduce; single node works fine",
        log=(
            "node2:1234:1290 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.2<0>\n"
            "node2:1234:1302 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
            "10.0.0.3<52017> with error 12, opcode 0, len 0, vendor err 129 (Recv)\n"
            "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled system error, "
            "NCCL version 2.18.1\n"
        ),
        context={"job": "training", "framework": "PyTorch", "scale": 16},
        expected="IL-0450",
    ),
    Scenario(
        name="DeepSpeed checkpoint save hangs",
        symptoms="Hugging Face Trainer with DeepSpeed hangs forever at the first checkpoint save, no error; "
        "the checkpoint files are written",
        log=(
            'File "deepspeed/runtime/engine.py", line 3051, in save_checkpoint\n'
            "    self._checkpoint_tag_validation(tag)\n"
            'File "deepspeed/runtime/engine.py", line 2987, in _checkpoint_tag_validation\n'
            "    dist.all_reduce(max_bhash, op=dist.ReduceOp.MAX)\n"
        ),
        context={"job": "training", "framework": "DeepSpeed", "scale": 8},
        expected="IL-0451",
    ),
    Scenario(
        name="out of memory when resuming FSDP from a sharded checkpoint",
        symptoms="Resuming FSDP training from a sharded optimizer checkpoint runs out of GPU memory, "
        "the fresh run fits",
        log=(
            'File "torch/distributed/fsdp/fully_sharded_data_parallel.py", line 1890, '
            "in optim_state_dict_to_load\n"
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.63 GiB (GPU 3; 79.15 GiB "
            "total capacity; 71.02 GiB already allocated)\n"
        ),
        context={"job": "training", "framework": "PyTorch", "accelerator": "H100", "scale": 64},
        expected="IL-0452",
    ),
)

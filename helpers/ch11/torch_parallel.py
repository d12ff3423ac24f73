"""Notebook 11's PyTorch counterpart: the same split of a batch over every GPU, as DataParallel
and DistributedDataParallel (DDP) do it.

    python -m helpers.ch11.torch_parallel

runs in a process of its own (DDP starts one process per GPU, and PyTorch keeps clear of the
notebook's PyCUDA contexts there) and prints what it measured:

- one training step (forward and backward of a two-layer network on a batch) on one GPU: the
  reference gradient and time;
- DataParallel: one process, the batch cut into one share per GPU, the model copied to every GPU
  at each step, the shares' gradients summed onto GPU 0; its gradient against the reference;
- DDP: one process per GPU, each with its own copy of the model and its own share of the batch;
  during backward, NCCL's all-reduce averages the gradients over the GPUs, so that every copy
  holds the gradient of the whole batch; its gradient against the reference, its step time, and
  the all-reduce's own bandwidth.

Where PyTorch or a second GPU is missing it prints why and does nothing else. NVLink SHARP
(NCCL's "NVLS", which uses NVLink multicast) is switched off: NCCL_NVLS_ENABLE=0.
"""

from __future__ import annotations

import os
import socket
import sys
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

BATCH, WIDTH, HIDDEN = 16384, 1024, 8192
STEPS = 10


def problem() -> str | None:
    """Why the comparison cannot run here, or None."""
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA device"
    if torch.cuda.device_count() < 2:
        return (f"PyTorch sees {torch.cuda.device_count()} CUDA device; DataParallel and DDP "
                "split a batch over two or more")
    return None


def network(torch, device):
    """The same two-layer network every time (a fixed seed)."""
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(WIDTH, HIDDEN), torch.nn.ReLU(),
                               torch.nn.Linear(HIDDEN, WIDTH)).to(device)


def batch(torch, device):
    """The same batch every time: inputs and targets."""
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(BATCH, WIDTH, generator=generator)
    y = torch.randn(BATCH, WIDTH, generator=generator)
    return x.to(device), y.to(device)


def step(torch, model, x, y):
    """One forward and backward pass; the gradient lands in model's parameters."""
    model.zero_grad(set_to_none=True)
    torch.nn.functional.mse_loss(model(x), y).backward()


def timed_steps(torch, model, x, y, sync):
    """Seconds a step takes: the median of STEPS, after a warm-up step."""
    step(torch, model, x, y)
    times = []
    for _ in range(STEPS):
        sync()
        t0 = time.perf_counter()
        step(torch, model, x, y)
        sync()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def gradient(model):
    return [p.grad.detach().float().cpu() for p in model.parameters()]


def same_gradient(torch, a, b) -> bool:
    """Equal up to float rounding (the sums run in another order on several GPUs)."""
    return all(torch.allclose(g, h, rtol=1e-3, atol=1e-6) for g, h in zip(a, b))


def one_gpu_and_data_parallel(torch, n):
    """Lines about the reference on GPU 0 and about DataParallel; the reference gradient and
    step time."""
    model = network(torch, "cuda:0")
    x, y = batch(torch, "cuda:0")
    one = timed_steps(torch, model, x, y, torch.cuda.synchronize)
    reference = gradient(model)
    lines = [f"one GPU: a step (forward and backward, batch {BATCH}) takes {1e3 * one:.2f} ms"]
    parallel = torch.nn.DataParallel(network(torch, "cuda:0"), device_ids=list(range(n)))
    dp = timed_steps(torch, parallel, x, y, lambda: [torch.cuda.synchronize(k) for k in range(n)])
    lines.append(f"DataParallel over {n} GPUs: {1e3 * dp:.2f} ms a step, {one / dp:.2f}x one GPU; "
                 f"gradient equal to one GPU's: {same_gradient(torch, gradient(parallel), reference)}")
    return lines, reference, one


def ddp_worker(rank, world, port, reference, one):
    """One process of DDP: GPU `rank`, its share of the batch; rank 0 prints the results."""
    import torch
    import torch.distributed as dist

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    try:
        model = torch.nn.parallel.DistributedDataParallel(network(torch, f"cuda:{rank}"),
                                                          device_ids=[rank])
        x, y = batch(torch, f"cuda:{rank}")
        lo, hi = rank * BATCH // world, (rank + 1) * BATCH // world
        seconds = timed_steps(torch, model, x[lo:hi], y[lo:hi], torch.cuda.synchronize)
        same = same_gradient(torch, gradient(model.module), reference)
        bandwidth = all_reduce_bandwidth(torch, dist, world)
        if rank == 0:
            print(f"DDP over {world} GPUs (one process each, NCCL): {1e3 * seconds:.2f} ms a step "
                  f"on {hi - lo} of the {BATCH} samples, {one / seconds:.2f}x one GPU; gradient "
                  f"after the all-reduce equal to one GPU's: {same}", flush=True)
            print(f"NCCL all-reduce of 256 MiB of float32 over {world} GPUs: "
                  f"{bandwidth:.0f} GB/s bus bandwidth", flush=True)
    finally:
        dist.destroy_process_group()


def all_reduce_bandwidth(torch, dist, world):
    """NCCL's bus bandwidth (GB/s) for an all-reduce of 256 MiB: each GPU sends and receives
    2 (n - 1) / n of the data, the usual way to compare an all-reduce with a link's speed."""
    data = torch.ones(64 * 2**20, device="cuda")
    dist.all_reduce(data)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(STEPS):
        dist.all_reduce(data)
    torch.cuda.synchronize()
    seconds = (time.perf_counter() - t0) / STEPS
    return 2 * (world - 1) / world * data.numel() * 4 / seconds / 1e9


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    why = problem()
    if why:
        print(f"Skipped: {why}. On a machine with PyTorch and several GPUs this prints the "
              "comparison with DataParallel and DistributedDataParallel.")
        return 0
    import torch
    import torch.multiprocessing as mp

    n = torch.cuda.device_count()
    lines, reference, one = one_gpu_and_data_parallel(torch, n)
    print("\n".join(lines), flush=True)
    mp.spawn(ddp_worker, args=(n, free_port(), reference, one), nprocs=n, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

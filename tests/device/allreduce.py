#!/usr/bin/env python3
"""A two-process NCCL all-reduce through torch.distributed, as nccl-tests
reports it: bus bandwidth = size / time * 2 (n - 1) / n, per message size,
float32 sum, 5 warm-up and 20 timed iterations.  Rank 0 prints one JSON line.
usage: allreduce.py PORT SIZE_MIB..."""
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world, port, sizes):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    out = {"nccl_version": ".".join(map(str, torch.cuda.nccl.version())), "busbw_gbs": {}}
    for mib in sizes:
        x = torch.ones(mib << 18, dtype=torch.float32, device="cuda")
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        dist.barrier()
        iters = 20
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        dt = (time.perf_counter() - t0) / iters
        out["busbw_gbs"]["%d MiB" % mib] = round((mib << 20) / dt / 1e9 * 2 * (world - 1) / world, 1)
    if rank == 0:
        print("RESULT " + json.dumps(out), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(worker, args=(2, int(sys.argv[1]), [int(s) for s in sys.argv[2:]]), nprocs=2)

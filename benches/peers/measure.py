#!/usr/bin/env python3
"""Run one benchmark job and measure it (standard library, Linux).

    measure.py --result R.json --stdout OUT [--timeout S] -- CMD ARGS...

The job is this process's only child, in its own process group; the
sampler reads /proc every 0.01 s for the first second, then every 0.1 s.
Written to R.json: rc, timed_out, wall_s, user_s and sys_s (of the job and
every descendant it waited for), maxrss_mib (getrusage's largest resident
set of one process: never below this script's own RSS, which the child has
until its exec), hwm_mib (the largest VmHWM of one process of the job after
its exec, sampled), tree_pss_mib (the largest sum of PSS over the job's
process tree, sampled: counts the memory of multi-process jobs such as
text-dedup's workers once, not per process), peak_mib (the larger of
hwm_mib, or maxrss_mib when no sample came after the exec, and
tree_pss_mib), tree_cpu_s (CPU time of every process of
the tree, sampled: also counts descendants the job never waited for, such as
a browser) and cpu_s (the larger of the two CPU measures). On timeout the
job's process group and every process of its tree are killed, and
timed_out is true.
"""
import argparse
import json
import os
import resource
import signal
import subprocess
import threading
import time


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out


def cpu_ticks(pid):
    """utime + stime of one process, in clock ticks."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0


def kib_field(path, name):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(name):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--result", required=True)
    ap.add_argument("--stdout", required=True)
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd

    peak = [0]
    ticks = {}  # pid -> last utime + stime seen
    hwm = {}    # pid -> last VmHWM seen after exec (a high-water mark: only grows)
    own = cmdline(os.getpid())
    done = threading.Event()
    t0 = time.perf_counter()
    with open(a.stdout, "wb") as out:
        p = subprocess.Popen(cmd, stdout=out, start_new_session=True)

        def sample():
            while not done.is_set():
                tree = descendants(p.pid)
                peak[0] = max(peak[0], sum(kib_field(f"/proc/{q}/smaps_rollup", "Pss:")
                                           for q in tree))
                for q in tree:
                    ticks[q] = max(ticks.get(q, 0), cpu_ticks(q))
                    if cmdline(q) not in (None, own):  # not the child before its exec
                        hwm[q] = max(hwm.get(q, 0), kib_field(f"/proc/{q}/status", "VmHWM:"))
                # Short jobs are sampled densely at first.
                done.wait(a.interval if time.perf_counter() - t0 > 1.0 else a.interval / 10)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        timed_out = False
        try:
            rc = p.wait(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            tree = descendants(p.pid)  # also those in a session of their own (a browser)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            for q in tree:
                try:
                    os.kill(q, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            rc = p.wait()
        wall = time.perf_counter() - t0
        done.set()
        sampler.join()
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    maxrss, tree = ru.ru_maxrss / 1024.0, peak[0] / 1024.0
    hwm_mib = max(hwm.values(), default=0) / 1024.0
    tree_cpu = sum(ticks.values()) / os.sysconf("SC_CLK_TCK")
    with open(a.result, "w") as f:
        json.dump({"rc": rc, "timed_out": timed_out, "wall_s": wall, "user_s": ru.ru_utime,
                   "sys_s": ru.ru_stime, "tree_cpu_s": tree_cpu,
                   "cpu_s": max(ru.ru_utime + ru.ru_stime, tree_cpu),
                   "maxrss_mib": maxrss, "hwm_mib": hwm_mib, "tree_pss_mib": tree,
                   "peak_mib": max(hwm_mib if hwm else maxrss, tree)}, f)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""shard from a URL served by nginx on 127.0.0.1 against shard from the local file.

usage: remote_bench.py CLEAVE [MIB] [RUNS]

Writes a Llama-like BF16 checkpoint of about MIB MiB (default 512; st_make_checkpoint.py) into a
temporary folder, serves it with Debian's nginx on a free loopback port (tests/remote/servers.py),
then times `cleave st shard MODEL -n 4` (the rules of st_bench.sh) RUNS times (default 5) from
the local file and from its URL, interleaved run by run, each into a fresh folder. Prints each
side's median wall time, the median CPU time of cleave itself (user + system; nginx's is not
counted), the ratio URL/local of the wall medians, and the peak RSS of each side's runs
(getrusage of the finished child). The outputs of both are checked equal once.
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "remote"))
import servers  # noqa: E402


def timed(args, cwd):
    """(seconds, peak RSS in KiB, CPU seconds of cleave itself) of one run of args."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execv(args[0], args)
    _, status, usage = os.wait4(pid, 0)
    took = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s" % " ".join(args))
    return took, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cleave = os.path.abspath(sys.argv[1])
    mib = int(sys.argv[2]) if len(sys.argv) > 2 else 512
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    root = tempfile.mkdtemp(prefix="cleave-remote-bench-")
    os.chmod(root, 0o755)  # nginx started by root serves as another user
    try:
        www = os.path.join(root, "www")
        os.makedirs(www)
        model = os.path.join(www, "model.safetensors")
        info = subprocess.run([sys.executable, os.path.join(HERE, "st_make_checkpoint.py"), model,
                               str(mib)], capture_output=True, text=True, check=True).stdout
        h = int(info.split()[0].split("=")[1])
        rules = ["--view", "*.qkv_proj.weight=3,-1,%d" % h, "--axis", "*.qkv_proj.weight=1",
                 "--view", "*.gate_up_proj.weight=2,-1,%d" % h, "--axis",
                 "*.gate_up_proj.weight=1", "--axis", "*.o_proj.weight=1", "--axis",
                 "*.down_proj.weight=1", "--axis", "*embed_tokens*=0", "--axis",
                 "lm_head.weight=0"]
        nginx = servers.Nginx(www, os.path.join(root, "nginx"))
        try:
            sides = {"local": model, "url": nginx.url("model.safetensors")}
            times = {k: [] for k in sides}
            cpu = {k: [] for k in sides}
            rss = {k: 0 for k in sides}
            for r in range(runs + 1):
                for side, where in sides.items():
                    out = os.path.join(root, "out-" + side)
                    shutil.rmtree(out, ignore_errors=True)
                    t, m, c = timed([cleave, "st", "shard", where, "-n", "4", "-q", "--no-progress",
                                  "-o", out] + rules, root)
                    if r > 0:  # the first round warms the page cache
                        times[side].append(t)
                        cpu[side].append(c)
                        rss[side] = max(rss[side], m)
                if r == 0:
                    for name in os.listdir(os.path.join(root, "out-local")):
                        if name.endswith(".safetensors"):
                            with open(os.path.join(root, "out-local", name), "rb") as a, \
                                    open(os.path.join(root, "out-url", name), "rb") as b:
                                if a.read() != b.read():
                                    sys.exit("the outputs differ: " + name)
        finally:
            nginx.stop()
        med = {k: statistics.median(v) for k, v in times.items()}
        print("model %d MiB, %d runs each, interleaved" % (mib, runs))
        for side in sides:
            print("%-5s median %.3f s  (%s)  cleave's CPU %.3f s  peak RSS %.1f MiB" % (
                side, med[side], " ".join("%.3f" % t for t in times[side]),
                statistics.median(cpu[side]), rss[side] / 1024))
        print("ratio url/local %.2f" % (med["url"] / med["local"]))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

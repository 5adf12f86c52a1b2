"""Models read over HTTP (docs/remote.md): every reading verb given URLs makes the bytes it makes
from the local copy, through Debian's nginx (ranges, ETags) on 127.0.0.1; each fault of a test
server of our own (servers.FaultServer) is survived with the same bytes or refused with a message
naming the URL, its exit status and nothing written; the token of HF_TOKEN is sent and never
printed. Retries wait CLEAVE_TEST_HTTP_DELAY_MS milliseconds (the test knob) instead of seconds.
"""
import json
import os
import shutil

import numpy as np
import pytest

import clitest
from clitest import check, expect_failure, run
import servers
import st_util

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
TINY_ST = os.path.join(TESTS, "safetensors", "data", "tiny.safetensors")
TINY_GQA = os.path.join(TESTS, "safetensors", "data", "tiny_gqa")
TINY_GGUF = os.path.join(TESTS, "gguf", "data", "tiny.gguf")
FAST = dict(os.environ, CLEAVE_TEST_HTTP_DELAY_MS="1")
FAST.pop("HF_TOKEN", None)
# Rules of the big model's shard, merge and reshard; of tiny.safetensors; of tiny.gguf.
BIG_AXES = ["--axis", "a.qkv=0", "--axis", "b.wide=1", "--unmatched", "replicate"]
TINY_AXES = ["--axis", "*.qkv=0", "--axis", "*.wide=1", "--axis", "*.f4=1"]
GGUF_AXES = ["--axis", "*.qkv=1", "--axis", "*.q8=-1", "--axis", "*.q4k=0"]


def ok(r, label):
    check(r.returncode == 0, "%s: exit %d: %s" % (label, r.returncode, r.stderr.strip()))
    return r


def big_model(path):
    """A safetensors file larger than the first block a URL's open reads (64 KiB), so that its
    data takes requests of their own."""
    rng = np.random.default_rng(7)
    tensors = {
        "a.qkv": ("F32", (6, 16384), rng.standard_normal((6, 16384), dtype=np.float32).tobytes()),
        "b.wide": ("F16", (4, 8192), rng.standard_normal((4, 8192)).astype(np.float16).tobytes()),
        "c.norm": ("F32", (8,), np.arange(8, dtype=np.float32).tobytes()),
    }
    head, data = st_util.header_bytes(tensors)
    with open(path, "wb") as f:
        f.write(len(head).to_bytes(8, "little") + head + data)


@pytest.fixture(scope="module")
def site():
    """The folder the servers serve: www/ (see the module's docstring), made once."""
    root = clitest.workdir("remote-site")
    www = os.path.join(root, "www")
    os.makedirs(os.path.join(www, "big"))
    shutil.copy(TINY_ST, www)
    shutil.copy(TINY_GGUF, www)
    shutil.copytree(TINY_GQA, os.path.join(www, "gqa"))
    big_model(os.path.join(www, "big", "model.safetensors"))
    with open(os.path.join(www, "big", "config.json"), "w") as f:
        f.write('{"model_type": "test"}\n')
    for args in (["st", "split", "big/model.safetensors", "-o", "sharded", "--max-shard-size",
                  "100KB"],
                 ["shard", "big/model.safetensors", "-o", "ranks", "-n", "2"] + BIG_AXES,
                 ["gguf", "split", "tiny.gguf", "-o", "set", "--max-shard-size", "300"],
                 ["gguf", "shard", "tiny.gguf", "-o", "granks", "-n", "2"] + GGUF_AXES):
        r = run(args, www)
        assert r.returncode == 0, r.stderr
    os.remove(os.path.join(www, "ranks", "cleave-manifest.json"))
    os.remove(os.path.join(www, "granks", "cleave-manifest.json"))
    assert sorted(os.listdir(os.path.join(www, "sharded")))[0] == "cleave-manifest.json"
    os.remove(os.path.join(www, "sharded", "cleave-manifest.json"))
    return root


@pytest.fixture(scope="module")
def nginx(site):
    server = servers.Nginx(os.path.join(site, "www"), os.path.join(site, "nginx"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def faults(site):
    server = servers.FaultServer(os.path.join(site, "www"))
    yield server
    server.stop()


def outputs(folder):
    """Every file of an output folder by name, bytes; the manifest's files (sidecars' sources
    aside), since its argv and inputs name the paths given."""
    found = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.endswith("cleave-manifest.json"):
            with open(path) as f:
                m = json.load(f)
            for entry in m["files"]:
                entry.pop("source", None)
            found[name] = json.dumps(m["files"])
        elif os.path.isfile(path):
            with open(path, "rb") as f:
                found[name] = f.read()
    return found


# (label, the arguments with {M} for the model location (a list of locations for merge), the
# model's local path(s) under www/, its URL path(s)): each writes into out/ or prints.
CASES = [
    ("st ls file", ["ls", "{M}", "--json"], ["tiny.safetensors"]),
    ("st check file", ["check", "{M}", "--json"], ["tiny.safetensors"]),
    ("st check index", ["check", "{M}"], ["sharded/model.safetensors.index.json"]),
    ("st ls folder", ["ls", "{M}"], ["sharded/"]),
    ("st shard file", ["shard", "{M}", "-o", "out", "-n", "2"] + TINY_AXES, ["tiny.safetensors"]),
    ("st shard big", ["shard", "{M}", "-o", "out", "-n", "3", "--axis", "a.qkv=0",
                      "--unmatched", "replicate"], ["big/model.safetensors"]),
    ("st shard folder", ["shard", "{M}", "-o", "out", "-n", "2", "--preset", "auto"], ["gqa/"]),
    ("st shard index", ["shard", "{M}", "-o", "out", "-n", "2"] + BIG_AXES, ["sharded/"]),
    ("st split", ["st", "split", "{M}", "-o", "out", "--tensor", "a.qkv", "-a", "0", "-n", "3",
                  "--into", "q,k,v"], ["sharded/model.safetensors.index.json"]),
    ("st merge", ["merge", "{M}", "-o", "out"] + BIG_AXES,
     ["ranks/rank0.safetensors", "ranks/rank1.safetensors"]),
    ("st reshard", ["reshard", "{M}", "-o", "out", "-n", "1"] + BIG_AXES,
     ["ranks/rank0.safetensors", "ranks/rank1.safetensors"]),
    ("gguf ls", ["ls", "{M}", "--metadata"], ["tiny.gguf"]),
    ("gguf check set", ["check", "{M}"], ["set/tiny-00001-of-00003.gguf"]),
    ("gguf shard", ["shard", "{M}", "-o", "out", "-n", "2"] + GGUF_AXES, ["tiny.gguf"]),
    ("gguf shard set", ["shard", "{M}", "-o", "out", "-n", "2"] + GGUF_AXES,
     ["set/tiny-00001-of-00003.gguf"]),
    ("gguf split", ["gguf", "split", "{M}", "-o", "out", "--max-shard-size", "300"],
     ["tiny.gguf"]),
    ("gguf merge set", ["merge", "{M}", "-o", "out/tiny.gguf"], ["set/tiny-00001-of-00003.gguf"]),
    ("gguf reshard", ["gguf", "reshard", "{M}", "-o", "out", "-n", "1"] + GGUF_AXES,
     ["granks/rank0.gguf", "granks/rank1.gguf"]),
]


def expand(args, models):
    out = []
    for a in args:
        out.extend(models if a == "{M}" else [a])
    return out


@pytest.mark.parametrize("label,args,models", CASES, ids=[c[0] for c in CASES])
def test_same_as_local(site, nginx, label, args, models):
    """From nginx's URLs, the same output (files, manifest, or what is printed) as from the local
    copy; the manifest records the URLs and their ETags."""
    www = os.path.join(site, "www")
    work = clitest.workdir("remote-" + label.replace(" ", "-"))
    local = os.path.join(work, "local")
    remote = os.path.join(work, "remote")
    os.makedirs(local)
    os.makedirs(remote)
    r1 = ok(run(expand(args, [os.path.join(www, m) for m in models]), local, env=FAST),
            label + " (local)")
    r2 = ok(run(expand(args, [nginx.url(m) for m in models]), remote, env=FAST), label + " (URL)")
    if "-o" not in args:
        check(r2.stdout.replace(nginx.url(""), www + "/") == r1.stdout,
              "%s: URL printed %r, local %r" % (label, r2.stdout[:300], r1.stdout[:300]))
        return
    out = os.path.dirname(args[args.index("-o") + 1]) if args[args.index("-o") + 1].endswith(
        ".gguf") else args[args.index("-o") + 1]
    a, b = outputs(os.path.join(local, out)), outputs(os.path.join(remote, out))
    check(sorted(a) == sorted(b), "%s: files %s from URL, %s locally" % (label, sorted(b), sorted(a)))
    for name in a:
        check(a[name] == b.get(name), "%s: %s differs from the local run's" % (label, name))
    manifest = os.path.join(remote, out, "cleave-manifest.json")
    if args[0] != "merge" or not models[0].endswith(".gguf"):
        with open(manifest) as f:
            inputs = json.load(f)["inputs"]
        check(all(i["path"].startswith(nginx.url("")) for i in inputs),
              "%s: the manifest's inputs are not the URLs: %s" % (label, inputs))
        check(all(i.get("etag", "").startswith('"') for i in inputs),
              "%s: the manifest lacks the inputs' ETags: %s" % (label, inputs))
        # verify --against the URLs (the folder URL of the inputs).
        folder = nginx.url(os.path.dirname(models[0]) + "/" if "/" in models[0] else "")
        r = run(["verify", out, "--against", folder], remote, env=FAST)
        check(r.returncode == 0 and "equal to the inputs" in r.stdout,
              "%s: verify --against %s: %d %s %s" % (label, folder, r.returncode, r.stdout,
                                                       r.stderr))


def test_headers_only(site, nginx):
    """ls and check read a file's header in at most two requests, of at most 64 KiB each (the
    big model's data is never asked for)."""
    work = clitest.workdir("remote-headers")
    before = nginx.access_log().count("\n")
    ok(run(["check", nginx.url("big/model.safetensors")], work, env=FAST), "check big")
    lines = nginx.access_log().split("\n")[before:-1]
    check(1 <= len(lines) <= 2, "check read %d requests: %s" % (len(lines), lines))
    sent = [int(line.split('" ')[1].split()[1]) for line in lines]
    check(all(n <= 65536 for n in sent), "check read %s bytes" % sent)


def clean_run(faults, work, model="big/model.safetensors", extra=()):
    r = run(["shard", faults.url(model), "-o", "out", "-n", "2"] + BIG_AXES + list(extra), work,
            env=FAST)
    return r


@pytest.fixture
def reference(site):
    """The outputs of the big model's shard from the local file."""
    work = clitest.workdir("remote-reference")
    ok(run(["shard", os.path.join(site, "www", "big", "model.safetensors"), "-o", "out", "-n",
            "2"] + BIG_AXES, work, env=FAST), "reference")
    found = outputs(os.path.join(work, "out"))
    return {k: v for k, v in found.items() if k != "config.json"}


# (label, the plan of the big model's requests, what follows): each is survived.
SURVIVED = [
    ("503 then ok", ["503"], "ok"),
    ("429 with Retry-After", ["ok", "429"], "ok"),
    ("a connection cut mid-body", ["ok", "cut", "cut"], "ok"),
    ("503 on a data range", ["ok", "503", "ok", "503"], "ok"),
]


@pytest.mark.parametrize("label,plan,then", SURVIVED, ids=[s[0] for s in SURVIVED])
def test_fault_survived(faults, reference, label, plan, then):
    work = clitest.workdir("remote-survive-" + label.replace(" ", "-"))
    faults.reset()
    faults.plan("big/model.safetensors", plan, then)
    r = clean_run(faults, work)
    ok(r, label)
    got = {k: v for k, v in outputs(os.path.join(work, "out")).items() if k != "config.json"}
    check(got == reference, "%s: the outputs differ from the local run's" % label)
    asked = [q for q in faults.requests() if q[0] == "/big/model.safetensors"]
    check(len(asked) >= len(plan) + 1, "%s: %d requests for a plan of %d" %
          (label, len(asked), len(plan)))
    if label.startswith("a connection cut"):
        # The request after a cut resumes where the bytes stopped: its range starts later.
        starts = [int(q[1].split("=")[1].split("-")[0]) for q in asked]
        check(any(b > a for a, b in zip(starts[1:], starts[2:])),
              "%s: no resumed range among %s" % (label, [q[1] for q in asked]))


def test_redirect(faults, reference):
    work = clitest.workdir("remote-redirect")
    faults.reset()
    ok(clean_run(faults, work, "redirect/big/model.safetensors"), "redirect")
    got = {k: v for k, v in outputs(os.path.join(work, "out")).items() if k != "config.json"}
    check(got == reference, "redirect: the outputs differ from the local run's")


# (label, plan, then, exit status, fragments of the message): each is refused, nothing written.
REFUSED = [
    ("Range ignored", ["norange"], "ok", 66, ["ignores Range"]),
    ("changed between requests", ["ok"], "change", 65, ["changed while it was read"]),
    ("503 for ever", [], "500-forever", 74, ["HTTP 500", "after 5 retries"]),
]


@pytest.mark.parametrize("label,plan,then,status,fragments", REFUSED,
                         ids=[s[0] for s in REFUSED])
def test_fault_refused(faults, label, plan, then, status, fragments):
    work = clitest.workdir("remote-refuse-" + label.replace(" ", "-"))
    faults.reset()
    faults.plan("big/model.safetensors", plan, then)
    url = faults.url("big/model.safetensors")
    expect_failure(label, ["shard", url, "-o", "out", "-n", "2"] + BIG_AXES, work, status,
                   fragments + [url], env=FAST)


def test_missing(faults):
    work = clitest.workdir("remote-missing")
    faults.reset()
    url = faults.url("nothing/model.safetensors")
    expect_failure("404", ["shard", url, "-o", "out", "-n", "2"] + BIG_AXES, work, 66,
                   [url, "HTTP 404"], env=FAST)
    folder = faults.url("nothing/")
    expect_failure("404 folder", ["ls", folder], work, 66, [folder, "neither"], env=FAST)


def test_token(faults, reference):
    """HF_TOKEN is sent (the server refuses a request without it: 401, 66), and appears nowhere:
    not in stdout, stderr (also of the refusal) or the manifest. --header replaces it."""
    secret = "hf_secret_token_4242"
    work = clitest.workdir("remote-token")
    faults.reset(token=secret)
    url = faults.url("big/model.safetensors")
    r = expect_failure("no token", ["shard", url, "-o", "out", "-n", "2"] + BIG_AXES, work, 66,
                       [url, "HTTP 401"], env=FAST)
    env = dict(FAST, HF_TOKEN=secret)
    expect_failure("a wrong --header", ["shard", url, "-o", "out", "-n", "2", "--header",
                                        "Authorization: Bearer wrong"] + BIG_AXES,
                   work, 66, [url, "HTTP 401"], env=env)
    r = ok(run(["shard", url, "-o", "out", "-n", "2", "--json"] + BIG_AXES, work, env=env),
           "with HF_TOKEN")
    check(secret not in r.stdout + r.stderr, "the token is printed")
    with open(os.path.join(work, "out", "cleave-manifest.json")) as f:
        check(secret not in f.read(), "the token is in the manifest")
    got = {k: v for k, v in outputs(os.path.join(work, "out")).items() if k != "config.json"}
    check(got == reference, "with HF_TOKEN: the outputs differ from the local run's")
    check(all(q[2] == "Bearer " + secret for q in faults.requests()[-3:]),
          "the token was not sent: %s" % faults.requests()[-3:])
    faults.reset(token=secret)
    shutil.rmtree(os.path.join(work, "out"))
    r = ok(run(["shard", url, "-o", "out", "-n", "2", "--header",
                "Authorization: Bearer " + secret] + BIG_AXES, work, env=FAST), "--header")
    check(secret not in r.stdout + r.stderr, "the --header's value is printed")


def test_header_refused():
    work = clitest.workdir("remote-bad-header")
    expect_failure("a header without a colon", ["ls", "--header", "Bad secret", "x.safetensors"],
                   work, 64, ["--header takes 'Name: value'"], env=FAST)
    r = run(["ls", "--header", "Bad secret", "x.safetensors"], work, env=FAST)
    check("secret" not in r.stderr, "the refused header's value is printed")


def test_rank_runs(site, nginx):
    """shard --rank R from a URL, for every R into one folder: the data files are the full local
    run's, and each run reads less than the whole model (only its rank's bytes and the
    replicated tensors)."""
    www = os.path.join(site, "www")
    work = clitest.workdir("remote-ranks")
    args = ["shard", "-o", "out", "-n", "3", "--axis", "a.qkv=0", "--unmatched", "replicate"]
    ok(run(args[:1] + [os.path.join(www, "big", "model.safetensors")] + args[1:], work, env=FAST),
       "full local run")
    full = {k: v for k, v in outputs(os.path.join(work, "out")).items()
            if k.endswith(".safetensors")}
    url = nginx.url("big/model.safetensors")
    size = os.path.getsize(os.path.join(www, "big", "model.safetensors"))
    os.makedirs(os.path.join(work, "u"))
    for r in range(3):
        before = nginx.access_log().count("\n")
        ok(run(args[:1] + [url] + args[1:] + ["--rank", str(r)], os.path.join(work, "u"),
               env=FAST), "--rank %d" % r)
        lines = nginx.access_log().split("\n")[before:-1]
        sent = sum(int(line.split('" ')[1].split()[1]) for line in lines)
        check(sent < size, "--rank %d read %d bytes of a %d-byte model" % (r, sent, size))
    got = {k: v for k, v in outputs(os.path.join(work, "u", "out")).items()
           if k.endswith(".safetensors")}
    check(sorted(got) == sorted(full), "the ranks' runs wrote %s, the full run %s" %
          (sorted(got), sorted(full)))
    for name in full:
        check(got.get(name) == full[name], "%s differs from the full run's" % name)

#!/usr/bin/python3
"""cleave ir-run on IR nets written by irgen.py: outputs byte-identical to NumPy slicing for every
byte-sized element type, chained splits, Consts of every element type (packed sub-byte types and
strings bit-exact, at unaligned and shared offsets), axis and lengths fed by Parameters, and the
failures (status, message, no output)."""
import json
import os

import numpy as np
import pytest

import clitest
from clitest import check, check_output, expect_failure
from irgen import MSB_FIRST, TYPES, Net, pack_bits, pack_strings

RNG = np.random.default_rng(15)


def random_array(dtype, shape):
    if dtype.kind == "b":
        return RNG.integers(0, 2, size=shape).astype(dtype)
    raw = RNG.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape) if dtype.kind != "V" else \
        np.frombuffer(raw.tobytes(), dtype=dtype).reshape(shape)


def run_ok(label, args, work):
    r = clitest.run(args, work)
    check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def test_byte_types(work):
    lengths = [1, -1, 2]
    for name, (precision, dtype, _) in TYPES.items():
        if dtype is None:
            continue
        net = Net()
        data = net.parameter("x", name, "4,6")
        axis = net.const_array("axis", np.array(1, dtype="<i8"))
        lens = net.const_array("lengths", np.array(lengths, dtype="<i8"))
        dims = [[4, 1], [4, 3], [4, 2]]
        outs = net.variadic("vsplit", data, [4, 6], axis, lens, 3, dims, precision=precision)
        for i, o in enumerate(outs):
            net.result("r%d" % i, o, dims[i], precision=precision)
        xml = net.write(work, "t_" + name)
        a = random_array(dtype, (4, 6))
        np.save(os.path.join(work, "x_%s.npy" % name), a)
        run_ok(name, ["ir-run", xml, "--input", "x=x_%s.npy" % name, "-o", "o_" + name], work)
        for i, (start, stop) in enumerate([(0, 1), (1, 4), (4, 6)]):
            check_output(f"{name} output {i}", os.path.join(work, "o_%s_%d.npy" % (name, i)),
                         a[:, start:stop], False)
    # A big-endian input keeps its byte order.
    net = Net()
    data = net.parameter("x", "f32", "3,4")
    axis = net.const_array("axis", np.array(0, dtype="<i8"))
    outs = net.split("split", data, [3, 4], axis, 3, [[1, 4]] * 3)
    for i, o in enumerate(outs):
        net.result("r%d" % i, o, [1, 4])
    xml = net.write(work, "big")
    a = np.arange(12, dtype=">f4").reshape(3, 4)
    np.save(os.path.join(work, "big.npy"), a)
    run_ok("big-endian", ["ir-run", xml, "--input", "x=big.npy", "-o", "ob"], work)
    for i in range(3):
        check_output(f"big-endian output {i}", os.path.join(work, "ob_%d.npy" % i), a[i:i + 1],
                     False)


def test_chained(work):
    net = Net()
    x = net.parameter("x", "f32", "8,6")
    ax0 = net.const_array("ax0", np.array(0, dtype="<i4"))
    ax1 = net.const_array("ax1", np.array([1], dtype="<u8"))
    a, b = net.split("s1", x, [8, 6], ax0, 2, [[4, 6], [4, 6]])
    lens = net.const_array("lens", np.array([1, 5], dtype="<i2"))
    c, d = net.variadic("v2", b, [4, 6], ax1, lens, 2, [[4, 1], [4, 5]])
    es = net.split("s3", d, [4, 5], ax0, 4, [[1, 5]] * 4)
    table = net.const_array("table", np.arange(6, dtype="<i2").reshape(2, 3))
    net.result("ra", a, [4, 6])
    net.result("re2", es[2], [1, 5])
    net.result("rc", c, [4, 1])
    net.result("rx", x, [8, 6])
    net.result("rt", table, [2, 3])
    xml = net.write(work, "chain")
    v = RNG.standard_normal((8, 6)).astype("<f4")
    np.save(os.path.join(work, "chain_x.npy"), v)
    r = run_ok("chain", ["ir-run", xml, "-i", "x=chain_x.npy", "-o", "oc", "--json"], work)
    want = [v[:4], v[4:][:, 1:][2:3], v[4:][:, :1], v, np.arange(6, dtype="<i2").reshape(2, 3)]
    for i, e in enumerate(want):
        check_output(f"chain output {i}", os.path.join(work, "oc_%d.npy" % i), e, False)
    try:
        obj = json.loads(r.stdout)
        check(obj["op"] == "ir-run" and [o["shape"] for o in obj["outputs"]] ==
              ["[4,6]", "[1,5]", "[4,1]", "[8,6]", "[2,3]"] and
              obj["outputs"][1]["path"] == "oc_1.npy", f"chain json: {obj}")
    except ValueError:
        check(False, f"chain --json printed {r.stdout!r}")


def const_payload(name, shape):
    """Random data of `name`, as (bytes, unpacked values) for the Const."""
    count = int(np.prod(shape))
    bits = TYPES[name][2]
    if name == "string":
        values = [bytes(RNG.integers(97, 123, size=int(RNG.integers(0, 5)), dtype=np.uint8))
                  for _ in range(count)]
        return pack_strings(values), values
    if TYPES[name][1] is None:
        values = RNG.integers(0, 1 << bits, size=count)
        return pack_bits(values, bits, name in MSB_FIRST), values
    a = random_array(TYPES[name][1], shape)
    return a.tobytes(), a


def test_consts(work):
    shape, lengths = (3, 8), [3, 5]
    for name, (precision, dtype, bits) in TYPES.items():
        payload, values = const_payload(name, shape)
        net = Net()
        net.bin += b"\x01"  # every Const below starts at an odd offset
        c = net.const("c", name, shape, payload)
        shared = net.const("shared", name, shape, payload, offset=1)  # the same bytes again
        axis = net.const_array("axis", np.array(-1, dtype="<i8"))
        lens = net.const_array("lengths", np.array(lengths, dtype="<i8"))
        dims = [[3, 3], [3, 5]]
        outs = net.variadic("vsplit", c, list(shape), axis, lens, 2, dims, precision=precision)
        for i, o in enumerate(outs):
            net.result("r%d" % i, o, dims[i], precision=precision)
        net.result("rs", shared, list(shape), precision=precision)
        xml = net.write(work, "c_" + name)
        run_ok(name, ["ir-run", xml, "-o", "oc_" + name], work)
        for i, (start, stop) in enumerate([(0, 3), (3, 8)]):
            path = os.path.join(work, "oc_%s_%d.npy" % (name, i))
            if dtype is not None:
                check_output(f"Const {name} output {i}", path, values[:, start:stop], False)
                continue
            if name == "string":
                grid = [values[r * 8:(r + 1) * 8] for r in range(3)]
                want = pack_strings([s for row in grid for s in row[start:stop]])
            else:
                grid = np.asarray(values).reshape(shape)
                want = pack_bits(grid[:, start:stop].ravel(), bits, name in MSB_FIRST)
            check_output(f"Const {name} output {i}", path, np.frombuffer(want, dtype="u1"),
                         False)
        if dtype is None:
            check_output(f"Const {name} unsplit", os.path.join(work, "oc_%s_2.npy" % name),
                         np.frombuffer(payload, dtype="u1"), False)


def test_raw_parameters(work):
    # Packed and string Parameters take a 1-D uint8 .npy of their bytes, the form ir-run writes.
    shape, lengths = (3, 8), [3, 5]
    for name, (precision, dtype, bits) in TYPES.items():
        if dtype is not None:
            continue
        payload, values = const_payload(name, shape)
        net = Net()
        x = net.parameter("x", name, "3,8", precision=precision)
        axis = net.const_array("axis", np.array(1, dtype="<i8"))
        lens = net.const_array("lengths", np.array(lengths, dtype="<i8"))
        dims = [[3, 3], [3, 5]]
        outs = net.variadic("vsplit", x, list(shape), axis, lens, 2, dims, precision=precision)
        for i, o in enumerate(outs):
            net.result("r%d" % i, o, dims[i], precision=precision)
        xml = net.write(work, "p_" + name)
        np.save(os.path.join(work, "p_%s.npy" % name), np.frombuffer(payload, dtype="u1"))
        run_ok("Parameter " + name, ["ir-run", xml, "-i", "x=p_%s.npy" % name, "-o",
                                     "op_" + name], work)
        for i, (start, stop) in enumerate([(0, 3), (3, 8)]):
            if name == "string":
                want = pack_strings([s for r in range(3)
                                     for s in values[r * 8:(r + 1) * 8][start:stop]])
            else:
                grid = np.asarray(values).reshape(shape)
                want = pack_bits(grid[:, start:stop].ravel(), bits, name in MSB_FIRST)
            check_output(f"Parameter {name} output {i}",
                         os.path.join(work, "op_%s_%d.npy" % (name, i)),
                         np.frombuffer(want, dtype="u1"), False)
    # Refusals: another dtype, a wrong byte count, a bad string layout, a dynamic shape.
    net = Net()
    x = net.parameter("x", "u4", "3,8", precision="U4")
    net.result("r", x, [3, 8], precision="U4")
    net.write(work, "pu4")
    net = Net()
    x = net.parameter("x", "u4", "?,8", dims=[-1, 8], precision="U4")
    net.result("r", x, [-1, 8], precision="U4")
    net.write(work, "pu4dyn")
    net = Net()
    x = net.parameter("x", "string", "2", precision="STRING")
    net.result("r", x, [2], precision="STRING")
    net.write(work, "pstr")
    # A dynamic rank ("...") is not static either (and never read as a number of dims).
    for name, precision in (("u4", "U4"), ("string", "STRING")):
        net = Net()
        x = net.parameter("x", name, "...", dims=[-1, -1], precision=precision)
        net.result("r", x, [-1, -1], precision=precision)
        net.write(work, "p%sdynrank" % name)
    np.save(os.path.join(work, "bad_f4.npy"), np.zeros(12, dtype="<f4"))
    np.save(os.path.join(work, "bad_11.npy"), np.zeros(11, dtype="u1"))
    np.save(os.path.join(work, "ok_12.npy"), np.zeros(12, dtype="u1"))
    np.save(os.path.join(work, "bad_str.npy"),
            np.frombuffer(pack_strings([b"a", b"b", b"c"]), dtype="u1"))
    cases = [
        ("pu4.xml", "bad_f4.npy", ["'bad_f4.npy' must hold a 1-D uint8 array of the u4 bytes "
                                   'layer 0 "x" (Parameter) takes']),
        ("pu4.xml", "bad_11.npy", ["'bad_11.npy' holds 11 bytes but 24 u4 elements take 12"]),
        ("pu4dyn.xml", "ok_12.npy", ['layer 0 "x" (Parameter): a u4 Parameter needs a static '
                                    "shape"]),
        ("pu4dynrank.xml", "ok_12.npy", ['layer 0 "x" (Parameter): a u4 Parameter needs a '
                                         "static shape"]),
        ("pstringdynrank.xml", "ok_12.npy", ['layer 0 "x" (Parameter): a string Parameter '
                                             "needs a static shape"]),
        ("pstr.xml", "bad_str.npy", ["'bad_str.npy'", "the packed strings count 3 strings but "
                                     "the shape holds 2"]),
    ]
    fail_dir = clitest.workdir("ir_run_raw_fail")
    for xml, npy, fragments in cases:
        for f in (xml, xml[:-4] + ".bin", npy):
            with open(os.path.join(work, f), "rb") as src, open(os.path.join(fail_dir, f),
                                                                   "wb") as dst:
                dst.write(src.read())
        expect_failure(f"{xml} {npy}", ["ir-run", xml, "-i", "x=" + npy, "-o", "out"], fail_dir,
                       65, fragments)


def test_parameter_values(work):
    # The axis and split_lengths come from Parameters: their values are the inputs'.
    net = Net()
    x = net.parameter("x", "u8", "2,5")
    ax = net.parameter("axis", "i32", "")
    ls = net.parameter("lengths", "i64", "2")
    outs = net.variadic("v", x, [2, 5], ax, ls, 2, [[2, -1], [2, -1]], precision="U8")
    for i, o in enumerate(outs):
        net.result("r%d" % i, o, [2, -1], precision="U8")
    xml = net.write(work, "pv")
    a = np.arange(10, dtype="u1").reshape(2, 5)
    np.save(os.path.join(work, "pv_x.npy"), a)
    np.save(os.path.join(work, "pv_a.npy"), np.array(1, dtype="<i4"))
    np.save(os.path.join(work, "pv_l.npy"), np.array([4, -1], dtype="<i8"))
    run_ok("parameter values", ["ir-run", xml, "-i", "x=pv_x.npy", "-i", "axis=pv_a.npy", "-i",
                                "lengths=pv_l.npy", "-o", "opv"], work)
    check_output("parameter values 0", os.path.join(work, "opv_0.npy"), a[:, :4], False)
    check_output("parameter values 1", os.path.join(work, "opv_1.npy"), a[:, 4:], False)


def test_dynamic_rank(work):
    # A Parameter of dynamic rank ("...") takes an input of any rank; the Split's outputs get the
    # input's rank.
    net = Net()
    x = net.parameter("x", "i16", "...", dims=[-1, -1, -1])
    axis = net.const_array("axis", np.array(-1, dtype="<i8"))
    outs = net.split("split", x, [-1, -1, -1], axis, 2, [[-1, -1, -1]] * 2, precision="I16")
    for i, o in enumerate(outs):
        net.result("r%d" % i, o, [-1, -1, -1], precision="I16")
    xml = net.write(work, "dynrank")
    a = random_array(np.dtype("<i2"), (2, 3, 4))
    np.save(os.path.join(work, "dynrank_x.npy"), a)
    run_ok("dynamic rank", ["ir-run", xml, "-i", "x=dynrank_x.npy", "-o", "odr"], work)
    for i in range(2):
        check_output(f"dynamic rank output {i}", os.path.join(work, "odr_%d.npy" % i),
                     a[:, :, 2 * i:2 * i + 2], False)


def test_failures(root):
    work = clitest.workdir("ir_run_fail")
    net = Net()
    x = net.parameter("x", "f32", "6,4")
    axis = net.const_array("axis", np.array(0, dtype="<i8"))
    lens = net.const_array("lengths", np.array([2, 4], dtype="<i8"))
    outs = net.variadic("vsplit", x, [6, 4], axis, lens, 2, [[2, 4], [4, 4]])
    net.result("r0", outs[0], [2, 4])
    net.result("r1", outs[1], [4, 4])
    net.write(work, "m")
    good = net.xml()
    np.save(os.path.join(work, "x.npy"), np.zeros((6, 4), dtype="<f4"))
    np.save(os.path.join(work, "x_i4.npy"), np.zeros((6, 4), dtype="<i4"))
    np.save(os.path.join(work, "x_5.npy"), np.zeros((5, 4), dtype="<f4"))
    np.save(os.path.join(work, "x_f.npy"), np.asfortranarray(np.zeros((6, 4), dtype="<f4")))
    run = ["ir-run", "m.xml", "-o", "out"]
    expect_failure("missing input", run, work, 64,
                   ['Parameter "x" needs an input (--input x=FILE.npy)'])
    expect_failure("unknown input", run + ["-i", "x=x.npy", "-i", "y=x.npy"], work, 64,
                   ["the model has no Parameter named 'y'"])
    expect_failure("input twice", run + ["-i", "x=x.npy", "-i", "x=x.npy"], work, 64,
                   ["--input x is given twice"])
    expect_failure("no npy", run + ["-i", "x=none.npy"], work, 66,
                   ["cannot open input 'none.npy'"])
    expect_failure("dtype", run + ["-i", "x=x_i4.npy"], work, 65,
                   ["'x_i4.npy' holds '<i4' data but layer 0 \"x\" (Parameter) takes f32"])
    expect_failure("shape", run + ["-i", "x=x_5.npy"], work, 65,
                   ["'x_5.npy' has shape [5,4], which layer 0 \"x\" (Parameter) does not take"])
    expect_failure("fortran", run + ["-i", "x=x_f.npy"], work, 65, ["Fortran order"])
    with open(os.path.join(work, "bad.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00")
    expect_failure("bad npy", run + ["-i", "x=bad.npy"], work, 65, ["'bad.npy'"])
    variants = [
        ("relu", good.replace('type="Result"', 'type="Relu"', 1), 65,
         ["'o.xml' line", 'layer 4 "r0" (Relu) cannot be run: ir-run runs Parameter, Const, '
          "Split, VariadicSplit, Concat and Result layers only"]),
        ("rule", good.replace('element_type="i64" shape="2" offset="8"',
                              'element_type="i64" shape="1" offset="8"')
         .replace('size="16"', 'size="8"').replace("<dim>2</dim>\n\t\t\t\t</port>\n\t\t\t</output>",
                                                   "<dim>1</dim>\n\t\t\t\t</port>\n\t\t\t</output>",
                                                   1), 65,
         ['layer 3 "vsplit" (VariadicSplit): split_lengths sum to 2 but data.shape[0] is 6']),
        ("declared", good.replace("<dim>4</dim>\n\t\t\t\t\t<dim>4</dim>\n\t\t\t\t</port>\n"
                                  "\t\t\t</output>",
                                  "<dim>3</dim>\n\t\t\t\t\t<dim>4</dim>\n\t\t\t\t</port>\n"
                                  "\t\t\t</output>", 1), 65,
         ['layer 3 "vsplit" (VariadicSplit): output port 4 declares [3,4] but the split gives '
          "[4,4]"]),
    ]
    for label, text, status, fragments in variants:
        check(text != good, f"{label}: the edit did not apply")
        with open(os.path.join(work, "o.xml"), "w") as f:
            f.write(text)
        with open(os.path.join(work, "o.bin"), "wb") as f:
            f.write(bytes(net.bin))
        expect_failure(label, ["ir-run", "o.xml", "-i", "x=x.npy", "-o", "out"], work, status,
                       fragments)
    # An existing output is not replaced without -f; with -f it is, and both outputs appear.
    with open(os.path.join(work, "out_1.npy"), "w") as f:
        f.write("keep")
    expect_failure("exists", run + ["-i", "x=x.npy"], work, 73, ["'out_1.npy' exists"])
    r = run_ok("force", run + ["-i", "x=x.npy", "-f", "-q"], work)
    check(r.stdout == "", f"-q printed {r.stdout!r}")
    check_output("force 1", os.path.join(work, "out_1.npy"), np.zeros((4, 4), dtype="<f4"), False)


@pytest.fixture
def root(work):
    """test_failures's fresh folder (it makes its own, ir_run_fail)."""
    return work

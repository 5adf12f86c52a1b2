#!/usr/bin/python3
"""Concat layers (OpenVINO Concat-1) in IR nets written by irgen.py.

ir-check: static and partial input shapes against the declared output, each verdict with its
message and exit status, the JSON form. ir-run: outputs equal to numpy.concatenate of the inputs
for every byte-sized type, packed sub-byte and string Consts bit-exact against irgen's packers, a
split followed by a concat, and the failures (status, message, no output)."""
import json
import os

import numpy as np

import clitest
from clitest import check, check_output, expect_failure
from irgen import MSB_FIRST, TYPES, Net, pack_bits, pack_strings

RNG = np.random.default_rng(22)


def concat_net(shapes, axis, out_dims, element_type="f32", types=None, version="opset1",
               port_dims=None):
    """Parameters x0, x1, ... of `shapes` into one Concat and a Result."""
    net = Net()
    srcs = []
    for i, s in enumerate(shapes):
        t = element_type if types is None else types[i]
        dims = [d if isinstance(d, int) else -1 for d in s]
        src = net.parameter("x%d" % i, t, ",".join(str(d) for d in s), dims=dims,
                            precision=TYPES[t][0])
        srcs.append((src, dims if port_dims is None else port_dims[i]))
    precision = TYPES[element_type][0]
    out = net.concat("cat", srcs, axis, out_dims, precision=precision, version=version)
    net.result("r", out, out_dims, precision=precision)
    return net


def ir_check(work, net, stem, *args):
    return clitest.run(["ir-check", net.write(work, stem)] + list(args), work)


def test_check(work):
    # OK on static shapes: the inferred output is the declared one; every axis form.
    for axis, out in [(0, [7, 3]), (-2, [7, 3])]:
        net = concat_net([[2, 3], [4, 3], [1, 3]], axis, out)
        r = ir_check(work, net, "ok%d" % axis)
        check(r.returncode == 0 and
              '3 Concat "cat": inputs [2,3] [4,3] [1,3] f32, axis %d; inferred [7,3]; '
              "declared [7,3]: OK" % axis in r.stdout, f"ok axis {axis}: {r.stdout}")
        check("1 Split/VariadicSplit/Concat checked: 1 OK" in r.stdout, f"summary: {r.stdout}")
    # Partial inputs: the hull of the sum; a declared output inside it is OK, a wider one OK with
    # a note, a disjoint one a MISMATCH.
    shapes = [["?", 3], ["2..4", 3]]
    for declared, verdict in [([5, 3], "OK"), ([-1, 3], "OK (the declared output is less "
                                                        "precise than inferred)"),
                              ([1, 3], "MISMATCH: the output (port 2) declares [1,3], inferred "
                                       "[2..,3] (dimension 0)")]:
        net = concat_net(shapes, 0, declared)
        # The Parameters' ports declare what the shape says.
        text = net.xml().replace("<dim>2..4</dim>", "<dim>-1</dim>")
        r = clitest.run(["ir-check", net.write(work, "partial", xml=text)], work)
        check(("inferred [2..,3] (hull)" in r.stdout and verdict in r.stdout and
               r.returncode == (0 if verdict.startswith("OK") else 1)),
              f"partial declared {declared}: {r.returncode} {r.stdout}")
    # MISMATCH on static shapes, on the rank, on the number of outputs.
    r = ir_check(work, concat_net([[2, 3], [4, 3]], 0, [5, 3]), "mismatch")
    check(r.returncode == 1 and "MISMATCH: the output (port 2) declares [5,3], inferred [6,3] "
          "(dimension 0)" in r.stdout, f"mismatch: {r.stdout}")
    r = ir_check(work, concat_net([[2, 3], [4, 3]], 0, [6, 3, 1]), "rank")
    check(r.returncode == 1 and "declares rank 3, inferred [6,3] has rank 2" in r.stdout,
          f"rank: {r.stdout}")
    net = concat_net([[2, 3], [4, 3]], 0, [6, 3])
    text = net.xml().replace('<port id="2" precision="FP32">\n\t\t\t\t\t<dim>6</dim>\n'
                             '\t\t\t\t\t<dim>3</dim>\n\t\t\t\t</port>\n',
                             '<port id="2" precision="FP32">\n\t\t\t\t\t<dim>6</dim>\n'
                             '\t\t\t\t\t<dim>3</dim>\n\t\t\t\t</port>\n'
                             '\t\t\t\t<port id="3" precision="FP32">\n\t\t\t\t\t<dim>6</dim>\n'
                             '\t\t\t\t\t<dim>3</dim>\n\t\t\t\t</port>\n', 1)
    r = clitest.run(["ir-check", net.write(work, "two_outputs", xml=text)], work)
    check(r.returncode == 1 and "MISMATCH: the layer declares 2 outputs but Concat-1 has one"
          in r.stdout, f"two outputs: {r.stdout}")
    # MISMATCH: an input port contradicts its producer.
    r = ir_check(work, concat_net([[2, 3], [4, 3]], 0, [6, 3], port_dims=[[2, 3], [5, 3]]),
                 "inport")
    check(r.returncode == 1 and 'input port 1 declares [5,3] but its producer, layer 1 "x1" '
          "(Parameter), gives [4,3]" in r.stdout, f"input port: {r.stdout}")
    # RULE BROKEN: the library's messages, naming the input and the dim.
    r = ir_check(work, concat_net([[2, 3], [2, 4]], 0, [4, 3]), "dims")
    check(r.returncode == 1 and "RULE BROKEN: inputs[1].shape[1] is 4 but inputs[0].shape[1] is "
          "3" in r.stdout, f"dims: {r.stdout}")
    r = ir_check(work, concat_net([[2, 3], [2, 3]], 2, [2, 6]), "axis")
    check(r.returncode == 1 and "RULE BROKEN: axis 2 is out of range [-2, 1]" in r.stdout,
          f"axis: {r.stdout}")
    r = ir_check(work, concat_net([[2, 3], [2, 3, 1]], 0, [4, 3]), "ranks")
    check(r.returncode == 1 and "RULE BROKEN: inputs[1] has rank 3 but inputs[0] has rank 2"
          in r.stdout, f"ranks: {r.stdout}")
    r = ir_check(work, concat_net([[2, 3], [2, 3]], 0, [4, 3], types=["f32", "i32"]), "types")
    check(r.returncode == 1 and "RULE BROKEN: inputs[1] has type i32 but inputs[0] has type f32"
          in r.stdout, f"types: {r.stdout}")
    # NOT CHECKABLE: no axis, another opset.
    r = ir_check(work, concat_net([[2, 3]], None, [2, 3]), "noaxis")
    check(r.returncode == 1 and "NOT CHECKABLE: <data> has no axis attribute" in r.stdout,
          f"no axis: {r.stdout}")
    r = ir_check(work, concat_net([[2, 3]], 0, [2, 3], version="opset8"), "opset8")
    check(r.returncode == 1 and "NOT CHECKABLE: version 'opset8' is not opset1" in r.stdout,
          f"opset8: {r.stdout}")
    # JSON: the inputs as a list (static ones as integers), the axis a number, no data member.
    r = clitest.run(["ir-check", "--json", os.path.join(work, "partial.xml")], work)
    try:
        layer = json.loads(r.stdout)["layers"][0]
        check(layer["type"] == "Concat" and layer["axis"] == 0 and "data" not in layer and "lengths" not in layer and
              layer["inputs"] == ["[?,3]", "[2..4,3]"] and layer["inferred"] == ["[2..,3]"] and
              layer["hull"] is True and layer["element_type"] == "f32",
              f"json: {layer}")
    except (ValueError, KeyError, IndexError) as e:
        check(False, f"json: {r.stdout!r}: {e}")
    r = clitest.run(["ir-check", "--json", os.path.join(work, "ok0.xml")], work)
    layer = json.loads(r.stdout)["layers"][0]
    check(layer["inputs"] == [[2, 3], [4, 3], [1, 3]] and layer["inferred"] == [[7, 3]],
          f"json static: {layer}")


def random_array(dtype, shape):
    if dtype.kind == "b":
        return RNG.integers(0, 2, size=shape).astype(dtype)
    raw = RNG.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return np.frombuffer(raw.tobytes(), dtype=dtype).reshape(shape)


def run_ok(label, args, work):
    r = clitest.run(args, work)
    check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def test_run_types(work):
    shapes = [(3, 1, 2), (3, 4, 2), (3, 0, 2)]
    for name, (precision, dtype, _) in TYPES.items():
        if dtype is None:
            continue
        out = [3, 5, 2]
        net = concat_net([list(s) for s in shapes], 1, out, element_type=name)
        xml = net.write(work, "run_" + name)
        arrays = [random_array(dtype, s) for s in shapes]
        args = ["ir-run", xml, "-o", "o_" + name, "-f"]
        for i, a in enumerate(arrays):
            np.save(os.path.join(work, "x%d_%s.npy" % (i, name)), a)
            args += ["-i", "x%d=x%d_%s.npy" % (i, i, name)]
        run_ok(name, args, work)
        check_output(f"concat {name}", os.path.join(work, "o_%s_0.npy" % name),
                     np.concatenate(arrays, axis=1), False)


def test_run_consts(work):
    """Packed and string Consts joined bit-exact along the last axis."""
    for name in ["u1", "u2", "u4", "i4", "nf4", "f4e2m1", "string"]:
        precision, _, bits = TYPES[name]
        shapes = [(2, 3), (2, 5), (2, 0)]
        net = Net()
        srcs, grids = [], []
        for i, s in enumerate(shapes):
            count = s[0] * s[1]
            if name == "string":
                values = [bytes(RNG.integers(97, 123, size=int(RNG.integers(0, 5)),
                                             dtype=np.uint8)) for _ in range(count)]
                payload = pack_strings(values)
                grids.append([values[r * s[1]:(r + 1) * s[1]] for r in range(s[0])])
            else:
                values = RNG.integers(0, 1 << bits, size=count)
                payload = pack_bits(values, bits, name in MSB_FIRST)
                grids.append(np.asarray(values).reshape(s))
            srcs.append((net.const("c%d" % i, name, s, payload), list(s)))
        out = net.concat("cat", srcs, -1, [2, 8], precision=precision)
        net.result("r", out, [2, 8], precision=precision)
        xml = net.write(work, "const_" + name)
        run_ok(name, ["ir-run", xml, "-o", "oc_" + name, "-f"], work)
        if name == "string":
            rows = [sum((g[r] for g in grids), []) for r in range(2)]
            want = pack_strings([v for row in rows for v in row])
        else:
            want = pack_bits(np.concatenate(grids, axis=1).ravel(), bits, name in MSB_FIRST)
        check_output(f"Const concat {name}", os.path.join(work, "oc_%s_0.npy" % name),
                     np.frombuffer(want, dtype="u1"), False)


def test_run_split_then_concat(work):
    """A VariadicSplit's parts joined again, in another order, and stacked into a bigger net."""
    net = Net()
    x = net.parameter("x", "i16", "4,6", precision="I16")
    axis = net.const_array("axis", np.array(1, dtype="<i8"))
    lens = net.const_array("lengths", np.array([1, 3, 2], dtype="<i8"))
    a, b, c = net.variadic("vsplit", x, [4, 6], axis, lens, 3, [[4, 1], [4, 3], [4, 2]],
                           precision="I16")
    y = net.concat("cat", [(c, [4, 2]), (a, [4, 1]), (b, [4, 3])], 1, [4, 6], precision="I16")
    z = net.concat("cat2", [(y, [4, 6]), (x, [4, 6])], 0, [8, 6], precision="I16")
    net.result("ry", y, [4, 6], precision="I16")
    net.result("rz", z, [8, 6], precision="I16")
    xml = net.write(work, "round")
    v = RNG.integers(-1000, 1000, size=(4, 6)).astype("<i2")
    np.save(os.path.join(work, "round_x.npy"), v)
    r = run_ok("split then concat", ["ir-run", xml, "-i", "x=round_x.npy", "-o", "or", "-f",
                                     "--json"], work)
    y_want = np.concatenate([v[:, 4:], v[:, :1], v[:, 1:4]], axis=1)
    check_output("split then concat", os.path.join(work, "or_0.npy"), y_want, False)
    check_output("concat of a concat", os.path.join(work, "or_1.npy"),
                 np.concatenate([y_want, v], axis=0), False)
    check(json.loads(r.stdout)["outputs"][1]["dims"] == [8, 6], f"json: {r.stdout}")


def test_run_failures(work):
    np.save(os.path.join(work, "f23.npy"), np.zeros((2, 3), dtype="<f4"))
    np.save(os.path.join(work, "f24.npy"), np.zeros((2, 4), dtype="<f4"))
    cases = [
        ("dims differ", concat_net([[2, 3], [2, 4]], 0, [4, 3]), ["f23.npy", "f24.npy"], 65,
         ['layer 2 "cat" (Concat)', "inputs[1].shape[1] is 4 but inputs[0].shape[1] is 3"]),
        ("declared output", concat_net([[2, 3], [2, 3]], 0, [5, 3]), ["f23.npy", "f23.npy"], 65,
         ['layer 2 "cat" (Concat): output port 2 declares [5,3] but the concat gives [4,3]']),
        ("no axis", concat_net([[2, 3], [2, 3]], None, [4, 3]), ["f23.npy", "f23.npy"], 65,
         ['layer 2 "cat" (Concat): <data> has no axis attribute']),
        ("axis", concat_net([[2, 3], [2, 3]], -3, [4, 3]), ["f23.npy", "f23.npy"], 65,
         ["axis -3 is out of range [-2, 1]"]),
    ]
    for label, net, files, status, fragments in cases:
        xml = net.write(work, "fail")
        args = ["ir-run", xml, "-o", "of"]
        for i, f in enumerate(files):
            args += ["-i", "x%d=%s" % (i, f)]
        expect_failure(label, args, work, status, fragments)

#!/usr/bin/python3
"""cleave ir-check on IR nets written by irgen.py: every integer type for the axis and
split_lengths Consts, every element type name in both spellings, every dim form, IR v10 and v11,
unknown values (hulls), and each verdict (OK, MISMATCH, RULE BROKEN, NOT CHECKABLE) with its exit
status."""
import json
import os

import numpy as np
import pytest

import clitest
from clitest import check
from irgen import TYPES, Net

INT_TYPES = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]


def check_json(work, xml, label):
    """Runs ir-check --json; returns (exit status, parsed object or None)."""
    r = clitest.run(["ir-check", "--json", xml], work)
    try:
        return r.returncode, json.loads(r.stdout)
    except ValueError:
        check(False, f"{label}: --json printed {r.stdout!r} (stderr {r.stderr!r})")
        return r.returncode, None


def json_form(text):
    """What --json gives for a value printed as `text`: a static shape or list of integers as a
    list, anything partial ("[?,12]", "[...]") as the text."""
    inner = text[1:-1]
    if text.startswith("[") and text.endswith("]") and all(
            part.lstrip("-").isdigit() for part in (inner.split(",") if inner else [])):
        return [int(part) for part in inner.split(",")] if inner else []
    return text


def variadic_net(data_shape, axis, lengths, out_dims, axis_type="i64", lengths_type="i64",
                 axis_shape=(), version=11, element_type="f32", param_shape=None, port_dims=None):
    net = Net(version=version)
    shape_text = param_shape if param_shape is not None else ",".join(map(str, data_shape))
    dims = port_dims if port_dims is not None else data_shape
    precision = TYPES[element_type][0]
    data = net.parameter("data", element_type, shape_text, dims=dims, precision=precision)
    a = net.const_array("axis", np.array(axis, dtype=TYPES[axis_type][1]).reshape(axis_shape))
    ls = net.const_array("lengths", np.array(lengths, dtype=TYPES[lengths_type][1]))
    outs = net.variadic("vsplit", data, dims, a, ls, len(lengths), out_dims, precision=precision)
    for i, o in enumerate(outs):
        net.result("out%d" % i, o, out_dims[i], precision=precision)
    return net


def expected_dims(shape, axis, lengths):
    axis = axis % len(shape)
    rest = shape[axis] - sum(v for v in lengths if v != -1)
    return [[(rest if v == -1 else v) if d == axis else n for d, n in enumerate(shape)]
            for v in lengths]


def test_integer_types(work):
    shape = [2, 9, 3]
    for at in INT_TYPES:
        for lt in INT_TYPES:
            lengths = [2, 3, 4] if lt.startswith("u") else [2, -1, 4]
            axis = 1 if at.startswith("u") else -2
            out = expected_dims(shape, axis, lengths)
            for axis_shape in ((), (1,)):
                net = variadic_net(shape, axis, lengths, out, at, lt, axis_shape)
                xml = net.write(work, f"int_{at}_{lt}_{len(axis_shape)}")
                status, obj = check_json(work, xml, f"{at}/{lt}")
                if obj is None:
                    continue
                row = obj["layers"][0]
                label = f"axis {at}{list(axis_shape)}, lengths {lt}"
                check(status == 0 and row["status"] == "OK", f"{label}: {status} {row}")
                # Static values are JSON numbers and arrays of integers.
                check(row["inferred"] == out and row["declared"] == out,
                      f"{label}: inferred {row['inferred']}, declared {row['declared']} != {out}")
                check(row["lengths"] == lengths, f"{label}: lengths shown as {row['lengths']}")
                check(row["axis"] == ([axis] if axis_shape else axis) and row["data"] == shape,
                      f"{label}: axis {row['axis']!r}, data {row['data']!r}")


def test_split(work):
    # Split-1 with every integer axis type, and a scalar axis.
    for at in INT_TYPES:
        net = Net()
        data = net.parameter("data", "f32", "4,6")
        axis = net.const_array("axis", np.array(1, dtype=TYPES[at][1]))
        outs = net.split("split", data, [4, 6], axis, 3, [[4, 2]] * 3)
        for i, o in enumerate(outs):
            net.result("r%d" % i, o, [4, 2])
        xml = net.write(work, "split_" + at)
        r = clitest.run(["ir-check", xml], work)
        check(r.returncode == 0 and "num_splits 3; inferred [4,2] [4,2] [4,2]" in r.stdout and
              ": OK" in r.stdout, f"Split axis {at}: {r.returncode} {r.stdout} {r.stderr}")
        status, obj = check_json(work, xml, "split_" + at)
        if obj is not None:
            row = obj["layers"][0]
            check(row["num_splits"] == 3 and row["axis"] == 1 and row["data"] == [4, 6] and
                  row["inferred"] == [[4, 2]] * 3, f"Split axis {at} --json: {row}")


def test_split_dynamic_rank(work):
    # A Parameter of dynamic rank ("...") feeding Split-1: the outputs are of dynamic rank too (as
    # `cleave infer` says), so any declared output shape is accepted, while the output count is
    # still checked. The dynamic rank must never be taken as a number of dims.
    want = clitest.run(["infer", "split", "-a", "1", "-n", "2", "--shape", "[...]"],
                       work).stdout.split()
    check(len(want) == 2, f"infer split on [...]: {want}")
    for label, declared, status, verdict in (("dynrank_ok", [[-1, -1], [2, 3, 4]], 0, "OK"),
                                              ("dynrank_count", [[-1, -1]] * 3, 1, "MISMATCH")):
        net = Net()
        data = net.parameter("data", "f32", "...", dims=[-1, -1])
        axis = net.const_array("axis", np.array(1, dtype="<i8"))
        outs = net.split("split", data, [-1, -1], axis, 2, declared)
        for i, o in enumerate(outs):
            net.result("r%d" % i, o, declared[i])
        status_got, obj = check_json(work, net.write(work, label), label)
        if obj is None:
            continue
        row = obj["layers"][0]
        check(status_got == status and row["status"] == verdict and row["data"] == "[...]",
              f"{label}: {status_got} {row}")
        if verdict == "OK":
            check(row["inferred"] == want and row["hull"] is True,
                  f"{label}: inferred {row['inferred']}, infer says {want}; {row}")
        else:
            check("the layer declares 3 outputs but 2 are inferred" in row["reason"],
                  f"{label}: {row}")
        r = clitest.run(["ir-check", os.path.join(work, label + ".xml")], work)
        check(r.returncode == status and ("inferred [...] [...] (hull)" in r.stdout) ==
              (verdict == "OK"), f"{label} (text): {r.returncode} {r.stdout}")


def test_element_type_names(work):
    # The data's element type, from a Parameter (element_type spelling) and from another layer's
    # output port (the legacy precision spelling): both report the canonical name.
    for name, (precision, _, _) in TYPES.items():
        for via_port in (False, True):
            net = Net()
            data = net.parameter("data", name, "4,6", precision=precision)
            if via_port:
                data = net.layer("Relu", "relu", inputs=[(data, [4, 6], precision)],
                                 outputs=[([4, 6], precision)])[0]
            axis = net.const_array("axis", np.array(0, dtype="<i8"))
            outs = net.split("split", data, [4, 6], axis, 2, [[2, 6]] * 2, precision=precision)
            for i, o in enumerate(outs):
                net.result("r%d" % i, o, [2, 6], precision=precision)
            xml = net.write(work, f"type_{name}_{via_port}")
            status, obj = check_json(work, xml, name)
            if obj is None:
                continue
            row = obj["layers"][0]
            check(status == 0 and row["status"] == "OK" and row["element_type"] == name,
                  f"type {name} (via {'port ' + precision if via_port else 'Parameter'}): "
                  f"{status} {row}")


def infer_text(work, shape, lengths):
    r = clitest.run(["infer", "variadic-split", "-a", "1", "-l", lengths, "--shape", shape],
                    work)
    return r.stdout.split()


def test_dim_forms(work):
    # Parameter shape forms, and the same dims on a producing port (<dim> text).
    forms = [("2,12", "[2,12]"), ("?,12", "[?,12]"), ("-1,12", "[?,12]"), ("1..4,12", "[1..4,12]"),
             ("..8,12", "[0..8,12]"), ("2..,12", "[2..,12]"), ("2, 10..20", "[2,10..20]"),
             ("...", "[...]")]
    for shape, canonical in forms:
        want = infer_text(work, canonical, "4,-1")
        check(len(want) == 2, f"infer on {canonical}: {want}")
        for via_port in (False, True):
            net = Net()
            if via_port:
                if shape == "...":
                    continue
                dims = [d.strip() for d in shape.split(",")]
                data = net.parameter("data", "f32", "?,?", dims=[-1, -1])
                data = net.layer("Relu", "relu", inputs=[(data, [-1, -1], "FP32")],
                                 outputs=[(dims, "FP32")])[0]
            else:
                dims = [-1, -1] if shape == "..." else \
                    [d.strip() if ".." not in d and d.strip() != "?" else -1
                     for d in shape.split(",")]
                data = net.parameter("data", "f32", shape, dims=dims)
            axis = net.const_array("axis", np.array(1, dtype="<i8"))
            lens = net.const_array("lengths", np.array([4, -1], dtype="<i8"))
            outs = net.variadic("vsplit", data, dims, axis, lens, 2, [[-1, -1]] * 2)
            for i, o in enumerate(outs):
                net.result("r%d" % i, o, [-1, -1])
            xml = net.write(work, "dims_%d" % forms.index((shape, canonical)))
            status, obj = check_json(work, xml, shape)
            if obj is None:
                continue
            row = obj["layers"][0]
            label = f"shape '{shape}' ({'port' if via_port else 'Parameter'})"
            check(row["data"] == json_form(canonical), f"{label}: data read as {row['data']}")
            check(row["inferred"] == [json_form(w) for w in want],
                  f"{label}: inferred {row['inferred']}, infer says {want}")
            # Declared [?,?] is less precise than the inference, never wrong.
            check(status == 0 and row["status"] == "OK", f"{label}: {status} {row}")


def test_versions(work):
    for version in (10, 11):
        net = variadic_net([6, 4], 0, [1, 5], [[1, 4], [5, 4]], version=version)
        xml = net.write(work, "v%d" % version)
        r = clitest.run(["ir-check", xml], work)
        check(r.returncode == 0 and f"IR v{version}" in r.stdout, f"v{version}: {r.stdout}")


def test_verdicts(work):
    # MISMATCH: one declared dim edited; the line names the layer and the output.
    net = variadic_net([6, 4], 0, [1, 5], [[1, 4], [4, 4]])
    xml = net.write(work, "mismatch")
    r = clitest.run(["ir-check", xml], work)
    check(r.returncode == 1 and '3 VariadicSplit "vsplit"' in r.stdout and
          "MISMATCH: output 1 (port 4) declares [4,4], inferred [5,4] (dimension 0)" in r.stdout,
          f"mismatch: {r.returncode} {r.stdout}")
    check("1 MISMATCH" in r.stdout, f"mismatch summary: {r.stdout}")
    # MISMATCH: a wrong output count; a wrong rank.
    net = variadic_net([6, 4], 0, [1, 5], [[1, 4], [5, 4], [0, 4]])
    r = clitest.run(["ir-check", net.write(work, "count")], work)
    check(r.returncode == 1 and "declares 3 outputs but 2 are inferred" in r.stdout,
          f"count: {r.stdout}")
    net = variadic_net([6, 4], 0, [1, 5], [[1, 4], [5, 4, 1]])
    r = clitest.run(["ir-check", net.write(work, "rank")], work)
    check(r.returncode == 1 and "declares rank 3" in r.stdout, f"rank: {r.stdout}")
    # MISMATCH: the split's own input port contradicts its producer.
    net = variadic_net([6, 4], 0, [1, 5], [[1, 4], [5, 4]], port_dims=[6, 4])
    text = net.xml().replace('<port id="0" precision="FP32">\n\t\t\t\t\t<dim>6</dim>\n'
                             '\t\t\t\t\t<dim>4</dim>\n\t\t\t\t</port>\n\t\t\t\t<port id="1"',
                             '<port id="0" precision="FP32">\n\t\t\t\t\t<dim>7</dim>\n'
                             '\t\t\t\t\t<dim>4</dim>\n\t\t\t\t</port>\n\t\t\t\t<port id="1"')
    r = clitest.run(["ir-check", net.write(work, "inport", xml=text)], work)
    check(r.returncode == 1 and "input port 0 declares [7,4] but its producer" in r.stdout,
          f"input port: {r.stdout}")
    # RULE BROKEN: the library's message.
    net = variadic_net([6, 4], 0, [1, 4], [[1, 4], [4, 4]])
    r = clitest.run(["ir-check", net.write(work, "rule")], work)
    check(r.returncode == 1 and "RULE BROKEN: split_lengths sum to 5 but data.shape[0] is 6"
          in r.stdout, f"rule: {r.stdout}")
    net = Net()
    data = net.parameter("data", "f32", "5,6")
    axis = net.const_array("axis", np.array(0, dtype="<i8"))
    for i, o in enumerate(net.split("split", data, [5, 6], axis, 2, [[2, 6]] * 2)):
        net.result("r%d" % i, o, [2, 6])
    r = clitest.run(["ir-check", net.write(work, "rule_split")], work)
    check(r.returncode == 1 and "RULE BROKEN" in r.stdout and "num_splits" in r.stdout,
          f"rule split: {r.stdout}")
    # -q prints only the layers that are not OK; an all-OK model prints nothing.
    r = clitest.run(["ir-check", "-q", os.path.join(work, "rule.xml")], work)
    check(r.returncode == 1 and r.stdout.count("\n") == 1 and "RULE BROKEN" in r.stdout,
          f"-q: {r.stdout!r}")
    r = clitest.run(["ir-check", "-q", os.path.join(work, "v11.xml")], work)
    check(r.returncode == 0 and r.stdout == "", f"-q on an OK model: {r.stdout!r}")


def unknown_lengths_net(declared, lengths_dims=(2,), precision="I32"):
    """Lengths computed by a Concat of two Consts, as in YOLO11n: unknown to ir-check."""
    net = Net()
    data = net.parameter("data", "f32", "1,4,8")
    axis = net.const_array("axis", np.array(1, dtype="<i8"))
    a = net.const_array("a", np.array([2], dtype="<i4"))
    b = net.const_array("b", np.array([2], dtype="<i4"))
    lens = net.layer("Concat", "concat", inputs=[(a, [1], "I32"), (b, [1], "I32")],
                     outputs=[(list(lengths_dims), precision)], data={"axis": 0})[0]
    outs = net.variadic("vsplit", data, [1, 4, 8], axis, lens, lengths_dims[0], declared,
                        lengths_precision=precision)
    for i, o in enumerate(outs):
        net.result("r%d" % i, o, declared[i])
    return net


def test_unknown_values(work):
    net = unknown_lengths_net([[1, 2, 8], [1, 2, 8]])
    r = clitest.run(["ir-check", net.write(work, "hull")], work)
    check(r.returncode == 0 and "lengths [?,?] (unknown values from layer 4 \"concat\" (Concat))"
          in r.stdout and "inferred [1,0..4,8] [1,0..4,8] (hull)" in r.stdout and ": OK" in
          r.stdout, f"hull: {r.stdout}")
    # In JSON the unknown values and the partial shapes stay text; the static ones are numbers.
    status, obj = check_json(work, os.path.join(work, "hull.xml"), "hull")
    if obj is not None:
        # The Concat that computes the lengths is checked too (OK); the split comes after it.
        check([r["type"] for r in obj["layers"]] == ["Concat", "VariadicSplit"] and
              obj["layers"][0]["status"] == "OK", f"hull --json layers: {obj['layers']}")
        row = obj["layers"][-1]
        check(status == 0 and row["lengths"] == "[?,?]" and row["axis"] == 1 and
              row["data"] == [1, 4, 8] and row["inferred"] == ["[1,0..4,8]"] * 2 and
              row["declared"] == [[1, 2, 8]] * 2 and row["hull"] is True,
              f"hull --json: {row}")
    net = unknown_lengths_net([[1, 2, 8], [1, 5, 8]])
    r = clitest.run(["ir-check", net.write(work, "hull_bad")], work)
    check(r.returncode == 1 and "MISMATCH: output 1 (port 4) declares [1,5,8], inferred "
          "[1,0..4,8]" in r.stdout, f"hull mismatch: {r.stdout}")
    # The number of lengths is not static: not checkable.
    net = unknown_lengths_net([[1, 2, 8], [1, 2, 8]], lengths_dims=(-1,))
    r = clitest.run(["ir-check", net.write(work, "hull_count")], work)
    check(r.returncode == 1 and "NOT CHECKABLE: split_lengths comes from port 2 of layer 4 "
          "\"concat\" (Concat), whose shape is not static" in r.stdout, f"count: {r.stdout}")
    # An unknown axis (computed by a layer): the hull over every valid axis.
    net = Net()
    data = net.parameter("data", "f32", "4,4")
    c = net.const_array("c", np.array(1, dtype="<i8"))
    axis = net.layer("Convert", "convert", inputs=[(c, [], "I64")], outputs=[([], "I64")],
                     data={"destination_type": "i64"})[0]
    outs = net.split("split", data, [4, 4], axis, 2, [[-1, -1]] * 2)
    for i, o in enumerate(outs):
        net.result("r%d" % i, o, [-1, -1])
    r = clitest.run(["ir-check", net.write(work, "axis_unknown")], work)
    check(r.returncode == 0 and "axis ?" in r.stdout and "inferred [2..4,2..4] [2..4,2..4] (hull)"
          in r.stdout, f"unknown axis: {r.stdout}")


def test_hostile_counts(work):
    # A count of outputs no file could declare is decided before anything is allocated for it.
    net = Net()
    data = net.parameter("d", "f32", "4,4")
    axis = net.const_array("a", np.array(0, dtype="<i8"))
    c = net.layer("Relu", "c", inputs=[(axis, [], "I64")], outputs=[([10 ** 12], "I64")])[0]
    net.variadic("v", data, [4, 4], axis, c, 10 ** 12, [[2, 4]])
    r = clitest.run(["ir-check", net.write(work, "huge_lengths")], work)
    check(r.returncode == 1 and "MISMATCH: the layer declares 1 output but 1000000000000 are "
          "inferred" in r.stdout and "(1000000000000 values)" in r.stdout,
          f"huge lengths: {r.returncode} {r.stdout[-300:]} {r.stderr}")
    net = Net()
    data = net.parameter("d", "f32", "?,4")
    axis = net.const_array("a", np.array(0, dtype="<i8"))
    net.layer("Split", "s", inputs=[(data, [-1, 4], "FP32"), (axis, [], "I64")],
              outputs=[([-1, 4], "FP32")], data={"num_splits": str(2 ** 62)})
    r = clitest.run(["ir-check", net.write(work, "huge_split")], work)
    check(r.returncode == 1 and "MISMATCH: the layer declares 1 output but %d are inferred"
          % 2 ** 62 in r.stdout, f"huge num_splits: {r.returncode} {r.stdout} {r.stderr}")


def test_json(work):
    status, obj = check_json(work, os.path.join(work, "mismatch.xml"), "json")
    if obj is not None:
        check(status == 1 and obj["op"] == "ir-check" and obj["version"] == 11 and
              obj["checked"] == 1 and obj["mismatch"] == 1 and obj["ok"] == 0 and
              obj["layer_count"] == 6, f"json summary: {obj}")
        row = obj["layers"][0]
        check(row["id"] == 3 and row["name"] == "vsplit" and row["type"] == "VariadicSplit" and
              row["declared"] == [[1, 4], [4, 4]] and row["status"] == "MISMATCH",
              f"json row: {row}")


def test_help(work):
    for command in ("ir-check", "ir-run"):
        r = clitest.run([command, "--help"], work)
        check(r.returncode == 0 and r.stdout.startswith("usage: cleave " + command),
              f"{command} --help: {r.stdout[:80]!r}")
        check(clitest.run(["help", command], work).stdout == r.stdout, f"help {command}")
    r = clitest.run(["--help"], work)
    check("  ir-check " in r.stdout and "  ir-run " in r.stdout, "--help lists the IR commands")
    with open(os.path.join(os.environ.get("CLEAVE_SOURCE_DIR", ""), "docs", "cleave.1")) as f:
        man = f.read()
    for word in ("Cm ir-check", "Cm ir-run", "Fl -bin", "Fl -input"):
        check(word in man, f"the man page does not document {word}")


@pytest.fixture
def work(shared_work):
    """One folder for the file: test_verdicts reads test_versions' v11.xml, test_json reads
    test_verdicts' mismatch.xml."""
    return shared_work

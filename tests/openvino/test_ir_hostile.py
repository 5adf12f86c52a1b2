#!/usr/bin/python3
"""Hostile and malformed IR files: each class gives its exit status, a message naming the file
(and the line and layer where there is one), nothing on stdout and no file written, for ir-check
and for ir-run. Also the strictness decisions of tools/openvino/README.md."""
import os
import shutil

import numpy as np
import pytest

import clitest
from clitest import check, expect_failure
from irgen import Net


def good_net():
    net = Net()
    data = net.parameter("data", "f32", "6,4")
    axis = net.const_array("axis", np.array(0, dtype="<i8"))
    lens = net.const_array("lengths", np.array([2, 4], dtype="<i8"))
    outs = net.variadic("vsplit", data, [6, 4], axis, lens, 2, [[2, 4], [4, 4]])
    net.result("r0", outs[0], [2, 4])
    net.result("r1", outs[1], [4, 4])
    return net


def case_dir(root, name):
    path = os.path.join(root, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    np.save(os.path.join(path, "data.npy"), np.zeros((6, 4), dtype="<f4"))
    return path


def both(root, name, xml_text, status, fragments, bin_bytes=None, net=None):
    """Writes m.xml (and m.bin) in a fresh directory and expects both commands to fail."""
    work = case_dir(root, name)
    net = net or good_net()
    with open(os.path.join(work, "m.xml"), "wb") as f:
        f.write(xml_text if isinstance(xml_text, bytes) else xml_text.encode())
    with open(os.path.join(work, "m.bin"), "wb") as f:
        f.write(bytes(net.bin) if bin_bytes is None else bin_bytes)
    expect_failure(name + " (ir-check)", ["ir-check", "m.xml"], work, status, fragments)
    expect_failure(name + " (ir-run)", ["ir-run", "m.xml", "--input", "data=data.npy", "-o",
                                        "out"], work, status, fragments)


def edit(text, old, new, count=1):
    assert old in text, old
    return text.replace(old, new, count)


def test_xml_level(root):
    good = good_net().xml()
    both(root, "truncated", good[:len(good) // 2], 65,
         ["'m.xml' line", "not well-formed XML"])
    both(root, "empty", "", 65, ["'m.xml' line 1", "not well-formed XML"])
    both(root, "not_xml", "\x00\x01binary", 65, ["not well-formed XML"])
    bomb = ('<?xml version="1.0"?>\n<!DOCTYPE net [\n<!ENTITY a "aaaaaaaaaa">\n'
            '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\n'
            '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">\n]>\n<net version="11">&c;</net>\n')
    both(root, "entity_bomb", bomb, 65, ["'m.xml' line 2", "DOCTYPE declaration is not allowed"])
    external = ('<?xml version="1.0"?>\n<!DOCTYPE net SYSTEM "file:///etc/passwd">\n'
                '<net version="11"/>\n')
    both(root, "external_dtd", external, 65, ["DOCTYPE declaration is not allowed"])
    both(root, "whitespace_before_decl", "\n  " + good, 65,
         ["not well-formed XML", "XML or text declaration not at start of entity"])
    both(root, "undefined_entity", edit(good, 'name="vsplit"', 'name="&x;"'), 65,
         ["undefined entity"])
    both(root, "root", edit(good, "<net ", "<network ").replace("</net>", "</network>"), 65,
         ["the root element is <network>, not <net>"])
    both(root, "version_7", edit(good, 'version="11"', 'version="7"'), 65,
         ["line 2", "IR version '7' is not supported (versions 10 and 11 are)"])
    both(root, "no_version", edit(good, ' version="11"', ""), 65, ["<net> has no version"])
    deep = edit(good, "<rt_info>", "<rt_info>" + "<x>" * 300 + "</x>" * 300)
    both(root, "deep_nesting", deep, 65, ["nested deeper than 256 levels"])
    both(root, "two_layers_sections", edit(good, "\t<edges>", "\t<layers/>\n\t<edges>"), 65,
         ["more than one <layers>"])
    both(root, "no_edges", good[:good.index("\t<edges>")] + "</net>\n", 65,
         ["<net> has no <edges>"])
    both(root, "stray_element", edit(good, "<layers>", "<layers><foo/>"), 65,
         ["<foo> inside <layers>"])


def test_layer_level(root):
    good = good_net().xml()
    both(root, "dim_2_63", edit(good, "<dim>6</dim>", "<dim>9223372036854775808</dim>"), 65,
         ["'m.xml' line 8", 'layer 0 "data" (Parameter): port 0',
          "dimension '9223372036854775808' is above 2^63-1"])
    both(root, "shape_2_63", edit(good, 'shape="6,4"', 'shape="9223372036854775808,4"'), 65,
         ['layer 0 "data" (Parameter)', "above 2^63-1"])
    both(root, "dim_text", edit(good, "<dim>6</dim>", "<dim>six</dim>"), 65,
         ["'six' is not a dimension"])
    both(root, "dim_negative", edit(good, "<dim>6</dim>", "<dim>-2</dim>"), 65,
         ["'-2' is not a dimension"])
    both(root, "dim_interval_reversed", edit(good, "<dim>6</dim>", "<dim>5..3</dim>"), 65,
         ["lower bound above its upper bound"])
    both(root, "dim_element", edit(good, "<dim>6</dim>", "<dim><b/></dim>"), 65,
         ["<b> inside <dim>"])
    both(root, "duplicate_layer_id", edit(good, '<layer id="5"', '<layer id="4"'), 65,
         ["duplicate layer id 4", '"r1"', '"r0"'])
    both(root, "duplicate_port_id", edit(good, '<port id="4"', '<port id="3"'), 65,
         ['layer 3 "vsplit" (VariadicSplit) has two ports with id 3'])
    both(root, "no_id", edit(good, '<layer id="5" ', "<layer "), 65,
         ["a <layer> has no id attribute"])
    both(root, "unknown_precision", edit(good, 'precision="I64"', 'precision="FP128"'), 65,
         ["unknown precision 'FP128'"])
    both(root, "unknown_element_type", edit(good, 'element_type="f32"', 'element_type="f31"'), 65,
         ['layer 0 "data" (Parameter): unknown element_type \'f31\''])


def test_edges(root):
    good = good_net().xml()
    both(root, "edge_missing_port",
         edit(good, 'to-layer="3" to-port="2"', 'to-layer="3" to-port="9"'), 65,
         ['an <edge> ends at port 9 of layer 3 "vsplit" (VariadicSplit), which has no such input'])
    both(root, "edge_missing_layer",
         edit(good, 'from-layer="2" from-port="0"', 'from-layer="42" from-port="0"'), 65,
         ["an <edge> refers to layer 42, which does not exist"])
    both(root, "edge_from_input_port",
         edit(good, 'from-layer="2" from-port="0"', 'from-layer="3" from-port="0"'), 65,
         ["starts at port 0 of layer 3", "no such output port"])
    both(root, "unconnected_input",
         edit(good, '\t\t<edge from-layer="2" from-port="0" to-layer="3" to-port="2" />\n', ""),
         65, ['input port 2 of layer 3 "vsplit" (VariadicSplit) is not connected'])
    both(root, "two_producers",
         edit(good, "</edges>", '\t<edge from-layer="1" from-port="0" to-layer="3" to-port="2" />'
              "\n\t</edges>"), 65, ["input port 2 of layer 3", "has two producers"])
    # A cycle: the split's second output feeds its own lengths input.
    both(root, "cycle",
         edit(good, 'from-layer="2" from-port="0" to-layer="3" to-port="2"',
              'from-layer="3" from-port="4" to-layer="3" to-port="2"'), 65,
         ["the edges form a cycle", 'layer 3 "vsplit" (VariadicSplit)'])
    # A longer cycle through two layers.
    net = Net()
    a = net.layer("Relu", "a", inputs=[((1, 1), [2], "FP32")], outputs=[([2], "FP32")])
    net.layer("Relu", "b", inputs=[(a[0], [2], "FP32")], outputs=[([2], "FP32")])
    both(root, "cycle_two", net.xml(), 65, ["the edges form a cycle", 'layer 0 "a" (Relu)'],
         net=net)


def test_consts(root):
    net = good_net()
    good = net.xml()
    # lengths: offset 8, size 16 in a 24-byte .bin.
    both(root, "const_past_end", good, 65,
         ['layer 2 "lengths" (Const): bytes 8..23 (offset 8, size 16) lie past the end of '
          "'m.bin' (20 bytes)"], bin_bytes=bytes(net.bin)[:20])
    both(root, "const_offset_huge", edit(good, 'offset="8"', 'offset="9223372036854775807"'), 65,
         ["lie past the end of 'm.bin' (24 bytes)"])
    both(root, "const_offset_2_64", edit(good, 'offset="8"', 'offset="18446744073709551615"'), 65,
         ["offset '18446744073709551615' is not an integer in [0, 2^63-1]"])
    both(root, "const_size", edit(good, 'size="16"', 'size="12"'), 65,
         ['layer 2 "lengths" (Const): size is 12 bytes but 2 elements of i64 take 16 bytes'])
    # OpenVINO accepts a size larger than the data; cleave does not.
    both(root, "const_size_larger", edit(good, 'offset="0" size="8"', 'offset="0" size="16"'), 65,
         ['layer 1 "axis" (Const): size is 16 bytes but 1 element of i64 takes 8 bytes'])
    both(root, "const_dynamic", edit(good, 'shape="2"', 'shape="?"'), 65,
         ["a Const needs a static shape, not '?'"])
    both(root, "const_port", edit(good, 'element_type="i64" shape="2"',
                                  'element_type="i64" shape="1, 2"'), 65,
         ["output port 0 declares rank 1 but shape '1, 2' has rank 2"])
    both(root, "const_no_offset", edit(good, ' offset="8"', ""), 65,
         ["<data> has no offset attribute"])
    both(root, "const_dynamic_type", edit(good, 'element_type="i64" shape="2"',
                                          'element_type="dynamic" shape="2"'), 65,
         ["element_type 'dynamic' is not a concrete type"])


def test_files(root):
    work = case_dir(root, "files")
    net = good_net()
    net.write(work, "m")
    os.remove(os.path.join(work, "m.bin"))
    expect_failure("missing bin", ["ir-check", "m.xml"], work, 66,
                   ["cannot open the weights 'm.bin'", "--bin"])
    expect_failure("missing --bin", ["ir-check", "m.xml", "--bin", "w.bin"], work, 66,
                   ["cannot open the weights 'w.bin'"])
    expect_failure("missing xml", ["ir-check", "x.xml"], work, 66, ["cannot open 'x.xml'"])
    os.mkdir(os.path.join(work, "d.xml"))
    expect_failure("directory", ["ir-check", "d.xml"], work, 66, ["'d.xml'", "directory"])
    os.rmdir(os.path.join(work, "d.xml"))
    # --bin that cannot be opened wins over an invalid .xml (66 before 65).
    with open(os.path.join(work, "bad.xml"), "w") as f:
        f.write("<net")
    expect_failure("66 before 65", ["ir-check", "bad.xml", "--bin", "none.bin"], work, 66,
                   ["none.bin"])
    expect_failure("no model", ["ir-check"], work, 64, ["the model is missing"])
    expect_failure("two models", ["ir-check", "m.xml", "n.xml"], work, 64,
                   ["unexpected argument 'n.xml'"])
    expect_failure("unknown option", ["ir-check", "--frob", "m.xml"], work, 64, ["--frob"])
    expect_failure("run no model", ["ir-run"], work, 64, ["the model is missing"])
    expect_failure("run bad input", ["ir-run", "m.xml", "--input", "data"], work, 64,
                   ["--input 'data' is not NAME=FILE.npy"])


def test_strictness(root):
    """The decisions where OpenVINO's reader is lenient (tools/openvino/README.md)."""
    work = case_dir(root, "strict")
    good = good_net().xml()
    cases = [
        # A UTF-8 byte order mark is part of XML: accepted.
        ("bom", b"\xef\xbb\xbf" + good.encode(), 0, None),
        # Comments, CDATA-free whitespace in <dim> and unknown elements in layers: accepted.
        ("dim_spaces", edit(good, "<dim>6</dim>", "<dim> 6\n</dim>").encode(), 0, None),
        ("comment", edit(good, "<layers>", "<layers><!-- c -->").encode(), 0, None),
        ("rt_info_in_layer", edit(good, "<data shape", "<rt_info><x/></rt_info><data shape")
         .encode(), 0, None),
        # A port with an empty <dim>, a layer without a name: refused.
        ("empty_dim", edit(good, "<dim>6</dim>", "<dim></dim>").encode(), 65, "an empty <dim>"),
        ("no_name", edit(good, ' name="vsplit"', "").encode(), 65, "layer 3 has no name"),
        # Trailing text after the root element: refused (expat).
        ("junk_after", (good + "junk").encode(), 65, "junk after document element"),
    ]
    for name, text, status, fragment in cases:
        with open(os.path.join(work, "m.xml"), "wb") as f:
            f.write(text)
        with open(os.path.join(work, "m.bin"), "wb") as f:
            f.write(bytes(good_net().bin))
        if status == 0:
            r = clitest.run(["ir-check", "m.xml"], work)
            check(r.returncode == 0 and "1 OK" in r.stdout, f"{name}: {r.returncode} {r.stderr}")
        else:
            expect_failure(name, ["ir-check", "m.xml"], work, status, [fragment])


@pytest.fixture
def root(work):
    """The tests' fresh folder, in which they make a folder per case."""
    return work

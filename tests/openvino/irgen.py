"""Writes OpenVINO IR nets (.xml + .bin) for the tests, from Python, with no OpenVINO installed.

A Net collects layers and edges; `write(dir, stem)` produces STEM.xml and STEM.bin in the layout
OpenVINO's serializer uses (IR version 10 or 11: <net>, <layers>, <layer id name type version>,
<data>, <input>/<output> ports with <dim>, <edges>). Const data is appended to the .bin (or put
at an explicit offset); `raw_xml` lets hostile tests edit the text afterwards.
"""
import os
import struct

import numpy as np

# element_type -> (legacy port precision, numpy dtype or None for packed/string types, bits)
TYPES = {
    "boolean": ("BOOL", np.dtype("?"), 8),
    "i8": ("I8", np.dtype("i1"), 8),
    "i16": ("I16", np.dtype("<i2"), 16),
    "i32": ("I32", np.dtype("<i4"), 32),
    "i64": ("I64", np.dtype("<i8"), 64),
    "u8": ("U8", np.dtype("u1"), 8),
    "u16": ("U16", np.dtype("<u2"), 16),
    "u32": ("U32", np.dtype("<u4"), 32),
    "u64": ("U64", np.dtype("<u8"), 64),
    "f16": ("FP16", np.dtype("<f2"), 16),
    "f32": ("FP32", np.dtype("<f4"), 32),
    "f64": ("FP64", np.dtype("<f8"), 64),
    "bf16": ("BF16", np.dtype("V2"), 16),
    "f8e4m3": ("F8E4M3", np.dtype("V1"), 8),
    "f8e5m2": ("F8E5M2", np.dtype("V1"), 8),
    "f8e8m0": ("F8E8M0", np.dtype("V1"), 8),
    "u1": ("BIN", None, 1),
    "u2": ("U2", None, 2),
    "u4": ("U4", None, 4),
    "i4": ("I4", None, 4),
    "nf4": ("NF4", None, 4),
    "f4e2m1": ("F4E2M1", None, 4),
    "string": ("STRING", None, 0),
}
# Packed types whose first element sits in the most significant bits of a byte.
MSB_FIRST = {"u1", "u2"}


def pack_bits(values, bits, msb_first):
    """Packs small unsigned integers `values` (flat) into bytes, OpenVINO's way."""
    per_byte = 8 // bits
    out = bytearray((len(values) * bits + 7) // 8)
    for i, v in enumerate(values):
        slot = i % per_byte
        shift = (8 - bits - slot * bits) if msb_first else slot * bits
        out[i // per_byte] |= (int(v) & ((1 << bits) - 1)) << shift
    return bytes(out)


def pack_strings(strings):
    """OpenVINO's packed string layout: int32 count, count + 1 int32 offsets, the bytes."""
    if not strings:
        return struct.pack("<i", 0)
    offsets = [0]
    for s in strings:
        offsets.append(offsets[-1] + len(s))
    return struct.pack("<i", len(strings)) + struct.pack("<%di" % len(offsets), *offsets) + \
        b"".join(strings)


def dims_text(dims):
    return "".join("\t\t\t\t\t<dim>%s</dim>\n" % d for d in dims)


class Net:
    def __init__(self, version=11, name="cleave_test"):
        self.version = version
        self.name = name
        self.layers = []  # (id, text)
        self.edges = []   # (from, from_port, to, to_port)
        self.bin = bytearray()
        self.next_id = 0

    def _id(self):
        i = self.next_id
        self.next_id += 1
        return i

    def layer(self, type_, name, inputs=(), outputs=(), data=None, version="opset1", lid=None):
        """inputs: [(src, dims, precision)] with src = (layer id, port id); outputs:
        [(dims, precision)]. Returns the output ports as (layer id, port id)."""
        lid = self._id() if lid is None else lid
        lines = ['\t\t<layer id="%d" name="%s" type="%s" version="%s">\n' %
                 (lid, name, type_, version)]
        if data is not None:
            attrs = " ".join('%s="%s"' % (k, v) for k, v in data.items())
            lines.append("\t\t\t<data %s />\n" % attrs)
        port = 0
        if inputs:
            lines.append("\t\t\t<input>\n")
            for src, dims, precision in inputs:
                lines.append('\t\t\t\t<port id="%d" precision="%s">\n%s\t\t\t\t</port>\n' %
                             (port, precision, dims_text(dims)))
                self.edges.append((src[0], src[1], lid, port))
                port += 1
            lines.append("\t\t\t</input>\n")
        result = []
        if outputs:
            lines.append("\t\t\t<output>\n")
            for dims, precision in outputs:
                lines.append('\t\t\t\t<port id="%d" precision="%s">\n%s\t\t\t\t</port>\n' %
                             (port, precision, dims_text(dims)))
                result.append((lid, port))
                port += 1
            lines.append("\t\t\t</output>\n")
        lines.append("\t\t</layer>\n")
        self.layers.append((lid, "".join(lines)))
        return result

    def parameter(self, name, element_type, shape, dims=None, precision=None):
        """shape: the `shape` attribute text; dims: the port's <dim>s (default: from shape)."""
        if dims is None:
            dims = [d if d.isdigit() else -1 for d in shape.replace(" ", "").split(",") if d]
        precision = precision or TYPES.get(element_type, ("FP32",))[0]
        return self.layer("Parameter", name, outputs=[(dims, precision)],
                          data={"shape": shape, "element_type": element_type})[0]

    def const(self, name, element_type, shape, payload, offset=None, precision=None,
              size=None):
        """payload: the bytes (appended to the .bin unless `offset` is given)."""
        if offset is None:
            offset = len(self.bin)
            self.bin += payload
        size = len(payload) if size is None else size
        precision = precision or TYPES[element_type][0]
        return self.layer("Const", name, outputs=[(list(shape), precision)],
                          data={"element_type": element_type,
                                "shape": ", ".join(str(d) for d in shape),
                                "offset": offset, "size": size})[0]

    def const_array(self, name, array, element_type=None):
        array = np.asarray(array)
        if element_type is None:
            element_type = {v[1].str: k for k, v in TYPES.items()
                            if v[1] is not None}[array.dtype.str]
        return self.const(name, element_type, array.shape, array.tobytes())

    def split(self, name, data, data_dims, axis, num_splits, out_dims, precision="FP32"):
        return self.layer("Split", name,
                          inputs=[(data, data_dims, precision), (axis, [], "I64")],
                          outputs=[(d, precision) for d in out_dims],
                          data={"num_splits": num_splits})

    def variadic(self, name, data, data_dims, axis, lengths, lengths_count, out_dims,
                 precision="FP32", lengths_precision="I64"):
        return self.layer("VariadicSplit", name,
                          inputs=[(data, data_dims, precision), (axis, [], "I64"),
                                  (lengths, [lengths_count], lengths_precision)],
                          outputs=[(d, precision) for d in out_dims])

    def concat(self, name, inputs, axis, out_dims, precision="FP32", version="opset1"):
        """Concat-1: inputs [(src, dims)], the `axis` attribute (None: left out)."""
        return self.layer("Concat", name, inputs=[(src, dims, precision) for src, dims in inputs],
                          outputs=[(out_dims, precision)],
                          data=None if axis is None else {"axis": axis}, version=version)[0]

    def result(self, name, src, dims, precision="FP32"):
        self.layer("Result", name, inputs=[(src, dims, precision)], outputs=[])

    def xml(self):
        text = ['<?xml version="1.0"?>\n<net name="%s" version="%d">\n\t<layers>\n' %
                (self.name, self.version)]
        text += [t for _, t in self.layers]
        text.append("\t</layers>\n\t<edges>\n")
        for e in self.edges:
            text.append('\t\t<edge from-layer="%d" from-port="%d" to-layer="%d" to-port="%d" />\n'
                        % e)
        text.append("\t</edges>\n\t<rt_info>\n\t\t<framework value=\"cleave tests\" />\n"
                    "\t</rt_info>\n</net>\n")
        return "".join(text)

    def write(self, directory, stem, xml=None):
        xml_path = os.path.join(directory, stem + ".xml")
        with open(xml_path, "w") as f:
            f.write(self.xml() if xml is None else xml)
        with open(os.path.join(directory, stem + ".bin"), "wb") as f:
            f.write(bytes(self.bin))
        return xml_path


def seed_examples():
    """The Split-1 and VariadicSplit-1 examples of the OpenVINO specs, completed into nets:
    {stem: Net}. The specs give the layer only; the nets add the f32 Parameter "data" of shape
    [6,12,10,24], the axis and split_lengths as i64 Consts, and one Result per output."""
    nets = {}
    shape = [6, 12, 10, 24]

    net = Net(name="split_1_example")
    data = net.parameter("data", "f32", "6,12,10,24")
    axis = net.const_array("axis", np.array(1, dtype="<i8"))
    outs = net.split("split", data, shape, axis, 3, [[6, 4, 10, 24]] * 3)
    for i, o in enumerate(outs):
        net.result("output_%d" % i, o, [6, 4, 10, 24])
    nets["split-1"] = net

    for stem, lengths in (("variadic-split-1", [1, 2, 3]), ("variadic-split-1-inferred", [-1, 2])):
        net = Net(name=stem.replace("-", "_") + "_example")
        data = net.parameter("data", "f32", "6,12,10,24")
        axis = net.const_array("axis", np.array(0, dtype="<i8"))
        lens = net.const_array("split_lengths", np.array(lengths, dtype="<i8"))
        resolved = [6 - sum(v for v in lengths if v != -1) if v == -1 else v for v in lengths]
        out_dims = [[n, 12, 10, 24] for n in resolved]
        outs = net.variadic("split", data, shape, axis, lens, len(lengths), out_dims)
        for i, (o, d) in enumerate(zip(outs, out_dims)):
            net.result("output_%d" % i, o, d)
        nets[stem] = net
    return nets


if __name__ == "__main__":
    # Regenerates docs/examples/ (the committed seed examples): irgen.py DIR
    import sys
    for stem, net in seed_examples().items():
        print(net.write(sys.argv[1], stem))

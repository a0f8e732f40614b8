"""Keep each weight inside the ``If`` branch that alone reads it, so that onnxruntime optimizes the branch fully.

The crop classifier's cascade (``vision.train.average``) runs its later members inside ``If`` branches, which read
their weights from the main graph. onnxruntime lays a convolution out in its blocked (NCHWc) form only when the
weights are a constant of the graph the convolution is in, and a weight of the graph around a branch is not: the
members in branches ran with plain convolutions, about twice as slow as the first member per crop (on `valid`, 3.6
of a run's 13 ms for classifier G on the few crops it reads). Moved into the branch (with the ``Cast`` that widens a
weight stored in half precision), the same numbers come out faster
(docs/experiments/runtime-speed.md).

``python -m mjlens.vision.train.branch_weights MODEL.onnx [--out OUT.onnx]`` rewrites a file (in place by default);
``vision.train.average`` applies it to every classifier it writes.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from mjlens.vision.train import onnx_files


def subgraphs(node) -> list:
    """The graphs inside ``node``: the branches of an ``If``, the body of a ``Loop``."""
    from onnx import AttributeProto

    return [attribute.g for attribute in node.attribute if attribute.type == AttributeProto.GRAPH] + [
        graph for attribute in node.attribute for graph in attribute.graphs]


def outer_names(graph) -> set[str]:
    """The names ``graph`` (its nodes and their subgraphs) reads but does not define: what it takes from outside."""
    defined = {name for node in graph.node for name in node.output}
    defined |= {tensor.name for tensor in graph.initializer} | {value.name for value in graph.input}
    read = set()
    for node in graph.node:
        read.update(node.input)
        for subgraph in subgraphs(node):
            read |= outer_names(subgraph)
    return {name for name in read if name and name not in defined}


def weights_into_branches(graph) -> int:
    """Move every initializer of ``graph`` that one subgraph alone reads into that subgraph, with the ``Cast`` node
    that alone reads it when that node's output is what the subgraph reads; then the same within each subgraph.
    Returns the initializers moved."""
    readers: dict[str, list] = defaultdict(list)  # name -> each reading of it: the subgraph, or None for a node
    for node in graph.node:
        for name in node.input:
            if name:
                readers[name].append(None)
        for subgraph in subgraphs(node):
            for name in sorted(outer_names(subgraph)):  # a set: sorted, the file comes out the same each time
                readers[name].append(subgraph)
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    widening = {node.output[0]: node for node in graph.node
                if node.op_type == "Cast" and len(node.input) == 1 and node.input[0] in initializers
                and len(readers[node.input[0]]) == 1}
    moved_nodes, moved = set(), set()
    for name, reading in readers.items():
        if len(reading) != 1 or reading[0] is None:
            continue
        subgraph = reading[0]
        if name in initializers:
            subgraph.initializer.append(initializers[name])
            moved.add(name)
        elif name in widening:
            cast = widening[name]
            subgraph.initializer.append(initializers[cast.input[0]])
            subgraph.node.insert(0, cast)
            moved.add(cast.input[0])
            moved_nodes.add(name)
    kept_nodes = [node for node in graph.node if not (node.op_type == "Cast" and node.output[0] in moved_nodes)]
    del graph.node[:]
    graph.node.extend(kept_nodes)
    kept = [tensor for tensor in graph.initializer if tensor.name not in moved]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return len(moved) + sum(weights_into_branches(subgraph) for node in graph.node for subgraph in subgraphs(node))


def rewrite_file(path: Path, out: Path | None = None) -> int:
    """Rewrite the model at ``path`` into ``out`` (``path`` itself by default); returns the initializers moved."""
    return onnx_files.rewrite_file(path, out, lambda model: weights_into_branches(model.graph))


def main(argv: list[str] | None = None) -> None:
    onnx_files.rewrite_command(argv, __doc__.splitlines()[0], "an ONNX model with If branches (.onnx)", rewrite_file,
                               "{count} initializer(s) moved into branches")


if __name__ == "__main__":
    main()

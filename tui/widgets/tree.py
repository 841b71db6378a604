"""The federation's tree: every organization and unit discovery found, and what each did for the question.

Each node's line (:func:`tui.model.label`) says its state in words and colour — a spinner while
pending, then successful with its hits and latency, partial, timed out, unavailable, denied or failed
— and whether its router summarized. Highlighting a node posts :class:`FederationTree.Highlighted`,
so that its summary or its report can be shown.
"""

from __future__ import annotations

from textual import on
from textual.message import Message
from textual.widgets import Tree

from tui import model


class FederationTree(Tree[str]):
    """The tree of a :class:`tui.model.Federation`; each node's data is its path.

    Args:
        id: the widget's id.
    """

    DEFAULT_CSS = """
    FederationTree {
        width: 60;
        border: round $primary;
    }
    """

    class Highlighted(Message):
        """A node of the federation was highlighted.

        Args:
            tree: the tree.
            node: the node's state for the question in flight.
        """

        def __init__(self, tree: FederationTree, node: model.NodeState) -> None:
            super().__init__()
            self.tree = tree
            self.node = node

        @property
        def control(self) -> FederationTree:
            """The tree (for :func:`textual.on`'s selectors)."""
            return self.tree

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("federation", id=id)
        self.federation = model.Federation()
        self._frame = 0

    def on_mount(self) -> None:
        self.show_root = False
        self.set_interval(0.1, self._spin)

    def draw(self, federation: model.Federation) -> None:
        """Shows ``federation`` afresh: its organizations in name order, every branch expanded."""
        self.federation = federation
        self.clear()

        def add(parent, path: str) -> None:
            node = federation.nodes[path]
            if node.children:
                branch = parent.add(model.label(node, self._frame), data=path, expand=True)
                for child in node.children:
                    add(branch, child)
            else:
                parent.add_leaf(model.label(node, self._frame), data=path)

        for root in federation.roots:
            add(self.root, root)
        self.root.expand()

    def _spin(self) -> None:
        """Turns the spinner of every pending node."""
        if not self.federation.pending():
            return
        self._frame += 1
        nodes = self.federation.nodes

        def relabel(node) -> None:
            path = node.data
            if path in nodes and nodes[path].state == "pending":
                node.set_label(model.label(nodes[path], self._frame))
            for child in node.children:
                relabel(child)

        relabel(self.root)

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        node = self.federation.nodes.get(event.node.data) if event.node.data else None
        if node is not None:
            self.post_message(self.Highlighted(self, node))

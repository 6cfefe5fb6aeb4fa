"""Whether a file uses xacro, below the URDF reader (which refuses xacro it is not asked to expand)
and the xacro expansion (which reads the URDF it expands to)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

XACRO_NAMESPACE = "http://www.ros.org/wiki/xacro"


def is_xacro(path: str) -> bool:
    """True for a ``.xacro`` file or a ``.urdf`` that uses xacro (:func:`xacro_use`). Declaring the xacro
    namespace alone does not make a file xacro: what xacro writes keeps the declaration (pybullet's
    ``franka_panda/panda.urdf``, ``kuka_iiwa/model.urdf``) and is plain URDF."""
    if path.lower().endswith(".xacro"):
        return True
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return False
    builder = NamespaceRecorder()
    try:
        parser = ET.XMLParser(target=builder)
        parser.feed(text.lstrip())
        root = parser.close()
    except ET.ParseError:  # the reader names what is wrong with the XML; here only xacro's marks count
        return "<xacro:" in text or "${" in text
    return xacro_use(root, builder.uris_of("xacro")) is not None


class NamespaceRecorder(ET.TreeBuilder):
    """A TreeBuilder that also records each ``xmlns:prefix`` declaration (ElementTree keeps only URIs)."""

    def __init__(self, **options):
        super().__init__(**options)
        self.declared: list[tuple[str, str]] = []

    def start_ns(self, prefix, uri):
        self.declared.append((prefix, uri))

    def uris_of(self, prefix: str) -> set[str]:
        return {uri for declared, uri in self.declared if declared == prefix}


def xacro_use(root, xacro_uris=()) -> str | None:
    """The first use of xacro in the tree (``<xacro:macro name='arm'>``, ``<link ... '${...}'>``), or
    None: a ``xacro:`` element, whatever URI the prefix is bound to (ROS files use several), or an
    attribute with an expression (a leftover ``$(optenv ...)`` alone is read as text, as urdfdom does)."""
    namespaces = tuple(f"{{{uri}}}" for uri in {XACRO_NAMESPACE, *xacro_uris})
    for element in root.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        namespace = next((n for n in namespaces if tag.startswith(n)), None)
        if namespace is not None:
            name = element.get("name")
            return f"<xacro:{tag[len(namespace):]}{f' name={name!r}' if name else ''}>"
        expression = next((v for v in element.attrib.values() if "${" in v), None)
        if expression is not None:
            return f"<{tag} ... {expression!r}>"
    return None

"""Every relative link of README.md and docs/*.md reaches a file that exists, and every ``#anchor`` a
heading of its page, by GitHub's rules for heading anchors."""

import os
import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"""<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.I)
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # http:, https:, mailto: ...


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text lower-cased, punctuation dropped, spaces to '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).lower()
    kept = (c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return "".join(kept).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of ``page``'s headings; repeated ones get -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for _, text in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        slug = github_slug(text)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(page: Path) -> list[str]:
    """Every link target of ``page`` outside code blocks and code spans."""
    text = CODE_SPAN.sub("", FENCE.sub("", page.read_text(encoding="utf-8")))
    return LINK.findall(text) + HTML_LINK.findall(text)


def broken_links(page: Path) -> list[str]:
    problems = []
    for target in links(page):
        if EXTERNAL.match(target):
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / unquote(path)).resolve() if path else page
        if not where.exists():
            problems.append(f"{target}: no file {os.path.relpath(where, ROOT)}")
        elif anchor and where.suffix == ".md" and unquote(anchor) not in anchors(where):
            problems.append(f"{target}: no heading #{anchor} in {os.path.relpath(where, ROOT)}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_and_anchor_exists(page):
    assert broken_links(page) == []


def test_github_slugs():
    assert github_slug("Examples and `make demo`") == "examples-and-make-demo"
    assert github_slug("MuJoCo's own speed on the CPU") == "mujocos-own-speed-on-the-cpu"
    assert github_slug("Replicas on the CPU with MuJoCo: MuJoCo's C library across threads") == \
        "replicas-on-the-cpu-with-mujoco-mujocos-c-library-across-threads"
    assert github_slug("URDF and xacro: export and import") == "urdf-and-xacro-export-and-import"
    assert github_slug("Use [Newton](https://newton.dev) 1.8") == "use-newton-18"
    assert github_slug("snake_case and  two spaces") == "snake_case-and--two-spaces"


def test_a_broken_link_and_a_broken_anchor_are_found(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A section\n")
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n## Twice\n\n## Twice\n\n[ok](other.md#a-section) [ok](#twice-1) "
                    "![ok](other.md) [gone](missing.md) [bad](other.md#no-such) [bad](#twice-2)\n"
                    "`[code](not-a-link.md)`\n\n```\n[fenced](not-a-link.md)\n```\n")
    assert [p.split(":")[0] for p in broken_links(page)] == ["missing.md", "other.md#no-such", "#twice-2"]

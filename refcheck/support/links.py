"""The project's URLs, from one place: `[project.urls]` of pyproject.toml, read back from the
installed distribution's metadata.

Reports never invent a URL. With a `Repository` (or `Homepage`) entry, SARIF gets it as the tool's
informationUri; with a `Rules` entry (the base URL under which RCNNN.md pages are served), each
rule gets a helpUri. Without them those optional fields are left out: the rule pages ship with the
package, SARIF embeds each page as `help`, and the HTML report embeds the pages it cites.
"""

from __future__ import annotations

from functools import lru_cache

DISTRIBUTION = "refcheck-th"


@lru_cache(maxsize=1)
def project_urls() -> dict[str, str]:
    from importlib import metadata

    try:
        entries = metadata.metadata(DISTRIBUTION).get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return {}
    urls = {}
    for entry in entries:
        label, sep, url = entry.partition(",")
        if sep and url.strip():
            urls[label.strip()] = url.strip()
    return urls


def information_uri() -> str | None:
    urls = project_urls()
    return urls.get("Repository") or urls.get("Homepage")


def rule_doc_uri(code: str) -> str | None:
    base = project_urls().get("Rules")
    return f"{base.rstrip('/')}/{code}.md" if base else None

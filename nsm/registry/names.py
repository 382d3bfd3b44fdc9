"""Validation of package names, `user/pkg[@ref]` specs, git refs and URLs, done before any git
call so that no input can reach git as an option, a path or a remote-helper command."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import NsmError

_SEGMENT = re.compile(r"[A-Za-z0-9._-]+\Z")
_URL = re.compile(r"(https?|ssh|git|file)://[A-Za-z0-9._~%/:@+-]+\Z")


def check_segment(text: str, what: str) -> str:
    """`text` if it is one safe name segment ([A-Za-z0-9._-], no leading `-` or `.`), else
    NsmError naming `what`."""
    if not _SEGMENT.match(text) or text[0] in "-." or text.endswith(".lock"):
        raise NsmError(f"invalid {what} '{text}'",
                       "names use only letters, digits, '.', '_' and '-', and do not start "
                       "with '-' or '.'")
    return text


def check_ref(ref: str) -> str:
    """`ref` if it is a safe tag, branch or commit name (segments joined by '/'), else NsmError."""
    if not ref or ".." in ref or "@{" in ref or ref.endswith("/"):
        raise NsmError(f"invalid git ref '{ref}'")
    for seg in ref.split("/"):
        try:
            check_segment(seg, "git ref")
        except NsmError:
            raise NsmError(f"invalid git ref '{ref}'",
                           "a tag, branch or commit uses letters, digits, '.', '_', '-' and '/'")
    return ref


def check_url(url: str) -> str:
    """`url` if it is a plain git URL (http(s), ssh, git, file) or an absolute path, else
    NsmError. `ext::`-style remote helpers, options and shell characters are refused."""
    if url.startswith("/"):
        if "/../" in url + "/" or not re.match(r"[A-Za-z0-9._~/+-]+\Z", url):
            raise NsmError(f"invalid git source path '{url}'")
        return url
    if not _URL.match(url) or "::" in url:
        raise NsmError(f"invalid git URL '{url}'",
                       "use https://, ssh://, git://, file:// or an absolute path")
    return url


@dataclass(frozen=True)
class PackageSpec:
    """A package named on the command line: `user/pkg[@ref]`, or `pkg` alone (`user` empty)."""
    user: str
    pkg: str
    ref: str | None = None

    @property
    def repo(self) -> str:
        return f"{self.user}/{self.pkg}" if self.user else self.pkg


def parse_spec(text: str, need_user: bool = True) -> PackageSpec:
    """Parse `user/pkg[@ref]` (or `pkg[@ref]` when `need_user` is false); NsmError if malformed."""
    name, _, ref = text.partition("@")
    if "@" in text and not ref:
        raise NsmError(f"invalid package '{text}': empty ref after '@'")
    parts = name.split("/")
    if len(parts) == 2:
        user, pkg = parts
        check_segment(user, "user name")
    elif len(parts) == 1 and not need_user:
        user, pkg = "", parts[0]
    else:
        raise NsmError(f"invalid package '{text}'", "write it as user/pkg or user/pkg@ref")
    check_segment(pkg, "package name")
    return PackageSpec(user, pkg, check_ref(ref) if ref else None)

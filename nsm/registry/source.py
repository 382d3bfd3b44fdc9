"""Where `user/pkg` lives: a URL template. NSM_GIT_TEMPLATE, else NSM_GIT_BASE
({base}/{user}/{pkg}.git, a mirror or a local folder of bare repos), else the config file's
[registry] template or git_base, else the public git host."""
from __future__ import annotations

import os
import tomllib

from .. import paths
from ..errors import NsmError
from .names import check_segment, check_url

DEFAULT_TEMPLATE = "https://github.com/{user}/{pkg}.git"


def _base_template(base: str) -> str:
    return base.rstrip("/") + "/{user}/{pkg}.git"


def url_template() -> str:
    """The template `user/pkg` goes through ({user} and {pkg} are replaced)."""
    if os.environ.get("NSM_GIT_TEMPLATE"):
        return os.environ["NSM_GIT_TEMPLATE"]
    if os.environ.get("NSM_GIT_BASE"):
        return _base_template(os.environ["NSM_GIT_BASE"])
    cfg = paths.config_file()
    if cfg.is_file():
        try:
            data = tomllib.loads(cfg.read_text())
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise NsmError(f"{cfg}: {e}")
        reg = data.get("registry", {})
        if isinstance(reg.get("template"), str):
            return reg["template"]
        if isinstance(reg.get("git_base"), str):
            return _base_template(reg["git_base"])
    return DEFAULT_TEMPLATE


def url_for(user: str, pkg: str) -> str:
    """The git URL of `user/pkg` (both validated), or NsmError."""
    check_segment(user, "user name")
    check_segment(pkg, "package name")
    return check_url(url_template().replace("{user}", user).replace("{pkg}", pkg))


def resolve_source(git: str) -> str:
    """A manifest's `git = ...` value (`user/pkg` or a URL or an absolute path) as a URL."""
    if "://" in git or git.startswith("/"):
        return check_url(git)
    parts = git.split("/")
    if len(parts) != 2:
        raise NsmError(f"invalid git source '{git}'", "write user/pkg or a URL")
    return url_for(*parts)

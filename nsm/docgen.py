"""Generated documentation: the nsm command reference from the click app, and a package's API
reference from its Neve docstrings (the contiguous `#` comment lines directly above a definition).

docs/tools/hooks.py puts both into the site while mkdocs builds it, so neither can drift."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import click

# -- the nsm command reference ---------------------------------------------------------------------


def _commands(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
    out = []
    ctx = click.Context(group, info_name=prefix)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        out.append((f"{prefix} {name}", cmd))
        if isinstance(cmd, click.Group):
            out.extend(_commands(cmd, f"{prefix} {name}"))
    return out


def command_paths(cli: click.Group) -> list[str]:
    """Every command the reference documents: `nsm run`, `nsm bench compare`, ..."""
    return [path for path, _ in _commands(cli, "nsm")]


def option_names(cmd: click.Command) -> list[str]:
    """The long (else short) spelling of each option of `cmd`, and each argument's name."""
    names = []
    for p in cmd.params:
        if isinstance(p, click.Option):
            longs = [o for o in p.opts + p.secondary_opts if o.startswith("--")]
            names.append((longs or p.opts)[0])
        else:
            names.append(p.human_readable_name)
    return names


def _usage(cmd: click.Command, path: str) -> str:
    ctx = click.Context(cmd, info_name=path)
    return " ".join([path] + cmd.collect_usage_pieces(ctx))


def _param_rows(cmd: click.Command, path: str) -> list[str]:
    ctx = click.Context(cmd, info_name=path)
    rows = []
    for p in cmd.params:
        if isinstance(p, click.Option):
            rec = p.get_help_record(ctx)
            if rec is None:
                continue
            spelling, help_text = rec
        else:
            spelling, help_text = p.human_readable_name, "(argument: see the usage line)"
        rows.append(f"| `{spelling}` | {_escape(help_text).replace('|', '&#124;')} |")
    return rows


def nsm_reference(cli: click.Group) -> str:
    """Markdown: one section per command, with its usage line, help text and options."""
    parts = []
    for path, cmd in [("nsm", cli)] + _commands(cli, "nsm"):
        parts.append(f"### `{path}`\n")
        parts.append(f"```\n{_usage(cmd, path)}\n```\n")
        if cmd.help:
            parts.append(_escape(click.unstyle(_dedent(cmd.help)).split("\f")[0].strip()) + "\n")
        rows = _param_rows(cmd, path)
        if rows:
            parts.append("| Option | Meaning |\n|---|---|\n" + "\n".join(rows) + "\n")
    return "\n".join(parts)


def _dedent(text: str) -> str:
    import inspect
    return inspect.cleandoc(text).replace("\b\n", "")      # click's no-rewrap marker


# -- Neve docstrings -------------------------------------------------------------------------------

_DEF = re.compile(r"^(?P<indent>\s*)(?P<kind>def|class|kernel|gpu|ctor|type)\b(?P<rest>.*)$")
_NAME_BEFORE_PAREN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[-+*/%@<>=!|]+)\s*(?:<[\w\s,]*>)?\s*\($")


@dataclass
class Definition:
    kind: str            # def, class, kernel, gpu, ctor, type
    name: str
    signature: str       # the header line as written, without a trailing comment
    doc: str             # the docstring's text, '#' marks removed
    line: int
    members: list["Definition"] = field(default_factory=list)


@dataclass
class Module:
    name: str            # import path: frost, frost/nn, ...
    doc: str             # the file's opening comment block
    definitions: list[Definition]


def _name(kind: str, rest: str) -> str | None:
    rest = rest.split("#")[0].strip()
    if kind == "ctor":
        return "ctor"
    if kind == "class":
        m = re.match(r"([A-Za-z_]\w*)", rest)
        return m.group(1) if m else None
    if kind == "type":
        m = re.match(r"([A-Za-z_]\w*)\s*=", rest)
        return m.group(1) if m else None
    head = rest.split("(")[0] if "(" in rest else None
    if head is None:
        return None
    m = _NAME_BEFORE_PAREN.search(rest[:len(head) + 1])
    return m.group(1) if m else None


def _comment_block(lines: list[str], i: int, indent: str) -> str:
    """The `#` lines directly above line i at the definition's indentation."""
    doc = []
    j = i - 1
    while j >= 0:
        s = lines[j]
        if not s.startswith(indent + "#") or (indent == "" and s.startswith((" ", "\t"))):
            break
        doc.append(s[len(indent) + 1:])
        j -= 1
    doc.reverse()
    if doc and set(doc[0].strip()) <= set("-=# ") and doc[0].strip():
        return ""                                   # a section rule, not a docstring
    text = [d[1:] if d.startswith(" ") else d for d in doc]
    return "\n".join(text).strip()


def read_module(path: Path, name: str) -> Module:
    """A module's public definitions (names not starting with `_`) and their docstrings."""
    lines = path.read_text(encoding="utf-8").splitlines()
    head = []
    for s in lines:
        if not s.startswith("#"):
            break
        head.append(s[1:][1:] if s[1:].startswith(" ") else s[1:])
    defs: list[Definition] = []
    cls: Definition | None = None
    cls_indent = ""
    for i, s in enumerate(lines):
        m = _DEF.match(s)
        if m is None:
            if s.strip() and not s.startswith((" ", "\t")):
                cls = None
            continue
        indent, kind = m.group("indent"), m.group("kind")
        if kind == "type" and indent:
            continue
        nm = _name(kind, m.group("rest"))
        if nm is None or nm.startswith("_"):
            if not indent:
                cls = None
            continue
        d = Definition(kind, nm, s.split(" #")[0].strip(), _comment_block(lines, i, indent), i + 1)
        if not indent:
            defs.append(d)
            cls = d if kind == "class" else None
            cls_indent = ""
        elif cls is not None and kind in ("def", "ctor"):
            if not cls_indent:
                cls_indent = indent
            if indent == cls_indent:
                cls.members.append(d)
    doc = "\n".join(head).strip()
    if defs and defs[0].line <= len(head) + 1:
        doc = ""                                    # the opening block is the first definition's
    return Module(name, doc, defs)


def package_modules(pkg: Path, package: str) -> list[Module]:
    """Every module of a bundled package, the entry module (include.nv) first."""
    files = sorted(pkg.glob("*.nv"), key=lambda p: (p.name != "include.nv", p.name))
    return [read_module(f, package if f.name == "include.nv" else f"{package}/{f.stem}")
            for f in files]


def _escape(text: str) -> str:
    """Plain text as Markdown: `<`, `*` and a line's leading `#` outside code spans stay text."""
    pieces = text.split("`")
    for k in range(0, len(pieces), 2):             # the even pieces lie outside code spans
        pieces[k] = pieces[k].replace("<", "&lt;").replace("*", "\\*")
        pieces[k] = re.sub(r"(^|\n)(\s*)#", r"\1\2\\#", pieces[k])
    return "`".join(pieces)


def _doc_md(doc: str) -> str:
    """A docstring as Markdown lines."""
    return _escape(doc).replace("\n", "  \n") if doc else "*(no docstring)*"


def _is_operator(d: Definition) -> bool:
    return d.kind == "def" and not re.match(r"[A-Za-z_]", d.name)


def api_reference(pkg: Path, package: str) -> str:
    """Markdown: a section per module; in it each documented definition (and each class or alias)
    with its header line and docstring, the operator definitions together, and the names of
    the undocumented functions (Neve has no private names; these are mostly helpers)."""
    out = []
    for mod in package_modules(pkg, package):
        if not mod.definitions:
            continue
        out.append(f"## `import {mod.name}`\n")
        if mod.doc:
            out.append(_doc_md(mod.doc) + "\n")
        ops = [d for d in mod.definitions if _is_operator(d)]
        bare = [d for d in mod.definitions
                if not d.doc and d.kind in ("def", "gpu", "kernel") and not _is_operator(d)]
        for d in mod.definitions:
            if d in ops or d in bare:
                continue
            out.append(f"### `{d.name}`\n" if d.kind != "type" else f"### `{d.name}` (alias)\n")
            out.append(f"```neve\n{d.signature}\n```\n")
            if d.doc:
                out.append(_doc_md(d.doc) + "\n")
            for mem in d.members:
                out.append(f"- `{mem.signature}`" + (f": {_doc_md(mem.doc)}" if mem.doc else ""))
            if d.members:
                out.append("")
        if ops:
            out.append("### Operators\n")
            out += [f"- `{d.signature}`" + (f": {_doc_md(d.doc)}" if d.doc else "") for d in ops]
            out.append("")
        if bare:
            out.append("Also defined, without a docstring: " + ", ".join(f"`{d.name}`" for d in bare) + ".\n")
    return "\n".join(out)

#!/usr/bin/env python3
"""Writes demokit's game protocol specs from DDNet's own description of its protocol.

    tools/gamenet-spec/dump.py DDNET_GIT_DIR COMMIT [OUT_DIR]

DDNET_GIT_DIR is any git repository (bare or not) that holds COMMIT of DDNet. The script
reads, at that commit:

- `datasrc/network.py` (with `datasrc/datatypes.py`): the 0.6/DDNet snapshot objects,
  events and game messages;
- `datasrc/seven/network.py` (with `datasrc/seven/datatypes.py`): DDNet's 0.7 ones;
- `src/engine/shared/protocol.h`, `protocol7.h` and `protocol_ex_msgs.h`: the numbers and
  extension names of the engine's system messages (their fields are packed by hand in the
  engine, so demokit's overlay describes those), and `MAX_CLIENTS`;
- `datasrc/content.py` (`datasrc/seven/content.py`): how many weapons and sounds there are.

Besides the entries, each file has the constants their bounds name (`MAX_CLIENTS`,
`NUM_WEAPONS`, the values of the enums and flags, those of datasrc's `RawHeader`), so that
a bound such as `MAX_CLIENTS-1` can be worked out without DDNet.

It imports the two `network.py` files as DDNet's own code generator does, and writes what
they declare as JSON: `six.json` and `seven.json` in OUT_DIR (default:
`src/gamenet/spec` of this repository). Each names the commit it comes from. Nothing of
DDNet is kept beyond that JSON; `build.rs` joins it with the hand-written
`*.overlay.json` next to it into the Rust tables.

Python 3 standard library only; git must be on PATH.
"""

import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
import uuid

# DDNet's namespace for the UUIDs of its extensions (`TEEWORLDS_NAMESPACE` in
# `src/engine/shared/uuid_manager.cpp`): an extension's UUID is the version 3 UUID of its
# name in this namespace.
TEEWORLDS_NAMESPACE = uuid.UUID("e05ddaaa-c4e6-4cfb-b642-5d48e80c0029")

REPOSITORY = "https://github.com/ddnet/ddnet"
HEADERS = {
    "six": ("src/engine/shared/protocol.h", "NETMSG_EX"),
    "seven": ("src/engine/shared/protocol7.h", "NETMSG_NULL"),
}
EX_MSGS = "src/engine/shared/protocol_ex_msgs.h"


def git(git_dir, *args):
    return subprocess.run(
        ["git", "--git-dir", git_dir, *args], check=True, capture_output=True
    ).stdout


def extract(git_dir, commit, paths, into):
    """Writes the files of `paths` (files or folders) at `commit` below `into`."""
    names = git(git_dir, "ls-tree", "-r", "--name-only", commit, "--", *paths)
    for name in names.decode().split():
        target = os.path.join(into, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(git(git_dir, "show", f"{commit}:{name}"))


def number(value):
    """A bound or default as datasrc gives it: an int where it is one, else its text
    (a C++ expression such as `MAX_CLIENTS-1`)."""
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return str(value)


def member(var):
    """One member of an object or message: its datasrc class, name and checks."""
    out = {"type": type(var).__name__}
    inner = getattr(var, "var", None)
    if inner is not None:
        # NetArray (and NetTwIntString, one): `size` members of the inner kind.
        out["name"] = var.base_name
        out["size"] = var.size
        out["inner"] = member(inner)
        del out["inner"]["name"]
    else:
        out["name"] = var.name
    for key in ("min", "max", "mask"):
        if hasattr(var, key):
            out[key] = number(getattr(var, key))
    if getattr(var, "default", None) is not None:
        out["default"] = number(var.default)
    return out


def extension(name):
    return {"ex": name, "uuid": str(uuid.uuid3(TEEWORLDS_NAMESPACE, name))}


def entries(items, kind_of):
    """Objects or messages in datasrc order; the numbered ones get their number as
    DDNet's generator counts them (from 1, the extended ones apart)."""
    out = []
    counter = 0
    for item in items:
        entry = {"name": item.name, "kind": kind_of(item)}
        if item.base is not None:
            entry["base"] = item.base
        ex = getattr(item, "ex", None)
        if ex is None:
            counter += 1
            entry["id"] = counter
        else:
            entry.update(extension(ex))
        if getattr(item, "validate_size", True) is False:
            entry["validate_size"] = False
        entry["members"] = [member(v) for v in item.variables]
        out.append(entry)
    return out


def object_kind(item):
    return "event" if type(item).__name__.startswith("NetEvent") else "object"


def system_messages(root, protocol):
    """The engine's numbered system messages (the `NETMSG_*` enum, unused slots left out)
    and, for 0.6, DDNet's extended ones (`protocol_ex_msgs.h`)."""
    header, first = HEADERS[protocol]
    with open(os.path.join(root, header)) as f:
        text = f.read()
    body = re.search(r"enum\s*\{\s*" + first + r"\s*=\s*0,(.*?)\}", text, re.S).group(1)
    body = re.sub(r"//[^\n]*", "", body)
    out = []
    for n, name in enumerate((n.strip() for n in body.split(",") if n.strip()), 1):
        if name == "NUM_NETMSGS":
            break
        if not re.fullmatch(r"NETMSG_UNUSED\d*", name):
            out.append({"name": name, "id": n})
    if protocol == "six":
        with open(os.path.join(root, EX_MSGS)) as f:
            for name, ex in re.findall(r'^UUID\((\w+), "([^"]+)"\)', f.read(), re.M):
                out.append({"name": name, **extension(ex)})
    return out


def enums(network):
    return [
        {"name": e.name, "start": getattr(e, "start", 0), "values": e.values}
        for e in network.Enums
    ]


def flags(network):
    return [{"name": f.name, "values": f.values} for f in network.Flags]


def c_enums(text):
    """The constants of the C `enum { ... }` blocks in `text` (values and `+1` counting)."""
    out = {}
    for body in re.findall(r"enum\s*\{(.*?)\}", re.sub(r"//[^\n]*", "", text), re.S):
        value = -1
        for item in (i.strip() for i in body.split(",")):
            if not item:
                continue
            name, _, given = (p.strip() for p in item.partition("="))
            value = int(given, 0) if given else value + 1
            out[name] = value
    return out


def constants(root, network, content):
    """What the bounds of the members name, as numbers."""
    out = {}
    with open(os.path.join(root, HEADERS["six"][0])) as f:
        out["MAX_CLIENTS"] = int(re.search(r"\bMAX_CLIENTS = (\d+)", f.read()).group(1))
    out["NUM_WEAPONS"] = len(content.container.weapons.id.items)
    out["NUM_SOUNDS"] = len(content.container.sounds.items)
    out.update(c_enums(network.RawHeader))
    for e in network.Enums:
        for i, value in enumerate(e.values):
            out[f"{e.name}_{value}"] = getattr(e, "start", 0) + i
        out[f"NUM_{e.name}S"] = len(e.values)
    for f in network.Flags:
        for i, value in enumerate(f.values):
            out[f"{f.name}_{value}"] = 1 << i
    return out


def spec(root, commit, protocol):
    datasrc = os.path.join(root, "datasrc")
    sys.path.insert(0, datasrc)
    try:
        package = "" if protocol == "six" else "seven."
        network = importlib.import_module(package + "network")
        content = importlib.import_module(package + "content")
    finally:
        sys.path.remove(datasrc)
    sources = {
        "six": ["datasrc/network.py", "datasrc/datatypes.py", "datasrc/content.py"],
        "seven": ["datasrc/seven/network.py", "datasrc/seven/datatypes.py", "datasrc/seven/content.py"],
    }[protocol]
    sources += [HEADERS["six"][0]]
    sources += [EX_MSGS] if protocol == "six" else [HEADERS["seven"][0]]
    return {
        "about": "Generated by tools/gamenet-spec/dump.py from DDNet's sources; do not edit. "
        "Members are as datasrc declares them (bounds that are C++ expressions as text). "
        "build.rs joins this with the overlay next to it.",
        "source": {"repository": REPOSITORY, "commit": commit, "files": sources},
        "constants": constants(root, network, content),
        "enums": enums(network),
        "flags": flags(network),
        "objects": entries(network.Objects, object_kind),
        "messages": entries(network.Messages, lambda _: "game"),
        "system_messages": system_messages(root, protocol),
    }


def dumps(value, indent=""):
    """JSON with a value on one line where it fits in 100 columns (a list of names and a
    member always do), else one level per line: a member, a constant or an id per line
    keeps the files readable and their diffs short."""
    flat = json.dumps(value, ensure_ascii=False)
    scalars = isinstance(value, list) and not any(isinstance(v, (dict, list)) for v in value)
    scalars |= isinstance(value, dict) and "name" in value and not any(
        isinstance(v, (dict, list)) for v in value.values()
    )
    if len(indent) + len(flat) <= 100 or scalars or not isinstance(value, (dict, list)):
        return flat
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {dumps(v, inner).lstrip()}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    items = [inner + dumps(v, inner) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + indent + "]"


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    git_dir, commit = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[3] if len(sys.argv) == 4 else os.path.normpath(os.path.join(here, "../../src/gamenet/spec"))
    if not os.path.isdir(os.path.join(git_dir, "objects")):
        git_dir = os.path.join(git_dir, ".git")
    commit = git(git_dir, "rev-parse", "--verify", commit + "^{commit}").decode().strip()
    with tempfile.TemporaryDirectory() as root:
        extract(git_dir, commit, ["datasrc"] + [h for h, _ in HEADERS.values()] + [EX_MSGS], root)
        for protocol in ("six", "seven"):
            path = os.path.join(out_dir, f"{protocol}.json")
            with open(path, "w") as f:
                f.write(dumps(spec(root, commit, protocol)) + "\n")
            print(path)


if __name__ == "__main__":
    main()

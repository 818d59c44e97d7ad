"""What the scenario generators share (gen-homelab.py, gen-history.py, gen-history-story.py): the
YAML emitter, Kubernetes objects written the way `kubectl get -o yaml` writes them, deterministic
byte for byte; and `Names`, the generated names, uids and resourceVersions of their metadata."""

import json
import re
import uuid

K8S_ALNUM = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery's rand.String alphabet
LOWER = "bcdfghjklmnpqrstvwxz"  # letters only, for l2-xxxxx names


class Names:
    """Pod suffixes, uids, resourceVersions and metadata for one generator. The random choices
    come from the generator's own `rng`, in the order it asks, so its bytes depend on its seed."""

    def __init__(self, rng, uid_ns, first_rv, created):
        self.rng = rng
        self.uid_ns = uid_ns
        self.rv_now = first_rv
        self.created = created

    def suffix(self, n=5, alphabet=K8S_ALNUM):
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def uid(self, kind, ns, name):
        return str(uuid.uuid5(self.uid_ns, f"{kind}/{ns}/{name}"))

    def rv(self):
        self.rv_now += self.rng.randint(3, 400)
        return str(self.rv_now)

    def meta(self, kind, name, ns=None, created=None, labels=None, annotations=None, **extra):
        m = {"name": name, "uid": self.uid(kind, ns or "", name), "resourceVersion": self.rv(),
             "creationTimestamp": created or self.created}
        if ns:
            m["namespace"] = ns
        if labels is not None:
            m["labels"] = labels
        if annotations:
            m["annotations"] = annotations
        m.update(extra)
        return m
# Minimal block-style emitter shaped like `kubectl get -o yaml`: keys sorted, sequences
# not indented under their key, strings quoted only when a YAML 1.1 or 1.2 reader could
# take them for something else (bool, null, number, timestamp, version-like "0.1.0").

_PLAIN = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./@+=,:()\- ]*")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", ".inf", ".nan"}
_NUMBER = re.compile(r"[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?|0[xXoObB][0-9a-fA-F_]+")
_SEXAGESIMAL = re.compile(r"[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?")
_DATE = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}")


def _needs_quotes(s):
    return (
        s == ""
        or not _PLAIN.fullmatch(s)
        or s.lower() in _RESERVED
        or ": " in s
        or s.endswith((":", " "))
        or bool(_NUMBER.fullmatch(s))
        or bool(_SEXAGESIMAL.fullmatch(s))
        or bool(_DATE.match(s))
        or (bool(re.fullmatch(r"[0-9.]+", s)) and s.count(".") != 3)  # 0.1.0 yes, IPv4 no
    )


def scalar(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if not isinstance(v, str):
        raise TypeError(f"cannot emit {type(v).__name__}")
    if not _needs_quotes(v):
        return v
    if '"' in v or "\\" in v:
        return "'" + v.replace("'", "''") + "'"
    return json.dumps(v)


def _lines(v, indent):
    pad = " " * indent
    out = []
    if isinstance(v, dict):
        for k in sorted(v):
            val = v[k]
            key = scalar(k)
            if isinstance(val, dict) and val:
                out.append(f"{pad}{key}:")
                out.extend(_lines(val, indent + 2))
            elif isinstance(val, list) and val:
                out.append(f"{pad}{key}:")
                out.extend(_lines(val, indent))
            else:
                out.append(f"{pad}{key}: {_inline(val)}")
    elif isinstance(v, list):
        for item in v:
            if isinstance(item, (dict, list)) and item:
                sub = _lines(item, indent + 2)
                sub[0] = pad + "- " + sub[0][indent + 2:]
                out.extend(sub)
            else:
                out.append(f"{pad}- {_inline(item)}")
    else:
        out.append(pad + scalar(v))
    return out


def _inline(v):
    if isinstance(v, dict):
        return "{}"
    if isinstance(v, list):
        return "[]"
    return scalar(v)


def dump_documents(docs, header):
    parts = [header.rstrip("\n") + "\n"]
    for d in docs:
        parts.append("---\n" + "\n".join(_lines(d, 0)) + "\n")
    return "".join(parts)

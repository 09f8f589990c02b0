"""Probe helper (runs INSIDE the target environment; standard library only): what to read first.

Listing a module's members is cheap (``dir`` and ``getattr``); describing them (signatures,
docstrings, examples, the source scan) is where a large library's probe spends its time. So
the probe first lists the members of the modules it imported, in walk order, and only then
describes them, the valuable ones first: a callable whose name the README and guide pages
write, then the rest. Under a budget (budget.py) the rest is what a spent budget cuts.

A callable is listed under the first path met in walk order (the others are its aliases),
whatever order the members are described in, and the candidates come out in walk order: a
probe whose budget is not spent writes the report it wrote before it read in this order.
"""

import inspect
import re

_WORD = re.compile(r"[A-Za-z_]\w*")


def guide_words(guides):
    """Every identifier the guides' code (and shown output) writes."""
    return {word for text in guides for word in _WORD.findall(text)}


class Member:
    """One function or class, under the first path the walk met it at."""

    def __init__(self, obj, name, module, in_all, package, order):
        self.obj, self.name, self.module, self.in_all = obj, name, module, in_all
        self.package, self.order = package, order
        try:  # a wrapper's own name may be the one the guides write
            own = getattr(obj, "__name__", None)
        except Exception:
            own = None
        self.spelled = {name, own} if isinstance(own, str) else {name}
        self.aliases = []  # the other paths it was met at, in walk order
        self.read = False

    @property
    def target(self):
        return f"{self.module.__name__}:{self.name}"


class Listing:
    """The members of the imported modules, each object once, in walk order."""

    def __init__(self):
        self.members = []
        self.by_id = {}

    def add(self, module, package, members):
        """A module's public members: (name, object, in ``__all__``), as public_members
        yields them."""
        for name, obj, in_all in members:
            met = self.by_id.get(id(obj))
            if met is not None:
                met.aliases.append(f"{module.__name__}:{name}")
                continue
            member = Member(obj, name, module, in_all, package, len(self.members))
            self.by_id[id(obj)] = member
            if inspect.ismethod(obj):  # ``besselj = mp.besselj``: the unbound function,
                self.by_id.setdefault(id(obj.__func__), member)  # met later, is an alias
            self.members.append(member)

    def unread(self, words=None):
        """The members not described yet, in walk order; with ``words``, only those whose
        public name (or the callable's own ``__name__``) is one of them."""
        for member in self.members:
            if not member.read and (words is None or not member.spelled.isdisjoint(words)):
                yield member

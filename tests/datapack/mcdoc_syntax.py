"""A recursive-descent parser for the mcdoc schema language (SpyglassMC's format).

It follows the grammar of Spyglass's docs/user/mcdoc/specification.adoc: comments, doc comments
(only where a "prelim" may stand), use/inject/type/struct/enum/dispatch statements, attributes
with tree values, literals and typed numbers, numeric/string ranges (`int @ 1..`), primitive
arrays (`int[] @ 4`), lists (`[T] @ 0..256`), tuples, unions, references with type arguments,
dispatcher types and indices (`minecraft:storage[doom.schedule:data]`, `[[type]]`).
It exists so the pack's tests can check `datapack/mcdoc/*.mcdoc` without Node: errors carry
the 1-based line and column. Semantic checks live in the helpers at the end.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass, field

__all__ = [
    "ArrayType",
    "Attribute",
    "Dispatch",
    "DispatcherType",
    "EnumDef",
    "Field",
    "IndexedType",
    "Inject",
    "ListType",
    "Literal",
    "McdocSyntaxError",
    "Module",
    "Primitive",
    "Range",
    "Reference",
    "Spread",
    "Statement",
    "Struct",
    "TupleType",
    "Type",
    "TypeAlias",
    "Union",
    "Use",
    "definitions",
    "parse_mcdoc",
    "resolve",
    "storages",
    "struct_fields",
    "unresolved_references",
    "walk_nodes",
]

log = logging.getLogger(__name__)

RESERVED = frozenset(
    "any boolean byte double enum false float int long short string struct super true".split()  # noqa: SIM905
)
NUMERIC = ("byte", "short", "int", "long", "float", "double")
ENUM_KINDS = frozenset(("byte", "short", "int", "long", "string", "float", "double"))
_INT = re.compile(r"0|[-+]?[1-9][0-9]*")
_FLOAT = re.compile(r"[-+]?(?:[0-9]*\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?")
_DELIM = re.compile(r"<\.\.<|<\.\.|\.\.<|\.\.")
_RESLOC_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.")
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"'}


class McdocSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column


@dataclass(frozen=True, slots=True)
class Range:
    low: float | None
    high: float | None
    delimiter: str | None  # None: a single value (exactly that)


@dataclass(frozen=True, slots=True)
class Attribute:
    name: str
    text: str  # the attribute's value as written (raw), "" when bare


@dataclass(frozen=True, slots=True)
class Primitive:
    kind: str  # any, boolean, string, byte, short, int, long, float, double
    range: Range | None = None


@dataclass(frozen=True, slots=True)
class ArrayType:
    kind: str  # byte, int, long
    value_range: Range | None
    size: Range | None


@dataclass(frozen=True, slots=True)
class Literal:
    value: str | float | bool
    suffix: str = ""


@dataclass(frozen=True, slots=True)
class ListType:
    element: Type
    size: Range | None


@dataclass(frozen=True, slots=True)
class TupleType:
    elements: tuple[Type, ...]


@dataclass(frozen=True, slots=True)
class Union:
    members: tuple[Type, ...]


@dataclass(frozen=True, slots=True)
class Reference:
    path: tuple[str, ...]
    absolute: bool
    args: tuple[Type, ...] = ()
    line: int = 0


@dataclass(frozen=True, slots=True)
class DispatcherType:
    dispatcher: str
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class IndexedType:
    base: Type
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Field:
    key: str | Type  # a name, or a type for `[string]: V`
    optional: bool
    type: Type
    doc: str
    attributes: tuple[Attribute, ...]


@dataclass(frozen=True, slots=True)
class Spread:
    type: Type


@dataclass(frozen=True, slots=True)
class Struct:
    name: str | None
    fields: tuple[Field | Spread, ...]
    doc: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class EnumDef:
    name: str | None
    kind: str
    members: tuple[tuple[str, str | float], ...]
    doc: str = ""
    line: int = 0


Type = (
    Primitive
    | ArrayType
    | Literal
    | ListType
    | TupleType
    | Union
    | Reference
    | DispatcherType
    | IndexedType
    | Struct
    | EnumDef
)


@dataclass(frozen=True, slots=True)
class TypeAlias:
    name: str
    params: tuple[str, ...]
    type: Type
    doc: str
    line: int


@dataclass(frozen=True, slots=True)
class Use:
    path: tuple[str, ...]
    alias: str


@dataclass(frozen=True, slots=True)
class Dispatch:
    dispatcher: str
    keys: tuple[str, ...]
    type: Type
    doc: str
    line: int


@dataclass(frozen=True, slots=True)
class Inject:
    kind: str
    path: tuple[str, ...]
    body: Struct | EnumDef


Statement = Struct | EnumDef | TypeAlias | Use | Dispatch | Inject


@dataclass(frozen=True, slots=True)
class Module:
    statements: tuple[Statement, ...] = field(default=())


def parse_mcdoc(text: str) -> Module:
    """Parses a whole .mcdoc file; raises McdocSyntaxError (line, column) on the first error."""
    return _Parser(text).module()


def _ident_start(ch: str) -> bool:
    return unicodedata.category(ch) in ("Lu", "Ll", "Lt", "Lm", "Lo", "Nl")


def _ident_continue(ch: str) -> bool:
    return (
        _ident_start(ch)
        or ch in "\u200c\u200d"
        or unicodedata.category(ch)
        in (
            "Mn",
            "Mc",
            "Nd",
            "Pc",
        )
    )


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    # -- positions and errors -------------------------------------------------------------
    def where(self, i: int | None = None) -> tuple[int, int]:
        i = self.i if i is None else i
        line = self.s.count("\n", 0, i) + 1
        return line, i - (self.s.rfind("\n", 0, i) + 1) + 1

    def fail(self, message: str, i: int | None = None) -> McdocSyntaxError:
        if i is None:
            i = self.i
        found = repr(self.s[i]) if i < len(self.s) else "end of file"
        if self.s.startswith("///", i):
            found = "a doc comment (allowed only before a definition or a field)"
        return McdocSyntaxError(f"{message}, found {found}", *self.where(i))

    # -- trivia ---------------------------------------------------------------------------
    def skip(self) -> None:
        """Skips whitespace and `//` comments; stops at `///` (doc comments are not trivia)."""
        s = self.s
        while self.i < len(s):
            ch = s[self.i]
            if ch in " \t\r\n":
                self.i += 1
            elif s.startswith("//", self.i) and not s.startswith("///", self.i):
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end + 1
            else:
                return

    def docs(self) -> str:
        lines = []
        self.skip()
        while self.s.startswith("///", self.i):
            end = self.s.find("\n", self.i)
            end = len(self.s) if end < 0 else end
            lines.append(self.s[self.i + 3 : end])
            self.i = end
            # no plain comment may split a doc block: only whitespace
            while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
                self.i += 1
        self.skip()
        return "\n".join(lines)

    def peek(self, lit: str) -> bool:
        self.skip()
        return self.s.startswith(lit, self.i)

    def accept(self, lit: str) -> bool:
        if self.peek(lit):
            self.i += len(lit)
            return True
        return False

    def expect(self, lit: str) -> None:
        if not self.accept(lit):
            raise self.fail(f"expected {lit!r}")

    def peek_word(self) -> str:
        self.skip()
        j = self.i
        if j < len(self.s) and _ident_start(self.s[j]):
            j += 1
            while j < len(self.s) and _ident_continue(self.s[j]):
                j += 1
        return self.s[self.i : j]

    def keyword(self, word: str) -> bool:
        if self.peek_word() == word:
            self.i += len(word)
            return True
        return False

    def ident(self, what: str = "an identifier") -> str:
        word = self.peek_word()
        if not word:
            raise self.fail(f"expected {what}")
        if word in RESERVED:
            raise self.fail(f"expected {what} ({word!r} is a reserved word)")
        self.i += len(word)
        return word

    # -- tokens ---------------------------------------------------------------------------
    def string(self) -> str:
        self.skip()
        if not self.s.startswith('"', self.i):
            raise self.fail("expected a string")
        out = []
        j = self.i + 1
        while True:
            if j >= len(self.s):
                raise self.fail("unterminated string", self.i)
            ch = self.s[j]
            if ch == '"':
                break
            if ch == "\\":
                esc = self.s[j + 1 : j + 2]
                if esc not in _ESCAPES:
                    raise self.fail("invalid escape in string", j)
                out.append(_ESCAPES[esc])
                j += 2
                continue
            if unicodedata.category(ch) == "Cc":
                raise self.fail("control character in string", j)
            out.append(ch)
            j += 1
        self.i = j + 1
        return "".join(out)

    def resloc_at(self) -> int:
        """End index of a resource location starting here, or -1 (needs one single `:`)."""
        s, j = self.s, self.i
        while j < len(s) and s[j] in _RESLOC_CHARS:
            j += 1
        if j >= len(s) or s[j] != ":" or s.startswith("::", j):
            return -1
        j += 1
        while j < len(s) and (s[j] in _RESLOC_CHARS or s[j] == "/"):
            j += 1
        return j

    def resloc(self) -> str:
        self.skip()
        end = self.resloc_at()
        if end < 0:
            raise self.fail("expected a resource location (namespace:path)")
        text = self.s[self.i : end]
        self.i = end
        return text

    def number(self, pattern: re.Pattern[str], what: str) -> float:
        m = pattern.match(self.s, self.i)
        if not m:
            raise self.fail(f"expected {what}")
        self.i = m.end()
        return float(m.group())

    def range(self, integer: bool) -> Range:
        """A range token (no whitespace inside): `1`, `1..`, `..9`, `1..64`, `0<..<1`."""
        self.skip()
        num, what = (_INT, "an integer") if integer else (_FLOAT, "a number")
        start = self.i
        m = _DELIM.match(self.s, self.i)
        if m:
            self.i = m.end()
            return Range(None, self.number(num, what), m.group())
        low = self.number(num, what)
        m = _DELIM.match(self.s, self.i)
        if not m:
            return Range(low, low, None)
        self.i = m.end()
        high = None
        if _FLOAT.match(self.s, self.i):
            high = self.number(num, what)
        if high is not None and high < low:
            raise self.fail(f"empty range: {low:g} > {high:g}", start)
        return Range(low, high, m.group())

    def opt_range(self, integer: bool) -> Range | None:
        return self.range(integer) if self.accept("@") else None

    def typed_number(self) -> tuple[float, str]:
        self.skip()
        m = _FLOAT.match(self.s, self.i)
        if not m:
            raise self.fail("expected a number")
        text = m.group()
        is_int = _INT.fullmatch(text) is not None
        self.i = m.end()
        suffix = self.s[self.i : self.i + 1]
        if suffix and suffix in ("bBsSlLdDfF" if is_int else "dDfF"):
            self.i += 1
        else:
            suffix = ""
        if self.i < len(self.s) and _ident_continue(self.s[self.i]):
            raise self.fail("invalid number suffix")
        return float(text), suffix.lower()

    # -- attributes and prelims -----------------------------------------------------------
    def attributes(self) -> tuple[Attribute, ...]:
        attrs = []
        while self.accept("#["):
            name = self.ident("an attribute name")
            start = self.i
            if self.accept("="):
                self.attribute_value()
            elif self.peek("(") or self.peek("[") or self.peek("{"):
                self.tree_value()
            self.expect("]")
            attrs.append(Attribute(name, self.s[start : self.i - 1].strip()))
        return tuple(attrs)

    def attribute_value(self) -> None:
        if self.peek("(") or self.peek("[") or self.peek("{"):
            save = self.i
            try:
                self.type()
                return
            except McdocSyntaxError:
                self.i = save
            self.tree_value()
            return
        self.type()

    def tree_value(self) -> None:
        self.skip()
        close = {"(": ")", "[": "]", "{": "}"}[self.s[self.i]]
        self.i += 1
        while not self.accept(close):
            self.tree_item()
            if not self.accept(","):
                self.expect(close)
                return

    def tree_item(self) -> None:
        """`name = value`, `name (tree)`, or a positional value (a type or a tree)."""
        save = self.i
        word = self.peek_word()
        if word or self.peek('"'):
            if word:
                self.i += len(word)
            else:
                self.string()
            if self.accept("="):
                self.attribute_value()
                return
            self.i = save
        try:
            self.attribute_value()
        except McdocSyntaxError:
            if not word:
                raise
            self.i = save
            self.skip()
            self.i += len(word)
            if not (self.peek("(") or self.peek("[") or self.peek("{")):
                raise
            self.tree_value()

    # -- types ----------------------------------------------------------------------------
    def type(self) -> Type:
        self.skip()
        doc = ""
        if self.s.startswith("///", self.i):
            doc = self.docs()
        self.attributes()
        word = self.peek_word()
        if doc and word not in ("struct", "enum"):
            raise self.fail("expected 'struct' or 'enum' after a doc comment")
        base = self.unattributed(doc)
        while True:
            if self.peek("[") and not isinstance(base, Primitive):
                base = IndexedType(base, self.index_body(dynamic=True))
            elif self.peek("<") and not self.peek("<.."):
                args = self.type_args()
                if isinstance(base, Reference) and not base.args:
                    base = Reference(base.path, base.absolute, args, base.line)
                else:
                    raise self.fail("type arguments only follow a type name")
            else:
                return base

    def type_args(self) -> tuple[Type, ...]:
        self.expect("<")
        args: list[Type] = []
        while not self.accept(">"):
            args.append(self.type())
            if not self.accept(","):
                self.expect(">")
                break
        return tuple(args)

    def unattributed(self, doc: str = "") -> Type:
        self.skip()
        word = self.peek_word()
        line = self.where()[0]
        if word in ("any", "boolean"):
            self.i += len(word)
            return Primitive(word)
        if word == "string":
            self.i += len(word)
            return Primitive("string", self.opt_range(integer=True))
        if word in NUMERIC:
            self.i += len(word)
            value_range = self.opt_range(integer=word not in ("float", "double"))
            if word in ("byte", "int", "long") and self.accept("["):
                self.expect("]")
                return ArrayType(word, value_range, self.opt_range(integer=True))
            return Primitive(word, value_range)
        if word in ("true", "false"):
            self.i += len(word)
            return Literal(word == "true")
        if word == "struct":
            return self.struct(doc, line, named=False)
        if word == "enum":
            return self.enum(doc, line, named=False)
        if self.peek('"'):
            return Literal(self.string())
        if self.peek("("):
            return self.union()
        if self.peek("["):
            return self.list_or_tuple()
        if self.i < len(self.s) and (self.s[self.i].isdigit() or self.s[self.i] in "+-."):
            value, suffix = self.typed_number()
            return Literal(value, suffix)
        if self.resloc_at() >= 0:
            name = self.resloc()
            return DispatcherType(name, self.index_body(dynamic=True))
        if word or self.peek("::"):
            absolute, path = self.path()
            return Reference(path, absolute, (), line)
        raise self.fail("expected a type")

    def path(self) -> tuple[bool, tuple[str, ...]]:
        absolute = self.accept("::")
        segs = [self.path_segment()]
        while self.s.startswith("::", self.i):
            self.i += 2
            segs.append(self.path_segment())
        return absolute, tuple(segs)

    def path_segment(self) -> str:
        if self.s.startswith("super", self.i) and self.peek_word() == "super":
            self.i += 5
            return "super"
        if self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            raise self.fail("no whitespace inside a path")
        return self.ident("a path segment")

    def union(self) -> Union:
        self.expect("(")
        members: list[Type] = []
        while not self.accept(")"):
            members.append(self.type())
            if not self.accept("|"):
                self.expect(")")
                break
        return Union(tuple(members))

    def list_or_tuple(self) -> Type:
        self.expect("[")
        first = self.type()
        if self.accept("]"):
            return ListType(first, self.opt_range(integer=True))
        if not self.peek(","):
            raise self.fail("expected ']' or ','")
        elements = [first]
        while self.accept(","):
            if self.peek("]"):
                break
            elements.append(self.type())
        self.expect("]")
        return TupleType(tuple(elements))

    def index_body(self, dynamic: bool) -> tuple[str, ...]:
        self.expect("[")
        keys: list[str] = []
        while True:
            self.skip()
            if self.accept("%"):
                word = self.peek_word()
                if word not in ("fallback", "none", "unknown"):
                    raise self.fail("expected %fallback, %none or %unknown")
                self.i += len(word)
                keys.append("%" + word)
            elif self.peek("["):
                if not dynamic:
                    raise self.fail("a dispatch statement takes static keys only")
                self.i += 1
                keys.append("[" + ".".join(self.accessor()) + "]")
                self.expect("]")
            elif self.peek('"'):
                keys.append(self.string())
            elif self.resloc_at() >= 0:
                keys.append(self.resloc())
            else:
                keys.append(self.ident("an index key"))
            if not self.accept(","):
                self.expect("]")
                return tuple(keys)
            if self.accept("]"):
                return tuple(keys)

    def accessor(self) -> list[str]:
        keys = []
        while True:
            if self.accept("%"):
                word = self.peek_word()
                if word not in ("key", "parent"):
                    raise self.fail("expected %key or %parent")
                self.i += len(word)
                keys.append("%" + word)
            elif self.peek('"'):
                keys.append(self.string())
            else:
                keys.append(self.ident("an accessor key"))
            if not self.accept("."):
                return keys

    # -- definitions ----------------------------------------------------------------------
    def struct(self, doc: str, line: int, named: bool) -> Struct:
        if not self.keyword("struct"):
            raise self.fail("expected 'struct'")
        name = self.ident("a struct name") if named or self.peek_word() else None
        return Struct(name, self.struct_block(), doc, line)

    def struct_block(self) -> tuple[Field | Spread, ...]:
        self.expect("{")
        fields: list[Field | Spread] = []
        while not self.accept("}"):
            doc = self.docs()
            attrs = self.attributes()
            if self.accept("..."):
                if doc:
                    raise self.fail("a spread takes no doc comment")
                fields.append(Spread(self.type()))
            else:
                key: str | Type
                if self.peek('"'):
                    key = self.string()
                elif self.accept("["):
                    key = self.type()
                    self.expect("]")
                else:
                    key = self.ident("a field name")
                optional = self.accept("?")
                self.expect(":")
                fields.append(Field(key, optional, self.type(), doc, attrs))
            if not self.accept(","):
                self.expect("}")
                break
        return tuple(fields)

    def enum(self, doc: str, line: int, named: bool) -> EnumDef:
        if not self.keyword("enum"):
            raise self.fail("expected 'enum'")
        self.expect("(")
        kind = self.peek_word()
        if kind not in ENUM_KINDS:
            raise self.fail("expected an enum type (byte, short, int, long, string, float, double)")
        self.i += len(kind)
        self.expect(")")
        name = self.ident("an enum name") if named or self.peek_word() else None
        return EnumDef(name, kind, self.enum_block(kind), doc, line)

    def enum_block(self, kind: str) -> tuple[tuple[str, str | float], ...]:
        self.expect("{")
        members: list[tuple[str, str | float]] = []
        while not self.accept("}"):
            self.docs()
            self.attributes()
            name = self.ident("an enum field name")
            self.expect("=")
            self.skip()
            start = self.i
            value: str | float
            if self.peek('"'):
                value = self.string()
                if kind != "string":
                    raise self.fail(f"a string value in an enum({kind})", start)
            else:
                value = self.typed_number()[0]
                if kind == "string":
                    raise self.fail("a number in an enum(string)", start)
            members.append((name, value))
            if not self.accept(","):
                self.expect("}")
                break
        return tuple(members)

    def module(self) -> Module:
        statements: list[Statement] = []
        while True:
            doc = self.docs()
            attrs_at = self.i
            self.attributes()
            if self.i >= len(self.s):
                if doc or self.i != attrs_at:
                    raise self.fail("expected a definition after the doc comment or attributes")
                return Module(tuple(statements))
            line = self.where()[0]
            word = self.peek_word()
            if word == "struct":
                statements.append(self.struct(doc, line, named=True))
            elif word == "enum":
                statements.append(self.enum(doc, line, named=True))
            elif word == "type":
                self.i += 4
                name = self.ident("a type alias name")
                params: list[str] = []
                if self.accept("<"):
                    while not self.accept(">"):
                        params.append(self.ident("a type parameter"))
                        if not self.accept(","):
                            self.expect(">")
                            break
                self.expect("=")
                statements.append(TypeAlias(name, tuple(params), self.type(), doc, line))
            elif word == "dispatch":
                self.i += len(word)
                dispatcher = self.resloc()
                keys = self.index_body(dynamic=False)
                if "%fallback" in keys:
                    raise self.fail("%fallback cannot be dispatched to")
                if self.peek("<"):
                    self.type_args()
                if not self.keyword("to"):
                    raise self.fail("expected 'to'")
                statements.append(Dispatch(dispatcher, keys, self.type(), doc, line))
            elif word in ("use", "inject") and not doc and self.i == attrs_at:
                self.i += len(word)
                self.skip()
                if word == "use":
                    _, path = self.path()
                    alias = self.ident("an alias") if self.keyword("as") else path[-1]
                    statements.append(Use(path, alias))
                else:
                    kind = self.peek_word()
                    if kind == "struct":
                        self.i += len(kind)
                        _, path = self.path()
                        body: Struct | EnumDef = Struct(None, self.struct_block())
                    elif self.keyword("enum"):
                        self.expect("(")
                        kind = self.peek_word()
                        if kind not in ENUM_KINDS:
                            raise self.fail("expected an enum type")
                        self.i += len(kind)
                        self.expect(")")
                        self.skip()
                        _, path = self.path()
                        body = EnumDef(None, kind, self.enum_block(kind))
                    else:
                        raise self.fail("expected 'struct' or 'enum' after 'inject'")
                    statements.append(Inject(kind, path, body))
            else:
                raise self.fail("expected struct, enum, type, use, inject or dispatch")


# -- semantics over one file ---------------------------------------------------------------
def walk_nodes(node: object) -> list[object]:
    """Every AST node under (and including) node, depth first."""
    out = [node]
    if isinstance(node, tuple):
        return [x for item in node for x in walk_nodes(item)]
    for name in getattr(node, "__slots__", ()):
        value = getattr(node, name)
        if isinstance(value, (tuple, Field, Spread, Struct, EnumDef)) or hasattr(
            value, "__slots__"
        ):
            out.extend(walk_nodes(value))
    return out


_DEFINITIONS: dict[int, tuple[Module, tuple[dict[str, object], list[str]]]] = {}


def definitions(module: Module) -> tuple[dict[str, object], list[str]]:
    """Named structs/enums (inline ones too), type aliases and `use` names; and duplicates."""
    cached = _DEFINITIONS.get(id(module))
    if cached is None or cached[0] is not module:
        if len(_DEFINITIONS) > 256:
            _DEFINITIONS.clear()
        cached = _DEFINITIONS[id(module)] = (module, _definitions(module))
    return cached[1]


def _definitions(module: Module) -> tuple[dict[str, object], list[str]]:
    names: dict[str, object] = {}
    dupes: list[str] = []
    for node in walk_nodes(module.statements):
        if isinstance(node, (Struct, EnumDef, TypeAlias)) and node.name:
            name = node.name
        elif isinstance(node, Use):
            name = node.alias
        else:
            continue
        if name in names:
            dupes.append(name)
        names[name] = node
    return names, dupes


def unresolved_references(module: Module) -> list[str]:
    """References to a name this file neither defines nor imports (type parameters excepted)."""
    names, _ = definitions(module)
    missing = []
    for statement in module.statements:
        params = statement.params if isinstance(statement, TypeAlias) else ()
        for node in walk_nodes(statement):
            if isinstance(node, Reference) and not node.absolute and len(node.path) == 1:
                name = node.path[0]
                if name not in names and name not in params:
                    missing.append(f"line {node.line}: {name}")
    return missing


def storages(module: Module) -> dict[str, Type]:
    """Command storage id -> its type, from `dispatch minecraft:storage[<id>] to <type>`."""
    out: dict[str, Type] = {}
    for statement in module.statements:
        if isinstance(statement, Dispatch) and statement.dispatcher == "minecraft:storage":
            for key in statement.keys:
                out[key if ":" in key else f"minecraft:{key}"] = statement.type
    return out


def resolve(module: Module, type_: Type) -> Type:
    """Follows local references (aliases without parameters) to the type they name."""
    names, _ = definitions(module)
    seen = 0
    while isinstance(type_, Reference) and len(type_.path) == 1 and seen < 50:
        target = names.get(type_.path[0])
        if isinstance(target, TypeAlias) and not target.params:
            type_ = target.type
        elif isinstance(target, (Struct, EnumDef)):
            type_ = target
        else:
            break
        seen += 1
    return type_


def struct_fields(module: Module, type_: Type) -> tuple[dict[str, Field], list[Field]] | None:
    """A struct's named fields (spreads flattened) and its `[K]: V` fields; None if no struct."""
    type_ = resolve(module, type_)
    if not isinstance(type_, Struct):
        return None
    named: dict[str, Field] = {}
    computed: list[Field] = []
    for item in type_.fields:
        if isinstance(item, Spread):
            inner = struct_fields(module, item.type)
            if inner is not None:
                named.update(inner[0])
                computed.extend(inner[1])
        elif isinstance(item.key, str):
            named[item.key] = item
        else:
            computed.append(item)
    return named, computed

"""datapack/mcdoc/doom.schedule.mcdoc is valid mcdoc and describes every storage the pack uses.

The parser (mcdoc_syntax) is tested on snippets from SpyglassMC's spec and vanilla-mcdoc and on
broken ones. Then every `storage doom.schedule:<name> <path>` in the pack's functions (macro lines
included) must resolve through the mcdoc: the storage is dispatched, each key is a field (or
falls under a `[string]: V` key), each `[..]` lands on a list, and the keys of SNBT filters and of
`set value {..}` compounds are fields. Tasks and events are built in scratch storage (ctx) before
they are copied into a typed storage: the ctx path a copy reads from (or writes to) takes the
type of the other side, so the fields written to `ctx t.new`, `ctx x.cur`, `ctx e`, ... are
checked against Task and Event too.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from tests.datapack.mcdoc_syntax import (
    ArrayType,
    Dispatch,
    EnumDef,
    Field,
    ListType,
    McdocSyntaxError,
    Module,
    Primitive,
    Spread,
    Struct,
    Type,
    TypeAlias,
    Union,
    definitions,
    parse_mcdoc,
    resolve,
    storages,
    struct_fields,
    unresolved_references,
    walk_nodes,
)

__all__: list[str] = []

PACK = Path(__file__).resolve().parents[2] / "datapack"
MCDOC = PACK / "mcdoc" / "doom.schedule.mcdoc"
FUNCTIONS = PACK / "data" / "doom.schedule" / "function"
NS = "doom.schedule"
# Scratch fields of a ctx carrier that never reach the typed storage: field -> the function that
# copies the carrier; every write of the field must be in a function it calls after the copy.
SCRATCH = {"e.x": "core/event/raise"}

STORAGE_REF = re.compile(r"storage (doom\.schedule:[a-z_]+)")
COPY = re.compile(
    r"data modify storage (doom\.schedule:[a-z_]+) (\S+) (set|merge|append|prepend|insert -?\d+|"
    r"insert \$\(\w+\)) from storage (doom\.schedule:[a-z_]+) (\S+)"
)


# -- reading the pack ----------------------------------------------------------------------
@cache
def function_lines() -> tuple[tuple[str, int, str], ...]:
    """(function name, line number, text) of every command line, macro `$` stripped."""
    out = []
    for path in sorted(FUNCTIONS.rglob("*.mcfunction")):
        name = path.relative_to(FUNCTIONS).with_suffix("").as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            line = line.strip()
            if line and not line.startswith("#"):
                out.append((name, number, line.removeprefix("$")))
    return tuple(out)


def read_token(text: str, start: int) -> str:
    """The whitespace-delimited token at start, keeping spaces inside quotes and brackets."""
    depth, quote, i = 0, "", start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch.isspace() and depth <= 0:
            break
        i += 1
    return text[start:i]


def compound_keys(snbt: str) -> list[str]:
    """The top-level keys of an SNBT compound `{k:v,...}` (macros left in place)."""
    keys, depth, quote, start = [], 0, "", 1
    for i, ch in enumerate(snbt):
        if quote:
            if ch == quote and snbt[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
            if depth == 1:
                start = i + 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 1:
            start = i + 1
        elif ch == ":" and depth == 1 and start >= 0:
            keys.append(snbt[start:i].strip().strip("\"'"))
            start = -1
    return [k for k in keys if k]


def closing(text: str, i: int) -> int:
    """Index just past the bracket that closes the one at text[i] (quotes respected)."""
    depth, quote = 0, ""
    for j in range(i, len(text)):
        ch = text[j]
        if quote:
            if ch == quote and text[j - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError(f"unclosed bracket in {text!r}")


def path_segments(path: str) -> list[tuple[str, str]]:
    """An NBT path as (kind, text): ("key", name), ("index", inside []), ("filter", {..})."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(path):
        ch = path[i]
        if ch == ".":
            i += 1
        elif ch in "[{":
            end = closing(path, i)
            out.append(("index", path[i + 1 : end - 1]) if ch == "[" else ("filter", path[i:end]))
            i = end
        elif ch == '"':
            end = i + 1
            while path[end] != '"':
                end += 2 if path[end] == "\\" else 1
            out.append(("key", path[i + 1 : end]))
            i = end + 1
        else:
            m = re.match(r"(?:[A-Za-z0-9_+\-]|\$\(\w+\))+", path[i:])
            if not m:
                raise ValueError(f"cannot read NBT path {path!r} at {i}")
            out.append(("key", m.group()))
            i += m.end()
    return out


def in_quotes(line: str, pos: int) -> bool:
    """Whether line[pos] lies inside a quoted string (a message text, not a command)."""
    quote = ""
    for j in range(pos):
        ch = line[j]
        if quote:
            if ch == quote and line[j - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
    return bool(quote)


# -- walking a path through the mcdoc ------------------------------------------------------
def _members(module: Module, type_: Type) -> list[Type]:
    type_ = resolve(module, type_)
    if isinstance(type_, Union):
        return [m for member in type_.members for m in _members(module, member)]
    return [type_]


def step(module: Module, type_: Type, kind: str, text: str) -> tuple[list[Type], str]:
    """Types reached from type_ by one path segment, or ([], why not)."""
    out: list[Type] = []
    why = ""
    for t in _members(module, type_):
        if isinstance(t, Primitive) and t.kind == "any":
            out.append(t)
            continue
        if kind == "index":
            if isinstance(t, ArrayType):
                out.append(Primitive(t.kind))
            elif isinstance(t, ListType):
                element = t.element
                if text.startswith("{"):
                    ok, why = keys_allowed(module, element, compound_keys(text))
                    if not ok:
                        continue
                out.append(element)
            else:
                why = f"[{text}] on a {type(t).__name__}, not a list"
            continue
        fields = struct_fields(module, t)
        if fields is None:
            why = f"{text!r} under a {type(t).__name__}, not a struct"
            continue
        named, computed = fields
        if kind == "filter":
            ok, why = keys_allowed(module, t, compound_keys(text))
            if ok:
                out.append(t)
        elif text in named:
            out.append(named[text].type)
        elif computed:
            out.extend(f.type for f in computed)
        elif "$(" in text:
            pattern = re.compile(re.sub(r"\\\$\\\(\w+\\\)", ".*", re.escape(text)))
            out.extend(f.type for name, f in named.items() if pattern.fullmatch(name))
            why = why or f"no field matches {text!r}"
        else:
            why = f"no field {text!r} (has {', '.join(sorted(named))})"
    return out, why


def keys_allowed(module: Module, type_: Type, keys: Iterable[str]) -> tuple[bool, str]:
    for key in keys:
        reached, why = step(module, type_, "key", key)
        if not reached:
            return False, why
    return True, ""


def walk(module: Module, type_: Type, path: str) -> tuple[list[Type], str]:
    current = [type_]
    for kind, text in path_segments(path):
        reached: list[Type] = []
        why = ""
        for t in current:
            more, w = step(module, t, kind, text)
            reached.extend(more)
            why = why or w
        if not reached:
            return [], why
        current = reached
    return current, ""


# -- the check -----------------------------------------------------------------------------
@cache
def storage_uses() -> tuple[tuple[str, int, str, str, str], ...]:
    """(function, line, storage, path, rest of line) for every storage reference."""
    out = []
    for name, number, line in function_lines():
        for m in STORAGE_REF.finditer(line):
            if in_quotes(line, m.start()):
                continue
            rest = line[m.end() :].lstrip()
            path = read_token(rest, 0) if line[m.end() : m.end() + 1] == " " else ""
            out.append((name, number, m.group(1), path, rest[len(path) :].strip()))
    return tuple(out)


def carriers(module: Module) -> dict[str, tuple[list[Type], bool]]:
    """ctx paths a copy ties to a typed storage path: the types they carry, and whether they are
    copied out into a typed storage (else they are only read from one)."""
    types = storages(module)
    found: dict[str, tuple[list[Type], bool]] = {}
    for _name, _number, line in function_lines():
        for m in COPY.finditer(line):
            dst, dst_path, mode, src, src_path = m.groups()
            many = mode.split()[0] in ("append", "prepend", "insert")
            if src == f"{NS}:ctx" and dst != src and dst in types:
                reached, _ = walk(module, types[dst], dst_path)
                elements = [e for t in reached for e in step(module, t, "index", "")[0]]
                carried, out = (elements if many else reached), True
                path = src_path
            elif dst == f"{NS}:ctx" and src != dst and src in types:
                reached, _ = walk(module, types[src], src_path)
                carried, out = ([ListType(t, None) for t in reached] if many else reached), False
                path = dst_path
            else:
                continue
            old, was_out = found.get(path, ([], False))
            found[path] = (old + carried, was_out or out)
    return found


@cache
def ctx_writes() -> frozenset[str]:
    """ctx paths the pack writes (data modify / execute store), SNBT filters cut off."""
    writes = set()
    for _name, _number, line in function_lines():
        for m in re.finditer(
            rf"(?:data modify|store (?:result|success)) storage {re.escape(NS)}:ctx (\S+)", line
        ):
            if not in_quotes(line, m.start()):
                writes.add(m.group(1))
    return frozenset(writes)


@cache
def removed_only() -> frozenset[tuple[str, str]]:
    """(storage, path) that the pack only ever deletes: fields of an older version's layout."""
    kinds: dict[tuple[str, str], set[bool]] = {}
    lines = {(f, n): t for f, n, t in function_lines()}
    for function, number, storage, path, _rest in storage_uses():
        if storage == f"{NS}:ctx" or not re.fullmatch(r"[a-z_]+", path):
            continue
        line = lines[function, number]
        removal = f"data remove storage {storage} {path}" in line
        kinds.setdefault((storage, path), set()).add(removal)
    return frozenset(key for key, seen in kinds.items() if seen == {True})


def calls_after(function: str, line_number: int) -> set[str]:
    """Functions called (transitively) by the lines of function after line_number."""
    calls: dict[str, list[tuple[int, str]]] = {}
    for name, number, line in function_lines():
        for m in re.finditer(rf"function {re.escape(NS)}:([a-z0-9_/.$()\-]+)", line):
            calls.setdefault(name, []).append((number, m.group(1)))
    todo = [target for number, target in calls.get(function, []) if number > line_number]
    seen: set[str] = set()
    while todo:
        pattern = re.compile(re.sub(r"\\\$\\\(\w+\\\)", "[^/]*", re.escape(todo.pop())))
        for name in calls.keys() | {name for name, _, _ in function_lines()}:
            if pattern.fullmatch(name) and name not in seen:
                seen.add(name)
                todo.extend(target for _, target in calls.get(name, []))
    return seen


def problems(module: Module) -> list[str]:
    """Everything the pack's functions use that the mcdoc does not describe."""
    types = storages(module)
    carried = carriers(module)
    writes = ctx_writes()
    uses = storage_uses()
    legacy = removed_only()
    out: list[str] = []
    for function, number, storage, path, rest in uses:
        where = f"{function}:{number} {storage} {path}".rstrip()
        if storage not in types:
            out.append(f"{where}: storage not dispatched in the mcdoc")
            continue
        if (storage, path) in legacy:
            continue
        value = re.match(r"(set|merge|append|prepend|insert \S+) value (\{.*)", rest)
        keys = compound_keys(read_token(value.group(2), 0)) if value else []
        many = value is not None and value.group(1).split()[0] in ("append", "prepend", "insert")
        if storage != f"{NS}:ctx":
            checks = [(types[storage], path)]
        else:
            # a ctx path under several carriers (t, t.new, t.new.due) is checked under each;
            # a compound set at a carrier's root is checked against its type alone
            checks = []
            for base in carried:
                if path != base and not re.match(re.escape(base) + r"[.\[{]", path):
                    continue
                if any(path.startswith(f"{base}.{field}") for field in scratch_fields(base)):
                    continue
                sub = path[len(base) :].lstrip(".")
                if sub or not keys:
                    checks.append((carrier_type(module, base, carried[base], writes), sub))
                else:
                    checks.append((Union(tuple(carried[base][0])), sub))
        for root, sub in checks:
            reached, why = walk(module, root, sub)
            if not reached:
                out.append(f"{where}: {why}")
                continue
            if many:
                reached = [e for t in reached for e in step(module, t, "index", "")[0]]
            for key in keys:
                if not any(step(module, t, "key", key)[0] for t in reached):
                    out.append(f"{where}: value key {key!r} is not a field")
    return sorted(set(out))


def carrier_type(
    module: Module, base: str, carried: tuple[list[Type], bool], writes: frozenset[str]
) -> Type:
    """What a ctx carrier holds; one only read from a typed storage may hold the fields the pack
    adds to it itself (scratch) besides those of its type."""
    kinds, copied_out = carried
    if not copied_out:
        added = {
            path_segments(w[len(base) :])[0][1]
            for w in writes
            if re.match(re.escape(base) + r"\.", w)
        }
        extra = tuple(Field(k, True, Primitive("any"), "", ()) for k in sorted(added))
        kinds = [
            Struct(None, (Spread(k), *extra)) if isinstance(resolve(module, k), Struct) else k
            for k in kinds
        ]
    return Union(tuple(kinds))


def scratch_fields(carrier: str) -> list[str]:
    return [k.split(".", 1)[1] for k in SCRATCH if k.split(".", 1)[0] == carrier]


@cache
def pack_module() -> Module:
    return parse_mcdoc(MCDOC.read_text(encoding="utf-8"))


def without(node: Any, struct: str, key: str) -> Any:
    """node with field `key` of the struct named `struct` removed (nested structs included)."""
    if isinstance(node, Struct):
        kept = tuple(
            without(f, struct, key)
            for f in node.fields
            if not (node.name == struct and isinstance(f, Field) and f.key == key)
        )
        return dataclasses.replace(node, fields=kept)
    if isinstance(node, (Field, Dispatch, TypeAlias)):
        return dataclasses.replace(node, type=without(node.type, struct, key))
    if isinstance(node, ListType):
        return dataclasses.replace(node, element=without(node.element, struct, key))
    return node


# -- the parser ----------------------------------------------------------------------------
VALID = {
    # SpyglassMC/vanilla-mcdoc java/data/tag.mcdoc
    "tag": "type Tag<E> = struct {\n\treplace?: boolean,\n\tvalues: [TagEntry<E>],\n}\n\n"
    'type TagEntry<E> = (\n\tE |\n\t#[since="1.16.2"]\n\tstruct ExplicitTagEntry {\n'
    "\t\tid: E,\n\t\trequired?: boolean,\n\t} |\n)\n",
    # java/data/storage.mcdoc
    "storage": "// comment\ndispatch minecraft:storage[%unknown] to struct UnknownStorage {\n"
    "\t[string]: any,\n}\n",
    # java/data/util/mod.mcdoc (excerpt)
    "util": "use super::loot::function::CopyNameSource\n\n"
    'enum(string) RandomIntGeneratorType {\n\tUniform = "uniform",\n\tBinomial = "binomial",\n}\n'
    "type RandomIntGenerator = (\n\tint |\n\tstruct {\n\t\ttype?: RandomIntGeneratorType,\n"
    "\t\t...minecraft:random_int_generator[[type]],\n\t} |\n)\n"
    "dispatch minecraft:random_int_generator[uniform,%none] to struct UniformIntGenerator {\n"
    "\tmin?: int,\n\tmax?: int,\n}\n"
    "dispatch minecraft:number_provider[binomial] to struct B {\n\tn: int @ 0..,\n"
    "\tp: float @ 0..1,\n\tscore: #[command_argument=objective] string,\n}\n",
    # the spec's examples: arrays, tuples, ranges, indices, attribute trees, literals
    "spec": "/// Doc.\n/// Two lines.\nstruct Foo {\n\t/// Field doc.\n\tBar: boolean, // c\n"
    "\ta: byte[] @ 4,\n\tb: long @ 0.. [] @ 3..,\n\tc: [byte,],\n\td: [string, boolean],\n"
    "\te: float @ 0<..<1,\n\tf: (1b | 2s | -3L | 1.2e1f | 4.5d | 7),\n"
    '\tg: ("a" | "b\\"c" | true | false | ()),\n\th: minecraft:entity[[id]][Brain][memories],\n'
    '\ti: minecraft:block[command_block][Command],\n\t"quoted key"?: ::abs::Path,\n'
    '\t#[history{(#[parser=uuid] string, until="1.16"), (int[] @ 4, until="1.17")}]\n'
    '\tj: int[] @ 4,\n\t#[until("1.16", uuid_string_to_compound)] k: string @ ..<64,\n'
    "\t...super::Other,\n\tl: struct { m: [[string]] @ 1, },\n}\n"
    "type Integer = (byte | short | int | long)\ntype NumericRange<T> = (T | [T, T])\n"
    "type NaturalRange = NumericRange<int @ 0..>\nuse ::a::b as c\n"
    "inject struct ::x::Y { z?: int }\ninject enum(int) ::x::E { Z = 3 }\n"
    "enum(byte) Flags { A = 1b, B = 2 }\ndispatch minecraft:block[%unknown] to ()\n",
}

INVALID = [
    # (text, line, column, what the message says)
    ("struct Foo {\n\ta: int,\n\tb int,\n}\n", 3, 4, "expected ':'"),
    ("struct Foo {\n\ta: int\n\tb: int,\n}\n", 3, 2, "expected '}'"),
    ("struct Foo {\n\ta: int @ 5..1,\n}\n", 2, 11, "empty range"),
    ("struct Foo {\n\ta: [I;],\n}\n", 2, 7, "expected ']'"),  # SNBT, not mcdoc: int[]
    ("struct Foo {\n\ta: [int] @ 1.5,\n}\n", 2, 14, "expected '}'"),
    ("struct int {}\n", 1, 8, "reserved word"),
    ('struct Foo {\n\ta: "open,\n}\n', 2, 11, "control character in string"),
    ('struct Foo {\n\ta: "\\q",\n}\n', 2, 6, "invalid escape"),
    ("struct Foo {\n\ta: int,\n\t/// stray\n}\n", 4, 1, "expected a field name"),
    ("struct Foo {\n\ta: /// doc\n\tint,\n}\n", 3, 2, "after a doc comment"),
    ("/// dangling doc\n", 2, 1, "expected a definition"),
    ("dispatch minecraft:storage[[id]] to struct {}\n", 1, 28, "static keys only"),
    ("dispatch storage[x] to struct {}\n", 1, 10, "resource location"),
    ("dispatch minecraft:storage[a:b] struct {}\n", 1, 33, "expected 'to'"),
    ("enum(string) E {\n\tA = 1,\n}\n", 2, 6, "enum(string)"),
    ('enum(int) E {\n\tA = "a",\n}\n', 2, 6, "enum(int)"),
    ("enum(bool) E {}\n", 1, 6, "enum type"),
    ("struct Foo {\n\ta: (int | string,\n}\n", 2, 18, "expected ')'"),
    ("struct Foo {\n\ta: int\\n,\n}\n", 2, 8, "expected '}'"),  # a literal backslash-n
    ("type A = B<>>\n", 1, 13, "expected struct"),
    ("struct Foo { a: 1x }\n", 1, 18, "number suffix"),
    ("use a::b\nstruct {}\n", 2, 8, "struct name"),
]


@pytest.mark.parametrize("name", sorted(VALID))
def test_parser_accepts_spec_and_vanilla_mcdoc_examples(name: str) -> None:
    module = parse_mcdoc(VALID[name])
    assert module.statements


def test_parser_builds_the_tree() -> None:
    module = parse_mcdoc(VALID["util"])
    names, dupes = definitions(module)
    assert {"RandomIntGeneratorType", "UniformIntGenerator", "CopyNameSource"} <= set(names)
    assert dupes == []
    enum = names["RandomIntGeneratorType"]
    assert isinstance(enum, EnumDef) and enum.members == (
        ("Uniform", "uniform"),
        ("Binomial", "binomial"),
    )
    fields = struct_fields(module, names["B"])  # type: ignore[arg-type]
    assert fields is not None
    n = fields[0]["n"].type
    assert isinstance(n, Primitive) and n.kind == "int" and n.range is not None
    assert (n.range.low, n.range.high) == (0, None)


@pytest.mark.parametrize(("text", "line", "column", "message"), INVALID)
def test_parser_rejects_broken_mcdoc_with_line_and_column(
    text: str, line: int, column: int, message: str
) -> None:
    with pytest.raises(McdocSyntaxError) as caught:
        parse_mcdoc(text)
    assert message in str(caught.value)
    assert (caught.value.line, caught.value.column) == (line, column), str(caught.value)


def test_unresolved_and_duplicate_names_are_found() -> None:
    module = parse_mcdoc("struct A { b: B, c: [C], d: struct A {} }\ntype L<T> = [T]\n")
    assert unresolved_references(module) == ["line 1: B", "line 1: C"]
    assert definitions(module)[1] == ["A"]


# -- the pack's mcdoc file -----------------------------------------------------------------
def test_mcdoc_has_real_newlines_and_parses() -> None:
    text = MCDOC.read_text(encoding="utf-8")
    assert "\\n" not in text and "\r" not in text and text.count("\n") > 50
    module = parse_mcdoc(text)
    assert unresolved_references(module) == []
    assert definitions(module)[1] == []


def test_every_storage_the_pack_uses_is_dispatched() -> None:
    used = {storage for _, _, storage, _, _ in storage_uses()}
    assert used == {f"{NS}:{s}" for s in ("in", "out", "data", "events", "const", "ctx")}
    assert used <= set(storages(pack_module()))


def test_every_storage_path_the_pack_uses_is_described() -> None:
    assert problems(pack_module()) == []


def test_tasks_and_events_built_in_ctx_are_checked_against_their_structs() -> None:
    module = pack_module()
    carried = carriers(module)
    names = definitions(module)[0]
    for path, struct in [("t.new", "Task"), ("c.task", "Task"), ("x.cur", "Task"), ("e", "Event")]:
        kinds, copied_out = carried[path]
        assert copied_out, path
        assert {resolve(module, k) for k in kinds} == {names[struct]}, path


def test_scratch_fields_never_reach_the_typed_storage() -> None:
    """Each SCRATCH field is written only by functions its carrier's copy calls afterwards."""
    writes = [(f, w) for f, _, line in function_lines() for w in re.findall(r"ctx (\S+)", line)]
    for scratch, function in SCRATCH.items():
        base = scratch.split(".")[0]
        copy = next(
            n
            for f, n, line in function_lines()
            if f == function and re.search(rf"from storage {NS}:ctx {base}$", line)
        )
        later = calls_after(function, copy)
        writers = {f for f, w in writes if w == scratch or w.startswith(scratch + ".")}
        assert writers and writers <= later, (scratch, writers - later)


@pytest.mark.parametrize("storage", ["in", "out", "data", "events", "const", "ctx"])
def test_a_storage_missing_from_the_mcdoc_is_reported(storage: str) -> None:
    module = pack_module()
    kept = tuple(
        s
        for s in module.statements
        if not (isinstance(s, Dispatch) and s.keys == (f"{NS}:{storage}",))
    )
    found = problems(Module(kept))
    assert found and all(f"{NS}:{storage}" in p for p in found if "not dispatched" in p)


def _named_fields() -> list[tuple[str, str]]:
    try:
        pack_module()
    except McdocSyntaxError:
        return [("(the file does not parse)", "")]  # runs, and fails on the syntax error
    return [
        (node.name, f.key)
        for node in walk_nodes(pack_module())
        if isinstance(node, Struct) and node.name and node.name != "Ctx"
        for f in node.fields
        if isinstance(f, Field) and isinstance(f.key, str)
    ]


@pytest.mark.parametrize(("struct", "key"), _named_fields())
def test_a_field_missing_from_the_mcdoc_is_reported(struct: str, key: str) -> None:
    """Every field the mcdoc declares is one the pack uses: dropping any of them is caught."""
    module = pack_module()
    mutated = Module(tuple(without(s, struct, key) for s in module.statements))
    assert problems(mutated), f"{struct}.{key} removed, nothing reported"


def test_a_syntax_error_in_the_file_reports_its_line() -> None:
    text = MCDOC.read_text(encoding="utf-8")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.strip().startswith("due:"))
    broken = "\n".join(
        t.replace("due:", "due") if i == line else t for i, t in enumerate(text.splitlines(), 1)
    )
    with pytest.raises(McdocSyntaxError) as caught:
        parse_mcdoc(broken)
    assert caught.value.line == line

"""`function` and `return`: the control-flow commands (S/FunctionCommand, S/ReturnCommand).

Both cost no budget themselves. `function` is evaluated for every context first (functions
looked up, macro arguments read and expanded), then the bodies run in context order; a function's
`return` feeds the calling source's store callbacks, a function that falls off its end feeds
nothing.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from mecha.ast import AstCommand, AstNbtCompound, AstResourceLocation
from nbtlib.tag import Compound

from mcsim.context import Source
from mcsim.errors import CommandError
from mcsim.executor import (
    CONTROL,
    Budget,
    Compiled,
    ExecuteChain,
    Executor,
    ReturnSignal,
    context_failed,
)

if TYPE_CHECKING:
    from mcsim.functions import Function

__all__ = ["FirstContext", "FunctionCall", "Return", "lookup_functions", "resource_id"]

log = logging.getLogger(__name__)


def resource_id(node: AstResourceLocation) -> str:
    return f"{node.namespace or 'minecraft'}:{node.path}"


def lookup_functions(executor: Executor, node: AstResourceLocation) -> tuple[str, list[Function]]:
    """(name as written, functions) for `ns:f` or `#ns:tag`; vanilla's unknown-name errors."""
    lib = executor.sim.functions
    name = resource_id(node)
    if node.is_tag:
        ids = None if lib is None else lib.tags.get(name)
        if ids is None:
            raise CommandError(f"Unknown function tag '{name}'")
        assert lib is not None
        return "#" + name, [lib.functions[i] for i in ids if i in lib.functions]
    fn = None if lib is None else lib.functions.get(name)
    if fn is None:
        raise CommandError(f"Unknown function {name}")
    return name, [fn]


def _macro_arguments(executor: Executor, node: AstCommand, source: Source) -> Compound | None:
    ident = node.identifier
    if ident == "function:name":
        return None
    if ident == "function:name:arguments":
        from mcsim.nbt import from_mecha

        arg = node.arguments[1]
        assert isinstance(arg, AstNbtCompound)
        value = from_mecha(arg)
        assert isinstance(value, Compound)
        return value
    from mcsim.commands.data import read_data_object

    kind = ident.split(":")[3]  # function:name:with:<kind>:source[:path]
    root = read_data_object(executor.sim, source, kind, node.arguments[1])
    if not ident.endswith(":path"):
        return root
    from mcsim.nbt import NbtPath

    path = NbtPath.from_mecha(node.arguments[2])
    values = path.get(root)
    if len(values) > 1:
        raise CommandError("This argument accepts a single NBT value")
    value = values[0]
    if not isinstance(value, Compound):
        raise CommandError(f"Invalid argument type: {_type_name(value)}. Expected Compound")
    return value


def _type_name(tag: Any) -> str:
    # NbtType.getCrashReportName(): "INT", "STRING", "LIST", ... (inferred spelling)
    name = type(tag).__name__
    return {"NbtList": "LIST"}.get(name, name.upper())


class FunctionCall(Compiled):
    __slots__ = ("executor", "node")

    def __init__(self, executor: Executor, node: AstCommand) -> None:
        super().__init__("function")
        self.executor = executor
        self.node = node

    def run(self, sources: list[Source], budget: Budget, forked: bool) -> None:
        ex = self.executor
        loc = self.node.arguments[0]
        assert isinstance(loc, AstResourceLocation)
        planned: list[tuple[Source, list[tuple[Function, list[Any]]]]] = []
        for src in sources:
            try:
                name, functions = lookup_functions(ex, loc)
                if not functions:
                    raise CommandError(f"Can't find any functions for name {name[1:]}")
                args = _macro_arguments(ex, self.node, src)
                _feedback(src, functions)
                bodies: list[tuple[Function, list[Any]]] = []
                for fn in functions:
                    try:
                        bodies.append((fn, fn.instantiate(args, ex.compile_function_line)))
                    except CommandError as e:
                        raise CommandError(
                            f"Failed to instantiate function {fn.id}: {e.message}"
                        ) from e
            except CommandError as e:
                context_failed(src, e, forked)
                continue
            planned.append((src, bodies))
        for src, bodies in planned:
            self._run_bodies(src, bodies, budget)

    def _run_bodies(
        self, src: Source, bodies: list[tuple[Function, list[Any]]], budget: Budget
    ) -> None:
        ex = self.executor
        budget.ran_function = True
        if len(bodies) == 1 or not src.callbacks:
            for fn, lines in bodies:
                returned = ex.call_function(fn, lines, src, budget)
                if returned is None:
                    continue
                _report_return(src, fn.id, returned[1])
                for cb in src.callbacks:
                    cb(*returned)
            return
        # Several functions and a collecting caller: the sum of those that returned.
        total, any_returned = 0, False
        for fn, lines in bodies:
            returned = ex.call_function(fn, lines, src, budget)
            if returned is None:
                continue
            _report_return(src, fn.id, returned[1])
            any_returned = True
            total += returned[1]
        if any_returned:
            for cb in src.callbacks:
                cb(True, total)


def _feedback(src: Source, functions: list[Function]) -> None:
    if src.silent or src.sink is None:
        return
    if len(functions) == 1:
        src.sink.broadcast(f"Running function {functions[0].id}")
    else:
        src.sink.broadcast(f"Running functions {', '.join(f.id for f in functions)}")


class FirstContext(Compiled):
    """The command at the end of a `return run` chain runs in the first context that reaches it
    (SingleCommandAction with insideReturnRun: `list = List.of(list.get(0))`). A `function`
    there runs for the first context too: its return, or the fallthrough that fails the caller
    when it has none, discards the rest of the frame (FunctionCommand.enqueueInReturnRun)."""

    __slots__ = ("inner",)

    def __init__(self, inner: Compiled) -> None:
        super().__init__(inner.text)
        self.inner = inner

    def run(self, sources: list[Source], budget: Budget, forked: bool) -> None:
        if sources:
            self.inner.run(sources[:1], budget, forked)


def _first_context_only(compiled: Compiled) -> Compiled:
    """The chain with its terminal command limited to the first context; the `execute` stages
    before it still run for every context (ReturnRunRedirector forwards the whole list)."""
    if isinstance(compiled, ExecuteChain):
        terminal = compiled.terminal
        return ExecuteChain(
            compiled.executor,
            compiled.stages,
            None if terminal is None else _first_context_only(terminal),
        )
    return FirstContext(compiled)


class Return(Compiled):
    """`return <value>`, `return fail`, `return run <command>` (S/ReturnCommand.java)."""

    __slots__ = ("executor", "inner", "node")

    def __init__(self, executor: Executor, node: AstCommand) -> None:
        super().__init__("return")
        self.executor = executor
        self.node = node
        ident = node.identifier
        self.inner: Compiled | None = None
        if ident == "return:run:subcommand":
            inner = node.arguments[0]
            assert isinstance(inner, AstCommand)
            self.inner = _first_context_only(executor.compile_node(inner))

    def run(self, sources: list[Source], budget: Budget, forked: bool) -> None:
        if not sources:
            return
        ident = self.node.identifier
        if ident == "return:fail":
            # FailCommand, for every context: the source's own consumer (a store) hears it too.
            for src in sources:
                for cb in src.callbacks:
                    cb(False, 0)
            raise ReturnSignal(False, 0)
        if ident == "return:value":
            value = int(self.node.arguments[0].value)  # type: ignore[attr-defined]
            for src in sources:
                for cb in src.callbacks:
                    cb(True, value)
            raise ReturnSignal(True, value)
        assert self.inner is not None
        captured: list[tuple[bool, int]] = []

        def capture(success: bool, result: int) -> None:
            if not captured:
                captured.append((success, result))

        # Every context goes on (with its own consumers chained to the function's), and the
        # rest of this function is discarded whatever happens next.
        chained = [src.with_(callbacks=(*src.callbacks, capture)) for src in sources]
        try:
            self.inner.run(chained, budget, forked)
        except CommandError:
            if not captured:
                # A stage of the inner chain failed before any command ran: nothing is
                # enqueued after the frame was discarded, so the function ends with no value.
                raise ReturnSignal(False, 0, discarded=True) from None
        if captured:
            raise ReturnSignal(*captured[0])
        # No context reached the command (FallthroughCommandAction): the function fails.
        raise ReturnSignal(False, 0)


CONTROL["function"] = FunctionCall
CONTROL["return"] = Return


def _report_return(src: Source, function_id: object, value: int) -> None:
    """Vanilla's "Function %s returned %s" feedback, to a source that hears feedback."""
    if not src.silent and src.sink is not None:
        src.sink.broadcast(f"Function {function_id} returned {value}")

"""Two ways to spend less on the ORM's per-call work on the hottest statements.

Both keep Django as the author of what is written and read: the SQL, the column
list, the values and the model instances all come from Django's own compiler and
field API, never from strings kept by hand beside the models.

- ``CompiledQuery``: a queryset that Django compiles once per process, thread,
  database and shape, then executes with new parameter values. Building and
  compiling a page's queryset took more of the worker's CPU than PostgreSQL
  took to run it, and more than the rest of the request.
- ``insert_statement`` and ``update_row_statement``: one row's INSERT as
  ``Model.save(force_insert=True)`` writes it, and one row's UPDATE as
  ``QuerySet.update`` writes it, to be combined with other writes into one statement (a
  data-modifying ``WITH`` on PostgreSQL) instead of one round trip each.
"""

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import signals
from django.db.models.query import ModelIterable, ValuesIterable, get_related_populators
from django.db.transaction import TransactionManagementError


def _stand_in(value, n: int):
    """A value of ``value``'s type that no request sends, distinct for each ``n``: compiling with one
    in place of every value shows where each value lands among the parameters."""
    if isinstance(value, bool):
        raise TypeError("a flag has no stand-in distinct from another's: make it part of the shape")
    if isinstance(value, int):
        return 2**62 + n
    if isinstance(value, str):
        return f"\x00compiled-query-value-{n}\x00"  # NUL never passes the input guard
    if isinstance(value, datetime):
        return datetime(1, 1, 2, 0, 0, 0, n, tzinfo=value.tzinfo)
    if isinstance(value, date):
        return date(1, 1, 2) + timedelta(days=n)
    raise TypeError(f"cannot compile a parameter of type {type(value).__name__}: make it part of the shape")


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b  # True == 1, but a boolean never stands for an integer


@dataclass(frozen=True)
class _Compiled:
    compiler: object
    sql: str
    params: tuple
    places: dict  # value name -> indexes in params
    converters: dict
    composite_fields: list | None  # the selected fields, when some are composite
    values_names: list | None  # a values() queryset's keys; None for model instances
    init_list: list
    start: int
    end: int
    populators: list
    annotations: dict
    locks: bool


# Stands for a shape whose values this database prepares before sending them (SQLite's
# dates are strings): its querysets run through the ORM as usual.
_NOT_COMPILED = object()


class CompiledQuery:
    """``build(*shape, **values)`` returns a queryset; ``rows(*shape, **values)`` returns its rows.

    The rows are what iterating the queryset gives (model instances with their
    ``select_related`` objects and annotations, ``only`` respected; or dicts for
    ``values()``), but Django builds and compiles the SQL once per process, thread,
    database and ``shape`` (hashable arguments that may change the SQL text: a
    filter present or not, a LIMIT), then each call sends it with its own
    ``values`` (keyword arguments that must reach the SQL as parameters, each
    unchanged: ids, strings, dates; a flag belongs in the shape). Where each value
    lands is found by compiling once more with a stand-in for every value; a value
    that changes the SQL text is refused (it belongs in the shape). A value the database prepares first (a
    pattern built from it, SQLite's dates) makes that shape run through the ORM
    every time, as Django would.
    """

    # Shapes kept per thread, least recently used dropped first: a shape can follow from a
    # request (a page size, a number of search words), so what is kept must stay bounded.
    MAX_SHAPES = 128

    def __init__(self, build, *, max_shapes: int = MAX_SHAPES):
        self._build = build
        self._max_shapes = max_shapes
        self._local = threading.local()

    def rows(self, *shape, using: str = DEFAULT_DB_ALIAS, **values) -> list:
        compiled = self._compiled(using, shape, values)
        if compiled is _NOT_COMPILED:
            return list(self._build(*shape, **values).using(using))
        connection = connections[using]
        if compiled.locks and connection.features.has_select_for_update and connection.get_autocommit():
            # Django checks this while compiling; a reused compilation must too.
            raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
        params = list(compiled.params)
        for name, places in compiled.places.items():
            for index in places:
                params[index] = values[name]
        # PostgreSQL's backend prepares a statement sent often (apps/core/postgresql); others have no such cursor.
        cursor_of = getattr(connection, "prepared_cursor", connection.cursor)
        with cursor_of() as cursor:
            cursor.execute(compiled.sql, params)
            fetched = cursor.fetchall()
        if compiled.compiler.has_extra_select:  # ordering columns the SELECT adds, as execute_sql drops them
            fetched = [row[: compiled.compiler.col_count] for row in fetched]
        # The compiler's converters (JSON, and dates on SQLite), as its results_iter() applies them,
        # looked up once: finding them took a tenth of a page's own time.
        compiler, converted = compiled.compiler, fetched
        if compiled.converters:
            converted = compiler.apply_converters(converted, compiled.converters)
        if compiled.composite_fields is not None:
            converted = compiler.composite_fields_to_tuples(converted, compiled.composite_fields)
        if compiled.values_names is not None:
            return [dict(zip(compiled.values_names, row, strict=False)) for row in converted]
        return [self._instance(compiled, using, row) for row in converted]

    def first(self, *shape, using: str = DEFAULT_DB_ALIAS, **values):
        """The first row (the queryset should already be sliced to one), or None."""
        found = self.rows(*shape, using=using, **values)
        return found[0] if found else None

    @staticmethod
    def _instance(compiled: _Compiled, using: str, row):
        # As Django's ModelIterable builds each row's instance.
        obj = compiled.compiler.query.model.from_db(using, compiled.init_list, row[compiled.start : compiled.end])
        for populator in compiled.populators:
            populator.populate(row, obj)
        for name, position in compiled.annotations.items():
            setattr(obj, name, row[position])
        return obj

    def _compiled(self, using: str, shape: tuple, values: dict):
        cache = self._local.__dict__.setdefault("compiled", OrderedDict())
        key = (using, shape, tuple(sorted(values)))
        compiled = cache.get(key)
        if compiled is None:
            compiled = cache[key] = self._compile(using, shape, values)
            if len(cache) > self._max_shapes:
                cache.popitem(last=False)
        else:
            cache.move_to_end(key)
        return compiled

    def _sql(self, using: str, shape: tuple, values: dict):
        queryset = self._build(*shape, **values)
        if queryset._prefetch_related_lookups or queryset._known_related_objects:
            raise TypeError("a compiled query reads one statement: no prefetch_related, no related managers")
        if queryset._iterable_class not in (ModelIterable, ValuesIterable):
            raise TypeError("a compiled query gives model instances or values() dicts")
        compiler = queryset.query.get_compiler(using=using)
        text, params = compiler.as_sql()
        return queryset, compiler, text, tuple(params)

    def _compile(self, using: str, shape: tuple, values: dict):
        queryset, compiler, text, params = self._sql(using, shape, values)
        # One more compilation, with a stand-in for every value, whatever their number: compiling
        # once per value made a new shape of a many-word search cost seconds.
        stand_ins = {name: _stand_in(value, n) for n, (name, value) in enumerate(values.items())}
        _, _, other_text, other_params = self._sql(using, shape, stand_ins)
        if other_text != text or len(other_params) != len(params):
            names = ", ".join(values)
            raise ValueError(f"one of {names} changes the SQL, not only its parameters: make it part of the shape")
        places, prepared = {name: [] for name in values}, False
        for index, (sent, stood) in enumerate(zip(params, other_params, strict=True)):
            if _same(sent, stood):
                continue
            name = next((name for name, stand_in in stand_ins.items() if _same(stood, stand_in)), None)
            if name is None or not _same(sent, values[name]):
                prepared = True  # the database gets something made from the value, not the value
                break
            places[name].append(index)
        if prepared:
            return _NOT_COMPILED
        query = queryset.query
        fields = [column[0] for column in compiler.select[0 : compiler.col_count]]
        converted = {
            "converters": compiler.get_converters(fields),
            "composite_fields": fields if compiler.has_composite_fields(fields) else None,
        }
        if queryset._iterable_class is ValuesIterable:
            # As Django's ValuesIterable names a row's columns.
            names = list(query.selected or [*query.extra_select, *query.values_select, *query.annotation_select])
            return _Compiled(
                compiler,
                text,
                params,
                places,
                **converted,
                values_names=names,
                init_list=[],
                start=0,
                end=0,
                populators=[],
                annotations={},
                locks=bool(query.select_for_update),
            )
        # As Django's ModelIterable reads a compiled query's columns.
        select_fields = compiler.klass_info["select_fields"]
        start, end = select_fields[0], select_fields[-1] + 1
        return _Compiled(
            compiler=compiler,
            sql=text,
            params=params,
            places=places,
            **converted,
            values_names=None,
            init_list=[column[0].target.attname for column in compiler.select[start:end]],
            start=start,
            end=end,
            populators=get_related_populators(compiler.klass_info, compiler.select, using),
            annotations=dict(compiler.annotation_col_map or {}),
            locks=bool(query.select_for_update),
        )


@dataclass(frozen=True)
class Statement:
    sql: str
    params: list
    # A write that must change a row (its SQL ends in RETURNING): ``write_together`` raises
    # ``NothingWritten`` when it changed none, and the caller's transaction rolls back.
    required: bool = False


class NothingWritten(Exception):
    """A statement ``required`` to change a row changed none (a condition it carried no longer held)."""


def insert_statement(
    obj, connection, *, computed: dict[str, str] | None = None, for_each_row_of: str | None = None
) -> Statement:
    """``obj``'s INSERT as ``save(force_insert=True)`` writes it: the same columns, each
    field's ``pre_save`` (defaults, ``auto_now``, DOT's token checksum) and database
    preparation. ``computed`` gives SQL expressions for columns whose value another part
    of the same statement produces (``{"access_token_id": "(SELECT id FROM access)"}``).
    ``for_each_row_of`` names a part of the same statement (a ``WITH`` query that returns
    at most one row): the row is inserted only if that part returned one
    (``INSERT ... SELECT ... FROM part``; PostgreSQL types each value by its column, as in
    ``VALUES``).

    Sends ``pre_save`` now; the caller sends ``post_save`` (``inserted``) once the
    statement has run, and only if the row was written (with ``for_each_row_of`` it may
    not be). The primary key is not written when it is an unset auto field.
    """
    computed = computed or {}
    meta = obj._meta
    if meta.parents:
        raise ValueError("a model with a parent table is saved to several tables; use save()")
    unknown = set(computed) - {field.column for field in meta.local_concrete_fields}
    if unknown:
        raise ValueError(f"no such column on {meta.db_table}: {sorted(unknown)}")
    quote = connection.ops.quote_name
    signals.pre_save.send(sender=type(obj), instance=obj, raw=False, using=connection.alias, update_fields=None)
    columns, values, params = [], [], []
    for field in meta.local_concrete_fields:
        if field.generated or (field is meta.auto_field and obj.pk is None):
            continue
        columns.append(quote(field.column))
        if field.column in computed:
            values.append(computed[field.column])
            continue
        value = field.pre_save(obj, True)
        if hasattr(value, "resolve_expression"):
            raise ValueError(f"{meta.db_table}.{field.column} holds an expression (db_default?); use save()")
        values.append("%s")
        params.append(field.get_db_prep_save(value, connection))
    # Identifiers come from the model's _meta, quoted; every value is a parameter.
    text = f"INSERT INTO {quote(meta.db_table)} ({', '.join(columns)}) "
    if for_each_row_of is None:
        text += f"VALUES ({', '.join(values)})"
    else:
        text += f"SELECT {', '.join(values)} FROM {quote(for_each_row_of)}"  # noqa: S608
    return Statement(text, params)


def update_row_statement(model, pk, connection, *, unless_set: str | None = None, **values) -> Statement:
    """The UPDATE of ``model.objects.filter(pk=pk).update(**values)`` for plain values, without
    building a queryset: each value prepared by its field, as ``update()`` prepares it.

    ``unless_set`` names a field the row must still hold NULL in: only then is it updated,
    and the statement returns its primary key (no row when it was already set), so that a
    ``WITH`` part can be made conditional on it (``insert_statement(for_each_row_of=...)``).
    """
    meta = model._meta
    quote = connection.ops.quote_name
    assignments, params = [], []
    for name, value in values.items():
        field = meta.get_field(name)
        if not field.concrete or field.many_to_many or hasattr(value, "resolve_expression"):
            raise ValueError(f"{name}: only plain values of concrete fields")
        assignments.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_save(value, connection))
    params.append(meta.pk.get_db_prep_value(pk, connection))
    # Identifiers come from the model's _meta, quoted; every value is a parameter.
    text = f"UPDATE {quote(meta.db_table)} SET {', '.join(assignments)} WHERE {quote(meta.pk.column)} = %s"  # noqa: S608
    if unless_set is not None:
        text += f" AND {quote(meta.get_field(unless_set).column)} IS NULL RETURNING {quote(meta.pk.column)}"
    return Statement(text, params)


def inserted(obj, connection, **fields) -> None:
    """What ``save()`` leaves on an instance after its INSERT: its state, returned fields, ``post_save``."""
    for name, value in fields.items():
        setattr(obj, name, value)
    obj._state.adding = False
    obj._state.db = connection.alias
    signals.post_save.send(
        sender=type(obj), instance=obj, created=True, update_fields=None, raw=False, using=connection.alias
    )


def write_together(statements: list[Statement], *, using: str = DEFAULT_DB_ALIAS) -> None:
    """Run several writes as one statement where the database can (a data-modifying ``WITH`` on
    PostgreSQL: one round trip, one snapshot), else one after another in the caller's transaction.

    The parts never touch one row twice (PostgreSQL leaves the outcome of that undefined) and
    none reads what another writes; callers send ``inserted`` for each INSERT afterwards. A part
    ``required`` to change a row that changed none raises ``NothingWritten``.
    """
    connection = connections[using]
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql" or len(statements) == 1:
            for statement in statements:
                cursor.execute(statement.sql, statement.params)
                if statement.required and not cursor.fetchall():
                    raise NothingWritten(statement.sql)
            return
        parts = ", ".join(f"w{n} AS ({statement.sql})" for n, statement in enumerate(statements))
        # How many rows each required part changed; the parts' names are this function's own.
        counts = [f"(SELECT count(*) FROM w{n})" for n, statement in enumerate(statements) if statement.required]  # noqa: S608
        cursor.execute(
            f"WITH {parts} SELECT {', '.join(counts) or '1'}", [p for statement in statements for p in statement.params]
        )
        if counts and not all(cursor.fetchone()):
            raise NothingWritten(next(statement.sql for statement in statements if statement.required))

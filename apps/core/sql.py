"""Two ways to spend less on the ORM's per-call work on the hottest statements.

Both keep Django as the author of what is written and read: the SQL, the column
list, the values and the model instances all come from Django's own compiler and
field API, never from strings kept by hand beside the models.

- ``CompiledQuery``: a queryset that Django compiles once per process, thread
  and database, then executes with a new parameter value. Compiling the locked,
  joined read of a refresh token took more CPU than PostgreSQL took to run it.
- ``insert_statement`` and ``update_row_statement``: one row's INSERT as
  ``Model.save(force_insert=True)`` writes it, and one row's UPDATE as
  ``QuerySet.update`` writes it, to be combined with other writes into one statement (a
  data-modifying ``WITH`` on PostgreSQL) instead of one round trip each.
"""

import threading
from dataclasses import dataclass

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import signals
from django.db.models.query import get_related_populators
from django.db.transaction import TransactionManagementError

# Stands for the parameter while the queryset is compiled; never sent to a database.
_PLACEHOLDER = "\x00compiled-query-parameter\x00"


@dataclass(frozen=True)
class _Compiled:
    compiler: object
    sql: str
    params: tuple
    index: int  # of the placeholder in params
    init_list: list
    start: int
    end: int
    populators: list
    locks: bool


class CompiledQuery:
    """``build(value)`` returns a queryset of at most one row for ``value``, the same every time.

    ``first(value)`` returns what ``build(value).first()`` would (the row, its
    ``select_related`` objects attached, ``only`` respected), compiling the SQL
    only on the first call in each thread for each database. ``value`` must
    reach the SQL unchanged as one parameter (a string compared with ``=``).
    """

    def __init__(self, build):
        self._build = build
        self._local = threading.local()

    def first(self, value, *, using: str = DEFAULT_DB_ALIAS):
        compiled = self._compiled(using)
        connection = connections[using]
        if compiled.locks and connection.features.has_select_for_update and connection.get_autocommit():
            # Django checks this while compiling; a reused compilation must too.
            raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
        params = list(compiled.params)
        params[compiled.index] = value
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        # The compiler's converters (JSON, and dates on SQLite), as when Django runs the query.
        row = next(iter(compiled.compiler.results_iter([[row]])))
        obj = compiled.compiler.query.model.from_db(using, compiled.init_list, row[compiled.start : compiled.end])
        for populator in compiled.populators:
            populator.populate(row, obj)
        return obj

    def _compiled(self, using: str) -> _Compiled:
        cache = self._local.__dict__.setdefault("by_alias", {})
        compiled = cache.get(using)
        if compiled is None:
            queryset = self._build(_PLACEHOLDER)
            compiler = queryset.query.get_compiler(using=using)
            text, params = compiler.as_sql()
            if list(params).count(_PLACEHOLDER) != 1:
                raise ValueError("the value must reach the SQL unchanged, as exactly one parameter")
            # As Django's ModelIterable reads a compiled query's columns.
            select_fields = compiler.klass_info["select_fields"]
            start, end = select_fields[0], select_fields[-1] + 1
            compiled = cache[using] = _Compiled(
                compiler=compiler,
                sql=text,
                params=tuple(params),
                index=list(params).index(_PLACEHOLDER),
                init_list=[column[0].target.attname for column in compiler.select[start:end]],
                start=start,
                end=end,
                populators=get_related_populators(compiler.klass_info, compiler.select, using),
                locks=queryset.query.select_for_update,
            )
        return compiled


@dataclass(frozen=True)
class Statement:
    sql: str
    params: list


def insert_statement(obj, connection, *, computed: dict[str, str] | None = None) -> Statement:
    """``obj``'s INSERT as ``save(force_insert=True)`` writes it: the same columns, each
    field's ``pre_save`` (defaults, ``auto_now``, DOT's token checksum) and database
    preparation. ``computed`` gives SQL expressions for columns whose value another part
    of the same statement produces (``{"access_token_id": "(SELECT id FROM access)"}``).

    Sends ``pre_save`` now; the caller sends ``post_save`` (``inserted``) once the
    statement has run. The primary key is not written when it is an unset auto field.
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
    text = f"INSERT INTO {quote(meta.db_table)} ({', '.join(columns)}) VALUES ({', '.join(values)})"  # noqa: S608
    return Statement(text, params)


def update_row_statement(model, pk, connection, **values) -> Statement:
    """The UPDATE of ``model.objects.filter(pk=pk).update(**values)`` for plain values, without
    building a queryset: each value prepared by its field, as ``update()`` prepares it."""
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

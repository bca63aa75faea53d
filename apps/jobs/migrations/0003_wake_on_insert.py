"""On PostgreSQL, every ready row inserted notifies its lane's channel (apps/jobs/wakeup.py).

A trigger, so every way a row is written (``enqueue``, ``enqueue_statement`` inside another
statement, a bulk insert) notifies in the same statement, with no round trip of its own. The
notification is delivered when the transaction commits, never for one rolled back, and
PostgreSQL sends one per channel however many rows a transaction wrote. SQLite: nothing.

A committing transaction that notified takes PostgreSQL's one notification lock through its
commit, so such commits pass one at a time; where no worker listens (behind a transaction
pooler) an operator turns the notifications off with ``ALTER DATABASE ... SET jobs.notify =
'off'`` (docs/operations.md). The trigger is created under a short lock timeout, so a
deploy never queues every enqueue behind a long transaction on the table.
"""

from django.db import migrations

CREATE = """
SET LOCAL lock_timeout = '5s';
CREATE OR REPLACE FUNCTION jobs_job_notify_lane() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('jobs.notify', true) IS DISTINCT FROM 'off' THEN
        PERFORM pg_notify('jobs_' || NEW.lane, '');
    END IF;
    RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER jobs_job_notify_lane AFTER INSERT ON jobs_job
    FOR EACH ROW WHEN (NEW.status = 'ready') EXECUTE FUNCTION jobs_job_notify_lane();
"""

DROP = """
DROP TRIGGER IF EXISTS jobs_job_notify_lane ON jobs_job;
DROP FUNCTION IF EXISTS jobs_job_notify_lane();
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0002_lanes"),
    ]

    operations = [
        migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP), elidable=False),
    ]

"""On PostgreSQL, every ready row inserted notifies its lane's channel (apps/jobs/wakeup.py).

A trigger, so every way a row is written (``enqueue``, ``enqueue_statement`` inside another
statement, a bulk insert) notifies in the same statement, with no round trip of its own. The
notification is delivered when the transaction commits, never for one rolled back, and
PostgreSQL sends one per channel however many rows a transaction wrote. SQLite: nothing.
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION jobs_job_notify_lane() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('jobs_' || NEW.lane, '');
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

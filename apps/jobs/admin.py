from django.contrib import admin
from django.utils import timezone

from apps.core.admin import ReadOnlyAdmin

from . import schedules
from .models import Job, JobStatus


class StateFilter(admin.SimpleListFilter):
    """What staff look for: rows being run, rows waiting past their time (no worker?), failures."""

    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [
            ("running", "Running (leased)"),
            ("overdue", "Overdue by 5 minutes or more"),
            ("retrying", "Waiting to retry"),
            ("failed", "Failed"),
            ("scheduled", "Scheduled work (recurring)"),
        ]

    def queryset(self, request, queryset):
        now = timezone.now()
        ready = queryset.filter(status=JobStatus.READY)
        if self.value() == "running":
            return ready.filter(locked_until__gt=now)
        if self.value() == "overdue":
            return ready.filter(run_at__lte=now - timezone.timedelta(minutes=5)).exclude(locked_until__gt=now)
        if self.value() == "retrying":
            return ready.exclude(last_error="").exclude(locked_until__gt=now)
        if self.value() == "failed":
            return queryset.filter(status=JobStatus.FAILED)
        if self.value() == "scheduled":
            return queryset.filter(kind__in=[item.kind for item in schedules.schedules()])
        return queryset


@admin.register(Job)
class JobAdmin(ReadOnlyAdmin):
    """Read-only: work is changed by its handlers and the worker, not by hand."""

    list_display = ("id", "kind", "status", "subject", "run_at", "attempts", "locked_until", "created", "finished_at")
    list_filter = (StateFilter, "status", "kind")
    search_fields = ("=id", "=subject", "=dedupe_key", "kind")
    date_hierarchy = "created"
    readonly_fields = [f.name for f in Job._meta.fields]
    # The declared schedules, each with its latest period, above the rows.
    change_list_template = "admin/jobs/job/change_list.html"

    def changelist_view(self, request, extra_context=None):
        now = timezone.now()
        declared = schedules.schedules()
        latest = {}
        for item in declared:
            latest[item.kind] = Job.objects.filter(kind=item.kind).order_by("-run_at", "-id").first()
        rows = [
            {
                "kind": item.kind,
                "every": item.every,
                "description": item.description,
                "last": latest[item.kind],
                "next": item.period_start(now) + item.every,
            }
            for item in declared
        ]
        return super().changelist_view(request, {**(extra_context or {}), "schedules": rows})

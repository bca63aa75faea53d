"""The jobs admin: staff see running, overdue, retrying and failed work, and change none of it."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.jobs.models import Job, JobStatus
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_browser():
    browser = Client()
    browser.force_login(UserFactory(is_staff=True, is_superuser=True))
    return browser


def _rows(browser, query=""):
    response = browser.get(f"/admin/jobs/job/{query}")
    assert response.status_code == 200
    return {job.kind for job in response.context["cl"].result_list}


def test_the_states_staff_look_for(staff_browser):
    now = timezone.now()
    Job.objects.create(kind="t.running", run_at=now, locked_until=now + timedelta(minutes=4), attempts=1)
    Job.objects.create(kind="t.overdue", run_at=now - timedelta(hours=1))
    Job.objects.create(kind="t.retrying", run_at=now + timedelta(minutes=1), attempts=2, last_error="Boom")
    Job.objects.create(kind="t.failed", status=JobStatus.FAILED, attempts=8, last_error="Boom")
    Job.objects.create(kind="t.done", status=JobStatus.SUCCESSFUL, attempts=1)
    assert _rows(staff_browser) == {"t.running", "t.overdue", "t.retrying", "t.failed", "t.done"}
    assert _rows(staff_browser, "?state=running") == {"t.running"}
    assert _rows(staff_browser, "?state=overdue") == {"t.overdue"}
    assert _rows(staff_browser, "?state=retrying") == {"t.retrying"}
    assert _rows(staff_browser, "?state=failed") == {"t.failed"}


def test_the_admin_is_read_only(staff_browser):
    job = Job.objects.create(kind="t.failed", status=JobStatus.FAILED, last_error="Boom")
    page = staff_browser.get(f"/admin/jobs/job/{job.pk}/change/")
    assert page.status_code == 200
    assert "Boom" in page.content.decode()
    assert staff_browser.get("/admin/jobs/job/add/").status_code == 403
    assert staff_browser.post(f"/admin/jobs/job/{job.pk}/delete/", {"post": "yes"}).status_code == 403
    staff_browser.post(f"/admin/jobs/job/{job.pk}/change/", {"status": "ready"})
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED

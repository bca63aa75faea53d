"""Resident memory of each gunicorn worker, from /proc: a leak shows as growth between two readings."""

from dataclasses import dataclass, field
from pathlib import Path


def workers(master: int) -> list[int]:
    """The live children of a gunicorn master (its workers)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == master:
            found.append(int(stat.parent.name))
    return sorted(found)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class Reading:
    served: int
    rss: dict[int, float] = field(default_factory=dict)


@dataclass
class WorkerMemory:
    """Readings of one server's workers: after warm-up, then after many more requests."""

    server: str
    readings: list[Reading] = field(default_factory=list)

    def read(self, master: int, served: int) -> Reading:
        reading = Reading(served, {pid: rss_mb(pid) for pid in workers(master)})
        self.readings.append(reading)
        return reading

    def growth_between(self, first: int, last: int) -> dict[int, float]:
        """MB each worker grew from one reading to another (a worker replaced is left out)."""
        before, after = self.readings[first].rss, self.readings[last].rss
        return {pid: after[pid] - before[pid] for pid in before if pid in after}

    @property
    def replaced(self) -> bool:
        return set(self.readings[0].rss) != set(self.readings[-1].rss)

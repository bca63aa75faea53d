#!/usr/bin/env python
import os
import sys
from pathlib import Path


def main():
    from config import run_env

    # In a checkout where `make run` ran: its settings, for whatever the environment leaves unsaid.
    run_env.load(Path(__file__).resolve().parent / run_env.FILE_NAME)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from apps.core import statements

    # Migrations and other commands get the longer statement bound; the web server keeps the requests'.
    statements.run_as_command(sys.argv)
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

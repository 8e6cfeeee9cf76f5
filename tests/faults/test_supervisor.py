"""``make run``'s supervisor: a process that dies is restarted and logged; the others keep running; a stop
reaches every process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from config.supervisor import parse_procfile

ROOT = Path(__file__).resolve().parents[2]


def test_the_procfile_parses_into_its_processes() -> None:
    parsed = parse_procfile((ROOT / "Procfile").read_text())
    assert {"front", "web", "worker", "beat", "relay"} <= set(parsed)


def test_a_killed_process_is_restarted_and_the_others_keep_running(tmp_path: Path) -> None:
    procfile = tmp_path / "Procfile"
    procfile.write_text(
        f"steady: echo steady $$ >> {tmp_path / 'steady'}; exec sleep 60\n"
        f"victim: echo victim $$ >> {tmp_path / 'victim'}; exec sleep 60\n"
    )
    supervisor = subprocess.Popen(
        [sys.executable, "-m", "config.supervisor", str(procfile)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 10
        while not ((tmp_path / "victim").exists() and (tmp_path / "steady").exists()):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        victim_pid = int((tmp_path / "victim").read_text().split()[1])
        os.kill(victim_pid, signal.SIGKILL)
        while len((tmp_path / "victim").read_text().splitlines()) < 2:
            assert time.monotonic() < deadline + 10, "the killed process was not restarted"
            time.sleep(0.05)
        assert len((tmp_path / "steady").read_text().splitlines()) == 1  # untouched
        steady_pid = int((tmp_path / "steady").read_text().split()[1])
        os.kill(steady_pid, 0)  # still alive
    finally:
        supervisor.send_signal(signal.SIGTERM)
        output = supervisor.communicate(timeout=20)[0].decode()
    assert "victim exited with code -9" in output and "restarting in" in output
    new_victim = int((tmp_path / "victim").read_text().splitlines()[1].split()[1])
    for pid in (steady_pid, new_victim):
        time.sleep(0.1)
        try:
            os.kill(pid, 0)
            raise AssertionError(f"process {pid} survived the stop")
        except ProcessLookupError:
            pass

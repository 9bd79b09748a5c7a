"""generator/data/jobs.py: the regeneration's stages shared by this process and one spawned worker."""
import os
import time

import pytest

from generator.data.jobs import JobFailed, SharedJobs


def setup(tag):
    """The worker's state: its tag and its process id."""
    return tag, os.getpid()


def both_take_one(state, folder):
    """Make sure each process takes at least one job, however slowly the worker starts on a loaded machine: the
    worker leaves a mark when it takes its first job, and this process's jobs wait (up to a minute) for that mark."""
    mark = folder / "worker-started"
    if state[0] == "worker":
        mark.touch()
        return
    deadline = time.monotonic() + 60
    while not mark.exists() and time.monotonic() < deadline:
        time.sleep(0.01)


def slow_setup(tag):
    """A worker that starts slowly, as on a loaded machine."""
    time.sleep(3)
    return setup(tag)


def square(state, report, x):
    time.sleep(0.05)
    return x * x, state[1]


def shared_square(state, report, x, folder):
    """square, once each process has taken a job."""
    both_take_one(state, folder)
    return square(state, report, x)


def fail_here(state, report, x):
    if state[0] == "main":
        raise RuntimeError("interrupted")
    time.sleep(0.05)
    return x


def fail_in_worker(state, report, x, folder):
    both_take_one(state, folder)  # this process keeps working until the worker has failed
    if state[0] == "worker":
        raise ValueError(f"job {x} fails in the worker")
    time.sleep(0.2)
    return x


@pytest.mark.slow("a spawned worker process")
def test_every_job_runs_once_and_both_processes_share_them(tmp_path):
    jobs = SharedJobs(f"{__name__}:setup", ("worker",), workers=1)
    done = []
    results = jobs.run(("main", os.getpid()), [(x, shared_square, (x, tmp_path)) for x in range(40)],
                       on_done=done.append)
    assert sorted(done) == list(range(40)) and {k: v[0] for k, v in results.items()} == {x: x * x for x in range(40)}
    pids = {pid for _, pid in results.values()}
    assert os.getpid() in pids and len(pids) == 2, "each process took some of the jobs"
    assert not jobs.process.is_alive()


@pytest.mark.slow("a spawned worker process")
def test_a_worker_that_starts_slowly_still_takes_its_share(tmp_path):
    """The sharing tests do not depend on how fast the worker starts (it once lost the race on a loaded machine)."""
    jobs = SharedJobs(f"{__name__}:slow_setup", ("worker",), workers=1)
    results = jobs.run(("main", os.getpid()), [(x, shared_square, (x, tmp_path)) for x in range(10)])
    assert len({pid for _, pid in results.values()}) == 2


def halves(state, report, x, folder):
    """Reports its progress twice, then returns its process id."""
    both_take_one(state, folder)
    report(0.5)
    time.sleep(0.05)
    report(1.0)
    return state[1]


def test_progress_reaches_this_process_from_both_processes_while_it_works(tmp_path):
    jobs = SharedJobs(f"{__name__}:setup", ("worker",), workers=1)
    heard = []
    results = jobs.run(("main", os.getpid()), [(x, halves, (x, tmp_path)) for x in range(30)],
                       on_progress=lambda key, fraction: heard.append((key, fraction)))
    assert len(set(results.values())) == 2, "each process took some of the jobs"
    assert sorted(heard) == sorted((x, f) for x in range(30) for f in (0.5, 1.0))
    for x in range(30):  # a job's own reports arrive in order
        assert [f for key, f in heard if key == x] == [0.5, 1.0]


def test_without_a_worker_every_job_runs_here():
    jobs = SharedJobs(f"{__name__}:setup", ("worker",), workers=0)
    results = jobs.run(("main", os.getpid()), [(x, square, (x,)) for x in range(3)])
    assert jobs.process is None and {pid for _, pid in results.values()} == {os.getpid()}


def test_a_job_failing_in_the_worker_names_the_job_and_shows_its_traceback(tmp_path):
    jobs = SharedJobs(f"{__name__}:setup", ("worker",), workers=1)
    with pytest.raises(JobFailed, match=r"(?s)failed in the worker process.*ValueError: job \d+ fails in the worker"):
        jobs.run(("main", os.getpid()), [(x, fail_in_worker, (x, tmp_path)) for x in range(50)])
    assert not jobs.process.is_alive()


def test_a_failure_here_stops_the_worker_at_once():
    jobs = SharedJobs(f"{__name__}:setup", ("worker",), workers=1)
    started = time.perf_counter()
    with pytest.raises(RuntimeError, match="interrupted"):
        jobs.run(("main", os.getpid()), [(x, fail_here, (x,)) for x in range(200)])
    assert not jobs.process.is_alive() and time.perf_counter() - started < 8


def test_a_broken_set_up_is_reported_not_waited_for():
    jobs = SharedJobs(f"{__name__}:no_such_setup", (), workers=1)
    with pytest.raises(JobFailed, match="the worker's set-up.*\n(?s:.*)no_such_setup"):
        jobs.run(("main", os.getpid()), [(x, square, (x,)) for x in range(400)])


def refuse_in_worker(state, report, x, folder):
    """A setting the worker refuses (as the replay refuses a lesson.toml whose seeds give no full round)."""
    both_take_one(state, folder)
    if state[0] == "worker":
        from generator.errors import InputError
        raise InputError("lesson.toml", "replay.max_tries", f"is 1: job {x} found no seed")
    time.sleep(0.2)
    return x


def test_a_setting_refused_in_the_worker_is_its_message_not_a_traceback(tmp_path):
    from generator.errors import SettingError
    jobs = SharedJobs(f"{__name__}:setup", ("worker",), workers=1)
    with pytest.raises(SettingError) as e:
        jobs.run(("main", os.getpid()), [(x, refuse_in_worker, (x, tmp_path)) for x in range(50)])
    assert str(e.value).startswith("lesson.toml: replay.max_tries: is 1: job ") and "Traceback" not in str(e.value)
    assert not jobs.process.is_alive()

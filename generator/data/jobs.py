"""Independent jobs shared by this process and one worker process, taken in turn from one list.

gen_c13_precomputed's stages do not depend on each other, so they run as jobs, listed longest first. The worker
is spawned at once (it loads the models while this process checks the inputs); then each process, when free,
takes the next job of the list, so the long jobs start first and the short ones fill the end: neither process
waits for the other longer than one short job. A job is (key, function, args) with a module-level function,
called as function(state, report, *args): in the worker, state is what setup(*setup_args) returned there, setup
being named "module:function" so that the worker can start before this process has imported it (and torch);
here, the state given to run(). report(fraction) says how much of its work the job has done so far (0 to 1): it
reaches on_progress(key, fraction) in this process, from either process, while this one works on its own jobs.

    jobs = SharedJobs("package.module:setup", setup_args)  # the worker starts (none with workers=0, or one core)
    results = jobs.run(state, job_list, on_done, on_progress)  # {key: result}; on_done(key) as each job finishes
"""
import importlib
import multiprocessing
import os
import queue
import threading
import traceback

from ..errors import InputError, SettingError


class JobFailed(RuntimeError):
    """A job failed in the worker process: its key and the worker's traceback."""


def _take(lock, ends):
    """The index of the next job not taken yet (ends: the next index, the number of jobs); None when none is left."""
    with lock:
        if ends[0] >= ends[1]:
            return None
        ends[0] += 1
        return ends[0] - 1


def _exit_with_parent():
    """End this worker as soon as the process that started it is gone (killed with -9, say): a thread waits on
    the parent's sentinel, so the worker never goes on computing for nobody."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch():
        parent.join()
        os._exit(1)
    threading.Thread(target=watch, daemon=True, name="exit with parent").start()


def _worker(setup, setup_args, inbox, lock, ends, outbox):
    _exit_with_parent()
    try:
        module, name = setup.split(":")
        state = getattr(importlib.import_module(module), name)(*setup_args)
        jobs = inbox.get()
        while (i := _take(lock, ends)) is not None:
            key, function, args = jobs[i]
            try:
                outbox.put(("done", key, function(state, lambda fraction, key=key: outbox.put(
                    ("progress", key, fraction)), *args)))
            except (InputError, SettingError) as e:  # a refused setting: its message, as this process would say it
                outbox.put(("refused", key, str(e)))
                return
            except BaseException:
                outbox.put(("failed", key, traceback.format_exc()))
                return
    except BaseException:
        outbox.put(("failed", "the worker's set-up", traceback.format_exc()))
        return
    outbox.put(("finished", None, None))


class SharedJobs:
    def __init__(self, setup, setup_args=(), workers=None):
        workers = (min(2, os.cpu_count() or 1) - 1) if workers is None else workers
        ctx = multiprocessing.get_context("spawn")
        self.lock, self.ends = ctx.Lock(), ctx.Array("i", [0, 0], lock=False)
        self.inbox, self.outbox, self.process = ctx.Queue(), ctx.Queue(), None
        if workers > 0:
            self.process = ctx.Process(target=_worker, daemon=True, name="gen_c13_precomputed worker",
                                       args=(setup, setup_args, self.inbox, self.lock, self.ends, self.outbox))
            self.process.start()

    def run(self, state, jobs, on_done=lambda key: None, on_progress=lambda key, fraction: None):
        """Run jobs (a list of (key, function, args), longest first) in both processes; {key: result}."""
        results, self.finished = {}, self.process is None
        self.on_done, self.on_progress = on_done, on_progress
        try:
            with self.lock:
                self.ends[0], self.ends[1] = 0, len(jobs)
            if self.process is not None:
                self.inbox.put(jobs)
            while (i := _take(self.lock, self.ends)) is not None:
                key, function, args = jobs[i]
                results[key] = function(state, lambda fraction, key=key: self._report(results, key, fraction), *args)
                self.on_done(key)
                self._collect(results, block=False)
            while not self.finished:
                self._collect(results, block=True)
        except BaseException:
            self.stop()
            raise
        self.stop()
        return results

    def _report(self, results, key, fraction):
        """A job of this process reports its progress; the worker's news is taken meanwhile (its results, its
        progress, or its failure, which stops this job too)."""
        self.on_progress(key, fraction)
        self._collect(results, block=False)

    def _collect(self, results, block):
        """Take what the worker has sent (waiting until it sends something, if block): its results, its progress,
        its failure, or that it has finished."""
        while not self.finished:
            try:
                kind, key, value = self.outbox.get(timeout=1) if block else self.outbox.get_nowait()
            except queue.Empty:
                if not block:
                    return
                if not self.process.is_alive():
                    raise JobFailed(f"the worker process stopped (exit code {self.process.exitcode}) "
                                    "before finishing its jobs") from None
                continue
            if kind == "refused":
                raise SettingError(value)
            if kind == "failed":
                raise JobFailed(f"{key} failed in the worker process:\n{value}")
            if kind == "finished":
                self.finished = True
            elif kind == "progress":
                self.on_progress(key, value)
                continue  # news, not a result: a blocking wait goes on
            else:
                results[key] = value
                self.on_done(key)
            if block:
                return

    def stop(self):
        """End the worker now (after an error, or once everything is collected)."""
        if self.process is not None and self.process.is_alive():
            self.process.terminate()
        if self.process is not None:
            self.process.join(5)

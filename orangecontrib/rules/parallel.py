"""The learners' parallel loops in one place: joblib (threads by default,
any backend the user configures) and Dask (the shared data sent to every
worker first), how many jobs a loop gets, and the BLAS threads of a fit."""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from functools import cache, partial


@cache
def _blas_controller():
    """threadpoolctl's controller of the BLAS libraries loaded, scipy's
    included (``scipy.linalg`` imported first: scipy's own OpenBLAS, which
    its L-BFGS-B calls, is loaded with it)."""
    import scipy.linalg  # noqa: F401
    from threadpoolctl import ThreadpoolController
    return ThreadpoolController().select(user_api="blas")


_blas_lock = threading.Lock()
_blas_fits = 0      # fits running (nested ones included)
_blas_saved = []    # (library, threads) to restore when the last fit ends


def _per_thread(lib) -> bool:
    """The library's thread limit is per calling thread (an OpenMP build),
    not the process's."""
    return getattr(lib, "threading_layer", None) == "openmp"


def _set_threads(lib, n: int):
    """Set a process-wide BLAS pool's threads from any thread. threadpoolctl
    (3.6 on) lets only one Python thread, the first to change OpenBLAS's
    limit while alive, change it again: a script's main thread, once it has
    fitted, would keep the fits in Orange's worker threads from taking
    their limit. The fits order their changes by their own lock, so they
    call the library's setter itself (older threadpoolctl: its public
    setter, which has no such rule)."""
    getattr(lib, "_real_set_num_threads", lib.set_num_threads)(n)


@contextmanager
def one_blas_thread():
    """While a fit runs, the BLAS libraries of numpy and scipy use one
    thread (through threadpoolctl's controllers; nothing for a BLAS it does
    not control). Every fit runs in this (``RuleLearner.fit_storage``): the
    fits' linear algebra (LR with rules' L-BFGS and Newton steps) is many
    products of small matrices, which a pool of BLAS threads makes slower,
    not faster (LR with rules on 5000 x 40 x 11: 8.4 s with OpenBLAS's
    default two threads on a two-core machine, 4.3 s with one;
    doc/architecture.md). The learners' own parallelism is ``n_jobs``.

    OpenBLAS's limit is the process's (one pool of threads), so the fits
    share it: the first to start sets it, reading the limit to restore
    while no fit holds one, and the last to end, in whatever thread,
    restores it. A fit nested in another (LR with rules fits EVC rules) or
    running beside it in another thread (Orange's widgets, Test & Score)
    runs on one BLAS thread from its start to its end, so its floats do not
    depend on what else runs: a fit that ended first had restored the limit
    under one still running, and where the limit could not be taken in a
    worker thread the fits there ran on two (probabilities 1e-16 apart). A
    library whose limit is per thread (an OpenMP build) is limited and
    restored by each fit in its own thread."""
    global _blas_fits, _blas_saved
    libs = _blas_controller().lib_controllers
    own = [(lib, lib.num_threads) for lib in libs if _per_thread(lib)]
    for lib, _ in own:
        lib.set_num_threads(1)
    with _blas_lock:
        if _blas_fits == 0:
            _blas_saved = [(lib, lib.num_threads) for lib in libs if not _per_thread(lib)]
            for lib, _ in _blas_saved:
                _set_threads(lib, 1)
        _blas_fits += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_fits -= 1
            if _blas_fits == 0:
                for lib, n in _blas_saved:
                    _set_threads(lib, n)
                _blas_saved = []
        for lib, n in own:
            lib.set_num_threads(n)


def parallel_jobs(n_jobs):
    """``n_jobs`` for ``joblib.Parallel``: the learner's own, else the
    ``n_jobs`` of an active ``joblib.parallel_config`` (joblib itself drops
    it when a loop prefers threads and the configuration names no backend,
    so ``with parallel_config(n_jobs=2)`` would run one job), else ``None``
    (one job)."""
    return n_jobs if n_jobs is not None else _active_backend()[1]


def _active_backend():
    """joblib's active ``(backend, n_jobs)``; ``(None, None)`` if this
    joblib cannot say."""
    try:
        from joblib.parallel import get_active_backend
        backend, n_jobs = get_active_backend()
        return backend, n_jobs
    except (ImportError, AttributeError, TypeError, ValueError):  # another joblib
        return None, None


def in_process_backend() -> bool:
    """Does :func:`parallel_map` run its tasks in this process (threads, or
    one after the other), so that they can reach the caller's objects? Not
    under a process or Dask backend the user chose."""
    try:
        from joblib.parallel import get_active_backend
        backend = get_active_backend(prefer="threads")[0]
    except (ImportError, AttributeError, TypeError, ValueError):  # another joblib
        return False
    return type(backend).__name__ in ("ThreadingBackend", "SequentialBackend")


def parallel_map(jobs, n_jobs=None):
    """The results of joblib's ``delayed`` calls ``jobs``, in order, as they
    finish: ``joblib.Parallel(n_jobs=parallel_jobs(n_jobs), prefer="threads",
    return_as="generator")``, every learner's parallel loop.

    Under joblib's Dask backend the large objects the tasks share (the
    search data, the encoded table) are first sent to every worker, here in
    the calling thread. Left to itself joblib sends each to one worker from
    inside its event loop, and if that worker dies while the data is on its
    way the error is dropped there and the loop waits forever (joblib 1.6.0
    with distributed 2026.8.0). Sent here, a send that fails is tried again
    (twice, to the workers left) and then raises; once sent, a lost worker
    costs its tasks only (the others hold a copy; Dask reruns them, or joblib
    runs the loop here if one core is left)."""
    from joblib import Parallel

    n_jobs = parallel_jobs(n_jobs)
    client = _dask_client(n_jobs)
    if client is not None:
        jobs = _with_broadcast_data(client, list(jobs))
    return Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(jobs)


def _dask_client(n_jobs):
    """The client of the active joblib Dask backend, if a loop of ``n_jobs``
    would run on it from outside a Dask worker; else ``None``."""
    backend = _active_backend()[0]
    if n_jobs == 1 or type(backend).__name__ != "DaskDistributedBackend":
        return None
    try:
        from distributed import get_worker
        get_worker()
        return None  # a nested loop inside a task: leave it to joblib
    except (ImportError, ValueError):
        return getattr(backend, "client", None)


def _with_broadcast_data(client, jobs):
    """``jobs`` with every argument joblib would scatter (weak-referenceable,
    over 1 kB by Dask's measure) replaced by the future of its data,
    scattered and then copied to every worker (:func:`_every_copy_lost`;
    ``hash=False`` as joblib does: a nested scatter may not hash)."""
    import weakref

    from dask.sizeof import sizeof

    def big(arg):
        try:
            weakref.ref(arg)
        except TypeError:
            return False
        return sizeof(arg) > 1e3

    shared = {}
    for _, args, kwargs in jobs:
        for arg in (*args, *kwargs.values()):
            if id(arg) not in shared and big(arg):
                shared[id(arg)] = arg
    if not shared:
        return jobs
    for attempt in range(3):  # a worker lost while the data is on its way
        try:
            # each piece to one worker; _every_copy_lost copies it to the
            # others within REPLICATE_TIMEOUT (scatter(broadcast=True) copies
            # with the same loop and no time limit), or finds it lost with its
            # worker, and tasks would wait for it forever: scatter again
            scattered = client.scatter(list(shared.values()), broadcast=False, hash=False)
            if _every_copy_lost(client, scattered):
                raise OSError("scattered data lost with a worker")
            break
        except OSError:  # Dask's CommClosedError: again, to the workers left
            if attempt == 2:
                raise
            time.sleep(1)
    futures = dict(zip(shared, scattered))

    def swap(arg):
        return futures.get(id(arg), arg)

    return [(partial(_resolved_call, func), tuple(swap(a) for a in args),
             {k: swap(v) for k, v in kwargs.items()})
            for func, args, kwargs in jobs]


#: seconds the scheduler gets to copy the data to a worker that lacks it.
#: Its replication (``Scheduler.replicate``, distributed 2026.8.0; also
#: behind ``scatter(broadcast=True)``) loops until every worker it started
#: with holds a copy, so a worker lost meanwhile keeps it trying to reach
#: that worker forever (a fit of the tests waited over 240 s); past this
#: the fit goes on with the copies made, at least one
REPLICATE_TIMEOUT = 30.0


def _every_copy_lost(client, futures) -> bool:
    """Does some future of ``futures`` have its data on no worker? Where a
    copy is missing on a live worker, the scheduler is asked to make it,
    for at most :data:`REPLICATE_TIMEOUT` seconds."""
    holders = client.who_has(futures)
    counts = [len(holders.get(f.key, ())) for f in futures]
    if min(counts, default=1) == 0:
        return True
    workers = len(client.scheduler_info()["workers"])
    if min(counts, default=workers) < workers:
        try:
            client.replicate(futures, callback_timeout=REPLICATE_TIMEOUT)
        # a worker lost meanwhile (a TimeoutError is an OSError; the
        # scheduler raises ValueError when fewer workers are left than it
        # started with): the check above runs again
        except (OSError, ValueError):
            return not all(client.who_has(futures).get(f.key) for f in futures)
    return False


def _resolved_call(func, *args, **kwargs):
    """``func`` on the data behind any future among its arguments. On a
    worker Dask has put the data in already; joblib runs a loop in this
    process instead when the cluster has one core left (a worker lost),
    and then the futures are fetched here."""
    from distributed import Future

    def data(arg):
        return arg.result() if isinstance(arg, Future) else arg

    return func(*map(data, args), **{k: data(v) for k, v in kwargs.items()})

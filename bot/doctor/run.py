"""Run every backend's check at once, each under its own deadline, and gather the reports."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable

from bot.config import BotConfig
from bot.doctor.gpu import check_gpu
from bot.doctor.kube import check_kubernetes
from bot.doctor.llm import check_llm
from bot.doctor.logs import check_logs
from bot.doctor.prometheus import check_prometheus
from bot.doctor.report import BackendReport, Diagnosis
from bot.doctor.slack import check_slack
from bot.settings import Settings
from tools.result import describe_error

Check = Callable[[], BackendReport]


def checks(settings: Settings, config: BotConfig, timeout: float) -> dict[str, Check]:
    """The backends in the order doctor prints them."""
    return {
        "prometheus": lambda: check_prometheus(settings, config, timeout=timeout),
        "logs": lambda: check_logs(settings, config, timeout=timeout),
        "kubernetes": lambda: check_kubernetes(settings, config, timeout=timeout),
        "gpu": lambda: check_gpu(settings, config, timeout=timeout),
        "slack": lambda: check_slack(settings, config, timeout=timeout),
        "llm": lambda: check_llm(settings, timeout=timeout),
    }


def diagnose(settings: Settings, config: BotConfig, *, timeout: float | None = None) -> Diagnosis:
    """Every report; a check that overruns or trips over itself is an unusable backend, never a crash."""
    timeout = timeout or settings.tool_timeout_seconds
    todo = checks(settings, config, timeout)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=len(todo), thread_name_prefix="doctor")
    futures = {name: pool.submit(check) for name, check in todo.items()}
    reports: list[BackendReport] = []
    for name, future in futures.items():
        try:
            # each check makes a handful of calls, each under `timeout`
            reports.append(future.result(timeout=timeout * 6 + 5))
        except concurrent.futures.TimeoutError:
            reports.append(BackendReport.unusable(name, None, f"no answer within {timeout * 6 + 5:g} s"))
        except Exception as exc:
            reports.append(BackendReport.unusable(name, None, f"check failed: {describe_error(exc)}"))
    pool.shutdown(wait=False, cancel_futures=True)
    return Diagnosis(reports)

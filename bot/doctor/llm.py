"""The LLM endpoint: reachable, the key accepted, and the configured model served.

Only the model list is read: doctor spends no tokens.
"""

from __future__ import annotations

import openai
from openai import OpenAI

from bot.doctor.report import BackendReport, Finding
from bot.settings import Settings


def check_llm(settings: Settings, *, timeout: float) -> BackendReport:
    url = settings.openai_base_url
    if not url:
        return BackendReport.absent("llm", "OPENAI_BASE_URL unset: the rules engine triages alone")
    if not settings.openai_model:
        return BackendReport.unusable("llm", url, "OPENAI_MODEL unset: the review needs a model name")
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "unset"
    client = OpenAI(base_url=url, api_key=key, max_retries=0, timeout=timeout)
    try:
        served = [m.id for m in client.models.list()]
    except openai.AuthenticationError:
        return BackendReport.unusable("llm", url, "the API key was refused (401)")
    except openai.APIConnectionError as exc:
        return BackendReport.unusable("llm", url, f"unreachable: {exc}")
    except openai.NotFoundError:
        hint = "" if url.rstrip("/").endswith("/v1") else ": does OPENAI_BASE_URL end in /v1?"
        return BackendReport.unusable("llm", url, f"GET {url.rstrip('/')}/models answered 404{hint}")
    except openai.APIError as exc:
        return BackendReport.unusable("llm", url, f"listing models failed: {exc}")
    finally:
        client.close()
    if settings.openai_model not in served:
        shown = ", ".join(served[:5]) + ("…" if len(served) > 5 else "")
        return BackendReport.unusable(
            "llm", url, f"model {settings.openai_model} is not served here (serves: {shown or 'none'})"
        )
    findings = [Finding(f"model {settings.openai_model} is served", ok=True)]
    return BackendReport.judged(
        "llm", url, f"OpenAI-compatible, reviews with {settings.openai_model}", findings
    )

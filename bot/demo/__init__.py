"""`incident-bot demo`: a bundled scenario through the real flow, watched in a terminal or a browser.

Like `sandbox up` and `eval`, an entry point on the sandbox: only the CLI imports it.
"""

DEFAULT_SCENARIO = (
    "kv-cache-preemption-traffic-surge"  # an evening surge fills the KV cache; a replica more helps
)

"""The sandbox: a recorded incident (a scenario pack) served through the real protocols.

A real Prometheus loaded from the pack's metrics, and local HTTP stand-ins of the APIs that cannot
run here (Elasticsearch, Kubernetes, Slack, OpenAI), each reached through its official client.
"""

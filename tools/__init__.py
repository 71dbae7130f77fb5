"""Read-only evidence tools, one module per backend (Prometheus, Elasticsearch, Kubernetes, GPU)."""

"""`gpu-agent`: the GPU node agent, run by the DaemonSet on every GPU node (deploy/kubernetes/gpu-agent.yaml)."""

from __future__ import annotations

import socket
import sys
from typing import Annotated

import typer

from bot.cli.app import app, bound_socket, configure_logging, settings

DEFAULT_PORT = 9402


@app.command("gpu-agent")
def gpu_agent(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "0.0.0.0",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = DEFAULT_PORT,
) -> None:
    """Serve this node's NVML readings and the Xid events seen since start (read-only)."""
    import pynvml
    import uvicorn

    from bot.clock import utc_now
    from bot.gpuagent.agent import GpuAgent
    from bot.gpuagent.app import build_app

    loaded = settings()
    configure_logging(loaded)
    node = loaded.node_name or socket.gethostname()
    agent = GpuAgent(pynvml, node, clock=utc_now)
    try:
        agent.start()
    except pynvml.NVMLError as exc:
        typer.echo(f"error: NVML cannot be opened on {node}: {exc} (is the NVIDIA driver mounted?)", err=True)
        raise typer.Exit(1) from exc
    try:
        sock = bound_socket(host, port)
        bound = sock.getsockname()[1]
        typer.echo(f"gpu-agent for node {node} on http://{host}:{bound} (GET /v1/gpus, /v1/xids, /healthz)")
        sys.stdout.flush()
        config = uvicorn.Config(build_app(agent), log_level=loaded.log_level.lower(), access_log=False)
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        agent.stop()  # nvmlShutdown, also on SIGTERM (uvicorn returns from run first)

"""GPU state from NVML, read by an agent on each GPU node and asked by the bot over HTTP.

`nvml` turns pynvml's answers into the typed readings of `readings` (the agent's wire format);
`agents` finds each node's agent; `tool` turns the agents' readings into evidence and gaps.
Cluster-wide GPU metrics come from DCGM through the Prometheus tool.
"""

from tools.gpu.agents import PodAgents, StaticAgents, parse_agent_urls
from tools.gpu.readings import GpuState, NodeGpus
from tools.gpu.tool import GpuTool, gpu_evidence

__all__ = ["GpuState", "GpuTool", "NodeGpus", "PodAgents", "StaticAgents", "gpu_evidence", "parse_agent_urls"]

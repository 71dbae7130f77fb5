"""The GPU node agent: NVML held open on a GPU node, Xid events buffered, readings served over HTTP."""
